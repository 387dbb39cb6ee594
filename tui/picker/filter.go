package picker

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/list"
)

// substringFirst is the picker's filter: the entries that hold the term as written (ignoring
// case) come first, earliest match first ("dns" finds dns-crash before anything that merely
// has a d, an n and an s in that order), then the fuzzy matches of bubbles' default filter in
// its order. Each rank marks the matched characters, which the delegate underlines.
func substringFirst(term string, targets []string) []list.Rank {
	lower := strings.ToLower(term)
	type hit struct {
		rank list.Rank
		at   int
	}
	var exact []hit
	seen := map[int]bool{}
	for i, t := range targets {
		at := strings.Index(strings.ToLower(t), lower)
		if at < 0 || lower == "" {
			continue
		}
		start := utf8.RuneCountInString(t[:at])
		idx := make([]int, utf8.RuneCountInString(term))
		for j := range idx {
			idx[j] = start + j
		}
		exact = append(exact, hit{list.Rank{Index: i, MatchedIndexes: idx}, at})
		seen[i] = true
	}
	sort.SliceStable(exact, func(a, b int) bool { return exact[a].at < exact[b].at })
	out := make([]list.Rank, 0, len(targets))
	for _, h := range exact {
		out = append(out, h.rank)
	}
	for _, r := range list.DefaultFilter(term, targets) {
		if !seen[r.Index] {
			out = append(out, r)
		}
	}
	return out
}
