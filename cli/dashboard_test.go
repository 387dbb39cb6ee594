package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui"
)

// isolateConfig points the user's config directory at a fresh temporary one and returns the
// path of the default key file inside it (not created).
func isolateConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	cfg, err := os.UserConfigDir()
	require.NoError(t, err)
	return filepath.Join(cfg, "cortex-tui", "keys.toml")
}

// writeFile writes content to path, creating its directory.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

// TestDashboardRefusals asserts that the dashboard commands fail with exit status 2 and a
// message saying what is wrong, before touching the terminal: no terminal (pointing to
// --headless), a bad or missing key file, an unknown strategy.
func TestDashboardRefusals(t *testing.T) {
	defaultKeys := isolateConfig(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	writeFile(t, bad, "pause = [\"p\"]\nquit = [\"p\"]\n")
	good := filepath.Join(dir, "good.toml")
	writeFile(t, good, `pause = ["p"]`)
	missing := filepath.Join(dir, "missing.toml")
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	text, err := scn.MarshalTOML()
	require.NoError(t, err)
	scnFile := filepath.Join(dir, "mine.toml")
	writeFile(t, scnFile, string(text))

	tests := []struct {
		name        string
		args        []string
		defaultFile string // content of the default key file ("" = none)
		want        []string
	}{
		{"run without a terminal", []string{"run", "--scenario", "black-friday"}, "",
			[]string{"the dashboard needs a terminal", "--headless", "cortex-tui run --scenario black-friday --headless"}},
		{"picker without a terminal", nil, "",
			[]string{"the dashboard needs a terminal", "--headless", "cortex-tui run --scenario NAME --headless"}},
		{"the hint repeats the run's flags", []string{"run", "--scenario", "dns-crash", "--strategy", "naive", "--seed", "7"}, "",
			[]string{"use --headless: cortex-tui run --scenario dns-crash --headless --strategy naive --seed 7\n"}},
		{"the hint names the scenario file", []string{"run", "--scenario-file", scnFile}, "",
			[]string{"use --headless: cortex-tui run --scenario-file " + scnFile + " --headless\n"}},
		{"good key file, still no terminal", []string{"run", "--scenario", "black-friday", "--keys", good}, "",
			[]string{"the dashboard needs a terminal"}},
		{"bad --keys file on run", []string{"run", "--scenario", "black-friday", "--keys", bad}, "",
			[]string{"bad key file: " + bad + `:2: key "p" is bound to both pause and quit: rebind one of them`}},
		{"bad --keys file on the picker", []string{"--keys", bad}, "",
			[]string{"bad key file: " + bad + ":2: "}},
		{"missing --keys file", []string{"--keys", missing}, "",
			[]string{"--keys " + missing + ": no such file"}},
		{"bad default key file", []string{"run", "--scenario", "black-friday"}, "help = []",
			[]string{"bad key file: " + defaultKeys + ":1: help: empty key list: bind at least one key"}},
		{"--keys replaces a bad default key file", []string{"run", "--scenario", "black-friday", "--keys", good}, "help = []",
			[]string{"the dashboard needs a terminal"}},
		{"unknown strategy", []string{"run", "--scenario", "black-friday", "--strategy", "yolo"}, "",
			[]string{`unknown strategy "yolo" (valid: ` + strings.Join(strategy.Names(), ", ") + `)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, os.RemoveAll(filepath.Dir(defaultKeys)))
			if tt.defaultFile != "" {
				writeFile(t, defaultKeys, tt.defaultFile)
			}
			var stdout, stderr bytes.Buffer
			code := Execute(tt.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, 2, code)
			for _, w := range tt.want {
				assert.Contains(t, stderr.String(), w)
			}
			assert.Empty(t, stdout.String(), "nothing is drawn")
		})
	}
}

// TestDashboardNeedsTerminalFiles asserts that *os.File streams that are not terminals are
// refused like any other stream, and that the dashboard is never started.
func TestDashboardNeedsTerminalFiles(t *testing.T) {
	isolateConfig(t)
	started := false
	orig := startDashboard
	startDashboard = func(context.Context, tui.Options, io.Reader, io.Writer) error { started = true; return nil }
	t.Cleanup(func() { startDashboard = orig })

	devNull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer devNull.Close()
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	defer out.Close()

	tests := []struct {
		name string
		in   io.Reader
		out  io.Writer
	}{
		{"files that are not terminals", devNull, out},
		{"a buffer as stdin", &bytes.Buffer{}, out},
		{"a buffer as stdout", devNull, &bytes.Buffer{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := Execute([]string{"run", "--scenario", "black-friday"}, tt.in, tt.out, &stderr)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr.String(), "--headless")
			assert.False(t, started)
		})
	}
}

// TestDashboardOptions asserts what the dashboard is handed: the keys of the key file, the
// simulator as source factory, the scenario (nil for the picker), the strategy and the seed.
func TestDashboardOptions(t *testing.T) {
	isolateConfig(t)
	keys := filepath.Join(t.TempDir(), "keys.toml")
	writeFile(t, keys, `pause = ["p"]`)
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)

	tests := []struct {
		name      string
		args      []string
		scn       *scenarios.Scenario
		wantPause []string
	}{
		{"default keys", nil, &scn, []string{" "}},
		{"remapped keys", []string{"--keys", keys}, &scn, []string{"p"}},
		{"picker", []string{"--keys", keys}, nil, []string{"p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newRunCmd(streams{})
			require.NoError(t, cmd.ParseFlags(tt.args))
			opts, err := dashboardOptions(cmd, tt.scn, "naive", 42)
			require.NoError(t, err)
			assert.Equal(t, tt.wantPause, opts.Keys.Pause.Keys())
			assert.Equal(t, tt.scn, opts.Scenario)
			assert.Equal(t, "naive", opts.Strategy)
			assert.Equal(t, int64(42), opts.Seed)
			require.NotNil(t, opts.Factory)
			src, err := opts.Factory(scn, "naive", 42)
			require.NoError(t, err)
			require.NotNil(t, src)
			assert.Equal(t, scn.Name, src.Meta().Scenario)
		})
	}
}

// TestDashboardEngines asserts that run --engine gives the dashboard a factory whose cortex runs
// the file, and --compare-engine opens compare mode with a second factory running the other.
func TestDashboardEngines(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	left, right := filepath.Join(dir, "left.toml"), filepath.Join(dir, "right.toml")
	writeFile(t, left, "[budget]\ncapacity = 50\n")
	writeFile(t, right, "[budget]\ncapacity = 70\n")
	scn, err := scenarios.Lookup("dns-crash")
	require.NoError(t, err)
	var o runOptions
	o.eng, err = readEngineFile(streams{}, left)
	require.NoError(t, err)
	o.cmpEng, err = readEngineFile(streams{}, right)
	require.NoError(t, err)
	cmd := newRunCmd(streams{})
	require.NoError(t, cmd.ParseFlags(nil))
	got, err := runDashboardOptions(cmd, scn, "cortex", o)
	require.NoError(t, err)
	require.True(t, got.Compare)
	for _, tc := range []struct {
		f    tui.SourceFactory
		name string
		cap  int
	}{{got.Factory, "left.toml", 50}, {got.CompareFactory, "right.toml", 70}} {
		require.NotNil(t, tc.f)
		src, err := tc.f(scn, "cortex", 1)
		require.NoError(t, err)
		assert.Equal(t, "cortex ("+tc.name+")", src.Meta().StrategyLabel())
		require.NoError(t, src.Close())
	}
	o.cmpEng = engineFile{}
	got, err = runDashboardOptions(cmd, scn, "cortex", o)
	require.NoError(t, err)
	assert.False(t, got.Compare)
	assert.Nil(t, got.CompareFactory)
}

// Asserts that run --present opens the dashboard in presenter mode, and that live has the flag.
func TestPresentFlag(t *testing.T) {
	isolateConfig(t)
	scn, err := scenarios.Lookup("dns-crash")
	require.NoError(t, err)
	cmd := newRunCmd(streams{})
	require.NoError(t, cmd.ParseFlags([]string{"--present"}))
	var o runOptions
	o.present, err = cmd.Flags().GetBool("present")
	require.NoError(t, err)
	got, err := runDashboardOptions(cmd, scn, "cortex", o)
	require.NoError(t, err)
	assert.True(t, got.Present)
	assert.NotNil(t, newLiveCmd(streams{}).Flags().Lookup("present"))
}
