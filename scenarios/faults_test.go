package scenarios

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFaultTable asserts that every row of the table of fault kinds is complete and coherent:
// kinds and key bindings unique, FaultKinds in table order, a value key and unit exactly for the
// kinds that take a value, bounds that Check applies (Min refused, Max accepted, infinities and
// NaN refused), a dashboard value that passes Check, an effect to show, and a lever that
// changes the service's Effects.
func TestFaultTable(t *testing.T) {
	specs := FaultSpecs()
	require.Len(t, specs, NumFaultKinds)
	require.Len(t, FaultKinds, NumFaultKinds)
	bindings := map[string]bool{}
	for i, s := range specs {
		t.Run(string(s.Kind), func(t *testing.T) {
			assert.Equal(t, FaultKinds[i], s.Kind)
			assert.Equal(t, i, s.Kind.Index())
			assert.NotEmpty(t, s.Effect)
			fx := NoEffects()
			fx.Set(s.Lever, s.InjectValue(200))
			assert.NotEqual(t, NoEffects(), fx, "the row's lever acts on the service")
			if s.Binding != "" {
				assert.False(t, bindings[s.Binding], "binding %q used twice", s.Binding)
				bindings[s.Binding] = true
			}
			if s.Unit == UnitNone {
				assert.Empty(t, s.Key)
				assert.Equal(t, string(s.Kind), s.Label(0))
				field, msg := s.Kind.Check(0.5)
				assert.Equal(t, "kind", field)
				assert.Contains(t, msg, "takes no value")
				field, msg = s.Kind.Check(0)
				assert.Empty(t, field+msg)
				return
			}
			assert.NotEmpty(t, s.Key)
			assert.Equal(t, s.Key, s.Kind.ValueKey())
			assert.NotEmpty(t, s.Unit.Example())
			assert.Less(t, s.Min, s.Max)
			for _, bad := range []float64{s.Min, math.NaN(), math.Inf(1), math.Inf(-1)} {
				field, msg := s.Kind.Check(bad)
				assert.Equal(t, s.Key, field, "value %v", bad)
				assert.NotEmpty(t, msg, "value %v", bad)
			}
			if !math.IsInf(s.Max, 1) {
				_, msg := s.Kind.Check(s.Max)
				assert.Empty(t, msg, "Max is allowed")
				_, msg = s.Kind.Check(math.Nextafter(s.Max, math.Inf(1)))
				assert.NotEmpty(t, msg, "above Max")
			}
			_, msg := s.Kind.Check(s.InjectValue(200))
			assert.Empty(t, msg, "the dashboard's value %v is valid", s.InjectValue(200))
			assert.True(t, strings.HasPrefix(s.Label(s.Inject), strings.ReplaceAll(string(s.Kind), "_", " ")+" "))
		})
	}
	field, msg := FaultKind("meteor").Check(0)
	assert.Equal(t, "kind", field)
	assert.Equal(t, `unknown kind "meteor"; valid kinds: `+kindList(), msg)
	assert.Equal(t, -1, FaultKind("meteor").Index())
}

// TestFaultLabels asserts how faults read on screen, in every unit.
func TestFaultLabels(t *testing.T) {
	for _, tc := range []struct {
		kind FaultKind
		v    float64
		want string
	}{
		{FaultOutage, 0, "outage"},
		{FaultLatency, 0.5, "latency +500ms"},
		{FaultLatency, 1.5, "latency +1.5s"},
		{FaultErrors, 0.07, "errors 7%"},
		{FaultThrottle, 200.0 / 3, "throttle 66.67/s"},
		{FaultCapacity, 0.3, "capacity x0.3"},
		{FaultBadRequests, 0.1, "bad requests 10%"},
	} {
		s, ok := tc.kind.Spec()
		require.True(t, ok)
		assert.Equal(t, tc.want, s.Label(tc.v))
	}
}

// TestDocsDocumentEveryFaultKind asserts that docs/scenarios.md has a row for every fault kind
// with its value key, and that FaultSpecs returns a copy.
func TestDocsDocumentEveryFaultKind(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenarios.md")
	require.NoError(t, err)
	for _, s := range FaultSpecs() {
		row := "| `" + string(s.Kind) + "` |"
		require.Contains(t, string(doc), row)
		if s.Key != "" {
			line := string(doc)[strings.Index(string(doc), row):]
			line = line[:strings.Index(line, "\n")]
			assert.Contains(t, line, "`"+s.Key+"`", "the row of %s names its value key", s.Kind)
		}
	}
	FaultSpecs()[0].Kind = "changed"
	assert.Equal(t, FaultOutage, FaultSpecs()[0].Kind)
}

// Asserts that each lever sets its own field of Effects to the fault's value (Down and Hang to
// true), and that no lever leaves a service without a fault as it was but LeverNone.
func TestEffectsSet(t *testing.T) {
	for _, tc := range []struct {
		lever Lever
		want  Effects
	}{
		{LeverNone, Effects{Capacity: 1}},
		{LeverDown, Effects{Down: true, Capacity: 1}},
		{LeverHang, Effects{Hang: true, Capacity: 1}},
		{LeverLatency, Effects{Latency: 0.3, Capacity: 1}},
		{LeverErrors, Effects{Errors: 0.3, Capacity: 1}},
		{LeverThrottle, Effects{Throttle: 0.3, Capacity: 1}},
		{LeverCapacity, Effects{Capacity: 0.3}},
		{LeverBadRequests, Effects{BadRequests: 0.3, Capacity: 1}},
	} {
		fx := NoEffects()
		fx.Set(tc.lever, 0.3)
		assert.Equal(t, tc.want, fx, "lever %d", tc.lever)
	}
}
