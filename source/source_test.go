package source

import (
	"encoding/json"
	"testing"
	"time"

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

// Asserts that a clone shares no memory with its snapshot: changing the clone's events,
// faults, classes and CORTEX view (its fleet's too) leaves the original as it was.
func TestSnapshotClone(t *testing.T) {
	s := Snapshot{
		T:       time.Second,
		Classes: []ClassTick{{Priority: 9}},
		Events:  []Event{{Text: "a"}},
		Faults:  []ActiveFault{{Kind: "outage"}},
		Cortex:  &CortexView{CPS: 0.5, Fleet: &FleetHealth{LastError: "x"}},
	}
	c := s.Clone()
	assert.Equal(t, s, c)
	c.Classes[0].Priority = 1
	c.Events[0].Text = "b"
	c.Faults[0].Kind = "errors"
	c.Cortex.CPS = 0.9
	c.Cortex.Fleet.LastError = "y"
	assert.Equal(t, 9, s.Classes[0].Priority)
	assert.Equal(t, "a", s.Events[0].Text)
	assert.Equal(t, "outage", string(s.Faults[0].Kind))
	assert.Equal(t, 0.5, s.Cortex.CPS)
	assert.Equal(t, "x", s.Cortex.Fleet.LastError)
	assert.Equal(t, Snapshot{}, Snapshot{}.Clone(), "nil stays nil")
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
