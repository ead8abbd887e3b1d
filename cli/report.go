package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/burnrate-dev/burnrate/audit"
	"github.com/burnrate-dev/burnrate/config"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/declared"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/ingest/otlp"
	"github.com/burnrate-dev/burnrate/report"
	"github.com/burnrate-dev/burnrate/statedir"
)

// analysisFlags are shared by every command that correlates logs.
type analysisFlags struct {
	// attemptLayer is --attempt-layer (correlate.Config.AttemptLayer).
	attemptLayer   string
	configPath     string
	prices         string
	maxCallsPerJob int
	maxCallCost    float64
	flags          *pflag.FlagSet // to tell a given flag from its default
	jobDeadline    string
	jobIdle        string
	claude         bool
	codex          bool
	// the agents of issue 35 whose files live in a home of their own
	opencode, copilot, pi, qwen bool
	jobRetention                string // live commands only
	costMode                    string
	timezone                    string
	format                      string
	maps                        []string
	patterns                    []string
	input                       decode.Options // resolved by load
	// assumptionsPath is --assumptions; declared what it (or, for a
	// command that cannot kill, a burnrate.assumptions.toml in the working
	// directory) declares: the operator's declarations.
	assumptionsPath string
	declared        []ingest.Event
	// acting is set for the commands that can kill (watch, replay, demo,
	// claude): they read no config they were not given.
	acting bool
}

// inputs are the files to read: the arguments, Claude Code's projects
// directories with --claude, and every *.jsonl in a directory (and
// *.jsonl.gz when gz: finished logs, not followed ones).
func (a *analysisFlags) inputs(args []string, gz bool) ([]string, error) {
	paths := slices.Clone(args)
	if a.claude {
		dirs, err := agentDirs("claude", decode.FormatClaudeCode)
		if err != nil {
			return nil, err
		}
		paths = append(paths, dirs...)
	}
	if a.codex {
		dirs, err := agentDirs("codex", decode.FormatCodex)
		if err != nil {
			return nil, err
		}
		paths = append(paths, dirs...)
	}
	for _, h := range []struct {
		on   bool
		flag string
		f    decode.Format
	}{{a.opencode, "opencode", decode.FormatOpenCode}, {a.copilot, "copilot", decode.FormatCopilot}, {a.pi, "pi", decode.FormatPi}, {a.qwen, "qwen", decode.FormatQwen}} {
		if !h.on {
			continue
		}
		// OpenCode since v1.2.0 keeps its sessions in opencode.db beside
		// the storage directory (which a newer install does not have):
		// both are read, a message in both billed once by its ID.
		dbs := file.HomeDBs(h.f)
		paths = append(paths, dbs...)
		if len(dbs) > 0 && len(file.HomeDirs(h.f)) == 0 {
			continue
		}
		dirs, err := agentDirs(h.flag, h.f)
		if err != nil {
			return nil, err
		}
		paths = append(paths, dirs...)
	}
	if len(paths) == 0 {
		return nil, errors.New("no input: give log files or directories, or --claude / --codex")
	}
	expanded, err := file.ExpandInputs(paths, gz)
	if err != nil {
		return nil, err
	}
	kept, dups := file.OnePathPerFile(expanded)
	for _, d := range dups {
		fmt.Fprintln(os.Stderr, "burnrate:", display.Text(d.Note()))
	}
	return kept, nil
}

// agentDirs are where f's producer keeps its files, or an error for
// --flag that says where they were looked for.
func agentDirs(flag string, f decode.Format) ([]string, error) {
	dirs := file.HomeDirs(f)
	if len(dirs) == 0 {
		h := decode.Row(f).Home
		return nil, fmt.Errorf("--%s: no %s directory (looked in %s); set %s or give the directory", flag, h.What, h.Where(), h.Env)
	}
	return dirs, nil
}

