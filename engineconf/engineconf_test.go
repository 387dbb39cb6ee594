package engineconf_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
)

// TestEveryConfigFieldHasAKey asserts that every field of engine.Config (and of the structs it
// holds) is a key of the file or is named in Runtime with why, and that no key names a field
// that is gone: a field added to the engine fails here until the file covers it.
func TestEveryConfigFieldHasAKey(t *testing.T) {
	assert.Empty(t, engineconf.Missing())
	assert.Contains(t, engineconf.Fields(), "Weights.F")
	assert.Contains(t, engineconf.Fields(), "Fleet.MaxAge")
	seen := map[string]bool{}
	for _, p := range engineconf.Params {
		assert.False(t, seen[p.Path()], "%s twice", p.Path())
		seen[p.Path()] = true
		assert.NotEmpty(t, p.Doc, p.Path())
	}
}

// TestRoundTrip asserts that Format then Parse gives back the configuration formatted: the
// defaults, the article's, and random valid configurations (every key moved).
func TestRoundTrip(t *testing.T) {
	configs := map[string]engine.Config{"default": engine.DefaultConfig(), "article": engine.ArticleConfig()}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		c := engine.DefaultConfig()
		for _, p := range engineconf.Params {
			switch p.Kind {
			case engineconf.Bool:
				p.Set(&c, float64(r.IntN(2)))
			case engineconf.Duration:
				p.Set(&c, 0.001+r.Float64()*90)
			default:
				lo, hi := p.Range.Lo, 1000.0
				if p.Range.HasHi {
					hi = p.Range.Hi
				}
				x := lo + r.Float64()*(hi-lo)
				if p.Range.LoOpen && x == lo {
					x = hi
				}
				p.Set(&c, x)
			}
		}
		c.Fleet.Enabled = i%2 == 0
		c.Fleet.Lease = max(c.Fleet.Lease, 1)
		require.NoError(t, c.Validate(), "case %d", i)
		configs[string(rune('A'+i%26))+strings.Repeat("'", i/26)] = c
	}
	for name, c := range configs {
		text := engineconf.Format(c, "a comment\non two lines")
		got, err := engineconf.Parse("cortex.toml", text)
		require.NoError(t, err, "%s:\n%s", name, text)
		assert.Equal(t, c, got, name)
	}
}

// TestPartialFiles asserts that the keys a file leaves out take its base's values.
func TestPartialFiles(t *testing.T) {
	got, err := engineconf.Parse("c.toml", []byte("[budget]\ncapacity = 100\n"))
	require.NoError(t, err)
	want := engine.DefaultConfig()
	want.TokenBucketCapacity = 100
	assert.Equal(t, want, got)

	got, err = engineconf.Parse("c.toml", []byte("base = \"article\"\n[breaker]\ncooldown = \"2.5s\"\n"))
	require.NoError(t, err)
	want = engine.ArticleConfig()
	want.CircuitCooldown = 2500 * time.Millisecond
	assert.Equal(t, want, got)

	got, err = engineconf.Parse("c.toml", nil)
	require.NoError(t, err)
	assert.Equal(t, engine.DefaultConfig(), got)
}

