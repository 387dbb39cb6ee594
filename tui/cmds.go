package tui

import (
	"fmt"
	"runtime/debug"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/source"
)

// tick schedules the next step of the tick loop tagged tag.
func tick(tag int) tea.Cmd {
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return tickMsg{tag: tag} })
}

// advance moves every source forward by d off the Update loop and returns their snapshots. A
// panic in a source is recovered and reported in the message, so the terminal is never left raw.
func advance(srcs []source.Source, d time.Duration, gen int) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = advancedMsg{gen: gen, err: fmt.Errorf("the simulation panicked: %v\n%s", r, debug.Stack())}
			}
		}()
		out := make([][]source.Snapshot, len(srcs))
		for i, s := range srcs {
			out[i] = s.Advance(d)
		}
		return advancedMsg{gen: gen, snaps: out}
	}
}

// export writes the timelines of the given runs off the Update loop.
func export(jobs []exportJob, dir string) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = exportedMsg{err: fmt.Errorf("export panicked: %v", r)}
			}
		}()
		var paths []string
		for _, j := range jobs {
			p, err := j.write(dir)
			if err != nil {
				return exportedMsg{paths: paths, err: err}
			}
			paths = append(paths, p...)
		}
		return exportedMsg{paths: paths}
	}
}
