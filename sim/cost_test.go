package sim

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts that the estimate of attempts is an upper bound of the attempts the simulator counts
// for every built-in scenario and every strategy, and not a loose one: within 20 times. (The
// runs are parallel: TestEstimateBoundsMemory, which reads the heap, never overlaps them.)
func TestEstimateBoundsBuiltins(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	for _, scn := range scenarios.Catalog() {
		for _, name := range strategy.Names() {
			t.Run(scn.Name+"/"+name, func(t *testing.T) {
				t.Parallel()
				res, err := run(scn, name, scn.Seed)
				require.NoError(t, err)
				attempts := 0
				for _, r := range res.Timeline {
					attempts += r.Attempts
				}
				require.Positive(t, attempts)
				est := Estimate(scn, name).Attempts
				assert.GreaterOrEqual(t, est, float64(attempts), "an upper bound")
				assert.LessOrEqual(t, est, 20*float64(attempts), "within 20x (ratio %.1f)", est/float64(attempts))
			})
		}
	}
}

// Asserts that every built-in scenario, under the costliest strategy mix (all of them, as bench
// runs), is estimated at a fiftieth of the budget or less, in CPU and in memory.
func TestBuiltinsWithinBudget(t *testing.T) {
	for _, scn := range scenarios.Catalog() {
		c := Estimate(scn)
		t.Logf("%s: %s, %s of CPU", scn.Name, c, c.CPU)
		assert.LessOrEqual(t, c.CPU, DefaultBudget.CPU/50, scn.Name)
		assert.LessOrEqual(t, c.Memory, DefaultBudget.Memory/50, scn.Name)
		assert.NoError(t, c.Check(DefaultBudget), scn.Name)
	}
}

// hostile is a valid scenario of 100,000 req/s into one worker; edit changes it.
func hostile(edit func(*scenarios.Scenario)) scenarios.Scenario {
	scn := scenarios.Defaults()
	scn.Name, scn.Summary, scn.Duration = "hostile", "x", 60*time.Second
	scn.Classes = []scenarios.Class{{Name: "a", Rate: 100_000}}
	scn.Service.Workers, scn.Service.ServiceTime = 1, 100*time.Millisecond
	edit(&scn)
	return scn
}

// Asserts the estimate and the refusal, to the letter, of the costly values of issue 8 as far
// as the limits of package scenarios still let them through, and of a scenario at every limit;
// and that a costly run within the budget is not refused.
func TestEstimateHostile(t *testing.T) {
	tests := []struct {
		name     string
		scn      scenarios.Scenario
		estimate string
		refusal  string // "" when within the budget
	}{
		{
			name:     "1e5 req/s into one worker with a queue of a million",
			scn:      hostile(func(s *scenarios.Scenario) { s.Service.QueueLimit = scenarios.MaxQueueLimit }),
			estimate: "up to 2.4e7 attempts, 1.2 GB",
		},
		{
			name: "1e6 req/s for 10 minutes with no queue",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration = 10 * time.Minute
				s.Load = []scenarios.LoadPoint{{At: 0, Factor: 10}}
			}),
			estimate: "up to 2.4e9 attempts, 8.8 GB",
			refusal: "this run would simulate up to 2.4e9 attempts (about 20 minutes of CPU) and hold up to 8.8 GB; " +
				"the budget is 10 minutes of CPU and 2 GB a run; lower class[*].rate, load[*].factor, duration or fleet.deadline",
		},
		{
			name: "a closed loop of 10,000 users with no think time",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration = 150 * time.Second
				s.Loop = scenarios.Loop{Closed: true, Users: scenarios.MaxUsers}
			}),
			estimate: "up to 6e8 attempts, 627 MB",
		},
		{
			name: "a closed loop of 10,000 users with no think time and three layers",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration = 150 * time.Second
				s.Layers = scenarios.MaxLayers
				s.Loop = scenarios.Loop{Closed: true, Users: scenarios.MaxUsers}
			}),
			estimate: "up to 9.6e9 attempts, 9.7 GB",
			refusal: "this run would simulate up to 9.6e9 attempts (about 80 minutes of CPU) and hold up to 9.7 GB; " +
				"the budget is 10 minutes of CPU and 2 GB a run; lower fleet.users, fleet.layers, duration or fleet.timeout, or raise fleet.think",
		},
		{
			name: "1,000 cortex clients, 64 classes and 1 ms ticks for an hour, next to no traffic",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration, s.Drain, s.Tick, s.Clients = time.Hour, 10*time.Minute, time.Millisecond, scenarios.MaxClients
				s.Classes = nil
				for i := range scenarios.MaxClasses {
					s.Classes = append(s.Classes, scenarios.Class{Name: fmt.Sprint(i), Rate: 0.001})
				}
			}),
			estimate: "up to 1165 attempts, 113 MB", // and about 7 minutes of CPU: within the budget
		},
		{
			name: "every limit at once",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration, s.Drain, s.Tick, s.Clients, s.Layers = time.Hour, 10*time.Minute, time.Millisecond, scenarios.MaxClients, scenarios.MaxLayers
				s.Service.Workers, s.Service.QueueLimit = scenarios.MaxWorkers, scenarios.MaxQueueLimit
				s.Load = []scenarios.LoadPoint{{At: 0, Factor: 10}}
			}),
			estimate: "up to 2.3e11 attempts, 42.4 GB",
			refusal: "this run would simulate up to 2.3e11 attempts (about 32.1 hours of CPU) and hold up to 42.4 GB; " +
				"the budget is 10 minutes of CPU and 2 GB a run; lower class[*].rate, load[*].factor, fleet.layers, duration or fleet.deadline",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.scn.Validate(), "within the limits of the format")
			c := Estimate(tt.scn)
			assert.Equal(t, tt.estimate, c.String())
			err := c.Check(DefaultBudget)
			if tt.refusal == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.refusal, err.Error())
			var ob *OverBudgetError
			assert.ErrorAs(t, err, &ob)
		})
	}
}

