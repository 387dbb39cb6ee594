//go:build unix

package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/load"
)

// feed makes a FIFO in a fresh directory and writes text into it from a goroutine, forever when
// endless, until the reader goes away; done closes when the writer has stopped.
func feed(t *testing.T, text string, endless bool) (path string, done <-chan struct{}) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "fifo.toml")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		w, err := os.OpenFile(path, os.O_WRONLY, 0) // blocks until the reader opens
		if err != nil {
			return
		}
		defer w.Close()
		for {
			if _, err := w.WriteString(text); err != nil || !endless {
				return // EPIPE once the reader has closed its end
			}
		}
	}()
	return path, ch
}

// TestFIFO asserts that a FIFO fed forever (like `yes > fifo`) is refused once it passes the
// limit, within the time and memory bound, and that a FIFO carrying a small file loads.
func TestFIFO(t *testing.T) {
	for _, k := range []load.Kind{load.Scenario, load.Keys} {
		t.Run(k.Name, func(t *testing.T) {
			path, done := feed(t, strings.Repeat("y\n", 4096), true)
			err := bounded(t, func() error { _, err := load.File(path, k); return err })
			require.Error(t, err)
			assert.Regexp(t, `^.*fifo\.toml: larger than \d+ [KM]iB \(the limit for a `+k.Name+`\)$`, err.Error())
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the writer did not stop after the reader closed the FIFO")
			}
		})
	}
	t.Run("a small file through a FIFO", func(t *testing.T) {
		path, done := feed(t, "pause = [\"p\"]\n", false)
		data, err := load.File(path, load.Keys)
		require.NoError(t, err)
		assert.Equal(t, "pause = [\"p\"]\n", string(data))
		<-done
	})
}
