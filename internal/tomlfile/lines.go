package tomlfile

import (
	"strconv"
	"strings"
)

// Lines maps field paths, as FieldError names them ("service.workers", "fault[2].at",
// "fault[2]", "class"), to the 1-based line where they first appear in a TOML text.
//
// The TOML parser keeps key positions to itself, and its own table of them is keyed without the
// index of an array-of-tables entry, so the parsers find lines by scanning the text:
// it follows [table] and [[array]] headers (counting entries), reads the key before each "=",
// and skips the bodies of multi-line strings and arrays. Keys it cannot place (inside inline
// tables, say) fall back to their parent's line through LineOf.
type Lines map[string]int

// IndexLines scans text and returns the line of every header and key it recognises.
func IndexLines(text string) Lines {
	ix := Lines{}
	counts := map[string]int{} // entries seen per array-of-tables name
	table := ""                // current table path, e.g. "fleet" or "fault[2]"
	inString := ""             // closing delimiter of the multi-line string being skipped
	depth := 0                 // open brackets of a multi-line array being skipped
	for n, line := range strings.Split(text, "\n") {
		lineNo := n + 1
		if inString != "" {
			if strings.Contains(line, inString) {
				inString = ""
			}
			continue
		}
		if depth > 0 {
			depth += bracketDepth(line)
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#':
			continue
		case strings.HasPrefix(t, "[["):
			name := entryPath(headerName(t[2:], "]]"), counts)
			ix.addParents(name, lineNo)
			counts[name]++
			table = name + "[" + strconv.Itoa(counts[name]) + "]"
			ix.add(name, lineNo) // the list as a whole ("class") is where its first entry is
			ix.add(table, lineNo)
			continue
		case t[0] == '[':
			table = entryPath(headerName(t[1:], "]"), counts)
			ix.add(table, lineNo)
			continue
		}
		eq := strings.IndexByte(t, '=')
		if eq <= 0 {
			continue
		}
		key := keyPath(t[:eq])
		if table != "" {
			key = table + "." + key
		}
		ix.add(key, lineNo)
		value := strings.TrimSpace(t[eq+1:])
		for _, delim := range []string{`"""`, `'''`} {
			if strings.HasPrefix(value, delim) && !strings.Contains(value[3:], delim) {
				inString = delim
			}
		}
		if inString == "" && strings.HasPrefix(value, "[") {
			depth = bracketDepth(value)
		}
	}
	return ix
}

// add records the first line of path.
func (ix Lines) add(path string, line int) {
	if _, ok := ix[path]; !ok {
		ix[path] = line
	}
}

// LineOf returns the line of field, or of its nearest parent that has one ("fault[2].value"
// falls back to "fault[2]", then "fault"); 0 when none is known.
func (ix Lines) LineOf(field string) int {
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

// entryPath returns the field path of a header's table name: a name under a list of tables
// belongs to the list's latest entry, so "class.load" after the second [[class]] is
// "class[2].load" (its own entries then count apart from every other class's).
func entryPath(name string, counts map[string]int) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		if n := counts[name[:i]]; n > 0 {
			return name[:i] + "[" + strconv.Itoa(n) + "]" + name[i:]
		}
	}
	return name
}

// addParents records the line of every dotted prefix of a header's name ("class" for
// "[[class.load]]"), so that a problem of the table it implies has a line.
func (ix Lines) addParents(name string, line int) {
	for i := strings.IndexByte(name, '.'); i > 0; i = nextDot(name, i) {
		ix.add(name[:i], line)
	}
}

// nextDot is the index of the next '.' in name after i, or -1.
func nextDot(name string, i int) int {
	if j := strings.IndexByte(name[i+1:], '.'); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// headerName returns the table name of a header line after its opening bracket(s).
func headerName(rest, closing string) string {
	if end := strings.Index(rest, closing); end >= 0 {
		rest = rest[:end]
	}
	return keyPath(rest)
}

// keyPath normalises a possibly dotted, possibly quoted TOML key: `"a" . b` becomes "a.b".
func keyPath(raw string) string {
	parts := strings.Split(raw, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// bracketDepth returns the net count of '[' minus ']' in line, ignoring quoted text and
// comments.
func bracketDepth(line string) int {
	depth := 0
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return depth
		case c == '[':
			depth++
		case c == ']':
			depth--
		}
	}
	return depth
}
