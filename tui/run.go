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
	p, _, err := newProgram(ctx, opts, teaSignals, tea.WithInput(in), tea.WithOutput(out))
	if err != nil {
		return err
	}
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
	if fm != nil {
		return fm.recordOnQuit()
	}
	return nil
}

// NewProgram returns the dashboard's program for opts, on the alternate screen, stopped at
// once when ctx is done, without Bubble Tea's signal handler, with the options popts (its input
// and output: tea.WithInput, tea.WithOutput), and its model. It is for a caller that runs the
// program itself, one per remote terminal (cortex-tui serve): once Run has returned, however
// it ended, Close releases the runs' sources. Run and RunContext are built on it.
func NewProgram(ctx context.Context, opts Options, popts ...tea.ProgramOption) (*tea.Program, *Model, error) {
	return newProgram(ctx, opts, false, popts...)
}

// newProgram is NewProgram that keeps Bubble Tea's own signal handler when teaSignals is set (Run).
func newProgram(ctx context.Context, opts Options, teaSignals bool, popts ...tea.ProgramOption) (*tea.Program, *Model, error) {
	if opts.Factory == nil {
		return nil, nil, errors.New("tui: Options.Factory is nil")
	}
	m := New(opts)
	all := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx)}, popts...)
	if !teaSignals {
		all = append(all, tea.WithoutSignalHandler())
	}
	return tea.NewProgram(m, all...), m, nil
}

// Close closes the sources of the runs the dashboard shows, even while an advance is in
// flight (a source is safe for concurrent use). Call it once the program has returned: a quit
// key has closed them already (closing twice is harmless), a cancelled context or a killed
// program has not.
func (m *Model) Close() {
	for _, r := range m.fr.runs {
		_ = r.src.Close()
	}
}

// shownResults are the results of the runs shown when the dashboard ended, leaving out those
// of which no tick ran.
func (m *Model) shownResults() []report.Result {
	var out []report.Result
	all := m.results()
	m.bounds()(all)
	for _, r := range all {
		if len(r.Timeline) > 0 {
			out = append(out, r)
		}
	}
	return out
}
