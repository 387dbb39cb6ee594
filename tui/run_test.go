package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Asserts that Run draws the dashboard, returns nil when the user quits, closes the source, and
// leaves no goroutine of ours behind.
func TestRunQuits(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ff := &fakeFactory{}
	scn := fakeScenario()
	var out bytes.Buffer
	err := Run(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: t.TempDir()}, strings.NewReader("q"), &out)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "fake-storm")
	assert.True(t, ff.last().closed)
}

// Asserts that Run refuses options without a factory, with an error that names it.
func TestRunNeedsAFactory(t *testing.T) {
	err := Run(Options{Keys: testKeys()}, strings.NewReader(""), &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Factory")
}

// Asserts that a factory that panics is reported in the footer instead of crashing.
func TestFactoryPanicIsReported(t *testing.T) {
	scn := fakeScenario()
	boom := func(scenarios.Scenario, string, int64) (source.Source, error) { panic("kaboom") }
	m := New(Options{Keys: testKeys(), Factory: boom, Scenario: &scn})
	assert.Equal(t, screenPicker, m.screen)
	assert.Contains(t, m.footer.Status(), "kaboom")
}

// Asserts that RunContext stops when its context is cancelled (as the CLI does on SIGTERM):
// it returns an error wrapping the context's cause, leaves the alternate screen and shows the
// cursor again (the terminal restored), closes the source and leaves no goroutine behind.
func TestRunContextStopsOnCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ff := &fakeFactory{}
	scn := fakeScenario()
	var out syncBuffer
	stop := errors.New("terminated")
	ctx, cancel := context.WithCancelCause(context.Background())
	in, keys := io.Pipe() // input that never ends: only the context can stop the dashboard
	defer keys.Close()
	go func() {
		for !strings.Contains(out.String(), "fake-storm") { // drawn: the program is running
			time.Sleep(5 * time.Millisecond)
		}
		cancel(stop)
	}()
	err := RunContext(ctx, Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: t.TempDir()}, in, &out)
	require.Error(t, err)
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, "the dashboard stopped: terminated", err.Error())
	screen := out.String()
	assert.Contains(t, screen, "\x1b[?1049l", "the alternate screen is left")
	assert.Contains(t, screen, "\x1b[?25h", "the cursor is shown again")
	assert.True(t, ff.last().closed, "the source is closed")
}

// syncBuffer is a bytes.Buffer safe for the program's writer and the test's reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Asserts that quitting hands the command the result of the run shown (OnQuit), after the
// terminal is restored, so that a run's numbers are not lost when e was not pressed: the
// summary of the seconds simulated, as the export writes it.
func TestQuitHandsTheResults(t *testing.T) {
	ff := &fakeFactory{}
	scn := fakeScenario()
	var out syncBuffer
	in, keys := io.Pipe()
	go func() {
		for !strings.Contains(out.String(), "t 2.") { // two seconds drawn
			time.Sleep(5 * time.Millisecond)
		}
		_, _ = keys.Write([]byte("q"))
	}()
	var got []report.Result
	restored := false
	err := Run(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: t.TempDir(),
		OnQuit: func(rs []report.Result) { got, restored = rs, strings.Contains(out.String(), "\x1b[?1049l") }}, in, &out)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.True(t, restored, "called once the alternate screen is left")
	assert.Equal(t, scn.Name, got[0].Summary.Scenario)
	assert.GreaterOrEqual(t, len(got[0].Timeline), 2, "the seconds simulated")
}
