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
