package serve

import (
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

	mu  sync.Mutex // guards q, and orders writes into the pipe (wmu is taken under it)
	q   *query
	wmu sync.Mutex // held while writing into the pipe
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
	in.wmu.Lock()
	in.mu.Unlock()
	_, _ = in.w.Write(b)
	in.wmu.Unlock()
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