// Asserts that Estimate of several strategies is, figure by figure, the largest of their own
// estimates, and that a strategy without retries costs less than one with.
func TestEstimateStrategies(t *testing.T) {
	scn := hostile(func(s *scenarios.Scenario) {})
	none, naive, cortex := Estimate(scn, "none"), Estimate(scn, "naive"), Estimate(scn, "cortex")
	assert.Less(t, none.Attempts, naive.Attempts)
	assert.Equal(t, 4*none.Attempts, naive.Attempts, "1 + 3 retries")
	assert.Greater(t, cortex.Memory, naive.Memory, "a cortex client holds an engine, and its requests wait longer")
	both := Estimate(scn, "naive", "cortex")
	assert.Equal(t, max(naive.Attempts, cortex.Attempts), both.Attempts)
	assert.Equal(t, max(naive.CPU, cortex.CPU), both.CPU)
	assert.Equal(t, max(naive.Memory, cortex.Memory), both.Memory)
	assert.Equal(t, Estimate(scn, strategy.Names()...), Estimate(scn), "no name: every strategy")
	assert.Equal(t, Estimate(scn, "cortex"), Estimate(scn, "no-such-strategy"), "an unknown strategy costs as much as the costliest")
	for _, name := range strategy.Names() {
		f, ok := strategy.FootprintOf(name)
		assert.True(t, ok, "the model knows %s", name)
		assert.Positive(t, f.ClientBytes, "%s registers its measured client bytes", name)
		assert.Positive(t, f.TickNs, "%s registers its measured CPU per tick", name)
	}
}

// Asserts the formats of the figures the messages print.
func TestFormatCost(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want string
	}{{0, "0"}, {3000, "3000"}, {9999.2, "10000"}, {1e4, "1e4"}, {2.14e5, "2.1e5"}, {9.96e8, "1e9"}, {1.25e9, "1.2e9"}} {
		assert.Equal(t, tt.want, FormatCount(tt.x), "count %v", tt.x)
	}
	for _, tt := range []struct {
		b    float64
		want string
	}{{640e3, "640 KB"}, {11.2e6, "12 MB"}, {2e9, "2 GB"}, {3.14e9, "3.1 GB"}} {
		assert.Equal(t, tt.want, FormatBytes(tt.b), "bytes %v", tt.b)
	}
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{{300 * time.Millisecond, "under a second"}, {40 * time.Second, "40 seconds"}, {8 * time.Minute, "8 minutes"}, {150 * time.Minute, "2.5 hours"}} {
		assert.Equal(t, tt.want, FormatCPU(tt.d), "cpu %v", tt.d)
	}
}

