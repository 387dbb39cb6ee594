package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// FaultKind names one kind of injected failure of the downstream service.
type FaultKind string

// The fault kinds a scenario timeline or the dashboard can inject. Each has one row in the
// table of fault kinds (FaultSpecs), which is all the parser, the validator, the simulator,
// the dashboard and the key map know about it.
const (
	// FaultOutage crashes the service: connection refused, every attempt fails fast.
	FaultOutage FaultKind = "outage"
	// FaultBlackhole is a DNS failure: attempts hang until the client's timeout.
	FaultBlackhole FaultKind = "blackhole"
	// FaultLatency adds Value (a duration in seconds) to the service time, so capacity drops too.
	FaultLatency FaultKind = "latency"
	// FaultErrors makes a fraction Value (0..1) of processed attempts fail with a 5xx.
	FaultErrors FaultKind = "errors"
	// FaultThrottle rate-limits the service to Value requests/s; the excess is answered 429.
	FaultThrottle FaultKind = "throttle"
	// FaultCapacity scales the number of workers by the factor Value (0..1].
	FaultCapacity FaultKind = "capacity"
	// FaultBadRequests answers a fraction Value (0..1) of attempts with a 4xx (not retryable).
	FaultBadRequests FaultKind = "bad_requests"
)

// Unit says what a fault's value measures: how a scenario file writes it, how it reads on
// screen and how its bounds are worded.
type Unit int

// The units of fault values.
const (
	UnitNone     Unit = iota // the kind takes no value
	UnitSeconds              // seconds added; a duration in files (latency = "800ms"), reads "+800ms"
	UnitFraction             // a share in (0, 1] (fraction = 0.5), reads "50%"
	UnitRate                 // requests per second (rate = 100), reads "100/s"
	UnitFactor               // a multiplier (factor = 0.3), reads "x0.3"
)

// FaultSpec is one row of the table of fault kinds: everything the parser, the validator, the
// simulator (which adds the kind's behaviour), the dashboard and the key map need to know.
type FaultSpec struct {
	Kind FaultKind
	// Key is the [[fault]] key that carries the value ("" for a kind without one).
	Key  string
	Unit Unit
	// Min and Max bound the value: Min < value <= Max, and finite (Max may be +Inf). Unused
	// for UnitNone, whose value must be 0.
	Min, Max float64
	// Inject is the value the dashboard's key injects; for UnitRate it is a share of the
	// service's capacity (InjectValue turns it into requests/s).
	Inject float64
	// Binding is the name of the key map action that toggles the fault from the dashboard
	// (keymap has the action, its default keys and help); "" for a kind without a key.
	Binding string
	// Effect says what the fault does, in a few words: "connection refused, every attempt fails fast".
	Effect string
	// Lever is what the fault does to the service, the one meaning both modes apply: the
	// simulator and live mode act on Effects, never on a kind (Effects.Set).
	Lever Lever
}

// Lever is what a fault acts on: one field of Effects. A fault kind's row names its lever, so
// a new kind that acts as an existing lever acts in both modes with its row alone; a new lever
// is a constant here, its field of Effects and its case of Effects.Set, and its behaviour in
// the simulator (sim/service.go) and in live mode (live/proxy/injector.go, or the embedded
// service through the injector's hooks), where TestEveryFaultKindActs and
// TestEveryFaultKindActsLive fail until it acts.
type Lever uint8

// The levers of the faults.
const (
	LeverNone        Lever = iota // acts on nothing (no row may have it)
	LeverDown                     // Effects.Down
	LeverHang                     // Effects.Hang
	LeverLatency                  // Effects.Latency
	LeverErrors                   // Effects.Errors
	LeverThrottle                 // Effects.Throttle
	LeverCapacity                 // Effects.Capacity
	LeverBadRequests              // Effects.BadRequests
)

