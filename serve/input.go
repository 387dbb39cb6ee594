package serve

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// input is a session's keyboard. One goroutine (pump) reads the client's bytes and writes them
// into a pipe whose read end Bubble Tea reads: a file, so that the program's reads end at once
// when it stops (a cancelable read, where a read of the SSH channel would stay blocked until
// the next key and take it). The pump also answers the terminal query of ask, taking the
// terminal's replies out of the stream, and remembers when the last byte came (idle). It is
// safe for concurrent use.
type input struct {
	r, w *os.File // the pipe: Bubble Tea reads r, the pump writes w
	now  func() time.Time
	last atomic.Int64 // unix nanoseconds of the latest byte (or of the start)

	mu sync.Mutex // guards q, late and carry, and orders writes into the pipe (wmu is taken under it)
	q  *query
	// late is until when an answer to a query that timed out may still come (a slow link, a
	// loaded server): until then, or until the device attributes' answer comes, the answers
	// are taken out of what the client sends, never typed into the dashboard (a background
	// answer read as keys types "/" and opens the picker's filter). Zero: none is due.
	late  time.Time
	carry []byte     // the start of an answer cut at the end of a read, held for the next
	wmu   sync.Mutex // held while writing into the pipe
}

// query is a terminal query waiting for its answer: what the client sent meanwhile, and a
// channel closed once the answer is complete.
type query struct {
	buf  []byte
	done chan struct{}
}

// newInput starts the pump on src (the session) and returns the input Bubble Tea reads.
func newInput(src io.Reader, now func() time.Time) (*input, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	in := &input{r: r, w: w, now: now}
	in.last.Store(now().UnixNano())
	go in.pump(src)
	return in, nil
}

// Read reads the client's keys (Bubble Tea's input).
func (in *input) Read(p []byte) (int, error) { return in.r.Read(p) }

// file is the pipe's read end, for Bubble Tea (tea.WithInput).
func (in *input) file() *os.File { return in.r }

// Last returns when the client last sent a byte (the start, before the first one).
func (in *input) Last() time.Time { return time.Unix(0, in.last.Load()) }

// Close closes the pipe's write end: the program's reads end (EOF, if its cancelled read has
// not returned yet); the pump goes on reading the session, and dropping what it reads, until
// the session ends. The read end is left to the runtime, which closes it once nothing refers
// to it: Bubble Tea v1.3.10 waits at most 500 ms for its read loop when it stops, so on a
// loaded machine the loop may still be about to read it (closing it here would free its
// descriptor under that read, for another file to take).
func (in *input) Close() {
	in.wmu.Lock()
	_ = in.w.Close()
	in.wmu.Unlock()
}

// pump copies the session's bytes into the pipe (or into the query waiting for its answer)
// until the session ends.
func (in *input) pump(src io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			in.last.Store(in.now().UnixNano())
			in.take(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// take hands b to the query waiting for its answer, or writes it into the pipe. A write that
// fails (the program has stopped) drops b.
func (in *input) take(b []byte) {
	in.mu.Lock()
	if q := in.q; q != nil {
		q.buf = append(q.buf, b...)
		if len(q.buf) > maxQueryBytes || da1Reply.Match(q.buf) {
			in.q = nil
			close(q.done)
		}
		in.mu.Unlock()
		return
	}
	if !in.late.IsZero() {
		b = in.lateAnswers(b)
	}
	in.wmu.Lock()
	in.mu.Unlock()
	if len(b) > 0 {
		_, _ = in.w.Write(b)
	}
	in.wmu.Unlock()
}

// lateFor is how long after a query timed out its answers are still taken out of the input.
const lateFor = 10 * time.Second

// lateAnswers returns b without the answers of a query that timed out, holding back the start
// of one cut at its end; the wait ends with the device attributes' answer, or at in.late.
// in.mu is held.
func (in *input) lateAnswers(b []byte) []byte {
	b = append(in.carry, b...)
	in.carry = nil
	if in.now().After(in.late) {
		in.late = time.Time{}
		return b
	}
	if da1Reply.Match(b) {
		in.late = time.Time{}
	}
	b = da1Reply.ReplaceAll(bgReply.ReplaceAll(b, nil), nil)
	if i := cutAnswer(b); !in.late.IsZero() && i >= 0 {
		in.carry = append([]byte(nil), b[i:]...)
		b = b[:i]
	}
	return b
}

// maxAnswerBytes is the longest answer lateAnswers holds back while it is cut.
const maxAnswerBytes = 64

// answerStarts are how the answers to the query begin.
var answerStarts = [][]byte{[]byte("\x1b]11;"), []byte("\x1b[?")}

// cutAnswer returns where an answer cut at the end of b begins (complete ones were taken out:
// one that has begun is cut), at most maxAnswerBytes before the end; -1 for none. The start of
// an answer's introducer at the very end (ESC, ESC ], ESC [ ...) counts too.
func cutAnswer(b []byte) int {
	cut := -1
	for _, p := range answerStarts {
		if i := bytes.LastIndex(b, p); i >= 0 && len(b)-i <= maxAnswerBytes && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		return cut
	}
	for _, p := range answerStarts {
		for n := len(p) - 1; n >= 1; n-- {
			if bytes.HasSuffix(b, p[:n]) {
				return len(b) - n
			}
		}
	}
	return -1
}

// maxQueryBytes ends a query whose client sends this much without answering.
const maxQueryBytes = 4096

// The query ask sends (the background colour, then the primary device attributes: every
// terminal answers the second, so its answer ends the wait) and the answers it looks for.
var (
	bgQuery  = []byte("\x1b]11;?\x07\x1b[c")
	da1Reply = regexp.MustCompile(`\x1b\[\?[0-9;]*c`)
	bgReply  = regexp.MustCompile(`\x1b\]11;rgb:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})(?:\x07|\x1b\\)`)
)

// ask asks the terminal behind out for its background colour and waits for the answer, at
// most timeout: dark reports whether the background is dark, known whether the terminal said.
// What the client typed meanwhile goes on to the program, in order, without the answers.
func (in *input) ask(out io.Writer, timeout time.Duration) (dark, known bool) {
	q := &query{done: make(chan struct{})}
	in.mu.Lock()
	in.q = q
	in.mu.Unlock()
	if _, err := out.Write(bgQuery); err == nil {
		t := time.NewTimer(timeout)
		select {
		case <-q.done:
		case <-t.C:
		}
		t.Stop()
	}
	in.mu.Lock()
	if in.q == q {
		in.q = nil
	}
	got := q.buf
	dark, known = background(got)
	rest := da1Reply.ReplaceAll(bgReply.ReplaceAll(got, nil), nil)
	if !da1Reply.Match(got) { // timed out: the answers may still come, or be coming
		in.late = in.now().Add(lateFor)
		rest = in.lateAnswers(rest)
	}
	in.wmu.Lock()
	in.mu.Unlock()
	if len(rest) > 0 {
		_, _ = in.w.Write(rest)
	}
	in.wmu.Unlock()
	return dark, known
}

// background reads a terminal's answer to the background query in b: whether the colour is
// dark (lightness under one half, as wish decides it), and whether there was an answer.
func background(b []byte) (dark, known bool) {
	m := bgReply.FindSubmatch(b)
	if m == nil {
		return false, false
	}
	var c [3]float64
	for i, hex := range m[1:] {
		v, _ := strconv.ParseUint(string(hex), 16, 16)
		c[i] = float64(v) / float64(uint64(1)<<(4*len(hex))-1)
	}
	lightness := (max(c[0], c[1], c[2]) + min(c[0], c[1], c[2])) / 2
	return lightness < 0.5, true
}
