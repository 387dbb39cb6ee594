package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/lesson"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

func init() { subcommands = append(subcommands, newLearnCmd) }

// learnOptions are the flags of `cortex-tui learn`.
type learnOptions struct {
	file  string
	check bool
	list  bool
}

func newLearnCmd(io streams) *cobra.Command {
	var o learnOptions
	cmd := &cobra.Command{
		Use:   "learn [NAME]",
		Short: "Short lessons that check themselves, in the dashboard",
		Long: `learn with no NAME opens the dashboard's picker on the lessons, the ones you completed
marked (without a terminal, or with --list, it prints them instead). learn NAME
opens the dashboard on the lesson: its scenario runs with a panel that shows the current step,
its goals checked live against the run, and a hint after a while (H shows it at once); the next
step unlocks when the goal holds. The run pauses at each caption and each new step until you
press space. Completed lessons are kept in your configuration directory
(progress.json under cortex-tui/). --check plays the lesson headless, doing what each hint
says, and prints when each step was completed.`,
		Example: `  cortex-tui learn
  cortex-tui learn --list
  cortex-tui learn retry-storm
  cortex-tui learn metastable --check
  cortex-tui learn --file my-lesson.toml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &exitError{code: 2, err: fmt.Errorf("learn takes at most one lesson NAME, got %q", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && o.file == "" {
				if o.list || !isTerminal(io.in) || !isTerminal(io.out) {
					return listLessons(io)
				}
				return openLessons(cmd, io)
			}
			l, err := pickLesson(args, o.file)
			if err != nil {
				return err
			}
			if o.check {
				return checkLesson(io, l)
			}
			return openLesson(cmd, io, l)
		},
	}
	cmd.Flags().StringVar(&o.file, "file", "", "path of a lesson TOML file")
	cmd.Flags().BoolVar(&o.list, "list", false, "print the lessons instead of opening the picker on them")
	cmd.Flags().BoolVar(&o.check, "check", false, "play the lesson headless with its own actions and print when each step completes")
	addKeysFlag(cmd)
	return cmd
}

// pickLesson returns the built-in lesson args[0] or the lesson file; exactly one.
func pickLesson(args []string, file string) (scenarios.Lesson, error) {
	switch {
	case len(args) == 1 && file != "":
		return scenarios.Lesson{}, &exitError{code: 2, err: fmt.Errorf("give a lesson NAME or --file, not both")}
	case file != "":
		return scenarios.ParseLessonFile(file)
	}
	l, err := scenarios.LookupLesson(args[0])
	if err != nil {
		return l, &exitError{code: 2, err: err}
	}
	return l, nil
}

// listLessons prints the built-in lessons, the completed ones marked, and how to start one. A
// broken progress file is reported and ignored.
func listLessons(io streams) error {
	progress := lesson.Progress{}
	if path, err := lesson.ProgressPath(); err == nil {
		var perr error
		if progress, perr = lesson.LoadProgress(path); perr != nil {
			fmt.Fprintln(io.err, "cortex-tui:", safetext.Text(perr.Error()))
		}
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i, l := range scenarios.Lessons() {
		mark := " "
		if _, ok := progress.Done[l.Name]; ok {
			mark = "✓"
		}
		fmt.Fprintf(tw, "%s %d\t%s\t%s\t%s, %d steps\n", mark, i+1, l.Name, l.Title, l.Scenario, len(l.Steps))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nStart one with: cortex-tui learn NAME   (✓ = completed)\n")
	_, err := io.out.Write([]byte(b.String()))
	return err
}

// checkLesson plays l headless with its own actions and prints each step's completion time.
func checkLesson(io streams, l scenarios.Lesson) error {
	scn, err := lesson.Scenario(l)
	if err != nil {
		return err
	}
	src, err := sim.NewSource(scn, l.Strategy, scn.Seed)
	if err != nil {
		return err
	}
	defer src.Close()
	done, err := lesson.Solve(l, src)
	for i, at := range done {
		fmt.Fprintf(io.out, "step %d done at t=%s: %s\n", i+1, scenarios.FormatDuration(at.Round(100*time.Millisecond)), safetext.Line(l.Steps[i].Text))
	}
	if err != nil {
		return fmt.Errorf("lesson %s cannot be completed with its own actions: %w", l.Name, err)
	}
	fmt.Fprintf(io.out, "%s: every step completed\n", l.Name)
	return nil
}

// openLesson opens the dashboard on l's scenario, strategy and seed, following the lesson
// (guided unless the file says guided = false), and records it in the progress when done.
func openLesson(cmd *cobra.Command, io streams, l scenarios.Lesson) error {
	scn, err := lesson.Scenario(l)
	if err != nil {
		return err
	}
	opts, err := dashboardOptions(cmd, &scn, l.Strategy, scn.Seed)
	if err != nil {
		return err
	}
	opts.Lesson, opts.Guided = &l, l.Guided
	in, out, err := terminal(io, "cortex-tui learn "+l.Name+" --check")
	if err != nil {
		return err
	}
	return startDashboard(cmd.Context(), opts, in, out)
}

// openLessons opens the dashboard's picker on the lessons (learn with no NAME, on a terminal).
func openLessons(cmd *cobra.Command, io streams) error {
	opts, err := dashboardOptions(cmd, nil, "cortex", 0)
	if err != nil {
		return err
	}
	opts.Lessons = true
	in, out, err := terminal(io, "cortex-tui learn --list")
	if err != nil {
		return err
	}
	return startDashboard(cmd.Context(), opts, in, out)
}

// saveLessonDone records a lesson completed in the dashboard in the learner's progress file.
func saveLessonDone(name string) error {
	path, err := lesson.ProgressPath()
	if err != nil {
		return err
	}
	return lesson.MarkDone(path, name, time.Now())
}

// lessonsDone returns the lessons the learner completed, for the picker's marks; a broken
// progress file is reported on stderr (after the dashboard closes) and counts as none.
func lessonsDone(cmd *cobra.Command) map[string]bool {
	path, err := lesson.ProgressPath()
	if err != nil {
		return nil
	}
	p, err := lesson.LoadProgress(path)
	if err != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "cortex-tui:", safetext.Text(err.Error()))
	}
	done := map[string]bool{}
	for _, n := range p.Names() {
		done[n] = true
	}
	return done
}
