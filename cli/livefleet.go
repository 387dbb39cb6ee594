package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/redisstore"
	"github.com/cortex-tui/cortex-tui/live"
)

// fleetPlan is live --fleet checked: the Redis the process's CORTEX engines meet on, the
// fleet's name (empty: each source's scenario name) and this process's instance name.
type fleetPlan struct {
	url      string // as given, password included: only Open reads it
	shown    string // without the password
	name     string
	instance string
}

// fleetTimeout bounds one sync with Redis, and each of its dials, reads and writes: one sync
// interval. Half of it (100 ms) failed 548 of 12,000 syncs (4.6%) of three instances on a
// loaded 2-core machine, each failure dropping an engine to LOCAL until its next sync; a
// decision never waits for a sync either way.
const fleetTimeout = fleet.DefaultInterval

// maxInstanceLen leaves room for the member numbers the engines append (".49").
const maxInstanceLen = 56

// planFleet checks --fleet, --instance and --fleet-name; every problem is a usage error.
func planFleet(o liveOptions) (*fleetPlan, error) {
	usage := func(format string, a ...any) error { return &exitError{code: 2, err: fmt.Errorf(format, a...)} }
	if o.fleet == "" {
		if o.instance != "" || o.fleetName != "" {
			return nil, usage("--instance and --fleet-name need --fleet redis://HOST:PORT")
		}
		return nil, nil
	}
	u, err := url.Parse(o.fleet)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return nil, usage("--fleet %q: want a Redis URL, redis://HOST:PORT (or rediss:// for TLS, redis://:PASSWORD@HOST:PORT/DB)", o.fleet)
	}
	// Open parses the URL as go-redis will (a bad port or database number fails here).
	st, err := redisstore.Open(o.fleet, "probe", fleet.Options{}, fleetTimeout)
	if err != nil {
		return nil, usage("--fleet: %v", err)
	}
	_ = st.Close()
	redisstore.SilenceLogs() // a failed dial is a failed sync the dashboard shows, not a line on its screen
	u.User = nil
	p := &fleetPlan{url: o.fleet, shown: u.String(), name: o.fleetName, instance: o.instance}
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
		return nil, usage("--instance %q: at most %d characters (its engines sync as NAME.0, NAME.1, ...)", p.instance, maxInstanceLen)
	}
	return p, nil
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

// join returns the live.Join of the k-th source (from 0) this process builds for scenario
// scn: the fleet named --fleet-name (or after the scenario), the instance named --instance, with
// "-2", "-3"... for later sources, whose engines must not take the first one's names while it
// may still run (compare mode).
func (p *fleetPlan) join(scenario string, k int) *live.Join {
	name := p.name
	if name == "" {
		name = nameOf(scenario, 64)
	}
	inst := p.instance
	if k > 0 {
		inst = fmt.Sprintf("%s-%d", inst, k+1)
	}
	return &live.Join{
		Open: func(b fleet.Budget) (engine.FleetStore, error) {
			return redisstore.Open(p.url, name, fleet.Options{Budget: b}, fleetTimeout)
		},
		Name: name, Store: p.shown, Instance: inst, Interval: fleet.DefaultInterval, Timeout: fleetTimeout,
	}
}

// check asks Redis whether it answers, at most for a second. The live run starts either way:
// while Redis does not answer its engines are LOCAL (each on its own view and budget), and
// they join the fleet at the first sync that succeeds.
func (p *fleetPlan) check(ctx context.Context) error {
	st, err := redisstore.Open(p.url, "probe", fleet.Options{}, time.Second)
	if err != nil {
		return err
	}
	defer st.Close()
	c, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return st.Ping(c)
}
