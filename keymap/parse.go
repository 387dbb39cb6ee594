package keymap

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/internal/load"
)

// Parse returns Default() with the actions named in the TOML document data rebound; name
// (usually the file's path) prefixes every error. The document is flat: each line is
// `action = ["key", ...]` with action in snake_case (pause, next_weight, clear_faults, ...)
// and keys spelled as Bubble Tea does ("space", "ctrl+c", "shift+tab", "f1", "alt+x", "q").
// A key file cannot take quitting away: ctrl+c (AlwaysQuit) stays a quit key whatever quit is
// bound to, and binding it to another action is an error. Unknown actions, values that are not
// a non-empty list of strings, unknown key names and two actions sharing a key are errors, all
// of them reported at once (one per line, in file order), and so is a document beyond the limits of a key file
// (load.Keys: 64 KiB, and bounds on nesting, dotted keys and the number of keys).
func Parse(name string, data []byte) (KeyMap, error) {
	var raw map[string]any
	md, lines, err := load.Decode(name, data, load.Keys, &raw)
	if err != nil {
		var le *load.Error
		if errors.As(err, &le) {
			return KeyMap{}, err
		}
		var pe toml.ParseError
		if errors.As(err, &pe) && pe.Position.Line > 0 {
			return KeyMap{}, fmt.Errorf("%s:%d: %s", name, pe.Position.Line, pe.Message)
		}
		return KeyMap{}, fmt.Errorf("%s: %w", name, err)
	}
	km := Default()
	fromFile := map[string]bool{}
	var errs problems
	for _, k := range md.Keys() {
		if len(k) != 1 {
			continue // inside a table: the table itself is reported below
		}
		actionName := k[0]
		line := lines.Of(actionName)
		where := at(name, line)
		i := slices.IndexFunc(actions, func(a action) bool { return a.name == actionName })
		if i < 0 {
			errs.add(line, fmt.Errorf("%s: unknown action %q (the actions are: %s)", where, actionName, strings.Join(Names(), ", ")))
			continue
		}
		keys, err := keyList(raw[actionName])
		if err != nil {
			errs.add(line, fmt.Errorf("%s: %s: %w", where, actionName, err))
			continue
		}
		switch {
		case actionName == "quit" && !slices.Contains(keys, AlwaysQuit):
			keys = append(keys, AlwaysQuit)
		case actionName != "quit" && slices.Contains(keys, AlwaysQuit):
			errs.add(line, fmt.Errorf("%s: %s: %q always quits; it cannot be bound to another action", where, actionName, AlwaysQuit))
			continue
		}
		*actions[i].of(&km) = newBinding(keys, actions[i].help)
		fromFile[actionName] = true
	}
	checkConflicts(name, lines, &km, fromFile, &errs)
	if err := errs.err(); err != nil {
		return KeyMap{}, err
	}
	return km, nil
}

// problems are the mistakes found in a key file, each with its line (0: none known), so that
// one reading reports them all, in file order.
type problems []problem

// problem is one mistake of a key file and its line.
type problem struct {
	line int
	err  error
}

// add records err, found on line.
func (p *problems) add(line int, err error) {
	*p = append(*p, problem{line, err})
}

// err joins the problems in line order, one per line of the message; nil for none.
func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	slices.SortStableFunc(p, func(a, b problem) int { return a.line - b.line })
	errs := make([]error, len(p))
	for i, e := range p {
		errs[i] = e.err
	}
	return errors.Join(errs...)
}

// AlwaysQuit is the key that quits whatever a key file says, so that no file can leave the user
// without a way out: Parse adds it to quit's keys when the file rebinds quit without it.
const AlwaysQuit = "ctrl+c"

// Names returns the action names a key file may use, in help order.
func Names() []string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = a.name
	}
	return names
}

// keyList converts one TOML value to the keys of a binding, in tea.KeyMsg spelling, without
// duplicates.
func keyList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf(`want a list of key names such as ["space", "p"], got %s`, tomlType(v))
	}
	if len(list) == 0 {
		return nil, errors.New("empty key list: bind at least one key")
	}
	var keys []string
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("want key names as strings, got %s", tomlType(item))
		}
		k, err := keyName(s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// keyName validates a key as written in the file and returns its tea.KeyMsg spelling.
func keyName(s string) (string, error) {
	if s == "space" {
		return " ", nil
	}
	base, _ := strings.CutPrefix(s, "alt+")
	if base == "space" {
		return "alt+ ", nil
	}
	if r, n := utf8.DecodeRuneInString(base); n > 0 && n == len(base) && unicode.IsGraphic(r) && !unicode.IsSpace(r) {
		return s, nil
	}
	if namedKeys[base] {
		return s, nil
	}
	return "", fmt.Errorf("unknown key %q (use one character, or a name such as space, enter, esc, tab, shift+tab, up, left, ctrl+c, f1, alt+x)", s)
}

// namedKeys are the multi-character key names Bubble Tea reports in tea.KeyMsg.String().
var namedKeys = func() map[string]bool {
	m := map[string]bool{}
	for t := -256; t <= 256; t++ {
		if s := tea.KeyType(t).String(); utf8.RuneCountInString(s) > 1 && tea.KeyType(t) != tea.KeyRunes {
			m[s] = true
		}
	}
	return m
}()

// checkConflicts records a problem for every key two actions share, naming the key, both
// actions and the line of the file that made them collide (the later one when the file bound
// both).
func checkConflicts(name string, lines load.Lines, km *KeyMap, fromFile map[string]bool, errs *problems) {
	owner := map[string]string{}
	for _, a := range actions {
		for _, k := range a.of(km).Keys() {
			other, taken := owner[k]
			if !taken {
				owner[k] = a.name
				continue
			}
			line := 0
			for _, n := range []string{other, a.name} {
				if fromFile[n] {
					line = max(line, lines.Of(n))
				}
			}
			errs.add(line, fmt.Errorf("%s: key %q is bound to both %s and %s: rebind one of them", at(name, line), displayName(k), other, a.name))
		}
	}
}

// at returns "name:line", or name alone when line is 0 (not found).
func at(name string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", name, line)
	}
	return name
}

// tomlType names the TOML type of a decoded value for error messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	default:
		return fmt.Sprintf("a %T", v)
	}
}