// Effects is what the faults in effect do to a service: the simulator's service and live
// mode's fault injector (with the embedded service behind it) both act on these fields, and
// on nothing else. NoEffects is a service without a fault; Set applies a fault's lever.
type Effects struct {
	Down        bool    // connections refused: every attempt fails fast, the queue is lost (outage)
	Hang        bool    // attempts hang unanswered until their client's timeout (blackhole)
	Latency     float64 // seconds added to the mean service time, so capacity drops too (latency)
	Errors      float64 // share of served attempts answered 5xx, 0 for none (errors)
	Throttle    float64 // rate limit in requests/s, the excess answered 429; 0 for none (throttle)
	Capacity    float64 // factor on the workers, 1 for none (capacity)
	BadRequests float64 // share of attempts answered 4xx at once, 0 for none (bad_requests)
}

// NoEffects is the Effects of a service with no fault in effect.
func NoEffects() Effects { return Effects{Capacity: 1} }

// Set puts lever l in effect with the fault's value v (a share, a rate, seconds or a factor:
// the unit of the kind's row; ignored by Down and Hang). A lever set twice keeps the last value.
func (e *Effects) Set(l Lever, v float64) {
	switch l {
	case LeverDown:
		e.Down = true
	case LeverHang:
		e.Hang = true
	case LeverLatency:
		e.Latency = v
	case LeverErrors:
		e.Errors = v
	case LeverThrottle:
		e.Throttle = v
	case LeverCapacity:
		e.Capacity = v
	case LeverBadRequests:
		e.BadRequests = v
	}
}

// faultSpecs is the table of fault kinds, in the order of FaultKinds: the order of the
// dashboard's keys (1..6) and of its help. A new kind is one row here, with the Lever it acts
// on (a new lever: see Lever).
var faultSpecs = [...]FaultSpec{
	{Kind: FaultOutage, Binding: "outage", Effect: "connection refused, every attempt fails fast", Lever: LeverDown},
	{Kind: FaultBlackhole, Binding: "blackhole", Effect: "attempts hang until the client's timeout", Lever: LeverHang},
	{Kind: FaultLatency, Key: "latency", Unit: UnitSeconds, Max: (10 * time.Minute).Seconds(), Inject: 1,
		Binding: "latency", Effect: "added to the service time, so capacity drops too", Lever: LeverLatency},
	{Kind: FaultErrors, Key: "fraction", Unit: UnitFraction, Max: 1, Inject: 0.5,
		Binding: "errors", Effect: "processed attempts fail with a 5xx", Lever: LeverErrors},
	{Kind: FaultThrottle, Key: "rate", Unit: UnitRate, Max: math.Inf(1), Inject: 0.5,
		Binding: "throttle", Effect: "attempts above the rate answered 429", Lever: LeverThrottle},
	{Kind: FaultCapacity, Key: "factor", Unit: UnitFactor, Max: 1, Inject: 0.3,
		Binding: "capacity", Effect: "the workers scaled down", Lever: LeverCapacity},
	{Kind: FaultBadRequests, Key: "fraction", Unit: UnitFraction, Max: 1, Inject: 0.2,
		Effect: "attempts answered 4xx, which are not retryable", Lever: LeverBadRequests},
}

// NumFaultKinds is the number of fault kinds: the length of FaultKinds and FaultSpecs.
const NumFaultKinds = len(faultSpecs)

// FaultKinds lists every fault kind in table order (the dashboard's keys 1..6, bad_requests
// last, without a key).
var FaultKinds = func() []FaultKind {
	kinds := make([]FaultKind, len(faultSpecs))
	for i, s := range faultSpecs {
		kinds[i] = s.Kind
	}
	return kinds
}()

// FaultSpecs returns the table of fault kinds, one row per kind in the order of FaultKinds. The
// slice is a copy the caller may keep.
func FaultSpecs() []FaultSpec {
	t := faultSpecs
	return t[:]
}

// Index returns the position of k in FaultKinds and FaultSpecs, or -1 for an unknown kind.
func (k FaultKind) Index() int {
	for i := range faultSpecs {
		if faultSpecs[i].Kind == k {
			return i
		}
	}
	return -1
}

// Spec returns the table row of k; ok is false for an unknown kind.
func (k FaultKind) Spec() (spec FaultSpec, ok bool) {
	if i := k.Index(); i >= 0 {
		return faultSpecs[i], true
	}
	return FaultSpec{}, false
}

