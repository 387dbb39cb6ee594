package vt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
)

// Asserts that the screen draws what Bubble Tea's renderer sends, whatever the writes' cuts:
// text at cursor moves, erasing, a deferred wrap at the last column, wide graphemes, the
// alternate screen and back, SGR ignored; each row exactly the screen's width.
func TestScreen(t *testing.T) {
	frame := "\x1b[?1049h\x1b[2J\x1b[H\x1b[1;31mab\x1b[0mcdef\r\nsecond\x1b[K\r\n\x1b[3;3Hx界y\x1b[4;1H1234567890\x1b[5;1Hwrapped"
	for _, cut := range []int{1, 2, 3, 5, 7, len(frame)} {
		s := New(10, 6, Options{})
		for b := []byte(frame); len(b) > 0; {
			n := min(cut, len(b))
			_, _ = s.Write(b[:n])
			b = b[n:]
		}
		lines := s.Lines()
		assert.Equal(t, "abcdef    ", lines[0], "cut %d", cut)
		assert.Equal(t, "second    ", lines[1])
		assert.Equal(t, "  x界y    ", lines[2], "a wide grapheme takes two cells")
		assert.Equal(t, "1234567890", lines[3], "the last column, no wrap yet")
		assert.Equal(t, "wrapped   ", lines[4])
		assert.True(t, s.Alt())
		for _, l := range lines {
			assert.Equal(t, 10, ansi.StringWidth(l))
		}
		_, _ = s.Write([]byte("\x1b[?1049l"))
		assert.False(t, s.Alt())
		assert.Equal(t, strings.Repeat(" ", 10), s.Lines()[0], "the main screen is back, blank")
	}
}

// Asserts that the screen answers DA1 and the background query as a terminal does, with the
// background it was given, and nothing when silent.
func TestAnswers(t *testing.T) {
	var out bytes.Buffer
	s := New(10, 3, Options{Answer: &out, Background: "rgb:ffff/ffff/ffff"})
	_, _ = s.Write([]byte("\x1b]11;?\x07\x1b[c"))
	assert.Equal(t, "\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?62;22c", out.String())
	out.Reset()
	s = New(10, 3, Options{Answer: &out, Silent: true})
	_, _ = s.Write([]byte("\x1b]11;?\x07\x1b[c"))
	assert.Empty(t, out.String())
}

// Asserts that a resize keeps what fits and that a line feed at the bottom scrolls.
func TestResizeScroll(t *testing.T) {
	s := New(4, 2, Options{})
	_, _ = s.Write([]byte("abcd\r\nefgh\r\nij"))
	assert.Equal(t, []string{"efgh", "ij  "}, s.Lines())
	s.Resize(6, 3)
	assert.Equal(t, []string{"efgh  ", "ij    ", "      "}, s.Lines())
	w, h := s.Size()
	assert.Equal(t, [2]int{6, 3}, [2]int{w, h})
}
