package tui

import (
	"errors"
	"fmt"
	"io"

	tea "github.com/charmbracelet/bubbletea"
)

// Run opens the dashboard on the alternate screen, reading keys from in and drawing to out, and
// returns when the user quits. Bubble Tea's panic handler stays on: a panic in Update or View
// restores the terminal before Run returns the error, and the commands of this package recover
// their own panics and report them in the footer.
func Run(opts Options, in io.Reader, out io.Writer) (err error) {
	if opts.Factory == nil {
		return errors.New("tui: Options.Factory is nil")
	}
	m := New(opts)
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithAltScreen())
	defer func() {
		if r := recover(); r != nil {
			p.Kill()
			err = fmt.Errorf("the dashboard panicked: %v", r)
		}
	}()
	if _, err := p.Run(); err != nil {
		return fmt.Errorf("the dashboard stopped: %w", err)
	}
	return nil
}
