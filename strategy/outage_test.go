package strategy

import (
	"container/heap"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// retryEvent is a retry scheduled by a verdict.
type retryEvent struct {
	at    Time
	retry int
}

// retryQueue is a min-heap of retries by time.
type retryQueue []retryEvent

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (q retryQueue) Len() int           { return len(q) }
func (q retryQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q retryQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *retryQueue) Push(x any)        { *q = append(*q, x.(retryEvent)) }
func (q *retryQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// outage drives one client through a total outage: an original every 10 ms for 60 s, every
// attempt answered FastFail at once, retries sent when their verdict says, a held attempt asked
// again after its wait. It returns the originals that arrived, the attempts the strategy let
// through, and the retries among them.
func outage(s Strategy, clk *engine.ManualClock) (originals, sent, retries int) {
	var q retryQueue
	send := func(at Time, retry int) {
		clk.Set(wallAt(at))
		s.SetPending(q.Len())
		adm := s.Admit(at, att(5, retry))
		if adm.Held() {
			heap.Push(&q, retryEvent{at.Add(adm.Wait), retry})
			return
		}
		if adm.Refused() {
			return
		}
		sent++
		if retry > 0 {
			retries++
		}
		s.Record(at, att(5, retry), FastFail, time.Millisecond)
		if v := s.Decide(at, att(5, retry), FastFail); v.Retry {
			heap.Push(&q, retryEvent{at.Add(v.Delay), retry + 1})
		}
	}
	end := t0.Add(60 * time.Second)
	for next := t0; next < end; next = next.Add(10 * time.Millisecond) {
		for q.Len() > 0 && q[0].at <= next {
			e := heap.Pop(&q).(retryEvent)
			send(e.at, e.retry)
		}
		originals++
		send(next, 0)
	}
	for q.Len() > 0 {
		e := heap.Pop(&q).(retryEvent)
		send(e.at, e.retry)
	}
	return originals, sent, retries
}

// TestOutageAmplification asserts what each strategy sends to a service that fails everything
// for 60 s (6,000 originals), against bounds derived by hand from its rule:
//   - none sends each original once; naive and backoff send 4 attempts per original (backoff
//     spreads retries in time, it does not remove them);
//   - budget affords exactly 500/5 = 100 retries; grpc exactly 4 (decisions at 9, 8, 7, 6
//     tokens; at 5 it stops);
//   - breaker lets the 20 attempts of its volume threshold through, then only a probe every
//     5 s: at most 20 + 12;
//   - throttle lets through about H(n) = ln n attempts once nothing is accepted;
//   - aws-adaptive is budget here: no 429, so its rate limiter never turns on;
//   - envoy's admission control refuses 80% of the originals once failures fill its window
//     (p = n/(n+1), capped at 0.8): about 1,200 go, each with at most its one retry;
//   - finagle's budget pays 20% of the last 10 s of requests plus 100 in reserve: about
//     6 x (200 + 100) = 1,800 retries over the minute;
//   - gradient2, vegas and failsafe never reach their limits (every answer is instant: at most
//     one call in flight), so they send every retry: 3 each for the Netflix ones (backoff), 2
//     for failsafe (its retry policy's default);
//   - cortex retries for at most FailureHorizon + CircuitSustainedDuration (every original is
//     refused at once, so the breaker trips on the answers; one retry per original before it,
//     and never more than the budget), then only the HALF_OPEN probes, HalfOpenProbes per
//     CircuitCooldown: at most 6 s x 100/s + 5 x 12 retries with the defaults; the article's
//     parameters trip after 10 s and spend their 500 tokens first, refilled at 100/s.
func TestOutageAmplification(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	const originals = 6000
	tests := []struct {
		name             string
		minSent, maxSent int
		retries          int // -1: not checked exactly
	}{
		{"none", originals, originals, 0},
		{"naive", 4 * originals, 4 * originals, 3 * originals},
		{"backoff", 4 * originals, 4 * originals, 3 * originals},
		{"budget", originals + 100, originals + 100, 100},
		{"grpc", originals + 4, originals + 4, 4},
		{"breaker", 20 + 11, 20 + 12, -1},
		{"throttle", 1, 50, -1},
		{"cortex", originals, originals + cortexOutageRetries(engine.DefaultConfig()), -1},
		{"cortex-article", originals, 2 * originals, -1},
		{"aws-adaptive", originals + 100, originals + 100, 100},
		{"envoy", 1050, 2 * 1350, -1},
		{"finagle", originals + 1500, originals + 1900, -1},
		{"gradient2", 4 * originals, 4 * originals, 3 * originals},
		{"vegas", 4 * originals, 4 * originals, 3 * originals},
		{"failsafe", 3 * originals, 3 * originals, 2 * originals},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(11)
			s, err := New(tt.name, env)
			require.NoError(t, err)
			n, sent, retries := outage(s, env.Clock.(*engine.ManualClock))
			require.Equal(t, originals, n)
			assert.GreaterOrEqual(t, sent, tt.minSent)
			assert.LessOrEqual(t, sent, tt.maxSent)
			if tt.retries >= 0 {
				assert.Equal(t, tt.retries, retries)
			}
			t.Logf("%s: %d attempts for %d originals (amplification %.3f), %d retries", tt.name, sent, n, float64(sent)/float64(n), retries)
		})
	}
}

// cortexOutageRetries bounds the retries of TestOutageAmplification's cortex client (an original
// every 10 ms, all refused at once, for 60 s) under cfg: before the trip (at most FailureHorizon
// + CircuitSustainedDuration) one retry per original, then HalfOpenProbes per CircuitCooldown.
func cortexOutageRetries(cfg engine.Config) int {
	beforeTrip := int((cfg.FailureHorizon + cfg.CircuitSustainedDuration) / (10 * time.Millisecond))
	probes := cfg.HalfOpenProbes * int(time.Minute/cfg.CircuitCooldown)
	return beforeTrip + probes
}
