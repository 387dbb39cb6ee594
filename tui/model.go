// Package tui is the cortex-tui dashboard: a Bubble Tea program that watches one run of a
// source.Source (or two side by side) and sends the user's controls back to it. The root model
// routes messages; each panel (header, caption, signals, CPS, queue, traffic, shedding,
// decisions, events, footer and help, picker, strategy menu, inspector, compare's figures,
// summary, and the collapsed layout of a small window) is a component package under tui/ that
// draws itself once per data frame and caches the string, so View only joins cached strings.
// The layout table (layout.go) builds every panel but the picker and the footer, and says
// where each screen shows it, through the cells of cells.go that hand each panel what the
// frame holds for it; the root model sizes, redraws and joins panels through the table and the
// panel interface (panel.go).
//
// The simulation advances in a tea.Cmd, never in Update or View; ticks carry a tag so pausing,
// resuming or changing speed never starts a second tick loop, and a paused dashboard schedules
// no tick at all. Histories are bounded, so memory stays flat over long runs. Text from files
// (scenario names, stories, class names, notes) is made inert once, where it enters (safe.go),
// so panels draw nothing a terminal would act on. The package depends on source, engine,
// scenarios, strategy, report, keymap and internal/safetext only; it builds new sources through
// the SourceFactory it is given.
package tui

import (
	"sync/atomic"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/classroom"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/export"
	"github.com/cortex-tui/cortex-tui/tui/footer"
	"github.com/cortex-tui/cortex-tui/tui/inspector"
	"github.com/cortex-tui/cortex-tui/tui/picker"
	"github.com/cortex-tui/cortex-tui/tui/strategymenu"
	"github.com/cortex-tui/cortex-tui/tui/summary"
)

// SourceFactory builds a source for a scenario, a strategy name and a seed. The dashboard uses it
// for the picker, the strategy switch and compare mode, so it never imports the simulator.
type SourceFactory func(scn scenarios.Scenario, strategy string, seed int64) (source.Source, error)

// Options configure the dashboard. The zero value is not usable: Factory is required.
type Options struct {
	Keys      keymap.KeyMap       // key bindings (keymap.Default() or loaded from the key file)
	Factory   SourceFactory       // builds sources; required
	Scenario  *scenarios.Scenario // nil: open on the scenario picker
	Strategy  string              // "" = cortex
	Seed      int64               // 0 = the scenario's own
	ExportDir string              // where `e` writes ("" = current directory)
	Lesson    *scenarios.Lesson   // the lesson to follow over Scenario (its own), nil for none
	Guided    bool                // pause at each caption (and each lesson step) until a key is pressed
	// LessonDone is called, off the Update loop, with the lesson's name when it is completed
	// (the command saves the learner's progress); its error is shown in the footer.
	LessonDone func(name string) error
	// LessonsDone names the lessons the learner completed before (the picker marks them ✓).
	LessonsDone map[string]bool
	// Lessons opens the picker (Scenario nil) on its lessons, the first one not completed
	// highlighted (cortex-tui learn).
	Lessons bool
	// OnQuit, when set, is called once the dashboard has ended and restored the terminal, with
	// the result of every run it showed at the end (both sides of compare; none when no tick
	// had run), as the export writes them: the command prints them, so that quitting never
	// loses a run's numbers.
	OnQuit func(results []report.Result)
	// Oracle, when set, gives a finished simulated run's export and OnQuit's result the
	// oracle's bound, as run --headless prints it (the command passes the simulator's); nil:
	// none (a live run never has one).
	Oracle OracleFunc
	// Renderer renders every style: its colour profile (none under NO_COLOR) and its dark or
	// light background decide the colours. nil: lipgloss's default renderer, the process's own
	// terminal. A server that draws one dashboard per remote terminal in one process gives
	// each its own (cortex-tui serve).
	Renderer *lipgloss.Renderer
	// Scenarios are the scenarios the picker offers; nil: the built-in catalog.
	Scenarios []scenarios.Scenario
	// NoExport turns the export key off (the footer says so): a dashboard served to a remote
	// terminal writes no file where it runs.
	NoExport bool
	// CompareFactory, when set, builds the right side of compare mode: cortex against cortex
	// built by it, on the same arrivals and seed (run --compare-engine: another engine
	// configuration). nil: compare puts cortex against the current strategy, both from Factory.
	CompareFactory SourceFactory
	// Compare opens the dashboard in compare mode (with Scenario).
	Compare bool
	// StartAt fast-forwards the runs by this much virtual time before the first frame
	// (run --start-at); 0 starts at the beginning.
	StartAt time.Duration
	// Present opens the dashboard in presenter mode, the traffic chart large (run --present);
	// the present key goes on from there. false: the dashboard.
	Present bool
	// Record is where the record key writes the run as played (replacing the file), and where
	// it is written when the dashboard ends (run --record); "": the record key writes beside
	// the exports under a new name, and nothing is written at the end.
	Record string
	// Class makes the dashboard part of a class (cortex-tui serve --class): the teacher's
	// drives the class run, a student's follows it (class.go). nil: a dashboard of its own.
	Class Class
}

