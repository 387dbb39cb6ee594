package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/tomlfile"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Limits of the format, checked by Validate. They keep a run meaningful and cut off values no
// scenario needs (64 classes, a queue of a million attempts, a million requests per second),
// which also bounds what the simulator allocates by construction (the queue's ring, the
// clients' state). They do not bound a run's cost on their own: a run at every limit at once
// would simulate about 2 x 10^11 attempts and hold 42 GB. What bounds it is the cost model of
// package sim (sim.Estimate): run, bench and validate refuse, before anything starts, a run it
// expects to take more than 10 minutes of CPU or 2 GB, unless --allow-large is given
// (docs/simulator.md, "What a run costs"). Package scenarios does not import sim: the check is
// the commands'.
const (
	MaxDuration = time.Hour        // longest arrival phase
	MaxDrain    = 10 * time.Minute // longest drain
	MinTick     = time.Millisecond // shortest simulation step
	MaxTick     = time.Second      // longest simulation step
	MaxClients  = 1000             // most client instances (a cortex client's engine is about 90 KB)
	MaxLayers   = 3                // most retry layers (a request then costs up to 4 x 4 x 4 = 64 attempts)
	MaxPriority = 10               // highest class priority (the lowest is 0)
	MaxSigma    = 3.0              // widest lognormal shape of the service time
	MaxClasses  = 64               // most [[class]] entries
	MaxRate     = 100000           // highest base rate of one class, requests/s
	MaxFactor   = 100              // largest load profile factor
	MaxPeakRate = 1000000          // highest open-loop arrival rate: the sum of the class rates times the largest load factor, requests/s
	MaxUsers    = 10000            // most closed-loop users
	MaxWorkers  = 100000           // most service workers

	MaxQueueLimit = 1000000 // largest service.queue_limit
)

