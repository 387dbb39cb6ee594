package cli

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/netaddr"
	"github.com/cortex-tui/cortex-tui/live/upstream"
)

// targetOptions are the flags of `cortex-tui target`.
type targetOptions struct {
	scenario     string
	scenarioFile string
	addr         string
	public       bool
}

func init() { subcommands = append(subcommands, newTargetCmd) }

func newTargetCmd(io streams) *cobra.Command {
	var o targetOptions
	cmd := &cobra.Command{
		Use:   "target",
		Short: "Run the embedded target service alone until ctrl+c",
		Long: `target runs live mode's embedded service on its own: workers, a bounded queue, a service time
distribution, overload crashes that close the listener and a warm-up, configured from a
scenario's [service] (or the defaults: 50 workers, 100 ms, a queue of 100, no crash). It prints
its addresses and serves until ctrl+c, with a status line on a terminal (every 10 s otherwise)
and the totals when it stops. Point any client at it, or cortex-tui live --target. It listens
on loopback only unless --public says otherwise: a service that crashes on purpose should not
be reachable from the network by accident.`,
		Example: `  cortex-tui target
  cortex-tui target --scenario black-friday --addr 127.0.0.1:8080
  cortex-tui target --addr 0.0.0.0:8080 --public      # every interface: other machines too`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("target takes no arguments, got %q", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := upstream.DefaultConfig()
			if o.scenario != "" || o.scenarioFile != "" {
				name, file := o.scenario, o.scenarioFile
				scn, err := loadScenario(name, file)
				if err != nil {
					return err
				}
				cfg = upstream.FromScenario(scn.Service)
			}
			cfg.Addr = o.addr
			tg, err := upstream.New(cfg)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := checkLoopback(cmd.Context(), o.addr, o.public); err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := tg.Start(cmd.Context()); err != nil {
				return fmt.Errorf("cannot listen on %s: %w", o.addr, err)
			}
			defer tg.Close()
			c := tg.Config()
			fmt.Fprintf(io.out, "target listening on %s (%d workers, %s service time, queue %d); ctrl+c stops it\n",
				listenURLs(tg.Addr()), c.Workers, c.ServiceTime, c.QueueLimit)
			serveStatus(io, tg, engine.WallClock{})
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "take the service from this built-in scenario (or scenario file)")
	f.StringVar(&o.scenarioFile, "scenario-file", "", "take the service from this scenario file")
	f.StringVar(&o.addr, "addr", upstream.DefaultAddr, "address to listen on, host:port (port 0: a free port); loopback unless --public")
	f.BoolVar(&o.public, "public", false, "allow an --addr other machines can reach (another interface, or 0.0.0.0 / [::] for every one)")
	return cmd
}

// targetStatusEvery is how often target's status line is redrawn on a terminal; off a terminal
// (a log) a line is written every targetLogEvery instead.
const (
	targetStatusEvery = time.Second
	targetLogEvery    = 10 * time.Second
)

// serveStatus waits until tg stops, showing what it does: on a terminal a status line on
// stderr, redrawn every second in place; otherwise a line every 10 s. When it stops, it prints
// the totals on stdout, so that a run's figures are not lost with the window.
func serveStatus(io streams, tg *upstream.Target, clock engine.Clock) {
	start := clock.Now()
	every, redraw := targetLogEvery, isTerminal(io.err)
	if redraw {
		every = targetStatusEvery
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tg.Done():
			if redraw {
				fmt.Fprint(io.err, "\r\033[K")
			}
			fmt.Fprintln(io.out, targetTotals(tg.Snapshot(), clock.Now().Sub(start)))
			return
		case <-tick.C:
			line := targetStatus(tg.Snapshot(), clock.Now().Sub(start))
			if redraw {
				fmt.Fprint(io.err, "\r\033[K"+line)
			} else {
				fmt.Fprintln(io.err, line)
			}
		}
	}
}

// targetStatus is target's status line: its state, the workers busy, the queue and the counts
// so far.
func targetStatus(s upstream.Snapshot, up time.Duration) string {
	c := s.Counters
	return fmt.Sprintf("%s %s · busy %d/%d · queue %d/%d · served %d · refused %d · crashes %d",
		up.Truncate(time.Second), s.State.Service(), s.Busy, s.Effective, s.Queue, s.QueueLimit, c.Served, c.Refused, c.Crashes)
}

// targetTotals is what target prints when it stops: how long it served and its counters.
func targetTotals(s upstream.Snapshot, up time.Duration) string {
	c := s.Counters
	return fmt.Sprintf("target stopped after %s: %d accepted, %d served (%d after their client had gone), %d refused (503), %d too large (413), %d dropped, %d lost to crashes and outages, %d crashes",
		up.Truncate(100*time.Millisecond), c.Accepted, c.Served, c.Wasted, c.Refused, c.TooLarge, c.Dropped, c.Lost, c.Crashes)
}

// checkLoopback refuses an address that is not loopback only (a wildcard, another interface's
// address, a name resolving to one) unless public allows it.
func checkLoopback(ctx context.Context, addr string, public bool) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil || public {
		return nil // upstream.Config.Validate has said what is wrong with it
	}
	e, err := netaddr.Exposed(ctx, addr)
	switch {
	case err != nil:
		return fmt.Errorf("--addr %s: %w", addr, err)
	case e == nil:
		return nil
	case e.Wildcard:
		return fmt.Errorf("--addr %s listens on every interface, IPv4 and IPv6: other machines could reach a service that crashes on purpose; "+
			"use 127.0.0.1:%s, or add --public if that is what you want", addr, port)
	}
	return fmt.Errorf("--addr %s is not a loopback address (%s): other machines could reach a service that crashes on purpose; "+
		"use 127.0.0.1:%s, or add --public if that is what you want", addr, e.IP, port)
}

// listenURLs names the URLs a listener on addr (its resolved address) is reachable at: its own
// for one address, and for a wildcard every address of every interface up (netaddr.Listening).
func listenURLs(addr string) string {
	addrs, covers := netaddr.Listening(addr)
	if covers == "" {
		return "http://" + addr
	}
	if len(addrs) == 0 {
		return "http://" + addr + " (" + covers + ")"
	}
	urls := make([]string, len(addrs))
	for i, a := range addrs {
		urls[i] = "http://" + a
	}
	return addr + " (" + covers + "): " + strings.Join(urls, ", ")
}
