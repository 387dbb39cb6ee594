package serve

import (
	"bytes"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTerminal is the client's side of an input: what it sends (src) and what it is sent.
type fakeTerminal struct {
	src     *io.PipeWriter
	mu      sync.Mutex
	out     bytes.Buffer
	onQuery func() // the terminal answering, once asked (nil: silent)
}

func (f *fakeTerminal) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.onQuery != nil {
		go f.onQuery()
	}
	return f.out.Write(p)
}

// readN reads n bytes of the program's input, failing after a second.
func readN(t *testing.T, in *input, n int) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		b := make([]byte, n)
		_, _ = io.ReadFull(in, b)
		got <- string(b)
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(5 * time.Second):
		require.FailNow(t, "no input")
	}
	return ""
}

// Asserts that ask sends the query, reads the terminal's answer (dark or light background),
// and passes on, in order and without the answers, what the user typed meanwhile; that a
// terminal that does not answer costs the timeout and loses no key; and that Last moves with
// every byte.
func TestInputAsk(t *testing.T) {
	for _, tc := range []struct {
		name        string
		reply       string
		dark, known bool
	}{
		{"dark", "\x1b]11;rgb:1e1e/1e1e/2e2e\x07\x1b[?62;22c", true, true},
		{"light", "\x1b]11;rgb:ffff/fefe/f0f0\x1b\\\x1b[?62c", false, true},
		{"short hex", "\x1b]11;rgb:f/f/f\x07\x1b[?1;2c", false, true},
		{"no colour", "\x1b[?62;22c", false, false},
		{"silent", "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w := io.Pipe()
			defer w.Close()
			start := time.Now()
			in, err := newInput(r, time.Now)
			require.NoError(t, err)
			defer in.Close()
			term := &fakeTerminal{src: w}
			_, _ = w.Write([]byte("ab")) // typed before the query
			if tc.reply != "" {
				term.onQuery = func() {
					half := len(tc.reply) / 2
					_, _ = w.Write([]byte(tc.reply[:half]))
					_, _ = w.Write([]byte(tc.reply[half:] + "c"))
				}
			}
			timeout := 10 * time.Second // the answer ends the wait
			if tc.reply == "" {
				timeout = 300 * time.Millisecond
			}
			dark, known := in.ask(term, timeout)
			assert.Equal(t, tc.dark, dark)
			assert.Equal(t, tc.known, known)
			term.mu.Lock()
			assert.Equal(t, string(bgQuery), term.out.String(), "the query was sent")
			term.mu.Unlock()
			typed := "ab"
			if tc.reply != "" {
				typed = "abc"
			}
			_, _ = w.Write([]byte("d"))
			got := readN(t, in, len(typed)+1)
			assert.Equal(t, typed+"d", got, "the keys typed, in order, without the answer")
			assert.True(t, !in.Last().Before(start))
		})
	}
}

// Asserts that the answers of a terminal that answers after the query timed out (a slow link, a
// loaded server) are never typed into the dashboard, whole or cut across reads anywhere, while
// the keys around them go on in order; once the device attributes' answer has come, what the
// client sends is its keys again, ESC included.
func TestInputLateAnswer(t *testing.T) {
	answer := "\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[?62;22c"
	for cut := range len(answer) + 1 {
		r, w := io.Pipe()
		in, err := newInput(r, time.Now)
		require.NoError(t, err)
		term := &fakeTerminal{src: w}
		dark, known := in.ask(term, time.Millisecond)
		require.False(t, known)
		require.False(t, dark)
		go func() {
			_, _ = w.Write([]byte("a" + answer[:cut]))
			_, _ = w.Write([]byte(answer[cut:] + "b"))
			_, _ = w.Write([]byte("\x1b"))
		}()
		assert.Equal(t, "ab\x1b", readN(t, in, 3), "cut at %d", cut)
		in.Close()
		w.Close()
	}
}

// Asserts that once closed, the program's reads end and the pump drops what follows without
// blocking, until the session ends.
func TestInputClose(t *testing.T) {
	r, w := io.Pipe()
	in, err := newInput(r, time.Now)
	require.NoError(t, err)
	in.Close()
	_, err = in.Read(make([]byte, 1))
	assert.Error(t, err)
	for range 100 {
		_, err := w.Write(bytes.Repeat([]byte("x"), 4096)) // more than a pipe holds
		require.NoError(t, err)
	}
	w.Close()
}
