package cortexgrpc

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cortex-tui/cortex-tui/strategy"
)

// stream returns the stream interceptor; retriesOff declares gRPC's own retries off.
func (ic *Interceptor) stream(retriesOff bool) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
		streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s := &clientStream{ic: ic, ctx: ctx, desc: desc, cc: cc, method: method, streamer: streamer,
			opts: opts, prio: ic.priority(ctx), retriesOff: retriesOff}
		if err := s.open(0, nil); err != nil {
			return nil, err
		}
		return s, nil
	}
}

// clientStream is a stream whose attempts the strategy admits, records and retries: a new
// attempt is opened, and the messages sent so far sent again, while the stream is neither
// committed (its first message received, its headers read by the caller, more than
// Config.StreamReplay messages sent) nor over. Its methods follow grpc.ClientStream's rules:
// one goroutine sending (SendMsg, CloseSend) and one receiving (RecvMsg, Header) at a time;
// retries happen on the receiving one.
type clientStream struct {
	ic       *Interceptor
	ctx      context.Context
	desc     *grpc.StreamDesc
	cc       *grpc.ClientConn
	method   string
	streamer grpc.Streamer
	opts     []grpc.CallOption
	prio     int
	// retriesOff declares gRPC's own retries off; without it, a method its service config
	// retries is left to gRPC (standsAside, read after each failure: a new channel has no
	// service config before it resolves its target).
	retriesOff bool

	sendMu sync.Mutex // serialises SendMsg, CloseSend and a new attempt's replay

	mu        sync.Mutex // guards the fields below
	cur       *streamAttempt
	sent      []any // the messages sent, kept for a replay until committed
	closed    bool  // CloseSend was called
	committed bool  // no retry any more
	overflow  bool  // more than Config.StreamReplay messages were sent
}

// streamAttempt is one attempt of a stream: its gRPC stream and context, and what the strategy
// knows of it. The strategy is told its end once (told): by RecvMsg when its first answer
// comes, or, if its context ends first (the caller's cancel or deadline), then.
type streamAttempt struct {
	cs     grpc.ClientStream
	cancel context.CancelFunc
	stop   func() bool // stops the watch on the context
	sa     strategy.Attempt
	start  time.Time
	told   atomic.Bool
	// answered: RecvMsg has returned the attempt's first answer (read and written by the
	// receiving goroutine only).
	answered bool
}

// tell gives the strategy the attempt's end (see Interceptor.tell), unless it was told already;
// it reports whether this call told it.
func (at *streamAttempt) tell(ic *Interceptor, now strategy.Time, o strategy.Outcome, latency time.Duration) bool {
	if !at.told.CompareAndSwap(false, true) {
		return false
	}
	ic.tell(now, at.sa, o, latency)
	return true
}

// open starts attempt retry, and the retries its failures to open lead to, until one is open:
// it returns nil with s.cur set, or the error the stream ends with. last is the previous
// attempt's error (nil for the original).
func (s *clientStream) open(retry int, last error) error {
	ic := s.ic
	for ; ; retry++ {
		a := Attempt{Method: s.method, Stream: true, Retry: retry, Priority: s.prio}
		sa, start, now, err := ic.admitted(s.ctx, &a, last)
		if err != nil {
			return err
		}
		err = s.begin(sa, start)
		if err == nil {
			return nil
		}
		a.Sent, a.Err, a.Code = true, err, status.Code(err)
		a.Latency, now = ic.d.End(start)
		if ic.ended(s.ctx, &a, func(o strategy.Outcome) { ic.tell(now, sa, o, a.Latency) }) {
			ic.emit(&a)
			return err
		}
		a.Outcome = classify(a.Code, ic.retryAborted)
		ic.record(now, sa, &a)
		ic.decide(s.ctx, now, sa, &a, standsAside(s.retriesOff, s.cc, s.method), s.replayable(), nil)
		ic.emit(&a)
		if a.End != EndRetry {
			return err
		}
		if werr := ic.wait(s.ctx, a.Delay); werr != nil {
			return werr
		}
		last = err
	}
}

// begin opens the attempt sa, admitted at start, and makes it the current one: the messages
// sent so far are sent on it again, and CloseSend if it was called, with the sending side
// held, so that no message is sent between the replay and the switch. An attempt that fails
// during the replay fails at the next RecvMsg. Once open, the attempt's end is told to the
// strategy if its context ends before its first answer.
func (s *clientStream) begin(sa strategy.Attempt, start time.Time) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	actx, cancel := context.WithCancel(s.ctx)
	cs, err := s.streamer(actx, s.desc, s.cc, s.method, s.opts...)
	if err != nil {
		cancel()
		return err
	}
	at := &streamAttempt{cs: cs, cancel: cancel, sa: sa, start: start}
	at.stop = context.AfterFunc(actx, func() {
		latency, now := s.ic.d.End(at.start)
		o := strategy.Canceled
		if s.ctx.Err() == context.DeadlineExceeded {
			o = strategy.Timeout
		}
		at.tell(s.ic, now, o, latency)
	})
	s.mu.Lock()
	s.cur = at
	sent, closed := s.sent, s.closed
	s.mu.Unlock()
	replay(cs, sent, closed)
	return nil
}

