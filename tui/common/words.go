package common

import (
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
)

// The dashboard's words for the engine's verdicts.

// ActionBand is the band colour of each action: retry green, reject red, circuit orange.
var ActionBand = map[engine.Action]engine.State{
	engine.Retry: engine.Healthy, engine.Reject: engine.Emergency, engine.CircuitOpen: engine.Critical,
	engine.MaxRetriesExceeded: engine.Degraded, engine.NotRetryable: engine.Degraded,
}

// ActionReasons are the reasons that make up each action's count, in the order of the checks,
// with the words the decisions panel and the inspector give them: every reason an engine or a strategy can give, so the
// parts always add up to the action's total (TestDecisionsReasonsAddUp).
var ActionReasons = map[engine.Action][]struct {
	R    source.Reason
	Name string
}{
	engine.Reject: {{source.ReasonShed, "shed"}, {source.ReasonRamp, "ramp"}, {source.ReasonBudget, "budget"},
		{source.ReasonThrottled, "throttled"}, {source.ReasonNoRetries, "no retries"}, {source.ReasonOther, "other"}},
	engine.CircuitOpen: {{source.ReasonEmergency, "emergency"}, {source.ReasonCircuitOpen, "circuit"},
		{source.ReasonProbesBusy, "probes busy"}},
}
