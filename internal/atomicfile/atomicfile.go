// Package atomicfile writes files so that a reader, or the program after a crash, sees either
// the old content or the whole new one, never half a file: the data goes to a temporary file
// in the same directory, which is then renamed onto the name (Write) or linked to it only if
// the name is free (Create). The package uses the standard library only; its functions are
// safe for concurrent use (two writers of one name leave one of their files whole).
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes data to path with permissions perm, replacing the file there, if any, at once.
func Write(path string, data []byte, perm os.FileMode) error {
	name, err := temp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		_ = os.Remove(name)
		return err
	}
	return nil
}

// Create writes data to path with permissions perm if nothing is there yet; if something is,
// it changes nothing and returns an error that satisfies errors.Is(err, fs.ErrExist).
func Create(path string, data []byte, perm os.FileMode) error {
	name, err := temp(path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(name) // the link keeps the content under path
	err = os.Link(name, path)
	var le *os.LinkError
	if errors.As(err, &le) {
		err = &os.PathError{Op: "create", Path: path, Err: le.Err}
	}
	return err
}

// temp writes data to a new temporary file beside path, synced to the disk, with permissions
// perm, and returns its name.
func temp(path string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // CreateTemp makes 0600 whatever the umask
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(name)
		return "", err
	}
	return name, nil
}
