package tune

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
)

// Dim is one parameter the search moves: a key of cortex.toml (engineconf.Param) searched
// between Lo and Hi (its unit: seconds for a duration), on a log scale when Log (a capacity,
// a time constant: a factor matters, not a difference), rounded to an integer when the key is
// one. The optimizer sees every Dim rescaled to [0, 1].
type Dim struct {
	Param  engineconf.Param
	Lo, Hi float64
	Log    bool
}

// Group is a set of Dims `--params` names: weights, budget, breaker, retry, signals, pacer.
type Group struct {
	Name string
	Doc  string
	Keys []string // paths of the group's keys
}

// bounds are the search ranges of the tunable keys, within the ranges the engine accepts
// (engineconf.Params): wide enough to hold the article's and the defaults' values and several
// times either, narrow enough that a sample is a configuration someone could run.
var bounds = map[string]struct {
	lo, hi float64
	log    bool
}{
	"weights.f": {0.02, 1, false}, "weights.l": {0.02, 1, false}, "weights.q": {0.02, 1, false},
	"weights.b": {0.02, 1, false}, "weights.c": {0.02, 1, false},

	"budget.capacity":           {25, 5000, true},
	"budget.refill_rate":        {5, 1000, true},
	"budget.refill_per_success": {0, 3, false},
	"budget.slowdown_cost":      {0, 40, false},
	"budget.reserve":            {0, 1, false},

	"breaker.emergency_threshold": {0.5, 1, false},
	"breaker.failure_threshold":   {0.2, 1, false},
	"breaker.sustained":           {0, 10, false},
	"breaker.min_requests":        {2, 200, true},
	"breaker.cooldown":            {0.5, 30, true},
	"breaker.half_open_probes":    {1, 20, true},
	"breaker.recovery_ramp":       {0, 30, false},

	"retry.max_attempts": {1, 6, false},
	"retry.backoff_base": {0.02, 3, true},
	"retry.backoff_max":  {0.5, 60, true},

	"signals.failure_horizon": {1, 30, true},
	"signals.window":          {10, 120, true},

	"pacer.min_rate":     {0.2, 20, true},
	"pacer.margin":       {0.01, 0.5, true},
	"pacer.burst":        {0.01, 1, true},
	"pacer.slow_share":   {0.01, 0.3, true},
	"pacer.start_factor": {1.1, 5, true},
	"pacer.release":      {1.05, 5, true},
	// The constants of the pacer and of admission that were fixed until they were made keys:
	// each range holds the default and a factor of two to ten either way that still reads the
	// service (an easing of 0.5 takes a halving of the fastest success for a queue easing; a
	// queue_slowdown of 0.1 is 1.3 times the baseline, 1 four times).
	"pacer.easing":           {0.5, 0.99, false},
	"pacer.intrinsic":        {1, 3, true},
	"pacer.rate_tau":         {0.05, 5, true},
	"pacer.arrival_slices":   {1, 30, true},
	"pacer.reference_slices": {5, 200, true},
	"pacer.urgent":           {0.1, 10, true},

	"admission.queue_slowdown": {0.1, 1, false},
	"admission.refused_share":  {0.005, 0.5, true},
	"admission.failed_share":   {0.02, 1, true},
	"admission.smoothing":      {0.05, 1, true},
}

// Groups are the parameter groups of --params, in the order they are searched.
var Groups = []Group{
	{"weights", "the weights of F, L, Q, B and C", []string{"weights.f", "weights.l", "weights.q", "weights.b", "weights.c"}},
	{"budget", "the retry budget: capacity, refill, the price of a retry, the reserve", []string{"budget.capacity", "budget.refill_rate", "budget.refill_per_success", "budget.slowdown_cost", "budget.reserve"}},
	{"breaker", "the circuit breaker, the emergency threshold and the recovery ramp", []string{"breaker.emergency_threshold", "breaker.failure_threshold", "breaker.sustained", "breaker.min_requests", "breaker.cooldown", "breaker.half_open_probes", "breaker.recovery_ramp"}},
	{"retry", "the attempt limit and the backoff", []string{"retry.max_attempts", "retry.backoff_base", "retry.backoff_max"}},
	{"signals", "the window and the short span of the signals", []string{"signals.failure_horizon", "signals.window"}},
	// The pacer's horizon and max_poll are not searched: they time the attempts it holds and
	// tells to ask again, and the simulator's clients park theirs (Request.Park) instead, so
	// neither moves a simulated run (each at both ends of its range, seeds 21-25, every built-in
	// open-loop scenario: 0.0 points). They matter to a caller that polls (cortexhttp).
	{"pacer", "the pacer: its slowest pace, margin, burst, slow share, ramp, release of parked work, its reading of a slow dependency, its smoothings and the urgency of parked work near its deadline", []string{"pacer.min_rate", "pacer.margin", "pacer.burst", "pacer.slow_share", "pacer.start_factor", "pacer.release",
		"pacer.easing", "pacer.intrinsic", "pacer.rate_tau", "pacer.arrival_slices", "pacer.reference_slices", "pacer.urgent"}},
	{"admission", "when admission reads a queue: the slowdown of the fastest success, the shares of refusals and failures, the smoothing of the completions", []string{"admission.queue_slowdown", "admission.refused_share", "admission.failed_share", "admission.smoothing"}},
}

