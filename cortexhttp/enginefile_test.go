package cortexhttp_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// tunedFile writes a cortex.toml as cortex-tui tune writes one (parameters off the defaults),
// with the draws made deterministic and the delays short so that the test's waits are short,
// and returns its path and configuration.
func tunedFile(t *testing.T) (string, engine.Config) {
	t.Helper()
	c := engine.DefaultConfig()
	c.Weights = engine.Weights{F: 0.4, L: 0.1, Q: 0.1, B: 0.2, C: 0.2}
	c.TokenBucketCapacity = 60
	c.SlowdownCost = 7.5
	c.BudgetReserve = 0.6
	c.CircuitFailureThreshold = 0.8
	c.MaxRetryAttempts = 2
	c.BackoffBaseDelay = time.Millisecond
	c.BackoffMaxDelay = 3 * time.Millisecond
	c.Deterministic = true
	c.HoldForProbe = false   // a hold waits for the cooldown on the clock, which the test moves only between requests
	c.AdmitOriginals = false // so would the pacer's holds for a send slot
	path := filepath.Join(t.TempDir(), "cortex.toml")
	require.NoError(t, os.WriteFile(path, engineconf.Format(c, "tuned"), 0o600))
	return path, c
}

// scripted answers each attempt with the next status of its script (503, 429 or 200).
type scripted struct {
	mu     sync.Mutex
	script []int
}

func (s *scripted) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	code := s.script[0]
	s.script = s.script[1:]
	s.mu.Unlock()
	return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

// logged is one attempt the transport reported, with the request it belongs to.
type logged struct {
	req int
	a   cortexhttp.Attempt
}

// TestDecidesAsTheSimulator asserts that a transport built from a cortex.toml file
// (ConfigFromFile) runs the engine the simulator builds for a client from the same file
// (sim.Options.ClientEngine), and decides as it does: the same outcomes, recorded in the same
// order on the same clock, get the same admissions and the same verdicts (action, reason and
// delay), request after request, through successes, 503s, 429s, retries, budget refusals and
// shedding.
func TestDecidesAsTheSimulator(t *testing.T) {
	path, want := tunedFile(t)
	cfg, err := cortexhttp.ConfigFromFile(path)
	require.NoError(t, err)
	require.Equal(t, want, *cfg.Engine)

	r := rand.New(rand.NewPCG(7, 8))
	base := &scripted{}
	for i := 0; i < 4000; i++ {
		code := 200
		switch x := r.Float64(); {
		case i > 600 && i < 900 && x < 0.9: // a burst of failures: the budget and the circuit act
			code = 503
		case x < 0.25:
			code = 503
		case x < 0.3:
			code = 429
		}
		base.script = append(base.script, code)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clockB := engine.NewManualClock(start)
	var log []logged
	var req int
	cfg.Base, cfg.Clock = base, clockB
	cfg.OnAttempt = func(a cortexhttp.Attempt) { log = append(log, logged{req, a}) }
	tr, err := cortexhttp.New(cfg)
	require.NoError(t, err)
	const requests = 600
	for req = 0; req < requests; req++ {
		clockB.SetElapsed(time.Duration(req) * 25 * time.Millisecond)
		prio := []int{9, 5, 1}[req%3]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://service.test/", nil)
		hr.Header.Set(cortexhttp.DefaultPriorityHeader, strconv.Itoa(prio))
		resp, err := tr.RoundTrip(hr)
		if err == nil {
			resp.Body.Close()
		}
		cancel()
	}

	// The simulator's client engine, from the same file, on a clock moved the same way.
	clockA := engine.NewManualClock(start)
	a, err := strategy.New(strategy.CortexName, strategy.Env{Clock: clockA, Rand: rand.New(rand.NewPCG(1, 2)), Clients: 1,
		Cortex: sim.Options{Engine: &want}.ClientEngine(1)})
	require.NoError(t, err)
	engA := a.(strategy.EngineHolder).Engine().Config()
	engB := tr.Strategy().(strategy.EngineHolder).Engine().Config()
	engA.Seed, engB.Seed, engA.Clock, engB.Clock = 0, 0, nil, nil
	require.Equal(t, engA, engB, "the same engine configuration")

	epoch := strategy.NewEpoch(start)
	counts := map[string]int{}
	for i, l := range log {
		clockA.SetElapsed(time.Duration(l.req) * 25 * time.Millisecond)
		now := epoch.Time(clockA.Now())
		sa := strategy.Attempt{Priority: l.a.Priority, Retry: l.a.Retry}
		adm := a.Admit(now, sa)
		require.Equal(t, l.a.Admission, admissionIfRefused(adm, l.a), "attempt %d (request %d, retry %d): admission", i, l.req, l.a.Retry)
		if !l.a.Sent {
			counts["not sent"]++
			continue
		}
		if l.a.Recorded {
			a.Record(now, sa, l.a.Outcome, l.a.Latency)
		}
		if l.a.Decided {
			v := a.Decide(now, sa, l.a.Outcome)
			require.Equal(t, l.a.Verdict, v, "attempt %d (request %d, retry %d): verdict", i, l.req, l.a.Retry)
			counts[v.Reason]++
			if l.a.End == cortexhttp.EndRetry && l.a.Delay > 0 { // the transport counts the wait as pending
				a.SetPending(1)
				a.SetPending(0)
			}
		}
	}
	t.Logf("%d attempts of %d requests compared: %v", len(log), requests, counts)
	assert.Positive(t, counts[engine.ReasonRetry], "retries decided")
	assert.Positive(t, counts[engine.ReasonBudgetExhausted]+counts[engine.ReasonShedLowPriority]+counts[engine.ReasonCircuitOpen], "refusals decided")
}

// admissionIfRefused is what the transport reports of adm for the attempt l: the admission
// when it refused or held the attempt, zero when it admitted it.
func admissionIfRefused(adm strategy.Admission, l cortexhttp.Attempt) strategy.Admission {
	if l.End == cortexhttp.EndNotAdmitted || l.End == cortexhttp.EndHeld {
		return adm
	}
	return strategy.Admission{}
}

// TestConfigFromFile asserts that a bad file is refused with its problems and a good one
// builds a transport whose engine runs it.
func TestConfigFromFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte("[budget]\ncapacty = 5\n"), 0o600))
	_, err := cortexhttp.ConfigFromFile(bad)
	require.ErrorContains(t, err, "cortexhttp: "+bad+":2: budget.capacty: unknown key (did you mean \"capacity\"?)")
	_, err = cortexhttp.ConfigFromFile(filepath.Join(t.TempDir(), "none.toml"))
	require.ErrorContains(t, err, "cannot read")

	path, want := tunedFile(t)
	cfg, err := cortexhttp.ConfigFromFile(path)
	require.NoError(t, err)
	tr, err := cortexhttp.New(cfg)
	require.NoError(t, err)
	got := tr.Strategy().(strategy.EngineHolder).Engine().Config()
	assert.Equal(t, want.TokenBucketCapacity, got.TokenBucketCapacity)
	assert.Equal(t, want.Weights, got.Weights)

	cfg.Engine.Window = 0
	_, err = cortexhttp.New(cfg)
	require.ErrorContains(t, err, "cortexhttp: Engine: engine: invalid config: Window must be positive")
}
