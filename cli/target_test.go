//go:build unix

package cli

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTargetAddr asserts that `target --addr` refuses, as a usage error naming the way out,
// an address other machines could reach (a wildcard, IPv4 or IPv6, an empty host, another
// interface's address) unless --public says so; that a loopback name is fine; and that the
// addresses it prints are those it really listens on (the resolved port for port 0, each
// interface's address for a wildcard, never "[::]"): a request to each printed URL on
// loopback is answered.
func TestTargetAddr(t *testing.T) {
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
