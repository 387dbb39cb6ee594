package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// loopScenario is a service of 400 req/s with a 30 s outage at 40 s, fed either by an open
// stream of 270 req/s or by 300 closed-loop users thinking 1 s.
func loopScenario(closed bool) scenarios.Scenario {
	scn := testScenario()
	scn.Duration = 100 * time.Second
	scn.Clients = 20
	scn.Service = scenarios.Service{Workers: 40, ServiceTime: 100 * time.Millisecond, Sigma: 0.25, QueueLimit: 400}
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 40 * time.Second, Duration: 30 * time.Second}}
	scn.Classes = []scenarios.Class{{Name: "a", Priority: 5, Rate: 270}}
	if closed {
		scn.Loop = scenarios.Loop{Closed: true, Users: 300, Think: time.Second}
		scn.Classes[0].Rate = 1
	}
	return scn
}

// attemptsDuringOutage sums the attempts of seconds 45..65 of a run.
func attemptsDuringOutage(t *testing.T, scn scenarios.Scenario, strat string) int {
	t.Helper()
	res, err := run(scn, strat, 1)
	require.NoError(t, err)
	n := 0
	for _, r := range res.Timeline[45:65] {
		n += r.Attempts
	}
	return n
}

// Asserts the lesson of the loop scenarios: in a closed loop backoff lowers the load during
// an outage (a user waiting out a retry delay sends nothing new), while in an open loop it
// barely changes it (new requests keep arriving and every one still makes 4 attempts).
func TestBackoffClosedVersusOpenLoop(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	closed := float64(attemptsDuringOutage(t, loopScenario(true), "backoff")) /
		float64(attemptsDuringOutage(t, loopScenario(true), "naive"))
	open := float64(attemptsDuringOutage(t, loopScenario(false), "backoff")) /
		float64(attemptsDuringOutage(t, loopScenario(false), "naive"))
	t.Logf("attempts during the outage, backoff / naive: closed loop %.2f, open loop %.2f", closed, open)
	assert.Less(t, closed, 0.9, "closed loop: backoff lowers the load")
	assert.InDelta(t, 1, open, 0.05, "open loop: backoff barely changes it")
}

// Asserts that a closed-loop population sends about users / (think + response time)
// requests per second when the service is healthy.
func TestClosedLoopRate(t *testing.T) {
	scn := loopScenario(true)
	scn.Faults = nil
	res, err := run(scn, "none", 1)
	require.NoError(t, err)
	n := 0
	for _, r := range res.Timeline[20:80] {
		n += r.Originals
	}
	// 300 users, 1 s mean think, ~0.1 s service: about 300 / 1.1 = 273 req/s.
	assert.InEpsilon(t, 300/1.1, float64(n)/60, 0.05)
}

// Asserts that an original counts as completed only when an attempt succeeds within its
// deadline: with every answer arriving after the deadline, nothing completes although every
// attempt succeeds.
func TestDeadline(t *testing.T) {
	scn := testScenario()
	scn.Service = scenarios.Service{Workers: 1000, ServiceTime: 1500 * time.Millisecond, QueueLimit: 10}
	scn.Timeout = 5 * time.Second
	for _, c := range []struct {
		deadline time.Duration
		want     float64
	}{{time.Second, 0}, {2 * time.Second, 1}} {
		scn.Deadline = c.deadline
		res, err := run(scn, "naive", 1)
		require.NoError(t, err)
		assert.InDelta(t, c.want, res.Summary.SuccessRate, 1e-9, "deadline %s", c.deadline)
		assert.Zero(t, res.Summary.Retries, "every attempt succeeded")
	}
}
