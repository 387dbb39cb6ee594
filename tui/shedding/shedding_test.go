package shedding

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Asserts that the panel lists the classes highest priority first, marks the selected one,
// draws the floor between the classes above and under it, and, when too short for every class,
// keeps the selected one in view and counts the rows left out.
func TestShow(t *testing.T) {
	classes := []source.ClassMeta{{Name: "batch", Priority: 1}, {Name: "payment", Priority: 9}, {Name: "search", Priority: 5}}
	last := source.Snapshot{Cortex: &source.CortexView{Floor: 4}}
	for _, tc := range []struct {
		name      string
		h         int
		sel       int
		want      []string // in this order
		notWanted string
	}{
		{"all", 12, 0, []string{"payment", "search", "floor 4", "▸ batch"}, "more above"},
		{"scrolled", 5, 0, []string{"▸ batch", "3 more above, 0 below"}, "payment"},
		{"top", 5, 1, []string{"▸ payment", "0 more above, 3 below (k/j selects)"}, "batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(common.DefaultStyles())
			p.SetSize(60, tc.h)
			p.Show(View{Classes: classes, Selected: tc.sel, Last: last, Tick: 100 * time.Millisecond, Keys: "k/j"})
			v := p.View()
			at := 0
			for _, w := range tc.want {
				i := strings.Index(v[at:], w)
				if assert.GreaterOrEqual(t, i, 0, "%q after %d in\n%s", w, at, v) {
					at += i
				}
			}
			assert.NotContains(t, v, tc.notWanted)
		})
	}
}

// Asserts that the legend speaks only of the columns the header shows: a panel too narrow for
// the new-requests column says nothing of new requests (at 80x24 it read "new requests shed;
// retries admitted, ..." under "class pri share adm shed bud"), a wider one names them.
func TestLegendMatchesColumns(t *testing.T) {
	classes := []source.ClassMeta{{Name: "payment", Priority: 9}, {Name: "search", Priority: 4}}
	for _, tc := range []struct {
		w       int
		withNew bool
	}{{40, false}, {50, true}, {80, true}} {
		p := New(common.DefaultStyles())
		p.SetSize(tc.w, 10)
		p.Show(View{Classes: classes, Last: source.Snapshot{}, Tick: 100 * time.Millisecond, Keys: "k/j"})
		v := p.View()
		header := strings.Split(v, "\n")[1]
		assert.Equal(t, tc.withNew, strings.Contains(header, " new "), "width %d: %s", tc.w, header)
		assert.Equal(t, tc.withNew, strings.Contains(v, "new"), "width %d: the legend names new requests only under their column:\n%s", tc.w, v)
		assert.Contains(t, v, "admitted", "width %d", tc.w)
	}
}

// Asserts that the title keeps what it says whole at every width: the floor, and while new
// requests are shed their share, dropping the formula first ("Shedding  floor 1 =
// floor(CPS×10) …" was cut at 80x24, the share lost).
func TestTitleFits(t *testing.T) {
	classes := []source.ClassMeta{{Name: "payment", Priority: 9}, {Name: "search", Priority: 4}}
	cv := &source.CortexView{Floor: 1, Shedding: 3, ShedShare: 0.25, AdmitFloor: 9}
	for _, w := range []int{40, 60, 90} {
		p := New(common.DefaultStyles())
		p.SetSize(w, 10)
		p.Show(View{Classes: classes, Last: source.Snapshot{Cortex: cv}, Tick: 100 * time.Millisecond, Keys: "k/j"})
		title := strings.Split(p.View(), "\n")[0]
		assert.Contains(t, title, "floor 1", "width %d: %s", w, title)
		assert.Contains(t, title, "new 25% shed", "width %d: %s", w, title)
		assert.NotContains(t, title, "…", "width %d: %s", w, title)
	}
}
