package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortex-tui/cortex-tui/cli"
)

// FuzzLoad feeds random bytes through the loader and the parsers exactly as the commands read
// files: as a scenario on the standard input of `validate -`, and as the key file of `--keys`
// (without a terminal, so the dashboard never starts). It asserts that nothing panics, that
// the exit status is the documented one (0 or 1 for validate, 2 for the dashboard without a
// terminal or with a bad key file) and that every refusal names the file. Its seed corpus is
// testdata/fuzz/FuzzLoad plus the hostile corpus and the built-in scenarios.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/hostile/*.toml")
	builtin, _ := filepath.Glob("../scenarios/builtin/*.toml")
	for _, file := range append(files, builtin...) {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errOut bytes.Buffer
		code := cli.Execute([]string{"validate", "-"}, bytes.NewReader(data), &out, &errOut)
		switch code {
		case 0:
			if !strings.HasPrefix(out.String(), "-: ok (") {
				t.Fatalf("validate -: status 0 without an ok line: %q", out.String())
			}
		case 1:
			if !strings.HasPrefix(errOut.String(), "-") {
				t.Fatalf("validate -: a refusal that does not name the input: %q", errOut.String())
			}
		default:
			t.Fatalf("validate -: status %d: %q", code, errOut.String())
		}

		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		t.Setenv("HOME", t.TempDir())
		keys := filepath.Join(t.TempDir(), "keys.toml")
		if err := os.WriteFile(keys, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		errOut.Reset()
		code = cli.Execute([]string{"--keys", keys}, strings.NewReader(""), &out, &errOut)
		msg := errOut.String()
		if code != 2 || out.Len() > 0 ||
			!strings.HasPrefix(msg, "cortex-tui: bad key file: "+keys) && !strings.Contains(msg, "the dashboard needs a terminal") {
			t.Fatalf("--keys: status %d, stdout %q, stderr %q", code, out.String(), msg)
		}
	})
}
