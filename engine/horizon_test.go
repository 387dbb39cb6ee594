package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// spanOracle replays recorded outcomes by the window's documented slicing (Window/60 per
// slice; the short span the last ceil(FailureHorizon/slice) slices, the whole window when
// FailureHorizon is 0) and gives the failure rates each span must report.
type spanOracle struct {
	width  time.Duration
	recent int64
	events []oracleEvent
}

type oracleEvent struct {
	at     time.Duration
	failed bool
}

func newSpanOracle(cfg Config) *spanOracle {
	width := cfg.Window / windowBuckets
	recent := int64(windowBuckets)
	if cfg.FailureHorizon > 0 {
		recent = int64((cfg.FailureHorizon + width - 1) / width)
	}
	return &spanOracle{width: width, recent: recent}
}

func (o *spanOracle) record(at time.Duration, failed bool) {
	o.events = append(o.events, oracleEvent{at, failed})
}

// rate returns the failure rate at t of the outcomes in the last slices slices.
func (o *spanOracle) rate(t time.Duration, slices int64) float64 {
	cur := int64(t / o.width)
	var n, f int
	for _, ev := range o.events {
		if int64(ev.at/o.width) > cur-slices {
			n++
			if ev.failed {
				f++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(f) / float64(n)
}

func (o *spanOracle) short(t time.Duration) float64 { return o.rate(t, o.recent) }
func (o *spanOracle) long(t time.Duration) float64  { return o.rate(t, windowBuckets) }

// TestFailureRateFastAttackSlowRelease asserts signal F = max(F over the short span, F over the
// 60 s window): after 60 s of healthy traffic, failures raise F to 1 within FailureHorizon (plus
// the slice the horizon is rounded to), where the article's single window (FailureHorizon 0)
// only reaches the long rate; once the failures stop, the short span forgets them within the
// horizon but F stays at the long rate (at least their share of a full window while all of
// them are in it) and falls only as the window forgets, reaching 0 one window after the last
// failure. At every step F equals the rates an oracle computes from the
// outcomes recorded.
func TestFailureRateFastAttackSlowRelease(t *testing.T) {
	// Minutes of virtual traffic through one engine on one goroutine: the engine's concurrency is
	// TestConcurrentStress's, under the race detector.
	racedetect.SkipWholeRuns(t)
	tests := []struct {
		name    string
		horizon time.Duration
	}{
		{"default horizon", DefaultConfig().FailureHorizon},
		{"2 s horizon", 2 * time.Second},
		{"horizon of a fraction of a slice", 1500 * time.Millisecond},
		{"article: the window only", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, func(c *Config) {
				c.FailureHorizon = tc.horizon
				c.CircuitFailureThreshold = 1 // keep the circuit CLOSED: F only
			})
			cfg := e.Config()
			o := newSpanOracle(cfg)
			slice := cfg.Window / windowBuckets
			var now time.Duration
			run := func(d time.Duration, failed bool, check func(s Snapshot)) {
				for end := now + d; now < end; {
					now += 100 * time.Millisecond
					clock.Set(epoch.Add(now))
					if failed {
						e.RecordFailure(time.Second)
					} else {
						e.RecordSuccess(20 * time.Millisecond)
					}
					o.record(now, failed)
					s := e.Snapshot()
					require.InDelta(t, max(o.short(now), o.long(now)), s.Signals.F, 1e-12, "F at %v", now)
					if check != nil {
						check(s)
					}
				}
			}
			run(time.Minute, false, nil)
			start := now
			run(10*time.Second, true, func(s Snapshot) {
				if tc.horizon > 0 && now-start >= tc.horizon+slice {
					require.Equal(t, 1.0, s.Signals.F, "F is 1 within the horizon: %v after the failures began", now-start)
				}
			})
			if tc.horizon == 0 {
				assert.InDelta(t, o.long(now), e.Snapshot().Signals.F, 1e-12, "the article's F is the window's rate")
				assert.Less(t, e.Snapshot().Signals.F, 0.2, "10 s of failures in 70 s")
			}
			last := now
			run(2*time.Minute, false, func(s Snapshot) {
				if tc.horizon > 0 && now-last >= tc.horizon+slice {
					require.InDelta(t, o.long(now), s.Signals.F, 1e-12, "after the horizon F is the window's rate")
				}
				if now-start < cfg.Window-slice {
					// Every failure is still in the window, which holds at most 60 s of traffic.
					require.GreaterOrEqual(t, s.Signals.F, 10.0/60, "F holds the failures at %v after the last", now-last)
				}
				if now-last < cfg.Window-slice {
					require.Greater(t, s.Signals.F, 0.0, "the window remembers the failures at %v after the last", now-last)
				}
				if now-last >= cfg.Window+slice {
					require.Zero(t, s.Signals.F, "the window forgot them at %v after the last", now-last)
				}
			})
		})
	}
}

// TestEngineWindowJumps asserts the expiry of both spans through the engine when the clock
// jumps: a jump of more than the horizon leaves F at the long rate (the short span is empty,
// the window still holds everything), a jump of more than the window empties both (F 0,
// nothing in the window, P99 0), and outcomes recorded after a jump count alone.
func TestEngineWindowJumps(t *testing.T) {
	tests := []struct {
		name         string
		jump         time.Duration
		wantOutcomes int     // in the 60 s window after the jump and one success
		wantF        float64 // after the jump and one success
	}{
		// 10 successes then 10 failures, then a success after the jump.
		{"within the horizon", 2 * time.Second, 21, 10.0 / 21},
		{"past the horizon", 6 * time.Second, 21, 10.0 / 21},
		{"just short of the window", 58 * time.Second, 21, 10.0 / 21},
		{"past the window", 61 * time.Second, 1, 0},
		{"far past the window", 100 * time.Hour, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, func(c *Config) { c.CircuitFailureThreshold = 1 })
			for range 10 {
				clock.Advance(10 * time.Millisecond)
				e.RecordSuccess(20 * time.Millisecond)
			}
			for range 10 {
				clock.Advance(10 * time.Millisecond)
				e.RecordFailure(3 * time.Second)
			}
			require.Equal(t, 0.5, e.Snapshot().Signals.F)
			clock.Advance(tc.jump)
			s := e.Snapshot()
			horizon := e.Config().FailureHorizon
			switch {
			case tc.jump >= e.Config().Window:
				assert.Zero(t, s.Outcomes)
				assert.Zero(t, s.Signals.F)
				assert.Zero(t, s.P99)
			case tc.jump > horizon:
				assert.Zero(t, e.win.short.outcomes(), "the short span is empty")
				assert.Zero(t, s.P99, "P99 reads the short span")
				assert.Equal(t, 0.5, s.Signals.F, "F is the window's rate")
			default:
				assert.Equal(t, 0.5, s.Signals.F)
				assert.Equal(t, 3*time.Second, s.P99)
			}
			e.RecordSuccess(20 * time.Millisecond)
			s = e.Snapshot()
			assert.Equal(t, tc.wantOutcomes, s.Outcomes)
			assert.InDelta(t, tc.wantF, s.Signals.F, 1e-12)
		})
	}
}

