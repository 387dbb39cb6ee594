package serve

import (
	"errors"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui"
)

// Bounds of a class run's record.
const (
	// maxClassSnaps is the most snapshots a class run keeps for the students who join it: an
	// hour at the default tick of 100 ms. Past it the oldest go, and a student joining sees the
	// latest hour.
	maxClassSnaps = 36000
	// maxFollow is the most snapshots a follower hands its dashboard at once (a frame's most).
	maxFollow = 1000
)

// classRun is a run the teacher's dashboard builds (every source of its factory): the
// simulator's source, recording what a class needs of it: every snapshot since its start or
// its latest restart (a copy of its own, for the students who join) and how many ticks it
// stepped; a fork replays the scenario as the simulator says it was played (its seed, its
// strategy and every control at its time: source.Recording). Once the class adopts it as the
// class run, the teacher's dashboard closing it does not stop it: students go on watching it,
// and the teacher finds it again when they reconnect. It is safe for concurrent use.
type classRun struct {
	inner     source.Source
	scn       scenarios.Scenario
	onRestart func(*classRun) // the class is told of a restart (a new class run for the students)

	// step is held while the run steps or takes a control, and while a fork reads what it
	// played, so that the scenario played and the ticks stepped are of the same moment
	// (followers take mu only, never waiting for a step).
	step sync.Mutex

	mu         sync.Mutex
	snaps      []source.Snapshot
	base       int  // snapshots dropped from the front (maxClassSnaps): snaps[0] is snapshot base
	ticks      int  // ticks since the start (or the latest restart)
	restarts   int  // restarts so far: a follower of an earlier one gets nothing more
	adopted    bool // the class's run: a dashboard's Close waits for the class to let it go
	closeAsked bool // a dashboard closed it while it was adopted
	closed     bool
}

// The class run is a source the dashboard may inspect and whose fleet it shows.
var (
	_ source.Source    = (*classRun)(nil)
	_ source.Inspector = (*classRun)(nil)
	_ source.Fleet     = (*classRun)(nil)
	_ source.Source    = (*follower)(nil)
	_ source.Inspector = (*follower)(nil)
	_ source.Fleet     = (*follower)(nil)
)

// newClassRun wraps inner, a run of scn.
func newClassRun(inner source.Source, scn scenarios.Scenario, onRestart func(*classRun)) *classRun {
	return &classRun{inner: inner, scn: scn, onRestart: onRestart}
}

// Meta is the run's.
func (r *classRun) Meta() source.Meta { return r.inner.Meta() }

// Advance steps the run and records a copy of each snapshot.
func (r *classRun) Advance(d time.Duration) []source.Snapshot {
	r.step.Lock()
	defer r.step.Unlock()
	ss := r.inner.Advance(d)
	if len(ss) == 0 {
		return ss
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range ss {
		r.snaps = append(r.snaps, s.Clone())
	}
	r.ticks += len(ss)
	if over := len(r.snaps) - maxClassSnaps; over > 0 {
		r.snaps = append(r.snaps[:0:0], r.snaps[over:]...)
		r.base += over
	}
	return ss
}

// Control applies c (the simulator records it); a restart starts the record again and tells
// the class.
func (r *classRun) Control(c source.ControlEvent) error {
	r.step.Lock()
	err := r.inner.Control(c)
	restart := err == nil && c.Control == source.ControlRestart
	if restart {
		r.mu.Lock()
		r.snaps, r.base, r.ticks = nil, 0, 0
		r.restarts++
		r.mu.Unlock()
	}
	r.step.Unlock()
	if err != nil {
		return err
	}
	if restart && r.onRestart != nil {
		r.onRestart(r)
	}
	return nil
}

// Close stops the run, unless it is the class's: then it goes on until the class lets it go.
func (r *classRun) Close() error {
	r.mu.Lock()
	if r.adopted {
		r.closeAsked = true
		r.mu.Unlock()
		return nil
	}
	already := r.closed
	r.closed = true
	r.mu.Unlock()
	if already {
		return nil
	}
	return r.inner.Close()
}

// adopt makes the run the class's: a dashboard closing it no longer stops it.
func (r *classRun) adopt() {
	r.mu.Lock()
	r.adopted = true
	r.mu.Unlock()
}

// release lets the class's run go: it stops now if a dashboard closed it meanwhile.
func (r *classRun) release() {
	r.mu.Lock()
	r.adopted = false
	stop := r.closeAsked
	r.mu.Unlock()
	if stop {
		_ = r.Close()
	}
}

// RecentDecisions are the run's latest decisions (none when its source keeps none).
func (r *classRun) RecentDecisions() []source.DecisionRecord {
	if in, ok := r.inner.(source.Inspector); ok {
		return in.RecentDecisions()
	}
	return nil
}

// Fleet is the fleet the run's engines joined, if any.
func (r *classRun) Fleet() *source.FleetMeta {
	if f, ok := r.inner.(source.Fleet); ok {
		return f.Fleet()
	}
	return nil
}

// join returns copies of the snapshots recorded and a follower that goes on from the last.
func (r *classRun) join() ([]source.Snapshot, *follower) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]source.Snapshot, len(r.snaps))
	for i, s := range r.snaps {
		out[i] = s.Clone()
	}
	return out, &follower{run: r, restarts: r.restarts, next: r.base + len(r.snaps)}
}

