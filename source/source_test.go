package source

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServiceStateText asserts how each service state is written, that JSON holds the name and
// reads it back, and that an unknown name is refused.
func TestServiceStateText(t *testing.T) {
	for s, want := range map[ServiceState]string{ServiceUnknown: "", ServiceUp: "UP", ServiceDown: "DOWN",
		ServiceCrashed: "CRASHED", ServiceWarming: "WARMING", 9: "ServiceState(9)"} {
		assert.Equal(t, want, s.String())
	}
	b, err := json.Marshal(struct{ S ServiceState }{ServiceWarming})
	require.NoError(t, err)
	assert.JSONEq(t, `{"S":"WARMING"}`, string(b))
	var back struct{ S ServiceState }
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, ServiceWarming, back.S)
	assert.Error(t, json.Unmarshal([]byte(`{"S":"ON FIRE"}`), &back))
	assert.True(t, ServiceUp.Serving())
	assert.True(t, ServiceWarming.Serving())
	assert.False(t, ServiceDown.Serving())
	assert.False(t, ServiceCrashed.Serving())
}

// TestEveryControlNamed asserts that every control has a name of its own (a control added
// without its entry in controlNames would print as "" and be confused with another).
func TestEveryControlNamed(t *testing.T) {
	seen := map[string]Control{}
	for c := range NumControls {
		name := c.String()
		require.NotEmpty(t, name, "control %d has no name in controlNames", c)
		if o, dup := seen[name]; dup {
			t.Errorf("controls %d and %d are both named %q", o, c, name)
		}
		seen[name] = c
	}
	assert.Equal(t, "Control(200)", Control(200).String())
}
