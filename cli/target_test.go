//go:build unix

package cli

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTargetPrintsTotals asserts that target, stopped by a signal, prints its totals on stdout
// (the requests it accepted and served), so a session's figures outlive its window; off a
// terminal the status line is not redrawn in place.
func TestTargetPrintsTotals(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stdin, _ := syncPipe(t)
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"target", "--addr", "127.0.0.1:0"}, stdin, &out, &errOut)
	}()
	addr := regexp.MustCompile(`listening on (http://\S+)`)
	deadline := time.Now().Add(20 * time.Second)
	for addr.FindStringSubmatch(out.String()) == nil {
		require.True(t, time.Now().Before(deadline), "no address printed: %s", errOut.String())
		time.Sleep(10 * time.Millisecond)
	}
	url := addr.FindStringSubmatch(out.String())[1]
	for range 3 {
		resp, err := http.Get(url)
		require.NoError(t, err)
		resp.Body.Close()
	}
	cancel(&stopped{sig: syscall.SIGINT})
	assert.Equal(t, 130, <-done)
	assert.Regexp(t, `target stopped after [0-9.]+m?s: 3 accepted, 3 served`, out.String())
	assert.NotContains(t, errOut.String(), "\r", "no status redrawn in place off a terminal")
	assert.True(t, strings.HasSuffix(out.String(), "crashes\n"))
}

// TestTargetAddr asserts that `target --addr` refuses, as a usage error naming the way out,
// an address other machines could reach (a wildcard, IPv4 or IPv6, an empty host, another
// interface's address) unless --public says so; that a loopback name is fine; and that the
// addresses it prints are those it really listens on (the resolved port for port 0, each
// interface's address for a wildcard, never "[::]"): a request to each printed URL on
// loopback is answered.
func TestTargetAddr(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:8080"} {
		code, _, errOut := run("target", "--addr", addr)
		assert.Equal(t, 2, code, addr)
		assert.Contains(t, errOut, "--public", addr)
		assert.Contains(t, errOut, "use 127.0.0.1:", addr)
	}
	listen := func(args ...string) string {
		stdin, _ := syncPipe(t)
		var out, errOut syncBuffer
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int)
		go func() { done <- execute(ctx, append([]string{"target"}, args...), stdin, &out, &errOut) }()
		require.Eventually(t, func() bool { return out.String() != "" }, 10*time.Second, 5*time.Millisecond, errOut.String())
		for _, u := range regexp.MustCompile(`http://(127\.0\.0\.1|\[::1\]):[0-9]+`).FindAllString(out.String(), -1) {
			resp, err := http.Get(u + "/")
			if assert.NoError(t, err, u) {
				assert.Equal(t, http.StatusOK, resp.StatusCode, u)
				_ = resp.Body.Close()
			}
		}
		cancel()
		assert.Equal(t, 0, <-done, errOut.String())
		return out.String()
	}
	out := listen("--addr", "localhost:0")
	assert.Regexp(t, `^target listening on http://(127\.0\.0\.1|\[::1\]):[1-9][0-9]* \(50 workers`, out)
	out = listen("--addr", "0.0.0.0:0", "--public")
	assert.Regexp(t, `every interface, IPv4 and IPv6\): http://127\.0\.0\.1:[1-9][0-9]*`, out)
	assert.NotContains(t, out, "http://[::]:")
}
