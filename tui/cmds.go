package tui

import (
	"fmt"
	"runtime/debug"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
)

// tick schedules the next step of the tick loop tagged tag.
func tick(tag int) tea.Cmd {
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return tickMsg{tag: tag} })
}

// frameBudget is the wall-clock time an advance command may spend stepping the sources before
// it returns what it has; maxFrameTicks is the most ticks it steps, whatever the time. The
// virtual time of the frame left over is dropped: a run too heavy for the speed asked for
// runs slower than asked (the header says "slowed") instead of falling further behind, and a
// frame never brings Update more than maxFrameTicks snapshots to take in.
const (
	frameBudget   = 50 * time.Millisecond
	maxFrameTicks = 1000
)

// newFrameBudget returns the check an advance command makes before each step but the first:
// may it step again, after steps steps? A variable: the tests of this package make it count
// steps only (TestMain), so that a slow machine never changes what a frame holds.
var newFrameBudget = func() func(steps int) bool { return frameBudgetFrom(engine.WallClock{}) }

// frameBudgetFrom is the budget of a frame starting now, on clock: steps until
// maxFrameTicks or until frameBudget has passed, whichever comes first.
func frameBudgetFrom(clock engine.Clock) func(steps int) bool {
	deadline := clock.Now().Add(frameBudget)
	return func(steps int) bool { return steps < maxFrameTicks && clock.Now().Before(deadline) }
}

// advance moves every source forward by d off the Update loop, in steps of at most one tick
// (every source by the same step, so compare's two runs stay together), and returns their
// snapshots. It stops early, with slowed set, when the frame's budget is spent (and sets slowed
// when its last step overran the budget): one frame
// costs at most frameBudget plus one tick of the scenario, and at most maxFrameTicks ticks.
// Each step is its own call to Advance, so a source's lock is held for one tick at a time. A
// panic in a source is recovered and reported in the message, so the terminal is never left
// raw.
func advance(srcs []source.Source, d, tick time.Duration, gen int) tea.Cmd {
	return advanceUntil(srcs, d, tick, gen, nil)
}

// advanceUntil is advance that, with stop set (guided mode), also ends the frame after a step
// whose last snapshot of the first source stop accepts (a caption began), so the run pauses on
// it at any speed rather than up to a frame later; the rest of the frame's time is dropped.
func advanceUntil(srcs []source.Source, d, tick time.Duration, gen int, stop func(source.Snapshot) bool) tea.Cmd {
	more := newFrameBudget()
	if tick <= 0 { // a source without ticks: one step
		tick = max(d, 1)
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = advancedMsg{gen: gen, err: fmt.Errorf("the simulation panicked: %v\n%s", r, debug.Stack())}
			}
		}()
		out := make([][]source.Snapshot, len(srcs))
		steps := 0
		for done := time.Duration(0); done < d; steps++ {
			if steps > 0 && !more(steps) {
				return advancedMsg{gen: gen, snaps: out, slowed: true}
			}
			step := min(tick, d-done)
			for i, s := range srcs {
				out[i] = append(out[i], s.Advance(step)...)
			}
			done += step
			if stop != nil && len(out[0]) > 0 && stop(out[0][len(out[0])-1]) {
				break
			}
		}
		// A frame whose ticks took longer than its budget is slowed too, even when it did
		// all its virtual time (one tick of a heavy scenario at x1): more(0) asks the clock alone.
		return advancedMsg{gen: gen, snaps: out, slowed: !more(0)}
	}
}
