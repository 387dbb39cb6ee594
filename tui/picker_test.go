package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// pickerFixture is a small catalog with distinctive names, summaries and stories.
func pickerFixture() []scenarios.Scenario {
	return []scenarios.Scenario{
		{Name: "black-friday", Summary: "a sale doubles the traffic", Story: "Shoppers arrive in waves. Watch the retries pile up.", Duration: 3 * time.Minute, Clients: 20, Seed: 1},
		{Name: "dns-crash", Summary: "the resolver blackholes every call", Story: "Every call hangs until its timeout. Zebras are calm.", Duration: 150 * time.Second, Clients: 10, Seed: 2},
		{Name: "food-delivery", Summary: "the dinner rush", Story: "Orders at seven. Priorities matter: payments first.", Duration: 45 * time.Second, Clients: 30, Seed: 3},
		{Name: "metastable", Summary: "a storm that outlives its trigger", Story: "The fault clears yet the load stays. Only shedding ends it.", Duration: 10 * time.Minute, Clients: 40, Seed: 4},
	}
}

// teaKey builds the key message Bubble Tea sends for a key written as in the key file.
func teaKey(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"backspace": tea.KeyBackspace, "ctrl+c": tea.KeyCtrlC,
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	if k == "space" {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press sends the space-separated keys to p and returns the message of the last command.
func press(p *picker, keys string) tea.Msg {
	var last tea.Msg
	for _, k := range strings.Fields(keys) {
		var cmd tea.Cmd
		p, cmd = p.Update(teaKey(k))
		last = nil
		if cmd != nil {
			last = cmd()
		}
	}
	return last
}

// plain is View without colours.
func plain(p *picker) string { return ansi.Strip(p.View()) }

// TestPickerKeys asserts what each key sequence emits: the picked scenario on enter (after
// moving, filtering or dropping the filter), a cancellation on esc only when cancellable, and
// nothing when the filter matches nothing.
func TestPickerKeys(t *testing.T) {
	items := pickerFixture()
	tests := []struct {
		name        string
		keys        string
		cancellable bool
		want        tea.Msg // nil: no command
	}{
		{"enter picks the first", "enter", false, pickedMsg{items[0]}},
		{"down moves", "down enter", false, pickedMsg{items[1]}},
		{"tab moves too", "tab tab enter", false, pickedMsg{items[2]}},
		{"down stops at the end", "down down down down down down enter", false, pickedMsg{items[3]}},
		{"up stops at the top", "up up enter", false, pickedMsg{items[0]}},
		{"right pages to the end", "right right right enter", false, pickedMsg{items[3]}},
		{"filter by name", "/ d n s enter", false, pickedMsg{items[1]}},
		{"filter by summary, case-insensitive", "/ D I N N E R enter", false, pickedMsg{items[2]}},
		{"filter keeps a matching highlight", "down down down / a enter", false, pickedMsg{items[3]}},
		{"filter, then move among matches only", "/ t h e down down down enter", false, pickedMsg{items[2]}},
		{"backspace edits the filter", "/ d n s backspace backspace backspace f o o enter", false, pickedMsg{items[2]}},
		{"filter typed with keys that are actions elsewhere", "/ q s enter", false, nil},
		{"no match: enter does nothing", "/ z z z enter", false, nil},
		{"esc drops the filter being typed", "/ m e t a esc enter", false, pickedMsg{items[3]}},
		{"esc drops an applied filter before cancelling", "/ m e t a down esc", true, nil},
		{"esc cancels when a scenario runs", "esc", true, pickCancelledMsg{}},
		{"esc does nothing on first start", "esc", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPicker(DefaultStyles(), keymap.Default(), items)
			p.SetCancellable(tt.cancellable)
			p.SetSize(100, 30)
			assert.Equal(t, tt.want, press(p, tt.keys))
		})
	}
}

// TestPickerFilteringCapturesKeys asserts that Filtering is true exactly while a filter is
// being typed, so the root model knows to route "q" and the other action keys to the picker.
func TestPickerFilteringCapturesKeys(t *testing.T) {
	tests := []struct {
		keys string
		want bool
	}{
		{"", false},
		{"/", true},
		{"/ q", true},
		{"/ q esc", false},
		{"/ a enter", false},
		{"/ a down", false},
	}
	for _, tt := range tests {
		t.Run(tt.keys, func(t *testing.T) {
			p := newPicker(DefaultStyles(), keymap.Default(), pickerFixture())
			p.SetSize(80, 24)
			press(p, tt.keys)
			assert.Equal(t, tt.want, p.Filtering())
		})
	}
}

// TestPickerRemappedKeys asserts that the picker obeys a remapped key file, and that its hint
// line shows the remapped keys.
func TestPickerRemappedKeys(t *testing.T) {
	km, err := keymap.Parse("keys.toml", []byte("select = [\"o\"]\nclass_down = [\"j\"]\nfilter = [\"f\"]"))
	require.NoError(t, err)
	items := pickerFixture()
	p := newPicker(DefaultStyles(), km, items)
	p.SetSize(100, 30)
	assert.Contains(t, plain(p), "o pick")
	assert.Contains(t, plain(p), "f filter")
	assert.Nil(t, press(p, "enter"), "enter is no longer bound")
	assert.Equal(t, pickedMsg{items[1]}, press(p, "j o"))
	assert.Equal(t, pickedMsg{items[3]}, press(p, "f m e t a o"))
}

// TestPickerStoryFollowsHighlight asserts that the story shown is the highlighted scenario's,
// beside the list when wide and below it when narrow, and that it changes with the highlight.
func TestPickerStoryFollowsHighlight(t *testing.T) {
	items := pickerFixture()
	for _, size := range [][2]int{{120, 30}, {60, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			p := newPicker(DefaultStyles(), keymap.Default(), items)
			p.SetSize(size[0], size[1])
			assert.Contains(t, plain(p), "Shoppers arrive")
			assert.NotContains(t, plain(p), "Zebras")
			press(p, "down")
			assert.Contains(t, plain(p), "Zebras are calm")
			assert.NotContains(t, plain(p), "Shoppers")
			press(p, "/ z z z")
			assert.Contains(t, plain(p), "No scenario matches the filter.")
		})
	}
}

