package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// The scenario as the simulator runs it: the defaults of its zero fields, and the checks of
// what the simulator relies on.

// withDefaults fills the zero fields of scn with the defaults of package scenarios (the ones
// Parse fills), except Sigma, where 0 means a constant service time, Drain, where 0 means
// the run ends with the last arrival (a parsed file gets the 30 s default from Parse), and
// Service.RefusalCost, where 0 means refusals cost the server nothing (a parsed file, and
// scenarios.Defaults, get scenarios.DefaultRefusalCost).
func withDefaults(scn scenarios.Scenario) scenarios.Scenario {
	scn = scn.WithTiming() // tick, clients, deadline, timeout
	if scn.Layers == 0 {
		scn.Layers = scenarios.DefaultLayers
	}
	if scn.Service.WarmStart == 0 {
		scn.Service.WarmStart = scenarios.DefaultWarmStart
	}
	scn.Classes = append([]scenarios.Class(nil), scn.Classes...)
	scn.Load = append([]scenarios.LoadPoint(nil), scn.Load...)
	scn.Faults = append([]scenarios.Fault(nil), scn.Faults...)
	scn.Notes = append([]scenarios.Note(nil), scn.Notes...)
	scn.Controls = append([]scenarios.ScheduledControl(nil), scn.Controls...)
	slices.SortStableFunc(scn.Notes, func(a, b scenarios.Note) int { return cmp.Compare(a.At, b.At) })
	return scn
}

// validate checks what the simulator relies on; each error names the field.
func validate(scn scenarios.Scenario) error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if scn.Duration <= 0 {
		bad("duration must be > 0 (got %s)", scn.Duration)
	}
	if scn.Drain < 0 {
		bad("drain must be >= 0 (got %s)", scn.Drain)
	}
	if scn.Tick <= 0 || scn.Tick > time.Second {
		bad("tick must be in (0, 1s] (got %s)", scn.Tick)
	}
	if scn.Clients < 1 || scn.Clients > 100000 {
		bad("clients must be in 1..100000 (got %d)", scn.Clients)
	}
	if scn.Deadline <= 0 {
		bad("deadline must be > 0 (got %s)", scn.Deadline)
	}
	if scn.Timeout <= 0 {
		bad("timeout must be > 0 (got %s)", scn.Timeout)
	}
	if scn.Layers < 1 || scn.Layers > scenarios.MaxLayers {
		bad("layers must be in 1..%d (got %d)", scenarios.MaxLayers, scn.Layers)
	}
	if scn.Loop.Closed {
		if scn.Loop.Users < 1 {
			bad("loop.users must be >= 1 for a closed loop (got %d)", scn.Loop.Users)
		}
		if scn.Loop.Think < 0 {
			bad("loop.think must be >= 0 (got %s)", scn.Loop.Think)
		}
	}
	if len(scn.Classes) == 0 {
		bad("classes: at least one class is required")
	}
	for i, c := range scn.Classes {
		if c.Priority < 0 || c.Priority > scenarios.MaxPriority {
			bad("classes[%d] (%s).priority must be in 0..%d (got %d)", i, c.Name, scenarios.MaxPriority, c.Priority)
		}
		if !(c.Rate >= 0) || math.IsInf(c.Rate, 0) {
			bad("classes[%d] (%s).rate must be a finite number >= 0 (got %v)", i, c.Name, c.Rate)
		}
		for j, p := range c.Load {
			if !(p.Factor >= 0) || math.IsInf(p.Factor, 0) {
				bad("classes[%d] (%s).load[%d].factor must be a finite number >= 0 (got %v)", i, c.Name, j, p.Factor)
			}
			if j > 0 && p.At < c.Load[j-1].At {
				bad("classes[%d] (%s).load[%d].at must not be before load[%d].at", i, c.Name, j, j-1)
			}
		}
	}
	for i, p := range scn.Load {
		if !(p.Factor >= 0) || math.IsInf(p.Factor, 0) {
			bad("load[%d].factor must be a finite number >= 0 (got %v)", i, p.Factor)
		}
		if i > 0 && p.At < scn.Load[i-1].At {
			bad("load[%d].at must not be before load[%d].at", i, i-1)
		}
	}
	sv := scn.Service
	if sv.Workers < 1 {
		bad("service.workers must be >= 1 (got %d)", sv.Workers)
	}
	if sv.ServiceTime <= 0 {
		bad("service.service_time must be > 0 (got %s)", sv.ServiceTime)
	}
	if !(sv.Sigma >= 0) || sv.Sigma > 3 {
		bad("service.sigma must be in [0, 3] (got %v)", sv.Sigma)
	}
	if sv.QueueLimit < 0 || sv.QueueLimit > scenarios.MaxQueueLimit {
		bad("service.queue_limit must be in 0..%d (got %d)", scenarios.MaxQueueLimit, sv.QueueLimit)
	}
	if !(sv.RefusalCost >= 0 && sv.RefusalCost <= 1) {
		bad("service.refusal_cost must be in [0, 1] (got %v)", sv.RefusalCost)
	}
	if !(sv.CrashFactor >= 0) || math.IsInf(sv.CrashFactor, 0) {
		bad("service.crash_factor must be a finite number >= 0 (got %v)", sv.CrashFactor)
	}
	if sv.CrashAfter < 0 || sv.RestartDelay < 0 || sv.Warmup < 0 {
		bad("service.crash_after, restart_delay and warmup must be >= 0")
	}
	if !(sv.WarmStart > 0) || sv.WarmStart > 1 {
		bad("service.warm_start must be in (0, 1] (got %v)", sv.WarmStart)
	}
	for i, f := range scn.Faults {
		if err := model.CheckFault(f); err != nil {
			bad("faults[%d]: %v", i, err)
		}
		if f.At < 0 || f.Duration < 0 {
			bad("faults[%d]: at and duration must be >= 0", i)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("scenario %q: %s", scn.Name, strings.Join(errs, "; "))
	}
	return nil
}
