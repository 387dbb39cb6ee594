package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// goodputs returns each scenario's mean goodput over its runs.
func goodputs(runs [][]report.Summary) []float64 {
	out := make([]float64, len(runs))
	for i, rs := range runs {
		for _, r := range rs {
			out[i] += r.Goodput / float64(len(rs))
		}
	}
	return out
}

// errTimeUp is runAll's error for a simulation not started because the search's time was up.
var errTimeUp = errors.New("tune: the time is up")

// pool runs simulations on a fixed number of goroutines.
type pool struct {
	ctx     context.Context
	started func() // called as each simulation starts (nil: nothing)
	jobs    chan func()
	wg      sync.WaitGroup
	mu      sync.Mutex
	runs    int
}

// newPool starts n workers; started, when not nil, is called as each simulation starts.
func newPool(ctx context.Context, n int, started func()) *pool {
	p := &pool{ctx: ctx, started: started, jobs: make(chan func())}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for job := range p.jobs {
				job()
			}
		}()
	}
	return p
}

// close stops the workers once their jobs are done.
func (p *pool) close() {
	close(p.jobs)
	p.wg.Wait()
}

// runAll runs cortex with cfg on every scenario and seed and returns the summaries, out[i][j]
// scenario i with seed j; ctx's error when it was done before they all ran, errTimeUp when
// skip (nil: never) said so before one started.
func (p *pool) runAll(scns []scenarios.Scenario, seeds []int64, cfg engine.Config, skip func() bool) ([][]report.Summary, error) {
	return p.run(scns, seeds, strategy.CortexName, &cfg, skip, true)
}

// runNone runs none on every scenario and seed (runAll's out), for the peaks its runs reach
// (limitsOf). Like the oracle's bounds, these reference runs are not the search's: neither
// counted in simulations nor reported to the pool's started.
func (p *pool) runNone(scns []scenarios.Scenario, seeds []int64) ([][]report.Summary, error) {
	return p.run(scns, seeds, "none", nil, nil, false)
}

// run is runAll for the named strategy (cfg nil: the strategy's own engine, if any); counted
// says whether its simulations are the search's (started, simulations).
func (p *pool) run(scns []scenarios.Scenario, seeds []int64, name string, cfg *engine.Config, skip func() bool, counted bool) ([][]report.Summary, error) {
	out := make([][]report.Summary, len(scns))
	errs := make([]error, len(scns)*len(seeds))
	var wg sync.WaitGroup
	for i, scn := range scns {
		out[i] = make([]report.Summary, len(seeds))
		for j, seed := range seeds {
			wg.Add(1)
			job := func() {
				defer wg.Done()
				if p.ctx.Err() != nil {
					errs[i*len(seeds)+j] = p.ctx.Err()
					return
				}
				if skip != nil && skip() {
					errs[i*len(seeds)+j] = errTimeUp
					return
				}
				if counted && p.started != nil {
					p.started()
				}
				s, err := sim.NewWith(scn, name, seed, sim.Options{Engine: cfg})
				if err != nil {
					errs[i*len(seeds)+j] = fmt.Errorf("%s, seed %d: %w", scn.Name, seed, err)
					return
				}
				out[i][j] = report.Run(s).Summary
				if counted {
					p.mu.Lock()
					p.runs++
					p.mu.Unlock()
				}
			}
			select {
			case p.jobs <- job:
			case <-p.ctx.Done():
				wg.Done()
				errs[i*len(seeds)+j] = p.ctx.Err()
			}
		}
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// simulations returns the number of simulations run so far.
func (p *pool) simulations() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs
}

// oracles returns each scenario's oracle bound on the success rate without the knowledge in
// without (sim.OracleWithout; 0: the oracle itself), mean over seeds (NaN for a closed loop).
func oracles(scns []scenarios.Scenario, seeds []int64, without sim.Knowledge) ([]float64, error) {
	out := make([]float64, len(scns))
	for i, scn := range scns {
		for _, seed := range seeds {
			b, err := sim.OracleWithout(scn, seed, without)
			if errors.Is(err, sim.ErrClosedLoop) {
				out[i] = math.NaN()
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s, seed %d: %w", scn.Name, seed, err)
			}
			out[i] += b.Rate() / float64(len(seeds))
		}
	}
	return out, nil
}
