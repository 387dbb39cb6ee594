package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
)

// commandCalls returns the calls Redis counted for every command (INFO commandstats), the
// commands its scripts ran included, and those of EVALSHA and EVAL alone, with the
// microseconds Redis spent in those scripts.
func commandCalls(b *testing.B, c *redis.Client) (all, scripts int64, usec float64) {
	b.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
		if name == "cmdstat_info" {
			continue
		}
		all += n
		if name == "cmdstat_evalsha" || name == "cmdstat_eval" {
			scripts += n
			if _, u, ok := strings.Cut(rest, "usec="); ok {
				x, _ := strconv.ParseFloat(u[:strings.IndexByte(u, ',')], 64)
				usec += x
			}
		}
	}
	return all, scripts, usec
}

// BenchmarkSyncRedis measures one sync of a member with the Redis store on a local
// redis-server (five members publishing, each with a few latency bins per sync), and reports
// the commands a sync sends (client-cmds/sync: one EVALSHA) and the commands Redis runs for it
// (server-calls/sync, the script's own included), the time Redis spent in the script
// (redis-µs/sync, INFO commandstats) and the CPU time Redis used per sync, everything included
// (redis-cpu-µs/sync, INFO cpu). A member syncs every fleet.DefaultInterval
// (200 ms): five syncs a second per instance.
func BenchmarkSyncRedis(b *testing.B) {
	srv := startRedis(b)
	st := srv.open(b, "bench", fleet.Options{Budget: fleet.Budget{Capacity: 500, RefillRate: 100, RefillPerSuccess: 1}})
	var ms []*fleet.Member
	for i := range 5 {
		cfg := engine.DefaultConfig()
		cfg.Seed = int64(i + 1)
		cfg.Fleet = engine.DefaultFleetConfig()
		e, err := engine.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		m, err := fleet.NewMember([]*engine.Engine{e}, st, fleet.MemberConfig{Instance: fmt.Sprintf("i%d", i), Timeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, m)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.addr()})
	defer c.Close()
	all0, scripts0, usec0 := commandCalls(b, c)
	cpu0 := redisCPU(b, c)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; b.Loop(); i++ {
		m := ms[i%len(ms)]
		e := m.Engine()
		for j := range 20 { // 100 outcomes a second per instance at five syncs a second
			if j%5 == 0 {
				e.RecordFailure(300 * time.Millisecond)
			} else {
				e.RecordSuccess(time.Duration(20+j) * time.Millisecond)
			}
		}
		e.ShouldRetry(9, 0, true)
		if err := m.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.StopTimer()
	all1, scripts1, usec1 := commandCalls(b, c)
	cpu1 := redisCPU(b, c)
	b.ReportMetric(float64(scripts1-scripts0)/float64(n), "client-cmds/sync")
	b.ReportMetric(float64(all1-all0)/float64(n), "server-calls/sync")
	b.ReportMetric(float64(scripts1-scripts0)/float64(n)*float64(time.Second/fleet.DefaultInterval), "client-cmds/s/instance")
	b.ReportMetric((usec1-usec0)/float64(n), "redis-µs/sync")
	b.ReportMetric((cpu1-cpu0)*1e6/float64(n), "redis-cpu-µs/sync")
}

// BenchmarkDecisionWhileRedisStalls measures ShouldRetry on a wall-clock engine whose member
// syncs every 10 ms with a Redis that is healthy, or that a second client keeps asleep
// (DEBUG SLEEP 0.2, again and again): every sync then waits for its 20 ms timeout and fails,
// and the engine runs on its local view. The decision costs the same either way.
func BenchmarkDecisionWhileRedisStalls(b *testing.B) {
	for _, stalled := range []bool{false, true} {
		b.Run(fmt.Sprintf("stalled=%v", stalled), func(b *testing.B) {
			srv := startRedis(b)
			st := srv.open(b, "stall", fleet.Options{Budget: fleet.Budget{Capacity: 1 << 40, RefillRate: 1 << 30}})
			cfg := engine.DefaultConfig()
			cfg.Seed = 7
			cfg.TokenBucketCapacity = 1 << 40
			cfg.Fleet = engine.DefaultFleetConfig()
			e, err := engine.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			m, err := fleet.NewMember([]*engine.Engine{e}, st, fleet.MemberConfig{Instance: "i", Interval: 10 * time.Millisecond, Timeout: 20 * time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var done []chan struct{}
			goRun := func(f func()) {
				ch := make(chan struct{})
				done = append(done, ch)
				go func() { defer close(ch); f() }()
			}
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			goRun(func() { m.Run(ctx, tick.C) })
			if stalled {
				c := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: -1})
				defer c.Close()
				goRun(func() {
					for ctx.Err() == nil {
						_ = c.Do(ctx, "DEBUG", "SLEEP", "0.2").Err()
					}
				})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if i%8 == 0 {
					e.RecordSuccess(20 * time.Millisecond)
				}
				e.ShouldRetry(i%11, i%3, true)
			}
			b.StopTimer()
			cancel()
			for _, ch := range done {
				<-ch
			}
			s := m.Status()
			b.ReportMetric(float64(s.Failures), "failed-syncs")
			b.ReportMetric(float64(s.Syncs), "syncs")
		})
	}
}
