package proxy

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// InjectorConfig configures an Injector: the hooks through which the faults reach the service
// behind it. Every field may be nil. A Proxy builds its Injector from its Config's hooks.
type InjectorConfig struct {
	// Capacity, if set, is called with the capacity fault's factor in (0, 1] when the fault is
	// set, and with 1 when it is cleared: the embedded target's SetCapacity. Nil: Set refuses
	// the capacity fault with an error (the injector cannot take workers away).
	Capacity func(factor float64)
	// Latency, if set, is called with the latency fault's added time when the fault is set,
	// and with 0 when it is cleared: the embedded target's SetLatency. Nil: the injector itself
	// delays each request by that much before passing it on.
	Latency func(extra time.Duration)
	// Outage, if set, is called with true when an outage starts (after the requests held or
	// delayed by the injector were released) and with false when it ends: what makes the
	// connections refused. The embedded target's Down and Up close its listener and listen
	// again; a Proxy closes its own listener. Nil: requests reaching the injector during an
	// outage have their connection closed without an answer.
	Outage func(down bool)
}

// Injector applies the simulator's fault kinds to the requests of an http.Handler: Wrap puts
// it in front of any handler, an httputil.ReverseProxy (which is what a Proxy is) or a
// service's own handler (live mode's embedded target mounts it in its own server, so that the
// load generator's requests make one socket hop instead of two). The faults act as the package
// documentation says, in the same order; the outage's refused connections and the capacity
// fault need the hooks of InjectorConfig. Build it with NewInjector; every method is safe for
// concurrent use.
type Injector struct {
	cfg        InjectorConfig
	clock      engine.Clock
	errorsFrac atomic.Uint64 // math.Float64bits of the errors fault's fraction, 0 when off

	// ctl serialises Set, Clear and Close, which call the hooks outside mu.
	ctl sync.Mutex

	// mu guards the rest; requests take it briefly to be admitted.
	mu       sync.Mutex
	rng      *rand.Rand
	closed   bool
	faults   [scenarios.NumFaultKinds]model.Active // by kind, as set (On, Value)
	fx       scenarios.Effects                     // what they do (model.EffectsOf): all the requests read
	bucket   model.Bucket                          // the throttle's tokens, on the clock since epoch
	epoch    time.Time                             // the clock's reading when the injector was made
	down     chan struct{}                         // closed when an outage starts or on Close: held and delayed requests give up
	inflight int64                                 // requests in the wrapped handler (counted in Dropped by an outage)
	counters Counters
}

// NewInjector returns an Injector with no fault active. WithRand and WithClock set its
// injectables, as for a Proxy.
func NewInjector(cfg InjectorConfig, opts ...Option) *Injector {
	o := options{clock: engine.WallClock{}, rng: rand.New(rand.NewPCG(seed, seed))}
	for _, f := range opts {
		f(&o)
	}
	return &Injector{cfg: cfg, clock: o.clock, rng: o.rng, fx: scenarios.NoEffects(), epoch: o.clock.Now(), down: make(chan struct{})}
}

// Wrap returns next behind the injector's faults: an outage closes the request's connection
// without an answer, a blackhole holds it until its client gives up (then closes its
// connection), bad_requests answers 400 and throttle 429 with Retry-After at once, latency
// delays it (without InjectorConfig.Latency), and the errors fault replaces a share of next's
// answers below 400 by a 500 before their status is written.
func (i *Injector) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { i.serve(w, r, next) })
}

// serve is the wrapped handler.
func (i *Injector) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	i.mu.Lock()
	if i.closed || i.fx.Down {
		i.mu.Unlock()
		panic(http.ErrAbortHandler) // raced with Close or an outage: no answer, as a dead process gives none
	}
	i.counters.Requests++
	v, delay, retry := i.admitLocked()
	down := i.down
	i.inflight++
	i.mu.Unlock()
	defer i.left()

	switch v {
	case hold:
		i.hold(r, down)
	case badRequest:
		w.Header().Set(FaultHeader, "bad_requests")
		http.Error(w, "bad request (injected by the cortex-tui proxy)", http.StatusBadRequest)
	case throttled:
		w.Header().Set(FaultHeader, "throttle")
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		http.Error(w, "too many requests (injected by the cortex-tui proxy)", http.StatusTooManyRequests)
	default:
		if delay > 0 {
			if !i.sleep(r, down, delay) {
				panic(http.ErrAbortHandler) // the client has gone, or an outage or Close came first
			}
			i.count(&i.counters.Forwarded)
		}
		if math.Float64frombits(i.errorsFrac.Load()) > 0 {
			ew := &errorsWriter{ResponseWriter: w, inj: i}
			next.ServeHTTP(ew, r)
			return
		}
		next.ServeHTTP(w, r)
	}
}

// left counts a request out of the wrapped handler.
func (i *Injector) left() {
	i.mu.Lock()
	i.inflight--
	i.mu.Unlock()
}

