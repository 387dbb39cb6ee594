// Package scenarios holds the scenario format (TOML), its strict parser and validation, and the
// catalog of built-in scenarios embedded in the binary.
//
// A Scenario is a plain value: who sends traffic (a fleet of clients, priority classes and a
// load profile), to what downstream service, which faults happen when, and the timed notes the
// dashboard shows as captions. Parse and ParseFile read the TOML format described in
// docs/scenarios.md, fill the defaults of keys left out (see Defaults) and validate; every
// problem found is reported at once as Errors, each naming the file, the line where known and
// the field. Catalog and Lookup serve the built-ins, parsed once from scenarios/builtin/*.toml.
//
// The package has no state beyond the parsed catalog and is safe for concurrent use; it
// imports no UI library.
package scenarios