// TestP99OverShortSpan asserts that L reads the P99 of the short span: a burst of slow
// failures raises L at once, and L falls back to 0 once the burst is older than the horizon,
// though the 60 s window still holds it.
func TestP99OverShortSpan(t *testing.T) {
	e, clock := newTestEngine(t, func(c *Config) {
		c.BaselineLatency = 40 * time.Millisecond
		c.CircuitFailureThreshold = 1
	})
	horizon := e.Config().FailureHorizon
	for range 100 {
		clock.Advance(100 * time.Millisecond)
		e.RecordSuccess(40 * time.Millisecond)
	}
	require.Zero(t, e.Snapshot().Signals.L)
	for range 5 {
		clock.Advance(10 * time.Millisecond)
		e.RecordFailure(2 * time.Second)
	}
	s := e.Snapshot()
	assert.Equal(t, 2*time.Second, s.P99)
	assert.Equal(t, 1.0, s.Signals.L, "a slow burst raises L at once")
	for range int(horizon/(100*time.Millisecond)) + 10 {
		clock.Advance(100 * time.Millisecond)
		e.RecordSuccess(40 * time.Millisecond)
	}
	s = e.Snapshot()
	assert.Equal(t, 40*time.Millisecond, s.P99, "P99 over the last horizon")
	assert.Zero(t, s.Signals.L)
	assert.Equal(t, uint64(5), e.win.long.failures, "the window still holds the burst")
	assert.Equal(t, 5, s.Failures)
}

