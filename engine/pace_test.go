package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parker is a toy caller that parks what the pacer holds (Request.Park): it keeps its parked
// requests by priority, oldest first, and asks again only when Wake releases them (AskWoken) or
// their Delay ends (AskExpired). It counts every ask, so that a test can tell waiting for a wake
// from polling.
type parker struct {
	e      *Engine
	clock  *ManualClock
	now    time.Duration
	parked [MaxPriority + 1][]heldReq
	wakeAt time.Duration // -1: none due
	asks   int
}

// parkSecond is what a second of a parker's traffic did: asks of new requests by priority,
// attempts sent by priority, and the asks made in all (new, woken and expired).
type parkSecond struct {
	asked, sent map[int]int
	shed        int
}

// second drives one second of the parker's traffic: the originals of prios, spread over the
// second, each sent attempt answered by ok (true: a success in 30-70 ms; false: a timeout), and the
// wakes and expiries whose time came.
func (c *parker) second(ok bool, prios []int) parkSecond {
	n := parkSecond{asked: map[int]int{}, sent: map[int]int{}}
	ask := func(p int, deadline time.Duration, how Ask) {
		c.asks++
		d := c.e.AdmitRequest(Request{Priority: p, Remaining: deadline - c.now, Park: true, Ask: how})
		switch {
		case d.Action != Retry:
			n.shed++
		case d.Parked:
			c.parked[p] = append(c.parked[p], heldReq{p, c.now + d.Delay, deadline})
		case d.Delay > 0:
			panic("a parked caller is never told to poll")
		default:
			n.sent[p]++
			if ok { // 30-70 ms
				c.e.RecordSuccess(time.Duration(30+c.asks%5*10) * time.Millisecond)
			} else {
				c.e.RecordTimeout(time.Second)
			}
		}
	}
	wake := func() {
		var w [MaxPriority + 1]int
		after, more := c.e.Wake(&w)
		for q := MaxPriority; q >= 0; q-- {
			k := min(w[q], len(c.parked[q]))
			due := append([]heldReq(nil), c.parked[q][:k]...)
			c.parked[q] = c.parked[q][k:]
			for _, h := range due {
				ask(h.prio, h.deadline, AskWoken)
			}
		}
		c.wakeAt = -1
		if more {
			c.wakeAt = c.now + after
		}
	}
	every := time.Second / time.Duration(len(prios))
	for _, p := range prios {
		c.clock.Advance(every)
		c.now += every
		for q := range c.parked { // expired: asked again with AskExpired
			keep := c.parked[q][:0]
			var due []heldReq
			for _, h := range c.parked[q] {
				if h.at <= c.now {
					due = append(due, h)
				} else {
					keep = append(keep, h)
				}
			}
			c.parked[q] = keep
			for _, h := range due {
				ask(h.prio, h.deadline, AskExpired)
			}
		}
		if c.wakeAt >= 0 && c.wakeAt <= c.now {
			wake()
		}
		n.asked[p]++
		ask(p, c.now+10*time.Second, AskNew)
		if after, more := c.e.NextWake(); more && (c.wakeAt < 0 || c.now+after < c.wakeAt) {
			c.wakeAt = c.now + after
		}
	}
	return n
}

func (c *parker) nParked() (n int) {
	for _, q := range c.parked {
		n += len(q)
	}
	return n
}

// TestParkedAttemptsWaitForAWake asserts that, through a 5 s outage (every attempt times out)
// with a 10 s deadline, a caller that parks is never told to poll: its held requests wait for
// a wake, at most about two asks per request; that once the service answers again they are
// released highest priority first, at no more than twice the arrivals a second (the pace
// capped, not the backlog at once); and that they all drain and the pacer turns off.
func TestParkedAttemptsWaitForAWake(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	c := &parker{e: e, clock: clock, wakeAt: -1}
	for range 60 {
		c.second(true, mix(100))
	}
	require.False(t, e.Snapshot().Shedding)

	c.asks = 0
	asked := 0
	for range 5 {
		n := c.second(false, mix(100))
		asked += sum(n.asked)
	}
	require.True(t, e.Snapshot().Shedding, "the service is down")
	require.Positive(t, c.nParked(), "the pacer parks what it holds")
	assert.Less(t, c.asks, 2*asked, "parked requests wait for a wake, they do not poll")

	first := c.second(true, mix(100))
	for q := range 9 {
		if first.sent[q] > 0 {
			assert.Empty(t, c.parked[9], "priority %d released while priority 9 waits", q)
		}
	}
	for s := 0; c.nParked() > 0 && s < 15; s++ {
		n := c.second(true, mix(100))
		assert.LessOrEqual(t, sum(n.sent), 2*sum(n.asked), "second %d: the backlog is released over time", s)
	}
	assert.Zero(t, c.nParked(), "the parked requests drain")
	for range 3 {
		c.second(true, mix(100))
	}
	n := c.second(true, mix(100))
	assert.Equal(t, n.asked, n.sent, "then every new request goes at once")
	assert.False(t, e.Snapshot().Shedding, "and the pacer is off")
}

// TestWakeWithoutParked asserts that Wake and NextWake report nothing to do when nothing is
// parked, and that Wake releases every parked attempt once the pacer is off (Reset).
func TestWakeWithoutParked(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	var n [MaxPriority + 1]int
	_, ok := e.Wake(&n)
	assert.False(t, ok)
	assert.Equal(t, [MaxPriority + 1]int{}, n)
	_, ok = e.NextWake()
	assert.False(t, ok)

	c := &parker{e: e, clock: clock, wakeAt: -1}
	for range 60 {
		c.second(true, mix(100))
	}
	for range 3 {
		c.second(false, mix(100))
	}
	parked := c.nParked()
	require.Positive(t, parked)
	e.Reset()
	_, ok = e.Wake(&n)
	assert.False(t, ok, "nothing left parked")
	total := 0
	for _, k := range n {
		total += k
	}
	assert.Equal(t, parked, total, "the pacer off, every parked attempt goes")
}

