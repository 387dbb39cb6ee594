package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// runDashboard opens the dashboard on scn. TEMPORARY: replaced by the dashboard work.
func runDashboard(_ *cobra.Command, _ streams, _ scenarios.Scenario, _ runOptions) error {
	return errors.New("the dashboard is not built yet")
}

// openPicker opens the dashboard on the scenario picker. TEMPORARY: replaced by the dashboard work.
func openPicker(_ *cobra.Command, _ streams) error {
	return errors.New("the dashboard is not built yet")
}
