package tui

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that the keys table of docs/dashboard.md matches the keymap: every dashboard binding
// has its row, with the key and the help text the footer shows, so the docs cannot drift.
func TestDocsKeysTableMatchesKeymap(t *testing.T) {
	doc, err := os.ReadFile("../docs/dashboard.md")
	require.NoError(t, err)
	k := testKeys()
	skip := map[string]bool{k.Select.Help().Key: true, k.Back.Help().Key: true, k.Filter.Help().Key: true}
	for _, group := range k.FullHelp() {
		for _, b := range group {
			h := b.Help()
			if skip[h.Key] {
				continue // picker keys, documented in keys.md
			}
			row := "| `" + h.Key + "` | " + h.Desc + " |"
			assert.True(t, strings.Contains(string(doc), row), "docs/dashboard.md lacks the row %s", row)
		}
	}
}
