package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testBreaker(probes int) circuitBreaker {
	cfg := DefaultConfig()
	cfg.HalfOpenProbes = probes
	return newCircuitBreaker(&cfg, time.Unix(0, 0))
}

// TestBreakerTrip asserts that the circuit trips only when the failure rate has been at or above
// the threshold for the sustained duration with enough outcomes, and that a dip resets the clock.
func TestBreakerTrip(t *testing.T) {
	cfg := DefaultConfig()
	thr, sus, minReq := cfg.CircuitFailureThreshold, cfg.CircuitSustainedDuration, uint64(cfg.CircuitMinRequests)
	type obs struct {
		at       time.Duration
		rate     float64
		outcomes uint64
	}
	tests := []struct {
		name string
		obs  []obs
		want CircuitState
	}{
		{"sustained high rate trips", []obs{{0, thr, minReq}, {sus, thr, minReq}}, Open},
		{"not yet sustained", []obs{{0, 1, 100}, {sus - 1, 1, 100}}, Closed},
		{"below the threshold never trips", []obs{{0, thr - 0.01, 100}, {sus * 5, thr - 0.01, 100}}, Closed},
		{"too few outcomes never trips", []obs{{0, 1, minReq - 1}, {sus * 5, 1, minReq - 1}}, Closed},
		{"a dip restarts the sustained clock", []obs{{0, 1, 100}, {sus / 2, 0.1, 100}, {sus, 1, 100}, {sus + sus/2, 1, 100}}, Closed},
		{"after the dip it trips a full duration later", []obs{{0, 1, 100}, {sus / 2, 0.1, 100}, {sus, 1, 100}, {2 * sus, 1, 100}}, Open},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := testBreaker(5)
			for _, o := range tc.obs {
				b.tick(o.at)
				b.observe(o.at, false, o.rate, o.outcomes, o.at)
			}
			assert.Equal(t, tc.want, b.state)
			if tc.want == Open {
				assert.Equal(t, TransitionFailureRate, b.last().Reason)
			}
		})
	}
}

// TestBreakerRecovery asserts the OPEN -> HALF_OPEN -> CLOSED path: the cooldown, the probe
// slots, closing after the probe successes, and re-opening on a failed probe.
func TestBreakerRecovery(t *testing.T) {
	cool := DefaultConfig().CircuitCooldown
	tests := []struct {
		name      string
		probes    int
		run       func(b *circuitBreaker) (closed bool)
		want      CircuitState
		wantLast  string
		wantBusy  bool
		wantClose bool
	}{
		{
			name: "stays open during the cooldown", probes: 3,
			run:  func(b *circuitBreaker) bool { return b.tick(cool - 1) },
			want: Open, wantLast: TransitionForced,
		},
		{
			name: "half-open after the cooldown", probes: 3,
			run:  func(b *circuitBreaker) bool { return b.tick(cool) },
			want: HalfOpen, wantLast: TransitionCooldownElapsed,
		},
		{
			name: "probe slots fill up", probes: 2,
			run: func(b *circuitBreaker) bool {
				b.tick(cool)
				b.probeSent(cool)
				b.probeSent(cool)
				return false
			},
			want: HalfOpen, wantLast: TransitionCooldownElapsed, wantBusy: true,
		},
		{
			name: "unanswered probe slots are released after a cooldown", probes: 2,
			run: func(b *circuitBreaker) bool {
				b.tick(cool)
				b.probeSent(cool)
				b.probeSent(cool)
				return b.tick(2 * cool)
			},
			want: HalfOpen, wantLast: TransitionCooldownElapsed,
		},
		{
			name: "closes after the probe successes", probes: 3,
			run: func(b *circuitBreaker) (closed bool) {
				b.tick(cool)
				for range 3 {
					b.probeSent(cool)
					closed = b.observe(cool, true, 0.9, 100, cool)
				}
				return closed
			},
			want: Closed, wantLast: TransitionProbesSucceeded, wantClose: true,
		},
		{
			name: "one success short stays half-open", probes: 3,
			run: func(b *circuitBreaker) (closed bool) {
				b.tick(cool)
				for range 2 {
					closed = b.observe(cool, true, 0.9, 100, cool)
				}
				return closed
			},
			want: HalfOpen, wantLast: TransitionCooldownElapsed,
		},
		{
			name: "a failed probe re-opens", probes: 3,
			run: func(b *circuitBreaker) bool {
				b.tick(cool)
				b.observe(cool, true, 0.9, 100, cool)
				return b.observe(cool, false, 0.9, 100, cool)
			},
			want: Open, wantLast: TransitionProbeFailed,
		},
		{
			name: "zero probes closes straight after the cooldown", probes: 0,
			run:  func(b *circuitBreaker) bool { return b.tick(cool) },
			want: Closed, wantLast: TransitionCooldownElapsed, wantClose: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := testBreaker(tc.probes)
			b.open(0, TransitionForced)
			require.Equal(t, Open, b.state)
			closed := tc.run(&b)
			assert.Equal(t, tc.want, b.state)
			assert.Equal(t, tc.wantLast, b.last().Reason)
			assert.Equal(t, tc.wantBusy, b.probesBusy())
			assert.Equal(t, tc.wantClose, closed)
		})
	}
}

