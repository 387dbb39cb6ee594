package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// scripted is a test strategy: Admit answers what admit says (admits when nil), every retryable
// failure is retried after delay up to 3 times. It keeps every Admit it was asked and counts
// the attempts in flight (admitted, not yet recorded), as a concurrency limiter would.
type scripted struct {
	admit    func(now strategy.Time, a strategy.Attempt) strategy.Admission
	delay    time.Duration
	asks     []ask
	inflight int
	negative bool // a Record came without an admitted attempt in flight
}

// ask is one call to Admit.
type ask struct {
	now strategy.Time
	a   strategy.Attempt
	adm strategy.Admission
}

func (*scripted) Name() string { return "scripted" }

func (s *scripted) Admit(now strategy.Time, a strategy.Attempt) strategy.Admission {
	var adm strategy.Admission
	if s.admit != nil {
		adm = s.admit(now, a)
	}
	s.asks = append(s.asks, ask{now, a, adm})
	if adm.Admitted() {
		s.inflight++
	}
	return adm
}

func (s *scripted) Record(strategy.Time, strategy.Attempt, strategy.Outcome, time.Duration) {
	s.inflight--
	s.negative = s.negative || s.inflight < 0
}

func (s *scripted) Decide(_ strategy.Time, a strategy.Attempt, o strategy.Outcome) strategy.Verdict {
	switch {
	case !o.Retryable():
		return strategy.Verdict{Action: engine.NotRetryable, Reason: engine.ReasonNotRetryable}
	case a.Retry >= 3:
		return strategy.Verdict{Action: engine.MaxRetriesExceeded, Reason: engine.ReasonMaxRetries}
	}
	return strategy.Verdict{Retry: true, Delay: s.delay, Action: engine.Retry, Reason: engine.ReasonRetry}
}

func (*scripted) SetPending(int) {}

// runScripted runs scn to its end with every client on a scripted strategy that admits as
// admit says; it returns the clients' strategies, the summed counts and class counts, and the
// largest HeldOriginals of a snapshot.
func runScripted(t *testing.T, scn scenarios.Scenario, delay time.Duration,
	admit func(now strategy.Time, a strategy.Attempt) strategy.Admission,
) (strats []*scripted, sum source.Counts, classes []source.ClassTick, held int) {
	t.Helper()
	s := &Sim{scn: withDefaults(scn), seed: 1}
	s.build = func(string, strategy.Env) (strategy.Strategy, error) {
		st := &scripted{admit: admit, delay: delay}
		strats = append(strats, st)
		return st, nil
	}
	require.NoError(t, validate(s.scn))
	require.NoError(t, s.reset("scripted"))
	classes = make([]source.ClassTick, len(scn.Classes))
	rec := report.NewRecorder(s.Meta())
	for !s.Done() {
		snap := s.Step()
		rec.Add(snap)
		for i, c := range snap.Classes {
			classes[i].Arrived += c.Arrived
			classes[i].Succeeded += c.Succeeded
			classes[i].OriginalsShed += c.OriginalsShed
			classes[i].OriginalsRefused += c.OriginalsRefused
			classes[i].RetriesRefused += c.RetriesRefused
		}
		held = max(held, snap.HeldOriginals)
	}
	return strats, rec.Totals().Counts, classes, held
}

// Asserts that the simulator counts local refusals by reason and by class: a strategy that
// sheds every original of priority 1 (SHED_LOW_PRIORITY) and refuses every retry of priority 9
// (CIRCUIT_OPEN) gets each refusal counted once in LocalRejects, under its reason in Refusals,
// and in its class (OriginalsShed, RetriesRefused, RetryRefused), and the shed class completes
// nothing; that Admit sees each request's deadline (arrival + the scenario's deadline: exactly
// the deadline ahead for an original); and that every admitted attempt is recorded exactly once.
func TestRefusalsByReasonAndClass(t *testing.T) {
	scn := testScenario()
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultErrors, At: 10 * time.Second, Duration: 20 * time.Second, Value: 0.5}}
	strats, sum, classes, _ := runScripted(t, scn, 50*time.Millisecond, func(_ strategy.Time, a strategy.Attempt) strategy.Admission {
		switch {
		case a.Priority == 1 && a.Retry == 0:
			return strategy.Refuse(engine.Reject, strategy.ReasonShed)
		case a.Priority == 9 && a.Retry > 0:
			return strategy.Refuse(engine.CircuitOpen, strategy.ReasonCircuitOpen)
		}
		return strategy.Admission{}
	})
	pay, ana := classes[0], classes[1]
	require.Positive(t, ana.Arrived)
	assert.Equal(t, ana.Arrived, ana.OriginalsShed, "every analytics original shed")
	assert.Zero(t, ana.Succeeded)
	assert.Zero(t, pay.OriginalsShed+pay.OriginalsRefused, "payment originals all go")
	require.Positive(t, pay.RetriesRefused, "the errors make retries, each refused")
	assert.Equal(t, ana.OriginalsShed, sum.Refusals[source.ReasonShed])
	assert.Equal(t, pay.RetriesRefused, sum.Refusals[source.ReasonCircuitOpen])
	assert.Equal(t, pay.RetriesRefused, sum.RetryRefused)
	assert.Equal(t, sum.Refusals[source.ReasonShed]+sum.Refusals[source.ReasonCircuitOpen], sum.LocalRejects)
	assert.Zero(t, sum.Retries, "no retry was sent")

	deadline := strategy.Time(scenarios.DefaultDeadline)
	for _, st := range strats {
		assert.False(t, st.negative, "no Record without an admitted attempt")
		assert.Zero(t, st.inflight, "every admitted attempt recorded once")
		for _, k := range st.asks {
			if k.a.Retry == 0 {
				require.Equal(t, deadline, k.a.Deadline-k.now, "an original's deadline is the scenario's ahead")
			} else {
				require.Less(t, k.a.Deadline-k.now, deadline, "a retry's deadline is its request's")
			}
		}
	}
}

