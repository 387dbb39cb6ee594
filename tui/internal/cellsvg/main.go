// Command cellsvg pins every glyph of a terminal screenshot made by charmbracelet/freeze to
// its terminal cell, for `make screenshots`. freeze draws each screen line as SVG text, so a
// glyph its monospace font lacks falls back to a proportional font and shifts the rest of the
// line; a terminal never does that. cellsvg splits every <tspan> into one tspan per glyph at its
// own x, cell width apart.
//
// Usage: cellsvg -cell 8.333 < in.svg > out.svg (the cell width is freeze's font size / 1.68).
package main

import (
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

var (
	textRe  = regexp.MustCompile(`(?s)<text x="([0-9.]+)px"([^>]*)>(.*?)</text>`)
	tspanRe = regexp.MustCompile(`(?s)<tspan([^>]*?)(/>|>(.*?)</tspan>)`)
)

func main() {
	cell := flag.Float64("cell", 14/1.68, "width of a terminal cell in SVG pixels")
	flag.Parse()
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cellsvg:", err)
		os.Exit(1)
	}
	if *cell <= 0 {
		fmt.Fprintln(os.Stderr, "cellsvg: -cell must be positive")
		os.Exit(2)
	}
	_, err = io.WriteString(os.Stdout, pin(string(in), *cell))
	if err != nil {
		fmt.Fprintln(os.Stderr, "cellsvg:", err)
		os.Exit(1)
	}
}

// pin rewrites every <text> line so each character sits at x0 + column*cell.
func pin(svg string, cell float64) string {
	return textRe.ReplaceAllStringFunc(svg, func(text string) string {
		m := textRe.FindStringSubmatch(text)
		x0, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return text
		}
		col := 0
		body := tspanRe.ReplaceAllStringFunc(m[3], func(ts string) string {
			t := tspanRe.FindStringSubmatch(ts)
			if t[2] == "/>" {
				return ts
			}
			var b strings.Builder
			for _, r := range html.UnescapeString(t[3]) {
				if r != ' ' { // one tspan per glyph: renderers honour a tspan's own x
					x := strconv.FormatFloat(x0+float64(col)*cell, 'f', 2, 64)
					fmt.Fprintf(&b, `<tspan%s x="%s">%s</tspan>`, t[1], x, html.EscapeString(string(r)))
				}
				col++
			}
			return b.String()
		})
		return fmt.Sprintf(`<text x="%spx"%s>%s</text>`, m[1], m[2], body)
	})
}
