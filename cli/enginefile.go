package cli

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/sim"
)

// engineHelp describes --engine.
const engineHelp = "engine configuration of the cortex strategy: a cortex.toml file (cortex-tui engine --toml writes the defaults, cortex-tui tune a tuned one)"

// addEngineFlag adds --engine FILE to cmd, read into *path.
func addEngineFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "engine", "", engineHelp)
}

// engineFile is an engine configuration given with --engine (or --compare-engine): the file's
// configuration and its name as the screens show it. The zero value is the defaults.
type engineFile struct {
	cfg  *engine.Config // nil: engine.DefaultConfig
	name string         // the file's base name
}

// readEngineFile reads the engine file at path ("" for none: the defaults) as every command
// reads it (loadEngine); a bad file is a usage error naming every problem.
func readEngineFile(io streams, path string) (engineFile, error) {
	if path == "" {
		return engineFile{}, nil
	}
	cfg, err := loadEngine(io, path)
	if err != nil {
		return engineFile{}, err
	}
	return engineFile{cfg: &cfg, name: filepath.Base(path)}, nil
}

// sim returns the simulator's options running e's configuration for cortex.
func (e engineFile) sim() sim.Options { return sim.Options{Engine: e.cfg, EngineName: e.name} }
