package scenarios

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

//go:embed builtin/*.toml
var builtinFS embed.FS

// catalogOrder is the order of the catalog: the seed stories first, then the classic shapes.
// A built-in file whose name is not listed here comes after these, alphabetically.
var catalogOrder = []string{
	"black-friday",
	"dns-crash",
	"food-delivery",
	"upi-salary-day",
	"article-benchmark",
	"api-throttling",
	"spotty-network",
	"slow-ledger",
	"prefetch-spike",
	"metastable",
	"two-layers",
	"closed-loop",
	"open-loop",
	"shared-budget",
}

// builtin is one embedded scenario file, parsed once.
type builtin struct {
	file string
	scn  Scenario
	err  error
}

// builtins parses every embedded file once, in catalog order.
var builtins = sync.OnceValue(func() []builtin {
	entries, err := builtinFS.ReadDir("builtin")
	if err != nil {
		return nil
	}
	var out []builtin
	for _, e := range entries {
		name := "builtin/" + e.Name()
		data, err := builtinFS.ReadFile(name)
		if err != nil {
			out = append(out, builtin{file: name, err: err})
			continue
		}
		s, err := Parse(name, data)
		out = append(out, builtin{file: name, scn: s, err: err})
	}
	rank := func(b builtin) int {
		if i := slices.Index(catalogOrder, strings.TrimSuffix(path.Base(b.file), ".toml")); i >= 0 {
			return i
		}
		return len(catalogOrder)
	}
	slices.SortStableFunc(out, func(a, b builtin) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.file, b.file)
	})
	return out
})

// Catalog returns every built-in scenario in catalog order (the seed stories first). Each call
// returns fresh slices, so callers may modify what they get. A built-in file that fails to parse
// is left out here (the package's tests make sure none does) and reported by Lookup.
// Safe for concurrent use.
func Catalog() []Scenario {
	var out []Scenario
	for _, b := range builtins() {
		if b.err == nil {
			out = append(out, b.scn.clone())
		}
	}
	return out
}

// Names returns the names of the built-in scenarios in catalog order.
func Names() []string {
	var out []string
	for _, s := range Catalog() {
		out = append(out, s.Name)
	}
	return out
}

// Lookup returns the built-in scenario called name. An unknown name is an error that lists the
// valid names. Safe for concurrent use.
func Lookup(name string) (Scenario, error) {
	for _, b := range builtins() {
		base := strings.TrimSuffix(path.Base(b.file), ".toml")
		switch {
		case b.err == nil && b.scn.Name == name:
			return b.scn.clone(), nil
		case b.err != nil && base == name:
			return Scenario{}, fmt.Errorf("built-in scenario %q is broken: %w", name, b.err)
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q; valid names: %s", name, strings.Join(Names(), ", "))
}

// clone returns a copy of s that shares no slices with it.
func (s Scenario) clone() Scenario {
	s.Classes = slices.Clone(s.Classes)
	for i := range s.Classes {
		s.Classes[i].Load = slices.Clone(s.Classes[i].Load)
	}
	s.Load = slices.Clone(s.Load)
	s.Faults = slices.Clone(s.Faults)
	s.Notes = slices.Clone(s.Notes)
	for i := range s.Notes {
		s.Notes[i].Strategies = slices.Clone(s.Notes[i].Strategies)
	}
	return s
}
