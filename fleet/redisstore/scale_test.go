package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
)

// redisCPU returns the CPU seconds the redis-server has used (INFO cpu: used_cpu_sys plus
// used_cpu_user).
func redisCPU(b *testing.B, c *redis.Client) float64 {
	b.Helper()
	info, err := c.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	total := 0.0
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatal(err)
			}
			total += x
		}
	}
	return total
}

// redisMemory returns the bytes Redis uses (INFO memory: used_memory minus
// used_memory_startup): data, connections' buffers, scripts.
func redisMemory(b *testing.B, c *redis.Client) float64 {
	b.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	var used, startup float64
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch k {
		case "used_memory":
			used, _ = strconv.ParseFloat(v, 64)
		case "used_memory_startup":
			startup, _ = strconv.ParseFloat(v, 64)
		}
	}
	return used - startup
}

// ledger is what a run of the scale benchmark counts across its members: each sync's latency
// and error, and the tokens granted to and handed back by each member.
type ledger struct {
	mu        sync.Mutex
	latencies []time.Duration
	failed    int
	granted   []float64 // per member
	returned  float64
}

// countingStore records what each sync of a member granted and took back.
type countingStore struct {
	inner fleet.Store
	l     *ledger
	i     int
}

func (s countingStore) Sync(ctx context.Context, inst string, r *engine.FleetReport, v *engine.FleetView) error {
	err := s.inner.Sync(ctx, inst, r, v)
	if err == nil {
		s.l.mu.Lock()
		s.l.granted[s.i] += v.Granted
		s.l.returned += r.Return
		s.l.mu.Unlock()
	}
	return err
}

// BenchmarkFleetScale runs N members (N = 10, 100, 500; 500 also at a sync interval of 100 and
// 500 ms), each a process's engine on a connection of its own, against one real redis-server
// for 10 s of wall time, each syncing at its interval while its engine records 100 outcomes a
// second (a tenth of them failures) and asks for a retry after each failure, so that together
// they want more tokens than the fleet's bucket (500 tokens, refilled at up to 100 a second by
// successes) holds. It reports the syncs and the commands Redis ran per second, Redis's CPU
// (INFO cpu, in cores), the memory it took per 100 members (their connections included), the sync latency's p50 and p99 (ms), the
// failed syncs, the fairness of the lease (Jain's index of the tokens granted per member, 1 =
// equal) and the tokens granted net of those handed back over the bound (capacity + refill x
// time; <= 1: never over-granted). Each figure is the median of $FLEET_SCALE_RUNS runs (default
// 1); with $FLEET_SIZING_OUT set, each configuration appends its row of the sizing table of
// docs/live.md there (make fleet-sizing). Run it with -benchtime=1x.
func BenchmarkFleetScale(b *testing.B) {
	runs := 1
	if v, err := strconv.Atoi(os.Getenv("FLEET_SCALE_RUNS")); err == nil && v > 0 {
		runs = v
	}
	for _, c := range []struct {
		n        int
		interval time.Duration
	}{{10, fleet.DefaultInterval}, {100, fleet.DefaultInterval}, {500, fleet.DefaultInterval}, {500, 100 * time.Millisecond}, {500, 500 * time.Millisecond}} {
		b.Run(fmt.Sprintf("members=%d/interval=%s", c.n, c.interval), func(b *testing.B) {
			for b.Loop() {
				var rs []scaleResult
				load0 := loadAverage()
				for range runs {
					rs = append(rs, scaleRun(b, c.n, c.interval, 10*time.Second))
				}
				m := medianOf(rs)
				m.report(b)
				if out := os.Getenv("FLEET_SIZING_OUT"); out != "" {
					m.row(b, out, c.n, c.interval, runs, load0, loadAverage())
				}
			}
		})
	}
}

// scaleResult is what one run of BenchmarkFleetScale measured.
type scaleResult struct {
	syncs, cmds, cores, bytesPer100, p50, p99, failed, fairness, netOverBound float64
}