// namePattern is what a scenario name may look like: lowercase words joined by hyphens.
var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Validate checks every field and returns an Errors naming each bad field (by its TOML path,
// e.g. "service.workers"), or nil. It does not fill defaults: a Scenario built in code should
// start from Defaults().
func (s Scenario) Validate() error {
	var p problems
	s.validateTop(&p)
	s.validateFleet(&p)
	s.validateClasses(&p)
	s.validateLoad(&p)
	s.validateService(&p)
	s.validateFaults(&p)
	s.validateControls(&p)
	s.validateNotes(&p)
	if s.Engine != nil {
		if err := s.Engine.Validate(); err != nil {
			p.Addf("engine", "%v", err)
		}
	}
	return p.Err()
}

func (s Scenario) validateTop(p *problems) {
	switch {
	case s.Name == "":
		p.Addf("name", "is required")
	case !namePattern.MatchString(s.Name):
		p.Addf("name", "must be lowercase letters, digits and single hyphens (like \"black-friday\"), got %q", s.Name)
	}
	switch {
	case strings.TrimSpace(s.Summary) == "":
		p.Addf("summary", "is required")
	case strings.ContainsAny(s.Summary, "\r\n"):
		p.Addf("summary", "must be a single line")
	}
	switch {
	case s.Duration <= 0:
		p.Addf("duration", "must be positive, got %s", FormatDuration(s.Duration))
	case s.Duration > MaxDuration:
		p.Addf("duration", "must be at most %s, got %s", FormatDuration(MaxDuration), FormatDuration(s.Duration))
	}
	if s.Strategy != "" {
		validateStrategies(p, "strategy", []string{s.Strategy})
	}
	if s.Drain < 0 || s.Drain > MaxDrain {
		p.Addf("drain", "must be between 0s and %s, got %s", FormatDuration(MaxDrain), FormatDuration(s.Drain))
	}
	switch {
	case s.Tick < MinTick || s.Tick > MaxTick:
		p.Addf("tick", "must be between %s and %s, got %s", MinTick, FormatDuration(MaxTick), FormatDuration(s.Tick))
	case s.Duration > 0 && s.Duration%s.Tick != 0:
		p.Addf("tick", "must divide duration (%s) evenly, got %s", FormatDuration(s.Duration), FormatDuration(s.Tick))
	}
}

func (s Scenario) validateFleet(p *problems) {
	if s.Clients < 1 || s.Clients > MaxClients {
		p.Addf("fleet.clients", "must be between 1 and %d, got %d", MaxClients, s.Clients)
	}
	if s.Loop.Closed {
		switch {
		case s.Loop.Users < 1:
			p.Addf("fleet.users", "must be at least 1 with loop = \"closed\", got %d", s.Loop.Users)
		case s.Loop.Users > MaxUsers:
			p.Addf("fleet.users", "must be between 1 and %d, got %d", MaxUsers, s.Loop.Users)
		}
		if s.Loop.Think < 0 {
			p.Addf("fleet.think", "must not be negative, got %s", FormatDuration(s.Loop.Think))
		}
	} else {
		if s.Loop.Users != 0 {
			p.Addf("fleet.users", "is only for loop = \"closed\" (open-loop rates come from [[class]] rate)")
		}
		if s.Loop.Think != 0 {
			p.Addf("fleet.think", "is only for loop = \"closed\"")
		}
	}
	if s.Deadline <= 0 {
		p.Addf("fleet.deadline", "must be positive, got %s", FormatDuration(s.Deadline))
	}
	switch {
	case s.Timeout <= 0:
		p.Addf("fleet.timeout", "must be positive, got %s", FormatDuration(s.Timeout))
	case s.Deadline > 0 && s.Timeout > s.Deadline:
		p.Addf("fleet.timeout", "must not exceed fleet.deadline (%s), got %s", FormatDuration(s.Deadline), FormatDuration(s.Timeout))
	}
	if s.Layers < 1 || s.Layers > MaxLayers {
		p.Addf("fleet.layers", "must be between 1 and %d, got %d", MaxLayers, s.Layers)
	}
	if s.Budget != BudgetPerClient && s.Budget != BudgetShared {
		p.Addf("fleet.budget", "must be \"per-client\" or \"shared\", got %s", s.Budget)
	}
}

func (s Scenario) validateClasses(p *problems) {
	if len(s.Classes) == 0 {
		p.Addf("class", "at least one [[class]] is required")
		return
	}
	seen := map[string]int{}
	total, badRate := 0.0, false
	for i, c := range s.Classes {
		f := fmt.Sprintf("class[%d]", i+1)
		switch {
		case strings.TrimSpace(c.Name) == "":
			p.Addf(f+".name", "is required")
		case seen[c.Name] > 0:
			p.Addf(f+".name", "%q is already the name of class[%d]", c.Name, seen[c.Name])
		default:
			seen[c.Name] = i + 1
		}
		if c.Priority < 0 || c.Priority > MaxPriority {
			p.Addf(f+".priority", "must be between 0 and %d, got %d", MaxPriority, c.Priority)
		}
		if !finiteAtLeast(c.Rate, 0) {
			p.Addf(f+".rate", "must be a number >= 0, got %v", c.Rate)
			badRate = true
			continue
		}
		if c.Rate > MaxRate {
			p.Addf(f+".rate", "must be at most %d requests/s, got %v", MaxRate, c.Rate)
			badRate = true
			continue
		}
		total += c.Rate
	}
	if len(s.Classes) > MaxClasses {
		p.Addf(fmt.Sprintf("class[%d]", MaxClasses+1), "at most %d [[class]] entries, got %d", MaxClasses, len(s.Classes))
	}
	switch {
	case total == 0 && !badRate:
		p.Addf("class", "the rates of all classes sum to 0: no traffic")
	case !badRate && !s.Loop.Closed && s.loadValid() && !s.ClassLoads():
		if peak := total * s.PeakLoad(); peak > MaxPeakRate {
			p.Addf("class", "the peak arrival rate, %v requests/s (the class rates sum to %v, times the largest load factor, %v), must be at most %d requests/s",
				peak, total, s.PeakLoad(), MaxPeakRate)
		}
	case !badRate && !s.Loop.Closed && s.loadValid():
		if peak := s.PeakRate(); peak > MaxPeakRate {
			p.Addf("class", "the peak arrival rate, %v requests/s (at its largest, the sum over classes of rate x the class's own load factor x the load factor), must be at most %d requests/s",
				peak, MaxPeakRate)
		}
	}
}

// loadValid reports whether every load point, the scenario's and the classes', has a valid
// factor, so PeakLoad and PeakRate may be relied on.
func (s Scenario) loadValid() bool {
	valid := func(pts []LoadPoint) bool {
		for _, l := range pts {
			if !finiteAtLeast(l.Factor, 0) || l.Factor > MaxFactor {
				return false
			}
		}
		return true
	}
	if !valid(s.Load) {
		return false
	}
	for _, c := range s.Classes {
		if !valid(c.Load) {
			return false
		}
	}
	return true
}

func (s Scenario) validateLoad(p *problems) {
	validateProfile(p, "load", s.Load)
	for i, c := range s.Classes {
		validateProfile(p, fmt.Sprintf("class[%d].load", i+1), c.Load)
	}
}

// validateProfile checks the load points pts of the profile at path ("load", "class[2].load"):
// times from 0, strictly increasing; factors between 0 and MaxFactor.
func validateProfile(p *problems, path string, pts []LoadPoint) {
	for i, l := range pts {
		f := fmt.Sprintf("%s[%d]", path, i+1)
		if l.At < 0 {
			p.Addf(f+".at", "must not be negative, got %s", FormatDuration(l.At))
		} else if i > 0 && l.At <= pts[i-1].At {
			p.Addf(f+".at", "must be after %s[%d].at (%s), got %s", path, i, FormatDuration(pts[i-1].At), FormatDuration(l.At))
		}
		if !finiteAtLeast(l.Factor, 0) || l.Factor > MaxFactor {
			p.Addf(f+".factor", "must be between 0 and %d, got %v", MaxFactor, l.Factor)
		}
	}
}

func (s Scenario) validateService(p *problems) {
	v := s.Service
	if v.Workers < 1 || v.Workers > MaxWorkers {
		p.Addf("service.workers", "must be between 1 and %d, got %d", MaxWorkers, v.Workers)
	}
	if v.ServiceTime <= 0 {
		p.Addf("service.service_time", "must be positive, got %s", FormatDuration(v.ServiceTime))
	}
	if !finiteAtLeast(v.Sigma, 0) || v.Sigma > MaxSigma {
		p.Addf("service.sigma", "must be between 0 and %v, got %v", MaxSigma, v.Sigma)
	}
	if v.QueueLimit < 0 || v.QueueLimit > MaxQueueLimit {
		p.Addf("service.queue_limit", "must be between 0 and %d, got %d", MaxQueueLimit, v.QueueLimit)
	}
	if msg := CheckRefusalCost(v.RefusalCost); msg != "" {
		p.Addf("service.refusal_cost", "%s", msg)
	}
	switch {
	case !finiteAtLeast(v.CrashFactor, 0):
		p.Addf("service.crash_factor", "must be 0 (never crashes) or at least 1, got %v", v.CrashFactor)
	case v.CrashFactor > 0 && v.CrashFactor < 1:
		p.Addf("service.crash_factor", "must be 0 (never crashes) or at least 1 (a service below capacity does not crash), got %v", v.CrashFactor)
	}
	if v.CrashAfter < 0 {
		p.Addf("service.crash_after", "must not be negative, got %s", FormatDuration(v.CrashAfter))
	}
	switch {
	case v.RestartDelay < 0:
		p.Addf("service.restart_delay", "must not be negative, got %s", FormatDuration(v.RestartDelay))
	case v.CrashFactor > 0 && v.RestartDelay == 0:
		p.Addf("service.restart_delay", "must be positive when service.crash_factor is set")
	}
	if !(v.WarmStart > 0 && v.WarmStart <= 1) {
		p.Addf("service.warm_start", "must be in (0, 1], got %v", v.WarmStart)
	}
	if v.Warmup < 0 {
		p.Addf("service.warmup", "must not be negative, got %s", FormatDuration(v.Warmup))
	}
}

func (s Scenario) validateFaults(p *problems) {
	for i, f := range s.Faults {
		path := fmt.Sprintf("fault[%d]", i+1)
		if f.Kind.Index() < 0 {
			_, msg := f.Kind.Check(f.Value)
			p.Addf(path+".kind", "%s", msg)
			continue
		}
		switch {
		case f.At < 0:
			p.Addf(path+".at", "must not be negative, got %s", FormatDuration(f.At))
		case s.Duration > 0 && f.At >= s.Duration:
			p.Addf(path+".at", "starts at %s, at or after the end of the run's arrivals (duration = %s)", FormatDuration(f.At), FormatDuration(s.Duration))
		case s.tickValid() && f.At%s.Tick != 0:
			p.Addf(path+".at", "must be a multiple of tick (%s): faults start and end on tick boundaries, got %s", FormatDuration(s.Tick), FormatDuration(f.At))
		}
		switch {
		case f.Duration <= 0:
			p.Addf(path+".duration", "must be positive, got %s", FormatDuration(f.Duration))
		case s.tickValid() && f.Duration%s.Tick != 0:
			// A fault shorter than a tick that starts within one would never happen at all.
			p.Addf(path+".duration", "must be a multiple of tick (%s): faults start and end on tick boundaries, got %s", FormatDuration(s.Tick), FormatDuration(f.Duration))
		}
		if field, msg := f.Kind.Check(f.Value); msg != "" {
			p.Addf(path+"."+field, "%s", msg)
		}
		for j := range i {
			g := s.Faults[j]
			if g.Kind == f.Kind && f.At < g.At+g.Duration && g.At < f.At+f.Duration {
				p.Addf(path, "overlaps fault[%d] (%s from %s to %s): faults of one kind must not overlap",
					j+1, g.Kind, FormatDuration(g.At), FormatDuration(g.At+g.Duration))
				break
			}
		}
	}
}

// tickValid reports whether Tick is within its limits, so other checks may rely on it.
func (s Scenario) tickValid() bool { return s.Tick >= MinTick && s.Tick <= MaxTick }

func (s Scenario) validateNotes(p *problems) {
	for i, n := range s.Notes {
		f := fmt.Sprintf("note[%d]", i+1)
		switch {
		case n.At < 0:
			p.Addf(f+".at", "must not be negative, got %s", FormatDuration(n.At))
		case i > 0 && n.At < s.Notes[i-1].At,
			i > 0 && n.At == s.Notes[i-1].At && shareStrategy(n, s.Notes[i-1]):
			p.Addf(f+".at", "must be after note[%d].at (%s): notes go in time order, got %s", i, FormatDuration(s.Notes[i-1].At), FormatDuration(n.At))
		case s.Duration > 0 && n.At >= s.End():
			p.Addf(f+".at", "is at or after the end of the run (duration + drain = %s), got %s", FormatDuration(s.End()), FormatDuration(n.At))
		}
		if strings.TrimSpace(n.Text) == "" {
			p.Addf(f+".text", "is required")
		}
		validateStrategies(p, f+".strategies", n.Strategies)
		validateStrategies(p, f+".except", n.Except)
		if len(n.Strategies) > 0 && len(n.Except) > 0 {
			p.Addf(f+".except", "give strategies (the note's) or except (those it is not for), not both")
		}
	}
}

// shareStrategy reports whether a run of some strategy would show both notes: two notes at the
// same time are allowed only when no strategy sees both (they are alternatives). A note with
// Except is shown to the strategies a later catalog adds too, so it overlaps any other note
// that is not about named strategies only, all of them in its Except.
func shareStrategy(a, b Note) bool {
	if len(a.Strategies) == 0 && len(b.Strategies) == 0 {
		return true // both for every strategy, but a few: a strategy the catalog adds sees both
	}
	if len(a.Strategies) == 0 {
		a, b = b, a
	}
	for _, name := range a.Strategies { // a names its strategies
		if b.For(name) {
			return true
		}
	}
	return false
}

// validateStrategies checks a list of strategy names: each in the strategy catalog, none twice.
func validateStrategies(p *problems, field string, names []string) {
	for i, name := range names {
		switch {
		case !slices.Contains(strategy.Names(), name):
			msg := fmt.Sprintf("unknown strategy %q", name)
			if guess := tomlfile.Closest(name, strategy.Names()); guess != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", guess)
			}
			p.Addf(field, "%s; valid: %s", msg, strings.Join(strategy.Names(), ", "))
		case slices.Index(names, name) < i:
			p.Addf(field, "names %q twice", name)
		}
	}
}

// CheckRefusalCost returns "" when v is a valid service.refusal_cost (in [0, 1], a fraction of
// one service time), otherwise what is wrong with it, for a message that names the field or the
// flag (bench --refusal-cost) before it.
func CheckRefusalCost(v float64) string {
	if v >= 0 && v <= 1 {
		return ""
	}
	return fmt.Sprintf("must be in [0, 1] (a fraction of one service time), got %v", v)
}

// finiteAtLeast reports whether v is a finite number >= lo (false for NaN).
func finiteAtLeast(v, lo float64) bool { return v >= lo && !math.IsInf(v, 1) }

// FormatDuration formats d as the scenario format writes it: whole seconds as "180s", the rest
// as time.Duration does ("250ms", "1.5s"). Both forms parse with time.ParseDuration. It is
// tomlfile.FormatDuration, the one format of every file of the project.
func FormatDuration(d time.Duration) string { return tomlfile.FormatDuration(d) }