// congestedPacer returns a pacer that paces at rate attempts a second in mode congested, its
// next slot due at t, with the arrivals of a slice at arrivals both before and during the
// pressure (1 s slices starting at 0).
func congestedPacer(t time.Duration, rate, arrivals float64) *pacer {
	p := &pacer{on: true, mode: paceCongested, c: DefaultPace(), sliceS: 1, arrS: arrivals, arrRef: arrivals, lastArr: arrivals}
	p.setRate(t, rate)
	p.next = t
	return p
}

// parkAt parks k attempts of priority q in p whose wait ends at end.
func parkAt(p *pacer, q, k int, end time.Duration) {
	for range k {
		p.parked[q]++
		p.nParked++
		p.addEdge(q, end)
	}
}

// TestWakeServesTheUrgentFirst asserts which parked attempt the next slot goes to: the highest
// priority's by default; a lower priority's within Pace.Urgent of the end of its wait while the
// higher ones can wait for it (their ends further than paceYield times the slots of their
// backlog) and the parked work does not grow; the higher one's when it cannot wait, is urgent
// itself, or the parked work grew since the last slice.
func TestWakeServesTheUrgentFirst(t *testing.T) {
	const at = 100 * time.Second
	tests := []struct {
		name     string
		high     int           // parked at priority 9
		highEnd  time.Duration // their end, from at
		lowEnd   time.Duration // the end of one parked at priority 1, from at
		grown    bool          // the parked work grew since the last slice
		released int           // the priority the slot goes to
	}{
		{"no urgency: priority order", 5, 20 * time.Second, 10 * time.Second, false, 9},
		{"the low one urgent, the high ones can wait", 5, 20 * time.Second, time.Second, false, 1},
		{"the low one urgent, the high backlog cannot wait", 100, 2500 * time.Millisecond, time.Second, false, 9},
		{"both urgent: the higher first", 5, time.Second, 500 * time.Millisecond, false, 9},
		{"the low one urgent, the parked work growing", 5, 20 * time.Second, time.Second, true, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := congestedPacer(at, 10, 10) // a slot every 100 ms
			parkAt(p, 9, tt.high, at+tt.highEnd)
			parkAt(p, 1, 1, at+tt.lowEnd)
			p.parkedThen = p.nParked
			if tt.grown {
				p.parkedThen--
			}
			var n [MaxPriority + 1]int
			_, more := p.wake(at, &n, true)
			assert.True(t, more)
			want := [MaxPriority + 1]int{}
			want[tt.released] = 1
			assert.Equal(t, want, n, "one slot is due, and it goes to priority %d", tt.released)
		})
	}
}

// TestParkedWaitsToItsDeadline asserts that, while the service queues, a new request finding a
// backlog far longer than its deadline at today's pace is parked, not shed: it is held until
// its deadline leaves an attempt's time (Delay), and shed only when its deadline cannot cover
// an attempt at all.
func TestParkedWaitsToItsDeadline(t *testing.T) {
	e, _ := newTestEngine(t, nil)
	e.pace = *congestedPacer(0, 1, 1)
	e.pace.parked[9], e.pace.nParked = 1000, 1000 // 1000 s of work ahead at 1 a second
	d := e.AdmitRequest(Request{Priority: 5, Remaining: 10 * time.Second, Park: true, Ask: AskNew})
	require.Equal(t, Retry, d.Action, "parked, not shed")
	assert.True(t, d.Parked)
	assert.Equal(t, 10*time.Second-e.attemptTime(), d.Delay, "until its deadline leaves an attempt's time")
	d = e.AdmitRequest(Request{Priority: 5, Remaining: e.attemptTime() / 2, Park: true, Ask: AskExpired})
	assert.Equal(t, Reject, d.Action)
	assert.Equal(t, ReasonShedLowPriority, d.Reason, "no time left for an attempt: shed at the edge")
}

// TestSliceBudgetFollowsArrivals asserts that parked work is released within a slice at most at
// Release times the new requests that asked in it (those still to come counted at the smoothed
// rate) plus paceBudgetSlack, and without a bound once the new requests have stopped.
func TestSliceBudgetFollowsArrivals(t *testing.T) {
	p := congestedPacer(0, 100, 10)
	assert.InDelta(t, 1.5*10+paceBudgetSlack, p.budget(0), 1e-9, "the slice's start: its arrivals still to come")
	p.arrived = 2
	assert.InDelta(t, 1.5*(2+5)+paceBudgetSlack, p.budget(500*time.Millisecond), 1e-9, "half-way, 2 arrived")
	assert.InDelta(t, 1.5*2+paceBudgetSlack, p.budget(time.Second), 1e-9, "its end: what arrived")

	parkAt(p, 5, 100, 30*time.Second)
	var n [MaxPriority + 1]int
	after, more := p.wake(time.Second, &n, true)
	assert.Equal(t, int(1.5*2+paceBudgetSlack), n[5], "the slots are due, the budget bounds them")
	require.True(t, more)
	assert.Positive(t, after, "the next wake is at least a slot away")

	p.lastArr = 0 // the last slice had no arrivals: the load has gone
	n = [MaxPriority + 1]int{}
	p.next = 0
	p.wake(time.Second, &n, true)
	assert.Equal(t, 11, n[5], "every slot due (the last Burst's, 100 ms at 100 a second, and now's), the budget off")
}
