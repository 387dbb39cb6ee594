package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// runHeadless runs scn without the dashboard and prints the result in o.format.
// TEMPORARY: replaced by the simulator work.
func runHeadless(_ *cobra.Command, _ streams, _ scenarios.Scenario, _ runOptions) error {
	return errors.New("headless runs are not built yet")
}
