package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestAdmission asserts the three answers of Admit: the zero value admits; Refuse refuses
// (whatever its wait); Hold holds for a positive wait only.
func TestAdmission(t *testing.T) {
	tests := []struct {
		name                    string
		a                       Admission
		admitted, refused, held bool
	}{
		{"zero", Admission{}, true, false, false},
		{"refuse", Refuse(engine.Reject, ReasonLimitExceeded), false, true, false},
		{"refuse circuit", Refuse(engine.CircuitOpen, ReasonCircuitOpen), false, true, false},
		{"refusal with a wait is a refusal", Admission{Action: engine.Reject, Reason: "X", Wait: time.Second}, false, true, false},
		{"hold", Hold(time.Millisecond, ReasonRateLimited), false, false, true},
		{"hold of 0 admits", Hold(0, ReasonRateLimited), true, false, false},
		{"negative wait admits", Admission{Wait: -time.Second}, true, false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.admitted, tt.a.Admitted(), tt.name)
		assert.Equal(t, tt.refused, tt.a.Refused(), tt.name)
		assert.Equal(t, tt.held, tt.a.Held(), tt.name)
	}
}

// TestTimeAndAttempt asserts Time's arithmetic, Attempt.Remaining (none without a deadline,
// negative once it passed) and Epoch: Time 0 is the origin, a deadline that would read as none
// moves 1 ns earlier, no deadline is 0.
func TestTimeAndAttempt(t *testing.T) {
	now := Time(5 * time.Second)
	assert.Equal(t, Time(7*time.Second), now.Add(2*time.Second))
	assert.Equal(t, -2*time.Second, now.Sub(now.Add(2*time.Second)))

	left, ok := Attempt{Deadline: now.Add(3 * time.Second)}.Remaining(now)
	assert.True(t, ok)
	assert.Equal(t, 3*time.Second, left)
	left, _ = Attempt{Deadline: now.Add(-time.Second)}.Remaining(now)
	assert.Equal(t, -time.Second, left)
	_, ok = Attempt{}.Remaining(now)
	assert.False(t, ok, "no deadline")

	origin := time.Now() // with a monotonic reading
	e := NewEpoch(origin)
	assert.Equal(t, Time(0), e.Time(origin))
	assert.Equal(t, Time(time.Second), e.Time(origin.Add(time.Second)))
	assert.Equal(t, Time(-1), e.Deadline(origin, true), "a deadline at the origin is not 'none'")
	assert.Equal(t, Time(2*time.Second), e.Deadline(origin.Add(2*time.Second), true))
	assert.Equal(t, Time(0), e.Deadline(origin.Add(time.Hour), false))
}

// TestCanceledOutcome asserts that Canceled is not retryable and that recording it changes no
// strategy's later answers: two instances from one seed, one of them also admitting an extra
// attempt each time and releasing it with Canceled, answer the same (for the strategies whose
// Admit takes nothing but what Canceled gives back).
func TestCanceledOutcome(t *testing.T) {
	assert.False(t, Canceled.Retryable())
	for _, o := range failures {
		assert.True(t, o.Retryable())
	}
	for _, name := range Names() {
		if name == CortexName || name == ArticleName {
			continue // the engine's windows read its clock: covered by TestCortexCanceled
		}
		run := func(cancel bool) []Verdict {
			env := testEnv(7)
			s, err := New(name, env)
			if err != nil {
				t.Fatal(err)
			}
			clk := env.Clock.(*engine.ManualClock)
			var out []Verdict
			for i := range 300 {
				clk.Advance(41 * time.Millisecond)
				now := at(clk)
				a := att(i%11, i%4)
				if cancel && s.Admit(now, a).Admitted() {
					s.Record(now, a, Canceled, 0)
				}
				if !s.Admit(now, a).Admitted() {
					continue
				}
				o := []Outcome{ServerError, Success, Timeout}[i%3]
				s.Record(now, a, o, 10*time.Millisecond)
				if o != Success {
					out = append(out, s.Decide(now, a, o))
				}
			}
			return out
		}
		switch name {
		case "throttle", "breaker", "envoy", "finagle", "failsafe":
			// Their Admit counts a request (or deposits, or lets the probe out), draws from the
			// random source, or their Record moves a window: TestBreakerCanceled and the limiters' tests.
			continue
		}
		assert.Equal(t, run(false), run(true), name)
	}
}

// TestBreakerCanceled asserts that a Canceled attempt counts neither way in the breaker's
// window (20 failures with canceled attempts between them still trip it, 19 do not), and that a
// canceled probe leaves the breaker half-open until the probe is replaced after SleepWindow,
// like a lost one.
func TestBreakerCanceled(t *testing.T) {
	b := must(NewBreaker(newRand(1), DefaultBreakerConfig()))
	now := t0
	for range 19 {
		b.Record(now, att(5, 0), ServerError, 0)
		b.Record(now, att(5, 0), Canceled, 0)
	}
	assert.Equal(t, engine.Closed, b.Circuit())
	b.Record(now, att(5, 0), ServerError, 0)
	assert.Equal(t, engine.Open, b.Circuit())

	probe := now.Add(DefaultBreakerConfig().SleepWindow)
	assert.True(t, b.Admit(probe, att(5, 0)).Admitted())
	b.Record(probe, att(5, 0), Canceled, 0)
	assert.Equal(t, engine.HalfOpen, b.Circuit())
	assert.Equal(t, Refuse(engine.CircuitOpen, ReasonHalfOpenProbeBusy), b.Admit(probe.Add(time.Second), att(5, 0)))
	assert.True(t, b.Admit(probe.Add(DefaultBreakerConfig().SleepWindow), att(5, 0)).Admitted(), "replaced after SleepWindow")
}
