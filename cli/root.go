// Package cli is burnrate's command line: one file per command, wiring the
// packages together. It holds no analysis of its own.
package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"github.com/burnrate-dev/burnrate/display"
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
	if path := os.Getenv("BURNRATE_CPUPROFILE"); path != "" {
		// For bench/: a whole-process CPU profile, the view that tells
		// parse from correlate from encode.
		if f, err := os.Create(path); err == nil {
			defer f.Close() // after the profile is flushed (defers run last first)
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	if path := os.Getenv("BURNRATE_MEMPROFILE"); path != "" {
		defer func() { // what is live at the end: the state and the report
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	defer tuneGC(os.Getenv)()
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if out, ok := root.OutOrStdout().(*outWriter); ok {
		if werr := out.failed(); werr != nil {
			// The output is lost: never a success, never only "critical".
			if err != nil && !errors.Is(err, errCritical) && !errors.Is(err, werr) {
				for _, line := range errorLines(err) {
					fmt.Fprintln(os.Stderr, "burnrate:", display.Text(line))
				}
			}
			fmt.Fprintln(os.Stderr, "burnrate:", writeFailure(werr))
			return exitUsage
		}
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errCritical):
		return exitCritical
	default:
		// Errors name files, and a file name can hold anything (a glob
		// over a directory others can write to).
		for _, line := range errorLines(err) {
			fmt.Fprintln(os.Stderr, "burnrate:", display.Text(line))
		}
		return exitUsage
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use: "burnrate [FILE|GLOB...]",
		Example: `  burnrate demo                                  a simulated overnight batch, no files needed
  burnrate night.jsonl                           the dashboard on a log (burnrate watch night.jsonl)
  burnrate report night.jsonl                    a postmortem in Markdown
  burnrate completion bash > /etc/bash_completion.d/burnrate`,
		Version: Version(),
		Short:   "Watch LLM API spend and retries live, and write postmortems",
		Long: `burnrate reads the JSON-lines logs and OTLP your stack already emits and
correlates every call attempt by idempotency key, correlation ID and job into
per-job call counts, spend against a ceiling, circuit-breaker state and retry
findings.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Every command prints through cmd.OutOrStdout(): one writer that
	// remembers a failed write, for Main's exit status.
	root.SetOut(&outWriter{})
	root.AddCommand(newReportCmd(), newWatchCmd(), newReplayCmd(), newDemoCmd(), newBudgetCmd(), newFormatsCmd(), newPricesCmd(), newClaudeCmd(), newCodexCmd(), newOpenCodeCmd(),
		newAuditCmd(), newDefaultsCmd())
	// `burnrate FILE...` is `burnrate watch FILE...`.
	watch := newWatchCmd()
	root.Args = cobra.ArbitraryArgs
	root.SuggestionsMinimumDistance = 2
	root.Flags().AddFlagSet(watch.Flags())
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		if err := notACommand(root, args[0]); err != nil {
			return err
		}
		return watch.RunE(cmd, args)
	}
	return root
}

// notACommand refuses a first argument that reads like a mistyped command
// rather than a log: "burnrate reprot night.jsonl" must not open the
// dashboard waiting for a file named reprot.
func notACommand(root *cobra.Command, arg string) error {
	if arg == "-" || strings.ContainsAny(arg, "/.*?[") {
		return nil // a path, a glob or stdin
	}
	if _, err := os.Stat(arg); err == nil {
		return nil // a file that happens to have a plain name
	}
	msg := fmt.Sprintf("unknown command %q", arg)
	if s := root.SuggestionsFor(arg); len(s) > 0 {
		msg += fmt.Sprintf(" — did you mean %s?", strings.Join(s, " or "))
	}
	return fmt.Errorf("%s (to watch a file by that name, write ./%s; burnrate --help lists the commands)", msg, arg)
}

// Version is the module version and VCS revision the binary was built
// from, as the Go toolchain recorded them.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	v := bi.Main.Version
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " (" + rev
		if dirty {
			v += ", modified"
		}
		if at != "" {
			v += ", " + at
		}
		v += ")"
	}
	return v + " " + bi.GoVersion
}

// newClaudeCmd is watch --claude: the dashboard on every Claude Code
// session on this machine, new ones included.
func newClaudeCmd() *cobra.Command {
	watch := newWatchCmd()
	watch.Use = "claude [flags]"
	watch.Short = "Watch Claude Code sessions live: ~/.claude/projects as jobs, with their retries and spend"
	watch.Long = `The dashboard on Claude Code's transcripts (${CLAUDE_CONFIG_DIR:-~/.claude}/projects and
~/.config/claude/projects): each session is a job, its project the job type, and
Claude Code's own retries (api_error records) its failed attempts. Same flags as watch;
burnrate report --claude writes the postmortem instead.`
	watch.Flags().Set("claude", "true")
	return watch
}

func newCodexCmd() *cobra.Command {
	watch := newWatchCmd()
	watch.Use = "codex [flags]"
	watch.Short = "Watch Codex CLI sessions live: ~/.codex/sessions as jobs, with their calls and spend"
	watch.Long = `The dashboard on Codex CLI's session rollouts (${CODEX_HOME:-~/.codex}/sessions,
YYYY/MM/DD/rollout-*.jsonl): each session is a job, its project the job type, a
call each token_count whose running total moved. New sessions are picked up.
Same flags as watch; burnrate report --codex writes the postmortem instead.`
	watch.Flags().Set("codex", "true")
	return watch
}

// newOpenCodeCmd is watch on OpenCode's own JSON events: an unattended
// opencode run --format json piped in (or the file it was sent to). Its
// storage is rewritten message by message and cannot be followed; report
// --opencode reads it.
func newOpenCodeCmd() *cobra.Command {
	watch := newWatchCmd()
	watch.Use = "opencode [flags] [FILE...]"
	watch.Short = "Watch an unattended opencode run live: its --format json events as jobs, with their calls, retries and spend"
	watch.Long = `The dashboard on OpenCode's events (opencode run --format json), piped in:

  opencode run --format json "fix the tests" | burnrate opencode --headless --job-ceiling 5

or the files they were written to. Each session is a job, each step a call with
OpenCode's own cost beside burnrate's; a failed request is a failed attempt.
Same flags as watch; burnrate report --opencode reads OpenCode's storage
(${OPENCODE_DATA_DIR:-~/.local/share/opencode}/storage and opencode.db) instead;
OpenCode's SQLite database is not followed live.`
	run := watch.RunE
	watch.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			if st, err := os.Stdin.Stat(); err != nil || st.Mode()&os.ModeCharDevice != 0 {
				return errors.New("opencode: nothing to follow: pipe opencode run --format json into it (opencode run --format json \"…\" | burnrate opencode), or give the file its events were written to")
			}
			args = []string{"-"}
		}
		return run(cmd, args)
	}
	return watch
}

// errorLines is an error's text, one line per error when it is an
// errors.Join of several (a config with two bad limits), so each is its
// own "burnrate:" line instead of one line with an escaped newline. Only
// the join's own separators split: a newline inside one error (a file
// name can hold one) stays escaped by display.Text, so input can never
// forge a line of its own.
func errorLines(err error) []string {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []string{err.Error()}
	}
	var lines []string
	var msgs []string
	for _, e := range j.Unwrap() {
		if e == nil {
			continue
		}
		msgs = append(msgs, e.Error())
		lines = append(lines, errorLines(e)...)
	}
	if err.Error() != strings.Join(msgs, "\n") {
		// Several wrapped under a text of its own (fmt.Errorf with two %w).
		return []string{err.Error()}
	}
	return lines
}