func (a *analysisFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	a.flags = f
	f.StringVar(&a.configPath, "config", "", "TOML config file (default ./burnrate.toml if present)")
	f.StringVar(&a.prices, "prices", "", "a price table in LiteLLM's format; wins over the embedded LiteLLM table (burnrate prices)")
	f.IntVar(&a.maxCallsPerJob, "max-calls-per-job", correlate.DefaultMaxCallsPerJob, "attempts of one call (a model or tool call retried) above which hidden_retry_layer fires; 0 disables")
	f.Float64Var(&a.maxCallCost, "max-call-cost", correlate.DefaultMaxCallCostUSD, "USD: a call whose computed cost (tokens × prices) is above this is flagged over cap in the report, and still counted in spend and every ceiling; 0 flags none")
	f.StringVar(&a.format, "input-format", "", "force the input format instead of detecting it per file: "+formatNames()+" (burnrate formats)")
	f.StringArrayVar(&a.maps, "map", nil, "map a canonical field to a dotted path in nested JSON, e.g. --map job_id=ctx.job.id (repeat)")
	f.StringArrayVar(&a.patterns, "pattern", nil, "read your application's own text lines: a regular expression whose named groups are canonical fields, e.g. 'attempt (?P<attempt>\\d+)/\\d+ failed: (?P<status>\\d{3})' (repeat; docs/formats.md: Your own format)")
	f.BoolVar(&a.claude, "claude", false, "read Claude Code's transcripts: ${CLAUDE_CONFIG_DIR:-~/.claude}/projects and ~/.config/claude/projects")
	f.BoolVar(&a.codex, "codex", false, "read Codex CLI's session rollouts: ${CODEX_HOME:-~/.codex}/sessions")
	f.BoolVar(&a.opencode, "opencode", false, "read OpenCode's sessions: ${OPENCODE_DATA_DIR:-~/.local/share/opencode}/storage and its opencode.db")
	f.BoolVar(&a.copilot, "copilot", false, "read GitHub Copilot CLI's session events: ${COPILOT_HOME:-~/.copilot}/session-state")
	f.BoolVar(&a.pi, "pi", false, "read the Pi coding agent's sessions: ${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions")
	f.BoolVar(&a.qwen, "qwen", false, "read Qwen Code's chats: ${QWEN_DATA_DIR:-~/.qwen}/projects")
	f.StringVar(&a.assumptionsPath, "assumptions", "", "a TOML file of the premises the run depends on, the operator's: the only declarations that arm a kill (kill_on finding:assumption_violated); report and budget read ./"+config.DefaultAssumptionsPath+" if present, watch and replay only the file named here (docs/assumptions.md)")
	f.StringVar(&a.timezone, "timezone", "", "the zone of a time written without one (\"2026-05-30T11:30:35\", Python's isoformat()): an IANA name (Europe/Berlin), Local, or an offset (+09:00); default the config's timezone, else UTC. Each such line is counted (fields_dropped: time_no_zone)")
	f.StringVar(&a.costMode, "cost-mode", "auto", "Claude Code transcripts: auto (costUSD where present, else tokens × prices), calculate (always tokens × prices, as ccusage), display (costUSD only)")
	f.StringVar(&a.jobIdle, "job-idle", "", fmt.Sprintf("live: a job without queue events takes its outcome (its last call's) once idle this long in log time; 0: only at the end (default %s)", correlate.DefaultIdleAfter))
	f.StringVar(&a.jobDeadline, "job-deadline", "", fmt.Sprintf("first attempt to outcome limit for deadline_exceeded; 0 disables (default %s)", correlate.DefaultJobDeadline))
	f.StringVar(&a.attemptLayer, "attempt-layer", "", "whose count a record's own attempt field is: app (the application's wrapper, the default), sdk (the provider SDK's: each record one HTTP attempt) or a layer's name; wins over the config's [layers] attempt (docs/assumptions.md)")
}

