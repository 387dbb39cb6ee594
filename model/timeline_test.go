package model

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// side records what a timeline does: the faults started and ended with the Effects it was
// given, and the events; refuse makes it refuse a kind.
type side struct {
	calls  []string
	fx     scenarios.Effects
	events []source.Event
	refuse scenarios.FaultKind
}

func (s *side) Start(t time.Duration, f scenarios.Fault, fx scenarios.Effects) error {
	if f.Kind == s.refuse {
		return errors.New("no such control here")
	}
	s.calls, s.fx = append(s.calls, "start "+string(f.Kind)+" at "+t.String()), fx
	return nil
}

func (s *side) End(t time.Duration, kind scenarios.FaultKind, fx scenarios.Effects) {
	s.calls, s.fx = append(s.calls, "end "+string(kind)+" at "+t.String()), fx
}

func (s *side) Emit(e source.Event) { s.events = append(s.events, e) }

// changes lists the fault events' changes and kinds.
func (s *side) changes() []string {
	var out []string
	for _, e := range s.events {
		if e.Kind == source.EventFault {
			out = append(out, [...]string{"started", "ended", "cleared", "refused"}[e.Fault.Change]+" "+string(e.Fault.Kind))
		}
	}
	return out
}

// Asserts the timeline walk: scheduled faults start at the first tick at or after their time
// with the rest of their duration, end when it runs out, a fault entirely past is skipped, and
// the side hears each start before its event and each end after it, with the Effects of the
// faults left.
func TestTimelineSchedule(t *testing.T) {
	s := &side{}
	tl := NewTimeline([]scenarios.Fault{
		{At: 1050 * time.Millisecond, Duration: 2 * time.Second, Kind: scenarios.FaultLatency, Value: 0.5},
		{At: 2020 * time.Millisecond, Duration: 50 * time.Millisecond, Kind: scenarios.FaultErrors, Value: 0.3}, // between two ticks: skipped
		{At: 3 * time.Second, Kind: scenarios.FaultOutage},
	}, nil, s)
	for tick := time.Duration(0); tick <= 4*time.Second; tick += 100 * time.Millisecond {
		tl.Begin(tick)
		if tick == 1100*time.Millisecond {
			assert.Equal(t, 1950*time.Millisecond, tl.Fault(scenarios.FaultLatency).Until-tick, "the rest of its duration")
			assert.Equal(t, 0.5, tl.Effects().Latency)
		}
	}
	tl.Begin(2 * time.Second) // again: nothing new
	assert.Equal(t, []string{"start latency at 1.1s", "start outage at 3s", "end latency at 3.1s"}, s.calls)
	assert.Equal(t, []string{"started latency", "started outage", "ended latency"}, s.changes())
	assert.Equal(t, scenarios.Effects{Down: true, Capacity: 1}, s.fx, "the outage is left")
	assert.Equal(t, []source.ActiveFault{{Kind: scenarios.FaultOutage}}, tl.Faults(nil, 4*time.Second))
}

// Asserts the controls: an injected fault replaces its kind and lasts its duration (or until
// cleared), an invalid one or one the side refuses is a FaultRefused event and changes
// nothing, Clear ends one kind and ClearAll every kind, in table order.
func TestTimelineControls(t *testing.T) {
	s := &side{refuse: scenarios.FaultCapacity}
	tl := NewTimeline(nil, nil, s)
	tl.Inject(scenarios.Fault{Kind: scenarios.FaultErrors, Value: 0.2, Duration: -time.Second}, time.Second)
	tl.Inject(scenarios.Fault{Kind: scenarios.FaultErrors, Value: 0.4, Duration: time.Second}, 2*time.Second)
	tl.Inject(scenarios.Fault{Kind: scenarios.FaultThrottle, Value: 0}, 2*time.Second)
	tl.Inject(scenarios.Fault{Kind: "meteor"}, 2*time.Second)
	tl.Inject(scenarios.Fault{Kind: scenarios.FaultCapacity, Value: 0.5}, 2*time.Second)
	tl.Inject(scenarios.Fault{Kind: scenarios.FaultBlackhole}, 2*time.Second)
	assert.Equal(t, Active{On: true, Value: 0.4, Until: 3 * time.Second, Injected: true}, tl.Fault(scenarios.FaultErrors))
	assert.Equal(t, scenarios.Effects{Hang: true, Errors: 0.4, Capacity: 1}, tl.Effects())
	assert.Equal(t, []string{"started errors", "started errors", "refused throttle", "refused meteor", "refused capacity", "started blackhole"}, s.changes())
	assert.Contains(t, s.events[2].Fault.Reason, "throttle fault: rate must be a rate > 0")
	assert.Equal(t, "no such control here", s.events[4].Fault.Reason)
	assert.Equal(t, []source.ActiveFault{{Kind: scenarios.FaultBlackhole, Injected: true},
		{Kind: scenarios.FaultErrors, Value: 0.4, Remaining: 500 * time.Millisecond, Injected: true}}, tl.Faults(nil, 2500*time.Millisecond))

	tl.Clear(scenarios.FaultOutage, 3*time.Second) // not on: nothing
	tl.Clear(scenarios.FaultErrors, 3*time.Second)
	tl.Inject(scenarios.Fault{Kind: scenarios.FaultLatency, Value: 1}, 3*time.Second)
	tl.ClearAll(4 * time.Second)
	assert.Equal(t, []string{"cleared errors", "started latency", "cleared blackhole", "cleared latency"}, s.changes()[6:])
	assert.Equal(t, scenarios.NoEffects(), tl.Effects())
	assert.Empty(t, tl.Faults(nil, 4*time.Second))
}

// Asserts the captions: each note is emitted once, in the tick it is reached, only for the
// strategies it names (sorted by time whatever the order given), and the caption is the last
// note reached for the run's strategy, so a switch of strategy shows the new one's at once.
func TestTimelineCaptions(t *testing.T) {
	s := &side{}
	tl := NewTimeline(nil, []scenarios.Note{
		{At: 3 * time.Second, Text: "cortex sheds", Strategies: []string{"cortex"}},
		{At: 0, Text: "the sale opens"},
		{At: 3 * time.Second, Text: "naive storms", Strategies: []string{"naive"}},
	}, s)
	require.Empty(t, tl.Note("naive"), "before the first tick")
	for tick := time.Duration(0); tick <= 4*time.Second; tick += time.Second {
		tl.Captions(tick, "naive")
	}
	var texts []string
	for _, e := range s.events {
		texts = append(texts, e.T.String()+" "+e.Text)
	}
	assert.Equal(t, []string{"0s the sale opens", "3s naive storms"}, texts)
	assert.Equal(t, "naive storms", tl.Note("naive"))
	assert.Equal(t, "cortex sheds", tl.Note("cortex"), "the new strategy's caption at once")
	assert.Equal(t, "the sale opens", tl.Note("breaker"))
}
