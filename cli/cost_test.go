package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// noTerminal is the error the dashboard gives without a terminal, once every check before it
// has passed: reaching it shows that a file got past the cost model.
const noTerminal = "the dashboard needs a terminal on stdin and stdout"

// TestCostHostile asserts what every command does with the costly values of issue 8 (the
// files of testdata/hostile/cost-*.toml, and generated ones): a value past a limit of the
// format is refused by every command, --allow-large or not; a run the cost model expects over
// the budget is refused by validate, run (headless and dashboard) and bench with the estimate
// and the fields to change, before it starts, and accepted with --allow-large (checked with
// validate, and with the dashboard, which then stops for want of a terminal: nothing huge runs
// here); a costly run within the budget validates with its estimate. Each within the time and
// memory bound of executeBounded.
func TestCostHostile(t *testing.T) {
	dir := t.TempDir()
	var classes30k, classes65 strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&classes30k, "[[class]]\nname = \"c%d\"\nrate = 1\n", i)
		if i < 65 {
			fmt.Fprintf(&classes65, "[[class]]\nname = \"c%d\"\nrate = 1\n", i)
		}
	}
	service := "[service]\nworkers = 1\nservice_time = \"100ms\"\n"
	manyClasses := filepath.Join(dir, "classes-30000.toml")
	require.NoError(t, os.WriteFile(manyClasses, []byte(hostileScenario+classes30k.String()+service), 0o600))
	tooManyClasses := filepath.Join(dir, "classes-65.toml")
	require.NoError(t, os.WriteFile(tooManyClasses, []byte(hostileScenario+classes65.String()+service), 0o600))

	corpus := "testdata/hostile/"
	budget := "; the budget is 10 minutes of CPU and 2 GB a run; "
	tests := []struct {
		path  string
		limit string // the format's refusal, after the path ("" when the file is valid)
		over  string // the cost model's refusal with every strategy, after "path: " ("" when within the budget)
		naive string // its refusal with naive, and with none and naive (bench checks the costliest)
		ok    string // validate's line, after "path: "
	}{
		{path: corpus + "cost-queue.toml", limit: ":14: service.queue_limit: must be between 0 and 1000000, got 2147483647"},
		{
			path: corpus + "cost-rate.toml",
			limit: ":7: class: the peak arrival rate, 1e+07 requests/s (the class rates sum to 100000, times the largest load factor, 100), " +
				"must be at most 1000000 requests/s",
		},
		{path: corpus + "cost-users.toml", limit: ":9: fleet.users: must be between 1 and 10000, got 100000"},
		{path: manyClasses, limit: ":20001: more than 20000 keys and values (the limit for a scenario file)"},
		{path: tooManyClasses, limit: ":196: class[65]: at most 64 [[class]] entries, got 65"},
		{
			path: corpus + "cost-million-rps.toml",
			over: "this run would simulate up to 2.4e9 attempts (about 20 minutes of CPU) and hold up to 8.8 GB" + budget +
				"lower class[*].rate, load[*].factor, duration or fleet.deadline, or pass --allow-large",
			// cortex's clients hold engines and its requests may wait 30 s between retries:
			// naive's requests live 4 timeouts at most.
			naive: "this run would simulate up to 2.4e9 attempts (about 20 minutes of CPU) and hold up to 2.7 GB" + budget +
				"lower class[*].rate, load[*].factor, duration or fleet.deadline, or pass --allow-large",
			ok: "ok (cost-million-rps, 600s, 0 faults; up to 2.4e9 attempts, 8.8 GB: over the budget, allowed by --allow-large)",
		},
		{
			path: corpus + "cost-users-layers.toml",
			over: "this run would simulate up to 9.6e9 attempts (about 80 minutes of CPU) and hold up to 9.7 GB" + budget +
				"lower fleet.users, fleet.layers, duration or fleet.timeout, or raise fleet.think, or pass --allow-large",
			naive: "this run would simulate up to 9.6e9 attempts (about 80 minutes of CPU) and hold up to 9.7 GB" + budget +
				"lower fleet.users, fleet.layers, duration or fleet.timeout, or raise fleet.think, or pass --allow-large",
			ok: "ok (cost-users-layers, 150s, 0 faults; up to 9.6e9 attempts, 9.7 GB: over the budget, allowed by --allow-large)",
		},
		{path: corpus + "cost-queue-million.toml", ok: "ok (cost-queue-million, 60s, 0 faults; up to 2.4e7 attempts, 1.2 GB)"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			if tt.limit != "" {
				msg := tt.path + tt.limit
				for _, allow := range [][]string{nil, {"--allow-large"}} {
					code, out, errOut := executeBounded(t, "", append([]string{"validate", tt.path}, allow...)...)
					assert.Equal(t, 1, code)
					assert.Empty(t, out)
					assert.Equal(t, msg+"\ncortex-tui: 1 of 1 file(s) invalid\n", errOut)
					for _, args := range [][]string{
						{"run", "--scenario-file", tt.path, "--headless"},
						{"run", "--scenario-file", tt.path},
						{"bench", "--scenario-file", tt.path, "--strategy", "naive"},
					} {
						code, out, errOut = executeBounded(t, "", append(args, allow...)...)
						assert.Equal(t, 1, code, args)
						assert.Empty(t, out, args)
						assert.Equal(t, "cortex-tui: "+msg+"\n", errOut, args)
					}
				}
				return
			}
			if tt.over != "" {
				msg := tt.path + ": " + tt.over
				code, out, errOut := executeBounded(t, "", "validate", tt.path)
				assert.Equal(t, 1, code)
				assert.Empty(t, out)
				assert.Equal(t, msg+"\ncortex-tui: 1 of 1 file(s) invalid\n", errOut)
				for _, c := range []struct {
					args []string
					want string
				}{
					{[]string{"run", "--scenario-file", tt.path}, tt.over}, // the dashboard: any strategy
					{[]string{"run", "--scenario-file", tt.path, "--headless", "--strategy", "naive"}, tt.naive},
					{[]string{"bench", "--scenario-file", tt.path, "--strategy", "none,naive"}, tt.naive},
					{[]string{"bench", "--scenario-file", tt.path}, tt.over},
				} {
					code, out, errOut = executeBounded(t, "", c.args...)
					assert.Equal(t, 1, code, c.args)
					assert.Empty(t, out, c.args)
					assert.Equal(t, "cortex-tui: "+tt.path+": "+c.want+"\n", errOut, c.args)
				}
				code, _, errOut = executeBounded(t, "", "run", "--scenario-file", tt.path, "--allow-large")
				assert.Equal(t, 2, code, "past the cost model, the dashboard stops for want of a terminal")
				assert.Contains(t, errOut, noTerminal)
			}
			for _, allow := range [][]string{nil, {"--allow-large"}} {
				if tt.over != "" && allow == nil {
					continue
				}
				code, out, errOut := executeBounded(t, "", append([]string{"validate", tt.path}, allow...)...)
				assert.Equal(t, 0, code, errOut)
				assert.Equal(t, tt.path+": "+tt.ok+"\n", out)
			}
		})
	}
}

// TestBuiltinsPassTheCostModel asserts that every built-in scenario passes the cost model with
// every strategy (the picker offers only these): validate prints its estimate, and the
// dashboard, which checks the costliest strategy, gets as far as the terminal.
func TestBuiltinsPassTheCostModel(t *testing.T) {
	for _, scn := range scenarios.Catalog() {
		code, toml, errOut := execute("scenarios", scn.Name, "--toml")
		require.Equal(t, 0, code, errOut)
		code, out, errOut := executeBounded(t, toml, "validate", "-")
		assert.Equal(t, 0, code, errOut)
		assert.Regexp(t, `^-: ok \(`+scn.Name+`, \d+s, \d+ faults?; up to [0-9.e]+ attempts, \d+ MB\)\n$`, out)
		code, _, errOut = execute("run", "--scenario", scn.Name)
		assert.Equal(t, 2, code, scn.Name)
		assert.Contains(t, errOut, noTerminal, scn.Name)
	}
}
