package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/sim"
)

// The benchmarks' server runs in a process of its own (this test binary, started again with
// benchChildEnv set), so that its memory and CPU are measured apart from the clients'.
const (
	benchChildEnv   = "CORTEX_SERVE_BENCH_CHILD"      // "class:TEACHER_KEY_FILE" or "own"
	benchDataEnv    = "CORTEX_SERVE_BENCH_DATA"       // the server's data directory
	benchSessionEnv = "CORTEX_SERVE_BENCH_SESSIONS"   // sessions to open (default 60)
	benchProfileEnv = "CORTEX_SERVE_BENCH_CPUPROFILE" // a file for the server's CPU profile
)

// benchChild serves until its standard input closes: it prints the address it listens on and
// its host key, one line each, then answers the benchmark's commands on its standard input
// (benchCommand).
func benchChild() int {
	cfg := DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.Factory, cfg.Log = "127.0.0.1:0", os.Getenv(benchDataEnv), sim.NewSource, io.Discard
	cfg.MaxSessions = 200
	if key, ok := strings.CutPrefix(os.Getenv(benchChildEnv), "class:"); ok {
		cfg.Class, cfg.TeacherKey = true, key
	}
	srv, err := New(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	hk, _ := srv.HostKey()
	fmt.Printf("%s\n%s", ln.Addr(), gossh.MarshalAuthorizedKey(hk))
	go func() { _ = srv.Serve(ln) }()
	var profile *os.File
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd, arg, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case "counts":
			fmt.Println(srv.benchCounts())
		case "profile":
			if f, err := os.Create(arg); err == nil && pprof.StartCPUProfile(f) == nil {
				profile = f
			}
		case "unprofile":
			if profile != nil {
				pprof.StopCPUProfile()
				_ = profile.Close()
				profile = nil
			}
		}
	}
	if profile != nil {
		pprof.StopCPUProfile()
		_ = profile.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	return 0
}

// benchCounts is what the benchmark's server has done so far, on one line: the ticks the
// class run stepped, and the frames the teacher's dashboard and the students' drew.
func (s *Server) benchCounts() string {
	ticks := 0
	if s.class != nil {
		s.class.mu.Lock()
		if r := s.class.run; r != nil {
			r.mu.Lock()
			ticks = r.base + len(r.snaps)
			r.mu.Unlock()
		}
		s.class.mu.Unlock()
	}
	var teacher, students int64
	s.mu.Lock()
	for _, st := range s.sessions {
		st.mu.Lock()
		m := st.model
		st.mu.Unlock()
		switch {
		case m == nil:
		case st.role == "teacher":
			teacher += m.Frames()
		default:
			students += m.Frames()
		}
	}
	s.mu.Unlock()
	return fmt.Sprintf("%d %d %d", ticks, teacher, students)
}

// counts are benchCounts as the benchmark reads them.
type counts struct{ ticks, teacherFrames, studentFrames int64 }

// benchServer is the benchmark's server process.
type benchServer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	addr  string
	hk    gossh.PublicKey
}

// counts asks the server process for its counts.
func (bs *benchServer) counts(b *testing.B) counts {
	_, err := io.WriteString(bs.stdin, "counts\n")
	require.NoError(b, err)
	line, err := bs.out.ReadString('\n')
	require.NoError(b, err)
	var c counts
	_, err = fmt.Sscan(line, &c.ticks, &c.teacherFrames, &c.studentFrames)
	require.NoError(b, err)
	return c
}

// profile starts (path) or stops ("") the server process's CPU profile.
func (bs *benchServer) profile(b *testing.B, path string) {
	cmd := "unprofile\n"
	if path != "" {
		cmd = "profile " + path + "\n"
	}
	_, err := io.WriteString(bs.stdin, cmd)
	require.NoError(b, err)
}

// startBenchServer starts the server process; mode is benchChildEnv's value.
func startBenchServer(b *testing.B, mode string) *benchServer {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), benchChildEnv+"="+mode, benchDataEnv+"="+b.TempDir())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(b, err)
	out, err := cmd.StdoutPipe()
	require.NoError(b, err)
	require.NoError(b, cmd.Start())
	r := bufio.NewReader(out)
	addr, err := r.ReadString('\n')
	require.NoError(b, err)
	line, err := r.ReadString('\n')
	require.NoError(b, err)
	hk, _, _, _, err := gossh.ParseAuthorizedKey([]byte(line))
	require.NoError(b, err)
	bs := &benchServer{cmd: cmd, stdin: stdin, out: r, addr: strings.TrimSpace(addr), hk: hk}
	b.Cleanup(func() {
		_ = bs.stdin.Close()
		_ = cmd.Wait()
	})
	return bs
}

// usage is what the server process has used so far: its resident memory and CPU time.
type usage struct {
	rss int64         // bytes
	cpu time.Duration // user + system
}

// measure reads the server process's usage from /proc.
func (bs *benchServer) measure(b *testing.B) usage {
	pid := bs.cmd.Process.Pid
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(b, err)
	var u usage
	for l := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			require.NoError(b, err)
			u.rss = kb << 10
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(b, err)
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, err := strconv.ParseInt(fields[11], 10, 64) // fields 14 and 15 of stat(5)
	require.NoError(b, err)
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	require.NoError(b, err)
	u.cpu = time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
	return u
}

