package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/spf13/cobra"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/internal/netaddr"
	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/serve"
	"github.com/cortex-tui/cortex-tui/sim"
)

func init() { subcommands = append(subcommands, newServeCmd) }

// serveOptions are the flags of `cortex-tui serve` beyond serve.Config's.
type serveOptions struct {
	scenarios string // --scenarios DIR
	progress  bool   // --progress: print the class's progress and exit
}

// maxScenarioFiles is the most scenario files serve --scenarios reads from its directory.
const maxScenarioFiles = 100

// serveShutdown is how long serve waits, once stopped, for its sessions to give their
// terminals back before it closes every connection (within Execute's stopGrace).
const serveShutdown = 1500 * time.Millisecond

func newServeCmd(io streams) *cobra.Command {
	cfg := serve.DefaultConfig()
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the dashboard over SSH: a class connects with ssh, nothing installed",
		Long: `serve is an SSH server in which every session gets the dashboard at its own terminal's
size and colours, with its own simulator: a student types ssh -p 2222 HOST. With --class, one
class run is driven by the teacher's session (the key in --teacher-key): its scenario, speed,
pauses, faults, weights, classes and strategy reach every student's view of the same run;
students keep their own inspector, help and layout, fork the run into a copy of their own (F)
and rejoin it (F again), and the teacher's screen lists who is connected and following.
--lesson NAME walks the class through a lesson, the teacher moving to the next step (N).

It listens on loopback unless --addr says otherwise, and an address other machines can reach
needs --authorized-keys (the keys of the class) or --open (any key). The host key is generated
once in the data directory; lessons completed are kept there per SSH key (--progress prints
them). Sessions run no command and forward nothing; they open the built-in scenarios and
lessons, and the files of --scenarios DIR.`,
		Example: `  cortex-tui serve                                        # on 127.0.0.1:2222
  cortex-tui serve --addr 0.0.0.0:2222 --authorized-keys class_keys
  cortex-tui serve --addr 0.0.0.0:2222 --open --class --teacher-key ~/.ssh/id_ed25519.pub --lesson retry-storm
  cortex-tui serve --progress`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("serve takes no arguments, got %q", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.progress {
				return printProgress(io, cfg.DataDir)
			}
			return runServe(cmd.Context(), io, cfg, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Addr, "addr", serve.DefaultAddr, "address to listen on, host:port (port 0: a free port); loopback unless --authorized-keys or --open")
	f.BoolVar(&cfg.Open, "open", false, "let any SSH key in on an address other machines can reach")
	f.StringVar(&cfg.AuthorizedKeys, "authorized-keys", "", "authorized_keys file: only its keys (and the teacher's) may connect")
	f.BoolVar(&cfg.Class, "class", false, "one class run, driven by the teacher's session and followed by every other")
	f.StringVar(&cfg.TeacherKey, "teacher-key", "", "the teacher's public key (a .pub file); required with --class")
	f.StringVar(&cfg.Lesson, "lesson", "", "with --class: the built-in lesson the teacher walks the class through")
	f.IntVar(&cfg.MaxSessions, "max-sessions", serve.DefaultMaxSessions, "most sessions at once")
	f.DurationVar(&cfg.Idle, "idle", serve.DefaultIdle, "close a session after this long without a key")
	f.StringVar(&cfg.DataDir, "data", "", "directory of the host key and the progress (default <user config dir>/cortex-tui/serve)")
	f.StringVar(&o.scenarios, "scenarios", "", "directory of scenario files offered beside the built-in ones")
	f.BoolVar(&o.progress, "progress", false, "print the lessons each SSH user completed, and exit")
	return cmd
}

// runServe starts the server and serves until ctx is done (a stop signal), then gives every
// session its terminal back and stops.
func runServe(ctx context.Context, io streams, cfg serve.Config, o serveOptions) error {
	cfg.Factory, cfg.Log = sim.NewSource, io.err
	if o.scenarios != "" {
		scns, err := loadScenarioDir(o.scenarios)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		cfg.Scenarios = scns
	}
	srv, err := serve.New(ctx, cfg)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", cfg.Addr, err)
	}
	announce(io, srv, cfg, ln.Addr().String())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdown)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := <-done; err != nil && !errors.Is(err, ssh.ErrServerClosed) {
		return err
	}
	return context.Cause(ctx)
}

