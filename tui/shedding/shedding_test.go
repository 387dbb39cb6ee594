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
