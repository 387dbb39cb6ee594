package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/footer"
	"github.com/cortex-tui/cortex-tui/tui/inspector"
	"github.com/cortex-tui/cortex-tui/tui/internal/tuitest"
	"github.com/cortex-tui/cortex-tui/tui/strategymenu"
)

// Asserts that every screen (dashboard, compare, summary, help, picker) renders at every size
// of the sweep without panicking, exactly filling the window, and says so when it is small.
func TestSizeSweepWholeScreen(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	screens := []struct {
		name  string
		setup func(m *Model)
	}{
		{"dashboard", func(m *Model) { fastForward(m, 5) }},
		{"compare", func(m *Model) { m.Update(keyMsg("c")); fastForward(m, 5) }},
		{"summary", func(m *Model) { m.setSpeed(len(speeds) - 1); advanceFrames(m, 20) }},
		{"help", func(m *Model) { m.Update(keyMsg("?")) }},
		{"picker", func(m *Model) { m.Update(keyMsg("l")) }},
		{"naive", func(m *Model) { m.Update(keyMsg("s")); m.Update(keyMsg("s")); fastForward(m, 5) }}, // cortex -> cortex-article -> naive
	}
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			m, _ := newTestModel(t, 140, 40, "cortex")
			sc.setup(m)
			for _, sz := range tuitest.SweepSizes() {
				w, h := sz[0], sz[1]
				require.NotPanics(t, func() { m.Update(tea.WindowSizeMsg{Width: w, Height: h}) }, "%dx%d", w, h)
				tuitest.CheckExact(t, m.View(), w, h, sc.name)
				if sc.name == "dashboard" && (w < minFullW || h < minFullH) && h >= 2 && w >= 40 {
					assert.Contains(t, m.View(), "small window", "%dx%d", w, h)
				}
			}
		})
	}
}

// Asserts that every panel of the layout table (every screen's) and the footer render at every
// size from 0x0 to 250x80 (including sizes too small for a border or a chart) without panicking
// and exactly at their size.
func TestSizeSweepPanels(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	m, _ := newTestModel(t, 140, 40, "cortex")
	fastForward(m, 5)
	m.Update(keyMsg("c"))
	fastForward(m, 5)
	f := m.frameMsg()
	panels := []panel{mount(footerCell{footer.New(common.DefaultStyles(), testKeys())})}
	insp := inspector.New(common.DefaultStyles(), testKeys())
	insp.Open(fakeDecisions(), "cortex")
	menu := strategymenu.New(common.DefaultStyles(), testKeys())
	menu.Open("cortex")
	for _, rows := range newLayouts(common.DefaultStyles(), testKeys(), insp, menu, f.f) { // fresh panels, not the model's
		for _, r := range rows {
			for _, c := range r.cells {
				if !slices.Contains(panels, c.p) {
					panels = append(panels, c.p)
				}
			}
		}
	}
	require.Greater(t, len(panels), 10, "the footer and the table's panels")
	for _, p := range panels {
		name := strings.TrimPrefix(fmt.Sprintf("%T", p), "*tui.mounted")
		t.Run(name, func(t *testing.T) {
			for w := 0; w <= 250; w += 23 {
				for h := 0; h <= 80; h += 7 {
					require.NotPanics(t, func() { p.SetSize(w, h); p.Update(f) }, "%dx%d", w, h)
					if w == 0 || h == 0 {
						assert.Empty(t, p.View(), "%dx%d", w, h)
						continue
					}
					tuitest.CheckExact(t, p.View(), w, h, name)
				}
			}
		})
	}
}

// footerCell is the footer as a panel of the size sweep: a redraw shows the frame's runs.
type footerCell struct{ *footer.Model }

// Update redraws the footer on a frame message.
func (c footerCell) Update(msg tea.Msg) (footerCell, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok {
		c.Show(len(f.f.runs) > 0 && f.f.runs[0].meta.Live, false)
	}
	return c, nil
}
