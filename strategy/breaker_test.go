package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// feed records successes then failures one millisecond apart, starting at t0, and returns the
// time of the last one.
func feed(b *Breaker, successes, fails int, fail Outcome) Time {
	now := t0
	for range successes {
		b.Record(now, att(0, 0), Success, 10*time.Millisecond)
		now = now.Add(time.Millisecond)
	}
	for range fails {
		b.Record(now, att(0, 0), fail, 10*time.Millisecond)
		now = now.Add(time.Millisecond)
	}
	return now
}

// TestBreakerTrip asserts Hystrix's trip rule: open once the window holds at least 20 attempts
// with an integer error percentage of at least 50%, never below the volume threshold, and
// BadRequests count neither way.
func TestBreakerTrip(t *testing.T) {
	tests := []struct {
		name                string
		successes, failures int
		bad                 int // BadRequests recorded first
		open                bool
	}{
		{"volume 20 at 50% trips", 10, 10, 0, true},
		{"volume 19 all failing does not trip", 0, 19, 0, false},
		{"volume 20 all failing trips", 0, 20, 0, true},
		{"45% does not trip", 11, 9, 0, false},
		{"49.x% does not trip", 21, 20, 0, false}, // 20*100/41 = 48
		{"bad requests are not counted", 0, 10, 30, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := must(NewBreaker(newRand(1), DefaultBreakerConfig()))
			for range tt.bad {
				b.Record(t0, att(0, 0), BadRequest, time.Millisecond)
			}
			now := feed(b, tt.successes, tt.failures, ServerError)
			want := engine.Closed
			if tt.open {
				want = engine.Open
			}
			assert.Equal(t, want, b.Circuit())
			assert.Equal(t, !tt.open, b.Admit(now, att(5, 0)).Admitted(), "an open breaker refuses originals")
		})
	}
}

// TestBreakerOpenProbeClose asserts the cycle: open for 5 s (Admit false, Decide CircuitOpen),
// then exactly one probe; its success closes the breaker with an empty window.
func TestBreakerOpenProbeClose(t *testing.T) {
	b := must(NewBreaker(newRand(1), DefaultBreakerConfig()))
	opened := feed(b, 0, 20, Timeout).Add(-time.Millisecond) // time of the 20th failure
	require.Equal(t, engine.Open, b.Circuit())

	justBefore := opened.Add(5*time.Second - time.Millisecond)
	assert.Equal(t, Refuse(engine.CircuitOpen, ReasonCircuitOpen), b.Admit(justBefore, att(10, 0)))
	assert.Equal(t, Verdict{Action: engine.CircuitOpen, Reason: "CIRCUIT_OPEN"}, b.Decide(justBefore, att(10, 0), Timeout))

	probeAt := opened.Add(5 * time.Second)
	assert.True(t, b.Admit(probeAt, att(10, 0)).Admitted(), "the probe goes")
	assert.Equal(t, engine.HalfOpen, b.Circuit())
	assert.False(t, b.Admit(probeAt, att(10, 0)).Admitted(), "only one probe")
	assert.Equal(t, Verdict{Action: engine.CircuitOpen, Reason: "HALF_OPEN_PROBES_BUSY"}, b.Decide(probeAt, att(10, 1), Timeout))

	b.Record(probeAt.Add(20*time.Millisecond), att(0, 0), Success, 20*time.Millisecond)
	assert.Equal(t, engine.Closed, b.Circuit())
	assert.True(t, b.Admit(probeAt.Add(time.Second), att(10, 0)).Admitted())

	// The window was emptied: 19 more failures are below the volume threshold.
	for i := range 19 {
		b.Record(probeAt.Add(time.Second+time.Duration(i)*time.Millisecond), att(0, 0), ServerError, 0)
	}
	assert.Equal(t, engine.Closed, b.Circuit())
	v := b.Decide(probeAt.Add(2*time.Second), att(10, 0), ServerError)
	assert.True(t, v.Retry)
	assert.Less(t, v.Delay, 100*time.Millisecond)
}

// TestBreakerProbeFailureReopens asserts that a failed probe re-opens the breaker for another
// full sleep window, and that a probe that never reports is replaced after a sleep window.
func TestBreakerProbeFailureReopens(t *testing.T) {
	b := must(NewBreaker(newRand(1), DefaultBreakerConfig()))
	opened := feed(b, 0, 20, FastFail).Add(-time.Millisecond)
	probeAt := opened.Add(5 * time.Second)
	require.True(t, b.Admit(probeAt, att(5, 0)).Admitted())

	failedAt := probeAt.Add(time.Second)
	b.Record(failedAt, att(0, 0), Timeout, time.Second)
	assert.Equal(t, engine.Open, b.Circuit())
	assert.False(t, b.Admit(failedAt.Add(5*time.Second-time.Nanosecond), att(5, 0)).Admitted(), "sleep window restarts at the failure")
	require.True(t, b.Admit(failedAt.Add(5*time.Second), att(5, 0)).Admitted(), "second probe")

	lost := failedAt.Add(5 * time.Second)
	assert.False(t, b.Admit(lost.Add(4*time.Second), att(5, 0)).Admitted())
	assert.True(t, b.Admit(lost.Add(5*time.Second), att(5, 0)).Admitted(), "a lost probe is replaced")
}

// TestBreakerWindowRolls asserts that failures older than the 10 s window no longer count.
func TestBreakerWindowRolls(t *testing.T) {
	b := must(NewBreaker(newRand(1), DefaultBreakerConfig()))
	for range 15 {
		b.Record(t0, att(0, 0), ServerError, 0)
	}
	later := t0.Add(10 * time.Second)
	for range 10 {
		b.Record(later, att(0, 0), ServerError, 0)
	}
	assert.Equal(t, engine.Closed, b.Circuit(), "only 10 attempts are in the window")
	for range 10 {
		b.Record(later, att(0, 0), ServerError, 0)
	}
	assert.Equal(t, engine.Open, b.Circuit(), "20 in the window now")
}

// TestBreakerConfigValidate asserts that each invalid field is reported by name.
func TestBreakerConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*BreakerConfig)
		field string
	}{
		{"zero window", func(c *BreakerConfig) { c.Window = 0 }, "Window"},
		{"no buckets", func(c *BreakerConfig) { c.Buckets = 0 }, "Buckets"},
		{"indivisible", func(c *BreakerConfig) { c.Buckets = 3 }, "divisible"},
		{"volume", func(c *BreakerConfig) { c.VolumeThreshold = 0 }, "VolumeThreshold"},
		{"percent", func(c *BreakerConfig) { c.ErrorPercent = 101 }, "ErrorPercent"},
		{"sleep", func(c *BreakerConfig) { c.SleepWindow = -time.Second }, "SleepWindow"},
		{"backoff", func(c *BreakerConfig) { c.Backoff.Base = 0 }, "Base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultBreakerConfig()
			tt.edit(&cfg)
			_, err := NewBreaker(newRand(1), cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
	_, err := NewBreaker(nil, DefaultBreakerConfig())
	assert.Error(t, err)
}

// TestPercentReached asserts that the trip test without a division gives Hystrix's answer, the
// integer percentage errs*100/total compared with p, for every count up to 300 and every p.
func TestPercentReached(t *testing.T) {
	for total := int64(1); total <= 300; total++ {
		for errs := int64(0); errs <= total; errs++ {
			for p := int64(1); p <= 100; p++ {
				if want := errs*100/total >= p; percentReached(errs, total, p) != want {
					t.Fatalf("percentReached(%d, %d, %d) = %v, want %v", errs, total, p, !want, want)
				}
			}
		}
	}
}
