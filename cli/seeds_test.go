package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts how --seeds is read: single seeds, ranges (both ends included) and lists of both, in
// the order written; and that empty items, non-numbers, negative seeds, reversed ranges, a seed
// named twice (also through overlapping ranges) and more than maxSeeds seeds are errors that
// quote the value and show how to write it.
func TestParseSeeds(t *testing.T) {
	tests := []struct {
		spec string
		want []int64
		err  string // a fragment of the error; "" for a valid spec
	}{
		{"1-10", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, ""},
		{"1,3,5", []int64{1, 3, 5}, ""},
		{"1-3,7", []int64{1, 2, 3, 7}, ""},
		{" 7 , 1-2 ", []int64{7, 1, 2}, ""},
		{"0", []int64{0}, ""},
		{"4-4", []int64{4}, ""},
		{"9223372036854775806-9223372036854775807", []int64{9223372036854775806, 9223372036854775807}, ""},
		{"", nil, "no seeds"},
		{"  ", nil, "no seeds"},
		{"1,,2", nil, "an empty item"},
		{"1,", nil, "an empty item"},
		{"3-1", nil, `"3-1" is reversed (write 1-3)`},
		{"a", nil, `"a" is not a seed`},
		{"1-b", nil, `"b" is not a seed`},
		{"1.5", nil, `"1.5" is not a seed`},
		{"-1", nil, "seeds are whole numbers >= 0"},
		{"1-", nil, "a seed is missing"},
		{"1-2-3", nil, `"2-3" is not a seed`},
		{"99999999999999999999", nil, "too large"},
		{"1,1", nil, "seed 1 is named twice"},
		{"1-5,3", nil, "seed 3 is named twice"},
		{"1-3,2-4", nil, "seed 2 is named twice"},
		{"1-1000000", nil, "more than 1000 seeds"},
		{"0-9223372036854775807", nil, "more than 1000 seeds"},
		{"1-600,601-1200", nil, "more than 1000 seeds"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := parseSeeds(tt.spec)
			if tt.err == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			assert.Contains(t, err.Error(), `invalid --seeds "`+tt.spec+`"`)
			assert.Contains(t, err.Error(), seedsUsage)
		})
	}
	n, err := parseSeeds("1-1000")
	require.NoError(t, err)
	assert.Len(t, n, maxSeeds, "exactly the limit is fine")
}
