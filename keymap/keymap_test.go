package keymap

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// snakeCase turns a Go field name into its key-file spelling (NextWeight -> next_weight).
func snakeCase(field string) string {
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// bindingsByName returns every binding of km keyed by its key-file name, found by reflection
// so that a field missing from the actions table is caught; the fault bindings (Fault[i]) are
// named by the Binding of row i of the table of fault kinds, those without one left out.
func bindingsByName(t *testing.T, km KeyMap) map[string]key.Binding {
	t.Helper()
	v := reflect.ValueOf(km)
	out := map[string]key.Binding{}
	for i := range v.NumField() {
		if v.Type().Field(i).Name == "Fault" {
			for j, spec := range scenarios.FaultSpecs() {
				if spec.Binding != "" {
					out[spec.Binding] = km.Fault[j]
				}
			}
			continue
		}
		b, ok := v.Field(i).Interface().(key.Binding)
		require.True(t, ok, "field %s is not a key.Binding", v.Type().Field(i).Name)
		out[snakeCase(v.Type().Field(i).Name)] = b
	}
	return out
}

// TestDefaultBindsEveryField asserts that every KeyMap field has keys and help text, and that
// the actions table names each field by its snake_case name.
func TestDefaultBindsEveryField(t *testing.T) {
	byName := bindingsByName(t, Default())
	require.Len(t, actions, len(byName), "the actions table and the KeyMap fields differ in number")
	for _, a := range actions {
		b, ok := byName[a.name]
		if !assert.True(t, ok, "action %q names no KeyMap field", a.name) {
			continue
		}
		assert.Equal(t, a.keys, b.Keys(), a.name)
		assert.NotEmpty(t, b.Help().Key, a.name)
		assert.NotEmpty(t, b.Help().Desc, a.name)
		assert.True(t, b.Enabled(), a.name)
	}
}

// TestDefaultNoSharedKeys asserts that no two default bindings share a key.
func TestDefaultNoSharedKeys(t *testing.T) {
	owner := map[string]string{}
	for name, b := range bindingsByName(t, Default()) {
		for _, k := range b.Keys() {
			other, taken := owner[k]
			assert.False(t, taken, "key %q is bound to both %s and %s", k, other, name)
			owner[k] = name
		}
	}
}

// TestDefaultMatchesTeaKeys asserts that the default bindings match the key messages Bubble
// Tea actually sends for the keys in the spec's table.
func TestDefaultMatchesTeaKeys(t *testing.T) {
	km := Default()
	tests := []struct {
		msg  tea.KeyMsg
		want key.Binding
	}{
		{tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}, km.Pause},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'.'}}, km.Step},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'+'}}, km.Faster},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'-'}}, km.Slower},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'1'}}, km.Fault[scenarios.FaultOutage.Index()]},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'0'}}, km.ClearFaults},
		{tea.KeyMsg{Type: tea.KeyTab}, km.NextWeight},
		{tea.KeyMsg{Type: tea.KeyShiftTab}, km.PrevWeight},
		{tea.KeyMsg{Type: tea.KeyLeft}, km.LowerWeight},
		{tea.KeyMsg{Type: tea.KeyRight}, km.RaiseWeight},
		{tea.KeyMsg{Type: tea.KeyUp}, km.ClassUp},
		{tea.KeyMsg{Type: tea.KeyDown}, km.ClassDown},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'['}}, km.ShareDown},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{']'}}, km.ShareUp},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'{'}}, km.PriorityDown},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'}'}}, km.PriorityUp},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'?'}}, km.Help},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'q'}}, km.Quit},
		{tea.KeyMsg{Type: tea.KeyCtrlC}, km.Quit},
		{tea.KeyMsg{Type: tea.KeyEnter}, km.Select},
		{tea.KeyMsg{Type: tea.KeyEsc}, km.Back},
	}
	for _, tt := range tests {
		t.Run(tt.msg.String(), func(t *testing.T) {
			assert.True(t, key.Matches(tt.msg, tt.want), "%q should match %s", tt.msg.String(), tt.want.Help().Desc)
		})
	}
}

// TestFaultsFollowFaultKinds asserts that Fault[i] is the binding of the action named by the
// table row of scenarios.FaultKinds[i] (keys 1..6 inject the kinds in table order), that every
// row with a Binding has its default keys and help here and every fault action a row, and that
// FaultBindings lists the bound kinds in table order.
func TestFaultsFollowFaultKinds(t *testing.T) {
	km := Default()
	byName := bindingsByName(t, km)
	var bound []key.Binding
	named := map[string]bool{}
	for i, spec := range scenarios.FaultSpecs() {
		if spec.Binding == "" {
			assert.Empty(t, km.Fault[i].Keys(), "%s has no key", spec.Kind)
			continue
		}
		named[spec.Binding] = true
		require.Contains(t, faultKeys, spec.Binding, "keymap has no default keys for %s's binding %q", spec.Kind, spec.Binding)
		assert.NotEmpty(t, km.Fault[i].Keys(), "%s has a key", spec.Kind)
		assert.Equal(t, byName[spec.Binding].Keys(), km.Fault[i].Keys(), "Fault[%d] should be %s", i, spec.Binding)
		bound = append(bound, km.Fault[i])
	}
	for name := range faultKeys {
		assert.True(t, named[name], "fault action %q names no kind of the table", name)
	}
	assert.Equal(t, bound, km.FaultBindings())
	for i, b := range km.FaultBindings() {
		assert.Equal(t, []string{strconv.Itoa(i + 1)}, b.Keys(), "the fault keys are 1, 2, 3... in table order")
	}
}

