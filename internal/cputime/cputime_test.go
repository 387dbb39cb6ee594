package cputime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Asserts that the process's CPU time grows with work done (on a system that measures it).
func TestProcessGrows(t *testing.T) {
	before := Process()
	if before == 0 {
		t.Skip("this system does not measure a process's CPU time")
	}
	x := 0
	for i := 0; Process()-before == 0 && i < 1e9; i++ {
		x += i
	}
	assert.Greater(t, Process(), before, "work done (%d) shows in the CPU time", x)
}