// TestBreakerTripsWithinHorizon asserts that, after healthy traffic, a total run of answered
// failures (RecordFailure) opens the circuit within FailureHorizon + CircuitSustainedDuration
// of the first failure (within two window slices + CircuitSustainedDuration with TripFast, the
// default), at exactly CircuitSustainedDuration after the answered failure rate the breaker
// reads (the last one to two slices with TripFast, the short span without) first reached the
// threshold with CircuitMinRequests outcomes in the window.
func TestBreakerTripsWithinHorizon(t *testing.T) {
	tests := []struct {
		name               string
		horizon, sustained time.Duration
		rate               int // requests per second, before and during the failures
	}{
		{"defaults, 20/s", 0, 0, 20},
		{"defaults, 200/s", 0, 0, 200},
		{"2 s horizon", 2 * time.Second, 0, 50},
		{"10 s horizon, 3 s sustained", 10 * time.Second, 3 * time.Second, 20},
		{"no sustain", 0, -1, 20},
		{"short span (TripFast off)", 0, 0, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, func(c *Config) {
				if tc.horizon > 0 {
					c.FailureHorizon = tc.horizon
				}
				if tc.sustained != 0 {
					c.CircuitSustainedDuration = max(0, tc.sustained)
				}
				c.TripFast = !strings.Contains(tc.name, "TripFast off")
			})
			cfg := e.Config()
			every := time.Second / time.Duration(tc.rate)
			for range 60 * tc.rate {
				clock.Advance(every)
				e.RecordSuccess(20 * time.Millisecond)
			}
			start := clock.Now().Add(every)
			var firstAbove time.Time
			for e.Snapshot().Circuit == Closed {
				clock.Advance(every)
				e.RecordFailure(time.Millisecond)
				rate := e.win.short.answeredFailureRate()
				if cfg.TripFast {
					recent := e.win.recentTally()
					rate = recent.answeredFailureRate()
				}
				if firstAbove.IsZero() && rate >= cfg.CircuitFailureThreshold && e.win.long.outcomes() >= uint64(cfg.CircuitMinRequests) {
					firstAbove = clock.Now()
				}
				require.False(t, clock.Now().Sub(start) > time.Minute, "the circuit never opened")
			}
			tr := e.Snapshot().LastTransition
			assert.Equal(t, TransitionFailureRate, tr.Reason)
			assert.LessOrEqual(t, tr.At.Sub(start), cfg.FailureHorizon+cfg.CircuitSustainedDuration,
				"opened %v after the first failure", tr.At.Sub(start))
			if cfg.TripFast {
				assert.LessOrEqual(t, tr.At.Sub(start), 2*cfg.Window/windowBuckets+cfg.CircuitSustainedDuration,
					"opened %v after the first failure: within two slices and the sustained duration", tr.At.Sub(start))
			}
			assert.Equal(t, firstAbove.Add(cfg.CircuitSustainedDuration), tr.At)
		})
	}
}

// TestBreakerTimeouts asserts which failures trip the circuit: a minute of nothing but
// timeouts (RecordTimeout, no decision asked) leaves it CLOSED on the defaults (TripOnTimeouts
// off: a timeout does not say the service refuses), though F is 1; with TripOnTimeouts, as in
// ArticleConfig, the same run trips it after the sustained duration; answered failures trip it
// either way.
func TestBreakerTimeouts(t *testing.T) {
	tests := []struct {
		name     string
		mutate   func(c *Config)
		record   func(e *Engine)
		wantOpen bool
	}{
		{"defaults: timeouts do not trip", nil, func(e *Engine) { e.RecordTimeout(5 * time.Second) }, false},
		{"defaults with TripOnTimeouts: they do", func(c *Config) { c.TripOnTimeouts = true }, func(e *Engine) { e.RecordTimeout(5 * time.Second) }, true},
		{"article: they do", onArticle(nil), func(e *Engine) { e.RecordTimeout(5 * time.Second) }, true},
		{"defaults: answered failures do", nil, func(e *Engine) { e.RecordFailure(5 * time.Second) }, true},
		{"article without TripOnTimeouts: timeouts do not", onArticle(func(c *Config) { c.TripOnTimeouts = false }), func(e *Engine) { e.RecordTimeout(5 * time.Second) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, tc.mutate)
			cfg := e.Config()
			for range 600 { // 20 per second for 30 s
				clock.Advance(50 * time.Millisecond)
				tc.record(e)
			}
			s := e.Snapshot()
			assert.Equal(t, 1.0, s.Signals.F, "every outcome failed")
			if !tc.wantOpen {
				assert.Equal(t, Closed, s.Circuit)
				assert.Zero(t, s.TransitionCount)
				return
			}
			assert.Equal(t, Open, s.Circuit)
			tr := e.Transitions()
			require.NotEmpty(t, tr)
			assert.Equal(t, TransitionFailureRate, tr[0].Reason)
			// F is 1 from the first outcome: the rate holds from the CircuitMinRequests-th.
			firstAbove := epoch.Add(time.Duration(cfg.CircuitMinRequests) * 50 * time.Millisecond)
			assert.Equal(t, firstAbove.Add(cfg.CircuitSustainedDuration), tr[0].At)
		})
	}
}

// TestHalfOpenReopensOnTimeout asserts that a HALF_OPEN circuit re-opens on a timeout (reason
// PROBE_FAILED) whether or not timeouts trip a CLOSED one, and on an answered failure.
func TestHalfOpenReopensOnTimeout(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(c *Config)
		record func(e *Engine)
	}{
		{"defaults, timeout", nil, func(e *Engine) { e.RecordTimeout(5 * time.Second) }},
		{"article, timeout", onArticle(nil), func(e *Engine) { e.RecordTimeout(5 * time.Second) }},
		{"defaults, answered failure", nil, func(e *Engine) { e.RecordFailure(time.Millisecond) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, tc.mutate)
			e.ForceOpen()
			clock.Advance(e.Config().CircuitCooldown)
			require.Equal(t, HalfOpen, e.Snapshot().Circuit)
			d := e.Decide(Failure{Priority: MaxPriority, Timeout: true})
			require.Equal(t, Retry, d.Action, "the probe: %v %s", d, d.Reason)
			tc.record(e)
			s := e.Snapshot()
			assert.Equal(t, Open, s.Circuit)
			assert.Equal(t, Transition{At: clock.Now(), From: HalfOpen, To: Open, Reason: TransitionProbeFailed}, s.LastTransition)
		})
	}
}