// announce says where the server listens, its host key's fingerprint (what a student's ssh
// asks them to check the first time) and the commands to connect.
func announce(io streams, srv *serve.Server, cfg serve.Config, addr string) {
	key, created := srv.HostKey()
	note := ""
	if created {
		note = ", generated now"
	}
	addrs, covers := netaddr.Listening(addr)
	where := addr
	if covers != "" {
		where += " (" + covers + ")"
	}
	fmt.Fprintf(io.err, "cortex-tui serve: listening on %s, host key %s%s\n", where, gossh.FingerprintSHA256(key), note)
	mode := "every session has its own run"
	if cfg.Class {
		mode = "class mode: the teacher's session drives, the others follow"
		if cfg.Lesson != "" {
			mode += ", lesson " + cfg.Lesson
		}
	}
	fmt.Fprintf(io.err, "  %s; at most %d sessions, closed after %s without a key\n", mode, cfg.MaxSessions, cfg.Idle)
	for _, a := range addrs {
		host, port, _ := net.SplitHostPort(a)
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		fmt.Fprintf(io.err, "  connect: ssh -p %s %s\n", port, host)
	}
	if cfg.Class {
		fmt.Fprintf(io.err, "  the teacher connects with the private key of %s (ssh -i KEY ...)\n", cfg.TeacherKey)
	}
}

// loadScenarioDir reads every *.toml file of dir as a scenario through the bounded loader
// (scenarios.ParseFile), each within the cost model's budget with every strategy, and none
// named as a built-in scenario; the first problem is the error, naming its file.
func loadScenarioDir(dir string) ([]scenarios.Scenario, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--scenarios: %w", err)
	}
	var out []scenarios.Scenario
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
			continue
		}
		if len(out) == maxScenarioFiles {
			return nil, fmt.Errorf("--scenarios %s: more than %d scenario files", dir, maxScenarioFiles)
		}
		path := filepath.Join(dir, e.Name())
		scn, err := scenarios.ParseFile(path)
		if err != nil {
			return nil, fmt.Errorf("--scenarios: %w", err)
		}
		if _, err := scenarios.Lookup(scn.Name); err == nil || slices.ContainsFunc(out, func(s scenarios.Scenario) bool { return s.Name == scn.Name }) {
			return nil, fmt.Errorf("--scenarios: %s: name %q is taken already: give the scenario a name of its own", path, scn.Name)
		}
		if err := checkCost(path, scn, false); err != nil {
			return nil, fmt.Errorf("--scenarios: %w", err)
		}
		out = append(out, scn)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--scenarios %s: no scenario file (*.toml) in it", dir)
	}
	return out, nil
}

// printProgress prints the lessons every SSH user of the data directory completed: one row a
// user, one column a lesson (✓ completed), with the key's fingerprint and the last session.
func printProgress(io streams, dataDir string) error {
	if dataDir == "" {
		dir, err := serve.DefaultDataDir()
		if err != nil {
			return err
		}
		dataDir = dir
	}
	learners, err := serve.ReadProgress(dataDir)
	if err != nil {
		return err
	}
	if len(learners) == 0 {
		_, err := fmt.Fprintf(io.out, "no one has connected yet (progress is kept in %s)\n", dataDir)
		return err
	}
	lessons := scenarios.Lessons()
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "user\tkey")
	for i := range lessons {
		fmt.Fprintf(tw, "\t%d", i+1)
	}
	fmt.Fprint(tw, "\tdone\tlast seen\n")
	for _, l := range learners {
		fmt.Fprintf(tw, "%s\t%s", safetext.Line(l.Name), shortKey(l.Key))
		n := 0
		for _, ls := range lessons {
			mark := "·"
			if _, ok := l.Done[ls.Name]; ok {
				mark, n = "✓", n+1
			}
			fmt.Fprint(tw, "\t"+mark)
		}
		fmt.Fprintf(tw, "\t%d/%d\t%s\n", n, len(lessons), l.Seen.Local().Format("2006-01-02 15:04"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nlessons:")
	for i, ls := range lessons {
		fmt.Fprintf(&b, " %d %s", i+1, ls.Name)
		if i < len(lessons)-1 {
			b.WriteString(",")
		}
	}
	b.WriteString("\n")
	_, err = io.out.Write([]byte(b.String()))
	return err
}

// shortKey shortens a key fingerprint for a table: SHA256: and its first 12 characters.
func shortKey(fp string) string {
	if len(fp) > len("SHA256:")+12 {
		return fp[:len("SHA256:")+12] + "…"
	}
	return fp
}
