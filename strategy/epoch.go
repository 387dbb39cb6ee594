package strategy

import "time"

// Epoch turns a clock's readings into Times: the origin it is made with is Time 0. A caller
// that lives on a real clock (cortexhttp, a gRPC interceptor) makes one Epoch when it starts and
// converts every reading and deadline with it. The zero value's origin is the zero time, which
// no real clock reads: use NewEpoch. An Epoch is a value, safe for concurrent use.
type Epoch struct {
	origin time.Time
}

// NewEpoch returns an Epoch whose Time 0 is origin. With a time.Now() origin (it carries a
// monotonic reading), every Time of a later time.Now() is measured on the monotonic clock.
func NewEpoch(origin time.Time) Epoch { return Epoch{origin: origin} }

// Time returns t as a Time: t - origin, in nanoseconds (saturating about 292 years away).
func (e Epoch) Time(t time.Time) Time { return Time(t.Sub(e.origin)) }

// Deadline returns the Time of a deadline (context.Context's Deadline result: ok false means
// none), for Attempt.Deadline: 0 when there is none. A deadline exactly at the origin, which
// would read as none, is moved 1 ns earlier.
func (e Epoch) Deadline(t time.Time, ok bool) Time {
	if !ok {
		return 0
	}
	if d := e.Time(t); d != 0 {
		return d
	}
	return -1
}