// TestPickerWrapsStory asserts that a long story is word-wrapped to the story's width with no
// word lost, beside the list and below it.
func TestPickerWrapsStory(t *testing.T) {
	words := strings.Fields(strings.Repeat("retries amplify load when the service is already struggling ", 6))
	items := []scenarios.Scenario{{Name: "long", Summary: "long story", Story: strings.Join(words, " "), Clients: 1, Seed: 1}}
	for _, size := range [][2]int{{160, 40}, {50, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			p := newPicker(DefaultStyles(), keymap.Default(), items)
			p.SetSize(size[0], size[1])
			require.Greater(t, p.storyW, 0)
			story := ansi.Strip(p.story)
			for _, l := range strings.Split(story, "\n") {
				assert.LessOrEqual(t, ansi.StringWidth(l), p.storyW)
			}
			assert.Equal(t, words, strings.Fields(story)[len(strings.Fields(pickerFacts(items[0])))+1:],
				"every word of the story, in order, after the name and the facts")
		})
	}
}

// TestGoldenPicker asserts that the picker renders exactly as reviewed: side by side, stacked,
// tiny, while filtering and with no match (fixture scenarios, so catalog edits do not churn
// these files; `make golden` regenerates them).
func TestGoldenPicker(t *testing.T) {
	tests := []struct {
		name        string
		w, h        int
		keys        string
		cancellable bool
	}{
		{"wide_120x30", 120, 30, "down", false},
		{"wide_running_100x20", 100, 20, "", true},
		{"stacked_60x24", 60, 24, "down down", false},
		{"compact_40x10", 40, 10, "down down down", true},
		{"tiny_20x5", 20, 5, "", false},
		{"filtering_100x20", 100, 20, "/ t h e", false},
		{"filtered_100x20", 100, 20, "/ t h e down", false},
		{"no_match_60x20", 60, 20, "/ z z z", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPicker(DefaultStyles(), keymap.Default(), pickerFixture())
			p.SetCancellable(tt.cancellable)
			p.SetSize(tt.w, tt.h)
			press(p, tt.keys)
			golden.RequireEqual(t, p.View())
		})
	}
}

