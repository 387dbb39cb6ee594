// Package vt is a small terminal emulator for tests: a Screen of cells fed with what a program
// writes to its terminal, as far as Bubble Tea's standard renderer and the SSH server's
// terminal query need: printable text (grapheme clusters and their cell widths, with a
// deferred wrap at the last column), CR, LF (scrolling at the bottom), BS, cursor moves (CUP,
// HVP, CUU, CUD, CUF, CUB, CHA, VPA), erasing (EL, ED), the alternate screen (modes 1049 and
// 47); SGR and the other modes are read and ignored, so the cells hold text only. Like a real
// terminal it answers the primary device attributes query (DA1) and the background colour
// query (OSC 11) through its Answer writer, unless told to stay silent. It is safe for
// concurrent use.
package vt

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Screen is a terminal's screen of W x H cells. Build it with New.
type Screen struct {
	mu      sync.Mutex
	w, h    int
	cells   [][]string // a grapheme per cell; "" for the cell a wide grapheme covers too
	main    [][]string // the main screen, kept while the alternate one shows
	x, y    int
	wrap    bool // the last column was written: the next grapheme goes to the next line
	alt     bool
	state   byte
	carry   []byte // an incomplete sequence or grapheme at the end of the last Write
	p       *ansi.Parser
	answer  io.Writer
	bg      string // the background the screen says it has, "rgb:RRRR/GGGG/BBBB"
	silent  bool   // answers no query
	written int    // bytes written so far
	changed chan struct{}
}

// Options say how a Screen answers queries. The zero value answers as a dark terminal.
type Options struct {
	Answer     io.Writer // where answers go (the program's input); nil: none sent
	Background string    // the answer to OSC 11, "rgb:RRRR/GGGG/BBBB" ("" is black)
	Silent     bool      // answer nothing, as some terminals and harnesses do
}

// New returns a blank screen of w x h cells.
func New(w, h int, o Options) *Screen {
	s := &Screen{w: w, h: h, p: ansi.NewParser(), answer: o.Answer, bg: o.Background, silent: o.Silent, changed: make(chan struct{})}
	if s.bg == "" {
		s.bg = "rgb:0000/0000/0000"
	}
	s.cells = blank(w, h)
	return s
}

// blank returns h rows of w spaces.
func blank(w, h int) [][]string {
	rows := make([][]string, h)
	for i := range rows {
		rows[i] = make([]string, w)
		for j := range rows[i] {
			rows[i][j] = " "
		}
	}
	return rows
}

// Resize changes the screen's size, keeping what fits (the terminal's window was resized).
func (s *Screen) Resize(w, h int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	resize := func(old [][]string) [][]string {
		rows := blank(w, h)
		for y := 0; y < min(h, len(old)); y++ {
			copy(rows[y], old[y][:min(w, len(old[y]))])
		}
		return rows
	}
	s.cells = resize(s.cells)
	if s.main != nil {
		s.main = resize(s.main)
	}
	s.w, s.h = w, h
	s.x, s.y = min(s.x, w-1), min(s.y, h-1)
	s.wrap = false
}

// Write feeds the screen with what the program wrote.
func (s *Screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written += len(b)
	data := append(s.carry, b...)
	s.carry = nil
	for len(data) > 0 {
		if !utf8.FullRune(data) && data[0] >= utf8.RuneSelf {
			break // the rest of the rune comes with the next write
		}
		seq, width, n, state := ansi.DecodeSequence(data, s.state, s.p)
		if n == 0 {
			break
		}
		if state != ansi.NormalState && n == len(data) {
			s.state = 0
			s.p.Reset()
			s.carry = append([]byte(nil), data...)
			data = nil
			break
		}
		s.state = state
		s.apply(seq, width)
		data = data[n:]
	}
	s.carry = append(s.carry, data...)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(b), nil
}

// apply carries out one sequence or grapheme.
func (s *Screen) apply(seq []byte, width int) {
	switch {
	case len(seq) == 0:
	case seq[0] == 0x1b && len(seq) > 1 && seq[1] == '[':
		s.csi(string(seq))
	case seq[0] == 0x1b && len(seq) > 1 && seq[1] == ']':
		s.osc(string(seq))
	case seq[0] == 0x1b:
	case seq[0] == '\r':
		s.x, s.wrap = 0, false
	case seq[0] == '\n':
		s.lineFeed()
	case seq[0] == '\b':
		s.x, s.wrap = max(s.x-1, 0), false
	case seq[0] < 0x20 || seq[0] == 0x7f:
	default:
		s.print(string(seq), width)
	}
}

