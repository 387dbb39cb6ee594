package load_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cortex-tui/cortex-tui/internal/load"
)

// FuzzCheck asserts that Check never panics and always ends, and that a refusal is an *Error
// naming the file and a line of the text (or no line, for the size). Seeds are in
// testdata/fuzz/FuzzCheck.
func FuzzCheck(f *testing.F) {
	f.Add([]byte("a = [[{b = \"]]\"}]]\n[c.d]\ne.f = '''\n{{'''"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []load.Kind{load.Scenario, load.Keys, few} {
			_, err := load.Check("f.toml", data, k)
			if err == nil {
				continue
			}
			var le *load.Error
			if !errors.As(err, &le) || le.File != "f.toml" {
				t.Fatalf("not a *load.Error naming the file: %v", err)
			}
			if lines := bytes.Count(data, []byte("\n")) + 1; le.Line < 0 || le.Line > lines {
				t.Fatalf("line %d of a text of %d lines: %v", le.Line, lines, err)
			}
		}
	})
}