// ValueKey is the [[fault]] key that carries Value for this kind ("latency", "fraction", "rate"
// or "factor"), or "" for kinds without a value (outage, blackhole) and unknown kinds.
func (k FaultKind) ValueKey() string {
	s, _ := k.Spec()
	return s.Key
}

// Check returns what is wrong with v as the value of a fault of kind k: the field at fault
// ("kind" for an unknown kind or a value given to a kind without one, else the value's key)
// and the problem, or two empty strings when v is fine.
func (k FaultKind) Check(v float64) (field, problem string) {
	s, ok := k.Spec()
	switch {
	case !ok:
		return "kind", fmt.Sprintf("unknown kind %q; valid kinds: %s", k, kindList())
	case s.Unit == UnitNone:
		if v != 0 {
			return "kind", fmt.Sprintf("%s takes no value, got %v", k, v)
		}
	case !(v > s.Min && v <= s.Max) || math.IsInf(v, 0):
		return s.Key, fmt.Sprintf("must be %s, got %s", s.Unit.bounds(s.Min, s.Max), s.Unit.write(v))
	}
	return "", ""
}

// Label names a fault of this kind with its value as the dashboard and the picker show it:
// "outage", "latency +500ms", "errors 30%", "throttle 120/s", "capacity x0.3", "bad requests 10%".
func (s FaultSpec) Label(v float64) string {
	name := strings.ReplaceAll(string(s.Kind), "_", " ")
	if s.Unit == UnitNone {
		return name
	}
	return name + " " + s.Unit.Show(v)
}

// Label is FaultSpec.Label for kind k; an unknown kind reads as its name.
func (k FaultKind) Label(v float64) string {
	s, ok := k.Spec()
	if !ok {
		s = FaultSpec{Kind: k}
	}
	return s.Label(v)
}

// InjectValue is the value the dashboard injects for this kind on a service of capacity
// requests/s: Inject, or for a rate Inject x capacity (at least 1 request/s).
func (s FaultSpec) InjectValue(capacity float64) float64 {
	if s.Unit == UnitRate {
		return max(1, s.Inject*capacity)
	}
	return s.Inject
}

// Show writes a value in its unit for people: "+800ms", "50%", "120/s", "x0.3" ("" for
// UnitNone). Numbers are rounded to two decimals.
func (u Unit) Show(v float64) string {
	switch u {
	case UnitSeconds:
		return "+" + time.Duration(v*float64(time.Second)).Round(time.Millisecond).String()
	case UnitFraction:
		return short(100*v) + "%"
	case UnitRate:
		return short(v) + "/s"
	case UnitFactor:
		return "x" + short(v)
	}
	return ""
}

// Example is how a scenario file writes a typical value of this unit: `"800ms"`, "0.5", "100",
// "0.3" ("" for UnitNone).
func (u Unit) Example() string {
	switch u {
	case UnitSeconds:
		return `"800ms"`
	case UnitFraction:
		return "0.5"
	case UnitRate:
		return "100"
	case UnitFactor:
		return "0.3"
	}
	return ""
}

// write writes v as a scenario file would (a duration for UnitSeconds), for messages.
func (u Unit) write(v float64) string {
	if u == UnitSeconds {
		return FormatDuration(time.Duration(v * float64(time.Second)))
	}
	return fmt.Sprint(v)
}

// bounds words the range (lo, hi] of a value of this unit: "in (0, 1]", "a factor in (0, 1]",
// "a rate > 0 in requests/s", "a duration in (0s, 600s]".
func (u Unit) bounds(lo, hi float64) string {
	r := "in (" + u.write(lo) + ", " + u.write(hi) + "]"
	if math.IsInf(hi, 1) {
		r = "> " + u.write(lo)
	}
	switch u {
	case UnitSeconds:
		return "a duration " + r
	case UnitRate:
		return "a rate " + r + " in requests/s"
	case UnitFactor:
		return "a factor " + r
	}
	return r
}

// short formats x rounded to two decimals, without trailing zeros: 0.3, 66.67, 120.
func short(x float64) string { return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64) }

// kindList is the valid fault kinds, comma-separated.
func kindList() string {
	names := make([]string, len(faultSpecs))
	for i, s := range faultSpecs {
		names[i] = string(s.Kind)
	}
	return strings.Join(names, ", ")
}