// speeds are the selectable speed factors (virtual seconds per wall second).
var speeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64}

// defaultSpeed is the index of x1 in speeds.
const defaultSpeed = 2

// The steps of the tuning keys (the values the fault keys inject are in the table of fault
// kinds, scenarios.FaultSpec.Inject).
const (
	weightStep     = 0.05 // raw weight change per key press, before renormalising
	shareStep      = 0.25 // class share change per key press
	maxShare       = 5.0  // largest class share
	maxPriority    = 10
	compareDefault = "naive" // the strategy compared with cortex by default
)

// screen is what fills the window.
type screen int

const (
	screenPicker screen = iota
	screenDashboard
	screenSummary
)

// Model is the dashboard's root model. Build it with New; it implements tea.Model with a
// pointer receiver. It is driven by the Bubble Tea loop and not safe for concurrent use.
type Model struct {
	st   common.Styles
	keys keymap.KeyMap
	opts Options

	width, height int
	screen        screen
	showHelp      bool
	inspecting    bool // the decision inspector shows (over the dashboard or the summary)

	scn      *scenarios.Scenario
	fr       frame
	class    *classroom.State // the dashboard's part in a class, nil for none
	speedIdx int
	tag      int         // current tick-loop tag
	ctl      *controller // the runs' sources, and the controls waiting for them
	injected map[scenarios.FaultKind]bool

	picker   *picker.Model       // the scenario picker, drawn alone over the whole window
	insp     *inspector.Model    // the decision inspector, placed by the layout table
	menu     *strategymenu.Model // the strategy menu, placed by the layout table
	menuOwns bool                // the menu paused the run when it opened: closing it resumes
	footer   *footer.Model       // the status line and short help, under every screen
	layouts  [numLayouts][]row   // every other panel, by screen: the layout table (layout.go)
	body     string              // the composed screen above the footer, cached
	bindings []binding
	// laidCortex is whether the layout was last laid out for a strategy with a CPS: the full
	// layout's top band differs without one (frame.bands), so a switch lays it out again.
	laidCortex bool
	// composed counts the bodies composed: the frames drawn (Frames).
	composed atomic.Int64
}

// binding ties a key to what it does on the dashboard: do, or with no do, whatever the
// panels of the current screen do with it (the event log's own keys).
type binding struct {
	keys *key.Binding
	do   func() tea.Cmd
}

