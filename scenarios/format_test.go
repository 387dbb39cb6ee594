package scenarios_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Asserts that MarshalTOML (what `scenarios NAME --toml` prints) writes every rune a terminal
// must not receive raw as a TOML escape, in single-line and multi-line strings alike, from the
// hostile file (escape sequences, C1 controls, bidi controls, zero-width characters, emoji
// joiners) and from texts built in code (astral format characters, noncharacters), and that
// the file reads back to the same scenario.
func TestMarshalTOMLEscapesForTheTerminal(t *testing.T) {
	hostile, err := scenarios.ParseFile("../testdata/hostile/escapes.toml")
	require.NoError(t, err)
	coded := hostile
	coded.Story = "two\nlines with \U000E0041 a tag, \uFFFE a noncharacter, \u0085 a C1 NEL and \u2028 a separator"
	coded.Notes = append([]scenarios.Note{{At: 0, Text: "\u009d0;title\u009c \u00ad soft \u061c"}}, hostile.Notes[1:]...)
	for _, s := range []scenarios.Scenario{hostile, coded} {
		data, err := s.MarshalTOML()
		require.NoError(t, err)
		for i, r := range string(data) {
			if safetext.Unsafe(r) && r != '\n' {
				assert.Fail(t, "a raw rune the terminal must not receive", "%U at byte %d", r, i)
				break
			}
		}
		again, err := scenarios.Parse("again.toml", data)
		require.NoError(t, err, "output:\n%s", data)
		assert.Equal(t, s, again)
	}
	data, err := hostile.MarshalTOML()
	require.NoError(t, err)
	text := string(data)
	assert.Contains(t, text, `name = "pay\u200Bment\u001B]0;PWNED\u0007"`)
	assert.Contains(t, text, `name = "\u202Ehcraes\u202C\u001B[5m"`)
	assert.Contains(t, text, `name = "支付👨\u200D👩\u200D👧"`)
	assert.True(t, strings.Contains(text, `text = "Second note: \u009B2J\u001Bc reset`), "a C1 CSI is escaped")
}