// Asserts how a hold works: every original held once for 200 ms is asked again exactly 200 ms
// later and then sent (Held counts each hold, HeldOriginals shows them waiting, everything
// completes); a hold shorter than 1 ms is asked again after 1 ms; a hold that would end at or
// after the deadline abandons the request at once (HeldExpired), nothing sent, no local reject.
func TestHolds(t *testing.T) {
	holdOnce := func(wait time.Duration) func(strategy.Time, strategy.Attempt) strategy.Admission {
		held := map[strategy.Time]bool{} // keyed by deadline: one request each
		return func(_ strategy.Time, a strategy.Attempt) strategy.Admission {
			if a.Retry == 0 && !held[a.Deadline] {
				held[a.Deadline] = true
				return strategy.Hold(wait, strategy.ReasonRateLimited)
			}
			return strategy.Admission{}
		}
	}
	for _, tc := range []struct {
		name       string
		wait, gap  time.Duration
		expired    bool
		deadline   time.Duration
		completeAt float64
	}{
		{"200ms", 200 * time.Millisecond, 200 * time.Millisecond, false, 0, 0.99},
		{"under 1ms", time.Microsecond, time.Millisecond, false, 0, 0.99},
		{"past the deadline", time.Second, 0, true, time.Second, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scn := testScenario()
			scn.Deadline = tc.deadline
			strats, sum, _, heldMax := runScripted(t, scn, 0, holdOnce(tc.wait))
			require.Positive(t, sum.Originals)
			assert.Equal(t, sum.Originals, sum.Held, "each original held once")
			assert.Zero(t, sum.LocalRejects)
			if tc.expired {
				assert.Equal(t, sum.Originals, sum.HeldExpired)
				assert.Equal(t, sum.Originals, sum.Abandoned)
				assert.Zero(t, sum.Attempts, "nothing sent")
				return
			}
			assert.Zero(t, sum.HeldExpired)
			assert.Positive(t, heldMax, "held originals show while they wait")
			assert.GreaterOrEqual(t, float64(sum.Completed)/float64(sum.Originals), tc.completeAt)
			for _, st := range strats {
				first := map[strategy.Time]strategy.Time{}
				for _, k := range st.asks {
					if k.adm.Held() {
						first[k.a.Deadline] = k.now
					} else if at, ok := first[k.a.Deadline]; ok && k.a.Retry == 0 {
						require.Equal(t, tc.gap, k.now.Sub(at), "asked again after the hold")
						delete(first, k.a.Deadline)
					}
				}
			}
		})
	}
}

// Asserts that a retry held when due stays a pending retry (decided, not yet sent) and that the
// decisions still reconcile with the retries sent: with every retry held 300 ms, the RETRY
// decisions are the retries sent, dropped at once for the deadline, or expired (a hold past the
// deadline included); none is left pending once the run has drained.
func TestHeldRetriesReconcile(t *testing.T) {
	scn := testScenario()
	scn.Deadline = 2 * time.Second
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultErrors, At: 10 * time.Second, Duration: 20 * time.Second, Value: 0.8}}
	asked := map[[2]strategy.Time]bool{}
	_, sum, _, _ := runScripted(t, scn, 100*time.Millisecond, func(_ strategy.Time, a strategy.Attempt) strategy.Admission {
		key := [2]strategy.Time{a.Deadline, strategy.Time(a.Retry)}
		if a.Retry > 0 && !asked[key] {
			asked[key] = true
			return strategy.Hold(300*time.Millisecond, strategy.ReasonRateLimited)
		}
		return strategy.Admission{}
	})
	require.Positive(t, sum.Held)
	require.Positive(t, sum.HeldExpired, "some holds pass the 2 s deadline")
	assert.Equal(t, sum.Decisions[engine.Retry], sum.Retries+sum.RetryLate+sum.RetryExpired,
		"every decided retry sent, late or expired (the run drains)")
}