// TestParseErrors asserts the exact message of each mistake: file, line, the key's path and what
// is wrong, every problem at once in file order, with a "did you mean" for a misspelt key.
func TestParseErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown key", "[budget]\ncapacty = 5\n",
			"c.toml:2: budget.capacty: unknown key (did you mean \"capacity\"?); valid keys in [budget]: capacity, refill_rate, success_bonus, refill_per_success, slowdown_cost, reserve"},
		{"unknown table", "[breakr]\ncooldown = \"1s\"\n",
			"c.toml:1: breakr: unknown key (did you mean \"breaker\"?); valid keys at the top level: base, signals, weights, retry, budget, breaker, admission, pacer, random, fleet"},
		{"wrong type", "[signals]\nwindow = 60\n",
			"c.toml:2: signals.window: must be a duration string with a unit, like \"250ms\" or \"2m\", got the integer 60"},
		{"a duration without a unit", "[signals]\nwindow = \"60\"\n",
			"c.toml:2: signals.window: must be a duration with a unit, like \"250ms\" or \"2m\", got \"60\""},
		{"a fraction for a count", "[budget]\ncapacity = 2.5\n",
			"c.toml:2: budget.capacity: must be an integer, got the number 2.5"},
		{"the engine refuses", "\n[breaker]\nfailure_threshold = 1.5\n",
			"c.toml:3: breaker.failure_threshold: must be within (0, 1], got 1.5"},
		{"a weight below 0", "[weights]\nf = -1\n",
			"c.toml:2: weights.f: must be a finite number >= 0, got -1"},
		{"no weight", "[weights]\nf = 0\nl = 0\nq = 0\nb = 0\nc = 0\n",
			"c.toml:1: weights: must sum to more than 0, got 0"},
		{"not finite", "[budget]\nslowdown_cost = inf\n",
			"c.toml:2: budget.slowdown_cost: must be a finite number, got +Inf"},
		{"a bad base", "base = \"tuned\"\n",
			"c.toml:1: base: must be \"default\" or \"article\", got \"tuned\""},
		{"a table that is a value", "budget = 5\n",
			"c.toml:1: budget: must be a table ([budget]), got the integer 5"},
		{"a fleet checked when enabled", "[fleet]\nenabled = true\nmax_age = \"0s\"\nlease = 4\n",
			"c.toml:3: fleet.max_age: must be > 0 when fleet.enabled (got 0s)"},
		{"several at once, in file order", "[budget]\nreserve = 2\n[signals]\nwindow = \"0s\"\nwindo = 1\n",
			"c.toml:2: budget.reserve: must be within [0, 1], got 2\n" +
				"c.toml:4: signals.window: must be positive, got 0s\n" +
				"c.toml:5: signals.windo: unknown key (did you mean \"window\"?); valid keys in [signals]: window, failure_horizon, queue_capacity, baseline_latency, learn_tail"},
		{"a pacer share past 1", "[pacer]\nmargin = 0.2\nslow_share = 1.5\n",
			"c.toml:3: pacer.slow_share: must be within [0, 1], got 1.5"},
		{"a pacer key misspelt", "[pacer]\nhorizn = \"3s\"\n",
			"c.toml:2: pacer.horizn: unknown key (did you mean \"horizon\"?); valid keys in [pacer]: min_rate, margin, horizon, burst, slow_share, start_factor, max_poll, release, easing, intrinsic, rate_tau, arrival_slices, reference_slices, urgent"},
		{"a negative pacer release", "[pacer]\nrelease = -1\n",
			"c.toml:2: pacer.release: must be a finite number >= 0, got -1"},
		{"an admission share past 1", "[admission]\nadmit_originals = true\nrefused_share = 1.5\n",
			"c.toml:3: admission.refused_share: must be within [0, 1], got 1.5"},
		{"an admission key misspelt", "[admission]\nqueue_slowdwn = 0.6\n",
			"c.toml:2: admission.queue_slowdwn: unknown key (did you mean \"queue_slowdown\"?); valid keys in [admission]: admit_originals, hold_for_probe, queue_slowdown, refused_share, failed_share, smoothing"},
		{"a pacer easing past 1", "[pacer]\neasing = 2\n",
			"c.toml:2: pacer.easing: must be within [0, 1], got 2"},
		{"a pacer rate_tau without a unit", "[pacer]\nrate_tau = 0.5\n",
			"c.toml:2: pacer.rate_tau: must be a duration string with a unit, like \"250ms\" or \"2m\", got the number 0.5"},
		{"a syntax error", "[budget\ncapacity = 5\n", "c.toml:1: invalid TOML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := engineconf.Parse("c.toml", []byte(tt.text))
			require.Error(t, err)
			var es engineconf.Errors
			require.True(t, errors.As(err, &es), "an Errors: %v", err)
			if strings.HasSuffix(tt.want, "invalid TOML") {
				assert.True(t, strings.HasPrefix(err.Error(), tt.want), err.Error())
				return
			}
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestRangesAgreeWithValidate asserts that each key's documented range is what the engine's
// validation accepts: its ends accepted (or refused when open), a value past them refused. So
// the table in docs/engine.md stays true when the engine's checks change.
func TestRangesAgreeWithValidate(t *testing.T) {
	valid := func(p engineconf.Param, x float64) bool {
		c := engine.DefaultConfig()
		c.Fleet = engine.DefaultFleetConfig()
		p.Set(&c, x)
		return c.Validate() == nil
	}
	for _, p := range engineconf.Params {
		if p.Kind == engineconf.Bool || p.Kind == engineconf.Int64 {
			continue
		}
		t.Run(p.Path(), func(t *testing.T) {
			r := p.Range
			step := 1e-3
			if p.Kind == engineconf.Int {
				step = 1
			}
			assert.Equal(t, !r.LoOpen, valid(p, r.Lo), "at its low end %v", r.Lo)
			assert.False(t, valid(p, r.Lo-step), "below its low end")
			assert.True(t, valid(p, r.Lo+step), "just above its low end")
			if r.HasHi {
				assert.True(t, valid(p, r.Hi), "at its high end %v", r.Hi)
				assert.False(t, valid(p, r.Hi+step), "above its high end")
			} else {
				assert.True(t, valid(p, 1e6), "a large value")
			}
		})
	}
}

// TestHostileFiles asserts that a file beyond the limits is refused with the limit and the
// line, within a second and 64 MB (a 100 MB file, /dev/zero, 10 000 nested tables, a key of
// 20 000 parts).
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		return path
	}
	huge := filepath.Join(dir, "huge.toml")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(100<<20))
	require.NoError(t, f.Close())
	tests := []struct{ path, want string }{
		{huge, huge + ": larger than 64 KiB (the limit for a CORTEX configuration file)"},
		{write("nested.toml", "[budget]\nx = "+strings.Repeat("{a=", 10000)+"1"+strings.Repeat("}", 10000)+"\n"),
			":2: key nested deeper than 16 levels of tables (the limit for a CORTEX configuration file)"},
		{write("dotted.toml", strings.Repeat("a.", 19999)+"a = 1\n"), ":1: dotted key with more than 16 parts (the limit for a CORTEX configuration file)"},
		{write("values.toml", "x = ["+strings.Repeat("1,", 3000)+"]\n"), ":1: more than 1000 keys and values (the limit for a CORTEX configuration file)"},
		{filepath.Join(dir, "missing.toml"), ": cannot read: no such file or directory"},
		{dir, ": is a directory, not a CORTEX configuration file"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		tests = append(tests, struct{ path, want string }{"/dev/zero", "/dev/zero: larger than 64 KiB (the limit for a CORTEX configuration file)"})
	}
	for _, tt := range tests {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := engineconf.ParseFile(tt.path)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		require.Error(t, err, tt.path)
		assert.Contains(t, err.Error(), tt.want)
		assert.Less(t, took, time.Second, tt.path)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), tt.path)
	}
}

