package safetext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpus is what a hostile (or merely unusual) scenario file may hold, with what Line and
// Text make of it. text is "" when Text gives the same as Line.
var corpus = []struct {
	name, in, line, text string
}{
	// Plain text is kept as it is.
	{"ascii", "Payments die first: watch the CPS.", "Payments die first: watch the CPS.", ""},
	{"empty", "", "", ""},
	{"punctuation", `~!@#$%^&*()_+{}|:"<>?[]\;',./`, `~!@#$%^&*()_+{}|:"<>?[]\;',./`, ""},
	{"latin accents", "café, naïve, Ærø", "café, naïve, Ærø", ""},
	{"cjk wide", "支付 決済 결제", "支付 決済 결제", ""},
	{"rtl script without controls", "שלום عربي", "שלום عربي", ""},
	{"emoji", "retry storm ⛈️ 🔥", "retry storm ⛈️ 🔥", ""},
	{"emoji zwj family", "👨\u200d👩\u200d👧\u200d👦 team", "👨\u200d👩\u200d👧\u200d👦 team", ""},
	{"emoji zwj rainbow flag", "🏳️\u200d🌈", "🏳️\u200d🌈", ""},
	{"emoji skin tone and zwj", "👩🏽\u200d💻 on call", "👩🏽\u200d💻 on call", ""},
	{"emoji keycap", "1️⃣ first", "1️⃣ first", ""},
	{"subdivision flag", "🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", "🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", ""},
	{"country flag", "🇮🇳 UPI", "🇮🇳 UPI", ""},
	{"vietnamese two marks", "e\u0323\u0302", "e\u0323\u0302", ""},
	{"indic conjunct with zwj", "क्\u200dष", "क्\u200dष", ""},
	{"private use kept", "\ue0b0 powerline", "\ue0b0 powerline", ""},

	// Line breaks: spaces on one line, "\n" in multi-line text.
	{"multi-line", "first\nsecond\n\nthird", "first second  third", "first\nsecond\n\nthird"},
	{"crlf and cr", "a\r\nb\rc", "a b c", "a\nb\nc"},
	{"line and paragraph separators", "a\u2028b\u2029c", "a b c", "a\nb\nc"},
	{"tab", "col\tcol", "col col", ""},

	// Escape sequences become one ␛ each, payload and all.
	{"osc title bel", "note\x1b]0;pwned\x07 text", "note␛ text", ""},
	{"osc title st", "\x1b]2;pwned\x1b\\text", "␛text", ""},
	{"osc 52 clipboard", "copy \x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07me", "copy ␛me", ""},
	{"osc 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "␛click␛", ""},
	{"csi blink", "\x1b[5mblink\x1b[0m", "␛blink␛", ""},
	{"csi colour", "\x1b[38;2;255;0;0mred\x1b[m", "␛red␛", ""},
	{"csi clear screen and home", "\x1b[2J\x1b[Hx", "␛␛x", ""},
	{"csi private mode", "\x1b[?1049hx", "␛x", ""},
	{"csi malformed", "\x1b[12\x07x", "␛␇x", ""},
	{"dcs", "\x1bPq#0;2;0;0;0#0~~@@\x1b\\after", "␛after", ""},
	{"apc pm sos", "\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\!", "␛␛␛!", ""},
	{"esc two bytes reset", "\x1bcx", "␛x", ""},
	{"esc charset", "\x1b(0lqk\x1b(B", "␛lqk␛", ""},
	{"esc alignment test", "\x1b#8x", "␛x", ""},
	{"lone esc at end", "end\x1b", "end␛", ""},
	{"esc before non-ascii", "\x1bé", "␛é", ""},
	{"osc cancelled by can", "\x1b]0;x\x18after", "␛after", ""},
	{"osc cut by another esc", "\x1b]0;x\x1b[31mred", "␛␛red", ""},
	{"osc unterminated stops at the line end", "a\x1b]0;title\nnext", "a␛ next", "a␛\nnext"},
	{"osc unterminated", "a\x1b]0;title", "a␛", ""},

	// C1 controls: the 8-bit forms of the same sequences.
	{"c1 csi", "\u009b31mred\u009b0m", "␛red␛", ""},
	{"c1 osc with c1 st", "\u009d0;pwned\u009ctext", "␛text", ""},
	{"c1 osc with bel", "\u009d52;c;eA==\u0007text", "␛text", ""},
	{"c1 dcs", "\u0090q\u009cx", "␛x", ""},
	{"c1 next line", "a\u0085b", "a␛b", ""},

	// Other controls are shown as pictures, one cell each.
	{"bel", "ding\x07", "ding␇", ""},
	{"backspace overwrite", "safe\x08\x08\x08\x08evil", "safe␈␈␈␈evil", ""},
	{"nul", "a\x00b", "a␀b", ""},
	{"del", "a\x7fb", "a␡b", ""},
	{"invalid utf-8", "a\xffb\xc0", "a�b�", ""},
	{"noncharacter", "a\uFFFEb\U0010FFFF", "a�b�", ""},

	// Bidi controls and invisible characters are removed.
	{"rtl override", "invoice\u202Egpj.exe", "invoicegpj.exe", ""},
	{"bidi embeddings and isolates", "\u202Aa\u202Bb\u202Cc\u202Dd\u2066e\u2067f\u2068g\u2069", "abcdefg", ""},
	{"bidi marks", "\u200Ea\u200Fb\u061Cc", "abc", ""},
	{"zero width space", "pay\u200Bment", "payment", ""},
	{"zero width non-joiner", "a\u200Cb", "ab", ""},
	{"lone zero width joiner", "a\u200Db", "ab", ""},
	{"word joiner and bom", "\uFEFFa\u2060b", "ab", ""},
	{"soft hyphen", "pay\u00ADment", "payment", ""},
	{"invisible operators", "f\u2061(x)\u2062y", "f(x)y", ""},
	{"hangul fillers", "a\u3164b\u115Fc", "abc", ""},
	{"tags outside a flag", "a\U000E0061\U000E0062b", "ab", ""},
	{"combining grapheme joiner", "a\u034Fb", "ab", ""},

	// Combining marks are clamped to MaxMarks per base character.
	{"zalgo", "Z\u0351\u0354\u0358\u0335a\u0341\u0315\u0331l\u036Cg\u0300\u0301\u0302\u0303o", "Z\u0351\u0354a\u0341\u0315l\u036Cg\u0300\u0301o", ""},
	{"marks without a base", "\u0301\u0301\u0301start", "start", ""},
	{"marks split by zero width spaces", "a\u0301\u0301\u200B\u0301\u0301\u200B\u0301\u0301", "a\u0301\u0301", ""},
	{"marks after a line break", "a\n\u0301\u0301b", "a \u0301\u0301b", "a\nb"}, // on one line, on the space
	{"marks after an escape", "\x1b[0m\u0301\u0301\u0301", "␛\u0301\u0301", ""},
	{"skin tones stacked", "👍🏽🏽🏽🏽", "👍🏽🏽", ""},
}

// Asserts that Line and Text give what the corpus says for each hostile or unusual input.
func TestCorpus(t *testing.T) {
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			text := c.text
			if text == "" {
				text = c.line
			}
			assert.Equal(t, c.line, Line(c.in), "Line")
			assert.Equal(t, text, Text(c.in), "Text")
		})
	}
}