// Asserts that memory is bounded by construction as the model says, on short runs at the
// limits: the service queue's ring never grows past queue_limit, the attempt pool never holds
// more slots than the model's attempts held at once, the timeout FIFO no more entries than it
// counts, the request pool no more than the requests alive, and the heap (HeapAlloc, garbage
// included, read after every tick) never grows by more than the model's memory minus the
// process's base.
func TestEstimateBoundsMemory(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	tests := []struct {
		name     string
		strategy string
		scn      scenarios.Scenario
	}{
		{
			name: "a queue of a million attempts filled at 1e5 req/s", strategy: "none",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration, s.Drain = 11*time.Second, 0
				s.Service.ServiceTime, s.Service.QueueLimit = time.Hour, scenarios.MaxQueueLimit
			}),
		},
		{
			name: "3e5 req/s and naive retries into a blackhole: every attempt waits for its timeout", strategy: "naive",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration, s.Drain = 3*time.Second, 0
				s.Load = []scenarios.LoadPoint{{At: 0, Factor: 3}}
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultBlackhole, At: 0, Duration: 3 * time.Second}}
			}),
		},
		{
			name: "1e5 req/s with cortex against a queue of 1e5 during an outage", strategy: "cortex",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration, s.Drain = 3*time.Second, time.Second
				s.Service.QueueLimit = 100_000
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: time.Second, Duration: time.Second}}
			}),
		},
		{
			name: "a closed loop with no think time and three layers, every attempt refused", strategy: "naive",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration, s.Drain, s.Deadline, s.Timeout = 300*time.Millisecond, 0, time.Second, 100*time.Millisecond
				s.Layers = scenarios.MaxLayers
				s.Loop = scenarios.Loop{Closed: true, Users: 2000}
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 0, Duration: 300 * time.Millisecond}}
			}),
		},
		{
			name: "1,000 cortex clients, 64 classes, 1 ms ticks", strategy: "cortex",
			scn: hostile(func(s *scenarios.Scenario) {
				s.Duration, s.Drain, s.Tick, s.Clients = 200*time.Millisecond, 0, time.Millisecond, scenarios.MaxClients
				s.Classes = nil
				for i := range scenarios.MaxClasses {
					s.Classes = append(s.Classes, scenarios.Class{Name: fmt.Sprint(i), Rate: 100})
				}
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.scn.Validate())
			c := Estimate(tt.scn, tt.strategy)
			require.NoError(t, c.Check(DefaultBudget), "a run the model accepts")
			base := heapNow()
			s, err := New(tt.scn, tt.strategy, 1)
			require.NoError(t, err)
			var peak uint64
			var atts, entries, reqs int
			var m runtime.MemStats
			for !s.Done() {
				s.Step()
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > base {
					peak = max(peak, m.HeapAlloc-base)
				}
				atts = max(atts, len(s.atts))
				entries = max(entries, s.svcTimeouts.Len())
				reqs = max(reqs, len(s.reqs))
			}
			t.Logf("heap %.1f MB of %.1f MB; attempt slots %d of %.0f; timeout entries %d of %.0f; requests %d of %.0f",
				float64(peak)/1e6, (c.Memory-bytesBase)/1e6, atts, c.held, entries, c.entries, reqs, c.live)
			assert.LessOrEqual(t, s.svc.queue.Cap(), tt.scn.Service.QueueLimit, "the queue's ring")
			assert.LessOrEqual(t, float64(atts), c.held, "attempt slots")
			assert.LessOrEqual(t, float64(entries), c.entries, "timeout entries")
			assert.LessOrEqual(t, float64(reqs), c.live, "request slots")
			assert.LessOrEqual(t, float64(peak), c.Memory-bytesBase, "heap")
		})
	}
}