// TestFullHelpCoversEveryBinding asserts that the full help shows every binding exactly once,
// in four groups, and that the short help is a subset of it.
func TestFullHelpCoversEveryBinding(t *testing.T) {
	km := Default()
	groups := km.FullHelp()
	require.Len(t, groups, 4)
	seen := map[string]int{}
	for _, g := range groups {
		for _, b := range g {
			seen[b.Help().Desc]++
		}
	}
	for name, b := range bindingsByName(t, km) {
		assert.Equal(t, 1, seen[b.Help().Desc], "%s in the full help", name)
	}
	for _, b := range km.ShortHelp() {
		assert.Equal(t, 1, seen[b.Help().Desc], "short help entry %q is not in the full help", b.Help().Desc)
	}
}

// TestParseGood asserts that a valid file rebinds exactly the named actions, that the help
// text follows the new keys, and that the other actions keep their defaults.
func TestParseGood(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		action   string
		wantKeys []string
		wantHelp string
	}{
		{"two keys", `pause = ["space", "p"]`, "pause", []string{" ", "p"}, "space/p"},
		{"named key", `next_weight = ["ctrl+n"]`, "next_weight", []string{"ctrl+n"}, "ctrl+n"},
		{"function key", `export = ["f5"]`, "export", []string{"f5"}, "f5"},
		{"alt key", `compare = ["alt+c"]`, "compare", []string{"alt+c"}, "alt+c"},
		{"quoted name, comment, duplicate key", "# mine\n\"quit\" = [\"x\", \"x\"] # x and ctrl+c\n", "quit", []string{"x", "ctrl+c"}, "x/ctrl+c"},
		{"ctrl+c always quits", `quit = ["f20"]`, "quit", []string{"f20", "ctrl+c"}, "f20/ctrl+c"},
		{"ctrl+c where the file puts it", `quit = ["ctrl+c", "x"]`, "quit", []string{"ctrl+c", "x"}, "ctrl+c/x"},
		{"swap two actions", "faster = [\"-\"]\nslower = [\"+\"]", "faster", []string{"-"}, "-"},
		{"empty file", ``, "pause", []string{" "}, "space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			km, err := Parse("keys.toml", []byte(tt.file))
			require.NoError(t, err)
			got := bindingsByName(t, km)
			assert.Equal(t, tt.wantKeys, got[tt.action].Keys())
			assert.Equal(t, tt.wantHelp, got[tt.action].Help().Key)
			for name, def := range bindingsByName(t, Default()) {
				if name != tt.action && !strings.Contains(tt.file, name) {
					assert.Equal(t, def.Keys(), got[name].Keys(), "%s should keep its default", name)
				}
			}
		})
	}
}