// Asserts that whatever the corpus holds, the results are inert: valid UTF-8, no rune that
// Unsafe rejects (but "\n" in Text and the joiners and tags inside an emoji), at most MaxMarks
// marks after a base, no cluster starting with a mark, the same result when cleaned twice, and
// no line break at all from Line.
func TestCorpusInvariants(t *testing.T) {
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			checkInert(t, Line(c.in), false)
			checkInert(t, Text(c.in), true)
		})
	}
}

// Asserts that a grapheme cluster of the input that has nothing to remove comes out as the
// same cluster, at the same width: emoji ZWJ sequences stay one grapheme of two cells, CJK
// characters two cells.
func TestGraphemesKept(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
	}{
		{"👨\u200d👩\u200d👧\u200d👦", 2},
		{"🏳️\u200d🌈", 2},
		{"👩🏽\u200d💻", 2},
		{"❤️\u200d🔥", 2},
		{"🇯🇵", 2},
		{"日", 2},
		{"한", 2},
		{"é", 1},
	} {
		out := Line(c.in)
		assert.Equal(t, c.in, out)
		assert.Equal(t, 1, countGraphemes(out), "%q is one grapheme", out)
		assert.Equal(t, c.width, ansi.StringWidth(out), "width of %q", out)
	}
}

// Asserts that plain printable ASCII comes back as the very same string, without a copy or an
// allocation (the dashboard cleans every note of every tick).
func TestPlainASCIIUnchanged(t *testing.T) {
	s := "the load alone: watch the queue grow"
	assert.Equal(t, s, Line(s))
	assert.Equal(t, "a\nb", Text("a\nb"))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Line(s); _ = Text("a\nb") }))
}

