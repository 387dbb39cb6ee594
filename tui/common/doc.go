// Package common is what every room and component of the dashboard draws with (soft-serve's
// pkg/ui/common is the model): the named palette and the Styles built from it, the text
// helpers that measure in terminal cells, the bordered box a panel is drawn in with its cached
// rendering (Base), the formats of times and scores, and the inert copies of a source's texts.
// It holds no state of its own; everything in it is safe for concurrent use.
package common
