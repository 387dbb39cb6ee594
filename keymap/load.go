package keymap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cortex-tui/cortex-tui/internal/load"
)

// DefaultPath returns where the key file lives: os.UserConfigDir()/cortex-tui/keys.toml. It
// fails only when the user's config directory is unknown (no $HOME or $XDG_CONFIG_HOME).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("locating the key file: %w", err)
	}
	return filepath.Join(dir, "cortex-tui", "keys.toml"), nil
}

// Load returns Default() with the actions named in the TOML file at path rebound. A missing
// file (or an empty path) is not an error: it yields Default(). The file is read through the
// loader's limits for a key file (load.Keys: 64 KiB, whatever the file is, and bounds on its
// structure). Errors name the file, the line when known and the offending action or key.
func Load(path string) (KeyMap, error) {
	if path == "" {
		return Default(), nil
	}
	data, err := load.File(path, load.Keys)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return KeyMap{}, err
	}
	return Parse(path, data)
}
