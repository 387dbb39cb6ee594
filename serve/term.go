package serve

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
)

// Bounds of what a client sends that the server keeps: the environment it passes (ssh -o
// SendEnv), and the texts it shows or logs.
const (
	maxEnv      = 64      // variables kept from a session's environment requests
	maxEnvBytes = 4 << 10 // the longest variable kept, name and value
	maxNameW    = 24      // cells of a user name on screen and in the log
	maxTermW    = 32      // cells of a terminal type in the log
)

// environ is a session's environment as termenv reads it: the variables the client sent, then
// TERM from its PTY request.
type environ []string

// Environ implements termenv.Environ.
func (e environ) Environ() []string { return e }

// Getenv implements termenv.Environ: the last value of k (the PTY's TERM wins).
func (e environ) Getenv(k string) string {
	v := ""
	for _, kv := range e {
		if val, ok := strings.CutPrefix(kv, k+"="); ok {
			v = val
		}
	}
	return v
}

// sessionEnviron is the environment of sess: what the client sent (at most maxEnv variables
// were accepted, see filterRequests) and its terminal type.
func sessionEnviron(sess ssh.Session) environ {
	pty, _, _ := sess.Pty()
	return append(environ(sess.Environ()), "TERM="+pty.Term)
}

// sessionRenderer returns the lipgloss renderer of sess's terminal: its colour profile from
// the session's TERM, COLORTERM and NO_COLOR (none for an empty or dumb terminal), its
// background from the terminal's answer (dark when it gave none). It is wish's renderer for an
// emulated PTY, without its query, which input.ask makes instead: wish's read of the channel
// waits for the client's next byte when the terminal does not answer, and takes that key.
func sessionRenderer(sess ssh.Session, dark bool) *lipgloss.Renderer {
	pty, _, _ := sess.Pty()
	var r *lipgloss.Renderer
	if pty.Term == "" || pty.Term == "dumb" {
		r = lipgloss.NewRenderer(sess, termenv.WithProfile(termenv.Ascii))
	} else {
		r = lipgloss.NewRenderer(sess, termenv.WithEnvironment(sessionEnviron(sess)), termenv.WithUnsafe(), termenv.WithColorCache(true))
	}
	r.SetHasDarkBackground(dark) // set, so that lipgloss never queries the terminal itself
	return r
}

// inert returns a text a client sent (a user name, a terminal type) made inert for a terminal
// and a log, on one line, at most w cells wide ("-" for an empty one).
func inert(s string, w int) string {
	s = strings.TrimSpace(safetext.Line(s))
	if s == "" {
		return "-"
	}
	return ansi.Truncate(s, w, "…")
}
