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
