package roster

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/internal/tuitest"
)

// TestMain runs the tests without colour (tuitest.Main).
func TestMain(m *testing.M) { tuitest.Main(m) }

// class returns a teacher and n students called s00.., every third forked.
func class(n int) []Member {
	out := []Member{{Name: "teacher", State: Teacher}}
	for i := range n {
		st := Following
		if i%3 == 2 {
			st = Forked
		}
		out = append(out, Member{Name: fmt.Sprintf("s%02d", i), State: st, Done: i % 4})
	}
	return out
}

// Asserts what the roster shows: the students only (never the teacher), counted by state in
// its title, each with a glyph and the lessons completed; a class too big for its lines
// counts the rest ("+N more"); a name too long is cut; none says so.
func TestShow(t *testing.T) {
	tests := []struct {
		name    string
		members []Member
		w       int
		want    []string
		notWant []string
	}{
		{"none", class(0), 60, []string{"Class · 0 connected", "no student connected yet"}, []string{"teacher"}},
		{"three", class(3), 60, []string{"Class · 3 connected: 2 following, 1 forked", "● s00 0/5", "● s01 1/5", "◐ s02 2/5"}, []string{"teacher", "more"}},
		{"waiting", append(class(1), Member{Name: "late", State: Waiting}), 60, []string{"1 following, 0 forked, 1 waiting", "○ late"}, nil},
		{"sixty", class(60), 60, []string{"Class · 60 connected: 40 following, 20 forked", "+52 more"}, []string{"s59"}},
		{"long name", []Member{{Name: strings.Repeat("x", 40)}}, 60, []string{strings.Repeat("x", 10) + "…"}, []string{strings.Repeat("x", 40)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(common.DefaultStyles())
			h := Lines(tt.members, tt.w) + 2
			p.SetSize(tt.w, h)
			p.Show(tt.members, 5)
			v := p.View()
			assert.Equal(t, h, lipgloss.Height(v), v)
			assert.LessOrEqual(t, lipgloss.Width(v), tt.w, v)
			for _, s := range tt.want {
				assert.Contains(t, v, s)
			}
			for _, s := range tt.notWant {
				assert.NotContains(t, v, s)
			}
		})
	}
}

// Asserts that the roster takes one line for a few students, more as the class grows, and
// never more than MaxLines.
func TestLines(t *testing.T) {
	assert.Equal(t, 1, Lines(class(0), 100))
	assert.Equal(t, 1, Lines(class(3), 100))
	assert.Equal(t, 2, Lines(class(12), 100))
	assert.Equal(t, MaxLines, Lines(class(60), 100))
}
