// Package cli is burnrate's command line: one file per command, wiring the
// packages together. It holds no analysis of its own.
package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes: scripts gate on them.
const (
	exitOK       = 0
	exitCritical = 1 // a critical finding exists
	exitUsage    = 2 // bad usage or unreadable input
)

// errCritical makes a command exit 1 without printing an error.
var errCritical = errors.New("critical finding")

// Main runs the command line and returns the process exit code.
func Main(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errCritical):
		return exitCritical
	default:
		fmt.Fprintln(os.Stderr, "burnrate:", err)
		return exitUsage
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "burnrate",
		Short: "Watch LLM API spend and retries live, and write postmortems",
		Long: `burnrate reads the JSON-lines logs and OTLP your stack already emits and
correlates every call attempt by idempotency key, correlation ID and job into
per-job call counts, spend against a ceiling, circuit-breaker state and retry
findings.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newReportCmd(), newWatchCmd(), newReplayCmd(), newDemoCmd(), newBudgetCmd(), newFormatsCmd(), newPricesCmd())
	// `burnrate FILE...` is `burnrate watch FILE...`.
	watch := newWatchCmd()
	root.Args = cobra.ArbitraryArgs
	root.Flags().AddFlagSet(watch.Flags())
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return watch.RunE(cmd, args)
	}
	return root
}
