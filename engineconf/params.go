package engineconf

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/tomlfile"
)

// Kind is the type of a key's value in the file.
type Kind int

// The kinds of value a key holds.
const (
	Duration Kind = iota // a duration string with a unit: "500ms", "60s" (time.Duration)
	Int                  // an integer (int)
	Int64                // an integer (int64)
	Float                // a number (float64)
	Bool                 // true or false
)

// Range is the values engine.Config.Validate accepts for a key, for the documentation and the
// tuner's bounds; durations in seconds. The engine's validation is what refuses a value: a test
// asserts that it agrees with every Range at its ends.
type Range struct {
	Lo     float64 // smallest value
	LoOpen bool    // Lo itself is refused (> Lo rather than >= Lo)
	Hi     float64 // largest value, when HasHi
	HasHi  bool
	Note   string // what a special value means, e.g. "0 = the whole window"
}

// Text writes the range of a value of kind k as "> 0", ">= 0", "(0, 1]", "[0, 1]", "true or
// false" or "any integer", then its note; durations in seconds.
func (r Range) Text(k Kind) string {
	var s string
	switch {
	case k == Bool:
		s = "true or false"
	case k == Int64:
		s = "any integer"
	case r.HasHi && r.LoOpen:
		s = fmt.Sprintf("(%g, %g]", r.Lo, r.Hi)
	case r.HasHi:
		s = fmt.Sprintf("[%g, %g]", r.Lo, r.Hi)
	case r.LoOpen:
		s = fmt.Sprintf("> %g", r.Lo)
	default:
		s = fmt.Sprintf(">= %g", r.Lo)
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}

// Param is one key of the file: its table and key, the engine.Config field it sets (a path of
// field names, "Weights.F"), the kind and unit of its value, the values it may take and what it
// does.
type Param struct {
	Table, Key string
	Field      string
	Kind       Kind
	Unit       string // "s" for durations, "tokens", "tokens/s", "" for a pure number or a switch
	Range      Range  // unused for Bool
	Doc        string // one line
}

// Constraint writes p's unit and range: "tokens; >= 0; 0 = no budget", "s; > 0"; "" for a
// switch.
func (p Param) Constraint() string {
	if p.Kind == Bool {
		return ""
	}
	if p.Unit == "" {
		return p.Range.Text(p.Kind)
	}
	return p.Unit + "; " + p.Range.Text(p.Kind)
}

// Path returns the key's path in the file: "budget.capacity".
func (p Param) Path() string { return p.Table + "." + p.Key }

// Tables are the file's tables in the order the file and the documentation list them, each with
// what it holds.
var Tables = []struct{ Name, Doc string }{
	{"signals", "the windows and references the five signals are measured over"},
	{"weights", "the weights of F, L, Q, B and C in the score (normalised to sum 1)"},
	{"retry", "the attempt limit, the backoff and the deadline"},
	{"budget", "the retry budget: a token bucket, its refill and the price of a retry"},
	{"breaker", "the circuit breaker, the emergency band and the recovery ramp"},
	{"admission", "the admission of new requests while the service queues"},
	{"pacer", "the pacer, which sends attempts at the rate the service completes while it queues (admit_originals)"},
	{"random", "the engine's random draws"},
	{"fleet", "an engine sharing its signals and budget with a fleet (a store, package fleet)"},
}

// nonNeg is the range of a count, a rate or a duration that may be 0.
var nonNeg = Range{}

// unit is the range (0, 1].
var unit = Range{LoOpen: true, Hi: 1, HasHi: true}

// Params lists every key of the file, in the order Format writes them. Every field of
// engine.Config is one key, except those in Runtime (TestEveryConfigFieldHasAKey fails for a
// field in neither).
var Params = []Param{
	{"signals", "window", "Window", Duration, "s", Range{LoOpen: true}, "sliding window of F (failure rate) and the breaker's minimum request count"},
	{"signals", "failure_horizon", "FailureHorizon", Duration, "s", Range{Note: "0 or >= window = the whole window"}, "short span of F, of L's P99 and of the breaker's trip rate"},
	{"signals", "queue_capacity", "QueueCapacity", Int, "requests", Range{Note: "0 = no Q signal"}, "Q = pending retries / queue_capacity"},
	{"signals", "baseline_latency", "BaselineLatency", Duration, "s", Range{Note: "0 = learn the healthy P50"}, "latency L is measured against"},
	{"signals", "learn_tail", "LearnTail", Bool, "", Range{}, "measure L from the learned healthy P99 rather than the baseline P50"},

	{"weights", "f", "Weights.F", Float, "", Range{Note: "the five sum to more than 0"}, "weight of F, the failure rate"},
	{"weights", "l", "Weights.L", Float, "", nonNeg, "weight of L, the latency deviation"},
	{"weights", "q", "Weights.Q", Float, "", nonNeg, "weight of Q, the queue pressure"},
	{"weights", "b", "Weights.B", Float, "", nonNeg, "weight of B, the budget burn"},
	{"weights", "c", "Weights.C", Float, "", nonNeg, "weight of C, the circuit state"},
	{"weights", "adaptive", "AdaptiveWeights", Bool, "", Range{}, "let the weights tune themselves (each within [0.05, 0.50])"},

	{"retry", "max_attempts", "MaxRetryAttempts", Int, "retries", nonNeg, "retries after the original; a retry index at or past it is MAX_RETRIES_EXCEEDED"},
	{"retry", "backoff_base", "BackoffBaseDelay", Duration, "s", nonNeg, "base of the backoff: Random(0, base x 2^attempt x (1 + 10 CPS))"},
	{"retry", "backoff_max", "BackoffMaxDelay", Duration, "s", nonNeg, "cap on any delay"},
	{"retry", "deadline_aware", "DeadlineAware", Bool, "", Range{}, "cut a delay to what the request's deadline leaves; refuse a retry with no time left"},

	{"budget", "capacity", "TokenBucketCapacity", Int, "tokens", Range{Note: "0 = no budget"}, "tokens in the bucket"},
	{"budget", "refill_rate", "TokenRefillRate", Float, "tokens/s", nonNeg, "refill, or its ceiling when refill_per_success > 0"},
	{"budget", "success_bonus", "TokenSuccessBonus", Int, "tokens", nonNeg, "tokens returned per success"},
	{"budget", "refill_per_success", "TokenRefillPerSuccess", Float, "tokens", Range{Note: "0 = the article's flat refill"}, "refill earned by each success, paid no faster than refill_rate"},
	{"budget", "slowdown_cost", "SlowdownCost", Float, "tokens", nonNeg, "a retry costs 1 + slowdown_cost x S (2x after a timeout), S the slowdown of the successes"},
	{"budget", "reserve", "BudgetReserve", Float, "", Range{Hi: 1, HasHi: true}, "share of the bucket kept for the higher priorities: priority p leaves reserve x (10-p)/10"},

	{"breaker", "emergency_threshold", "EmergencyThreshold", Float, "", unit, "CPS at or above which the circuit is forced OPEN (EMERGENCY)"},
	{"breaker", "failure_threshold", "CircuitFailureThreshold", Float, "", unit, "failure rate that trips the circuit"},
	{"breaker", "sustained", "CircuitSustainedDuration", Duration, "s", nonNeg, "how long the failure rate must hold to trip"},
	{"breaker", "min_requests", "CircuitMinRequests", Int, "outcomes", nonNeg, "no trip below this many outcomes in the window"},
	{"breaker", "trip_on_timeouts", "TripOnTimeouts", Bool, "", Range{}, "count timeouts towards the trip (off: answered failures only)"},
	{"breaker", "trip_fast", "TripFast", Bool, "", Range{}, "read the trip rate over the last one to two window slices"},
	{"breaker", "cooldown", "CircuitCooldown", Duration, "s", Range{LoOpen: true}, "OPEN -> HALF_OPEN after this"},
	{"breaker", "probe_on_success", "ProbeOnSuccess", Bool, "", Range{}, "go HALF_OPEN as soon as an attempt sent after the trip succeeds"},
	{"breaker", "half_open_probes", "HalfOpenProbes", Int, "probes", Range{Note: "0 = close straight after the cooldown"}, "successes in HALF_OPEN needed to close"},
	{"breaker", "recovery_ramp", "RecoveryRamp", Duration, "s", Range{Note: "0 = none"}, "gradual re-admission of retries after the circuit closes, highest priorities first"},

	{"admission", "admit_originals", "AdmitOriginals", Bool, "", Range{}, "shed new requests while the service queues, lowest priorities first"},
	{"admission", "hold_for_probe", "HoldForProbe", Bool, "", Range{}, "hold the protected priorities' requests while the circuit is OPEN, until it has probed"},
	{"admission", "queue_slowdown", "Admit.Slow", Float, "", Range{Hi: 1, HasHi: true, Note: "0 = the default, 0.5 (2.5 times the baseline)"}, "slowdown S of a slice's fastest success at or above which the service queues"},
	{"admission", "refused_share", "Admit.Refused", Float, "", Range{Hi: 1, HasHi: true, Note: "0 = the default, 0.05"}, "share of a slice's outcomes refused (503, 429) at or above which the pacer turns on"},
	{"admission", "failed_share", "Admit.Failed", Float, "", Range{Hi: 1, HasHi: true, Note: "0 = the default, 0.25"}, "share of a slice's outcomes failed at or above which slow successes are a queue"},
	{"admission", "smoothing", "Admit.Smooth", Float, "", Range{Hi: 1, HasHi: true, Note: "0 = the default, 0.5"}, "weight of each slice in the smoothed successes a slice the pace follows"},

	{"pacer", "min_rate", "Pace.Min", Float, "attempts/s", Range{Note: "0 = the default, 1"}, "slowest pace, kept while the service answers nothing: it probes the recovery"},
	{"pacer", "margin", "Pace.Margin", Float, "", Range{Note: "0 = the default, 0.1"}, "share more than the service completed that the pacer sends while it queues"},
	{"pacer", "horizon", "Pace.Horizon", Duration, "s", Range{Note: "0 = the default, 2s"}, "how far ahead priority 10 may reserve a send slot; priority p (p+1)/11 of it"},
	{"pacer", "burst", "Pace.Burst", Duration, "s", Range{Note: "0 = the default, 100ms"}, "idle credit: slots left untaken this long ago may still be taken at once"},
	{"pacer", "slow_share", "Pace.SlowShare", Float, "", Range{Hi: 1, HasHi: true, Note: "0 = the default, 0.05"}, "share of slow successes above which the service still queues (no ramp up)"},
	{"pacer", "start_factor", "Pace.StartFactor", Float, "", Range{Note: "0 = the default, 2"}, "the ramp after a queue drained stops at this times the rate the service completes"},
	{"pacer", "max_poll", "Pace.MaxPoll", Duration, "s", Range{Note: "0 = the default, 1s"}, "longest a held attempt waits before it asks again (unless queued or down)"},
	{"pacer", "release", "Pace.Release", Float, "", Range{Note: "0 = the default, 1.5"}, "cap on the pace while parked work waits, times the arrival rate of new requests"},
	{"pacer", "easing", "Pace.Easing", Float, "", Range{Hi: 1, HasHi: true, Note: "0 = the default, 0.9"}, "a slice's fastest success below this times a span's lowest is a queue easing, not a slow dependency"},
	{"pacer", "intrinsic", "Pace.Intrinsic", Float, "", Range{Note: "0 = the default, 1.25"}, "once a slowness is the service's own, successes up to this times it count as fast"},
	{"pacer", "rate_tau", "Pace.RateTau", Duration, "s", Range{Note: "0 = the default, 500ms"}, "time constant of the moving rate of successes the ramp is bounded by"},
	{"pacer", "arrival_slices", "Pace.ArrSlices", Float, "slices", Range{Note: "0 = the default, 5; 1 or less: the last slice alone"}, "time constant of the smoothed arrivals that cap the release, in window slices"},
	{"pacer", "reference_slices", "Pace.RefSlices", Float, "slices", Range{Note: "0 = the default, 30; 1 or less: the last slice alone"}, "time constant of the arrivals before the pressure (frozen while pacing), in window slices"},
	{"pacer", "urgent", "Pace.Urgent", Duration, "s", Range{Note: "0 = the default, 2s"}, "a parked attempt this near its deadline's edge goes before higher priorities that can wait"},

	{"random", "deterministic", "Deterministic", Bool, "", Range{}, "every random draw returns the midpoint of its range"},
	{"random", "seed", "Seed", Int64, "", Range{Note: "0 = time-based; the simulator seeds each engine itself"}, "seed of the engine's random source"},

	{"fleet", "enabled", "Fleet.Enabled", Bool, "", Range{}, "take part in a fleet (the simulator decides from the scenario's budget)"},
	{"fleet", "max_age", "Fleet.MaxAge", Duration, "s", Range{LoOpen: true, Note: "checked when enabled"}, "how long a fleet view stays fresh"},
	{"fleet", "lease", "Fleet.Lease", Float, "tokens", Range{Lo: 1, Note: "checked when enabled"}, "smallest lease of the fleet's tokens the engine asks for"},
	{"fleet", "envelope", "Fleet.Envelope", Float, "", Range{Hi: 1, HasHi: true, Note: "0 = the default, 0.3"}, "how far the fleet's F and L may move the engine's own"},
}

// Runtime are the fields of engine.Config a file cannot hold, with why: they are values of the
// running program, given in code.
var Runtime = map[string]string{
	"Clock":      "the time source is injected by the program (nil: the wall clock)",
	"Fleet.Pool": "the lease shared by the engines of one process is built by the program",
}

// lookup returns the Param whose Field is field, or nil.
func lookup(field string) *Param {
	for i := range Params {
		if Params[i].Field == field {
			return &Params[i]
		}
	}
	return nil
}

// ByPath returns the Param at path ("budget.capacity"); ok is false when there is none.
func ByPath(path string) (Param, bool) {
	for _, p := range Params {
		if p.Path() == path {
			return p, true
		}
	}
	return Param{}, false
}

// fieldOf returns the settable field of *cfg at p.Field.
func fieldOf(cfg *engine.Config, field string) reflect.Value {
	v := reflect.ValueOf(cfg).Elem()
	for _, name := range strings.Split(field, ".") {
		v = v.FieldByName(name)
	}
	return v
}

// Get returns p's value in cfg as a float64 (durations in seconds, switches 0 or 1), for the
// tuner and the report.
func (p Param) Get(cfg engine.Config) float64 {
	v := fieldOf(&cfg, p.Field)
	switch p.Kind {
	case Duration:
		return time.Duration(v.Int()).Seconds()
	case Int, Int64:
		return float64(v.Int())
	case Float:
		return v.Float()
	}
	if v.Bool() {
		return 1
	}
	return 0
}

// Set stores x in cfg's field (durations from seconds, rounded to the nanosecond; integers
// rounded to the nearest; a switch on for x >= 0.5).
func (p Param) Set(cfg *engine.Config, x float64) {
	v := fieldOf(cfg, p.Field)
	switch p.Kind {
	case Duration:
		v.SetInt(int64(math.Round(x * 1e9)))
	case Int, Int64:
		v.SetInt(int64(math.Round(x)))
	case Float:
		v.SetFloat(x)
	case Bool:
		v.SetBool(x >= 0.5)
	}
}

// Text writes p's value in cfg as the file writes it: "500ms", "100", "0.3", "true".
func (p Param) Text(cfg engine.Config) string {
	v := fieldOf(&cfg, p.Field)
	switch p.Kind {
	case Duration:
		return fmt.Sprintf("%q", tomlfile.FormatDuration(time.Duration(v.Int())))
	case Int, Int64:
		return fmt.Sprint(v.Int())
	case Float:
		return formatFloat(v.Float())
	}
	return fmt.Sprint(v.Bool())
}