// cpuOver returns the share of a core the server process used over the next d.
func (bs *benchServer) cpuOver(b *testing.B, d time.Duration) float64 {
	start, t0 := bs.measure(b).cpu, time.Now()
	time.Sleep(d)
	return float64(bs.measure(b).cpu-start) / float64(time.Since(t0))
}

// connect opens a session for u on the benchmark's server.
func (bs *benchServer) connect(b *testing.B, u *user, w, h int) *terminal {
	client, err := u.dialAddr(bs.addr, bs.hk)
	require.NoError(b, err)
	tm, err := openTerminal(b, client, w, h, termOptions{})
	require.NoError(b, err)
	return tm
}

// BenchmarkClass measures a class: a teacher running black-friday at x1 and 60 students
// following it (CORTEX_SERVE_BENCH_SESSIONS changes the count), the server in a process of its
// own. It reports the server's memory and CPU per following student (what the class adds to
// the teacher's session alone) and the teacher's key to frame: + pressed until the header
// shows x2, then - back to x1, b.N times each.
//
//	go test -run '^$' -bench Class -benchtime 20x ./serve/
func BenchmarkClass(b *testing.B) { benchSessions(b, true) }

// BenchmarkSessions measures 60 sessions each with a run of its own (black-friday at x1), as
// BenchmarkClass does: the memory and CPU per session, and the key to frame of one of them.
//
//	go test -run '^$' -bench Sessions -benchtime 20x ./serve/
func BenchmarkSessions(b *testing.B) { benchSessions(b, false) }

func benchSessions(b *testing.B, class bool) {
	n := 60
	if v := os.Getenv(benchSessionEnv); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(b, err)
	}
	teacher := newUser(b, "teacher")
	mode := "own"
	if class {
		keyFile := b.TempDir() + "/teacher.pub"
		require.NoError(b, os.WriteFile(keyFile, gossh.MarshalAuthorizedKey(teacher.signer.PublicKey()), 0o600))
		mode = "class:" + keyFile
	}
	bs := startBenchServer(b, mode)
	open := func(tm *terminal) { // the picker's first entry: black-friday at x1
		tm.waitText(180*time.Second, "Scenarios")
		tm.press("enter")
		tm.waitFor("the run", 180*time.Second, func(s string) bool { // a slowed header drops words
			first, _, _ := strings.Cut(s, "\n")
			return strings.Contains(first, "black-friday │ t ")
		})
	}
	var driver *terminal // the session whose keys are timed
	if class {
		driver = bs.connect(b, teacher, 140, 40)
		open(driver)
	}
	time.Sleep(2 * time.Second) // the first frames' allocations settle
	base := bs.measure(b)
	baseCPU := bs.cpuOver(b, 5*time.Second)

	users := make([]*user, n)
	tms := make([]*terminal, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8) // handshakes at once
	for i := range n {
		users[i] = newUser(b, fmt.Sprintf("student-%02d", i))
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			tms[i] = bs.connect(b, users[i], 100, 30)
			if class {
				tms[i].waitText(120*time.Second, "following")
			} else {
				open(tms[i])
			}
		})
	}
	wg.Wait()
	if driver == nil {
		driver = tms[0]
	}
	time.Sleep(3 * time.Second)
	if path := os.Getenv(benchProfileEnv); path != "" { // the profile of the window measured
		bs.profile(b, path)
	}
	c0, t0 := bs.counts(b), time.Now()
	cpu := bs.cpuOver(b, 10*time.Second)
	c1, window := bs.counts(b), time.Since(t0).Seconds()
	bs.profile(b, "")
	after := bs.measure(b)

	header := func(want string) func(string) bool {
		return func(s string) bool {
			first, _, _ := strings.Cut(s, "\n")
			return strings.Contains(first, want)
		}
	}
	var total, worst time.Duration
	b.ResetTimer()
	for range b.N {
		for _, k := range [][2]string{{"+", " x2 "}, {"-", " x1 "}} {
			t0 := time.Now()
			driver.press(k[0])
			driver.waitFor("the speed "+k[1], 30*time.Second, header(k[1]))
			d := time.Since(t0)
			total += d
			worst = max(worst, d)
		}
	}
	b.StopTimer()
	mb := func(v int64) float64 { return float64(v) / (1 << 20) }
	b.ReportMetric(mb(after.rss-base.rss)/float64(n), "MB/session")
	b.ReportMetric((cpu-baseCPU)*100/float64(n), "%core/session")
	b.ReportMetric(mb(after.rss), "MB-server")
	b.ReportMetric(cpu*100, "%core-server")
	b.ReportMetric(float64(total.Microseconds())/1000/float64(2*b.N), "ms/key")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms/key")
	// In the window measured: how often the class run stepped, and how often a session drew.
	b.ReportMetric(float64(c1.studentFrames-c0.studentFrames)/window/float64(n), "frames/s/session")
	if class {
		b.ReportMetric(float64(c1.ticks-c0.ticks)/window, "snaps/s")
		b.ReportMetric(float64(c1.teacherFrames-c0.teacherFrames)/window, "frames/s/teacher")
	}
	b.ReportMetric(0, "ns/op")
	for _, tm := range tms {
		tm.close()
	}
	if class {
		driver.close()
	}
}
