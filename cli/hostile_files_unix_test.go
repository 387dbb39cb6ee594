//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// yes makes a FIFO in a fresh directory fed forever by a goroutine, like `yes > fifo`, until
// the reader goes away; done closes when the writer has stopped.
func yes(t *testing.T) (path string, done <-chan struct{}) {
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
		line := strings.Repeat("y\n", 4096)
		for {
			if _, err := w.WriteString(line); err != nil {
				return // EPIPE once the reader has closed its end
			}
		}
	}()
	return path, ch
}

// TestEndlessFiles asserts that devices and FIFOs that never end (which used to be read until
// the memory ran out) are refused after reading the limit, with the size limit in the message,
// by every command that reads a file, within the time and memory bound.
func TestEndlessFiles(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skipf("%s: %v", dev, err)
		}
	}
	scenarioCmds := func(path string) [][]string {
		return [][]string{
			{"validate", path},
			{"run", "--scenario-file", path, "--headless"},
			{"bench", "--scenario-file", path},
			{"tune", "--scenario-file", path},
			{"tune", "--scenario", "metastable", "--engine", path},
		}
	}
	check := func(t *testing.T, args []string, path string) {
		t.Helper()
		code, out, errOut := executeBounded(t, "", args...)
		assert.Empty(t, out, args)
		msg := path + ": larger than 1 MiB (the limit for a scenario file)\n"
		switch args[0] {
		case "validate":
			assert.Equal(t, 1, code, args)
			assert.Equal(t, msg+"cortex-tui: 1 of 1 file(s) invalid\n", errOut, args)
		case "tune":
			if args[1] == "--scenario" { // the engine file
				assert.Equal(t, 2, code, args)
				assert.Equal(t, "cortex-tui: bad engine file:\n"+path+": larger than 64 KiB (the limit for a CORTEX configuration file)\n", errOut, args)
				return
			}
			assert.Equal(t, 1, code, args)
			assert.Equal(t, "cortex-tui: "+msg, errOut, args)
		case "--keys":
			assert.Equal(t, 2, code, args)
			assert.Equal(t, "cortex-tui: bad key file: "+path+": larger than 64 KiB (the limit for a key file)\n", errOut, args)
		default:
			assert.Equal(t, 1, code, args)
			assert.Equal(t, "cortex-tui: "+msg, errOut, args)
		}
	}
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		for _, args := range append(scenarioCmds(dev), []string{"--keys", dev}) {
			t.Run(strings.Join(args, " "), func(t *testing.T) { check(t, args, dev) })
		}
	}
	for _, mk := range []func(string) [][]string{scenarioCmds, func(p string) [][]string { return [][]string{{"--keys", p}} }} {
		for _, args := range mk("FIFO") {
			t.Run(strings.Join(args, " ")+" fed by yes", func(t *testing.T) {
				path, done := yes(t)
				args = append([]string(nil), args...)
				for i, a := range args {
					if a == "FIFO" {
						args[i] = path
					}
				}
				check(t, args, path)
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("the writer did not stop after the reader closed the FIFO")
				}
			})
		}
	}
}
