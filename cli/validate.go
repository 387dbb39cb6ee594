package cli

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/internal/load"
	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

func init() { subcommands = append(subcommands, newValidateCmd) }

func newValidateCmd(io streams) *cobra.Command {
	var allowLarge bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check scenario files",
		Long: `validate parses each scenario FILE strictly, as run --scenario-file does, and prints
"FILE: ok (name, duration, N faults; up to A attempts, M MB)" for a valid one, with what a run
of it would take with the costliest strategy: the attempts simulated and the memory held, as
estimated by the cost model (docs/simulator.md). For an invalid one it prints every problem
found to stderr, one per line, as FILE:LINE: field: what is wrong; a file whose run would take
more than the budget (10 minutes of CPU or 2 GB) is invalid too, unless --allow-large. It
exits with status 1 if any file is invalid. A FILE of "-" reads the standard input.`,
		Example: `  cortex-tui validate my.toml
  cortex-tui validate scenarios/*.toml
  cortex-tui scenarios black-friday --toml | cortex-tui validate -`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &exitError{code: 2, err: fmt.Errorf("validate needs at least one FILE")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// Reading can block (a FIFO with no writer): a stop signal still ends the command.
			bad, err := await(cmd.Context(), func() (int, error) {
				bad := 0
				for _, path := range args {
					if !validateFile(io, path, allowLarge) {
						bad++
					}
				}
				return bad, nil
			})
			if err != nil {
				return err
			}
			if bad > 0 {
				return fmt.Errorf("%d of %d file(s) invalid", bad, len(args))
			}
			return nil
		},
	}
	addAllowLargeFlag(cmd, &allowLarge)
	return cmd
}

// validateFile checks one file and reports the result; it returns whether the file is valid.
// A file whose run the cost model expects over the budget is invalid unless allowLarge.
// What it prints is made inert for the terminal (safetext): a message may quote the file's
// text (an unknown key, the parser's context lines), and the path itself is a stranger's name.
func validateFile(io streams, path string, allowLarge bool) bool {
	if isLessonPath(path) {
		return validateLesson(io, path)
	}
	s, err := parsePath(io, path)
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, path+":") {
			msg = path + ": " + msg
		}
		fmt.Fprintln(io.err, safetext.Text(msg))
		return false
	}
	faults := "faults"
	if len(s.Faults) == 1 {
		faults = "fault"
	}
	cost := sim.Estimate(s) // with the costliest strategy
	over := ""
	if err := cost.Check(sim.DefaultBudget); err != nil {
		if !allowLarge {
			fmt.Fprintln(io.err, safetext.Text(overBudget(path, err).Error()))
			return false
		}
		over = ": over the budget, allowed by --" + allowLargeFlag
	}
	if len(s.Controls) > 0 { // a recorded demo says what it replays
		faults += ", " + scenarios.CountControls(len(s.Controls))
	}
	if s.Engine != nil { // and which engine cortex runs
		faults += ", engine " + cmp.Or(s.EngineName, "custom")
	}
	fmt.Fprintln(io.out, safetext.Line(fmt.Sprintf("%s: ok (%s, %s, %d %s; %s%s)", path, s.Name, scenarios.FormatDuration(s.Duration), len(s.Faults), faults, cost, over)))
	return true
}

// parsePath parses the scenario file at path, or the standard input when path is "-".
func parsePath(io streams, path string) (scenarios.Scenario, error) {
	if path != "-" {
		return scenarios.ParseFile(path)
	}
	return scenarios.ParseReader(path, io.in)
}

// isLessonPath reports whether path names a lesson file: its first lines hold a [[step]]
// table. Only a regular file is peeked at (the standard input and devices are scenarios).
func isLessonPath(path string) bool {
	if path == "-" {
		return false
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	data, err := load.File(path, load.Lesson)
	return err == nil && scenarios.IsLesson(data)
}

// validateLesson checks a lesson file as validateFile does a scenario.
func validateLesson(io streams, path string) bool {
	l, err := scenarios.ParseLessonFile(path)
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, path+":") {
			msg = path + ": " + msg
		}
		fmt.Fprintln(io.err, safetext.Text(msg))
		return false
	}
	controls := ""
	if len(l.Controls) > 0 { // the lesson plays controls of its own
		controls = ", " + scenarios.CountControls(len(l.Controls))
	}
	steps := fmt.Sprintf("%d steps", len(l.Steps))
	if len(l.Steps) == 1 {
		steps = "1 step"
	}
	fmt.Fprintln(io.out, safetext.Line(fmt.Sprintf("%s: ok (lesson %s on %s, %s%s)", path, l.Name, l.Scenario, steps, controls)))
	return true
}
