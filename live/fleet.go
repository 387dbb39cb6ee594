package live

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/live/proxy"
	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// streamClient is the simulator's random stream of a client's strategy (package sim): the same
// seed draws the same strategy randomness (the arrivals' is scenarios.ArrivalStream).
const streamClient = 1 << 20 // + client index + switch count << 32

// member is one client's current strategy inside its transport. A strategy switch replaces it;
// requests in flight finish on the transport they started with.
type member struct {
	rt     *cortexhttp.Transport
	strat  strategy.Strategy
	holder strategy.EngineHolder // non-nil for the strategies built on a CORTEX engine
}

// client is one instance of the fleet.
type client struct {
	cur atomic.Pointer[member]
}

// reqKey is the context key of a request's reqState.
type reqKey struct{}

// reqState is what the fleet's hooks read back from a request's context: its class, how many
// of its attempts were sent, what the proxy's FaultHeader said of the last one's answer, and
// whether its last attempt's success waits for its body to be counted. The request's goroutine
// alone writes it (the hooks run on it, inside RoundTrip).
type reqState struct {
	class int
	sent  atomic.Int32
	fault string // the last answer's FaultHeader ("" for none)
	// headOK is set when the last attempt succeeded at its head: do counts it once the body
	// is read (a success, or a failure of the body); retry says whether it was a retry.
	headOK, retry bool
}

// counting is the base transport seen by every client's cortexhttp transport: it counts each
// attempt when it is sent (as the simulator does), not when its outcome comes back, so that
// attempts and originals fall in the same second.
type counting struct {
	base  http.RoundTripper
	tally *tally
}

// RoundTrip counts the attempt, original or retry, sends it, and notes the proxy's FaultHeader
// on its answer.
func (c counting) RoundTrip(req *http.Request) (*http.Response, error) {
	st, ok := req.Context().Value(reqKey{}).(*reqState)
	if !ok {
		return c.base.RoundTrip(req)
	}
	c.tally.sent(st.sent.Add(1) > 1)
	resp, err := c.base.RoundTrip(req)
	st.fault = ""
	if resp != nil {
		st.fault = resp.Header.Get(proxy.FaultHeader)
	}
	return resp, err
}

// fleet is the clients, the requests they have alive, and the tally of their outcomes. Its
// lifetime is one run (Restart builds a new one).
type fleet struct {
	clients  []client
	base     http.RoundTripper
	tmpl     *http.Request // the request every original copies, with its own context
	deadline time.Duration
	timeout  time.Duration
	drain    int64
	clock    engine.Clock
	member   *engine.FleetConfig // every CORTEX engine's Config.Fleet when the run joins a fleet (Config.Join)
	cfg      Config              // the run's configuration (its Engine for cortex)

	slots chan struct{} // one token per request alive: the bound on concurrency
	ctx   context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup

	tally tally
}

// newFleet returns a fleet of n clients sending to u, with no strategy yet (build sets them).
func newFleet(n int, u *url.URL, base http.RoundTripper, cfg Config, classes int) *fleet {
	ctx, stop := context.WithCancel(context.Background())
	tmpl := &http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: http.Header{},
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	f := &fleet{
		clients:  make([]client, n),
		tmpl:     tmpl,
		deadline: cfg.Scenario.Deadline,
		timeout:  cfg.Scenario.Timeout,
		drain:    cfg.DrainLimit,
		clock:    cfg.Clock,
		slots:    make(chan struct{}, cfg.MaxInFlight),
		ctx:      ctx,
		stop:     stop,
		tally:    tally{classes: make([]source.ClassTick, classes)},
		cfg:      cfg,
	}
	if cfg.Join != nil {
		fc := cfg.Join.engineConfig()
		f.member = &fc
	}
	f.base = counting{base: base, tally: &f.tally}
	return f
}

