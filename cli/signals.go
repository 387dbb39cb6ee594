package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals stop any command: SIGINT (ctrl+c in a shell; the dashboard reads ctrl+c as a key
// instead), SIGTERM (kill, a service manager) and SIGHUP (the terminal went away).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// stopped is the cause of a command stopped by a signal; Execute reports it and exits with
// its code.
type stopped struct{ sig os.Signal }

// Error names the signal as the shells do: "stopped by SIGTERM".
func (s *stopped) Error() string {
	name := s.sig.String()
	switch s.sig {
	case os.Interrupt:
		name = "SIGINT"
	case syscall.SIGTERM:
		name = "SIGTERM"
	case syscall.SIGHUP:
		name = "SIGHUP"
	}
	return "stopped by " + name
}

// code is the exit status of a command stopped by the signal: 128 + its number, the shells'
// convention (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), or 1 for a signal without one.
func (s *stopped) code() int {
	if n, ok := s.sig.(syscall.Signal); ok && n > 0 && n < 128 {
		return 128 + int(n)
	}
	return 1
}

// notifyContext is signal.NotifyContext with the signal kept as the context's cause (a
// *stopped), which the exit status needs. After the first signal it lets go of the signals, so
// a second one has its default effect (an impatient user can still kill the program). stop
// releases the signals and the goroutine; call it when the command is done.
func notifyContext(parent context.Context, sigs ...os.Signal) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&stopped{sig: s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(context.Canceled)
	}
}

// await runs f on its own goroutine and returns its result, or the cause of ctx as soon as ctx
// is done. f then keeps running to its end (the simulator cannot be stopped midway), but the
// command returns at once and the program exits.
func await[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	if ctx.Err() != nil { // stopped before it began
		var zero T
		return zero, context.Cause(ctx)
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}

// checkedWriter passes writes on to w and remembers the first error, so that a command whose
// output is lost (`validate f.toml > /dev/full`, a disk full) fails instead of exiting 0. It is
// not safe for concurrent use.
type checkedWriter struct {
	w   io.Writer
	err error // the first write error, or nil
}

// Write writes p to w; after a failed write it fails at once with the first error.
func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}
