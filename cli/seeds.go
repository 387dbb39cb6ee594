package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// maxSeeds is the most seeds one --seeds may name: every seed runs every scenario x strategy,
// so a thousand seeds of the whole catalog is already an hour on two cores.
const maxSeeds = 1000

// seedsUsage shows how --seeds is written, for error messages.
const seedsUsage = "give a range, a list or both, like 1-10, 1,3,5 or 1-3,7"

// parseSeeds reads a --seeds value: comma-separated items, each a seed (a non-negative integer)
// or a range A-B with A <= B (both included). It returns the seeds in the order written.
// Empty items, non-numbers, reversed ranges, a seed named twice and more than maxSeeds seeds
// are errors naming the item.
func parseSeeds(spec string) ([]int64, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("invalid --seeds %q: %s; %s", spec, fmt.Sprintf(format, a...), seedsUsage)
	}
	if strings.TrimSpace(spec) == "" {
		return nil, bad("no seeds")
	}
	var seeds []int64
	seen := map[int64]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, bad("an empty item")
		}
		if strings.HasPrefix(item, "-") {
			return nil, bad("%q: seeds are whole numbers >= 0", item)
		}
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := parseSeed(lo)
		if err != nil {
			return nil, bad("%v", inItem(err, item, isRange))
		}
		b := a
		if isRange {
			if b, err = parseSeed(hi); err != nil {
				return nil, bad("%v", inItem(err, item, isRange))
			}
			if b < a {
				return nil, bad("%q is reversed (write %d-%d)", item, b, a)
			}
		}
		if b-a >= maxSeeds || len(seeds)+int(b-a)+1 > maxSeeds {
			return nil, bad("more than %d seeds", maxSeeds)
		}
		for s := a; ; s++ {
			if seen[s] {
				return nil, bad("seed %d is named twice", s)
			}
			seen[s] = true
			seeds = append(seeds, s)
			if s == b {
				break
			}
		}
	}
	return seeds, nil
}

// inItem names the range item an error of parseSeed comes from (a lone seed is already quoted
// by the error).
func inItem(err error, item string, isRange bool) error {
	if !isRange {
		return err
	}
	return fmt.Errorf("%q: %w", item, err)
}

// parseSeed reads one seed of a --seeds item: a non-negative decimal integer.
func parseSeed(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("a seed is missing")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("%q is not a seed (a whole number >= 0)", s)
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n, nil
}
