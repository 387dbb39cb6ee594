package tui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/report"
)

// Run opens the dashboard on the alternate screen, reading keys from in and drawing to out, and
// returns when the user quits. Bubble Tea's panic handler stays on: a panic in Update or View
// restores the terminal before Run returns the error, and the commands of this package recover
// their own panics and report them in the footer. Bubble Tea's own signal handler is on too: a
// SIGTERM quits as `q` does (and Run returns nil); use RunContext to tell a signal from a quit.
func Run(opts Options, in io.Reader, out io.Writer) error {
	return runProgram(context.Background(), opts, in, out, true)
}

// RunContext is Run until ctx is done: then the dashboard stops at once, closes its sources,
// restores the terminal and returns an error wrapping context.Cause(ctx) (so a caller that
// cancels ctx on SIGTERM, say, learns which signal stopped it). Bubble Tea's signal handler is
// off: signals are the caller's to turn into a cancelled ctx (signal.NotifyContext or the like).
func RunContext(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	return runProgram(ctx, opts, in, out, false)
}

// runProgram runs the dashboard until the user quits or ctx is done; teaSignals keeps Bubble
// Tea's own signal handler (Run) or leaves signals to the caller (RunContext).
func runProgram(ctx context.Context, opts Options, in io.Reader, out io.Writer, teaSignals bool) (err error) {
	if opts.Factory == nil {
		return errors.New("tui: Options.Factory is nil")
	}
	m := New(opts)
	popts := []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(out), tea.WithAltScreen(), tea.WithContext(ctx)}
	if !teaSignals {
		popts = append(popts, tea.WithoutSignalHandler())
	}
	p := tea.NewProgram(m, popts...)
	defer func() {
		if r := recover(); r != nil {
			p.Kill()
			err = fmt.Errorf("the dashboard panicked: %v", r)
		}
	}()
	final, err := p.Run()
	fm, _ := final.(*Model)
	if fm != nil && opts.OnQuit != nil {
		defer func() { opts.OnQuit(fm.shownResults()) }() // after the terminal is restored
	}
	if ctx.Err() != nil {
		if fm != nil {
			fm.ctl.closeAll() // killed: Update never saw a quit key
		}
		return fmt.Errorf("the dashboard stopped: %w", context.Cause(ctx))
	}
	if err != nil {
		return fmt.Errorf("the dashboard stopped: %w", err)
	}
	return nil
}

// shownResults are the results of the runs shown when the dashboard ended, leaving out those
// of which no tick ran.
func (m *Model) shownResults() []report.Result {
	var out []report.Result
	for _, r := range m.results() {
		if len(r.Timeline) > 0 {
			out = append(out, r)
		}
	}
	return out
}
