// Package shot turns a frame of the dashboard, as drawn for the terminal (text with SGR
// colour sequences), into a picture for a slide: an SVG whose every glyph is pinned to its
// terminal cell (a glyph the font draws wider or lacks cannot shift the rest of its line), and
// the same frame as plain text. No tool runs: the picture is written from the frame alone.
package shot

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The picture's cell, in pixels, at a font size of 14 px (a monospace advance is 0.6 em).
const (
	cellW    = 8.4
	cellH    = 17.0
	fontSize = 14
	baseline = 13.0 // from the top of a cell
	pad      = 8.0  // around the screen
)

// The colours the terminal's defaults stand for: a dark background and a light foreground.
const (
	defaultFG = "#d0d0d0"
	defaultBG = "#171717"
)

// style is the SGR state of a cell.
type style struct {
	fg, bg                 string // "" is the default
	bold, faint, underline bool
	italic, reverse        bool
}

// Text is the frame as plain text: its lines without any escape sequence, trailing spaces kept
// (every line the frame's width), ending with a newline.
func Text(frame string) string {
	return ansi.Strip(frame) + "\n"
}

// SVG draws frame (lines separated by "\n", with SGR sequences) as an SVG of cols x rows cells;
// lines and columns beyond them are cut. Each run of cells of one style is one text element
// with an x for each glyph; each run of one background colour one rectangle.
func SVG(frame string, cols, rows int) []byte {
	w, h := pad*2+float64(cols)*cellW, pad*2+float64(rows)*cellH
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">`+"\n", num(w), num(h), num(w), num(h))
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="%s"/>`+"\n", defaultBG)
	fmt.Fprintf(&b, `<g font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d" xml:space="preserve">`+"\n", fontSize)
	for y, line := range strings.Split(frame, "\n") {
		if y >= rows {
			break
		}
		drawLine(&b, line, y, cols)
	}
	b.WriteString("</g>\n</svg>\n")
	return b.Bytes()
}

// cellRun is a run of glyphs of one style on one line, from column col.
type cellRun struct {
	st     style
	col    int
	glyphs []string
	xs     []int // each glyph's column
}

// drawLine draws one line of the frame at row y: its backgrounds, then its glyphs.
func drawLine(b *bytes.Buffer, line string, y, cols int) {
	var st style
	var runs []cellRun
	col := 0
	p := ansi.GetParser()
	defer ansi.PutParser(p)
	var state byte
	for len(line) > 0 && col < cols {
		seq, width, n, newState := ansi.DecodeSequence(line, state, p)
		state = newState
		line = line[n:]
		if width == 0 {
			if ansi.HasCsiPrefix(seq) && ansi.Cmd(p.Command()).Final() == 'm' {
				st = st.apply(p)
			}
			continue
		}
		if col+width > cols {
			break
		}
		if len(runs) == 0 || runs[len(runs)-1].st != st {
			runs = append(runs, cellRun{st: st, col: col})
		}
		r := &runs[len(runs)-1]
		r.glyphs = append(r.glyphs, seq)
		r.xs = append(r.xs, col)
		col += width
	}
	top := pad + float64(y)*cellH
	for _, r := range runs { // backgrounds first: a glyph may reach over its cell
		_, bg := r.st.colours()
		if bg == defaultBG {
			continue
		}
		last := r.xs[len(r.xs)-1] + max(ansi.StringWidth(r.glyphs[len(r.glyphs)-1]), 1)
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
			num(pad+float64(r.col)*cellW), num(top), num(float64(last-r.col)*cellW), num(cellH), bg)
	}
	for _, r := range runs {
		if strings.TrimSpace(strings.Join(r.glyphs, "")) == "" {
			continue // blank: its background is drawn
		}
		var text strings.Builder
		var xs []string
		for i, g := range r.glyphs {
			text.WriteString(escape(g))
			for range []rune(g) { // one x per character of the glyph (SVG places characters)
				xs = append(xs, num(pad+float64(r.xs[i])*cellW))
			}
		}
		fg, _ := r.st.colours()
		fmt.Fprintf(b, `<text x="%s" y="%s" fill="%s"%s>%s</text>`+"\n", strings.Join(xs, " "), num(top+baseline), fg, r.st.attrs(), text.String())
	}
}

// apply changes st by the SGR sequence the parser holds.
func (st style) apply(p *ansi.Parser) style {
	params := p.Params()
	if len(params) == 0 {
		return style{}
	}
	for i := 0; i < len(params); i++ {
		c := params[i].Param(0)
		switch {
		case c == 0:
			st = style{}
		case c == 1:
			st.bold = true
		case c == 2:
			st.faint = true
		case c == 3:
			st.italic = true
		case c == 4:
			st.underline = true
		case c == 7:
			st.reverse = true
		case c == 22:
			st.bold, st.faint = false, false
		case c == 23:
			st.italic = false
		case c == 24:
			st.underline = false
		case c == 27:
			st.reverse = false
		case c >= 30 && c <= 37:
			st.fg = basic[c-30]
		case c >= 90 && c <= 97:
			st.fg = basic[c-90+8]
		case c == 39:
			st.fg = ""
		case c >= 40 && c <= 47:
			st.bg = basic[c-40]
		case c >= 100 && c <= 107:
			st.bg = basic[c-100+8]
		case c == 49:
			st.bg = ""
		case c == 38 || c == 48:
			colour, used := extended(params[i+1:])
			i += used
			if c == 38 {
				st.fg = colour
			} else {
				st.bg = colour
			}
		}
	}
	return st
}

// extended reads the colour of a 38 or 48 from the parameters after it: 5;N (the 256-colour
// palette) or 2;R;G;B, and says how many it used; "" (the default) for anything else.
func extended(rest ansi.Params) (string, int) {
	if len(rest) >= 2 && rest[0].Param(0) == 5 {
		return palette(rest[1].Param(0)), 2
	}
	if len(rest) >= 4 && rest[0].Param(0) == 2 {
		return fmt.Sprintf("#%02x%02x%02x", rest[1].Param(0)&0xff, rest[2].Param(0)&0xff, rest[3].Param(0)&0xff), 4
	}
	return "", len(rest)
}

// colours are the cell's foreground and background as drawn (reverse swaps them).
func (st style) colours() (fg, bg string) {
	fg, bg = st.fg, st.bg
	if fg == "" {
		fg = defaultFG
	}
	if bg == "" {
		bg = defaultBG
	}
	if st.reverse {
		fg, bg = bg, fg
	}
	return fg, bg
}

// attrs are the text element's attributes for bold, faint, italic and underline.
func (st style) attrs() string {
	var a strings.Builder
	if st.bold {
		a.WriteString(` font-weight="bold"`)
	}
	if st.faint {
		a.WriteString(` opacity="0.6"`)
	}
	if st.italic {
		a.WriteString(` font-style="italic"`)
	}
	if st.underline {
		a.WriteString(` text-decoration="underline"`)
	}
	return a.String()
}

// basic are the 16 colours of xterm's default palette.
var basic = [16]string{"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"}

// palette is colour n of xterm's 256: the 16, the 6x6x6 cube, the 24 greys.
func palette(n int) string {
	switch {
	case n < 0 || n > 255:
		return ""
	case n < 16:
		return basic[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	}
	g := 8 + 10*(n-232)
	return fmt.Sprintf("#%02x%02x%02x", g, g, g)
}

// num writes a length with at most two decimals.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// escape makes a glyph safe inside an XML element.
func escape(s string) string {
	switch s {
	case "&":
		return "&amp;"
	case "<":
		return "&lt;"
	case ">":
		return "&gt;"
	}
	return s
}
