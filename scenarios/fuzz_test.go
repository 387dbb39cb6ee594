package scenarios_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// FuzzParse asserts that Parse never panics and returns either an error or a scenario that
// validates and survives MarshalTOML and Parse unchanged. Its seed corpus is
// testdata/fuzz/FuzzParse plus the built-in files and the full example.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("builtin/*.toml")
	require.NoError(f, err)
	files = append(files, "testdata/full.toml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(minimal))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenarios.Parse("fuzz.toml", data)
		if err != nil {
			assert.NotEmpty(t, err.Error())
			return
		}
		require.NoError(t, s.Validate(), "Parse returned a scenario that does not validate")
		out, err := s.MarshalTOML()
		require.NoError(t, err)
		again, err := scenarios.Parse("again.toml", out)
		require.NoError(t, err, "MarshalTOML output does not parse:\n%s", out)
		assert.Equal(t, s, again)
	})
}

// BenchmarkParse measures parsing and validating a typical built-in file.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("builtin/black-friday.toml")
	require.NoError(b, err)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := scenarios.Parse("black-friday.toml", data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "files/s")
}
