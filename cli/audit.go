package cli

import (
	"bufio"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/burnrate-dev/burnrate/audit"
	"github.com/burnrate-dev/burnrate/budget"
)

func newAuditCmd() *cobra.Command {
	var format string
	opt := audit.DefaultOptions()
	var attempt string
	cmd := &cobra.Command{
		Use:   "audit [PATH...]",
		Short: "Find every retry layer in a codebase, with the defaults nobody set, and multiply them",
		Long: `Reads code, configuration and lockfiles (never following a symlink below the
paths named, skipping vendored, generated, binary and oversized files, which it
counts) for the layers
that can retry one call: SDK clients, wrappers, frameworks, queues, proxies,
front-end clients and coding agents. Each layer is given its configured value,
or the library's default when nothing sets it; the layers of a likely call path
are multiplied and their wall clock folded as 'budget layers' does.

Exit status 1 when a finding is critical (an unbounded layer, or a layer that
retries a 400 on top of another layer), for CI.`,
		Example: `  burnrate audit .
  burnrate audit --format sarif . > audit.sarif
  burnrate audit --format toml . > stack.toml && burnrate budget layers --file stack.toml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			d, err := budget.ParseSeconds(attempt)
			if err != nil || d <= 0 {
				return fmt.Errorf("--attempt-time %q: a positive duration, e.g. 10s", attempt)
			}
			opt.AttemptTime = d
			if opt.MaxLayers < 1 {
				return fmt.Errorf("--max-layers %d: use 1 or more", opt.MaxLayers)
			}
			if opt.Threshold < 1 {
				return fmt.Errorf("--threshold %d: use 1 or more", opt.Threshold)
			}
			switch format {
			case "md", "text", "json", "sarif", "toml":
			default:
				return fmt.Errorf("--format %q: use md, text, json, sarif or toml", format)
			}
			formatSet := cmd.Flags().Changed("format")
			res, err := audit.Scan(args, opt)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			switch format {
			case "json":
				err = res.WriteJSON(w)
			case "sarif":
				err = res.WriteSARIF(w, Version())
			case "toml":
				err = res.WriteTOML(w)
			case "text":
				err = res.WriteText(w)
			default:
				// Markdown to a file or a pipe; a terminal gets the text
				// form, where &lt;= would be noise.
				if f, ok := cmd.OutOrStdout().(*os.File); ok && !formatSet && term.IsTerminal(f.Fd()) {
					err = res.WriteText(w)
				} else {
					err = res.WriteMarkdown(w)
				}
			}
			if err == nil {
				err = w.Flush()
			}
			if err != nil {
				return err
			}
			if res.HasCritical() {
				return errCritical
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "md (plain text on a terminal), text, json, sarif (GitHub code scanning) or toml (a budget layers --file stack)")
	cmd.Flags().IntVar(&opt.Threshold, "threshold", opt.Threshold, "warn when a call path's attempts multiply past this (as budget layers)")
	cmd.Flags().StringVar(&attempt, "attempt-time", "10s", "how long one failing call takes, for the fail-fast wall clock")
	cmd.Flags().IntVar(&opt.MaxLayers, "max-layers", opt.MaxLayers, "keep at most this many layers, the first by file and line (the report says when more were found)")
	cmd.Flags().Int64Var(&opt.MaxFileBytes, "max-file-size", opt.MaxFileBytes, "skip source and config files larger than this many bytes")
	return cmd
}

func newDefaultsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "defaults [LIBRARY]",
		Short: "The retry defaults table audit uses: each library's attempts, what it retries, and the source it was read from",
		Example: `  burnrate defaults
  burnrate defaults p-retry
  burnrate defaults @anthropic-ai/sdk`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rows := audit.Defaults
			if len(args) == 1 {
				if rows = audit.Find(args[0]); len(rows) == 0 {
					return fmt.Errorf("no library %q in the defaults table (burnrate defaults lists them)", args[0])
				}
			}
			audit.WriteDefaults(cmd.OutOrStdout(), rows)
			return nil
		},
	}
}