// load reads the config file and builds the correlation config.
func (a *analysisFlags) load() (*config.File, correlate.Config, error) {
	file, err := config.LoadFor(a.configPath, a.acting)
	if err != nil {
		return nil, correlate.Config{}, err
	}
	over := config.Analysis{Prices: a.prices, MaxCallsPerJob: -1}
	if a.flags != nil && a.flags.Changed("max-calls-per-job") {
		over.MaxCallsPerJob = a.maxCallsPerJob // given: it beats the config file
	}
	if a.flags != nil && a.flags.Changed("max-call-cost") {
		over.MaxCallCostUSD, over.MaxCallCostSet = a.maxCallCost, true
	}
	if a.jobDeadline != "" {
		d, err := config.ParseDuration(a.jobDeadline)
		if err != nil {
			return nil, correlate.Config{}, fmt.Errorf("--job-deadline: %w", err)
		}
		over.JobDeadline, over.DeadlineSet = d, true
	}
	if a.jobIdle != "" {
		d, err := config.ParseDuration(a.jobIdle)
		if err != nil {
			return nil, correlate.Config{}, fmt.Errorf("--job-idle: %w", err)
		}
		over.JobIdle, over.IdleSet = d, true
	}
	over.Live = a.acting
	if a.jobRetention != "" {
		d, err := config.ParseDuration(a.jobRetention)
		if err != nil {
			return nil, correlate.Config{}, fmt.Errorf("--job-retention: %w", err)
		}
		over.JobRetention, over.RetentionSet = d, true
	}
	over.AttemptLayer = a.attemptLayer
	cfg, err := file.Correlate(over)
	for _, w := range file.Warnings {
		fmt.Fprintln(os.Stderr, "burnrate:", display.Text(w))
	}
	if err != nil {
		return file, cfg, err
	}
	if cfg.Prices != nil && len(cfg.Prices.Refused) > 0 {
		// The counted warning of a refused entry (correlate.implausibleRates):
		// the report's price line says it too, the dashboard does not.
		fmt.Fprintf(os.Stderr, "burnrate: warning: prices %s: %s\n", display.Text(cfg.Prices.Source), display.Text(cfg.Prices.RefusedSummary()))
	}
	a.input, err = file.Input(a.format, a.maps, a.patterns...)
	if err != nil {
		return file, cfg, err
	}
	a.input.CostMode, err = decode.ParseCostMode(a.costMode)
	a.input.OTLP = otlp.NewFileDecoder // files of OTLP/JSON requests: the receiver's mapping
	if err != nil {
		return file, cfg, err
	}
	if a.timezone != "" { // given: it beats the config's timezone
		if a.input.Zone, err = decode.ParseZone(a.timezone); err != nil {
			return file, cfg, fmt.Errorf("--timezone: %w", err)
		}
	}
	if a.acting && a.assumptionsPath == "" {
		// A command that can kill reads no file it was not given (as
		// --config): a broken burnrate.assumptions.toml lying in the
		// working directory must not keep the kill path from starting,
		// nor one nobody named arm a kill. Its declarations are then
		// the logs' own: shown and alerted, never a kill.
		return file, cfg, nil
	}
	// Named: the operator's declarations, the only ones that arm a kill
	// (kill_on finding:assumption_violated); a live run applies them to
	// every run before its first event.
	a.declared, err = config.LoadAssumptions(a.assumptionsPath)
	return file, cfg, err
}

