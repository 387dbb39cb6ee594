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