// TestParseBad asserts the exact message for each kind of bad file: it names the file, the
// line when known, the action and the key.
func TestParseBad(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string
	}{
		{"unknown action", "pause = [\"p\"]\npauze = [\"x\"]",
			`keys.toml:2: unknown action "pauze" (the actions are: ` + strings.Join(Names(), ", ") + ")"},
		{"string instead of list", `pause = "p"`,
			`keys.toml:1: pause: want a list of key names such as ["space", "p"], got a string`},
		{"integer instead of list", "\n\nstep = 3",
			`keys.toml:3: step: want a list of key names such as ["space", "p"], got an integer`},
		{"table instead of list", "[quit]\nkey = \"x\"",
			`keys.toml:1: quit: want a list of key names such as ["space", "p"], got a table`},
		{"number in the list", `pause = ["p", 1]`,
			`keys.toml:1: pause: want key names as strings, got an integer`},
		{"nested list", `pause = [["p"]]`,
			`keys.toml:1: pause: want key names as strings, got an array`},
		{"array of tables", "[[pause]]\nkey = \"p\"",
			`keys.toml:1: pause: want a list of key names such as ["space", "p"], got an array of tables`},
		{"empty list", `help = []`,
			`keys.toml:1: help: empty key list: bind at least one key`},
		{"not a key Bubble Tea reports", `pause = ["runes"]`,
			`keys.toml:1: pause: unknown key "runes" (use one character, or a name such as space, enter, esc, tab, shift+tab, up, left, ctrl+c, f1, alt+x)`},
		{"ctrl+i arrives as tab", `pause = ["ctrl+i"]`,
			`keys.toml:1: pause: unknown key "ctrl+i" (use one character, or a name such as space, enter, esc, tab, shift+tab, up, left, ctrl+c, f1, alt+x)`},
		{"unknown key name", `pause = ["spcae"]`,
			`keys.toml:1: pause: unknown key "spcae" (use one character, or a name such as space, enter, esc, tab, shift+tab, up, left, ctrl+c, f1, alt+x)`},
		{"conflict with a default", `pause = ["q"]`,
			`keys.toml:1: key "q" is bound to both pause and quit: rebind one of them`},
		{"conflict inside the file", "export = [\"x\"]\nhelp = [\"h\"]\nadaptive = [\"x\"]",
			`keys.toml:3: key "x" is bound to both adaptive and export: rebind one of them`},
		{"conflict on space", `step = ["space"]`,
			`keys.toml:1: key "space" is bound to both pause and step: rebind one of them`},
		{"ctrl+c for another action", "quit = [\"x\"]\npause = [\"space\", \"ctrl+c\"]",
			`keys.toml:2: pause: "ctrl+c" always quits; it cannot be bound to another action`},
		{"two mistakes, both reported in file order", "pause = [\"q\"]\npauze = [\"x\"]\nhelp = \"h\"",
			"keys.toml:1: key \"q\" is bound to both pause and quit: rebind one of them\n" +
				`keys.toml:2: unknown action "pauze" (the actions are: ` + strings.Join(Names(), ", ") + ")\n" +
				`keys.toml:3: help: want a list of key names such as ["space", "p"], got a string`},
		{"beyond the limits of a key file", "pause = " + strings.Repeat("[", 40) + `"p"` + strings.Repeat("]", 40),
			`keys.toml:1: arrays and inline tables nested deeper than 32 (the limit for a key file)`},
		{"syntax error", "pause = [\"p\"\nstep = [\".\"]",
			`keys.toml:2: expected a comma (',') or array terminator (']'), but got 's'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("keys.toml", []byte(tt.file))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestLoad asserts that Load reads a file from disk, that a missing file or an empty path give
// the defaults, and that errors carry the file's path.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	require.NoError(t, os.WriteFile(good, []byte(`pause = ["p"]`), 0o600))
	bad := filepath.Join(dir, "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte(`pause = []`), 0o600))

	tests := []struct {
		name      string
		path      string
		wantPause []string
		wantErr   string
	}{
		{"file", good, []string{"p"}, ""},
		{"missing file", filepath.Join(dir, "none", "keys.toml"), []string{" "}, ""},
		{"empty path", "", []string{" "}, ""},
		{"bad file", bad, nil, bad + ":1: pause: empty key list: bind at least one key"},
		{"a directory", dir, nil, dir + ": is a directory, not a key file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			km, err := Load(tt.path)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantPause, km.Pause.Keys())
		})
	}
}

// TestParsedKeysMatchTeaKeys asserts that keys written in the file match the messages Bubble
// Tea sends for them, for each way of spelling a key.
func TestParsedKeysMatchTeaKeys(t *testing.T) {
	tests := []struct {
		file string
		msg  tea.KeyMsg
	}{
		{`pause = ["space"]`, tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}},
		{`pause = ["alt+space"]`, tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}, Alt: true}},
		{`pause = ["Z"]`, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'Z'}}},
		{`pause = ["alt+p"]`, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'p'}, Alt: true}},
		{`pause = ["é"]`, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'é'}}},
		{`pause = ["delete"]`, tea.KeyMsg{Type: tea.KeyDelete}},
		{`pause = ["ctrl+shift+up"]`, tea.KeyMsg{Type: tea.KeyCtrlShiftUp}},
		{`pause = ["f12"]`, tea.KeyMsg{Type: tea.KeyF12}},
		{`pause = ["end"]`, tea.KeyMsg{Type: tea.KeyEnd}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			km, err := Parse("keys.toml", []byte(tt.file))
			require.NoError(t, err)
			assert.True(t, key.Matches(tt.msg, km.Pause), "%q should match %v", tt.msg.String(), km.Pause.Keys())
		})
	}
}

// TestHelpFollowsRemap asserts that the short and full help show the remapped keys, so the
// footer never advertises a key that no longer works.
func TestHelpFollowsRemap(t *testing.T) {
	km, err := Parse("keys.toml", []byte("pause = [\"p\", \"space\"]\nquit = [\"x\"]"))
	require.NoError(t, err)
	short := map[string]string{}
	for _, b := range km.ShortHelp() {
		short[b.Help().Desc] = b.Help().Key
	}
	assert.Equal(t, "p/space", short[Default().Pause.Help().Desc])
	assert.Equal(t, "x/ctrl+c", short[Default().Quit.Help().Desc], "ctrl+c always quits, and the help says so")
	assert.True(t, key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}}, km.Quit))
	assert.True(t, key.Matches(tea.KeyMsg{Type: tea.KeyCtrlC}, km.Quit))
	assert.False(t, key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'q'}}, km.Quit))
	assert.True(t, key.Matches(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}, km.Pause))
}

// TestDefaultPath asserts that the key file lives under the user's config directory.
func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/tmp/cfg")
	t.Setenv("HOME", "/tmp/home")
	p, err := DefaultPath()
	require.NoError(t, err)
	want, err := os.UserConfigDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(want, "cortex-tui", "keys.toml"), p)
}
