// Package load reads every file cortex-tui is given (scenario files, key files, the standard
// input) and decodes its TOML, holding each to hard limits first, so a hostile or broken file
// is refused in milliseconds instead of taking the machine's memory.
//
// Two kinds of limit apply, both set per Kind of file. The size limit counts the bytes actually
// read (never what Stat says), so a device, a FIFO or a file still growing is refused once it
// passes the limit. The structural limits (how deep arrays and inline tables nest, how many
// parts a dotted key or table header has, how deep a key sits in the document's tables, how
// many keys and values there are) are checked by a scan of the text before it reaches the TOML
// decoder, whose time and memory grow with the square of a key's depth.
//
// The package uses the standard library and the TOML decoder only. Its functions are safe for
// concurrent use.
package load

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
)

// Kind is one kind of file the program reads: its name for messages and the limits it is held
// to. A limit of zero or less refuses every file that has anything to count.
type Kind struct {
	Name        string // what the file is, for messages: "scenario file"
	MaxBytes    int64  // most bytes read
	MaxNesting  int    // deepest nesting of arrays and inline tables within one value
	MaxKeyParts int    // most parts of one dotted key or table header (a.b.c has 3)
	MaxKeyDepth int    // deepest key, in tables from the top: header parts, inline tables and dotted parts together
	MaxItems    int    // most keys and values: each part of a key or header, each array element
}

// The kinds of file cortex-tui reads. A scenario needs two levels of tables and a few hundred
// keys; a key file one level and a few dozen; the limits leave room for far larger files while
// keeping the decoder's work on any accepted file to tens of megabytes and well under a second.
var (
	// Scenario is a scenario file (validate, run --scenario-file, bench --scenario-file).
	Scenario = Kind{Name: "scenario file", MaxBytes: 1 << 20, MaxNesting: 32, MaxKeyParts: 16, MaxKeyDepth: 16, MaxItems: 20000}
	// Keys is a key file (--keys and the default keys.toml).
	Keys = Kind{Name: "key file", MaxBytes: 64 << 10, MaxNesting: 32, MaxKeyParts: 16, MaxKeyDepth: 16, MaxItems: 1000}
	// Lesson is a lesson file (validate of a lesson, learn --file): a dozen steps of a few
	// goals each.
	Lesson = Kind{Name: "lesson file", MaxBytes: 256 << 10, MaxNesting: 32, MaxKeyParts: 16, MaxKeyDepth: 16, MaxItems: 5000}
	// Engine is an engine configuration file (cortex.toml: engine --file, --engine, tune
	// --out): eight tables of a few keys each.
	Engine = Kind{Name: "CORTEX configuration file", MaxBytes: 64 << 10, MaxNesting: 32, MaxKeyParts: 16, MaxKeyDepth: 16, MaxItems: 1000}
)

// Error is a file the loader refuses: unreadable, too large, or beyond a structural limit.
type Error struct {
	File string // the file's name as given
	Line int    // 1-based line of the problem; 0 when it has none
	Msg  string // what is wrong, e.g. "larger than 1 MiB (the limit for a scenario file)"
	Err  error  // the cause when the file could not be read (e.g. fs.ErrNotExist), else nil
}

// Unwrap returns the cause of a read failure, so errors.Is(err, fs.ErrNotExist) works.
func (e *Error) Unwrap() error { return e.Err }

// Error formats the problem as "file:line: message", leaving out the line when it is unknown.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// File reads the file at path, refusing a directory and anything longer than k.MaxBytes after
// reading at most k.MaxBytes+1 bytes. Errors are *Error and name path as given.
func File(path string, k Kind) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, readError(path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return nil, &Error{File: path, Msg: "is a directory, not a " + k.Name}
	}
	return Reader(path, f, k)
}

// Reader reads r to its end, refusing it after k.MaxBytes+1 bytes; name is used in errors.
// Errors are *Error.
func Reader(name string, r io.Reader, k Kind) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, k.MaxBytes+1))
	if err != nil {
		return nil, readError(name, err)
	}
	if int64(len(data)) > k.MaxBytes {
		return nil, tooLarge(name, k)
	}
	return data, nil
}

// Decode checks data against k's limits (size and structure, see Check) and decodes it into v
// with the TOML decoder; it returns the decoder's metadata and the line of every table and key
// (Check's Lines, for the caller's errors). A limit exceeded is an *Error; a TOML syntax error
// is the decoder's own error (a toml.ParseError) for the caller to format.
func Decode(name string, data []byte, k Kind, v any) (toml.MetaData, Lines, error) {
	lines, err := Check(name, data, k)
	if err != nil {
		return toml.MetaData{}, nil, err
	}
	md, err := toml.Decode(string(data), v)
	return md, lines, err
}

// readError reports a file that cannot be read as "name: cannot read: reason".
func readError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{File: name, Msg: "cannot read: " + err.Error(), Err: err}
}

// tooLarge reports a file over k's size limit.
func tooLarge(name string, k Kind) error {
	return &Error{File: name, Msg: fmt.Sprintf("larger than %s (the limit for a %s)", size(k.MaxBytes), k.Name)}
}

// size spells a byte count for messages: "1 MiB", "64 KiB", "1000 bytes".
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// limitMsg ends a structural limit's message with the kind it belongs to.
func limitMsg(k Kind, format string, args ...any) string {
	var b strings.Builder
	fmt.Fprintf(&b, format, args...)
	fmt.Fprintf(&b, " (the limit for a %s)", k.Name)
	return b.String()
}