// TestPickerDuration asserts how a scenario's length is written for people.
func TestPickerDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0 s"},
		{45 * time.Second, "45 s"},
		{1500 * time.Millisecond, "2 s"},
		{time.Minute, "1 min"},
		{150 * time.Second, "2 min 30 s"},
		{90 * time.Minute, "90 min"},
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			assert.Equal(t, tt.want, pickerDuration(tt.d))
		})
	}
}

// TestPickerSizes asserts that the picker renders at every size from 0x0 to 250x80, browsing
// and filtering, without panicking and filling exactly its size.
func TestPickerSizes(t *testing.T) {
	widths := []int{0, 1, 2, 5, 10, 19, 20, 21, 30, 40, 60, 71, 72, 73, 80, 100, 120, 160, 200, 250}
	heights := []int{0, 1, 2, 3, 4, 5, 6, 8, 9, 11, 12, 13, 20, 24, 36, 48, 80}
	catalog := scenarios.Catalog()
	require.NotEmpty(t, catalog)
	for _, items := range [][]scenarios.Scenario{catalog, pickerFixture(), nil} {
		for _, keys := range []string{"", "down down down down down", "/ a", "/ z z z enter"} {
			p := newPicker(DefaultStyles(), keymap.Default(), items)
			press(p, keys)
			for _, w := range widths {
				for _, h := range heights {
					p.SetSize(w, h)
					press(p, "down")
					v := p.View()
					if w == 0 || h == 0 {
						assert.Empty(t, v, "%dx%d", w, h)
						continue
					}
					lines := strings.Split(v, "\n")
					if !assert.Len(t, lines, h, "%dx%d after %q", w, h, keys) {
						continue
					}
					for i, l := range lines {
						if ansi.StringWidth(l) != w {
							assert.Failf(t, "wrong width", "%dx%d after %q: line %d is %d wide", w, h, keys, i, ansi.StringWidth(l))
							break
						}
					}
				}
			}
		}
	}
}

// TestPickerShowsHighlightedItem asserts that the highlighted scenario stays visible when the
// cursor moves past the rows that fit.
func TestPickerShowsHighlightedItem(t *testing.T) {
	items := pickerFixture()
	tests := []struct {
		w, h  int
		downs int
	}{
		{30, 5, 3}, {30, 6, 2}, {100, 9, 3}, {20, 4, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d down x%d", tt.w, tt.h, tt.downs), func(t *testing.T) {
			p := newPicker(DefaultStyles(), keymap.Default(), items)
			p.SetSize(tt.w, tt.h)
			press(p, strings.TrimSpace(strings.Repeat("down ", tt.downs)))
			scn, ok := p.Selected()
			require.True(t, ok)
			assert.Contains(t, ansi.Strip(p.renderList()), "│ "+scn.Name[:min(len(scn.Name), tt.w-2)])
		})
	}
}

// TestPickerSelect asserts that Select highlights the named scenario and drops the filter.
func TestPickerSelect(t *testing.T) {
	items := pickerFixture()
	p := newPicker(DefaultStyles(), keymap.Default(), items)
	p.SetSize(80, 24)
	press(p, "/ d n s")
	p.Select("metastable")
	assert.False(t, p.Filtering())
	assert.Equal(t, pickedMsg{items[3]}, press(p, "enter"))
	p.Select("no-such-scenario")
	assert.Equal(t, pickedMsg{items[3]}, press(p, "enter"), "an unknown name keeps the highlight")
}

// BenchmarkPickerKey measures handling one key in the picker at 160x48: moving the highlight
// redraws the list, the story and the view.
func BenchmarkPickerKey(b *testing.B) {
	p := newPicker(DefaultStyles(), keymap.Default(), scenarios.Catalog())
	p.SetSize(160, 48)
	down, up := teaKey("down"), teaKey("up")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			p.Update(down)
		} else {
			p.Update(up)
		}
		i++
	}
}

// BenchmarkPickerView measures View at 160x48, called on every frame while the picker is open.
func BenchmarkPickerView(b *testing.B) {
	p := newPicker(DefaultStyles(), keymap.Default(), scenarios.Catalog())
	p.SetSize(160, 48)
	b.ReportAllocs()
	for b.Loop() {
		_ = p.View()
	}
}
