package shot

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that a frame's glyphs are pinned to their cells (a wide glyph takes two), its SGR
// colours (basic, 256, true colour, reverse) become fills, its backgrounds rectangles, XML's
// special characters are escaped, and the document parses.
func TestSVG(t *testing.T) {
	frame := "\x1b[1;38;5;196mAB\x1b[0m <&>\n\x1b[48;2;1;2;3m x \x1b[49m界z\n\x1b[7mR\x1b[m\nbeyond the rows"
	svg := string(SVG(frame, 10, 3))
	require.NoError(t, xml.Unmarshal([]byte(svg), new(struct{})), "well-formed XML")
	assert.Contains(t, svg, `<text x="8 16.4" y="21" fill="#ff0000" font-weight="bold">AB</text>`)
	assert.Contains(t, svg, `<text x="24.8 33.2 41.6 50" y="21" fill="#d0d0d0"> &lt;&amp;&gt;</text>`)
	assert.Contains(t, svg, `<rect x="8" y="25" width="25.2" height="17" fill="#010203"/>`, "the background of the 3 cells ' x '")
	assert.Contains(t, svg, `<text x="33.2 50" y="38" fill="#d0d0d0">界z</text>`, "the wide glyph takes two cells")
	assert.Contains(t, svg, `<rect x="8" y="42" width="8.4" height="17" fill="#d0d0d0"/>`, "reverse: the foreground as background")
	assert.Contains(t, svg, `fill="#171717">R</text>`)
	assert.NotContains(t, svg, "beyond", "a line past the rows is cut")
	assert.Contains(t, svg, `width="100" height="67"`, "10 x 3 cells and the padding")
}

// Asserts that the text is the frame without its escapes, one line per row.
func TestText(t *testing.T) {
	assert.Equal(t, "AB <&>\n x \n", Text("\x1b[31mAB\x1b[0m <&>\n\x1b[48;5;22m x \x1b[0m"))
	assert.Equal(t, 2, strings.Count(Text("a\nb"), "\n"))
}

// Asserts xterm's palette: the 16, a cube colour, a grey, and nothing outside.
func TestPalette(t *testing.T) {
	assert.Equal(t, "#ff0000", palette(9))
	assert.Equal(t, "#5f87af", palette(67))
	assert.Equal(t, "#eeeeee", palette(255))
	assert.Equal(t, "", palette(256))
}
