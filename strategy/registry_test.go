package strategy

import (
	"cmp"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// testEnv returns an Env with a manual clock at t0 and a random source seeded with seed.
func testEnv(seed uint64) Env {
	return Env{Clock: engine.NewManualClock(wall0), Rand: newRand(seed)}
}

// TestNames asserts the catalog order the CLI and the dashboard show (the CORTEX strategies
// first, none last, the catalog sorted by rank, each name once), and that the slice is a copy.
func TestNames(t *testing.T) {
	names := Names()
	require.Len(t, names, len(catalog))
	assert.Equal(t, []string{CortexName, ArticleName}, names[:2])
	assert.Equal(t, "none", names[len(names)-1])
	assert.True(t, slices.IsSortedFunc(catalog, func(a, b entry) int { return cmp.Compare(a.rank, b.rank) }))
	seen := map[string]bool{}
	for _, n := range names {
		assert.False(t, seen[n], "%s registered twice", n)
		seen[n] = true
	}
	want := Names()
	Names()[0] = "changed"
	assert.Equal(t, want, Names(), "callers cannot change the catalog")
	assert.Panics(t, func() { register(entry{name: "none", rank: 1}) }, "a name registered twice")
}

// TestDocsDescribeEveryStrategy asserts that docs/strategies.md has a row for every strategy
// of the catalog.
func TestDocsDescribeEveryStrategy(t *testing.T) {
	doc, err := os.ReadFile("../docs/strategies.md")
	require.NoError(t, err)
	for _, name := range Names() {
		assert.Contains(t, string(doc), "| `"+name+"` |", "docs/strategies.md describes %s", name)
	}
}

// TestNew asserts that every catalog name builds a strategy of that name (case and spaces
// ignored), that only the two CORTEX strategies hold an engine, and that every one has a
// description.
func TestNew(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			s, err := New(name, testEnv(1))
			require.NoError(t, err)
			assert.Equal(t, name, s.Name())
			h, ok := s.(EngineHolder)
			assert.Equal(t, name == CortexName || name == ArticleName, ok)
			if ok {
				assert.NotNil(t, h.Engine())
			}
			assert.NotEmpty(t, Describe(name))

			s2, err := New("  "+strings.ToUpper(name)+" ", testEnv(1))
			require.NoError(t, err)
			assert.Equal(t, name, s2.Name())
		})
	}
}

