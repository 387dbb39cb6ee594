package serve

import (
	"fmt"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
)

// logf writes one line to the server's log, made inert (it quotes what clients sent).
func (s *Server) logf(format string, args ...any) {
	line := safetext.Line(fmt.Sprintf(format, args...))
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.cfg.Log, "%s cortex-tui serve: %s\n", s.cfg.Now().Format("2006-01-02T15:04:05"), line)
}

// logSession writes the one line of an ended session: who (name and key), from where, with
// which terminal, what it was (its role in a class), how long it lasted and why it ended.
func (s *Server) logSession(st *session, ended string) {
	parts := []string{
		fmt.Sprintf("session %s (%s) from %s", st.name, st.fp, st.remote),
		fmt.Sprintf("term %s %dx%d", st.term, st.w, st.h),
	}
	if st.role != "" {
		parts = append(parts, st.role)
	}
	parts = append(parts, "lasted "+st.lasted(s.cfg.Now()).Round(time.Second).String(), "ended: "+ended)
	s.logf("%s", strings.Join(parts, ", "))
}
