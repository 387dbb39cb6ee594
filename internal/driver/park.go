package driver

import (
	"context"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// parking is a driver's parked calls (strategy.Admission.Parked) for a strategy that wakes them
// (strategy.Waker): by priority, oldest first, each a channel closed when the strategy's Wake
// releases it, and one timer for the next wake, as the strategy's NextWake says.
type parking struct {
	w      strategy.Waker
	mu     sync.Mutex
	queue  [engine.MaxPriority + 1][]*parked
	timer  *time.Timer
	wakeAt time.Time
}

// parked is one parked call: woken is closed when Wake releases it; gone once it left the queue
// (woken, or its wait ended, or its context did).
type parked struct {
	woken chan struct{}
	gone  bool
}

// park parks a call of priority prio and makes sure a wake is due when the strategy says.
func (d *Driver) park(prio int) *parked {
	p := &parked{woken: make(chan struct{})}
	k := &d.parking
	k.mu.Lock()
	k.queue[prio] = append(k.queue[prio], p)
	k.mu.Unlock()
	d.scheduleWake()
	return p
}

// leave takes p out of the queue when its wait or its context ended first; it reports false
// when Wake released it meanwhile (the call then asks as woken).
func (d *Driver) leave(p *parked) bool {
	k := &d.parking
	k.mu.Lock()
	defer k.mu.Unlock()
	if p.gone {
		return false
	}
	p.gone = true
	return true
}

// scheduleWake arms the wake timer for when the strategy's NextWake says, unless one is due
// sooner; it does nothing for a strategy that does not park.
func (d *Driver) scheduleWake() {
	k := &d.parking
	if k.w == nil {
		return
	}
	_, now := d.Start()
	after, ok := d.nextWake(now)
	if !ok {
		after = 0 // the strategy knows of none: what is parked here goes (wake)
	}
	at := time.Now().Add(after)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.timer != nil && !k.wakeAt.After(at) {
		return
	}
	if k.timer != nil {
		k.timer.Stop()
	}
	k.wakeAt = at
	k.timer = time.AfterFunc(after, d.wake)
}

// wake releases what the strategy's Wake says, the oldest of each priority, highest first, and
// arms the timer again; calls the strategy holds none of are all released.
func (d *Driver) wake() {
	k := &d.parking
	var n [engine.MaxPriority + 1]int
	_, now := d.Start()
	after, more := d.wakeStrategy(now, &n)
	k.mu.Lock()
	k.timer = nil
	left := 0
	for q := engine.MaxPriority; q >= 0; q-- {
		queue := k.queue[q]
		for len(queue) > 0 && (n[q] > 0 || !more) {
			p := queue[0]
			queue = queue[1:]
			if p.gone {
				continue
			}
			p.gone = true
			close(p.woken)
			n[q]--
		}
		k.queue[q] = queue
		left += len(queue)
	}
	k.mu.Unlock()
	if more && left > 0 {
		k.mu.Lock()
		if k.timer == nil {
			k.wakeAt = time.Now().Add(after)
			k.timer = time.AfterFunc(after, d.wake)
		}
		k.mu.Unlock()
	}
}

// nextWake and wakeStrategy call the strategy's NextWake and Wake, serialised when it needs it.
func (d *Driver) nextWake(now strategy.Time) (time.Duration, bool) {
	if d.lock {
		d.mu.Lock()
		defer d.mu.Unlock()
	}
	return d.parking.w.NextWake(now)
}

func (d *Driver) wakeStrategy(now strategy.Time, n *[engine.MaxPriority + 1]int) (time.Duration, bool) {
	if d.lock {
		d.mu.Lock()
		defer d.mu.Unlock()
	}
	return d.parking.w.Wake(now, n)
}

// waitParked waits for a parked call p to be woken, for at most wait, or for ctx: it returns
// how the call asks again (engine.AskWoken, or engine.AskExpired when its wait ended first), or
// ctx's cause. A call whose context ends while parked is taken off the strategy's parked ones
// (strategy.Waker.Unpark).
func (d *Driver) waitParked(ctx context.Context, p *parked, prio int, wait time.Duration) (engine.Ask, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-p.woken:
		return engine.AskWoken, nil
	case <-timer.C:
		if d.leave(p) {
			return engine.AskExpired, nil
		}
		return engine.AskWoken, nil
	case <-ctx.Done():
		if d.leave(p) {
			_, now := d.Start()
			if d.lock {
				d.mu.Lock()
				defer d.mu.Unlock()
			}
			d.parking.w.Unpark(now, prio)
		}
		return 0, context.Cause(ctx)
	}
}

// waiting reports whether any call is parked (a cheap check before asking NextWake).
func (k *parking) waiting() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, q := range k.queue {
		if len(q) > 0 {
			return true
		}
	}
	return false
}
