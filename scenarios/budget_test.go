package scenarios_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Asserts that [fleet] budget reads "per-client" and "shared", defaults to per-client, refuses
// anything else naming the key and the valid values, and that a formatted scenario reads back
// to the same budget (the default is left out of the text, as before the key existed).
func TestParseBudget(t *testing.T) {
	for _, tc := range []struct {
		fleet string
		want  scenarios.Budget
		err   string
	}{
		{"", scenarios.BudgetPerClient, ""},
		{"\n[fleet]\nbudget = \"per-client\"\n", scenarios.BudgetPerClient, ""},
		{"\n[fleet]\nbudget = \"shared\"\n", scenarios.BudgetShared, ""},
		{"\n[fleet]\nbudget = \"global\"\n", 0, `fleet.budget: must be "per-client" or "shared", got "global"`},
		{"\n[fleet]\nbudget = 1\n", 0, "fleet.budget: must be a string"},
	} {
		t.Run(tc.fleet, func(t *testing.T) {
			s, err := scenarios.Parse("t.toml", []byte(minimal+tc.fleet))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.Budget)
			text, err := s.MarshalTOML()
			require.NoError(t, err)
			assert.Equal(t, tc.want == scenarios.BudgetShared, strings.Contains(string(text), `budget = "shared"`))
			assert.NotContains(t, string(text), `budget = "per-client"`)
			back, err := scenarios.Parse("back.toml", text)
			require.NoError(t, err)
			assert.Equal(t, tc.want, back.Budget)
		})
	}
	assert.Equal(t, "per-client", scenarios.BudgetPerClient.String())
	assert.Equal(t, "shared", scenarios.BudgetShared.String())
	assert.Equal(t, "Budget(7)", scenarios.Budget(7).String())
}

// Asserts that Validate refuses a budget that is neither of the two, naming the field.
func TestValidateBudget(t *testing.T) {
	s, err := scenarios.Parse("t.toml", []byte(minimal))
	require.NoError(t, err)
	s.Budget = 9
	err = s.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fleet.budget")
}