func newReportCmd() *cobra.Command {
	var a analysisFlags
	var format, baseline, stackFile, journal string
	var auditRoots []string
	var merge bool
	var replicas []string
	cmd := &cobra.Command{
		Use:   "report [flags] FILE...",
		Short: "Write a postmortem of finished logs (Markdown or JSON)",
		Long: `Reads JSON-lines logs (plain or gzip; "-" is stdin), correlates every
attempt and prints the postmortem. Exit code 0: clean; 1: a critical finding
exists; 2: bad usage or unreadable input.`,
		Example: "  burnrate report sample-logs/seed000-incident.jsonl\n  burnrate report --format json night.jsonl.gz > night.json\n  burnrate report --claude                 # every Claude Code session on this machine\n  burnrate report --merge --format json a.json b.json   # a sharded night's replicas, one report",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "md" && format != "json" {
				return fmt.Errorf("--format %q: use md or json", format)
			}
			if stackFile != "" && len(auditRoots) > 0 {
				return errors.New("--stack and --audit both declare the retry layers to compare: give one (--audit PATH scans the code; --stack reads a stack file, e.g. burnrate audit --format toml PATH > stack.toml, corrected by hand)")
			}
			if merge {
				if stackFile != "" || len(auditRoots) > 0 {
					// Replicas' reports keep calls per job, not the calls
					// of one operation: the comparison needs the logs.
					return errors.New("--merge reads replicas' reports, which do not keep the calls of one operation that --stack and --audit compare: run report --stack (or --audit) on the replicas' logs together instead")
				}
				return mergeReports(cmd.OutOrStdout(), args, format, replicas)
			}
			var stack correlate.DeclaredStack
			if stackFile != "" {
				// Read before the logs: a bad stack file fails in a moment,
				// not after a night's log.
				var err error
				if stack, err = declared.FromStackFile(stackFile); err != nil {
					return err
				}
			}
			cfgFile, cfg, err := a.load()
			if err != nil {
				return err
			}
			cfg.NoAttemptDetail = true // no view reads them
			cfg.SettleResumed = true   // its files are read together, in time order
			// The config's limits and kill rules, run over the night as
			// the live run ran them.
			night, err := newNightRules(cfgFile)
			if err != nil {
				return err
			}
			var audited *audit.Result
			if len(auditRoots) > 0 {
				if audited, err = audit.Scan(auditRoots, audit.DefaultOptions()); err != nil {
					return fmt.Errorf("--audit: %w", err)
				}
			}
			paths, err := a.inputs(args, true)
			if err != nil {
				return err
			}
			var base *correlate.Report
			if baseline != "" {
				if base, err = report.ReadBaseline(baseline); err != nil {
					return err
				}
			}
			st, empty, unopened, err := correlateFilesObserved(cfg, paths, a.input, a.declared, night)
			if err != nil {
				return err
			}
			var kills []correlate.KillMade
			if journal != "" {
				if kills, err = readKills(journal, st); err != nil {
					return err
				}
			}
			if audited != nil {
				st.SetDerivedAssumptions(declared.Derived(audited))
			}
			// Only what is written is built: JSON streams every job
			// from the state, Markdown shows the costliest few.
			opt := correlate.ReportOptions{TopJobs: report.CostliestJobs}
			if format == "json" {
				opt = correlate.ReportOptions{StreamJobs: true}
			}
			r := st.ReportWith(opt)
			if night != nil || journal != "" {
				r.Night = &correlate.NightReport{Journal: journal, Kills: kills, Crossings: []correlate.Crossing{}}
				if night != nil {
					r.Night.Limits, r.Night.Crossings = night.limits, append(r.Night.Crossings, night.crossings...)
					r.Night.CrossingsTotal = night.total
				}
			}
			for _, h := range append(r.Source.ReadErrors, r.Source.Hints...) {
				fmt.Fprintln(os.Stderr, "burnrate:", display.Text(h)) // file names are untrusted too
			}
			if len(r.Source.FieldsDropped) > 0 {
				fmt.Fprintln(os.Stderr, "burnrate: fields not read as written, each line kept:", display.Text(report.FieldsDropped(r.Source.FieldsDropped)))
			}
			if base != nil {
				correlate.CompareAssumptions(r, base.Assumptions, cfg.SeverityOf)
			}
			correlate.FlagUpstreamChanges(r, statedir.UpstreamChanges, cfg.SeverityOf)
			switch {
			case stackFile != "":
				st.CompareDeclared(r, stack, "", nil, cfg.SeverityOf)
			case audited != nil:
				d, rule, others, err := declared.FromAudit(audited, r)
				if errors.Is(err, declared.ErrNoAuditStack) {
					fmt.Fprintf(os.Stderr, "burnrate: --audit %s: no retry layer found in %d files read, so no declared stack to compare with the logs: is it the code that wrote them?\n", display.Text(strings.Join(auditRoots, ", ")), audited.Files)
					break
				}
				st.CompareDeclared(r, d, rule, others, cfg.SeverityOf)
			}
			if format == "json" {
				err = report.JSON(cmd.OutOrStdout(), r)
			} else {
				err = report.MarkdownCompared(cmd.OutOrStdout(), r, base)
			}
			if err != nil {
				return fmt.Errorf("write report: %w", err)
			}
			if r.Source.Events == 0 {
				// A postmortem of nothing is a usage error, not a clean night.
				return fmt.Errorf("no events in %s: nothing was read as a model call or job event (see the skipped lines and the hint above; burnrate formats lists what is read)", display.Text(strings.Join(args, ", ")))
			}
			if len(unopened) > 0 {
				// A file that could not be opened costs that file only
				// (R6-15), but the report is without it: no clean night.
				return fmt.Errorf("%d of %d input files could not be opened (each named above), so the report above is without them: %s", len(unopened), len(paths), display.Text(firstNames(unopened, 3)))
			}
			if len(empty) > 0 {
				// One file read to nothing beside others that read: its
				// calls are missing from the report above, which is no
				// clean night either (issue 39: a chat log lost 50 of 100
				// calls with exit 0 and nothing said).
				return fmt.Errorf("no events in %s: nothing in it was read as a model call or job event, so the report above is without it (see its hint above; burnrate formats lists what is read)", display.Text(strings.Join(empty, ", ")))
			}
			if r.HasCritical() {
				return errCritical
			}
			return nil
		},
	}
	a.register(cmd)
	cmd.Flags().StringVar(&format, "format", "md", "output format: md or json")
	cmd.Flags().BoolVar(&merge, "merge", false, "the FILEs are replicas' JSON reports (watch --report-out) of one sharded run: merge them into one report")
	cmd.Flags().StringSliceVar(&replicas, "replicas", nil, "with --merge: every replica of the fleet (--replica names, comma-separated); a missing report is an error, not a smaller total")
	cmd.Flags().StringSliceVar(&auditRoots, "audit", nil, "source trees to audit (burnrate audit): their retry layers become the assumptions' derived values, and their likeliest call path is set beside the calls per operation seen (Declared vs observed)")
	cmd.Flags().StringVar(&stackFile, "stack", "", "a stack file (burnrate audit --format toml writes one; budget layers --file reads it): its layers' product is set beside the calls per operation seen, and an operation above it is undeclared_retry_layer")
	cmd.Flags().StringVar(&journal, "journal", "", "the alerts journal the live run wrote (watch --journal): the report lists the kills it records, and a job a kill reached is \"killed\"")
	cmd.Flags().StringVar(&baseline, "baseline", "", "a previous report's JSON (report --format json): the Markdown headline gets a Baseline column, before beside after, and assumptions that changed since it are assumption_changed")
	return cmd
}

