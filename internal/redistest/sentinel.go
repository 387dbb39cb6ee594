package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// MasterName is the name the Sentinels of StartSentinel watch their master under.
const MasterName = "cortex"

// Sentinel is a master, its replica and two Sentinels watching them (redis-sentinel), all on
// loopback, that a test started. Not safe for concurrent use.
type Sentinel struct {
	Servers   [2]*Server // the master at first, and its replica
	sentinels []*sentinelProc
	master    int // index in Servers of the current master
}

// sentinelProc is one redis-sentinel process.
type sentinelProc struct {
	port int
	cmd  *exec.Cmd
	done chan struct{}
}

// StartSentinel starts a master, a replica of it and two Sentinels that watch it (quorum 1, a
// master considered down after 5 s, so that a stall of a second or two is not a failover), waits
// until both Sentinels know the replica, and stops everything when the test ends.
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	bin := NeedBin(t, "redis-sentinel")
	s := &Sentinel{}
	s.Servers[0] = Start(t)
	s.Servers[1] = StartWith(t, Options{Args: []string{"--replicaof", "127.0.0.1", strconv.Itoa(s.Servers[0].port)}})
	s.waitReplica(t)
	for range 2 {
		p := &sentinelProc{port: freePort(t)}
		dir := t.TempDir()
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndaemonize no\nlogfile \"\"\ndir %s\nsentinel resolve-hostnames no\n"+
			"sentinel monitor %s 127.0.0.1 %d 1\nsentinel down-after-milliseconds %s 5000\nsentinel failover-timeout %s 10000\n",
			p.port, dir, MasterName, s.Servers[0].port, MasterName, MasterName)
		require.NoError(t, os.WriteFile(conf, []byte(text), 0o600))
		p.cmd = exec.Command(bin, conf)
		p.cmd.Dir = dir
		require.NoError(t, p.cmd.Start())
		p.done = make(chan struct{})
		go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(p.cmd, p.done)
		s.sentinels = append(s.sentinels, p)
		t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.done })
	}
	for _, p := range s.sentinels {
		s.waitSentinel(t, p, func(c *redis.SentinelClient) bool {
			rs, err := c.Replicas(context.Background(), MasterName).Result()
			return err == nil && len(rs) > 0
		}, "know the replica")
	}
	return s
}

// Addrs returns the Sentinels' addresses.
func (s *Sentinel) Addrs() []string {
	var as []string
	for _, p := range s.sentinels {
		as = append(as, net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)))
	}
	return as
}

// URL returns the fleet's URL for the watched master: redis://SENTINEL1?addr=SENTINEL2&master=cortex.
func (s *Sentinel) URL() string {
	as := s.Addrs()
	return "redis://" + as[0] + "?addr=" + strings.Join(as[1:], "&addr=") + "&master=" + MasterName
}

// Master returns the server that is the master now.
func (s *Sentinel) Master() *Server { return s.Servers[s.master] }

// Failover makes the Sentinels promote the replica (SENTINEL FAILOVER) and waits until both
// name it as the master; the old master becomes its replica.
func (s *Sentinel) Failover(t testing.TB) {
	t.Helper()
	c := redis.NewSentinelClient(&redis.Options{Addr: s.Addrs()[0], MaxRetries: -1})
	defer c.Close()
	require.NoError(t, c.Failover(context.Background(), MasterName).Err())
	s.master = 1 - s.master
	want := s.Master().Addr()
	for _, p := range s.sentinels {
		s.waitSentinel(t, p, func(c *redis.SentinelClient) bool {
			addr, err := c.GetMasterAddrByName(context.Background(), MasterName).Result()
			return err == nil && net.JoinHostPort(addr[0], addr[1]) == want
		}, "name the new master")
	}
}

// Stop kills the master and the replica (the Sentinels go on watching).
func (s *Sentinel) Stop() {
	for _, srv := range s.Servers {
		srv.Stop()
	}
}

// Restart runs the master (empty) and its replica again on their ports and waits until the
// replica is in sync.
func (s *Sentinel) Restart(t testing.TB) {
	t.Helper()
	m, r := s.Servers[s.master], s.Servers[1-s.master]
	m.opts.Args = nil
	m.Restart(t)
	r.opts.Args = []string{"--replicaof", "127.0.0.1", strconv.Itoa(m.port)}
	r.Restart(t)
	s.waitReplica(t)
}

// waitReplica waits (at most 10 s) until the replica's link to the master is up.
func (s *Sentinel) waitReplica(t testing.TB) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Servers[1-s.master].Addr(), MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		info, err := c.Info(context.Background(), "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica is not in sync after 10 s: %v %s", err, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitSentinel waits (at most 20 s) until ok says yes of Sentinel p.
func (s *Sentinel) waitSentinel(t testing.TB, p *sentinelProc, ok func(*redis.SentinelClient) bool, what string) {
	t.Helper()
	c := redis.NewSentinelClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)), MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(20 * time.Second); !ok(c); {
		if time.Now().After(deadline) {
			t.Fatalf("Sentinel on port %d did not %s within 20 s", p.port, what)
		}
		select {
		case <-p.done:
			t.Fatalf("Sentinel on port %d exited", p.port)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
