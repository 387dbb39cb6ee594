package engineconf

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/cortex-tui/cortex-tui/engine"
)

// formatFloat writes x with the fewest digits that read back as x.
func formatFloat(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") { // an integral value stays a TOML float: 100.0
		s += ".0"
	}
	return s
}

// Header is the comment Format starts a file with.
const Header = `# cortex.toml: the CORTEX engine's configuration (cortex-tui engine --toml writes the defaults).
# A key left out takes the value of base ("default": engine.DefaultConfig, or "article":
# engine.ArticleConfig). docs/engine.md lists every key with its unit, default and range.
`

// Format writes cfg as a complete file, every key with its unit, range and meaning in a
// comment, base "default"; Parse reads it back to cfg (its Clock and Fleet.Pool aside, which no
// file holds). comment, when not empty, is added under the header, each line as a comment.
func Format(cfg engine.Config, comment string) []byte {
	var b bytes.Buffer
	b.WriteString(Header)
	for _, line := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		if comment != "" {
			fmt.Fprintf(&b, "#\n# %s\n", line)
		}
	}
	b.WriteString("\nbase = \"default\"\n")
	for _, t := range Tables {
		fmt.Fprintf(&b, "\n# %s\n[%s]\n", t.Doc, t.Name)
		width := 0
		for _, p := range Params {
			if p.Table == t.Name {
				width = max(width, len(p.Key)+3+len(p.Text(cfg)))
			}
		}
		for _, p := range Params {
			if p.Table != t.Name {
				continue
			}
			kv := p.Key + " = " + p.Text(cfg)
			if c := p.Constraint(); c != "" {
				fmt.Fprintf(&b, "%-*s # %s (%s)\n", width, kv, p.Doc, c)
			} else {
				fmt.Fprintf(&b, "%-*s # %s\n", width, kv, p.Doc)
			}
		}
	}
	return b.Bytes()
}

// FormatUnder writes cfg as the keys of a table at path (a scenario's [engine]): base
// "default", then each table with a key whose value is not the default's as [path.table], with
// those keys alone (the rest are the base's). Decode reads them back to cfg (its Clock and
// Fleet.Pool aside, as for Format). The text starts with the base key: the caller writes the
// [path] header and its own keys before it.
func FormatUnder(cfg engine.Config, path string) string {
	var b strings.Builder
	b.WriteString("base = \"default\"\n")
	def := engine.DefaultConfig()
	for _, t := range Tables {
		header := false
		for _, p := range Params {
			if p.Table != t.Name || p.Text(cfg) == p.Text(def) {
				continue
			}
			if !header {
				fmt.Fprintf(&b, "\n[%s.%s]\n", path, t.Name)
				header = true
			}
			fmt.Fprintf(&b, "%s = %s\n", p.Key, p.Text(cfg))
		}
	}
	return b.String()
}