// correlateFiles reads every file to the end, merged by event time, into a
// new State.
//
// declared are the assumptions of --assumptions: applied first, they take
// the time of the first event.
//
// empty names the files that gave no event and skipped lines for an error
// (a summary-only Claude Code transcript gave no event and skipped none).
func correlateFiles(cfg correlate.Config, paths []string, opts decode.Options, declared []ingest.Event) (st *correlate.State, empty []string, err error) {
	st, empty, _, err = correlateFilesObserved(cfg, paths, opts, declared, nil)
	return st, empty, err
}

// firstNames is the first n of names, and how many more there are.
func firstNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// correlateFilesObserved is correlateFiles with the config's rules (night,
// may be nil) seeing every event right after it is applied. unopened names
// the files that could not be opened (each costs itself only).
func correlateFilesObserved(cfg correlate.Config, paths []string, opts decode.Options, declared []ingest.Event, night *nightRules) (st *correlate.State, empty, unopened []string, err error) {
	fs, err := file.OpenFiles(paths, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	defer fs.Close()
	st = correlate.New(cfg)
	for i := range declared {
		st.Apply(&declared[i])
	}
	if night != nil {
		file.Drain(fs.Events(), observer{st: st, after: func(j *correlate.Job, ev *ingest.Event) { night.rules.Observe(st, j, ev) }})
	} else {
		file.Drain(fs.Events(), st)
	}
	src := make([]correlate.SourceInfo, len(fs.Files))
	for i, it := range fs.Files {
		src[i] = correlate.SourceInfo{Name: it.Path, Stats: it.Stats, Format: string(it.Detected.Format), Hint: it.Hint(), Err: it.ErrText()}
		if it.Stats.Events == 0 && it.Stats.SkippedTotal() > 0 {
			empty = append(empty, it.Path)
		}
		if it.Unopened() {
			unopened = append(unopened, it.Path)
		}
	}
	st.SetSources(src)
	if n := fs.InMemory(); n > 0 {
		// The price of a bounded number of open files, said (R6-15).
		fmt.Fprintf(os.Stderr, "burnrate: %d of %d files were read whole into memory: more than %d were in flight at one time, the most held open at once\n", n, len(fs.Files), fs.Budget())
	}
	return st, empty, unopened, nil
}

// mergeReports is report --merge: replicas' JSON reports in, one out.
func mergeReports(w io.Writer, paths []string, format string, replicas []string) error {
	in, err := report.ReadMergeInputs(paths, replicas)
	if err != nil {
		return err
	}
	r, err := correlate.MergeReports(in)
	if err != nil {
		return err
	}
	for _, d := range r.Merged.Dropped {
		fmt.Fprintln(os.Stderr, "burnrate: merge:", display.Text(d))
	}
	for _, c := range r.Merged.Conflicts {
		fmt.Fprintln(os.Stderr, "burnrate: merge: conflict:", display.Text(c))
	}
	if r.Merged.SplitJobs > 0 {
		fmt.Fprintf(os.Stderr, "burnrate: merge: %d job(s) were seen by more than one replica (a traceID route, spans without job.id, or a restart): their calls and spend are summed\n", r.Merged.SplitJobs)
	}
	if format == "json" {
		err = report.JSON(w, r)
	} else {
		err = report.Markdown(w, r)
	}
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if r.HasCritical() {
		return errCritical
	}
	return nil
}

// formatNames lists every format the registry has, for help texts.
func formatNames() string {
	names := make([]string, len(decode.Formats))
	for i, f := range decode.Formats {
		names[i] = string(f.Name)
	}
	return strings.Join(names, ", ")
}