// Asserts which runes Unsafe reports: controls, separators, format and default-ignorable
// characters, noncharacters; not letters, marks, symbols, spaces or private use.
func TestUnsafe(t *testing.T) {
	for _, r := range []rune{0, '\t', '\n', 0x1b, 0x7f, 0x80, 0x9b, 0x9f, 0x2028, 0x2029, 0x200B, 0x200C, 0x200D, 0x200E,
		0x202E, 0x2066, 0x061C, 0x00AD, 0x2060, 0xFEFF, 0x3164, 0xE0001, 0xE0067, 0xFFFE, 0xFDD0} {
		assert.True(t, Unsafe(r), "%U", r)
	}
	for _, r := range []rune{' ', 'a', '~', 0xA0, 0xE9, 0x301, 0x65E5, 0x1F525, 0xFE0F, 0xE0B0, 0x241B, 0xFFFD} {
		assert.False(t, Unsafe(r), "%U", r)
	}
}

// FuzzLine asserts that for any bytes, Line and Text return inert text (see
// TestCorpusInvariants) and never panic.
func FuzzLine(f *testing.F) {
	for _, c := range corpus {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkInert(t, Line(s), false)
		checkInert(t, Text(s), true)
	})
}

// checkInert asserts that out, from Line (multiline false) or Text, is inert and stable.
func checkInert(t *testing.T, out string, multiline bool) {
	t.Helper()
	require.True(t, utf8.ValidString(out), "valid UTF-8: %q", out)
	again := Line(out)
	if multiline {
		again = Text(out)
	}
	assert.Equal(t, out, again, "cleaning twice changes nothing")
	it := graphemes.FromString(out)
	for it.Next() {
		g := it.Value()
		first, _ := utf8.DecodeRuneInString(g)
		assert.False(t, mark(first) && first != '\n', "cluster %q of %q starts with a mark", g, out)
		n := 0
		for i, r := range g {
			switch {
			case r == '\n':
				assert.True(t, multiline, "a line break from Line: %q", out)
			case r == zwj:
				assert.True(t, i > 0 && i+len(string(zwj)) < len(g), "a joiner outside a cluster's middle: %q", g)
			case r >= 0xe0020 && r <= 0xe007f:
				assert.Equal(t, blackFlag, first, "a tag outside a flag: %q", g)
			case Unsafe(r):
				assert.Fail(t, "unsafe rune", "%U in %q", r, out)
			case mark(r):
				n++
				assert.LessOrEqual(t, n, MaxMarks, "marks after one base in %q", g)
			default:
				n = 0
			}
		}
	}
	assert.NotContains(t, out, "\x1b")
	assert.False(t, strings.ContainsFunc(out, func(r rune) bool { return unicode.Is(unicode.Cc, r) && r != '\n' }), "a control in %q", out)
}

// countGraphemes returns the number of grapheme clusters of s.
func countGraphemes(s string) int {
	n := 0
	for it := graphemes.FromString(s); it.Next(); {
		n++
	}
	return n
}

// BenchmarkLine measures cleaning one caption: plain ASCII (the common case) and a hostile one.
func BenchmarkLine(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"ascii", "Payments die first: the CPS crosses 0.75 and the fleet sheds everything under priority 7."},
		{"hostile", "Pay\u200Bments \x1b]0;pwned\x07die \x1b[5mfirst\x1b[0m: Z\u0351\u0354\u0358\u0335algo \u202Eevil 支付 👨\u200d👩\u200d👧"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Line(c.s)
			}
		})
	}
}
