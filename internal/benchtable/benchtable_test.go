package benchtable

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// out is go test -bench output with -count 3 for two benchmarks, one with a custom metric,
// the header and trailer lines go test prints, and a benchmark's log line.
const out = `goos: linux
goarch: amd64
pkg: github.com/cortex-tui/cortex-tui/engine
cpu: AMD EPYC
BenchmarkAdmit/manual-2         	62387461	        21.25 ns/op	  47055282 admissions/s	       0 B/op	       0 allocs/op
BenchmarkAdmit/manual-2         	62038828	        20.23 ns/op	  49435034 admissions/s	       0 B/op	       0 allocs/op
BenchmarkAdmit/manual-2         	41364201	        24.61 ns/op	  40642065 admissions/s	       0 B/op	       0 allocs/op
BenchmarkCycleVsGobreaker-2     	 8442990	       147.9 ns/op	       165.9 cortex-ns/cycle	       1.277 x-gobreaker	       0 B/op	       0 allocs/op
    compare_test.go:12: a log line
BenchmarkCycleVsGobreaker-2     	 8141606	       138.3 ns/op	       152.6 cortex-ns/cycle	       1.229 x-gobreaker	       0 B/op	       0 allocs/op
BenchmarkNew-2                  	   50000	     20600 ns/op	   90128 B/op	       2 allocs/op
PASS
ok  	github.com/cortex-tui/cortex-tui/engine	41.387s
`

// Asserts that Parse keeps each benchmark's runs under its name without the GOMAXPROCS
// suffix, in the order they first appear, and skips what is not a result.
func TestParse(t *testing.T) {
	rs, err := Parse(strings.NewReader(out))
	require.NoError(t, err)
	require.Len(t, rs, 3)
	assert.Equal(t, "Admit/manual", rs[0].Name)
	assert.Equal(t, []float64{21.25, 20.23, 24.61}, rs[0].Values["ns/op"])
	assert.Equal(t, "CycleVsGobreaker", rs[1].Name)
	assert.Equal(t, []float64{1.277, 1.229}, rs[1].Values["x-gobreaker"])
	assert.Equal(t, []float64{90128}, rs[2].Values["B/op"])
}

// Asserts that a result line with a value that is not a number is an error naming its line.
func TestParseBadValue(t *testing.T) {
	_, err := Parse(strings.NewReader("BenchmarkX-2 10 abc ns/op\n"))
	assert.EqualError(t, err, `line 1: "abc" is not a number (unit ns/op)`)
}

// Asserts the median (odd and even counts) and the range.
func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		xs          []float64
		med, lo, hi float64
		ok          bool
	}{
		{nil, 0, 0, 0, false},
		{[]float64{3}, 3, 3, 3, true},
		{[]float64{5, 1, 3}, 3, 1, 5, true},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4, true},
	} {
		med, lo, hi, ok := Median(tt.xs)
		assert.Equal(t, []any{tt.med, tt.lo, tt.hi, tt.ok}, []any{med, lo, hi, ok}, "%v", tt.xs)
	}
}

// Asserts the table: a row per benchmark with its median, range, runs and allocations (bytes
// when any), the clock named in the label, then a line per extra unit reported.
func TestWrite(t *testing.T) {
	rs, err := Parse(strings.NewReader(out))
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, Write(&b, rs, "x-gobreaker"))
	assert.Equal(t, `| benchmark | median ns/op | range | runs | allocs/op |
|---|---:|---:|---:|---:|
| Admit, manual clock | 21.2 | 20.2-24.6 | 3 | 0 |
| CycleVsGobreaker | 143 | 138-148 | 2 | 0 |
| New | 20600 | 20600-20600 | 1 | 2 (90128 B) |

CycleVsGobreaker x-gobreaker: median 1.25, range 1.23-1.28 over 2 runs.
`, b.String())
}
