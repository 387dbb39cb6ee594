// Package safetext makes text from files inert for a terminal. Scenario files are shared
// between strangers, and their texts (name, summary, story, class names, notes) reach the
// dashboard and the command line's readable output; written raw, an escape sequence in a note
// retitles the terminal or writes the clipboard, and a bidi override or a zero-width character
// makes the terminal draw a line at another width than the program measured, so a panel's
// border shifts.
//
// Line and Text return what is left of a text once everything a terminal would act on, or draw
// at a width the program cannot know, is gone:
//
//   - an escape sequence (CSI, OSC, DCS, SOS, PM, APC and two-byte ESC sequences, in their
//     7-bit and their 8-bit C1 forms) becomes one "␛", its parameters and payload dropped, so a
//     reader sees that the file tried something without the clutter of a clipboard's base64;
//   - another C0 control becomes its Control Pictures symbol ("␇" for BEL, "␈" for BS), DEL
//     becomes "␡", a tab a space, and a line break (CR, LF, CRLF, U+2028, U+2029) a space for
//     Line or "\n" for Text; invalid UTF-8 and noncharacters become U+FFFD;
//   - bidirectional controls, zero-width characters and every other format or default-ignorable
//     character are removed (they have nothing to show), except the zero-width joiners and tag
//     characters inside one emoji, which stays one grapheme;
//   - combining marks (with variation selectors and emoji skin-tone modifiers) are kept at most
//     MaxMarks after each base character, and dropped where there is no base to carry them, so
//     stacked ("Zalgo") text cannot grow past its line.
//
// Pictures rather than removal for the controls: the symbols are one cell wide, read at once
// for what they are, and leave the text honest about what the file held. Plain printable ASCII
// is returned unchanged without copying.
//
// Grapheme clusters are those of Unicode 17 (github.com/clipperhouse/uax29, the segmenter that
// charmbracelet/x/ansi, and so lipgloss, measure widths with). The package uses no UI library:
// the dashboard, the command line and the core packages can all use it. Its functions are safe
// for concurrent use.
package safetext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
)

// MaxMarks is the most combining marks kept after one base character: enough for text such as
// Vietnamese written with separate accents (e + dot below + circumflex) or an emoji with its
// presentation selector and a keycap, too few for a stack to reach into the lines around it.
const MaxMarks = 2

// maxTags is the most tag characters kept after a black flag (U+1F3F4): the subdivision flags
// (England, Scotland, Wales) use six.
const maxTags = 8

// The runes the controls become.
const (
	escPicture = '␛'    // an escape sequence or a C1 control
	delPicture = '␡'    // DEL
	c0Pictures = 0x2400 // U+2400 + c is the picture of the C0 control c
	zwj        = '\u200D'
	blackFlag  = '\U0001F3F4'
)

// Line returns s made inert for a terminal, on one line: line breaks and tabs become spaces.
// Use it for names, summaries, class names, captions and log lines.
func Line(s string) string { return clean(s, false) }

// Text returns s made inert for a terminal, keeping its line breaks as "\n" (a CR or CRLF
// becomes "\n" too): use it for multi-line text such as a story or an error with context lines.
func Text(s string) string { return clean(s, true) }

// Unsafe reports whether r must not reach a terminal as it is: a C0 or C1 control, DEL, a line
// or paragraph separator, a format character (bidirectional controls, zero-width characters,
// the soft hyphen, tags...), another default-ignorable code point, or a noncharacter. Line and
// Text never return such a rune, except "\n" from Text and the joiners and tags inside an
// emoji; a printer that must keep text exact (a TOML writer) escapes them instead.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x2028, r == 0x2029:
		return true
	case r < 0x80:
		return false
	}
	return invisible(r) || nonchar(r)
}

// clean is Line (multiline false) or Text.
func clean(s string, multiline bool) string {
	if plain(s, multiline) {
		return s
	}
	return marks(controls(s, multiline))
}

// plain reports whether s is printable ASCII only (and "\n" when multiline), which is inert
// as it is.
func plain(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c > 0x7e) && (c != '\n' || !multiline) {
			return false
		}
	}
	return true
}

