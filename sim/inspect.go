package sim

import (
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// DecisionsKept is how many of the latest retry decisions NewSource's simulations keep for the
// dashboard's decision inspector.
const DecisionsKept = 256

// decisionRing keeps the latest retry decisions with what decided them, written in place.
type decisionRing struct {
	buf  []source.DecisionRecord
	next int // slot the next decision takes
	n    int // decisions held
}

// slot returns the slot of the next decision, cleared; the oldest is overwritten once full.
func (r *decisionRing) slot() *source.DecisionRecord {
	d := &r.buf[r.next]
	*d = source.DecisionRecord{}
	r.next = (r.next + 1) % len(r.buf)
	r.n = min(r.n+1, len(r.buf))
	return d
}

// recent returns a copy of the decisions held, oldest first.
func (r *decisionRing) recent() []source.DecisionRecord {
	out := make([]source.DecisionRecord, 0, r.n)
	start := (r.next - r.n + len(r.buf)) % len(r.buf)
	for i := range r.n {
		out = append(out, r.buf[(start+i)%len(r.buf)])
	}
	return out
}

// KeepDecisions makes the simulation keep its latest n retry decisions with what decided them
// (RecentDecisions), or none for n <= 0, the default: a run that nobody inspects pays one branch
// per decision. The decisions kept so far are dropped.
func (s *Sim) KeepDecisions(n int) {
	if n <= 0 {
		s.kept = nil
		return
	}
	s.kept = &decisionRing{buf: make([]source.DecisionRecord, n)}
}

// RecentDecisions returns a copy of the decisions kept, oldest first (nil unless KeepDecisions
// turned keeping on).
func (s *Sim) RecentDecisions() []source.DecisionRecord {
	if s.kept == nil {
		return nil
	}
	return s.kept.recent()
}

// decideKept asks client c's strategy for its verdict on request r's failed attempt retry
// (outcome o, at virtual time t) and keeps the decision, with the engine's checks when the
// strategy can explain them.
func (s *Sim) decideKept(c *client, r *request, retry int, o strategy.Outcome, t int64) strategy.Verdict {
	d := s.kept.slot()
	now := virtualTime(t)
	var v strategy.Verdict
	if ex, ok := c.strat.(strategy.Explainer); ok {
		v = ex.DecideExplained(now, int(r.prio), retry, o, &d.Why)
		d.Explained = true
	} else {
		v = c.strat.Decide(now, int(r.prio), retry, o)
	}
	d.T, d.Client, d.Class, d.Priority, d.Attempt = timeDur(t), int(r.client), s.classes[r.class].name, int(r.prio), retry
	d.Failure, d.Action, d.Reason = failureName(o), v.Action, v.Reason
	if v.Retry {
		d.Delay = v.Delay
	}
	return v
}

// failureName words how an attempt failed, as the inspector shows it.
func failureName(o strategy.Outcome) string {
	switch o {
	case strategy.Timeout:
		return "timeout"
	case strategy.FastFail:
		return "refused"
	case strategy.ServerError:
		return "5xx"
	case strategy.Throttled:
		return "429"
	case strategy.BadRequest:
		return "4xx"
	}
	return "ok"
}
