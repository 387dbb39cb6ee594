package scenarios_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// classes returns n [[class]] tables of the given rate, named c1..cn.
func classes(n int, rate string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "[[class]]\nname = \"c%d\"\nrate = %s\n", i, rate)
	}
	return b.String()
}

// limitsBase is a valid scenario without classes, fleet or service; the cases add them.
const limitsBase = "name = \"t\"\nsummary = \"s\"\nduration = \"60s\"\n"

// service is a valid [service] table with the given extra lines.
func service(extra string) string {
	return "[service]\nworkers = 2\nservice_time = \"100ms\"\n" + extra
}

// TestParseLimits asserts that each limit tightened for the cost of a run (classes, clients,
// users, layers, workers, queue_limit, the peak arrival rate) accepts its largest value and
// refuses the next one with a message naming the field and the range, the line included.
func TestParseLimits(t *testing.T) {
	tests := []struct {
		name     string
		ok, over string // the file at the limit, and past it
		want     string // the message for over
	}{
		{
			name: "classes",
			ok:   limitsBase + classes(64, "1") + service(""),
			over: limitsBase + classes(65, "1") + service(""),
			want: "t.toml:196: class[65]: at most 64 [[class]] entries, got 65",
		},
		{
			name: "clients",
			ok:   limitsBase + "[fleet]\nclients = 1000\n" + classes(1, "1") + service(""),
			over: limitsBase + "[fleet]\nclients = 1001\n" + classes(1, "1") + service(""),
			want: "t.toml:5: fleet.clients: must be between 1 and 1000, got 1001",
		},
		{
			name: "closed-loop users",
			ok:   limitsBase + "[fleet]\nloop = \"closed\"\nusers = 10000\n" + classes(1, "1") + service(""),
			over: limitsBase + "[fleet]\nloop = \"closed\"\nusers = 10001\n" + classes(1, "1") + service(""),
			want: "t.toml:6: fleet.users: must be between 1 and 10000, got 10001",
		},
		{
			name: "layers",
			ok:   limitsBase + "[fleet]\nlayers = 3\n" + classes(1, "1") + service(""),
			over: limitsBase + "[fleet]\nlayers = 4\n" + classes(1, "1") + service(""),
			want: "t.toml:5: fleet.layers: must be between 1 and 3, got 4",
		},
		{
			name: "workers",
			ok:   limitsBase + classes(1, "1") + "[service]\nworkers = 100000\nservice_time = \"100ms\"\n",
			over: limitsBase + classes(1, "1") + "[service]\nworkers = 100001\nservice_time = \"100ms\"\n",
			want: "t.toml:8: service.workers: must be between 1 and 100000, got 100001",
		},
		{
			name: "queue_limit",
			ok:   limitsBase + classes(1, "1") + service("queue_limit = 1000000\n"),
			over: limitsBase + classes(1, "1") + service("queue_limit = 1000001\n"),
			want: "t.toml:10: service.queue_limit: must be between 0 and 1000000, got 1000001",
		},
		{
			name: "the rate of one class",
			ok:   limitsBase + classes(1, "100000") + service(""),
			over: limitsBase + classes(1, "100001") + service(""),
			want: "t.toml:6: class[1].rate: must be at most 100000 requests/s, got 100001",
		},
		{
			name: "the peak arrival rate of all classes",
			ok:   limitsBase + classes(10, "100000") + service(""),
			over: limitsBase + classes(11, "100000") + service(""),
			want: "t.toml:4: class: the peak arrival rate, 1.1e+06 requests/s (the class rates sum to 1.1e+06, times the largest load factor, 1), must be at most 1000000 requests/s",
		},
		{
			name: "the peak arrival rate at the load profile's largest factor",
			ok:   limitsBase + classes(1, "10000") + "[[load]]\nat = \"0s\"\nfactor = 1\n[[load]]\nat = \"30s\"\nfactor = 100\n" + service(""),
			over: limitsBase + classes(1, "10001") + "[[load]]\nat = \"0s\"\nfactor = 1\n[[load]]\nat = \"30s\"\nfactor = 100\n" + service(""),
			want: "t.toml:4: class: the peak arrival rate, 1.0001e+06 requests/s (the class rates sum to 10001, times the largest load factor, 100), must be at most 1000000 requests/s",
		},
		{
			name: "a closed loop's rates are shares, not rates",
			ok:   limitsBase + "[fleet]\nloop = \"closed\"\nusers = 10\n" + classes(64, "100000") + service(""),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse("t.toml", []byte(tt.ok))
			require.NoError(t, err, "at the limit")
			if tt.over == "" {
				return
			}
			_, err = scenarios.Parse("t.toml", []byte(tt.over))
			require.Error(t, err, "past the limit")
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
