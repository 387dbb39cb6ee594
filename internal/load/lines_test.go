package load

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLines asserts that Check finds the lines of keys inside tables and numbered
// array-of-tables entries, skips multi-line strings and arrays, and falls back to a parent.
func TestLines(t *testing.T) {
	text := `name = "x"        # 1
story = """
fake = "not a key"
"""                          # 4
[fleet]                      # 5
clients = 3                  # 6
  "timeout" = "1s"           # 7
[[class]]                    # 8
name = "a"                   # 9
[[class]]                    # 10
tags = [                     # 11
  "rate = 1",
]                            # 13
rate = 2                     # 14
[service]                    # 15
a.b = 1                      # 16
`
	ix, err := Check("t.toml", []byte(text), Scenario)
	require.NoError(t, err)
	tests := []struct {
		field string
		want  int
	}{
		{"name", 1},
		{"story", 2},
		{"fake", 0},
		{"fleet", 5},
		{"fleet.clients", 6},
		{"fleet.timeout", 7},
		{"class[1]", 8},
		{"class[1].name", 9},
		{"class[2]", 10},
		{"class[2].tags", 11},
		{"class[2].rate", 14},
		{"class[2].name", 10}, // absent: its entry's header
		{"service.a.b", 16},
		{"service.workers", 15}, // absent: its table
		{"note[1].at", 0},       // nothing known
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ix.Of(tt.field), tt.field)
	}
}
