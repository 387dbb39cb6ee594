package waittest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

// Asserts that settle waits for a goroutine on its way out (one that ends after a go-redis
// pool's redial sleep, here 300 ms, longer than goleak's own retries) and reports one that
// never ends, naming it.
func TestSettle(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	go time.Sleep(300 * time.Millisecond)
	assert.NoError(t, settle(5*time.Second, ignore), "a goroutine ending in 300 ms is waited for")

	stop := make(chan struct{})
	go func() { <-stop }()
	err := settle(500*time.Millisecond, ignore)
	close(stop)
	if assert.Error(t, err, "a goroutine that does not end is a leak") {
		assert.Contains(t, err.Error(), "TestSettle")
	}
	assert.NoError(t, settle(5*time.Second, ignore))
}
