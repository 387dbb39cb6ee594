package footer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Asserts that the footer's short help is never cut in the middle of a key's description: at
// every width it ends with the last binding (quit) or with the ellipsis bubbles/help puts in
// place of the bindings that do not fit.
func TestFooterHelpNotCut(t *testing.T) {
	for w := 30; w <= 250; w++ {
		p := New(common.DefaultStyles(), keymap.Default())
		p.SetSize(w, 1)
		p.Show(false, false)
		line := strings.TrimRight(p.View(), " ")
		assert.True(t, strings.HasSuffix(line, "quit") || strings.HasSuffix(line, "…"), "width %d: %q", w, line)
		p.SetStatus("exported to /tmp/somewhere: cortex-black-friday-cortex-1.csv + .json", false)
		line = strings.TrimRight(p.View(), " ")
		assert.False(t, strings.Contains(line, "│") && !strings.HasSuffix(line, "quit"), "width %d with a status: %q", w, line)
	}
}

// Asserts that a status longer than the line is cut visibly (with an ellipsis), not mid-word
// without a sign.
func TestFooterStatusCutVisibly(t *testing.T) {
	p := New(common.DefaultStyles(), keymap.Default())
	p.SetSize(40, 1)
	p.SetStatus("throttle injected (250/s); press again to clear: attempts above the rate answered 429", false)
	line := strings.TrimRight(p.View(), " ")
	assert.True(t, strings.HasSuffix(line, "…"), "%q", line)
	assert.LessOrEqual(t, len([]rune(line)), 40)
}
