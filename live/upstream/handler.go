package upstream

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/cortex-tui/cortex-tui/model"
)

// okBody is the body of a served request.
var okBody = []byte("ok\n")

// handle is the target's HTTP handler, for any method and path:
//
//   - 200 "ok" once the request held a worker for its service time, with the time drawn in a
//     Server-Timing header ("svc;dur=12.345", milliseconds);
//   - 503 "queue full" at once when every worker is busy and the queue is full;
//   - 413 (and the connection closed) for a body longer than MaxBodyBytes; shorter bodies are
//     read and discarded before the request is admitted;
//   - no answer at all, the connection closed, when the target crashes, goes down or closes
//     while the request is queued or in service (what a client of a dead process sees).
//
// A request whose client has gone is not answered either; its work goes on (or is skipped in
// the queue with DropExpired).
func (t *Target) handle(w http.ResponseWriter, r *http.Request) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		panic(http.ErrAbortHandler) // closes the connection without an answer
	}
	t.handlers.Add(1)
	t.mu.Unlock()
	defer t.handlers.Done()

	tooLarge := r.ContentLength > t.cfg.MaxBodyBytes
	if !tooLarge {
		n, err := io.Copy(io.Discard, io.LimitReader(r.Body, t.cfg.MaxBodyBytes+1))
		if err != nil {
			panic(http.ErrAbortHandler) // the client went away mid-body
		}
		tooLarge = n > t.cfg.MaxBodyBytes
	}

	t.mu.Lock()
	lf := t.life
	if lf == nil || !t.svc.State.Serving() {
		t.mu.Unlock()
		panic(http.ErrAbortHandler) // raced with a crash or an outage: its connection is being closed
	}
	if tooLarge {
		t.svc.Refused()
		t.counters.TooLarge++
		t.mu.Unlock()
		w.Header().Set("Connection", "close")
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	switch t.svc.Admit(t.queue.Len()) {
	case model.Serve:
		t.svc.Busy++
		t.counters.Accepted++
		d := t.svc.Draw(t.rng)
		t.mu.Unlock()
		t.serve(w, r, lf, d)
	case model.Queue:
		wt := &waiter{ready: make(chan struct{}), ctx: r.Context()}
		t.queue.Push(wt)
		t.counters.Accepted++
		t.mu.Unlock()
		t.wait(w, r, lf, wt)
	default:
		t.counters.Refused++
		t.mu.Unlock()
		http.Error(w, "queue full", http.StatusServiceUnavailable)
	}
}

// wait parks a queued request's handler until it gets a worker, its life ends, or (with
// DropExpired) its client goes; the queue entry stays behind for dispatch to skip.
func (t *Target) wait(w http.ResponseWriter, r *http.Request, lf *life, wt *waiter) {
	var gone <-chan struct{} // nil without DropExpired: an abandoned request waits for its turn
	if t.cfg.DropExpired {
		gone = r.Context().Done()
	}
	select {
	case <-wt.ready:
	case <-lf.down:
		panic(http.ErrAbortHandler)
	case <-gone:
		t.mu.Lock()
		assigned := wt.assigned // it may have got a worker just as its client went
		t.mu.Unlock()
		if !assigned {
			panic(http.ErrAbortHandler)
		}
	}
	t.serve(w, r, lf, wt.d)
}

// serve holds a worker for d, then answers 200 if the client still waits. The work is done
// even if the client has gone (that is the wasted work); a crash, an outage or Close ends it
// without an answer.
func (t *Target) serve(w http.ResponseWriter, r *http.Request, lf *life, d time.Duration) {
	tm := time.NewTimer(d)
	select {
	case <-tm.C:
	case <-lf.down:
		tm.Stop()
		panic(http.ErrAbortHandler)
	}
	t.mu.Lock()
	if t.life != lf { // went down just as the work finished: counted as lost
		t.mu.Unlock()
		panic(http.ErrAbortHandler)
	}
	t.svc.Busy--
	t.counters.Served++
	abandoned := r.Context().Err() != nil
	if abandoned {
		t.counters.Wasted++
	}
	t.dispatchLocked()
	t.mu.Unlock()
	if abandoned {
		panic(http.ErrAbortHandler)
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Server-Timing", serverTiming(d))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(okBody)
}

// serverTiming formats d as a Server-Timing entry: "svc;dur=" and milliseconds.
func serverTiming(d time.Duration) string {
	b := make([]byte, 0, 24)
	b = append(b, "svc;dur="...)
	b = strconv.AppendFloat(b, float64(d)/float64(time.Millisecond), 'f', 3, 64)
	return string(b)
}
