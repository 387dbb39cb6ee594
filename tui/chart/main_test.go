package chart

import (
	"testing"

	"github.com/cortex-tui/cortex-tui/tui/internal/tuitest"
)

// TestMain runs the tests without colour (tuitest.Main).
func TestMain(m *testing.M) { tuitest.Main(m) }
