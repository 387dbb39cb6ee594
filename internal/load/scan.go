package load

// Check refuses data when it is larger than k.MaxBytes or when its TOML structure passes one of
// k's limits, with an *Error naming the limit and the line where it was passed, and otherwise
// returns the line of every table and key it found (Lines). It is the one pass over a file's
// text the program makes besides the decoder's: it reads the text once, in time linear in its
// length and memory linear in its keys, and understands as much TOML as the limits and the
// lines need: table headers (counting the entries of arrays of tables), dotted and quoted keys,
// inline tables, arrays, the four kinds of string and comments, so that a bracket, a dot or a
// '#' inside a string counts for nothing. It does not validate the TOML: what is not TOML
// passes, for the decoder to report.
func Check(name string, data []byte, k Kind) (Lines, error) {
	if int64(len(data)) > k.MaxBytes {
		return nil, tooLarge(name, k)
	}
	s := scanner{name: name, k: k, data: data, line: 1, lines: Lines{}, counts: map[string]int{}}
	if err := s.document(); err != nil {
		return nil, err
	}
	return s.lines, nil
}

// scanner walks a TOML text for Check. Its recursion (value, array, inlineTable) is bounded by
// Kind.MaxNesting, checked before each step down.
type scanner struct {
	name  string
	k     Kind
	data  []byte
	i     int // next byte
	line  int // 1-based line of data[i]
	items int // keys (each part) and array elements seen so far

	lines  Lines          // the line of every table and key found at the top or in a table
	counts map[string]int // the entries seen of each array of tables
	table  string         // the path of the current table: "" at the top, "fleet", "fault[2]"
	text   []byte         // the key being scanned, its parts joined by dots
}

// fail returns the *Error for a limit passed on line.
func (s *scanner) fail(line int, format string, args ...any) error {
	return &Error{File: s.name, Line: line, Msg: limitMsg(s.k, format, args...)}
}

func (s *scanner) eof() bool { return s.i >= len(s.data) }

// peek returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.data[s.i]
}

// document scans the whole text: table headers and key/value lines.
func (s *scanner) document() error {
	base := 0 // key parts of the current table header
	for {
		s.skip(true)
		if s.eof() {
			return nil
		}
		var err error
		if s.peek() == '[' {
			base, err = s.header()
		} else {
			err = s.keyValue(base, 0)
		}
		if err != nil {
			return err
		}
		s.skip(false)
		if !s.eof() && s.peek() != '\n' {
			s.skipLine() // not TOML: the decoder will say so
		}
	}
}

// header scans a [table] or [[array of tables]] header, records its line, and returns its
// number of parts.
func (s *scanner) header() (int, error) {
	line := s.line
	s.i++ // [
	array := s.peek() == '['
	if array {
		s.i++
	}
	parts, _, err := s.key(line, "table header", ']')
	if err != nil {
		return 0, err
	}
	if s.peek() == ']' {
		s.i++
	}
	s.lines.header(string(s.text), array, line, s.counts, &s.table)
	if err := s.count(line, parts); err != nil {
		return 0, err
	}
	if parts > s.k.MaxKeyDepth {
		return 0, s.fail(line, "key nested deeper than %d levels of tables", s.k.MaxKeyDepth)
	}
	return parts, nil
}

// keyValue scans `key = value` where the key's tables start base levels deep and the value
// sits in nest arrays and inline tables.
func (s *scanner) keyValue(base, nest int) error {
	line := s.line
	parts, found, err := s.key(line, "dotted key", '=')
	if err != nil {
		return err
	}
	if err := s.count(line, parts); err != nil {
		return err
	}
	depth := base + parts
	if depth > s.k.MaxKeyDepth {
		return s.fail(line, "key nested deeper than %d levels of tables", s.k.MaxKeyDepth)
	}
	if nest == 0 { // a key of a table: placed; one inside an inline table or an array is not
		s.lines.add(join(s.table, string(s.text)), line)
	}
	if !found {
		return nil
	}
	return s.value(nest, depth)
}

// key scans a possibly dotted, possibly quoted key up to and including stop ('=' or ']') into
// s.text (its parts joined by dots, a quoted part without its quotes); it returns the number of
// parts and whether stop was found. what names the key in messages.
func (s *scanner) key(line int, what string, stop byte) (parts int, found bool, err error) {
	parts = 1
	s.text = s.text[:0]
	for !s.eof() {
		switch c := s.data[s.i]; c {
		case stop:
			s.i++
			return parts, true, nil
		case ' ', '\t':
			s.i++
		case '"', '\'':
			from := s.i + 1
			s.skipQuoted(c) // a quoted key is one part whatever it holds
			if to := s.i - 1; to >= from && s.data[to] == c {
				s.text = append(s.text, s.data[from:to]...)
			}
		case '.':
			parts++
			if parts > s.k.MaxKeyParts {
				return parts, false, s.fail(line, "%s with more than %d parts", what, s.k.MaxKeyParts)
			}
			s.text = append(s.text, '.')
			s.i++
		case '\n', '\r', '=', '[', ']', '{', '}', ',', '#':
			return parts, false, nil
		default:
			s.text = append(s.text, c)
			s.i++
		}
	}
	return parts, false, nil
}

