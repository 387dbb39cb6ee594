package tomlfile

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// SyntaxError turns the TOML parser's error into a FieldError with its line and, where it has
// one, the parser's context lines with a caret.
func SyntaxError(filename string, err error, text string) *FieldError {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &FieldError{File: filename, Msg: "invalid TOML: " + err.Error()}
	}
	lines := strings.Count(text, "\n") + 1
	pe.Position = endOfLine(pe, text)
	msg := "invalid TOML: " + pe.Message
	// ErrorWithUsage indexes the input's lines by Position.Line: only trust it with a real line.
	if pe.Position.Line >= 1 && pe.Position.Line <= lines {
		if ctx := parserContext(pe.ErrorWithUsage()); ctx != "" {
			msg += "\n" + ctx
		}
	}
	return &FieldError{File: filename, Line: pe.Position.Line, Msg: msg}
}

// endOfLine returns the position of pe, placed by its byte offset on the line it is about when
// the parser met a line's newline where something else was due ("got '\n' instead": an unclosed
// table header, a key with no value): the TOML lexer may have counted the newline by then and
// give the next line's number, one late.
func endOfLine(pe toml.ParseError, text string) toml.Position {
	p := pe.Position
	if !strings.Contains(pe.Message, `'\n'`) || p.Start < 0 || p.Start >= len(text) || text[p.Start] != '\n' {
		return p
	}
	before := text[:p.Start]
	p.Line = strings.Count(before, "\n") + 1
	p.Col = p.Start - strings.LastIndexByte(before, '\n')
	p.Len = 1
	return p
}

// parserContext keeps the part of toml's ErrorWithUsage after its "At line N, column C:"
// heading: the numbered source lines, the caret and any usage help.
func parserContext(full string) string {
	at := strings.Index(full, "\n\nAt line ")
	if at < 0 {
		return ""
	}
	rest := full[at+2:]
	body := strings.Index(rest, ":\n\n")
	if body < 0 {
		return ""
	}
	return strings.TrimRight(rest[body+3:], "\n")
}

// Describe names a decoded TOML value's type, with the value when it is short.
func Describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			return "a string"
		}
		return fmt.Sprintf("the string %q", x)
	case int64:
		return fmt.Sprintf("the integer %d", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return "a date or time"
}

// Closest returns the candidate within edit distance 2 of key, or "" (for "did you mean").
func Closest(key string, candidates []string) string {
	if len(key) > 64 {
		return ""
	}
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := EditDistance(key, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b (bytes).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
