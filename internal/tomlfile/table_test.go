package tomlfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEditDistance asserts the Levenshtein distance used for "did you mean" suggestions.
func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"workers", "workers", 0},
		{"worker", "workers", 1},
		{"wrokers", "workers", 2},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EditDistance(tt.a, tt.b), "%q vs %q", tt.a, tt.b)
	}
	assert.Equal(t, "workers", Closest("worker", []string{"queue_limit", "workers", "sigma"}))
	assert.Equal(t, "", Closest("colour", []string{"name", "summary", "story"}), "nothing close enough")
}
