package tui

import (
	"time"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/classroom"
	"github.com/cortex-tui/cortex-tui/tui/summary"
)

// tickMsg asks for the next simulation step. Its tag must equal the model's current tag, so
// that a pause, a resume or a speed change can never leave two tick loops running.
type tickMsg struct{ tag int }

// advancedMsg carries the snapshots produced by one advance command, one slice per run (two in
// compare mode). gen is the model's generation when the command started: snapshots of an older
// generation (before a restart or a new scenario) are dropped.
type advancedMsg struct {
	gen    int
	snaps  [][]source.Snapshot
	slowed bool  // the frame's budget ran out before its virtual time: the run is slower than asked
	err    error // set when the advance panicked (recovered)
}

// frameMsg tells the panels that what they show changed; each redraws its cached string. With
// only zero it is a full redraw (new data, a resize, another screen) and every panel redraws;
// otherwise a key changed only what only names, and only the panels that show it redraw, so a
// key press never redraws a chart.
type frameMsg struct {
	f    *frame
	only change
}

// change is a set of the things a key changes without new data.
type change uint8

const (
	changedPlay    change = 1 << iota // speed, pause or slowed: the header
	changedWeights                    // the weights, their selection, adaptive: signals, the collapsed layout
	changedClasses                    // a class's share or priority, the class selection: shedding
	changedLog                        // the event log (a control was logged): the event logs
	changedRoster                     // the class's roster (the teacher's): the roster, the header
)

// shows reports whether a panel that shows c redraws on m: on a full redraw, or when c changed.
func (m frameMsg) shows(c change) bool { return m.only == 0 || m.only&c != 0 }

// full reports whether m is a full redraw: panels that show the runs' data alone redraw only then.
func (m frameMsg) full() bool { return m.only == 0 }

// frame is everything the panels draw: the runs and the user's current selections. The root
// model owns it; panels read it during Update only.
type frame struct {
	runs      []*run
	weights   [5]float64 // CORTEX weights of F L Q B C as last set or seen (normalised)
	adaptive  bool       // adaptive weights on
	classes   []source.ClassMeta
	selWeight int // 0..4: F L Q B C
	selClass  int // index into classes
	paused    bool
	speed     float64
	slowed    bool               // the last frame ran out of time: the run goes slower than speed
	small     bool               // the window is below the full layout's minimum
	present   presentMode        // presenter mode: one chart large, or off
	width     int                // the window's width in cells
	height    int                // the window's height in cells
	keys      *keymap.KeyMap     // the bindings, for texts that name a key
	lesson    *lessonRun         // the lesson followed over the first run, nil for none
	class     *classroom.State   // the dashboard's part in a class, nil for none
	baseline  *summary.Baselines // the baseline runs of the summary, nil until asked for

}

// frameInterval is the wall-clock time between two simulation steps: at most 10 redraws a second.
const frameInterval = 100 * time.Millisecond

// keyMap returns the frame's bindings, or the default ones when it has none (a panel drawn
// alone in a test).
func (f *frame) keyMap() keymap.KeyMap {
	if f.keys == nil {
		return keymap.Default()
	}
	return *f.keys
}
