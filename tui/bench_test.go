package tui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/cputime"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

// benchModel is a dashboard at 160x48 on the built-in black-friday scenario, simulated by the
// real simulator, warmed up by n frames.
func benchModel(b *testing.B, n int) *Model {
	b.Helper()
	scn, err := scenarios.Lookup("black-friday")
	if err != nil {
		b.Fatal(err)
	}
	m := New(Options{Keys: keymap.Default(), Factory: sim.NewSource, Scenario: &scn, ExportDir: b.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	advanceFrames(m, n)
	return m
}

// BenchmarkView measures View at 160x48: it only joins cached strings (target < 1 ms).
func BenchmarkView(b *testing.B) {
	m := benchModel(b, 700) // into the outage at t=60s
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkDataTick measures one full data frame at 160x48 and x1: the simulator advances
// 100 ms of virtual time, then every panel redraws (target < 20 ms). cpu-ms/frame is the
// process's CPU time a frame, which a loaded machine changes less than the wall time.
func BenchmarkDataTick(b *testing.B) {
	m := benchModel(b, 600)
	b.ReportAllocs()
	frames := 0
	cpu0 := cputime.Process()
	for b.Loop() {
		cmd := m.onTick(tickMsg{tag: m.tag})
		if cmd == nil { // the run is over: start again, untimed
			b.StopTimer()
			m.restart()
			advanceFrames(m, 600)
			b.StartTimer()
			continue
		}
		m.Update(cmd())
		frames++
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(max(frames, 1)), "ms/frame")
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1000/float64(max(frames, 1)), "cpu-ms/frame")
}

// BenchmarkRedraw measures the redraw alone (every panel of the full layout, no simulation).
func BenchmarkRedraw(b *testing.B) {
	m := benchModel(b, 700)
	b.ReportAllocs()
	for b.Loop() {
		m.redraw()
	}
}

// BenchmarkHeaviestFrame measures the two halves of a frame of the heaviest scenario the cost
// model accepts (heaviest: 1,000 cortex clients, 64 classes, 1 ms ticks, 100,000 req/s) at
// x64: "step" is the advance command off the Update loop, cut by the frame's budget (at most
// frameBudget plus one tick); "apply" is Update taking the frame in (every snapshot into the
// history and the recorder, then one redraw), which is what a key pressed then waits for.
func BenchmarkHeaviestFrame(b *testing.B) {
	saved := newFrameBudget
	defer func() { newFrameBudget = saved }()
	newFrameBudget = func() func(int) bool { return frameBudgetFrom(engine.WallClock{}) } // the real one
	scn := heaviest()
	m := New(Options{Keys: keymap.Default(), Factory: sim.NewSource, Scenario: &scn, ExportDir: b.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.setSpeed(len(speeds) - 1)
	var step, apply time.Duration
	ticks, frames := 0, 0
	for b.Loop() {
		cmd := m.onTick(tickMsg{tag: m.tag})
		if cmd == nil {
			b.StopTimer()
			m.restart()
			b.StartTimer()
			continue
		}
		t0 := time.Now()
		msg := cmd().(advancedMsg)
		t1 := time.Now()
		m.Update(msg)
		apply += time.Since(t1)
		step += t1.Sub(t0)
		ticks += len(msg.snaps[0])
		frames++
	}
	b.ReportMetric(float64(step.Milliseconds())/float64(max(frames, 1)), "step-ms/frame")
	b.ReportMetric(float64(apply.Milliseconds())/float64(max(frames, 1)), "apply-ms/frame")
	b.ReportMetric(float64(ticks)/float64(max(frames, 1)), "ticks/frame")
}
