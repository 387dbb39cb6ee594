// Package benchtable turns the output of `go test -bench` run with -count N into a markdown
// table: for each benchmark, in the order it first appears, the median and the range over its
// runs of ns/op and of each metric asked for, with its allocations. make engine-speed-table
// writes docs/engine.md's table of the engine's speed with it (go run ./internal/benchtable/cmd).
package benchtable

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Result is one benchmark's runs: every value reported under each unit ("ns/op", "allocs/op",
// "x-gobreaker", ...), in the order of the runs.
type Result struct {
	Name   string // without "Benchmark" and the GOMAXPROCS suffix: "ShouldRetry/manual/serial"
	Values map[string][]float64
}

// Parse reads `go test -bench` output and returns its benchmarks in the order they first
// appear, each with the values of its runs. Lines that are not benchmark results (the
// goos/pkg header, PASS, ok) are skipped; a result line with a value that is not a number is
// an error naming its line.
func Parse(r io.Reader) ([]Result, error) {
	var out []Result
	index := map[string]int{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // a benchmark's log line, not its result
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		k, ok := index[name]
		if !ok {
			k = len(out)
			index[name] = k
			out = append(out, Result{Name: name, Values: map[string][]float64{}})
		}
		for j := 2; j+1 < len(f); j += 2 {
			v, err := strconv.ParseFloat(f[j], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q is not a number (unit %s)", line, f[j], f[j+1])
			}
			out[k].Values[f[j+1]] = append(out[k].Values[f[j+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Median returns the median of xs (the mean of the middle two for an even count) and the
// least and the greatest; ok is false for none.
func Median(xs []float64) (med, lo, hi float64, ok bool) {
	if len(xs) == 0 {
		return 0, 0, 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1], true
}

// Label is a benchmark's name as the table reads it: "ShouldRetry/manual/serial" is
// "ShouldRetry, manual clock, serial".
func Label(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		if p == "manual" || p == "wall" {
			parts[i] = p + " clock"
		}
	}
	return strings.Join(parts, ", ")
}

// Write writes the table of rs: one row per benchmark with the median ns/op, its range and the
// allocations per op (with their bytes when there are any); then, for each of the extra units
// (such as "x-gobreaker"), a row per benchmark that reported it, its median and range.
func Write(w io.Writer, rs []Result, extra ...string) error {
	var b strings.Builder
	b.WriteString("| benchmark | median ns/op | range | runs | allocs/op |\n|---|---:|---:|---:|---:|\n")
	for _, r := range rs {
		med, lo, hi, ok := Median(r.Values["ns/op"])
		if !ok {
			continue
		}
		allocs := "-"
		if a, _, _, ok := Median(r.Values["allocs/op"]); ok {
			allocs = strconv.FormatFloat(a, 'f', -1, 64)
			if by, _, _, ok := Median(r.Values["B/op"]); ok && by > 0 {
				allocs += fmt.Sprintf(" (%s B)", num(by))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s-%s | %d | %s |\n", Label(r.Name), num(med), num(lo), num(hi), len(r.Values["ns/op"]), allocs)
	}
	for _, unit := range extra {
		for _, r := range rs {
			if med, lo, hi, ok := Median(r.Values[unit]); ok {
				fmt.Fprintf(&b, "\n%s %s: median %s, range %s-%s over %d runs.\n", Label(r.Name), unit, num(med), num(lo), num(hi), len(r.Values[unit]))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// num formats a figure: three significant digits below 100, whole numbers above.
func num(x float64) string {
	if x >= 100 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}