// medianOf returns each figure's median over rs.
func medianOf(rs []scaleResult) scaleResult {
	med := func(f func(scaleResult) float64) float64 {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	return scaleResult{
		syncs:        med(func(r scaleResult) float64 { return r.syncs }),
		cmds:         med(func(r scaleResult) float64 { return r.cmds }),
		cores:        med(func(r scaleResult) float64 { return r.cores }),
		bytesPer100:  med(func(r scaleResult) float64 { return r.bytesPer100 }),
		p50:          med(func(r scaleResult) float64 { return r.p50 }),
		p99:          med(func(r scaleResult) float64 { return r.p99 }),
		failed:       med(func(r scaleResult) float64 { return r.failed }),
		fairness:     med(func(r scaleResult) float64 { return r.fairness }),
		netOverBound: med(func(r scaleResult) float64 { return r.netOverBound }),
	}
}

// report reports the figures as the benchmark's metrics.
func (r scaleResult) report(b *testing.B) {
	b.ReportMetric(r.syncs, "syncs/s")
	b.ReportMetric(r.cmds, "redis-cmds/s")
	b.ReportMetric(r.cores, "redis-cores")
	b.ReportMetric(r.bytesPer100, "redis-bytes/100members")
	b.ReportMetric(r.p50, "p50-ms")
	b.ReportMetric(r.p99, "p99-ms")
	b.ReportMetric(r.failed, "failed-syncs")
	b.ReportMetric(r.fairness, "lease-fairness")
	b.ReportMetric(r.netOverBound, "net-granted/bound")
}

// row appends the figures as a row of the sizing table to the file out (its header first when
// the file is new).
func (r scaleResult) row(b *testing.B, out string, n int, interval time.Duration, runs int, load0, load1 string) {
	_, err := os.Stat(out)
	f, ferr := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if ferr != nil {
		b.Fatal(ferr)
	}
	defer f.Close()
	if err != nil {
		fmt.Fprintln(f, "| members | interval | syncs/s | commands/s in Redis | Redis CPU (cores) | CPU per 100 members | memory per 100 members | sync p50 | sync p99 | failed syncs | lease fairness | granted / bound | load average |")
		fmt.Fprintln(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	}
	fmt.Fprintf(f, "| %d | %s | %.0f | %.0f | %.3f | %.3f | %.0f KB | %.2f ms | %.2f ms | %.0f | %.3f | %.2f | %s → %s |\n",
		n, interval, r.syncs, r.cmds, r.cores, r.cores/float64(n)*100, r.bytesPer100/1024, r.p50, r.p99, r.failed, r.fairness, r.netOverBound, load0, load1)
	_ = runs
}

// loadAverage returns the machine's 1-minute load average ("?" where it cannot be read).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// scaleRun is one run of BenchmarkFleetScale with n members syncing every interval for d.
func scaleRun(b *testing.B, n int, interval, d time.Duration) scaleResult {
	srv := startRedis(b)
	raw := redis.NewClient(&redis.Options{Addr: srv.addr()})
	defer raw.Close()
	budget := fleet.BudgetOf(engine.DefaultConfig())
	l := &ledger{granted: make([]float64, n)}
	mem0 := redisMemory(b, raw)
	var ms []*fleet.Member
	for i := range n {
		st := srv.open(b, "scale", fleet.Options{Budget: budget, Config: "cortex"})
		cfg := engine.DefaultConfig().Split(n)
		cfg.Seed = int64(i + 1)
		cfg.Fleet = engine.DefaultFleetConfig()
		cfg.Fleet.MaxAge = max(cfg.Fleet.MaxAge, interval*5/2)
		cfg.Fleet.Pool = engine.NewFleetPool()
		e, err := engine.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		m, err := fleet.NewMember([]*engine.Engine{e}, countingStore{inner: st, l: l, i: i},
			fleet.MemberConfig{Instance: fmt.Sprintf("pod-%d", i), Interval: interval, Timeout: interval})
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, m)
	}
	calls0 := commands(b, raw)
	cpu0 := redisCPU(b, raw)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	start := time.Now()
	for i, m := range ms {
		wg.Go(func() {
			delay := interval * time.Duration(i) / time.Duration(n)
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			tick := time.NewTicker(interval)
			defer tick.Stop()
			e := m.Engine()
			per := int(100 * interval / time.Second)
			for k := 0; ; k++ {
				for j := range per { // 100 outcomes a second
					if (k+j)%10 == 0 {
						e.RecordFailure(40 * time.Millisecond)
						e.ShouldRetry(5+j%6, 0, true)
					} else {
						e.RecordSuccess(20 * time.Millisecond)
					}
				}
				t0 := time.Now()
				err := m.Sync(ctx)
				took := time.Since(t0)
				l.mu.Lock()
				if err != nil && ctx.Err() == nil {
					l.failed++
				} else if err == nil {
					l.latencies = append(l.latencies, took)
				}
				l.mu.Unlock()
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		})
	}
	time.Sleep(d)
	cancel()
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	calls := commands(b, raw) - calls0
	cpu := redisCPU(b, raw) - cpu0
	mem := redisMemory(b, raw) - mem0
	for _, m := range ms {
		_ = m.Leave(context.Background())
	}
	slices.Sort(l.latencies)
	q := func(p float64) float64 {
		if len(l.latencies) == 0 {
			return 0
		}
		return float64(l.latencies[int(p*float64(len(l.latencies)-1))]) / 1e6
	}
	var sum, sq float64
	total := 0.0
	for _, g := range l.granted {
		sum += g
		sq += g * g
		total += g
	}
	jain := 0.0
	if sq > 0 {
		jain = sum * sum / (float64(n) * sq)
	}
	bound := budget.Capacity + budget.RefillRate*elapsed
	return scaleResult{
		syncs: float64(len(l.latencies)) / elapsed, cmds: float64(calls) / elapsed, cores: cpu / elapsed,
		bytesPer100: mem / float64(n) * 100, p50: q(0.50), p99: q(0.99), failed: float64(l.failed),
		fairness: jain, netOverBound: (total - l.returned) / bound,
	}
}