// build gives every client a fresh strategy called name from seed (switches: how many
// strategy switches came before, for fresh streams), each inside its own cortexhttp
// transport; the controls' weights and adaptive switch, when set, apply to new CORTEX engines.
// It returns the catalog name.
func (f *fleet) build(name string, seed int64, switches uint64, ctl *model.Controls) (string, error) {
	ms := make([]*member, len(f.clients))
	var fc *engine.FleetConfig
	if f.member != nil { // one lease for the build's engines: one member per process
		c := *f.member
		c.Pool = engine.NewFleetPool()
		fc = &c
	}
	for i := range ms {
		r := rand.New(rand.NewPCG(uint64(seed), streamClient+uint64(i)+switches<<32))
		custom, _ := f.cfg.customEngine(name)
		st, err := strategy.New(name, strategy.Env{Clock: f.clock, Rand: r, Clients: len(f.clients), Cortex: custom, Fleet: fc})
		if err != nil {
			return "", err
		}
		m := &member{strat: st}
		if h, ok := st.(strategy.EngineHolder); ok {
			m.holder = h
			if err := ctl.Configure(h.Engine()); err != nil {
				return "", err
			}
		}
		cfg := cortexhttp.DefaultConfig()
		cfg.Base = f.base
		cfg.Strategy = st
		cfg.Clock = f.clock
		cfg.PriorityHeader = ""
		cfg.AttemptTimeout = f.timeout
		cfg.DrainLimit = f.drain
		cfg.OnAttempt = f.tally.attempt
		rt, err := cortexhttp.New(cfg)
		if err != nil {
			return "", fmt.Errorf("live: client %d: %w", i, err)
		}
		m.rt = rt
		ms[i] = m
	}
	for i, m := range ms {
		f.clients[i].cur.Store(m)
	}
	return ms[0].strat.Name(), nil
}

// current returns every client's current member (strategy and transport).
func (f *fleet) current() []*member {
	ms := make([]*member, len(f.clients))
	for i := range f.clients {
		ms[i] = f.clients[i].cur.Load()
	}
	return ms
}

// send starts one original request of class cls (priority prio) from client cl, unless every
// slot is taken: then it is counted as refused at the in-flight cap and abandoned, and send
// returns false.
func (f *fleet) send(cls, cl, prio int) bool {
	select {
	case f.slots <- struct{}{}:
	default:
		f.tally.rejected()
		return false
	}
	f.wg.Add(1)
	go func() {
		defer func() {
			<-f.slots
			f.wg.Done()
		}()
		f.do(cls, cl, prio)
	}()
	return true
}

// do sends one request through the client's transport, reads at most DrainLimit bytes of the
// answer and tallies how the request ended: completed (a success within the deadline, its body
// read without error up to the limit) or abandoned (a redirect, which is not followed, among
// them). The last attempt's success is counted once its body is read: a body that breaks off
// makes it a failure of cause FailBody.
func (f *fleet) do(cls, cl, prio int) {
	ctx, cancel := context.WithTimeout(f.ctx, f.deadline)
	defer cancel()
	st := &reqState{class: cls}
	ctx = context.WithValue(cortexhttp.WithPriority(ctx, prio), reqKey{}, st)
	m := f.clients[cl].cur.Load()
	resp, err := m.rt.RoundTrip(f.tmpl.WithContext(ctx))
	var bodyErr error
	if err == nil {
		_, bodyErr = io.Copy(io.Discard, io.LimitReader(resp.Body, f.drain))
		_ = resp.Body.Close()
	}
	if f.ctx.Err() != nil {
		bodyErr = nil // the run ended: its head was all it got to say
	}
	completed := err == nil && bodyErr == nil && ctx.Err() == nil && resp.StatusCode < 400 &&
		cortexhttp.StatusCause(resp.StatusCode) == cortexhttp.CauseNone
	f.tally.end(st, completed, bodyErr)
}

// close cancels every request alive and waits for their goroutines.
func (f *fleet) close() {
	f.stop()
	f.wg.Wait()
}

