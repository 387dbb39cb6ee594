package priority_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/priority"
)

// Asserts that With stores a clamped priority that From reads back, and that a context without
// one reports none.
func TestWithFrom(t *testing.T) {
	tests := []struct{ set, want int }{{0, 0}, {5, 5}, {10, 10}, {-3, 0}, {42, 10}}
	for _, tc := range tests {
		p, ok := priority.From(priority.With(context.Background(), tc.set))
		assert.True(t, ok)
		assert.Equal(t, tc.want, p, "set %d", tc.set)
	}
	_, ok := priority.From(context.Background())
	assert.False(t, ok)
}

// Asserts that Parse reads decimal integers (spaces allowed, clamped) and refuses the rest.
func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"7", 7, true}, {" 9 ", 9, true}, {"-1", 0, true}, {"11", 10, true},
		{"99999999999999999999", 0, false}, {"", 0, false}, {"high", 0, false}, {"3.5", 0, false},
		{"000000000000000000000003", 0, false},
	}
	for _, tc := range tests {
		p, ok := priority.Parse(tc.in)
		assert.Equal(t, tc.ok, ok, "%q", tc.in)
		assert.Equal(t, tc.want, p, "%q", tc.in)
	}
}
