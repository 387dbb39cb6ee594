// Package waittest is the TestMain of packages whose tests mostly wait on real time (live
// traffic against loopback servers, Redis leases, a run's real seconds): such tests run in
// parallel with each other (t.Parallel), many at once, since waiting costs no core; and since a
// goroutine check per test cannot tell one parallel test's goroutines from another's, the
// package checks once, after its last test, that none outlives them (goleak.Find).
// A test whose point is that it leaves nothing behind stays serial (no t.Parallel: it runs
// before the parallel ones, alone) and checks its own goroutines with goleak.IgnoreCurrent and
// VerifyNone; its own subtests may still run in parallel with each other.
package waittest

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// DefaultParallel is how many parallel tests Main lets run at once unless -parallel is given:
// go test's default, GOMAXPROCS, would let only two of them wait at a time on two cores.
const DefaultParallel = 16

// Settle is how long Main waits, after the last test, for the goroutines still running to end:
// some are on their way out (a go-redis pool's redial loop, which sleeps a second between
// dials, ends at its next wake-up after the pool's Close); a leaked goroutine never ends.
const Settle = 10 * time.Second

// Main runs m's tests with -parallel parallel (DefaultParallel if 0) unless the command line
// sets -parallel; then, if they passed, it fails the package if a goroutine started by a test
// (one that opts do not ignore) is still running Settle after the last one. A package whose
// parallel tests also compute (live traffic, TLS handshakes under -race) lets fewer run at once
// than one whose tests only wait, so that its waits for events stay far from their timeouts.
func Main(m *testing.M, parallel int, opts ...goleak.Option) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if parallel <= 0 {
			parallel = DefaultParallel
		}
		_ = flag.Set("test.parallel", strconv.Itoa(parallel))
	}
	code := m.Run()
	if code == 0 {
		if err := settle(Settle, opts...); err != nil {
			fmt.Fprintf(os.Stderr, "waittest: goroutines outlived the tests by %s: %v\n", Settle, err)
			code = 1
		}
	}
	os.Exit(code)
}

// settle returns nil once goleak finds no goroutine but those opts ignore, or its last finding
// after d.
func settle(d time.Duration, opts ...goleak.Option) error {
	deadline := time.Now().Add(d)
	for {
		err := goleak.Find(opts...) // retries for a moment itself
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
