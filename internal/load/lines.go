package load

import (
	"strconv"
	"strings"
)

// Lines maps the field paths of a TOML text, as the parsers' errors name them
// ("service.workers", "fault[2].at", "fault[2]", "class"), to the 1-based line where each first
// appears: Check records them as it checks the limits. An entry of an array of tables is
// numbered from 1 ("class[2]"), and a table or an array of tables under one belongs to its
// latest entry ("class[2].load[1]"); the array as a whole is where its first entry is. A key
// inside an inline table or an array is not placed: Of gives its parent's line.
type Lines map[string]int

// Of returns the line of field, or of its nearest parent that has one ("fault[2].value" falls
// back to "fault[2]", then "fault"); 0 when none is known.
func (ix Lines) Of(field string) int {
	for field != "" {
		if l, ok := ix[field]; ok {
			return l
		}
		cut := strings.LastIndexAny(field, ".[")
		if cut < 0 {
			return 0
		}
		field = field[:cut]
	}
	return 0
}

// add records the first line of path.
func (ix Lines) add(path string, line int) {
	if _, ok := ix[path]; !ok {
		ix[path] = line
	}
}

// header records a table header's line and makes its table current (*table): name is its
// dotted name, array whether it is an [[array of tables]] (counts numbers their entries).
func (ix Lines) header(name string, array bool, line int, counts map[string]int, table *string) {
	name = entryPath(name, counts)
	if !array {
		*table = name
		ix.add(name, line)
		return
	}
	for i := strings.IndexByte(name, '.'); i > 0; i = nextDot(name, i) {
		ix.add(name[:i], line) // a problem of a table the header implies has a line
	}
	counts[name]++
	*table = name + "[" + strconv.Itoa(counts[name]) + "]"
	ix.add(name, line) // the list as a whole ("class") is where its first entry is
	ix.add(*table, line)
}

// entryPath returns the field path of a header's table name: a name under an array of tables
// belongs to the array's latest entry, so "class.load" after the second [[class]] is
// "class[2].load" (its own entries then count apart from every other class's).
func entryPath(name string, counts map[string]int) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		if n := counts[name[:i]]; n > 0 {
			return name[:i] + "[" + strconv.Itoa(n) + "]" + name[i:]
		}
	}
	return name
}

// nextDot is the index of the next '.' in name after i, or -1.
func nextDot(name string, i int) int {
	if j := strings.IndexByte(name[i+1:], '.'); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// join is the path of key in table ("" for the top).
func join(table, key string) string {
	if table == "" {
		return key
	}
	return table + "." + key
}
