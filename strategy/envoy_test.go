package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestEnvoyAdmissionControl asserts admission control's probability, computed by hand: 100
// requests with 50 successes give (100 - 50 / 0.95) / 101 = 0.4690; with 10 successes 0.8859,
// capped at 0.8; a 429 or a 4xx counts as a success, a 5xx, a timeout or a refused connection
// as a failure, when the request ends (a success, or a failure no retry follows); the history
// covers 30 s; retries are never refused by it.
func TestEnvoyAdmissionControl(t *testing.T) {
	e := must(NewEnvoy(newRand(1), DefaultEnvoyConfig()))
	for range 100 {
		require.True(t, e.Admit(t0, att(5, 0)).Admitted(), "nothing ended yet: p = 0")
	}
	for i := range 100 {
		a := att(5, 0)
		switch {
		case i < 40:
			e.Record(t0, a, Success, time.Millisecond)
		case i < 45:
			e.Record(t0, a, BadRequest, time.Millisecond)
			e.Decide(t0, a, BadRequest)
		case i < 50:
			a.Retry = 1 // its last attempt: the route allows 1 retry
			e.Record(t0, a, Throttled, time.Millisecond)
			e.Decide(t0, a, Throttled)
		default:
			a.Retry = 1
			e.Record(t0, a, []Outcome{ServerError, Timeout, FastFail}[i%3], time.Millisecond)
			e.Decide(t0, a, ServerError)
		}
	}
	assert.InDelta(t, (100-50/0.95)/101, e.Probability(t0), 1e-12)
	e.window.add(t0, 40, 0)
	assert.InDelta(t, (140-50/0.95)/141, e.Probability(t0), 1e-12, "40 more failures")
	e = must(NewEnvoy(newRand(1), DefaultEnvoyConfig()))
	e.window.add(t0, 100, 10)
	assert.InDelta(t, 0.8, e.Probability(t0), 1e-12, "(100 - 10.5) / 101 = 0.886, capped")
	refused := 0
	for range 1000 {
		if adm := e.Admit(t0, att(5, 0)); adm.Refused() {
			require.Equal(t, Refuse(engine.Reject, ReasonAdaptiveThrottle), adm)
			refused++
		}
	}
	assert.InDelta(t, 800, refused, 60)
	assert.True(t, e.Admit(t0, att(5, 1)).Admitted(), "the router's retries pass below the filter")
	assert.Zero(t, e.Probability(t0.Add(30*time.Second)), "the window is 30 s")
}

// TestEnvoyRetryBudget asserts the retry budget, computed by hand: with 10 attempts in flight the
// budget is max(20% x 10, 3) = 3 active retries, so a fourth decided retry is refused
// (BUDGET_EXHAUSTED); a retry stays active through its backoff and its flight, until its
// outcome; a retry the client drops stops counting 1 s after it was due; with 20 in flight the
// budget is 4; the route allows one retry, after U[0, 25 ms).
func TestEnvoyRetryBudget(t *testing.T) {
	e := must(NewEnvoy(newRand(1), DefaultEnvoyConfig()))
	for range 11 {
		e.Admit(t0, att(5, 0))
	}
	e.Record(t0, att(5, 0), ServerError, 0) // 10 left in flight
	for i := range 3 {
		v := e.Decide(t0, att(5, 0), ServerError)
		require.True(t, v.Retry, "retry %d", i)
		assert.Less(t, v.Delay, 25*time.Millisecond)
	}
	assert.Equal(t, Verdict{Action: engine.Reject, Reason: ReasonBudgetExhausted}, e.Decide(t0, att(5, 0), ServerError))
	assert.Equal(t, 3, e.ActiveRetries(t0))

	due := t0.Add(30 * time.Millisecond)
	require.True(t, e.Admit(due, att(5, 1)).Admitted())
	assert.Equal(t, 3, e.ActiveRetries(due), "in flight now, still active")
	e.Record(due, att(5, 1), Success, 0)
	assert.Equal(t, 2, e.ActiveRetries(due), "its outcome ends it")
	assert.Equal(t, 0, e.ActiveRetries(t0.Add(1030*time.Millisecond)), "the two never sent expire")

	e = must(NewEnvoy(newRand(1), DefaultEnvoyConfig()))
	for range 20 {
		require.True(t, e.Admit(t0, att(5, 0)).Admitted())
	}
	for range 4 {
		require.True(t, e.Decide(t0, att(5, 0), ServerError).Retry)
	}
	assert.False(t, e.Decide(t0, att(5, 0), ServerError).Retry, "max(20% x 20, 3) = 4")
	assert.Equal(t, engine.MaxRetriesExceeded, e.Decide(t0, att(5, 1), ServerError).Action)
}

// TestEnvoyConfig asserts that every field out of range is reported by name, and that an
// aggression above 1 softens the probability (p^(1/aggression)).
func TestEnvoyConfig(t *testing.T) {
	for field, edit := range map[string]func(*EnvoyConfig){
		"SamplingWindow":    func(c *EnvoyConfig) { c.SamplingWindow = 500 * time.Millisecond },
		"SuccessRate":       func(c *EnvoyConfig) { c.SuccessRate = 0 },
		"RPSThreshold":      func(c *EnvoyConfig) { c.RPSThreshold = -1 },
		"MaxRejection":      func(c *EnvoyConfig) { c.MaxRejection = 2 },
		"BudgetPercent":     func(c *EnvoyConfig) { c.BudgetPercent = -1 },
		"MinRetries":        func(c *EnvoyConfig) { c.MinRetries = -1 },
		"NumRetries":        func(c *EnvoyConfig) { c.NumRetries = -1 },
		"BackoffBase":       func(c *EnvoyConfig) { c.BackoffBase = 0 },
		"BackoffMax":        func(c *EnvoyConfig) { c.BackoffMax = time.Millisecond },
		"MaxBackoffPending": func(c *EnvoyConfig) { c.MaxBackoffPending = 0 },
	} {
		cfg := DefaultEnvoyConfig()
		edit(&cfg)
		_, err := NewEnvoy(newRand(1), cfg)
		assert.ErrorContains(t, err, field)
	}
	cfg := DefaultEnvoyConfig()
	cfg.Aggression = 2
	e := must(NewEnvoy(newRand(1), cfg))
	e.window.add(t0, 100, 50)
	assert.InDelta(t, 0.6848, e.Probability(t0), 1e-4, "sqrt(0.4690)")
}
