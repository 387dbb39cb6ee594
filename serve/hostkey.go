package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/internal/load"
)

// hostKeyName is the host key's file in the data directory.
const hostKeyName = "ssh_host_ed25519_key"

// hostKeyKind bounds what loadHostKey reads: an OpenSSH private key is a few hundred bytes.
var hostKeyKind = load.Kind{Name: "host key", MaxBytes: 16 << 10}

// hostKey returns the server's host key from dir, generating it the first time (an Ed25519
// key in OpenSSH's format, mode 0600, in a directory of mode 0700), so that students see the
// same fingerprint at every start. A key file that others may read, or that is no private key,
// is refused with the file's name: the server never serves with a key it cannot trust.
func hostKey(dir string) (gossh.Signer, bool, error) {
	path := filepath.Join(dir, hostKeyName)
	signer, err := loadHostKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return signer, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("cannot create the data directory: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "cortex-tui serve host key")
	if err != nil {
		return nil, false, err
	}
	if err := atomicfile.Create(path, pem.EncodeToMemory(block), 0o600); err != nil {
		if errors.Is(err, fs.ErrExist) { // another server generated it meanwhile: use that one
			signer, err := loadHostKey(path)
			return signer, false, err
		}
		return nil, false, fmt.Errorf("cannot write the host key: %w", err)
	}
	signer, err = gossh.NewSignerFromKey(priv)
	return signer, true, err
}

// loadHostKey reads the host key at path; an error satisfies errors.Is(err, fs.ErrNotExist)
// when there is none.
func loadHostKey(path string) (gossh.Signer, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("host key %s can be read by others (mode %04o): make it private (chmod 600 %s) or remove it to generate a new one",
			path, fi.Mode().Perm(), path)
	}
	data, err := load.File(path, hostKeyKind)
	if err != nil {
		return nil, err
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("host key %s: %w (remove it to generate a new one)", path, err)
	}
	return signer, nil
}