// replay sends the messages of an earlier attempt on cs, and CloseSend if it was called. It
// stops at the first error: the attempt has failed, and its RecvMsg says how.
func replay(cs grpc.ClientStream, sent []any, closed bool) {
	for _, m := range sent {
		if cs.SendMsg(m) != nil {
			return
		}
	}
	if closed {
		_ = cs.CloseSend()
	}
}

// replayable reports whether the messages sent so far can all be sent again.
func (s *clientStream) replayable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.committed && !s.overflow
}

// commit ends the stream's retries and drops the messages kept for them.
func (s *clientStream) commit() {
	s.mu.Lock()
	s.committed, s.sent = true, nil
	s.mu.Unlock()
}

// SendMsg sends m on the current attempt, keeping it for a replay while the stream may be
// retried. While it may, an attempt that failed (io.EOF) is not an error here: RecvMsg reports
// the failure or retries it, sending m again.
func (s *clientStream) SendMsg(m any) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.mu.Lock()
	cs, keep := s.cur.cs, !s.committed && !s.overflow
	if keep {
		if len(s.sent) >= s.ic.replay {
			s.overflow, s.sent, keep = true, nil, false
		} else {
			s.sent = append(s.sent, m)
		}
	}
	s.mu.Unlock()
	err := cs.SendMsg(m)
	if err == io.EOF && keep {
		return nil
	}
	return err
}

// CloseSend closes the sending side of the current attempt, and of every retry after it.
func (s *clientStream) CloseSend() error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.mu.Lock()
	s.closed = true
	cs := s.cur.cs
	s.mu.Unlock()
	return cs.CloseSend()
}

// Header returns the current attempt's headers; once the caller has read them (a server that
// answered with headers), the stream is committed to this attempt.
func (s *clientStream) Header() (metadata.MD, error) {
	md, err := s.current().cs.Header()
	if err == nil && md != nil {
		s.commit()
	}
	return md, err
}

// Trailer returns the current attempt's trailer.
func (s *clientStream) Trailer() metadata.MD { return s.current().cs.Trailer() }

// Context returns the current attempt's context.
func (s *clientStream) Context() context.Context { return s.current().cs.Context() }

// current returns the current attempt.
func (s *clientStream) current() *streamAttempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// RecvMsg receives the next message into m. The first answer of an attempt (a message, the
// stream's end, or its failure) is its outcome; a failure before the first message is retried
// as the strategy decides, on a new attempt, and RecvMsg then goes on with it.
func (s *clientStream) RecvMsg(m any) error {
	ic := s.ic
	for {
		at := s.current()
		err := at.cs.RecvMsg(m)
		if at.answered { // the attempt's outcome is told: what follows is the caller's
			if s.over(err) {
				s.finish(at)
			}
			return err
		}
		at.answered = true
		latency, now := ic.d.End(at.start)
		a := Attempt{Method: s.method, Stream: true, Retry: at.sa.Retry, Priority: s.prio, Sent: true, Latency: latency}
		if err == nil || err == io.EOF {
			a.Outcome, a.End = strategy.Success, EndSuccess
			a.Recorded = at.tell(ic, now, strategy.Success, latency)
			ic.emit(&a)
			s.commit()
			if s.over(err) {
				s.finish(at)
			}
			return err
		}
		a.Err, a.Code = err, status.Code(err)
		if ic.ended(s.ctx, &a, func(o strategy.Outcome) { at.tell(ic, now, o, latency) }) {
			ic.emit(&a)
			s.finish(at)
			return err
		}
		a.Outcome = classify(a.Code, ic.retryAborted)
		if !at.tell(ic, now, a.Outcome, latency) {
			s.finish(at) // the context ended meanwhile, and said so
			return err
		}
		a.Recorded = true
		ic.decide(s.ctx, now, at.sa, &a, standsAside(s.retriesOff, s.cc, s.method), s.replayable(), at.cs.Trailer())
		ic.emit(&a)
		if a.End != EndRetry {
			s.finish(at)
			return err
		}
		at.release()
		if werr := ic.wait(s.ctx, a.Delay); werr != nil {
			s.commit()
			return werr
		}
		if oerr := s.open(at.sa.Retry+1, err); oerr != nil {
			s.commit()
			return oerr
		}
	}
}

// over reports whether the stream is over after a RecvMsg that returned err: it failed or
// ended, or it answers once (a unary or client-streaming call, whose single message gRPC
// delivers with its status).
func (s *clientStream) over(err error) bool { return err != nil || !s.desc.ServerStreams }

// finish commits the stream, which is over, and releases attempt at.
func (s *clientStream) finish(at *streamAttempt) {
	s.commit()
	at.release()
}

// release stops watching the attempt's context, then cancels it.
func (at *streamAttempt) release() {
	at.stop()
	at.cancel()
}
