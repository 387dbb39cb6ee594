package cli_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cli"
)

// fullDisk is a stdout whose every write fails, like /dev/full.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestOutputErrors asserts that a command whose output cannot be written fails with status 1
// and says so on stderr, instead of exiting 0 with its output lost (`validate f.toml >
// /dev/full` did); a command that fails anyway keeps its own error.
func TestOutputErrors(t *testing.T) {
	good := write(t, "good.toml", validScenario)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"validate", []string{"validate", good}, 1, "cortex-tui: cannot write the output: no space left on device\n"},
		{"scenarios", []string{"scenarios"}, 1, "cortex-tui: cannot write the output: no space left on device\n"},
		{"scenarios NAME", []string{"scenarios", "black-friday"}, 1, "cortex-tui: cannot write the output: no space left on device\n"},
		{"scenarios NAME --toml", []string{"scenarios", "black-friday", "--toml"}, 1, "cortex-tui: cannot write the output: no space left on device\n"},
		{"run --headless", []string{"run", "--scenario-file", good, "--headless", "--format", "csv"}, 1, "cortex-tui: cannot write the output: no space left on device\n"},
		{"bench", []string{"bench", "--scenario-file", good, "--strategy", "naive"}, 1, "cortex-tui: cannot write the output: no space left on device\n"},
		{"--help", []string{"--help"}, 1, "cortex-tui: cannot write the output: no space left on device\n"},
		{"--version", []string{"--version"}, 1, "cortex-tui: cannot write the output: no space left on device\n"},
		{"a usage error keeps its status", []string{"run"}, 2, "cortex-tui: no scenario: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			code := cli.Execute(tt.args, strings.NewReader(""), fullDisk{}, &errOut)
			assert.Equal(t, tt.code, code)
			assert.True(t, strings.HasPrefix(errOut.String(), tt.want), "stderr: %q", errOut.String())
		})
	}
}

// TestDevFull asserts the same with the real /dev/full as stdout, where the platform has one.
func TestDevFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("/dev/full: %v", err)
	}
	defer full.Close()
	var errOut bytes.Buffer
	code := cli.Execute([]string{"validate", write(t, "good.toml", validScenario)}, strings.NewReader(""), full, &errOut)
	require.Equal(t, 1, code)
	assert.Equal(t, "cortex-tui: cannot write the output: write /dev/full: no space left on device\n", errOut.String())
}
