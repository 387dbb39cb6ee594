// Command cortex-tui is a terminal dashboard and playground for retry storms and the CORTEX
// engine that prevents them. All commands are wired in package cli.
package main

import (
	"os"

	"github.com/cortex-tui/cortex-tui/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