// New returns the dashboard model for opts. It opens on opts.Scenario, or on the picker when
// it is nil. A factory error is shown in the footer, not returned.
func New(opts Options) *Model {
	r := opts.Renderer
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	st := common.NewStyles(r)
	m := &Model{
		st: st, keys: opts.Keys, opts: opts, speedIdx: defaultSpeed,
		injected: map[scenarios.FaultKind]bool{},
		footer:   footer.New(st, opts.Keys),
		insp:     inspector.New(st, opts.Keys),
		menu:     strategymenu.New(st, opts.Keys),
	}
	m.ctl = &controller{factory: opts.Factory, fr: &m.fr}
	m.layouts = newLayouts(st, opts.Keys, m.insp, m.menu, &m.fr)
	m.fr.speed = speeds[m.speedIdx]
	m.fr.keys = &m.keys
	m.bindings = m.dashboardBindings()
	catalog := opts.Scenarios
	if catalog == nil {
		catalog = scenarios.Catalog()
	}
	m.picker = picker.New(st, opts.Keys, catalog)
	m.picker.AddLessons(scenarios.Lessons(), opts.LessonsDone)
	m.picker.SetCancellable(false)
	if opts.Lessons {
		m.picker.SelectLessons()
	}
	m.screen = screenPicker
	joined := false // a class's run, or a student waiting for one
	if opts.Class != nil {
		m.class = classroom.New(opts.Class)
		m.fr.class = m.class
		if run, ok := opts.Class.Join(); ok {
			m.follow(run)
			joined = true
		} else if !m.class.Teacher() {
			m.joinClass()
			joined = true
		}
	}
	if !joined && opts.Scenario != nil {
		m.open(*opts.Scenario, opts.Strategy, opts.Seed)
		if opts.Compare && len(m.fr.runs) == 1 {
			m.toggleCompare()
		}
		if opts.Lesson != nil && len(m.fr.runs) > 0 {
			m.fr.lesson = newLessonRun(*opts.Lesson, m.fr.runs[0].meta)
		}
	}
	m.resize(80, 24)
	m.startAt(opts.StartAt)
	if opts.Present && len(m.fr.runs) > 0 && m.fr.present == presentOff {
		m.togglePresent()
	}
	m.drive()
	return m
}

// startAt fast-forwards every run by d of its own time before the first frame (run
// --start-at): the snapshots go into the histories and recorders as if watched, so the charts
// show the past and the export holds it; the same seed gives the same screen at d. Nothing for
// d <= 0.
func (m *Model) startAt(d time.Duration) {
	if d <= 0 || len(m.fr.runs) == 0 {
		return
	}
	snaps := make([][]source.Snapshot, len(m.fr.runs))
	for i, r := range m.fr.runs {
		snaps[i] = r.src.Advance(d)
	}
	m.apply(snaps)
	if m.done() {
		m.screen = screenSummary
	}
	m.redraw()
}

// Init starts the tick loop (a no-op on the picker).
func (m *Model) Init() tea.Cmd { return m.kick() }

// Update routes a message: window size, keys, the tick loop, results of commands, and the rest
// to the picker.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	defer m.drive()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.KeyMsg:
		return m, m.onKey(msg)
	case tickMsg:
		return m, m.onTick(msg)
	case advancedMsg:
		return m, m.onAdvanced(msg)
	case export.TimelinesMsg:
		m.onExported(msg)
		return m, nil
	case export.RecordedMsg:
		m.onRecorded(msg)
		return m, nil
	case export.PicturedMsg:
		m.onPictured(msg)
		return m, nil
	case lessonSavedMsg:
		m.onLessonSaved(msg)
		return m, nil
	case summary.BaselinesMsg:
		m.onBaselines(msg)
		return m, nil
	case ClassMsg:
		return m, m.onClassMsg(msg)
	case classroom.ForkedMsg:
		return m, m.onForked(msg)
	}
	if cmd, ok := m.pickerMsg(msg); ok {
		return m, cmd
	}
	return m, nil
}

// View joins the cached body and footer.
func (m *Model) View() string {
	if m.screen == screenPicker && !m.showHelp {
		if m.footer.Status() != "" {
			return m.picker.View() + "\n" + m.footer.View()
		}
		return m.picker.View()
	}
	return m.body + "\n" + m.footer.View()
}

// Frames returns how many frames the dashboard has drawn: the times it composed its screen
// from its panels (a View that only joins the cached strings is not one). It is safe for
// concurrent use: a server counts the frames of the dashboards it serves.
func (m *Model) Frames() int64 { return m.composed.Load() }

