package lesson

import (
	"fmt"
	"slices"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Apply carries out a step's action on src: the same control the dashboard's key sends. A
// weight is set to the value and the other four are scaled so that the five sum to 1.
func Apply(src source.Source, a scenarios.Action) error {
	meta := src.Meta()
	switch a.Kind {
	case scenarios.ActStrategy:
		return src.SetStrategy(a.Name)
	case scenarios.ActInject:
		kind := scenarios.FaultKind(a.Name)
		spec, _ := kind.Spec()
		src.Inject(scenarios.Fault{Kind: kind, Value: spec.Inject})
	case scenarios.ActClear:
		src.Clear(scenarios.FaultKind(a.Name))
	case scenarios.ActClearAll:
		src.ClearAll()
	case scenarios.ActRestart:
		src.Restart()
	case scenarios.ActWeight:
		return src.SetWeights(SetWeight(engine.DefaultWeights(), a.Name, a.Value))
	case scenarios.ActShare, scenarios.ActPriority:
		i := slices.IndexFunc(meta.Classes, func(c source.ClassMeta) bool { return c.Name == a.Name })
		if i < 0 {
			return fmt.Errorf("no class %q in %s", a.Name, meta.Scenario)
		}
		c := meta.Classes[i]
		if a.Kind == scenarios.ActShare {
			return src.SetClass(i, a.Value, c.Priority)
		}
		return src.SetClass(i, c.Share, int(a.Value))
	}
	return nil
}

// SetWeight returns w with the weight of signal ("F".."C") set to v in [0, 1] and the others
// scaled to sum to 1 - v (shared equally when they were all 0).
func SetWeight(w engine.Weights, signal string, v float64) engine.Weights {
	i := slices.Index([]string{"F", "L", "Q", "B", "C"}, signal)
	a := w.Array()
	if i < 0 {
		return w
	}
	rest := 0.0
	for j, x := range a {
		if j != i {
			rest += x
		}
	}
	for j := range a {
		switch {
		case j == i:
			a[j] = v
		case rest > 0:
			a[j] = a[j] / rest * (1 - v)
		default:
			a[j] = (1 - v) / 4
		}
	}
	return engine.WeightsFrom(a)
}
