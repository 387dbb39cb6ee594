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
	c, err := control(src.Meta(), a)
	if err != nil {
		return err
	}
	return src.Control(c)
}

// control is the source control that carries out a over a run described by meta.
func control(meta source.Meta, a scenarios.Action) (source.ControlEvent, error) {
	switch a.Kind {
	case scenarios.ActStrategy:
		return source.SetStrategy(a.Name), nil
	case scenarios.ActInject: // the value the fault's key injects: a throttle at half the capacity, not 0.5/s
		kind := scenarios.FaultKind(a.Name)
		spec, _ := kind.Spec()
		v := spec.Inject
		if scn, err := scenarios.Lookup(meta.Scenario); err == nil {
			v = spec.InjectValue(scn.Service.Capacity())
		}
		return source.Inject(scenarios.Fault{Kind: kind, Value: v}), nil
	case scenarios.ActClear:
		return source.Clear(scenarios.FaultKind(a.Name)), nil
	case scenarios.ActClearAll:
		return source.ClearAll(), nil
	case scenarios.ActRestart:
		return source.Restart(), nil
	case scenarios.ActWeight:
		return source.SetWeights(SetWeight(engine.DefaultWeights(), a.Name, a.Value)), nil
	case scenarios.ActShare, scenarios.ActPriority:
		i := slices.IndexFunc(meta.Classes, func(c source.ClassMeta) bool { return c.Name == a.Name })
		if i < 0 {
			return source.ControlEvent{}, fmt.Errorf("no class %q in %s", a.Name, meta.Scenario)
		}
		c := meta.Classes[i]
		if a.Kind == scenarios.ActShare {
			return source.SetClass(c.Name, a.Value, c.Priority), nil
		}
		return source.SetClass(c.Name, c.Share, int(a.Value)), nil
	}
	return source.ControlEvent{}, fmt.Errorf("unknown action kind %d", a.Kind)
}

// SetWeight returns w with the weight of signal ("F".."C") set to v in [0, 1] and the others
// scaled to sum to 1 - v (shared equally when they were all 0).
func SetWeight(w engine.Weights, signal string, v float64) engine.Weights {
	i := slices.Index(engine.SignalNames[:], signal)
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