// TestBreakerScore asserts the C signal of each state.
func TestBreakerScore(t *testing.T) {
	for s, want := range map[CircuitState]float64{Closed: 0, HalfOpen: 0.5, Open: 1} {
		b := testBreaker(1)
		b.state = s
		assert.Equal(t, want, b.score(), s.String())
	}
}

// TestBreakerHistory asserts that the transition history keeps the latest 32, oldest first,
// stamped with the breaker's origin plus the elapsed time.
func TestBreakerHistory(t *testing.T) {
	b := testBreaker(1)
	const n = maxTransitions + 7
	for i := range n {
		at := time.Duration(i) * time.Second
		if b.state == Closed {
			b.open(at, TransitionForced)
		} else {
			b.to(at, Closed, TransitionReset)
		}
	}
	h := b.history()
	require.Len(t, h, maxTransitions)
	assert.Equal(t, uint64(n), b.count)
	for i, tr := range h {
		assert.Equal(t, b.origin.Add(time.Duration(n-maxTransitions+i)*time.Second), tr.At, "transition %d", i)
	}
	assert.Equal(t, h[len(h)-1], b.last())
}

// TestBreakerFollowsShortOutages asserts that in 3 s outages every 15 s (connection refused,
// 20 requests a second, each answered within 5 ms) the tuned circuit opens within two seconds
// of each outage's start and is CLOSED again within half a second of its end, probed by the
// requests sent after it opened; the article's breaker (10 s sustained, 15 s cooldown) never
// opens. Before TripFast and ProbeOnSuccess, the circuits opened 2.6-3.2 s into each outage
// (as the service came back) and stayed open 5 s while it was up.
func TestBreakerFollowsShortOutages(t *testing.T) {
	tests := []struct {
		name     string
		mutate   func(c *Config)
		wantOpen bool
	}{
		{name: "defaults", wantOpen: true},
		{name: "article", mutate: onArticle(nil), wantOpen: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, clock := newTestEngine(t, tt.mutate)
			every := 50 * time.Millisecond
			down := func(at time.Duration) bool {
				return at >= 20*time.Second && (at-20*time.Second)%(15*time.Second) < 3*time.Second
			}
			var opened, closed []time.Duration
			prev := Closed
			for at := every; at <= 80*time.Second; at += every {
				clock.SetElapsed(at)
				if down(at) {
					e.RecordFailure(time.Millisecond)
				} else {
					e.RecordSuccess(5 * time.Millisecond)
				}
				c := e.Snapshot().Circuit
				if c == Open && prev != Open {
					opened = append(opened, at)
				}
				if c == Closed && prev != Closed {
					closed = append(closed, at)
				}
				prev = c
			}
			if !tt.wantOpen {
				assert.Empty(t, opened, "the article's breaker does not open within 3 s")
				return
			}
			require.Len(t, opened, 4, "one trip per outage (at 20, 35, 50 and 65 s)")
			require.Len(t, closed, 4, "and one close after each")
			for i := range opened {
				start := 20*time.Second + time.Duration(i)*15*time.Second
				assert.LessOrEqual(t, opened[i]-start, 2*time.Second, "outage %d: opened %v after it began", i+1, opened[i]-start)
				assert.LessOrEqual(t, closed[i]-(start+3*time.Second), 500*time.Millisecond, "outage %d: closed %v after it ended", i+1, closed[i]-start-3*time.Second)
			}
		})
	}
}
