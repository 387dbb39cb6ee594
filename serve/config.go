package serve

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui"
)

// Config configures a Server. Build it with DefaultConfig and check it with Validate (New
// does); every field is documented with its default.
type Config struct {
	// Addr is the address to listen on, host:port (default 127.0.0.1:2222; port 0 takes a free
	// one). An address other machines can reach needs AuthorizedKeys or Open (New refuses it
	// otherwise).
	Addr string
	// Open accepts any key on an address other machines can reach (default false). On
	// loopback any key is accepted anyway unless AuthorizedKeys is set.
	Open bool
	// AuthorizedKeys is the path of an authorized_keys file (OpenSSH's format): only its keys,
	// and the teacher's, may connect. "" (the default) accepts any key, on loopback or with Open.
	AuthorizedKeys string
	// Class serves one class run that the teacher drives and every student follows (default
	// false: every session has its own run). It needs TeacherKey.
	Class bool
	// TeacherKey is the path of the teacher's public key (one line of authorized_keys, or a
	// .pub file): the session that connects with it drives the class run.
	TeacherKey string
	// Lesson is the built-in lesson the teacher walks the class through, step by step ("" for
	// none: the teacher picks a scenario or a lesson).
	Lesson string
	// MaxSessions is the most sessions at once (default 60); the next is told the server is full.
	MaxSessions int
	// Idle closes a session after this long without a key or a resize from its terminal
	// (default 30 minutes). A student following the class run is not idle while the teacher
	// is not.
	Idle time.Duration
	// DataDir holds the host key (generated once, 0600) and the class's progress (default
	// <user config dir>/cortex-tui/serve).
	DataDir string
	// Scenarios are scenarios offered beside the built-in ones (the operator's --scenarios
	// DIR, read through the bounded loader and within the cost model's budget: LoadScenarios).
	Scenarios []scenarios.Scenario
	// Factory builds every run's source; required (sim.NewSource).
	Factory tui.SourceFactory
	// Log receives one line per session and per refused connection (default os.Stderr).
	Log io.Writer
	// Now is the clock of the progress and the log (default time.Now).
	Now func() time.Time
}

// The defaults of a Config.
const (
	DefaultAddr        = "127.0.0.1:2222"
	DefaultMaxSessions = 60
	DefaultIdle        = 30 * time.Minute
)

// Limits a Config is held to.
const (
	maxMaxSessions = 1000
	minIdle        = 100 * time.Millisecond
)

// DefaultConfig returns the defaults: loopback, 60 sessions, 30 minutes idle, the data in the
// user's configuration directory, the log on stderr. Factory is left for the caller to set.
func DefaultConfig() Config {
	return Config{Addr: DefaultAddr, MaxSessions: DefaultMaxSessions, Idle: DefaultIdle, Log: os.Stderr, Now: time.Now}
}

// DefaultDataDir is <user config dir>/cortex-tui/serve.
func DefaultDataDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration directory to keep the host key and the progress in (give --data DIR): %w", err)
	}
	return filepath.Join(dir, "cortex-tui", "serve"), nil
}

// Validate checks every field and fills the unset ones that have a default; the error names
// the field (as its flag) and what is wrong. It does not look at the network: New checks
// that an exposed address has keys.
func (c *Config) Validate() error {
	var errs []error
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("--addr %q: want host:port, e.g. %s", c.Addr, DefaultAddr))
	}
	switch {
	case c.MaxSessions == 0:
		c.MaxSessions = DefaultMaxSessions
	case c.MaxSessions < 0 || c.MaxSessions > maxMaxSessions:
		errs = append(errs, fmt.Errorf("--max-sessions %d: want 1 to %d", c.MaxSessions, maxMaxSessions))
	}
	switch {
	case c.Idle == 0:
		c.Idle = DefaultIdle
	case c.Idle < minIdle:
		errs = append(errs, fmt.Errorf("--idle %s: want at least %s", c.Idle, minIdle))
	}
	if c.Class && c.TeacherKey == "" {
		errs = append(errs, errors.New("--class needs --teacher-key FILE: the key of the session that drives the class run"))
	}
	if !c.Class && c.TeacherKey != "" {
		errs = append(errs, errors.New("--teacher-key is for --class: without a class every session drives its own run"))
	}
	if c.Lesson != "" {
		if !c.Class {
			errs = append(errs, errors.New("--lesson is for --class: the teacher walks the class through it"))
		} else if _, err := scenarios.LookupLesson(c.Lesson); err != nil {
			errs = append(errs, fmt.Errorf("--lesson: %w", err))
		}
	}
	if c.DataDir == "" {
		dir, err := DefaultDataDir()
		if err != nil {
			errs = append(errs, err)
		}
		c.DataDir = dir
	}
	if c.Factory == nil {
		errs = append(errs, errors.New("serve: Config.Factory is nil"))
	}
	if c.Log == nil {
		c.Log = os.Stderr
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return errors.Join(errs...)
}
