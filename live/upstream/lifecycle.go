package upstream

// The target's lives: it listens (Start), goes down for a crash or an outage (Down) and
// listens again on the same port (a restart, Up), until Close; every life has its own server,
// whose handlers and connections Close waits for.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/source"
)

// life is one listening period: from Start or a restart until a crash, an outage or Close.
type life struct {
	srv    *http.Server
	down   chan struct{} // closed when this life ends: its handlers give up
	served chan struct{} // closed when Serve has returned
}

// stop closes the life's listener and every connection it accepted, and waits for Serve.
func (lf *life) stop() {
	_ = lf.srv.Close()
	<-lf.served
}

// Start listens on Config.Addr and serves in the background, UP at full capacity, until Close
// or the cancellation of ctx. It returns the listen error (the port in use, say) or ErrClosed;
// a Target starts once.
func (t *Target) Start(ctx context.Context) error {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	t.mu.Lock()
	closed, started := t.closed, t.started
	t.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case started:
		return errors.New("target: already started")
	}
	ln, err := net.Listen("tcp", t.cfg.Addr)
	if err != nil {
		return fmt.Errorf("target: listen on %s: %w", t.cfg.Addr, err)
	}
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed { // Close ran while we listened
		_ = ln.Close()
		return ErrClosed
	}
	t.started = true
	t.addr = ln.Addr().String()
	t.lastStep, t.ableAt, t.origin = now, now, now
	t.svc = model.NewService(t.cfg.service(), t.cfg.Tick) // UP at full capacity
	t.serveLocked(ln)
	t.updateLocked(now)
	go t.loop(ctx)
	return nil
}

// Close stops the target: it closes the listener and every connection (requests queued or in
// service get no answer), and returns once every goroutine and timer the target started has
// stopped, every handler has returned and every connection goroutine of net/http has ended.
// That is at once, except after a 413: net/http then lets the connection close gently (so the
// client reads the answer) and holds its goroutine for up to half a second, which Close waits
// for. Closing twice, or before Start, is fine. It always returns nil.
func (t *Target) Close() error {
	t.stopOnce.Do(func() { close(t.closing) })
	t.mu.Lock()
	started := t.started
	if !started && !t.closed {
		t.closed = true
		close(t.done)
	}
	t.mu.Unlock()
	<-t.done
	return nil
}

// loop is the control loop: one step every Tick until Close or ctx's cancellation.
func (t *Target) loop(ctx context.Context) {
	defer close(t.done)
	tk := time.NewTicker(t.cfg.Tick)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			t.shutdown()
			return
		case <-t.closing:
			t.shutdown()
			return
		case <-tk.C:
			t.step(t.clock.Now())
		}
	}
}

// shutdown closes the current life and waits for every handler and connection goroutine. The
// Serve goroutines of every life have returned (each stop waits for its own), so no
// connection can be added while it waits.
func (t *Target) shutdown() {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	t.mu.Lock()
	lf := t.goDownLocked(t.clock.Now(), StateStopped)
	t.closed = true
	t.mu.Unlock()
	if lf != nil {
		lf.stop()
	}
	t.handlers.Wait()
	t.conns.Wait()
}

// serveLocked starts a life on ln.
func (t *Target) serveLocked(ln net.Listener) {
	lf := &life{down: make(chan struct{}), served: make(chan struct{})}
	lf.srv = &http.Server{
		Handler:           t.handler,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(io.Discard, "", 0), // nothing on the dashboard's terminal
		ConnState:         t.connState,
	}
	t.life = lf
	go func() {
		defer close(lf.served)
		_ = lf.srv.Serve(ln)
	}()
}

// connState counts the connections open (http.Server.ConnState).
func (t *Target) connState(_ net.Conn, s http.ConnState) {
	switch s {
	case http.StateNew:
		t.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		t.conns.Done()
	}
}

// relisten listens again on the target's address; on success the target warms up from now
// (and an outage, if any, is over). Called with ctl held, not mu.
func (t *Target) relisten(now time.Time) error {
	ln, err := net.Listen("tcp", t.addr)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.listenErr = fmt.Errorf("target: listen again on %s: %w", t.addr, err)
		return t.listenErr
	}
	t.listenErr = nil
	t.outage, t.upPending = false, false
	t.serveLocked(ln)
	t.startWarmingLocked(now)
	return nil
}

// Down starts an outage: the target closes its listener (clients get connection refused) and
// every connection holding a request, and stays DOWN until Up, even past a crash's restart.
// Down while DOWN does nothing.
func (t *Target) Down() error {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	now := t.clock.Now()
	t.mu.Lock()
	if err := t.controllableLocked(); err != nil {
		t.mu.Unlock()
		return err
	}
	t.outage, t.upPending = true, false
	var lf *life
	if t.svc.State != source.ServiceDown {
		lf = t.goDownLocked(now, StateDown)
	}
	t.mu.Unlock()
	if lf != nil {
		lf.stop()
	}
	return nil
}

// Up ends an outage: the target listens again on the same port and warms up. It returns the
// listen error if the port was taken meanwhile: the target stays DOWN, its control loop tries
// again at every tick until it listens (Snapshot's Err says why meanwhile), unless Down comes
// first. Up without an outage does nothing.
func (t *Target) Up() error {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	now := t.clock.Now()
	t.mu.Lock()
	err := t.controllableLocked()
	outage := t.outage
	t.mu.Unlock()
	if err != nil || !outage {
		return err
	}
	if err := t.relisten(now); err != nil {
		t.mu.Lock()
		t.upPending = true
		t.mu.Unlock()
		return err
	}
	return nil
}

func (t *Target) controllableLocked() error {
	switch {
	case t.closed:
		return ErrClosed
	case !t.started:
		return errNotStarted
	}
	return nil
}
