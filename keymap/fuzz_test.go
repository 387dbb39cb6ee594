package keymap

import (
	"slices"
	"testing"
)

// FuzzParse asserts that Parse never panics, and that whatever it accepts is a usable key map:
// every action bound to at least one key, no key serving two actions, ctrl+c quitting.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		``,
		`pause = ["space", "p"]`,
		"quit = [\"x\"]\nfaster = [\"-\"]\nslower = [\"+\"]",
		`pause = ["q"]`,
		`pause = "p"`,
		`pause = []`,
		"[pause]\nkey = 1",
		`"next_weight" = ["alt+space", "ctrl+shift+up", "é"]`,
		`pause = ["p"`,
		`quit = ["f20"]`,
		`pause = ["ctrl+c"]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		km, err := Parse("fuzz.toml", data)
		if err != nil {
			return
		}
		if !slices.Contains(km.Quit.Keys(), AlwaysQuit) {
			t.Fatalf("accepted without %s to quit: %q", AlwaysQuit, data)
		}
		owner := map[string]string{}
		for _, a := range actions {
			b := a.of(&km)
			if len(b.Keys()) == 0 || b.Help().Key == "" {
				t.Fatalf("%s accepted with no key: %q", a.name, data)
			}
			for _, k := range b.Keys() {
				if other, taken := owner[k]; taken {
					t.Fatalf("key %q accepted for both %s and %s: %q", k, other, a.name, data)
				}
				owner[k] = a.name
			}
		}
	})
}
