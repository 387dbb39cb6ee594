package load_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/load"
)

// small is a kind with the real structural limits and a small size; few allows only 8 keys and
// values, so counting is easy to test.
var (
	small = load.Kind{Name: "test file", MaxBytes: 1 << 10, MaxNesting: 32, MaxKeyParts: 16, MaxKeyDepth: 16, MaxItems: 1000}
	few   = load.Kind{Name: "test file", MaxBytes: 1 << 10, MaxNesting: 32, MaxKeyParts: 16, MaxKeyDepth: 16, MaxItems: 8}
)

// nest returns n opening brackets, body and n closing ones.
func nest(open, body, close string, n int) string {
	return strings.Repeat(open, n) + body + strings.Repeat(close, n)
}

// dotted returns a key of n parts: a.a.a...
func dotted(n int) string { return strings.TrimSuffix(strings.Repeat("a.", n), ".") }

// TestCheck asserts what Check refuses, with the exact message, and that brackets, dots and '#'
// inside strings and comments count for nothing.
func TestCheck(t *testing.T) {
	tests := []struct {
		name, text, want string
		kind             *load.Kind // nil: small
	}{
		{name: "empty"},
		{"arrays 32 deep", "a = " + nest("[", "1", "]", 32), "", nil},
		{"arrays 33 deep", "a = " + nest("[", "1", "]", 33),
			"t.toml:1: arrays and inline tables nested deeper than 32 (the limit for a test file)", nil},
		{"arrays and inline tables count together", "a = " + nest("[", nest("{b=", "1", "}", 1), "]", 32),
			"t.toml:1: arrays and inline tables nested deeper than 32 (the limit for a test file)", nil},
		{"a multi-line array counts lines", "a = [\n  [\n" + nest("[", "1", "]", 30) + "\n  ]\n]\nb = " + nest("[", "1", "]", 33),
			"t.toml:6: arrays and inline tables nested deeper than 32 (the limit for a test file)", nil},
		{"inline tables 15 deep under a key", "x = " + nest("{a=", "1", "}", 15), "", nil},
		{"inline tables 16 deep under a key", "x = " + nest("{a=", "1", "}", 16),
			"t.toml:1: key nested deeper than 16 levels of tables (the limit for a test file)", nil},
		{"dotted key of 16 parts", dotted(16) + " = 1", "", nil},
		{"dotted key of 17 parts", "\n" + dotted(17) + " = 1",
			"t.toml:2: dotted key with more than 16 parts (the limit for a test file)", nil},
		{"spaces around the dots", "a . b\t. c = 1", "", nil},
		{"table header of 17 parts", "[" + dotted(17) + "]",
			"t.toml:1: table header with more than 16 parts (the limit for a test file)", nil},
		{"array of tables header of 17 parts", "[[" + dotted(17) + "]]",
			"t.toml:1: table header with more than 16 parts (the limit for a test file)", nil},
		{"header and key together at 16", "[" + dotted(10) + "]\n" + dotted(6) + " = 1", "", nil},
		{"header and key together at 17", "[" + dotted(10) + "]\n\n" + dotted(7) + " = 1",
			"t.toml:3: key nested deeper than 16 levels of tables (the limit for a test file)", nil},
		{"a new header starts again", "[" + dotted(10) + "]\n[b]\n" + dotted(7) + " = 1", "", nil},
		{"a header's key and an inline table together", "[" + dotted(14) + "]\nx = {y = {z = 1}}",
			"t.toml:2: key nested deeper than 16 levels of tables (the limit for a test file)", nil},
		{"inline tables in an array keep the key's depth", "[" + dotted(14) + "]\nx = [{y = 1}, [{z = 1}]]", "", nil},
		{"8 keys and values", "a = 1\nb.c = [1, 2]\n[d]\ne = {f = 1}", "", &few},
		{"9 keys and values", "a = 1\nb.c = [1, 2]\n[d]\ne = {f = 1}\ng = 2",
			"t.toml:5: more than 8 keys and values (the limit for a test file)", &few},
		{"array elements count", "a = [\n1,\n2,\n3,\n4,\n5,\n6,\n7,\n8]",
			"t.toml:9: more than 8 keys and values (the limit for a test file)", &few},
		{"brackets, dots and # in strings", `a = "[[[[.{{{{#" # ]]]].}}}}` + "\n" + `b = '[[[.{{{#'`, "", nil},
		{"dots in quoted keys", `"` + dotted(40) + `" = 1` + "\n" + `'` + dotted(40) + `' = 1`, "", nil},
		{"quoted and bare parts", `"a.b".'c.d'.e = 1`, "", nil},
		{"escaped quotes in a basic string", `a = "\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"`, "", nil},
		{"a literal string ends at its quote", `a = 'C:\' ` + "\n" + `b = ` + nest("[", "1", "]", 33),
			"t.toml:2: arrays and inline tables nested deeper than 32 (the limit for a test file)", nil},
		{"multi-line basic string", "a = \"\"\"\n" + nest("[", "x", "]", 40) + "\n\\\"\"\"\n\"\" \"\"\"\nb = " + nest("[", "1", "]", 33),
			"t.toml:5: arrays and inline tables nested deeper than 32 (the limit for a test file)", nil},
		{"multi-line string ending with quotes", "a = \"\"\"x\"\"\"\"\"\nb = " + nest("[", "1", "]", 33),
			"t.toml:2: arrays and inline tables nested deeper than 32 (the limit for a test file)", nil},
		{"multi-line literal string", "a = '''\n" + nest("{", "'' '", "}", 40) + "\n'''\nb = 1", "", nil},
		{"line-ending backslash", "a = \"\"\"x\\\n  y\"\"\"\nb = " + nest("[", "1", "]", 33),
			"t.toml:3: arrays and inline tables nested deeper than 32 (the limit for a test file)", nil},
		{"comments", "# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n[t] # ]]]]\na = [ # [[[[\n1, # {{{{\n]", "", nil},
		{"CRLF line ends", "a = 1\r\nb = 2\r\n\r\n" + dotted(17) + " = 1\r\n",
			"t.toml:4: dotted key with more than 16 parts (the limit for a test file)", nil},
		{"not TOML passes, for the decoder", "]]]]\n}}}}\n= = =\na = [1, 2\n\"unterminated\n{a", "", nil},
		{"larger than the limit", strings.Repeat("#", 1025), "t.toml: larger than 1 KiB (the limit for a test file)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := small
			if tt.kind != nil {
				k = *tt.kind
			}
			_, err := load.Check("t.toml", []byte(tt.text), k)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var le *load.Error
			assert.True(t, errors.As(err, &le), "a *load.Error")
		})
	}
}

