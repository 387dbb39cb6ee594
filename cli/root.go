// Package cli wires the cortex-tui commands: it parses flags, builds a scenario, a Source or a
// simulator run, and hands it to the dashboard or to a printer. It holds no domain logic.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
)

// Version is the program's version when set at build time with -ldflags "-X ...cli.Version=v1.2.3";
// otherwise --version reads the module version and VCS revision from the build info (versionString).
var Version = "dev"

// exitError carries a specific exit status (2 for usage errors and a missing terminal).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// stopGrace is how long Execute waits, after a stop signal, for the command to return: the
// dashboard restores the terminal within it; a command blocked in the kernel (opening a FIFO
// that has no writer) is abandoned after it. A variable so that tests can shorten it.
var stopGrace = 2 * time.Second

// Execute runs the command line args with the given streams and returns the exit status: 0, 1
// for a failure, 2 for a usage error, and 128 + the signal's number when SIGINT, SIGTERM or
// SIGHUP stops the command (130, 143, 129), after the dashboard has restored the terminal.
// Output that cannot be written (a full disk) is a failure.
func Execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := notifyContext(context.Background(), stopSignals...)
	defer stop()
	return execute(ctx, args, stdin, stdout, stderr)
}

// execute is Execute stopped by ctx instead of by signals: when ctx is cancelled with a
// *stopped cause, the command stops with that signal's status.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: stdout}
	root := newRootCmd(stdin, out, stderr)
	root.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case err = <-done:
		case <-time.After(stopGrace):
		}
	}
	var st *stopped
	if errors.As(context.Cause(ctx), &st) {
		err = st
	} else if out.err != nil && (err == nil || errors.Is(err, out.err)) {
		err = fmt.Errorf("cannot write the output: %w", out.err)
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "cortex-tui:", safetext.Text(err.Error())) // it may quote a file's text
	var ee *exitError
	switch {
	case errors.As(err, &st):
		return st.code()
	case errors.As(err, &ee):
		return ee.code
	}
	return 1
}

// streams are the command's standard streams, injected so tests can capture them.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	io := streams{in: stdin, out: stdout, err: stderr}
	root := &cobra.Command{
		Use:   "cortex-tui",
		Short: "A terminal dashboard and playground for retry storms and the CORTEX engine",
		Long: `cortex-tui simulates a fleet of retrying clients and the service they can kill, and
shows how one Composite Pressure Score (CPS) decides which retries may go.

With no command it opens the dashboard on a scenario picker.`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.NoArgs(cmd, args); err != nil { // unknown command "x"
				return &exitError{code: 2, err: err}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return openPicker(cmd, io)
		},
	}
	addKeysFlag(root)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: 2, err: err}
	})
	for _, add := range subcommands {
		root.AddCommand(add(io))
	}
	return root
}

// subcommands lists the constructors of every sub-command; each command's file registers its
// own in an init function, so adding a command touches no other file.
var subcommands []func(streams) *cobra.Command
