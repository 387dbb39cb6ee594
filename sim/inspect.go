package sim

import (
	"cmp"
	"slices"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// admissionRing is the ring of decisionKeeper.rings that keeps the admissions of new requests.
const admissionRing = 5

// DecisionsKept is how many of the latest retry decisions of each action NewSource's
// simulations keep for the dashboard's decision inspector: the latest RETRYs, REJECTs,
// CIRCUIT_OPENs... each, so a storm of one action never hides the last of another.
const DecisionsKept = 128

// decisionRing keeps the latest decisions of one action.
type decisionRing struct {
	buf  []source.DecisionRecord
	next int // slot the next decision takes
	n    int // decisions held
}

// put copies d into the ring, over the oldest once full.
func (r *decisionRing) put(d *source.DecisionRecord) {
	r.buf[r.next] = *d
	r.next = (r.next + 1) % len(r.buf)
	r.n = min(r.n+1, len(r.buf))
}

// decisionKeeper keeps the latest decisions of each action, the latest admissions of new
// requests that did not go at once (shed, refused, held), and the one being made.
type decisionKeeper struct {
	rings [6]decisionRing       // by engine.Action; admissions in the last (admissionRing)
	cur   source.DecisionRecord // the decision being made, before its action is known
	seq   uint64                // decisions kept so far: their order (DecisionRecord.Seq)
}

// recent returns a copy of the decisions held, oldest first.
func (k *decisionKeeper) recent() []source.DecisionRecord {
	var out []source.DecisionRecord
	for i := range k.rings {
		r := &k.rings[i]
		start := (r.next - r.n + len(r.buf)) % len(r.buf)
		for j := range r.n {
			out = append(out, r.buf[(start+j)%len(r.buf)])
		}
	}
	slices.SortFunc(out, func(a, b source.DecisionRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// KeepDecisions makes the simulation keep the latest n retry decisions of each action with what
// decided them (RecentDecisions), and the latest n admissions of new requests that did not go at
// once (shed, refused or held), or none for n <= 0, the default: a run that nobody inspects
// pays one branch per decision. The decisions kept so far are dropped.
func (s *Sim) KeepDecisions(n int) {
	if n <= 0 {
		s.kept = nil
		return
	}
	s.kept = &decisionKeeper{}
	for i := range s.kept.rings {
		s.kept.rings[i].buf = make([]source.DecisionRecord, n)
	}
}

// forgetDecisions drops the decisions kept (a restart), keeping on.
func (k *decisionKeeper) forget() {
	for i := range k.rings {
		k.rings[i].next, k.rings[i].n = 0, 0
	}
	k.seq = 0
}

// RecentDecisions returns a copy of the decisions kept, oldest first (nil unless KeepDecisions
// turned keeping on).
func (s *Sim) RecentDecisions() []source.DecisionRecord {
	if s.kept == nil {
		return nil
	}
	return s.kept.recent()
}

// decideKept asks client c's strategy for its verdict on request r's failed attempt a
// (outcome o, at virtual time t) and keeps the decision, with the engine's checks when the
// strategy can explain them.
func (s *Sim) decideKept(c *client, r *request, a strategy.Attempt, o strategy.Outcome, t int64) strategy.Verdict {
	k := s.kept
	d := &k.cur
	*d = source.DecisionRecord{}
	now := strategy.Time(t)
	retry := a.Retry
	var v strategy.Verdict
	if ex, ok := c.strat.(strategy.Explainer); ok {
		v = ex.DecideExplained(now, a, o, &d.Why)
		d.Explained = true
	} else {
		v = c.strat.Decide(now, a, o)
	}
	k.seq++
	d.Seq, d.T, d.Client, d.Class, d.Priority, d.Attempt = k.seq, timeDur(t), int(r.client), s.ctl.Classes[r.class].Name, int(r.prio), retry
	d.Failure, d.Action, d.Reason = failureName(o), v.Action, v.Reason
	if v.Retry {
		d.Delay = v.Delay
	}
	if a := int(v.Action); a >= 0 && a < admissionRing {
		k.rings[a].put(d)
	}
	return v
}

// admitKept asks client c (index cl) for its admission of a new request of class cls (attempt
// a, at virtual time t) and keeps it when it is not a plain admission (shed, refused or held),
// with the engine's checks when the strategy can explain them: the admissions that go are
// most of the traffic and say nothing, and would push the retry decisions out of the rings.
func (s *Sim) admitKept(c *client, cls, cl int, a strategy.Attempt, t int64) strategy.Admission {
	k := s.kept
	d := &k.cur
	*d = source.DecisionRecord{}
	now := s.setClock(t, c)
	var adm strategy.Admission
	if ex, ok := c.strat.(strategy.AdmitExplainer); ok {
		adm = ex.AdmitExplained(now, a, &d.Why)
		d.Explained = true
	} else {
		adm = c.strat.Admit(now, a)
	}
	if adm.Admitted() {
		return adm
	}
	k.seq++
	d.Seq, d.T, d.Client, d.Class, d.Priority = k.seq, timeDur(t), cl, s.ctl.Classes[cls].Name, a.Priority
	d.Failure, d.Action, d.Reason, d.Delay = "new", adm.Action, adm.Reason, max(adm.Wait, 0)
	k.rings[admissionRing].put(d)
	return adm
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