// admitLocked decides what happens to a request arriving now, counts it, and returns the delay
// before passing it on (latency fault) or the Retry-After in seconds (throttle).
func (i *Injector) admitLocked() (v verdict, delay time.Duration, retryAfter int) {
	fx := &i.fx
	if fx.Hang {
		i.counters.Blackholed++
		return hold, 0, 0
	}
	if v := fx.BadRequests; v > 0 && i.rng.Float64() < v {
		i.counters.BadRequests++
		return badRequest, 0, 0
	}
	if r := fx.Throttle; r > 0 && !i.bucket.Take(r, i.clock.Now().Sub(i.epoch)) {
		i.counters.Throttled++
		// the time until the next token, in whole seconds (Retry-After's unit), at least 1
		return throttled, 0, int(math.Min(maxRetryAfter, math.Max(1, math.Ceil(i.bucket.Wait(r)))))
	}
	if fx.Latency > 0 && i.cfg.Latency == nil {
		i.counters.Delayed++
		return forward, seconds(fx.Latency), 0 // Forwarded once the delay is over
	}
	i.counters.Forwarded++
	return forward, 0, 0
}

// hold keeps a blackholed request unanswered until its client gives up, an outage or Close.
// It reads the request's body first: net/http notices a client going away only once the body
// is consumed. The connection is then closed without an answer.
func (i *Injector) hold(r *http.Request, down <-chan struct{}) {
	n, err := io.Copy(io.Discard, io.LimitReader(r.Body, maxHeldBody+1))
	if err == nil && n <= maxHeldBody {
		select {
		case <-r.Context().Done():
		case <-down:
		}
	}
	i.canceled(r, down)
	panic(http.ErrAbortHandler)
}

// sleep waits d before passing the request on (the latency fault without
// InjectorConfig.Latency); false if the client gave up or an outage or Close came first.
func (i *Injector) sleep(r *http.Request, down <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		i.canceled(r, down)
	case <-down:
	}
	return false
}

// count adds one to a counter under mu.
func (i *Injector) count(c *int64) {
	i.mu.Lock()
	*c++
	i.mu.Unlock()
}

// canceled counts r in Canceled if its client gave up, unless down was closed (an outage
// counted it in Dropped; Close counts it nowhere).
func (i *Injector) canceled(r *http.Request, down <-chan struct{}) {
	select {
	case <-down:
		return
	default:
	}
	if r.Context().Err() != nil {
		i.count(&i.counters.Canceled)
	}
}

// strike draws the errors fault for an answer below 400: true (and counted) if it is to be
// replaced by a 500.
func (i *Injector) strike() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	v := i.fx.Errors
	hit := v > 0 && i.rng.Float64() < v
	if hit {
		i.counters.Errors++
	}
	return hit
}

// errorsWriter applies the errors fault to the wrapped handler's answer: it sees the status
// before it is written and, if the fault strikes (an answer below 400), writes a 500 instead
// and discards the handler's body (the work was done, as the simulator's errors fault strikes
// processed attempts). Answers the handler refused (503, 413, ...) pass.
type errorsWriter struct {
	http.ResponseWriter
	inj         *Injector
	wroteHeader bool
	struck      bool
}

// WriteHeader writes code, or a 500 if the errors fault strikes.
func (e *errorsWriter) WriteHeader(code int) {
	if e.wroteHeader {
		return
	}
	if code >= 200 {
		e.wroteHeader = true
	}
	if code < 200 || code >= 400 || !e.inj.strike() {
		e.ResponseWriter.WriteHeader(code)
		return
	}
	e.struck = true
	h := e.ResponseWriter.Header()
	for k := range h {
		delete(h, k) // the handler's headers (Content-Length, ...) describe the answer replaced
	}
	h.Set(FaultHeader, "errors")
	// A complete answer of its own length, so that it stands if the handler's body is cut
	// short afterwards (the proxy's Config.MaxBody flushes it and closes the connection).
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(errorsBody)))
	e.ResponseWriter.WriteHeader(http.StatusInternalServerError)
	_, _ = io.WriteString(e.ResponseWriter, errorsBody)
}

// errorsBody is the body of the errors fault's 500.
const errorsBody = "internal server error (injected by the cortex-tui proxy)\n"

// Write writes b, or discards it once the answer was replaced.
func (e *errorsWriter) Write(b []byte) (int, error) {
	if !e.wroteHeader {
		e.WriteHeader(http.StatusOK)
	}
	if e.struck {
		return len(b), nil
	}
	return e.ResponseWriter.Write(b)
}

// Flush sends what was written so far (writing the status first, as net/http does).
func (e *errorsWriter) Flush() {
	if !e.wroteHeader {
		e.WriteHeader(http.StatusOK)
	}
	if f, ok := e.ResponseWriter.(http.Flusher); ok {
		f.Flush() // the handler's answer so far, or the whole 500
	}
}