// print writes a grapheme of width cells at the cursor.
func (s *Screen) print(g string, width int) {
	if width <= 0 {
		return
	}
	if s.wrap || s.x+width > s.w {
		s.x, s.wrap = 0, false
		s.lineFeed()
	}
	if s.y >= s.h || s.x >= s.w {
		return
	}
	s.cells[s.y][s.x] = g
	for i := 1; i < width && s.x+i < s.w; i++ {
		s.cells[s.y][s.x+i] = ""
	}
	s.x += width
	if s.x >= s.w {
		s.x, s.wrap = s.w-1, true
	}
}

// lineFeed moves the cursor down, scrolling the screen at its bottom.
func (s *Screen) lineFeed() {
	s.wrap = false
	if s.y < s.h-1 {
		s.y++
		return
	}
	copy(s.cells, s.cells[1:])
	s.cells[s.h-1] = blank(s.w, 1)[0]
}

// csi carries out a control sequence.
func (s *Screen) csi(seq string) {
	cmd := ansi.Cmd(s.p.Command())
	n := func(i int) int { v, _ := s.p.Param(i, 1); return max(v, 1) }
	zero := func(i int) int { v, _ := s.p.Param(i, 0); return v }
	s.wrap = false
	switch cmd.Final() {
	case 'H', 'f':
		s.y, s.x = min(n(0), s.h)-1, min(n(1), s.w)-1
	case 'A':
		s.y = max(s.y-n(0), 0)
	case 'B':
		s.y = min(s.y+n(0), s.h-1)
	case 'C':
		s.x = min(s.x+n(0), s.w-1)
	case 'D':
		s.x = max(s.x-n(0), 0)
	case 'G':
		s.x = min(n(0), s.w) - 1
	case 'd':
		s.y = min(n(0), s.h) - 1
	case 'K':
		from, to := s.x, s.w
		switch zero(0) {
		case 1:
			from, to = 0, s.x+1
		case 2:
			from = 0
		}
		for x := from; x < to && s.y < s.h; x++ {
			s.cells[s.y][x] = " "
		}
	case 'J':
		switch zero(0) {
		case 0:
			for x := s.x; x < s.w; x++ {
				s.cells[s.y][x] = " "
			}
			for y := s.y + 1; y < s.h; y++ {
				s.cells[y] = blank(s.w, 1)[0]
			}
		case 2, 3:
			s.cells = blank(s.w, s.h)
		}
	case 'h', 'l':
		if cmd.Prefix() == '?' {
			for _, p := range s.p.Params() {
				if m := p.Param(0); m == 1049 || m == 47 || m == 1047 {
					s.altScreen(cmd.Final() == 'h')
				}
			}
		}
	case 'c':
		if cmd.Prefix() == 0 && !s.silent && s.answer != nil {
			_, _ = io.WriteString(s.answer, "\x1b[?62;22c")
		}
	}
}

// altScreen switches to the alternate screen (a blank one) or back to the main one.
func (s *Screen) altScreen(on bool) {
	if on == s.alt {
		return
	}
	s.alt = on
	if on {
		s.main = s.cells
		s.cells = blank(s.w, s.h)
		return
	}
	s.cells, s.main = s.main, nil
}

// osc answers the background colour query; other OSC sequences are ignored.
func (s *Screen) osc(seq string) {
	if strings.HasPrefix(seq, "\x1b]11;?") && !s.silent && s.answer != nil {
		_, _ = fmt.Fprintf(s.answer, "\x1b]11;%s\x07", s.bg)
	}
}

// Lines returns the screen's rows as text, each exactly W cells (a wide grapheme counts for
// its cells).
func (s *Screen) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, s.h)
	for y, row := range s.cells {
		out[y] = strings.Join(row, "")
	}
	return out
}

// String returns the screen's rows joined by newlines.
func (s *Screen) String() string { return strings.Join(s.Lines(), "\n") }

// Size returns the screen's width and height in cells.
func (s *Screen) Size() (w, h int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w, s.h
}

// Alt reports whether the alternate screen shows.
func (s *Screen) Alt() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.alt
}

// Written returns how many bytes the program has written so far.
func (s *Screen) Written() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written
}

// Changed returns a channel closed at the next Write.
func (s *Screen) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}