// TestNewErrors asserts that an unknown name is an error naming it and listing every valid
// name, that a nil Rand is an error, and that an invalid cortex config is reported.
func TestNewErrors(t *testing.T) {
	_, err := New("retry-harder", testEnv(1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"retry-harder"`)
	for _, name := range Names() {
		assert.Contains(t, err.Error(), name)
	}

	_, err = New("backoff", Env{})
	assert.ErrorContains(t, err, "Rand")

	bad := engine.DefaultConfig()
	bad.Window = -time.Second
	env := testEnv(1)
	env.Cortex = &bad
	_, err = New("cortex", env)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cortex")
	assert.Contains(t, err.Error(), "Window")

	assert.Empty(t, Describe("retry-harder"))
}

// TestCortexConfigs asserts which engine configuration each CORTEX strategy builds: cortex the
// tuned defaults and cortex-article the article's parameters, both split over Env.Clients, and
// cortex an explicit Env.Cortex as given.
func TestCortexConfigs(t *testing.T) {
	cases := []struct {
		name    string
		clients int
		cortex  *engine.Config
		want    engine.Config
	}{
		{name: CortexName, clients: 1, want: engine.DefaultConfig()},
		{name: CortexName, clients: 20, want: engine.DefaultConfig().Split(20)},
		{name: ArticleName, clients: 0, want: engine.ArticleConfig()},
		{name: ArticleName, clients: 20, want: engine.ArticleConfig().Split(20)},
		{name: CortexName, clients: 20, cortex: func() *engine.Config { c := engine.ArticleConfig(); c.QueueCapacity = 7; return &c }(),
			want: func() engine.Config { c := engine.ArticleConfig(); c.QueueCapacity = 7; return c }()},
	}
	for _, tc := range cases {
		env := testEnv(1)
		env.Clients, env.Cortex = tc.clients, tc.cortex
		s, err := New(tc.name, env)
		require.NoError(t, err)
		got := s.(EngineHolder).Engine().Config()
		want := tc.want
		want.Clock, want.Seed = got.Clock, got.Seed // the strategy fills both in
		want.Weights, _ = want.Weights.Normalized()
		assert.Equal(t, want, got, "%s over %d clients", tc.name, tc.clients)
		assert.Equal(t, tc.name, s.Name())
	}
}

// TestEveryStrategyRefusesBadRequest asserts that a BadRequest is NOT_RETRYABLE in every
// strategy, at every retry index, whatever state the strategy is in.
func TestEveryStrategyRefusesBadRequest(t *testing.T) {
	for _, name := range Names() {
		s, err := New(name, testEnv(1))
		require.NoError(t, err)
		for retry := -1; retry < 6; retry++ {
			v := s.Decide(t0, att(5, retry), BadRequest)
			assert.Equal(t, Verdict{Action: engine.NotRetryable, Reason: "NOT_RETRYABLE"}, v, "%s retry %d", name, retry)
		}
	}
}

// script drives a strategy through a fixed sequence of attempts, outcomes and decisions on
// the env's clock, as a client would (only an admitted attempt is recorded and decided), and
// returns what it answered.
func script(s Strategy, clk *engine.ManualClock) (admits []Admission, verdicts []Verdict) {
	outcomes := []Outcome{Success, Timeout, ServerError, FastFail, Success, Throttled, Timeout}
	for i := range 400 {
		clk.Advance(37 * time.Millisecond)
		now := at(clk)
		a := Attempt{Priority: i % 11, Retry: i % 4, Deadline: now.Add(time.Duration(i%7) * time.Second)}
		s.SetPending(i % 50)
		adm := s.Admit(now, a)
		admits = append(admits, adm)
		if !adm.Admitted() {
			continue
		}
		o := outcomes[i%len(outcomes)]
		s.Record(now, a, o, time.Duration(i%200)*time.Millisecond)
		if o != Success {
			verdicts = append(verdicts, s.Decide(now, a, o))
		}
	}
	return admits, verdicts
}

// TestDeterminism asserts that two instances of a strategy built from the same seed give the
// same admits and verdicts (delays included), that a strategy that draws from its random source
// (jitter) gives different delays from a different seed, and that one that draws nothing (no
// delay, or a fixed one) gives the same verdicts whatever the seed.
func TestDeterminism(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			run := func(seed uint64) ([]Admission, []Verdict, int) {
				src := &countingSource{Source: rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)}
				env := Env{Clock: engine.NewManualClock(wall0), Rand: rand.New(src)}
				s, err := New(name, env)
				require.NoError(t, err)
				admits, verdicts := script(s, env.Clock.(*engine.ManualClock))
				return admits, verdicts, src.draws
			}
			a1, v1, draws := run(42)
			a2, v2, _ := run(42)
			assert.Equal(t, a1, a2)
			assert.Equal(t, v1, v2)

			_, v3, _ := run(43)
			var delays bool
			for _, v := range v1 {
				delays = delays || v.Delay > 0
			}
			switch {
			case draws == 0:
				assert.Equal(t, v1, v3, "a strategy that draws no randomness ignores the seed")
			case delays:
				assert.NotEqual(t, v1, v3, "another seed, other delays")
			}
		})
	}
}

// countingSource counts the draws from the random source it wraps.
type countingSource struct {
	rand.Source
	draws int
}

func (c *countingSource) Uint64() uint64 { c.draws++; return c.Source.Uint64() }
