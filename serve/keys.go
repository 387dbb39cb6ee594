package serve

import (
	"bytes"
	"fmt"

	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/internal/load"
	"github.com/cortex-tui/cortex-tui/internal/safetext"
)

// keysKind bounds what loadKeys reads: a class's authorized_keys is a few hundred lines.
var keysKind = load.Kind{Name: "authorized_keys file", MaxBytes: 1 << 20}

// maxKeys is the most keys loadKeys takes from one file.
const maxKeys = 10000

// keySet is a set of public keys, by their wire form. A nil keySet holds no key.
type keySet map[string]struct{}

// has reports whether k is in the set.
func (s keySet) has(k gossh.PublicKey) bool {
	_, ok := s[string(k.Marshal())]
	return ok
}

// loadKeys reads the keys of an authorized_keys file (one key a line, OpenSSH's format;
// options and comments allowed, blank lines and lines starting with # skipped). A line that
// is no key is an error naming the file and the line; so is a file with no key at all.
func loadKeys(path string) (keySet, error) {
	data, err := load.File(path, keysKind)
	if err != nil {
		return nil, err
	}
	set := keySet{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not a public key (%v): %s", path, i+1, err, safetext.Line(shorten(string(line), 40)))
		}
		if len(set) == maxKeys {
			return nil, fmt.Errorf("%s: more than %d keys", path, maxKeys)
		}
		set[string(k.Marshal())] = struct{}{}
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("%s: no public key in it (one a line, as in ~/.ssh/authorized_keys or a .pub file)", path)
	}
	return set, nil
}

// loadKey reads a file that holds exactly one public key (a .pub file, or one line of
// authorized_keys).
func loadKey(path string) (gossh.PublicKey, error) {
	set, err := loadKeys(path)
	if err != nil {
		return nil, err
	}
	if len(set) != 1 {
		return nil, fmt.Errorf("%s: %d keys, want the teacher's one", path, len(set))
	}
	for wire := range set {
		return gossh.ParsePublicKey([]byte(wire))
	}
	panic("unreachable")
}

// shorten cuts s to at most n runes, marking the cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
