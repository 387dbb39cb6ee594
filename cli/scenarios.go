package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

func init() { subcommands = append(subcommands, newScenariosCmd) }

func newScenariosCmd(io streams) *cobra.Command {
	var asTOML bool
	cmd := &cobra.Command{
		Use:   "scenarios [NAME]",
		Short: "List the built-in scenarios, or show one",
		Long: `With no argument, scenarios lists the built-in scenarios, one line each: name, duration
(of the arrivals; the run drains up to 30 s more) and summary.

With a NAME it shows that scenario: its story, traffic, service, fault timeline, the oracle's
bound on success for its seed (what an omniscient scheduler could achieve; see bench) and notes.
With --toml it prints the scenario as a file instead, a starting point for your own
(check it with "cortex-tui validate", run it with "cortex-tui run --scenario-file").`,
		Example: `  cortex-tui scenarios
  cortex-tui scenarios dns-crash
  cortex-tui scenarios black-friday --toml > my.toml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &exitError{code: 2, err: fmt.Errorf("scenarios takes at most one NAME, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				if asTOML {
					return &exitError{code: 2, err: fmt.Errorf("--toml needs a scenario NAME")}
				}
				return listScenarios(io)
			}
			scn, err := scenarios.Lookup(args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if asTOML {
				data, err := scn.MarshalTOML()
				if err != nil {
					return err
				}
				_, err = io.out.Write(data)
				return err
			}
			return describeScenario(io, scn)
		},
	}
	cmd.Flags().BoolVar(&asTOML, "toml", false, "print the scenario NAME as a TOML file")
	return cmd
}

// listScenarios prints the catalog, one aligned line per scenario, its texts made inert for the
// terminal (safetext).
func listScenarios(io streams) error {
	tw := tabwriter.NewWriter(io.out, 0, 0, 2, ' ', 0)
	for _, s := range scenarios.Catalog() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", safetext.Line(s.Name), scenarios.FormatDuration(s.Duration), safetext.Line(s.Summary))
	}
	return tw.Flush()
}

// describeScenario prints one scenario for a reader: story, traffic, service, faults, notes.
// Its texts are made inert for the terminal (safetext): this is what a reader sees of a
// scenario before running it, so it must not act on the terminal whatever the scenario holds.
func describeScenario(io streams, s scenarios.Scenario) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n%s\n\n", safetext.Line(s.Name), safetext.Line(s.Summary), wrap(safetext.Text(s.Story), 80))
	fmt.Fprintf(&b, "duration  %s (+ up to %s drain), tick %s, seed %d\n",
		scenarios.FormatDuration(s.Duration), scenarios.FormatDuration(s.Drain), scenarios.FormatDuration(s.Tick), s.Seed)
	loop := "open loop"
	if s.Loop.Closed {
		loop = fmt.Sprintf("closed loop, %d users thinking %s", s.Loop.Users, scenarios.FormatDuration(s.Loop.Think))
	}
	fmt.Fprintf(&b, "fleet     %d clients, %s, timeout %s, deadline %s, %d retry layer(s)\n",
		s.Clients, loop, scenarios.FormatDuration(s.Timeout), scenarios.FormatDuration(s.Deadline), s.Layers)
	for _, c := range s.Classes {
		unit := "req/s"
		if s.Loop.Closed {
			unit = "share of users"
		}
		fmt.Fprintf(&b, "class     %s priority %2d, %g %s%s\n", padCells(safetext.Line(c.Name), 18), c.Priority, c.Rate, unit, classLoad(c))
	}
	v := s.Service
	fmt.Fprintf(&b, "service   %d workers x %s = %.0f req/s, queue %d", v.Workers, scenarios.FormatDuration(v.ServiceTime), v.Capacity(), v.QueueLimit)
	if v.CrashFactor > 0 {
		fmt.Fprintf(&b, ", crashes above %gx for %s (a refusal counts %g), restarts after %s", v.CrashFactor,
			scenarios.FormatDuration(v.CrashAfter), v.RefusalCost, scenarios.FormatDuration(v.RestartDelay))
	}
	b.WriteString("\n")
	for _, f := range s.Faults {
		fmt.Fprintf(&b, "fault     %-12s from %s for %s%s\n", f.Kind, scenarios.FormatDuration(f.At), scenarios.FormatDuration(f.Duration), faultValue(f))
	}
	oracle, err := oracleOf(s, s.Seed)
	if err != nil {
		return err
	}
	if oracle != nil {
		fmt.Fprintf(&b, "oracle    seed %d: %s\n\n", s.Seed, report.OracleLine(oracle))
	} else {
		fmt.Fprintf(&b, "oracle    %s\n\n", report.OracleLine(oracle))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, n := range s.Notes {
		text := n.Text
		if len(n.Strategies) > 0 { // a note shown to some strategies only says which
			text = "(" + strings.Join(n.Strategies, ", ") + ") " + text
		}
		fmt.Fprintf(tw, "%s\t%s\n", scenarios.FormatDuration(n.At), safetext.Line(text))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = io.out.Write([]byte(b.String()))
	return err
}

// classLoad describes a class's own load points, like ", its own load x1 at 60s, x12 at 70s";
// "" for a class without.
func classLoad(c scenarios.Class) string {
	if len(c.Load) == 0 {
		return ""
	}
	parts := make([]string, len(c.Load))
	for i, p := range c.Load {
		parts[i] = fmt.Sprintf("x%g at %s", p.Factor, scenarios.FormatDuration(p.At))
	}
	return ", its own load " + strings.Join(parts, ", ")
}

// faultValue describes a fault's value with its key, e.g. ", fraction 0.4"; "" for kinds without one.
func faultValue(f scenarios.Fault) string {
	switch spec, _ := f.Kind.Spec(); spec.Unit {
	case scenarios.UnitNone:
		return ""
	case scenarios.UnitSeconds:
		return fmt.Sprintf(", +%gs %s", f.Value, spec.Key)
	default:
		return fmt.Sprintf(", %s %g", spec.Key, f.Value)
	}
}

// wrap breaks text into lines of at most width cells at spaces (a longer word stays whole),
// measuring words in terminal cells (a CJK character takes two, an emoji sequence two).
func wrap(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, word := range strings.Fields(text) {
		w := ansi.StringWidth(word)
		switch {
		case col == 0:
		case col+1+w > width:
			b.WriteString("\n")
			col = 0
		default:
			b.WriteString(" ")
			col++
		}
		b.WriteString(word)
		col += w
	}
	return b.String()
}

// padCells pads s with spaces to w terminal cells (a longer s stays whole), like %-*s does in
// runes.
func padCells(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}
