package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// update accepts the -update flag that `make golden` passes to every package under ./tui; this
// package has no golden files.
var _ = flag.Bool("update", false, "no effect here (this package has no golden files)")

// Asserts that pin gives every non-space glyph its own tspan at x0 + column*cell, counting
// escaped entities as one character and spaces as cells, and leaves empty tspans alone.
func TestPin(t *testing.T) {
	in := `<svg><text x="20.00px" y="36.80px" xml:space="preserve"><tspan xml:space="preserve"/>` +
		`<tspan fill="#fff">a b</tspan><tspan fill="#f00">&lt;⠂</tspan></text></svg>`
	out := pin(in, 10)
	for _, want := range []string{
		`<tspan fill="#fff" x="20.00">a</tspan>`,
		`<tspan fill="#fff" x="40.00">b</tspan>`,
		`<tspan fill="#f00" x="50.00">&lt;</tspan>`,
		`<tspan fill="#f00" x="60.00">⠂</tspan>`,
		`<tspan xml:space="preserve"/>`,
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 1, strings.Count(out, "<text "), "one text element per line, as before")
}