// record is what a fork replays: the scenario as played so far, how far the run went, and
// copies of its snapshots.
type record struct {
	played scenarios.Scenario
	ticks  int
	snaps  []source.Snapshot
}

// recordNow returns the run's record as it is now.
func (r *classRun) recordNow() (record, error) {
	rec, ok := r.inner.(source.Recording)
	if !ok {
		return record{}, errors.New("the class run's source keeps no record of its controls: it cannot be replayed")
	}
	r.step.Lock()
	defer r.step.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := record{played: rec.Played(), ticks: r.ticks, snaps: make([]source.Snapshot, len(r.snaps))}
	for i, s := range r.snaps {
		out.snaps[i] = s.Clone()
	}
	return out, nil
}

// fork returns a new run, built by factory, of the scenario as the class run played it (its
// seed, the strategy it began with, every control at its time), stepped as far: the class
// run as it is now, deterministic (the same seed gives the same arrivals). The copy's last
// snapshot must equal the class run's; a copy that differs is an error, never handed out.
func (r *classRun) fork(factory tui.SourceFactory) (source.Source, record, error) {
	rec, err := r.recordNow()
	if err != nil {
		return nil, rec, err
	}
	src, err := factory(rec.played, rec.played.Strategy, rec.played.Seed)
	if err != nil {
		return nil, rec, err
	}
	tick := src.Meta().Tick
	done := 0
	var last source.Snapshot
	for done < rec.ticks {
		ss := src.Advance(time.Duration(rec.ticks-done) * tick)
		if len(ss) == 0 {
			break
		}
		done += len(ss)
		last = ss[len(ss)-1]
	}
	if done != rec.ticks || (len(rec.snaps) > 0 && !sameSnapshot(last, rec.snaps[len(rec.snaps)-1])) {
		_ = src.Close()
		return nil, rec, errors.New("replaying the class run gave another run: it cannot be forked")
	}
	return src, rec, nil
}

// sameSnapshot reports whether two snapshots of a run are the same tick with the same figures.
func sameSnapshot(a, b source.Snapshot) bool {
	return a.T == b.T && a.Counts == b.Counts && a.Service == b.Service && a.Pending == b.Pending
}

// follower is a student's view of a class run: a source that hands its dashboard the run's
// snapshots as the teacher's dashboard steps it, each a copy of the dashboard's own, and
// refuses every control. It is safe for concurrent use.
type follower struct {
	run      *classRun
	restarts int // the run's restart it follows
	next     int // the next snapshot to hand out
}

// Meta is the class run's.
func (f *follower) Meta() source.Meta { return f.run.Meta() }

// Advance hands out the snapshots the class run recorded since the last call, whatever d
// (the teacher sets the pace), at most maxFollow at once; none once the run restarted.
func (f *follower) Advance(time.Duration) []source.Snapshot {
	r := f.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.restarts != f.restarts {
		return nil
	}
	i := max(f.next-r.base, 0)
	n := min(len(r.snaps)-i, maxFollow)
	if n <= 0 {
		return nil
	}
	out := make([]source.Snapshot, n)
	for j := range out {
		out[j] = r.snaps[i+j].Clone()
	}
	f.next = r.base + i + n
	return out
}

// errFollowing is the refusal of a student's control of the class run.
var errFollowing = errors.New("the teacher drives the class run: fork it to try this on a copy of your own")

// Control refuses: a student cannot drive the class run.
func (f *follower) Control(source.ControlEvent) error { return errFollowing }

// Close stops following; the class run goes on.
func (f *follower) Close() error { return nil }

// RecentDecisions are the class run's latest decisions.
func (f *follower) RecentDecisions() []source.DecisionRecord { return f.run.RecentDecisions() }

// Fleet is the fleet the class run's engines joined, if any.
func (f *follower) Fleet() *source.FleetMeta { return f.run.Fleet() }