// controls is the first pass: escape sequences, controls, line breaks and invalid UTF-8.
func controls(s string, multiline bool) string {
	var b strings.Builder
	b.Grow(len(s))
	newline := func() {
		if multiline {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x1b:
			i = skipEscape(s, i)
			b.WriteRune(escPicture)
		case r >= 0x80 && r <= 0x9f:
			i = skipC1(s, i, r)
			b.WriteRune(escPicture)
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			newline()
		case r == '\n', r == 0x2028, r == 0x2029:
			newline()
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20:
			b.WriteRune(c0Pictures + r)
		case r == 0x7f:
			b.WriteRune(delPicture)
		default:
			b.WriteString(s[i-n : i])
		}
	}
	return b.String()
}

// skipEscape returns the index just past the escape sequence whose ESC ends before s[i].
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']', c == 'P', c == 'X', c == '^', c == '_': // OSC, DCS, SOS, PM, APC
		return skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f: // intermediates, then a final byte: ESC ( B, ESC # 8
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e: // ESC 7, ESC c (reset), ESC M
		return i + 1
	}
	return i // a lone ESC
}

// skipC1 returns the index just past the sequence that the C1 control r, ending before s[i],
// introduces (a lone control introduces nothing).
func skipC1(s string, i int, r rune) int {
	switch r {
	case 0x9b: // CSI
		return skipCSI(s, i)
	case 0x90, 0x98, 0x9d, 0x9e, 0x9f: // DCS, SOS, OSC, PM, APC
		return skipString(s, i)
	}
	return i
}

// skipCSI returns the index just past a control sequence whose introducer ends before s[i]:
// parameter bytes, intermediate bytes, then a final byte. A malformed sequence ends before the
// first byte that does not belong, which is then read as text.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString returns the index just past a control string (OSC, DCS, SOS, PM, APC) whose
// introducer ends before s[i], with its terminator: BEL, ST (ESC \ or U+009C), or CAN or SUB,
// which cancel it. An ESC that is not ST ends it too (a terminal then reads a new sequence).
// Unterminated, it ends at the end of its line, so the rest of a story survives.
func skipString(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case 0x07, 0x18, 0x1a:
			return i + 1
		case 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case '\n', '\r':
			return i
		case 0xc2: // U+009C (ST) in UTF-8
			if i+1 < len(s) && s[i+1] == 0x9c {
				return i + 2
			}
		}
	}
	return i
}

// marks is the second pass, cluster by cluster: invisible characters go, combining marks are
// clamped, joiners and tags stay only inside an emoji.
func marks(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	it := graphemes.FromString(s)
	for it.Next() {
		if g := it.Value(); len(g) == 1 {
			b.WriteString(g) // ASCII (the first pass left no control but "\n")
		} else {
			cluster(&b, g)
		}
	}
	return b.String()
}

// cluster writes what stays of the grapheme cluster g.
func cluster(b *strings.Builder, g string) {
	first := rune(-1) // the cluster's first base
	after := -1       // marks written after the last base; -1 before any base
	tags := 0
	for i, r := range g {
		switch {
		case r == zwj:
			// Kept between a base and a letter or symbol of the same cluster: an emoji ZWJ
			// sequence (family, rainbow flag) or an Indic conjunct. Alone it only hides.
			rest := g[i+len(string(zwj)):]
			next, _ := utf8.DecodeRuneInString(rest)
			if after >= 0 && rest != "" && (unicode.IsLetter(next) || unicode.IsSymbol(next)) {
				b.WriteRune(r)
			}
		case r >= 0xe0020 && r <= 0xe007f: // tags: only in a subdivision flag
			if first == blackFlag && tags < maxTags {
				b.WriteRune(r)
				tags++
			}
		case r < 0x20, invisible(r): // the first pass left only "\n", alone in its cluster
		case mark(r):
			if after >= 0 && after < MaxMarks {
				b.WriteRune(r)
				after++
			}
		case nonchar(r):
			b.WriteRune(utf8.RuneError)
			after = 0
		default:
			b.WriteRune(r)
			after = 0
			if first < 0 {
				first = r
			}
		}
	}
}

// mark reports whether r draws on the base before it: a combining mark (variation selectors
// included) or an emoji skin-tone modifier.
func mark(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) || (r >= 0x1f3fb && r <= 0x1f3ff)
}

// invisible reports whether r is a format character (bidi controls, zero-width characters,
// soft hyphen, tags...) or another default-ignorable code point (Hangul fillers, the combining
// grapheme joiner...): nothing a reader can see, and widths terminals disagree about.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point)
}

// nonchar reports whether r is a noncharacter (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF).
func nonchar(r rune) bool { return (r >= 0xfdd0 && r <= 0xfdef) || r&0xfffe == 0xfffe }
