package redistest

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// NeedBin returns the path of a Redis program (redis-cli, redis-sentinel), or skips the test
// when it is missing; under CI=true it fails instead.
func NeedBin(t testing.TB, name string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		msg := name + " not found (install it with `apt-get install -y redis-server redis-tools redis-sentinel`): this test needs it"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// Cluster is a Redis Cluster of three masters (no replicas) a test started on loopback:
// redis-server --cluster-enabled yes, joined by redis-cli --cluster create. Not safe for
// concurrent use.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts a 3-master Redis Cluster on free loopback ports (each with its cluster
// bus on a free port too), waits until every node says cluster_state:ok, and stops it when the
// test ends.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	cli := NeedBin(t, "redis-cli")
	c := &Cluster{}
	for range 3 {
		bus := freePort(t)
		c.Nodes = append(c.Nodes, StartWith(t, Options{Args: []string{
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "5000", "--cluster-port", strconv.Itoa(bus)}}))
	}
	args := []string{"--cluster", "create"}
	for _, n := range c.Nodes {
		args = append(args, n.Addr())
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	out, err := exec.Command(cli, args...).CombinedOutput()
	require.NoError(t, err, "redis-cli --cluster create: %s", out)
	c.waitOK(t)
	return c
}

// Addrs returns the nodes' addresses: the seeds a cluster client starts from.
func (c *Cluster) Addrs() []string {
	var as []string
	for _, n := range c.Nodes {
		as = append(as, n.Addr())
	}
	return as
}

// URL returns the cluster's URL for the fleet: redis://FIRST?addr=SECOND&addr=THIRD.
func (c *Cluster) URL() string {
	as := c.Addrs()
	return "redis://" + as[0] + "?addr=" + strings.Join(as[1:], "&addr=")
}

// waitOK waits until every node reports cluster_state:ok (at most 20 s).
func (c *Cluster) waitOK(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, n := range c.Nodes {
		cl := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1})
		for {
			info, err := cl.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				_ = cl.Close()
				t.Fatalf("the cluster is not ok after 20 s: %v %s", err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = cl.Close()
	}
}

// Stop kills every node.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		n.Stop()
	}
}

// Restart runs every node again, empty of data but with its cluster configuration (its
// nodes.conf), and waits until the cluster is ok.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	for _, n := range c.Nodes {
		n.Restart(t)
	}
	c.waitOK(t)
}

// Stall makes every node hang for d at once (Server.Stall) and returns a function that waits
// until they all answer again.
func (c *Cluster) Stall(t testing.TB, d time.Duration) (wait func()) {
	t.Helper()
	var waits []func()
	for _, n := range c.Nodes {
		waits = append(waits, n.Stall(t, d))
	}
	return func() {
		for _, w := range waits {
			w()
		}
	}
}

// Stall makes the server hang for d, and returns once it hangs, with a function that waits
// until it answers again. It sends CLIENT PAUSE d ALL, whose answer says that the pause has
// begun: from then on the server runs no client's command until d has passed (a new connection
// is still accepted, as a hung server's kernel accepts it), whatever the machine's load, where
// a sleep (DEBUG SLEEP) is only seen to have begun when a PING times out, which a slow machine
// also does.
func (s *Server) Stall(t testing.TB, d time.Duration) (wait func()) {
	t.Helper()
	c := s.client(patience)
	defer c.Close()
	require.NoError(t, c.Do(context.Background(), "CLIENT", "PAUSE", d.Milliseconds(), "ALL").Err(), "CLIENT PAUSE on port %d", s.port)
	return func() {
		w := s.client(d + patience)
		defer w.Close()
		require.NoError(t, w.Ping(context.Background()).Err(), "redis-server on port %d after its pause", s.port)
	}
}