// onKey handles a key press: quit and help everywhere, then the current screen's keys.
func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	if m.screen == screenPicker && !m.showHelp {
		// While a filter is typed, printable keys belong to it ("q" is a letter of a name);
		// a quit key that is not a printable rune (ctrl+c) still quits.
		if key.Matches(msg, m.keys.Quit) && (!m.picker.Filtering() || msg.Type != tea.KeyRunes) {
			return m.quit()
		}
		m.clearStatus()
		var cmd tea.Cmd
		m.picker, cmd = m.picker.Update(msg)
		return cmd
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		return m.eachRune(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m.quit()
	case key.Matches(msg, m.keys.Help):
		m.showHelp = !m.showHelp
		m.redraw()
		return nil
	case m.showHelp:
		return m.onHelpKey(msg)
	case m.inspecting:
		return m.onInspectKey(msg)
	case m.menu.Opened():
		return m.onMenuKey(msg)
	case m.screen == screenSummary && key.Matches(msg, m.keys.Back, m.keys.Select):
		m.screen = screenDashboard
		m.redraw()
		return nil
	}
	if m.following() && m.drivesRun(msg) {
		return m.refuseDriving()
	}
	for _, b := range m.bindings {
		if key.Matches(msg, *b.keys) {
			m.clearStatus()
			if b.do == nil {
				cmd := m.update(msg)
				m.compose()
				return cmd
			}
			return b.do()
		}
	}
	return nil
}

// onHelpKey closes the full help (esc) or hands the key to it (up and down scroll it).
func (m *Model) onHelpKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Back) {
		m.showHelp = false
		m.redraw()
		return nil
	}
	cmd := m.update(msg)
	m.compose()
	return cmd
}

// eachRune handles keys typed faster than the terminal is read ("+++" arrives as one message)
// one at a time, as if typed slowly.
func (m *Model) eachRune(msg tea.KeyMsg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(msg.Runes))
	for _, r := range msg.Runes {
		cmds = append(cmds, m.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

// dashboardBindings lists the dashboard's keys and their actions (help text is in keymap):
// those of the run itself here and in actions.go, those that control its sources in
// controls.go.
func (m *Model) dashboardBindings() []binding {
	k := &m.keys
	bs := []binding{
		{&k.Pause, m.togglePause}, {&k.Step, m.stepOnce}, {&k.Faster, m.faster}, {&k.Slower, m.slower},
		{&k.Restart, m.restart}, {&k.Load, m.openPicker}, {&k.Compare, m.toggleCompare},
		{&k.Export, m.export}, {&k.Record, m.record}, {&k.Present, m.togglePresent}, {&k.Picture, m.picture}, {&k.Inspect, m.inspect},
		{&k.LogUp, nil}, {&k.LogDown, nil}, {&k.LogFilter, nil},
		{&k.Hint, m.toggleHint}, {&k.Fork, m.forkOrRejoin}, {&k.NextStep, m.nextStep},
	}
	return append(bs, m.controlBindings()...)
}

// quit closes the sources and ends the program.
func (m *Model) quit() tea.Cmd {
	m.ctl.closeAll()
	return tea.Quit
}

// open starts watching scn with strategy (""= cortex) and seed (0 = the scenario's own).
func (m *Model) open(scn scenarios.Scenario, strat string, seed int64) {
	if strat == "" {
		strat = "cortex"
	}
	if seed == 0 {
		seed = scn.Seed
	}
	src, err := m.ctl.build(scn, strat, seed)
	if err != nil {
		m.setStatus(err.Error(), true)
		return
	}
	m.ctl.closeAll()
	if m.fr.lesson != nil && m.fr.lesson.tr.Lesson().Scenario != scn.Name {
		m.fr.lesson = nil // another scenario: the lesson is left, and its panel's row
		defer m.layout()
	}
	m.scn = &scn
	m.setRuns(newRun(src))
	m.screen = screenDashboard
}

// setRuns replaces the runs, resets the controls to the first run's configuration and redraws.
func (m *Model) setRuns(runs ...*run) {
	m.ctl.set(runs...)
	m.resetControls()
	m.layout() // a run in a fleet gets the fleet panel (fleetW)
	m.redraw()
}

// resetControls takes weights, adaptive and classes from the first run, as the source has them.
func (m *Model) resetControls() {
	clear(m.injected)
	m.fr.weights = engine.DefaultWeights().Array() // shown until the first snapshot
	m.fr.adaptive = false
	m.fr.classes = nil
	if len(m.fr.runs) == 0 {
		return
	}
	m.fr.classes = append([]source.ClassMeta(nil), m.fr.runs[0].meta.Classes...)
	m.fr.selClass = min(m.fr.selClass, max(len(m.fr.classes)-1, 0))
}

// done reports whether every run is over.
func (m *Model) done() bool { return m.ctl.done() }