// TestCheckAcceptsRealFiles asserts that every built-in scenario and the full example of the
// format pass the scenario limits, and the documented key file the key file limits.
func TestCheckAcceptsRealFiles(t *testing.T) {
	files, err := filepath.Glob("../../scenarios/builtin/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	files = append(files, "../../scenarios/testdata/full.toml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var v map[string]any
		_, _, err = load.Decode(f, data, load.Scenario, &v)
		assert.NoError(t, err, f)
	}
	var v map[string]any
	_, _, err = load.Decode("keys.toml", []byte("pause = [\"space\", \"p\"]\nquit = [\"ctrl+c\"] # q no longer quits\n"), load.Keys, &v)
	assert.NoError(t, err)
}

// bounded runs f and asserts that it allocated under 64 MB and took under a second (a loose
// bound: the machines running the tests are shared), returning f's error.
func bounded(t *testing.T, f func() error) error {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := f()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated bytes")
	assert.Less(t, took, time.Second, "time")
	return err
}

// TestHostileStructure asserts that files built to blow up the TOML decoder (each of which took
// gigabytes and tens of seconds before the limits) are refused with the limit and the line,
// within the time and memory bound, whatever kind of file they are read as.
func TestHostileStructure(t *testing.T) {
	scenario := "name = \"x\"\nsummary = \"y\"\nduration = \"60s\"\n"
	tests := []struct {
		name, text string
		want       func(k load.Kind) string // the message for a file of kind k
	}{
		{"inline tables 10,000 deep", scenario + "x = " + nest("{a=", "1", "}", 10000), func(k load.Kind) string {
			return fmt.Sprintf("h.toml:4: key nested deeper than 16 levels of tables (the limit for a %s)", k.Name)
		}},
		{"inline tables 20,000 deep", "x = " + nest("{a=", "1", "}", 20000), func(k load.Kind) string {
			return fmt.Sprintf("h.toml:1: key nested deeper than 16 levels of tables (the limit for a %s)", k.Name)
		}},
		{"arrays 100,000 deep", scenario + "x = " + nest("[", "1", "]", 100000), func(k load.Kind) string {
			return fmt.Sprintf("h.toml:4: arrays and inline tables nested deeper than 32 (the limit for a %s)", k.Name)
		}},
		{"anonymous inline tables 10,000 deep in arrays", "x = [" + nest("[{}, ", "1", "]", 10000) + "]", func(k load.Kind) string {
			return fmt.Sprintf("h.toml:1: arrays and inline tables nested deeper than 32 (the limit for a %s)", k.Name)
		}},
		{"a dotted key of 20,000 parts", scenario + dotted(20000) + " = 1", func(k load.Kind) string {
			return fmt.Sprintf("h.toml:4: dotted key with more than 16 parts (the limit for a %s)", k.Name)
		}},
		{"a table header of 50,000 parts", scenario + "[" + dotted(50000) + "]", func(k load.Kind) string {
			return fmt.Sprintf("h.toml:4: table header with more than 16 parts (the limit for a %s)", k.Name)
		}},
		{"an array of 30,000 values", "x = [" + strings.Repeat("1,", 30000) + "]", func(k load.Kind) string {
			return fmt.Sprintf("h.toml:1: more than %d keys and values (the limit for a %s)", k.MaxItems, k.Name)
		}},
		{"3,000 lines of 16-part keys", strings.Repeat(dotted(16)+" = 1\n", 3000), func(k load.Kind) string {
			line := k.MaxItems/16 + 1 // each line brings 16 keys
			return fmt.Sprintf("h.toml:%d: more than %d keys and values (the limit for a %s)", line, k.MaxItems, k.Name)
		}},
	}
	for _, k := range []load.Kind{load.Scenario, load.Keys} {
		for _, tt := range tests {
			t.Run(k.Name+"/"+tt.name, func(t *testing.T) {
				data := []byte(tt.text)
				want := tt.want(k)
				if int64(len(data)) > k.MaxBytes {
					require.Equal(t, load.Keys, k, "only key files are this small")
					want = "h.toml: larger than 64 KiB (the limit for a key file)"
				}
				err := bounded(t, func() error {
					var v map[string]any
					_, _, err := load.Decode("h.toml", data, k, &v)
					return err
				})
				require.Error(t, err)
				assert.Equal(t, want, err.Error())
			})
		}
	}
}

