package model

import (
	"iter"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// testEngines returns n CORTEX engines with the default configuration.
func testEngines(t *testing.T, n int) []*engine.Engine {
	t.Helper()
	es := make([]*engine.Engine, n)
	for i := range es {
		e, err := engine.New(engine.DefaultConfig())
		require.NoError(t, err)
		es[i] = e
	}
	return es
}

func testControls() Controls {
	return NewControls([]scenarios.Class{{Name: "payment", Priority: 9, Rate: 50}, {Name: "search", Priority: 5, Rate: 100}}, 0.5)
}

// Asserts that NewControls scales the rates, starts every share at 1 and keeps the priorities,
// and that Meta says the same.
func TestNewControls(t *testing.T) {
	c := testControls()
	assert.Equal(t, []Class{{Name: "payment", Priority: 9, Rate: 25, Share: 1}, {Name: "search", Priority: 5, Rate: 50, Share: 1}}, c.Classes)
	assert.Equal(t, []source.ClassMeta{{Name: "payment", Priority: 9, Share: 1, Rate: 25}, {Name: "search", Priority: 5, Share: 1, Rate: 50}}, c.Meta())
}

// Asserts that each control of the controls is applied to every engine and to the controls,
// returned as the one event that says so, and that a bad one changes nothing and is an error
// naming what is wrong.
func TestApply(t *testing.T) {
	w := engine.Weights{F: 1, L: 1, Q: 1, B: 1, C: 1}
	for _, tc := range []struct {
		name  string
		ev    source.ControlEvent
		err   string
		check func(t *testing.T, c *Controls, es []*engine.Engine)
	}{
		{"weights", source.SetWeights(w), "", func(t *testing.T, _ *Controls, es []*engine.Engine) {
			for _, e := range es {
				assert.InDelta(t, 0.2, e.Snapshot().Weights.F, 1e-9, "renormalised by the engine")
			}
		}},
		{"adaptive", source.SetAdaptive(true), "", func(t *testing.T, _ *Controls, es []*engine.Engine) {
			for _, e := range es {
				assert.True(t, e.Snapshot().Adaptive)
			}
		}},
		{"class", source.SetClass("search", 2.5, 1), "", func(t *testing.T, c *Controls, _ []*engine.Engine) {
			assert.Equal(t, Class{Name: "search", Priority: 1, Rate: 50, Share: 2.5}, c.Classes[1])
		}},
		{"negative weight", source.SetWeights(engine.Weights{F: -1}), "", nil},
		{"zero weights", source.SetWeights(engine.Weights{}), "", nil},
		{"unknown class", source.SetClass("analytics", 1, 1), `no class "analytics" (the classes are payment, search)`, nil},
		{"negative share", source.SetClass("payment", -1, 1), "share", nil},
		{"priority too high", source.SetClass("payment", 1, 11), "priority", nil},
		{"not a control of the controls", source.Restart(), "control restart", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testControls()
			es := testEngines(t, 3)
			before := c.Meta()
			ev, err := c.Apply(tc.ev, slices.Values(es))
			if tc.check == nil {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Equal(t, before, c.Meta(), "nothing changed")
				for _, e := range es {
					assert.Equal(t, engine.DefaultConfig().Weights, e.Snapshot().Weights)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, source.Event{Kind: source.EventControl, Control: tc.ev}, ev)
			tc.check(t, &c, es)
		})
	}
}

// Asserts that Configure gives an engine built later the weights and adaptive switch last
// set, and leaves one as built while no control was set.
func TestConfigure(t *testing.T) {
	c := testControls()
	fresh := testEngines(t, 1)[0]
	require.NoError(t, c.Configure(fresh))
	assert.Equal(t, engine.DefaultConfig().Weights, fresh.Snapshot().Weights)
	assert.False(t, fresh.Snapshot().Adaptive)

	var none iter.Seq[*engine.Engine] = slices.Values([]*engine.Engine(nil))
	_, err := c.Apply(source.SetWeights(engine.Weights{F: 1}), none)
	require.NoError(t, err)
	later := testEngines(t, 1)[0]
	require.NoError(t, c.Configure(later))
	assert.Equal(t, engine.Weights{F: 1}, later.Snapshot().Weights)
	assert.False(t, later.Snapshot().Adaptive)

	_, err = c.Apply(source.SetAdaptive(true), none)
	require.NoError(t, err)
	last := testEngines(t, 1)[0]
	require.NoError(t, c.Configure(last))
	assert.True(t, last.Snapshot().Adaptive)
}

// Asserts that Do hands a source's event log the event of a control it applied, and neither
// emits nor changes anything for a bad one, whose error it returns.
func TestDo(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ev      source.ControlEvent
		wantErr bool
	}{
		{"applied", source.SetClass("search", 2, 7), false},
		{"refused", source.SetClass("nobody", 2, 7), true},
		{"not a run's control", source.Restart(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testControls()
			var got []source.Event
			err := c.Do(tc.ev, slices.Values(testEngines(t, 1)), func(e source.Event) { got = append(got, e) })
			if tc.wantErr {
				require.Error(t, err)
				assert.Empty(t, got)
				assert.Equal(t, testControls().Classes, c.Classes)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, source.EventControl, got[0].Kind)
			assert.Equal(t, tc.ev, got[0].Control)
		})
	}
}