// value scans one value: an array, an inline table, a string or a scalar (number, boolean,
// date). nest is the number of arrays and inline tables around it, depth its key's depth.
func (s *scanner) value(nest, depth int) error {
	s.skip(false)
	switch c := s.peek(); c {
	case '[':
		return s.array(nest+1, depth)
	case '{':
		return s.inlineTable(nest+1, depth)
	case '"', '\'':
		s.skipString(c)
	default:
		s.skipScalar()
	}
	return nil
}

// array scans [v, v, ...], counting each element; it is the nest-th array or inline table.
func (s *scanner) array(nest, depth int) error {
	if nest > s.k.MaxNesting {
		return s.fail(s.line, "arrays and inline tables nested deeper than %d", s.k.MaxNesting)
	}
	s.i++ // [
	for {
		s.skip(true)
		switch s.peek() {
		case 0:
			if s.eof() {
				return nil
			}
		case ']':
			s.i++
			return nil
		case ',', '}', '=':
			s.i++ // a separator, or not TOML
			continue
		}
		if err := s.count(s.line, 1); err != nil {
			return err
		}
		start := s.i
		if err := s.value(nest, depth); err != nil {
			return err
		}
		if s.i == start {
			s.i++
		}
	}
}

// inlineTable scans {k = v, ...}; it is the nest-th array or inline table, and its keys start
// depth levels deep.
func (s *scanner) inlineTable(nest, depth int) error {
	if nest > s.k.MaxNesting {
		return s.fail(s.line, "arrays and inline tables nested deeper than %d", s.k.MaxNesting)
	}
	s.i++ // {
	for {
		s.skip(true) // TOML 1.1 allows newlines in inline tables
		switch s.peek() {
		case 0:
			if s.eof() {
				return nil
			}
		case '}':
			s.i++
			return nil
		case ',':
			s.i++
			continue
		}
		start := s.i
		if err := s.keyValue(depth, nest); err != nil {
			return err
		}
		if s.i == start {
			s.i++
		}
	}
}

// count adds n keys or values and fails on the line where their number passes the limit.
func (s *scanner) count(line, n int) error {
	s.items += n
	if s.items > s.k.MaxItems {
		return s.fail(line, "more than %d keys and values", s.k.MaxItems)
	}
	return nil
}

// skip passes blanks and comments, and newlines too when newlines is true.
func (s *scanner) skip(newlines bool) {
	for !s.eof() {
		switch s.data[s.i] {
		case ' ', '\t', '\r':
			s.i++
		case '\n':
			if !newlines {
				return
			}
			s.line++
			s.i++
		case '#':
			s.skipLine()
		default:
			return
		}
	}
}

// skipLine passes everything up to the next newline, which it leaves.
func (s *scanner) skipLine() {
	for !s.eof() && s.data[s.i] != '\n' {
		s.i++
	}
}

// skipScalar passes a number, boolean or date: everything up to a blank, a separator or a
// comment.
func (s *scanner) skipScalar() {
	for !s.eof() {
		switch s.data[s.i] {
		case ' ', '\t', '\r', '\n', ',', ']', '}', '#':
			return
		}
		s.i++
	}
}

// skipString passes a string value starting with quote q: a basic string ("), a literal one
// (') or the multi-line form of either (three quotes).
func (s *scanner) skipString(q byte) {
	if !s.triple(q) {
		s.skipQuoted(q)
		return
	}
	s.i += 3
	for !s.eof() {
		c := s.data[s.i]
		switch {
		case c == '\\' && q == '"':
			s.i++
			if s.peek() == '\n' {
				s.line++
			}
			s.i++
		case c == '\n':
			s.line++
			s.i++
		case c == q && s.triple(q):
			s.i += 3
			for n := 0; n < 2 && s.peek() == q; n++ { // up to two quotes end the content
				s.i++
			}
			return
		default:
			s.i++
		}
	}
}

// skipQuoted passes a one-line string starting with quote q, up to its closing quote; it
// stops before a newline (an unterminated string, for the decoder to report).
func (s *scanner) skipQuoted(q byte) {
	s.i++
	for !s.eof() {
		switch c := s.data[s.i]; {
		case c == '\n':
			return
		case c == q:
			s.i++
			return
		case c == '\\' && q == '"':
			s.i++
			if s.peek() != '\n' {
				s.i++
			}
		default:
			s.i++
		}
	}
}

// triple reports whether the next three bytes are q.
func (s *scanner) triple(q byte) bool {
	return s.i+2 < len(s.data) && s.data[s.i] == q && s.data[s.i+1] == q && s.data[s.i+2] == q
}