// TestParseReader asserts that the standard input is read under the same limit.
func TestParseReader(t *testing.T) {
	_, err := engineconf.ParseReader("-", strings.NewReader(strings.Repeat("#", 70<<10)))
	require.EqualError(t, err, "-: larger than 64 KiB (the limit for a CORTEX configuration file)")
	c, err := engineconf.ParseReader("-", strings.NewReader("[retry]\nmax_attempts = 5\n"))
	require.NoError(t, err)
	assert.Equal(t, 5, c.MaxRetryAttempts)
}

// TestGetSet asserts the numeric view the tuner uses: durations in seconds, switches 0 or 1.
func TestGetSet(t *testing.T) {
	c := engine.DefaultConfig()
	p, ok := engineconf.ByPath("breaker.cooldown")
	require.True(t, ok)
	assert.InDelta(t, 5, p.Get(c), 1e-12)
	p.Set(&c, 2.25)
	assert.Equal(t, 2250*time.Millisecond, c.CircuitCooldown)
	p, _ = engineconf.ByPath("budget.capacity")
	p.Set(&c, 99.6)
	assert.Equal(t, 100, c.TokenBucketCapacity)
	p, _ = engineconf.ByPath("signals.learn_tail")
	p.Set(&c, 0.2)
	assert.False(t, c.LearnTail)
	assert.Zero(t, p.Get(c))
	assert.False(t, math.IsNaN(p.Get(c)))
}

// FuzzParse asserts that Parse never panics and always ends, that a refusal is an Errors (or
// the loader's refusal as one), and that what it accepts is valid and formats back to itself.
func FuzzParse(f *testing.F) {
	f.Add(engineconf.Format(engine.DefaultConfig(), ""))
	f.Add([]byte("base = \"article\"\n[budget]\ncapacity = 1\n[weights]\nf = 0\n"))
	f.Add([]byte("[fleet]\nenabled = true\nlease = 0.5\n[signals]\nwindow = \"-1s\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := engineconf.Parse("f.toml", data)
		if err != nil {
			var es engineconf.Errors
			if !errors.As(err, &es) {
				t.Fatalf("not an Errors: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted an invalid config: %v", err)
		}
		back, err := engineconf.Parse("f.toml", engineconf.Format(c, ""))
		if err != nil || back != c {
			t.Fatalf("does not round-trip: %v", err)
		}
	})
}
