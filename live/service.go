package live

import (
	"fmt"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/live/proxy"
	"github.com/cortex-tui/cortex-tui/source"
)

// serviceWatch remembers what the previous tick saw of the service, to report changes as events.
type serviceWatch struct {
	state   source.ServiceState
	crashes int64
	listen  string // the last failure to listen again reported (target or proxy), "" for none
}

// watchListen reports, as an event, a failure of the target or the proxy to listen again on
// its port after a crash or an outage (another process took it), once per distinct error, and
// its end.
func (r *Run) watchListen(t time.Duration, targetErr error) {
	msg := ""
	if targetErr != nil {
		msg = "the target cannot listen again: " + targetErr.Error()
	}
	if px, ok := r.stack.Faults.(*proxy.Proxy); ok && msg == "" {
		if err := px.Counters().ListenErr; err != nil {
			msg = "the fault proxy cannot listen again: " + err.Error()
		}
	}
	if msg == r.svc.listen {
		return
	}
	if msg == "" {
		msg = "listening again"
	}
	r.emit(t, source.Event{Kind: source.EventControl, Text: msg})
	if msg == "listening again" {
		msg = ""
	}
	r.svc.listen = msg
}

// service reads the service's state at the end of the tick ending at t and the crashes since
// the previous tick, and emits an event for each change of state. An outage fault makes it
// DOWN whatever the target says (its listener, or the proxy's, is closed); without an embedded
// target it is UP otherwise, with no capacity or queue known.
func (r *Run) service(t time.Duration) (source.Service, int) {
	var sv source.Service
	crashes := 0
	outage := r.tl.Effects().Down
	if tg := r.stack.Target; tg != nil {
		s := tg.Snapshot()
		sv = source.Service{State: s.State.Service(), Capacity: s.Capacity, Queue: s.Queue, QueueLimit: s.QueueLimit,
			Utilisation: finite(s.Utilisation), Overload: s.Overload}
		crashes = int(s.Counters.Crashes - r.svc.crashes)
		r.svc.crashes = s.Counters.Crashes
		switch prev := r.svc.state; {
		case sv.State == prev || prev == source.ServiceUnknown:
		case sv.State == source.ServiceCrashed:
			r.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: sv.State, Cause: source.CauseOverload,
				Utilisation: finite(s.CrashUtilisation), Overloaded: s.CrashOverload, RestartIn: s.RestartIn}})
		case sv.State == source.ServiceWarming:
			cfg := tg.Config()
			r.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: sv.State, Cause: source.CauseRestart,
				WarmStart: cfg.WarmStart, Warmup: cfg.Warmup}})
		case sv.State == source.ServiceUp && prev == source.ServiceWarming:
			r.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: sv.State, Cause: source.CauseWarmedUp}})
		}
		r.svc.state = sv.State
		r.watchListen(t, s.Err)
	} else {
		sv.State, sv.Unmeasured = source.ServiceUp, true
		r.watchListen(t, nil)
	}
	if outage && sv.State.Serving() {
		sv.State = source.ServiceDown
	}
	return sv, crashes
}

// finite replaces +Inf (work offered with no capacity) by 0, which JSON can carry.
func finite(x float64) float64 {
	if x > 1e300 {
		return 0
	}
	return x
}

// fleetView reads every client's CORTEX engine once and returns the state averaged over the
// clients, with the spread (nil when the strategy is not built on the engine), as the
// simulator's fleet view does. It emits a circuit event when the number of clients with an
// OPEN or HALF_OPEN circuit changed. Strategies not built on the engine are not read: they are
// not safe to read while requests are in flight.
func (r *Run) fleetView(t time.Duration) *source.CortexView {
	var sum source.CortexSum
	var e engine.Snapshot
	for i := range r.fleet.clients {
		m := r.fleet.clients[i].cur.Load()
		if m == nil || m.holder == nil {
			continue
		}
		m.holder.Engine().SnapshotTo(&e)
		sum.Add(&e)
	}
	v := sum.View(r.emergency)
	if v == nil {
		return nil
	}
	open, halfOpen := sum.Circuits()
	if seen := [2]int{halfOpen, open}; seen != r.circuits {
		r.emit(t, source.Event{Kind: source.EventCircuit, Circuit: source.CircuitEvent{Open: open,
			HalfOpen: halfOpen, Clients: len(r.fleet.clients)}})
		r.circuits = seen
	}
	if r.members != nil {
		v.Fleet = r.members.health()
		r.watchFleet(t, v.Fleet)
	}
	return v
}

// watchFleet says in the event log when the engines join their fleet (all FLEET) and when
// they fall back to their own views (all LOCAL), once per change.
func (r *Run) watchFleet(t time.Duration, h *source.FleetHealth) {
	mode := r.fleetMode
	switch {
	case h.Engines > 0 && h.Joint == h.Engines:
		mode = "FLEET"
	case h.Joint == 0:
		mode = "LOCAL"
	}
	if mode == r.fleetMode {
		return
	}
	r.fleetMode = mode
	j := r.cfg.Join
	msg := fmt.Sprintf("fleet %s: %d engines joined on %s as %s; %d members in the fleet", j.Name, h.Engines, j.Store, j.Instance, h.Instances)
	if mode == "LOCAL" {
		why := h.LastError
		if why == "" {
			why = "no fresh view"
		}
		msg = fmt.Sprintf("fleet %s: LOCAL, each engine on its own view and budget (%s); it rejoins when the store answers", j.Name, why)
	}
	r.emit(t, source.Event{Kind: source.EventControl, Text: msg})
}
