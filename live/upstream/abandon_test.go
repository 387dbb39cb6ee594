package upstream

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that a request whose client gave up while it was in service still holds its worker
// for its whole service time (a new request finds the worker busy and is refused) and is
// counted as served and wasted, with or without drop_expired: only queued requests are
// dropped. The request's service time (1 s, set with SetLatency) is the margin between the
// cancel and the check.
func TestAbandonedInServiceKeepsItsWorker(t *testing.T) {
	for _, drop := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "drop_expired"}[drop], func(t *testing.T) {
			noLeaks(t)
			cfg := testConfig(1, 10*time.Millisecond, 0)
			cfg.DropExpired = drop
			tg := start(t, cfg)
			c := client(t)

			require.NoError(t, tg.SetLatency(time.Second)) // for the first request only
			ctx, cancel := context.WithCancel(context.Background())
			a := async(ctx, c, tg.URL())
			eventually(t, tg, "the request in service", func(s Snapshot) bool { return s.Busy == 1 })
			require.NoError(t, tg.SetLatency(0))
			cancel()
			require.ErrorIs(t, (<-a).err, context.Canceled)

			assert.Equal(t, http.StatusServiceUnavailable, get(context.Background(), c, tg.URL()).status,
				"the abandoned request still holds the only worker")
			s := eventually(t, tg, "the abandoned work done", func(s Snapshot) bool { return s.Counters.Served == 1 })
			assert.Equal(t, Counters{Accepted: 1, Served: 1, Wasted: 1, Refused: 1}, s.Counters)
			assert.Equal(t, 0, s.Busy)
			assert.Equal(t, http.StatusOK, get(context.Background(), c, tg.URL()).status, "the worker is free again")
		})
	}
}

// Asserts that a queued request whose client gave up is still served when its turn comes
// (wasted work), unless drop_expired is set, in which case it is skipped and counted dropped.
// The first request's service time (1 s, set with SetLatency) is the margin between the cancel and its turn.
func TestAbandonedInQueue(t *testing.T) {
	tests := []struct {
		drop bool
		want Counters
	}{
		{false, Counters{Accepted: 2, Served: 2, Wasted: 1}},
		{true, Counters{Accepted: 2, Served: 1, Dropped: 1}},
	}
	for _, tt := range tests {
		t.Run(map[bool]string{false: "default", true: "drop_expired"}[tt.drop], func(t *testing.T) {
			noLeaks(t)
			cfg := testConfig(1, 10*time.Millisecond, 1)
			cfg.DropExpired = tt.drop
			tg := start(t, cfg)
			c := client(t)

			require.NoError(t, tg.SetLatency(time.Second)) // for the first request only
			a := async(context.Background(), c, tg.URL())
			eventually(t, tg, "the first request in service", func(s Snapshot) bool { return s.Busy == 1 })
			require.NoError(t, tg.SetLatency(0)) // drawn when the second one gets the worker
			ctx, cancel := context.WithCancel(context.Background())
			b := async(ctx, c, tg.URL())
			eventually(t, tg, "the second request queued", func(s Snapshot) bool { return s.Queue == 1 })
			cancel()
			require.ErrorIs(t, (<-b).err, context.Canceled)
			assert.Equal(t, 1, tg.Snapshot().Queue, "the abandoned request keeps its place until its turn")

			assert.Equal(t, http.StatusOK, (<-a).status)
			s := eventually(t, tg, "the queue drained", func(s Snapshot) bool {
				return s.Counters.Served+s.Counters.Dropped == 2 && s.Busy == 0 && s.Queue == 0
			})
			assert.Equal(t, tt.want, s.Counters)
		})
	}
}
