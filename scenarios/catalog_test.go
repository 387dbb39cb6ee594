package scenarios_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// seedStories are the scenarios of the seeds, which must open the catalog in this order.
var seedStories = []string{
	"black-friday", "dns-crash", "food-delivery", "upi-salary-day",
	"article-benchmark", "api-throttling", "spotty-network", "slow-ledger",
}

// TestBuiltinFilesParse asserts that every file under builtin/ parses and validates on its own,
// is named after its scenario, and appears in the catalog.
func TestBuiltinFilesParse(t *testing.T) {
	files, err := filepath.Glob("builtin/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	catalog := map[string]bool{}
	for _, s := range scenarios.Catalog() {
		catalog[s.Name] = true
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			s, err := scenarios.ParseFile(file)
			require.NoError(t, err)
			assert.NoError(t, s.Validate())
			assert.Equal(t, strings.TrimSuffix(filepath.Base(file), ".toml"), s.Name, "file named after the scenario")
			assert.True(t, catalog[s.Name], "in the catalog")
		})
	}
	assert.Len(t, scenarios.Catalog(), len(files), "every file is in the catalog, once")
}

// TestCatalogOrder asserts that the seed stories come first, in the order of the spec, followed
// by the classic shapes, and that Names agrees with Catalog.
func TestCatalogOrder(t *testing.T) {
	names := scenarios.Names()
	require.GreaterOrEqual(t, len(names), len(seedStories)+3)
	assert.Equal(t, seedStories, names[:len(seedStories)])
	assert.Subset(t, names[len(seedStories):], []string{"metastable", "two-layers", "closed-loop"})
	for i, s := range scenarios.Catalog() {
		assert.Equal(t, names[i], s.Name)
	}
}

// TestBuiltinContent asserts what each built-in must carry for the dashboard and the docs: a
// one-line summary, a story of a few sentences, 4 to 8 notes starting at t=0 and all inside the
// run, and a moderate size (the full bench must stay fast).
func TestBuiltinContent(t *testing.T) {
	for _, s := range scenarios.Catalog() {
		t.Run(s.Name, func(t *testing.T) {
			assert.NotEmpty(t, s.Summary)
			assert.LessOrEqual(t, len(s.Summary), 90, "summary fits one terminal line with the name")
			assert.GreaterOrEqual(t, strings.Count(s.Story, ". "), 2, "story has a few sentences")
			assert.NotContains(t, s.Story, "\n", "story is one paragraph; the dashboard wraps it")
			require.GreaterOrEqual(t, len(s.Notes), 4)
			for _, name := range strategy.Names() { // the notes one run sees: alternatives count once
				seen := 0
				for _, n := range s.Notes {
					if n.For(name) {
						seen++
					}
				}
				assert.GreaterOrEqual(t, seen, 3, "%s sees 3 to 8 notes", name)
				assert.LessOrEqual(t, seen, 8, "%s sees 3 to 8 notes", name)
			}
			assert.Equal(t, time.Duration(0), s.Notes[0].At, "a caption from the first second")
			for _, n := range s.Notes {
				assert.Less(t, n.At, s.Duration, "notes are shown during the arrivals")
				assert.LessOrEqual(t, len(n.Text), 100, "a note fits the caption line: %q", n.Text)
			}
			originals := expectedOriginals(s)
			assert.Greater(t, originals, 1000.0)
			assert.Less(t, originals, 150000.0, "a few hundred thousand attempts at most, even at 4x amplification")
		})
	}
}

// expectedOriginals estimates the original requests of a run: the integral of the base rate
// times the load profile (open loop), or the users' cycle rate (closed loop).
func expectedOriginals(s scenarios.Scenario) float64 {
	if s.Loop.Closed {
		cycle := s.Loop.Think + s.Service.ServiceTime
		return float64(s.Loop.Users) * s.Duration.Seconds() / cycle.Seconds()
	}
	total := 0.0
	for t := time.Duration(0); t < s.Duration; t += s.Tick {
		total += s.BaseRate() * s.LoadAt(t) * s.Tick.Seconds()
	}
	return total
}

