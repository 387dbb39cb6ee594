package cli

import (
	"testing"

	"github.com/cortex-tui/cortex-tui/internal/waittest"
)

// TestMain runs the parallel tests four at a time and checks, after the last test, that no
// goroutine outlives them (internal/waittest). The parallel ones are those that mostly wait:
// live runs in real time (a second or two each, ~20 s one after another under -race), the
// target's and the fleet's. Four, not more: each live run's traffic computes too, and sixteen
// at once beside live's tests at a load of 9 left requests alive at the runs' ends (a success
// rate of 0.58 against a healthy target). The others run first, one at a time: those that set
// a package variable (stopGrace, startDashboard, liveSecondRecorded) or the environment
// (t.Setenv), those that check their own goroutines (goleak.IgnoreCurrent, then VerifyNone),
// and those that work on every core already (bench and tune).
func TestMain(m *testing.M) { waittest.Main(m, 4) }