// DefaultGroups are the groups searched when --params is not given: every group. The signals'
// window is among them because it is the pacer's period (it steps once a window slice, a
// sixtieth of the window): with the pacer on, it moves a scenario's success by more than any
// other key (seeds 1-5, one key at a time at the ends of its range: up to 39 points, where no
// weight, budget, breaker or retry key moves any built-in scenario by more than 2.5).
var DefaultGroups = []string{"weights", "budget", "breaker", "retry", "signals", "pacer", "admission"}

// ParseDims returns the Dims of the groups and keys named in list (a group's name, or a key's
// path such as "budget.capacity"), each once, in the order of Groups. An unknown name is an
// error that lists the valid ones.
func ParseDims(list []string) ([]Dim, error) {
	var keys []string
	for _, name := range list {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		i := slices.IndexFunc(Groups, func(g Group) bool { return g.Name == name })
		switch {
		case i >= 0:
			keys = append(keys, Groups[i].Keys...)
		case hasBounds(name):
			keys = append(keys, name)
		default:
			return nil, fmt.Errorf("unknown parameter %q: give groups (%s) or keys of them (such as budget.capacity)", name, strings.Join(groupNames(), ", "))
		}
	}
	var dims []Dim
	for _, g := range Groups {
		for _, k := range g.Keys {
			if slices.Contains(keys, k) {
				p, _ := engineconf.ByPath(k)
				b := bounds[k]
				dims = append(dims, Dim{Param: p, Lo: b.lo, Hi: b.hi, Log: b.log})
			}
		}
	}
	if len(dims) == 0 {
		return nil, fmt.Errorf("no parameter to tune: give groups (%s) or keys of them", strings.Join(groupNames(), ", "))
	}
	return dims, nil
}

// hasBounds reports whether key is a tunable key.
func hasBounds(key string) bool {
	_, ok := bounds[key]
	return ok
}

// groupNames lists the groups' names.
func groupNames() []string {
	var out []string
	for _, g := range Groups {
		out = append(out, g.Name)
	}
	return out
}

// unit maps x, a value of d, to [0, 1] (clamped).
func (d Dim) unit(x float64) float64 {
	lo, hi := d.Lo, d.Hi
	if d.Log {
		lo, hi, x = math.Log(lo), math.Log(hi), math.Log(max(x, d.Lo))
	}
	return min(1, max(0, (x-lo)/(hi-lo)))
}

// value maps u in [0, 1] (reflected into it: see reflect) to a value of d, rounded as its key's
// kind is.
func (d Dim) value(u float64) float64 {
	u = reflect(u)
	var x float64
	if d.Log {
		x = math.Exp(math.Log(d.Lo) + u*(math.Log(d.Hi)-math.Log(d.Lo)))
	} else {
		x = d.Lo + u*(d.Hi-d.Lo)
	}
	switch d.Param.Kind {
	case engineconf.Int, engineconf.Int64:
		x = math.Round(x)
	case engineconf.Duration:
		x = math.Round(x*1e3) / 1e3 // whole milliseconds, as a person would write them
	case engineconf.Float:
		x = roundSig(x, 3)
	}
	return min(d.Hi, max(d.Lo, x))
}

// roundSig rounds x to n significant digits, so that a tuned file reads 0.312, not
// 0.31196573218.
func roundSig(x float64, n int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// Encode returns cfg's position in the unit cube of dims.
func Encode(dims []Dim, cfg engine.Config) []float64 {
	u := make([]float64, len(dims))
	for i, d := range dims {
		u[i] = d.unit(d.Param.Get(cfg))
	}
	return u
}

// reflect folds u into [0, 1] as a mirror would, at each bound in turn: 1.1 is 0.9, -0.2 is
// 0.2, 2.3 is 0.3. CMA-ES samples an unbounded space; a sample past a bound so stands for a
// configuration inside the range, as near the bound as the sample is past it, instead of the
// bound itself for every sample past it (clamping: many samples, one configuration) or a
// penalty that outweighs the objective (a tenth of the cube past a bound is 10 points of
// success, where a parameter moves the score by a few tenths of a point).
func reflect(u float64) float64 {
	if math.IsNaN(u) || math.IsInf(u, 0) {
		return 0.5
	}
	u = math.Mod(math.Abs(u), 2)
	if u > 1 {
		u = 2 - u
	}
	return u
}

// Decode returns base with every Dim set from u (its position in the unit cube, reflected into
// it at the bounds), and how far u lies outside the cube (the sum of the distances: the search
// takes a small penalty for it, which keeps CMA-ES's mean near the cube).
func Decode(dims []Dim, base engine.Config, u []float64) (engine.Config, float64) {
	out := 0.0
	for i, d := range dims {
		out += max(0, -u[i]) + max(0, u[i]-1)
		d.Param.Set(&base, d.value(u[i]))
	}
	return base, out
}
