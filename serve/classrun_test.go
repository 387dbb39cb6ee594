package serve

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui"
)

// newTestClassRun returns a class run of black-friday with cortex, as the teacher's factory
// builds it.
func newTestClassRun(t *testing.T) (*classRun, scenarios.Scenario) {
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	src, err := sim.NewSource(scn, "cortex", scn.Seed)
	require.NoError(t, err)
	return newClassRun(src, scn, nil), scn
}

// Asserts that a fork is the class run itself, deterministic: the class run stepped as a
// dashboard steps it (fractions of a tick at x0.25, whole frames at x1 and x8), with controls
// between the steps (a fault injected and cleared, the weights, a class's share, another
// strategy), replayed from the same seed, gives a copy whose next 300 snapshots are equal to
// the class run's, figure for figure.
func TestForkIsTheClassRun(t *testing.T) {
	r, scn := newTestClassRun(t)
	defer r.Close()
	w, err := engine.DefaultWeights().Adjust(1, 0.2)
	require.NoError(t, err)
	controls := map[int]source.ControlEvent{
		30:  source.Inject(scenarios.Fault{Kind: scenarios.FaultOutage}),
		55:  source.SetWeights(w),
		70:  source.Clear(scenarios.FaultOutage),
		90:  source.SetClass("analytics", 2.5, 1),
		120: source.SetStrategy("naive"),
		150: source.Inject(scenarios.Fault{Kind: scenarios.FaultLatency, Value: 1}),
	}
	for i := range 200 {
		switch {
		case i < 60:
			r.Advance(25 * time.Millisecond) // x0.25: a tick every four frames
		case i < 100:
			r.Advance(100 * time.Millisecond)
		default:
			r.Advance(800 * time.Millisecond) // x8
		}
		if c, ok := controls[i]; ok {
			require.NoError(t, r.Control(c))
		}
	}
	fork, rec, err := r.fork(sim.NewSource)
	require.NoError(t, err)
	defer fork.Close()
	assert.Equal(t, len(rec.snaps), rec.ticks)
	assert.Len(t, rec.played.Controls, len(controls)+len(scn.Controls), "every control, and the timeline's own")
	assert.Equal(t, "naive", fork.Meta().Strategy)
	for i := range 300 {
		a, b := r.Advance(100*time.Millisecond), fork.Advance(100*time.Millisecond)
		require.Len(t, a, 1)
		require.Equal(t, a, b, "snapshot %d after the fork", i)
	}
}

// Asserts that a follower hands out every snapshot the class run records, in order, at most
// maxFollow at once, each a copy of its own (changing it changes nothing of the record), and
// refuses every control; after a restart it hands out nothing more, and a fork after the
// restart starts from it.
func TestFollower(t *testing.T) {
	r, _ := newTestClassRun(t)
	defer r.Close()
	restarted := 0
	r.onRestart = func(*classRun) { restarted++ }
	r.Advance(3 * time.Second)
	snaps, f := r.join()
	require.Len(t, snaps, 30)
	assert.Empty(t, f.Advance(time.Hour), "nothing new yet")
	var produced []source.Snapshot
	for range 15 {
		produced = append(produced, r.Advance(100*time.Second)...) // 1000 ticks each
	}
	var got []source.Snapshot
	for {
		ss := f.Advance(time.Millisecond)
		if len(ss) == 0 {
			break
		}
		assert.LessOrEqual(t, len(ss), maxFollow)
		got = append(got, ss...)
	}
	require.Equal(t, produced, got, "every snapshot, in order")
	if len(got[0].Events) > 0 {
		got[0].Events[0].Text = "changed"
	}
	got[0].Counts.Attempts = -1
	again, _ := r.join()
	assert.NotEqual(t, -1, again[30].Counts.Attempts, "a copy of its own")
	assert.ErrorIs(t, f.Control(source.Restart()), errFollowing)

	require.NoError(t, r.Control(source.Restart()))
	assert.Equal(t, 1, restarted)
	r.Advance(time.Second)
	assert.Empty(t, f.Advance(time.Second), "a follower of the run before the restart gets nothing")
	fork, rec, err := r.fork(sim.NewSource)
	require.NoError(t, err)
	defer fork.Close()
	assert.Equal(t, 10, rec.ticks)
	assert.Equal(t, r.Advance(100*time.Millisecond), fork.Advance(100*time.Millisecond))
}

// Asserts that the class's run goes on when the teacher's dashboard closes it, and stops once
// the class lets it go; a run the class never adopted stops at once.
func TestClassRunClose(t *testing.T) {
	r, _ := newTestClassRun(t)
	r.adopt()
	require.NoError(t, r.Close())
	assert.NotEmpty(t, r.Advance(time.Second), "still running for the students")
	r.release()
	assert.True(t, r.closed)
	other, _ := newTestClassRun(t)
	require.NoError(t, other.Close())
	assert.True(t, other.closed)
}

// Asserts the class's fan-out to a dashboard that takes nothing (its terminal reads nothing,
// so its program is stuck writing): posting to it never waits, however many messages; while
// it is stuck, messages replace each other; once it takes messages again it gets the latest
// one only, then nothing more until the next post.
func TestMailboxNeverWaits(t *testing.T) {
	box := newMailbox()
	handed, release := make(chan tui.ClassMsg), make(chan struct{})
	go box.run(func(msg tea.Msg) { // the dashboard: handed a message, it takes it once released
		handed <- msg.(tui.ClassMsg)
		<-release
	})
	defer box.stop()

	box.post(tui.ClassMsg{Gen: 1})
	assert.Equal(t, tui.ClassMsg{Gen: 1}, <-handed)
	for speed := range 1000 { // the dashboard holds message 1: none of these waits for it
		box.post(tui.ClassMsg{Gen: 1, Play: tui.Play{Speed: float64(speed)}})
	}
	release <- struct{}{}
	assert.Equal(t, tui.ClassMsg{Gen: 1, Play: tui.Play{Speed: 999}}, <-handed, "then the latest, the others replaced")
	release <- struct{}{}
	box.post(tui.ClassMsg{Gen: 2})
	assert.Equal(t, tui.ClassMsg{Gen: 2}, <-handed, "nothing in between")
	release <- struct{}{}
}
