package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/redisstore"
	"github.com/cortex-tui/cortex-tui/live"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// fleetPlan is live's fleet checked: the Redis the process's CORTEX engines meet on (nil: a
// budget shared in-process by the run's clients, live --budget shared), the fleet's name
// (empty: each source's scenario name) and this process's instance name.
type fleetPlan struct {
	conn     *redisstore.Conn // password included: only the store reads it; String hides it
	name     string
	instance string
}

// fleetTimeout bounds one sync with Redis, and each of its dials, reads and writes: one sync
// interval. Half of it (100 ms) failed 548 of 12,000 syncs (4.6%) of three instances on a
// loaded 2-core machine, each failure dropping an engine to LOCAL until its next sync; a
// decision never waits for a sync either way.
const fleetTimeout = fleet.DefaultInterval

// maxInstanceLen leaves room for the suffix of a later source of the process ("-2").
const maxInstanceLen = 56

// planFleet checks --fleet, --budget, --instance and --fleet-name against scenario scn; every
// problem is a usage error, and a password given is never shown. It returns nil when the run
// keeps one budget per client.
func planFleet(o liveOptions, scn scenarios.Scenario) (*fleetPlan, error) {
	usage := func(format string, a ...any) error { return &exitError{code: 2, err: fmt.Errorf(format, a...)} }
	budget := scn.Budget
	if o.budget != "" {
		b, err := parseBudget(o.budget)
		if err != nil {
			return nil, err
		}
		budget = b
	}
	if o.fleet == "" {
		if o.instance != "" || o.fleetName != "" {
			return nil, usage("--instance and --fleet-name need --fleet redis://HOST:PORT")
		}
		if budget != scenarios.BudgetShared {
			return nil, nil
		}
		return &fleetPlan{instance: "local"}, nil
	}
	if o.budget != "" && budget != scenarios.BudgetShared {
		return nil, usage("--fleet shares the fleet's budget: it cannot run with --budget %s", o.budget)
	}
	c, err := redisstore.ParseURL(o.fleet, os.Getenv)
	if err != nil {
		return nil, usage("--fleet: %v", err)
	}
	redisstore.SilenceLogs() // a failed dial is a failed sync the dashboard shows, not a line on its screen
	p := &fleetPlan{conn: c, name: o.fleetName, instance: o.instance}
	if p.name != "" {
		if err := fleet.CheckName("fleet", p.name); err != nil {
			return nil, usage("--fleet-name: %v", err)
		}
	}
	if p.instance == "" {
		p.instance = defaultInstance()
	}
	if err := fleet.CheckName("instance", p.instance); err != nil {
		return nil, usage("--instance: %v", err)
	}
	if len(p.instance) > maxInstanceLen {
		return nil, usage("--instance %q: at most %d characters", p.instance, maxInstanceLen)
	}
	return p, nil
}

// shown is where the fleet meets, as the dashboard and the messages say it: the URL without
// its password, or "in-process".
func (p *fleetPlan) shown() string {
	if p.conn == nil {
		return "in-process"
	}
	return p.conn.String()
}

// defaultInstance is the instance name without --instance: the host name and the process id,
// made of the characters a name may hold.
func defaultInstance() string {
	host, _ := os.Hostname()
	return nameOf(fmt.Sprintf("%s-%d", host, os.Getpid()), 40)
}

// nameOf makes s a valid fleet or instance name: characters other than letters, digits, '-',
// '_' and '.' become '-', at most n of them, "cortex" when nothing is left.
func nameOf(s string, n int) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b[:min(len(b), n)]), "-")
	if out == "" {
		return "cortex"
	}
	return out
}

// fleetName is the fleet of a source playing scenario: --fleet-name, or the scenario's name.
func (p *fleetPlan) fleetName(scenario string) string {
	if p.name != "" {
		return p.name
	}
	return nameOf(scenario, 64)
}

// join returns the live.Join of the k-th source (from 0) this process builds for scenario
// scn: the fleet named --fleet-name (or after the scenario), the instance named --instance, with
// "-2", "-3"... for later sources, whose engines must not take the first one's name while it
// may still run (compare mode). In-process, each source has a store of its own.
func (p *fleetPlan) join(scenario string, k int, clock engine.Clock) *live.Join {
	name := p.fleetName(scenario)
	inst := p.instance
	if k > 0 {
		inst = fmt.Sprintf("%s-%d", inst, k+1)
	}
	open := func(strat string, b fleet.Budget) (fleet.Store, error) {
		return fleet.NewMemory(fleet.Options{Budget: b, Config: strat}, clock)
	}
	if p.conn != nil {
		open = func(strat string, b fleet.Budget) (fleet.Store, error) {
			return redisstore.Open(p.conn, name, fleet.Options{Budget: b, Config: strat}, fleetTimeout)
		}
	}
	return &live.Join{Open: open, Name: name, Store: p.shown(), Instance: inst, Interval: fleet.DefaultInterval, Timeout: fleetTimeout}
}

// check asks the fleet's Redis, at most for a second or two, whether this run can join it: a
// Redis that does not answer is a warning (the run starts LOCAL and joins when it answers); a
// URL or credentials that cannot work, a fleet running another configuration of strat (the
// strategy) or an instance of the same name already syncing are errors (exit 2) that name the
// mistake.
func (p *fleetPlan) check(ctx context.Context, scenario, strat string) (warning string, err error) {
	if p.conn == nil {
		return "", nil
	}
	cfg, ok := strategy.FleetConfig(strat)
	if !ok {
		return "", nil // the strategy has no engine: it does not join
	}
	st, err := redisstore.Open(p.conn, p.fleetName(scenario), fleet.Options{Budget: fleet.BudgetOf(cfg), Config: strat}, time.Second)
	if err != nil {
		return "", &exitError{code: 2, err: fmt.Errorf("--fleet: %w", err)}
	}
	defer st.Close()
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := st.Check(c); err != nil {
		if errors.Is(err, redisstore.ErrUnreachable) {
			return fmt.Sprintf("fleet: %v; starting LOCAL: each CORTEX engine decides on its own view and budget, and the run joins the fleet as soon as it answers", err), nil
		}
		return "", &exitError{code: 2, err: fmt.Errorf("--fleet: %w", err)}
	}
	// A leaving sync with the instance's name and the engines' spans: the fleet refuses it as
	// it would refuse the run, and it leaves nothing behind.
	r := engine.FleetReport{Window: cfg.Window, Horizon: cfg.FailureHorizon, Leave: true, Token: 1}
	var v engine.FleetView
	if err := st.Sync(c, p.instance, &r, &v); err != nil {
		if errors.Is(err, fleet.ErrRefused) {
			return "", &exitError{code: 2, err: fmt.Errorf("--fleet: %w", err)}
		}
		return fmt.Sprintf("fleet: %v; starting LOCAL", err), nil
	}
	return "", nil
}
