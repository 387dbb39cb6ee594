package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/live/upstream"
)

// targetOptions are the flags of `cortex-tui target`.
type targetOptions struct {
	scenario     string
	scenarioFile string
	addr         string
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
its address and serves until ctrl+c. Point any client at it, or cortex-tui live --target.`,
		Example: `  cortex-tui target
  cortex-tui target --scenario black-friday --addr 127.0.0.1:8080`,
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
			if err := tg.Start(cmd.Context()); err != nil {
				return fmt.Errorf("cannot listen on %s: %w", o.addr, err)
			}
			defer tg.Close()
			c := tg.Config()
			fmt.Fprintf(io.out, "target listening on %s (%d workers, %s service time, queue %d); ctrl+c stops it\n",
				tg.URL(), c.Workers, c.ServiceTime, c.QueueLimit)
			<-tg.Done()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "take the service from this built-in scenario (or scenario file)")
	f.StringVar(&o.scenarioFile, "scenario-file", "", "take the service from this scenario file")
	f.StringVar(&o.addr, "addr", upstream.DefaultAddr, "address to listen on, host:port (port 0: a free port)")
	return cmd
}
