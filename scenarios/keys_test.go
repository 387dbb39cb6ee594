package scenarios

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsDocumentEveryKey asserts that docs/scenarios.md has a table row for every key the
// parser accepts, in every table, so the reference cannot fall behind the parser.
func TestDocsDocumentEveryKey(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenarios.md")
	require.NoError(t, err)
	text := string(doc)
	tables := map[string][]string{
		"### Top-level keys": topKeys,
		"### `[fleet]`":      fleetKeys,
		"### `[[class]]`":    classKeys,
		"### `[[load]]`":     loadKeys,
		"### `[service]`":    serviceKeys,
		"### `[[fault]]`":    faultKeys,
		"### `[[note]]`":     noteKeys,
		"### `[[control]]`":  controlKeys,
	}
	for heading, keys := range tables {
		_, section, found := strings.Cut(text, heading)
		require.True(t, found, "docs/scenarios.md has the section %q", heading)
		if next := strings.Index(section, "\n### "); next >= 0 {
			section = section[:next]
		}
		for _, key := range keys {
			switch {
			case heading == "### Top-level keys" && isTable(key):
				continue // tables have their own sections
			case (heading == "### `[[fault]]`" || heading == "### `[[control]]`") && valueKeys()[key]:
				assert.Contains(t, section, "`"+key+"`", "%s documents the value key %s", heading, key)
			default:
				assert.Contains(t, section, "| `"+key+"` |", "%s documents %s", heading, key)
			}
		}
	}
}

// isTable reports whether a top-level key is a table or a list of tables.
func isTable(key string) bool {
	switch key {
	case "fleet", "class", "load", "service", "fault", "control", "note":
		return true
	}
	return false
}

// valueKeys is the set of every fault value key.
func valueKeys() map[string]bool {
	out := map[string]bool{}
	for _, k := range FaultKinds {
		if v := k.ValueKey(); v != "" {
			out[v] = true
		}
	}
	return out
}