// tally counts what the fleet's requests do during the current tick. Its methods are called
// from the requests' goroutines; take empties it at the end of each tick.
type tally struct {
	mu      sync.Mutex
	c       source.Counts
	classes []source.ClassTick
}

// sent counts an attempt sent.
func (t *tally) sent(retry bool) {
	t.mu.Lock()
	t.c.Attempts++
	if retry {
		t.c.Retries++
	}
	t.mu.Unlock()
}

// attempt is every transport's Config.OnAttempt: it counts the attempt's outcome, a refused
// or held admission (by reason and class) and the strategy's verdict, as the simulator counts
// them (the attempt itself was counted when sent).
func (t *tally) attempt(a cortexhttp.Attempt) {
	cls, fault := -1, ""
	st, ok := a.Request.Context().Value(reqKey{}).(*reqState)
	if ok {
		cls, fault = st.class, st.fault
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := &t.c
	switch {
	case a.End == cortexhttp.EndHeld:
		c.Held++
	case a.End == cortexhttp.EndNotAdmitted && a.Admission.Held(): // held past the deadline
		c.HeldExpired++
		if a.Retry > 0 {
			c.RetryExpired++
		}
	case a.End == cortexhttp.EndNotAdmitted:
		r := source.ReasonOf(a.Admission.Reason)
		c.AddRefusal(r, a.Retry > 0)
		if cls >= 0 && cls < len(t.classes) {
			t.classes[cls].AddRefusal(r, a.Retry > 0)
		}
	}
	switch {
	case !a.Recorded:
	case a.End == cortexhttp.EndSuccess && st != nil: // counted when its body is read (end)
		st.headOK, st.retry = true, a.Retry > 0
	case a.End == cortexhttp.EndRedirect: // not followed: not the resource asked for
		c.AddOutcome(strategy.BadRequest, a.Retry > 0)
		c.FailureCauses[source.FailRedirect]++
	default:
		c.AddOutcome(a.Outcome, a.Retry > 0)
		if a.Outcome != strategy.Success {
			c.FailureCauses[failureCause(a, fault)]++
		}
	}
	if a.Decided && cls >= 0 && cls < len(t.classes) {
		model.CountVerdict(&t.c, &t.classes[cls], &a.Verdict, model.VerdictReason(&a.Verdict))
	}
}

// arrived counts an original of class cls.
func (t *tally) arrived(cls int) {
	t.mu.Lock()
	t.c.Originals++
	t.classes[cls].Arrived++
	t.mu.Unlock()
}

// rejected counts an original that found no free slot: refused at the in-flight cap (a local
// reject), abandoned.
func (t *tally) rejected() {
	t.mu.Lock()
	t.c.InFlightCapRefused++
	t.c.LocalRejects++
	t.c.Abandoned++
	t.mu.Unlock()
}

// end counts a request that ended, completed or abandoned, and the outcome of its last attempt
// if it waited for the body (st.headOK): a success, or a failure of the body that broke off
// (bodyErr: a timeout, or FailBody counted as a server error).
func (t *tally) end(st *reqState, completed bool, bodyErr error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st.headOK {
		o, cause := strategy.Success, source.FailBody
		if bodyErr != nil {
			o = strategy.ServerError
			if cortexhttp.ErrorCause(bodyErr) == cortexhttp.CauseTimeout {
				o, cause = strategy.Timeout, source.FailTimeout
			}
		}
		t.c.AddOutcome(o, st.retry)
		if o != strategy.Success {
			t.c.FailureCauses[cause]++
		}
	}
	if completed {
		t.c.Completed++
		t.classes[st.class].Succeeded++
		return
	}
	t.c.Abandoned++
}

// take returns the tick's counts and class counts and starts the next tick from zero.
func (t *tally) take(classes []source.ClassTick) source.Counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.c
	t.c = source.Counts{}
	copy(classes, t.classes)
	clear(t.classes)
	return c
}
