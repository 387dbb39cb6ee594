// Package scenarios holds the scenario format (TOML), its strict parser and validation, and the
// catalog of built-in scenarios embedded in the binary.
package scenarios