// endless is a reader that never ends, counting what it gives.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestReaderStopsAtTheLimit asserts that Reader takes a text of exactly the limit, refuses one
// byte more, and stops reading an endless stream after at most the limit and one byte.
func TestReaderStopsAtTheLimit(t *testing.T) {
	for _, k := range []load.Kind{load.Scenario, load.Keys} {
		t.Run(k.Name, func(t *testing.T) {
			data, err := load.Reader("-", strings.NewReader(strings.Repeat("#", int(k.MaxBytes))), k)
			require.NoError(t, err)
			assert.Len(t, data, int(k.MaxBytes))

			_, err = load.Reader("-", strings.NewReader(strings.Repeat("#", int(k.MaxBytes)+1)), k)
			require.Error(t, err)

			src := &endless{}
			err = bounded(t, func() error { _, err := load.Reader("-", src, k); return err })
			require.Error(t, err)
			assert.Regexp(t, `^-: larger than \d+ [KM]iB \(the limit for a `+k.Name+`\)$`, err.Error())
			assert.LessOrEqual(t, src.read, k.MaxBytes+1+32<<10, "read past the limit")
		})
	}
}

// TestFile asserts the refusals of File: a missing file (which still satisfies errors.Is
// fs.ErrNotExist), a directory, a huge regular file (read only up to the limit: a 100 MB key
// file), and the devices that never end.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.toml")
	huge := filepath.Join(dir, "huge.toml")
	f, err := os.Create(huge)
	require.NoError(t, err)
	_, err = f.WriteString("pause = [\"p\"]\n")
	require.NoError(t, err)
	require.NoError(t, f.Truncate(100<<20)) // 100 MB: the rest reads as zero bytes
	require.NoError(t, f.Close())

	tests := []struct {
		name, path string
		kind       load.Kind
		want       string
	}{
		{"missing", missing, load.Keys, missing + ": cannot read: no such file or directory"},
		{"a directory", dir, load.Scenario, dir + ": is a directory, not a scenario file"},
		{"a 100 MB key file", huge, load.Keys, huge + ": larger than 64 KiB (the limit for a key file)"},
		{"a 100 MB scenario file", huge, load.Scenario, huge + ": larger than 1 MiB (the limit for a scenario file)"},
		{"/dev/zero", "/dev/zero", load.Scenario, "/dev/zero: larger than 1 MiB (the limit for a scenario file)"},
		{"/dev/urandom", "/dev/urandom", load.Keys, "/dev/urandom: larger than 64 KiB (the limit for a key file)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.path, "/dev/") {
				if _, err := os.Stat(tt.path); err != nil {
					t.Skipf("%s: %v", tt.path, err)
				}
			}
			err := bounded(t, func() error { _, err := load.File(tt.path, tt.kind); return err })
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
	_, err = load.File(missing, load.Keys)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "errors.Is fs.ErrNotExist")
}

// TestReadErrors asserts that a stream failing mid-read is reported with its name.
func TestReadErrors(t *testing.T) {
	_, err := load.Reader("-", io.MultiReader(strings.NewReader("a = 1\n"), failing{}), load.Scenario)
	require.Error(t, err)
	assert.Equal(t, "-: cannot read: disk on fire", err.Error())
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }
