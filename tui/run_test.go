package tui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

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
	assert.Contains(t, m.footer.status, "kaboom")
}