// Unwrap returns the underlying writer (http.ResponseController).
func (e *errorsWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// Set starts a fault of kind now, or replaces the value of the active one: value is in the
// unit of the table of fault kinds (scenarios.FaultSpecs: seconds for latency, a fraction for
// errors and bad_requests, requests/s for throttle, a factor for capacity, 0 for outage and
// blackhole) and must lie in its bounds. The error names the field at fault ("proxy: throttle
// fault: rate must be a rate > 0 in requests/s, got 0"); the capacity fault needs
// InjectorConfig.Capacity. A fault lasts until Clear: its duration is the caller's business.
// Setting a throttle restarts its token bucket full (one second's worth of requests). An
// outage releases the held and delayed requests, counts the requests in progress in Dropped,
// then calls InjectorConfig.Outage(true).
func (i *Injector) Set(kind scenarios.FaultKind, value float64) error {
	if field, problem := kind.Check(value); problem != "" {
		if kind.Index() < 0 {
			return fmt.Errorf("proxy: fault: %s", problem)
		}
		return fmt.Errorf("proxy: %s fault: %s %s", kind, field, problem)
	}
	k := kind.Index()
	spec, _ := kind.Spec()
	if spec.Lever == scenarios.LeverCapacity && i.cfg.Capacity == nil {
		return fmt.Errorf("proxy: %s fault: this target has no capacity control (Config.Capacity is nil); "+
			"a proxy cannot take workers away from a service it does not run", kind)
	}
	i.ctl.Lock()
	defer i.ctl.Unlock()
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		return ErrClosed
	}
	was := i.fx
	i.faults[k] = model.Active{On: true, Value: value}
	i.fx = model.EffectsOf(&i.faults)
	if i.fx.Down && !was.Down {
		i.counters.Outages++
		i.counters.Dropped += i.inflight
		close(i.down)
		i.down = make(chan struct{})
	}
	if spec.Lever == scenarios.LeverThrottle { // a throttle starts with its bucket full
		i.bucket.Reset(value, i.clock.Now().Sub(i.epoch))
	}
	i.errorsFrac.Store(math.Float64bits(i.fx.Errors))
	i.mu.Unlock()
	i.hooks(was)
	return nil
}

// hooks tells the service behind the injector what changed since was, outside mu: an outage
// starts or ends (InjectorConfig.Outage), the latency or the capacity in effect changes
// (InjectorConfig.Latency, Capacity). Called with ctl held.
func (i *Injector) hooks(was scenarios.Effects) {
	fx := i.effects()
	if fx.Down != was.Down && i.cfg.Outage != nil {
		i.cfg.Outage(fx.Down)
	}
	if fx.Latency != was.Latency && i.cfg.Latency != nil {
		i.cfg.Latency(seconds(fx.Latency))
	}
	if fx.Capacity != was.Capacity && i.cfg.Capacity != nil {
		i.cfg.Capacity(fx.Capacity)
	}
}

// effects is the Effects in effect, read under mu.
func (i *Injector) effects() scenarios.Effects {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.fx
}

// Clear ends the fault of kind, if active: an outage calls InjectorConfig.Outage(false), a
// capacity fault Capacity(1) and a latency fault Latency(0) when those are set. Requests held
// by a blackhole stay held until their client gives up (they were lost, as in the simulator).
// Clearing an inactive or unknown kind does nothing.
func (i *Injector) Clear(kind scenarios.FaultKind) {
	k := kind.Index()
	if k < 0 {
		return
	}
	i.ctl.Lock()
	defer i.ctl.Unlock()
	i.clearLocked(k)
}

// ClearAll ends every active fault, in the order of the table of fault kinds.
func (i *Injector) ClearAll() {
	i.ctl.Lock()
	defer i.ctl.Unlock()
	for k := range i.faults {
		i.clearLocked(k)
	}
}

// clearLocked ends the fault of index k, if on. Called with ctl held, not mu.
func (i *Injector) clearLocked(k int) {
	i.mu.Lock()
	if !i.faults[k].On {
		i.mu.Unlock()
		return
	}
	was := i.fx
	i.faults[k] = model.Active{}
	i.fx = model.EffectsOf(&i.faults)
	i.errorsFrac.Store(math.Float64bits(i.fx.Errors))
	i.mu.Unlock()
	i.hooks(was)
}

// Active returns the kind and value of every active fault, in the order of the table of fault
// kinds (scenarios.FaultKinds); empty when none is.
func (i *Injector) Active() []Fault {
	i.mu.Lock()
	defer i.mu.Unlock()
	var out []Fault
	for k, f := range i.faults {
		if f.On {
			out = append(out, Fault{Kind: scenarios.FaultKinds[k], Value: f.Value})
		}
	}
	return out
}

// Counters returns the injector's running totals (the rows about the target and the listener,
// Upstream*, ListenErr and ListenRetries, are a Proxy's and stay zero here).
func (i *Injector) Counters() Counters {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.counters
}

// outage reports whether an outage is on.
func (i *Injector) outage() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.fx.Down
}

// Close releases the requests held or delayed (their connections closed without an answer,
// counted nowhere) and has every later request's connection closed; Set then returns
// ErrClosed. It calls no hook: the faults on the service stay as they are. It always returns
// nil; closing twice is fine.
func (i *Injector) Close() error {
	i.ctl.Lock()
	defer i.ctl.Unlock()
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.closed {
		i.closed = true
		close(i.down)
	}
	return nil
}

// seconds converts a value in seconds to a duration.
func seconds(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
