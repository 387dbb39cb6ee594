package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// The hostile scenario files: a valid one whose texts are full of escapes, and an invalid one
// whose problems quote such text.
const (
	hostileFile        = "../testdata/hostile/escapes.toml"
	hostileInvalidFile = "../testdata/hostile/escapes-invalid.toml"
)

// run executes the command line args and returns the exit status and what it printed.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Execute(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// assertInert asserts that out holds nothing a terminal would act on: no rune safetext.Unsafe
// reports but line breaks and the joiners of an emoji.
func assertInert(t *testing.T, out, what string) {
	t.Helper()
	assert.NotContains(t, out, "\x1b", what)
	for i, r := range out {
		if safetext.Unsafe(r) && r != '\n' && r != '\u200d' {
			assert.Fail(t, "unsafe rune", "%s: %U at byte %d of %q", what, r, i, out)
			return
		}
	}
}

// Asserts that `validate` on a valid file full of escapes prints its ok line, and on invalid
// ones prints each problem with the quoted text inert: the unknown keys' names, and the TOML
// parser's context lines around a raw ESC byte, which keep their lines and caret.
func TestValidateHostile(t *testing.T) {
	code, stdout, stderr := run("validate", hostileFile)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, hostileFile+": ok (hostile-escapes, 60s, 1 fault; up to 4e4 attempts, 18 MB)\n", stdout)

	code, stdout, stderr = run("validate", hostileInvalidFile)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	f := hostileInvalidFile
	assert.Equal(t, f+": ␛table: unknown key; valid keys at the top level: name, summary, story, duration, drain, tick, seed, strategy, fleet, class, load, service, fault, control, note, engine\n"+
		f+": evil␛key: unknown key; valid keys at the top level: name, summary, story, duration, drain, tick, seed, strategy, fleet, class, load, service, fault, control, note, engine\n"+
		f+":9: fleet.clients␛: unknown key; valid keys in [fleet]: clients, loop, users, think, deadline, timeout, layers, budget\n"+
		f+`:18: class[2].name: "pay\x1b[5mment" is already the name of class[1]`+"\n"+
		f+`:27: fault[1].kind: unknown kind "out\x1b]52;c;eA==\aage"; valid kinds: `+kindNames()+"\n"+
		"cortex-tui: 1 of 1 file(s) invalid\n", stderr)
	assertInert(t, stderr, "validate, invalid")

	raw := filepath.Join(t.TempDir(), "raw\x1b]0;PWNED\x07.toml")
	require.NoError(t, os.WriteFile(raw, []byte("name = \"x\"\nsummary = \"raw \x1b]0;PWNED\x07 and \u202Ebidi\"\n"), 0o600))
	code, _, stderr = run("validate", raw)
	assert.Equal(t, 1, code)
	shown := filepath.Join(filepath.Dir(raw), "raw␛.toml")
	assert.Equal(t, shown+":2: invalid TOML: TOML files cannot contain control characters: '0x1b'\n"+
		"      1 | name = \"x\"\n"+
		"      2 | summary = \"raw ␛ and bidi\"\n"+
		"                        ^\n"+
		"cortex-tui: 1 of 1 file(s) invalid\n", stderr)
	assertInert(t, stderr, "validate, raw escape")
}

// Asserts that an error that reaches the top level (run --scenario-file on the invalid file)
// is printed inert, its lines kept.
func TestRunErrorHostile(t *testing.T) {
	code, _, stderr := run("run", "--headless", "--scenario-file", hostileInvalidFile)
	assert.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(stderr, "cortex-tui: "+hostileInvalidFile+": ␛table: unknown key"), stderr)
	assert.Equal(t, 5, strings.Count(stderr, "\n"), "one line per problem")
	assertInert(t, stderr, "run")
}

// Asserts that `scenarios NAME` prints a scenario whose texts are full of escapes inert: each
// sequence one "␛", bidi and zero-width characters gone, marks clamped, CJK and emoji whole,
// the story wrapped at 80 cells and the class names padded in cells.
func TestDescribeHostile(t *testing.T) {
	scn, err := scenarios.ParseFile(hostileFile)
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	require.NoError(t, describeScenario(streams{in: strings.NewReader(""), out: &out, err: &errOut}, scn))
	text := out.String()
	assertInert(t, text, "scenarios NAME")
	lines := strings.Split(text, "\n")
	assert.Equal(t, "hostile-escapes: Retitles␛ the terminal and ␛blinks␛ evil", lines[0])
	for _, l := range lines[2:8] {
		assert.LessOrEqual(t, ansi.StringWidth(l), 80, "story line %q", l)
	}
	assert.Contains(t, text, "clears the screen ␛␛ on its first line.")
	assert.Contains(t, text, "8-bit CSI ␛red␛")
	assert.Contains(t, text, "desrever")
	assert.Contains(t, text, "支付 👨\u200d👩\u200d👧 🏳️\u200d🌈.")
	assert.Contains(t, text, "class     payment␛           priority  9, 50 req/s\n")
	assert.Contains(t, text, "class     hcraes␛            priority  5, 60 req/s\n")
	assert.Contains(t, text, "class     Z\u0351\u0354a\u0341\u0315l\u036c\u0300g\u0300\u0301o              priority  3, 30 req/s\n")
	assert.Contains(t, text, "class     支付👨\u200d👩\u200d👧             priority  1, 20 req/s\n")
	assert.Contains(t, text, "0s   Opening note␛ that ␛blinks␛ and copies ␛ quietly.\n")
	assert.Contains(t, text, "20s  Z\u0351\u0354a\u0341\u0315l\u036c\u0300g\u0300\u0301o note with 👨\u200d👩\u200d👧 and a tab here.\n")
}

// kindNames is the list of fault kinds that messages give, from the table of fault kinds.
func kindNames() string {
	names := make([]string, len(scenarios.FaultKinds))
	for i, k := range scenarios.FaultKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