// TestBuiltinStoriesMatchTheirNumbers asserts the numbers the brief and the seeds give for the
// built-ins, as computed from their files: the article's 50,000 requests over 120 s, the
// salary-day surge to about 1.6x capacity with no fault, the DNS blackhole of 40 s, the
// campaign of 100,000 recipients, two retry layers, a closed loop, a short metastable trigger.
func TestBuiltinStoriesMatchTheirNumbers(t *testing.T) {
	get := func(name string) scenarios.Scenario {
		s, err := scenarios.Lookup(name)
		require.NoError(t, err)
		return s
	}
	peakUtilisation := func(s scenarios.Scenario) float64 {
		peak := 0.0
		for t := time.Duration(0); t < s.Duration; t += time.Second {
			peak = max(peak, s.BaseRate()*s.LoadAt(t)/s.Service.Capacity())
		}
		return peak
	}

	bench := get("article-benchmark")
	assert.InDelta(t, 50000, expectedOriginals(bench), 100)
	require.Len(t, bench.Faults, 1)
	assert.Equal(t, 20*time.Second, bench.Faults[0].At)
	assert.Equal(t, 60*time.Second, bench.Faults[0].At+bench.Faults[0].Duration)

	upi := get("upi-salary-day")
	assert.Empty(t, upi.Faults, "overload alone")
	assert.InDelta(t, 1.6, peakUtilisation(upi), 0.05)

	dns := get("dns-crash")
	require.Len(t, dns.Faults, 1)
	assert.Equal(t, scenarios.FaultBlackhole, dns.Faults[0].Kind)
	assert.Equal(t, 40*time.Second, dns.Faults[0].Duration)

	bf := get("black-friday")
	assert.InDelta(t, 1.5, bf.LoadAt(bf.Duration/2)/bf.LoadAt(0), 0.01, "load ramps to 1.5x")
	assert.InDelta(t, 500, bf.Service.Capacity(), 1e-9)

	food := get("food-delivery")
	assert.GreaterOrEqual(t, peakUtilisation(food), 0.85, "dinner rush to near capacity")
	assert.LessOrEqual(t, peakUtilisation(food), 1.0, "near, not above: the crash does the damage")

	campaign := get("api-throttling")
	for _, c := range campaign.Classes {
		if c.Priority == 1 {
			assert.InDelta(t, 100000, c.Rate*campaign.Duration.Seconds(), 1, "a 100,000-recipient campaign")
		}
	}

	assert.Equal(t, 2, get("two-layers").Layers)
	assert.True(t, get("closed-loop").Loop.Closed)
	meta := get("metastable")
	require.Len(t, meta.Faults, 1)
	assert.LessOrEqual(t, meta.Faults[0].Duration, 10*time.Second, "a trigger of a few seconds")
}

// TestLookup asserts that Lookup finds every built-in and that an unknown name is an error
// listing the valid names.
func TestLookup(t *testing.T) {
	for _, name := range scenarios.Names() {
		s, err := scenarios.Lookup(name)
		require.NoError(t, err)
		assert.Equal(t, name, s.Name)
	}
	_, err := scenarios.Lookup("black-monday")
	require.Error(t, err)
	assert.Equal(t, `unknown scenario "black-monday"; valid names: `+strings.Join(scenarios.Names(), ", "), err.Error())
}

// TestLookupReturnsACopy asserts that changing a scenario returned by Lookup or Catalog does not
// change what the next caller gets.
func TestLookupReturnsACopy(t *testing.T) {
	a, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	a.Classes[0].Rate = -1
	a.Notes[0].Text = "changed"
	scenarios.Catalog()[0].Faults[0].At = time.Hour
	b, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	assert.NotEqual(t, -1.0, b.Classes[0].Rate)
	assert.NotEqual(t, "changed", b.Notes[0].Text)
	assert.NotEqual(t, time.Hour, b.Faults[0].At)
}

// TestBuiltinsRoundTrip asserts that every built-in survives MarshalTOML and Parse unchanged,
// so `cortex-tui scenarios NAME --toml` is a faithful starting point for a user's file.
func TestBuiltinsRoundTrip(t *testing.T) {
	for _, s := range scenarios.Catalog() {
		t.Run(s.Name, func(t *testing.T) {
			out, err := s.MarshalTOML()
			require.NoError(t, err)
			again, err := scenarios.Parse(s.Name+".toml", out)
			require.NoError(t, err, "output:\n%s", out)
			assert.Equal(t, s, again)
		})
	}
}

// TestDocsListEveryBuiltin asserts that docs/scenarios.md has a catalog line for every built-in.
func TestDocsListEveryBuiltin(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenarios.md")
	require.NoError(t, err)
	for _, s := range scenarios.Catalog() {
		assert.Contains(t, string(doc), "`"+s.Name+"`", "docs/scenarios.md lists %s", s.Name)
	}
}

// TestDocsExampleParses asserts that the full example in docs/scenarios.md is a valid scenario.
func TestDocsExampleParses(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenarios.md")
	require.NoError(t, err)
	_, rest, found := strings.Cut(string(doc), "```toml\n")
	require.True(t, found, "docs/scenarios.md has a TOML example")
	example, _, found := strings.Cut(rest, "```")
	require.True(t, found)
	s, err := scenarios.Parse("docs-example.toml", []byte(example))
	require.NoError(t, err)
	assert.Len(t, s.Faults, 2)
	assert.Len(t, s.Notes, 2)
}

// Asserts that a built-in caption scoped to some strategies (strategies = [...]) and naming
// one of them names each strategy it is shown to: "Naive retries keep it down" was shown to
// backoff too, with "backoff" in the header under it.
func TestScopedNotesNameTheirStrategies(t *testing.T) {
	named := []string{"naive", "backoff", "breaker", "cortex", "throttle", "grpc", "envoy", "finagle", "vegas", "failsafe"}
	word := func(text, name string) bool {
		return regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(name) + `\b`).MatchString(text)
	}
	for _, scn := range scenarios.Catalog() {
		for _, n := range scn.Notes {
			if len(n.Strategies) == 0 || !slices.ContainsFunc(named, func(s string) bool { return word(n.Text, s) }) {
				continue
			}
			for _, s := range n.Strategies {
				assert.True(t, word(n.Text, s) || !slices.Contains(named, s), "%s, note at %s shown to %s: %q names another strategy",
					scn.Name, scenarios.FormatDuration(n.At), s, n.Text)
			}
		}
	}
}
