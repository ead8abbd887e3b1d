package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/config"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/ingest/follow"
	"github.com/burnrate-dev/burnrate/ingest/otlp"
	"github.com/burnrate-dev/burnrate/metrics"
	"github.com/burnrate-dev/burnrate/report"
	"github.com/burnrate-dev/burnrate/scenario"
	"github.com/burnrate-dev/burnrate/statedir"
	"github.com/burnrate-dev/burnrate/statedir/spool"
	"github.com/burnrate-dev/burnrate/ui"
)

// liveFlags are shared by watch, replay and demo.
type liveFlags struct {
	analysisFlags
	act         config.ActionFlags
	headless    bool
	reportOut   string
	metricsAddr string
	// metricsTokenFile and metricsInsecure guard a /metrics listener that
	// is not on loopback.
	metricsTokenFile string
	metricsInsecure  bool
	// replica names this process among a fleet's: a label on /metrics
	// and a field of --report-out, for report --merge.
	replica string
	// afterRun, when set, judges the run once it has ended (replay: no
	// events is an error, as for report).
	afterRun func(last *engine.Frame) error
	// spool keeps the events across a restart (see statedir/spool): set
	// by watch when no input would be read again from its start.
	spool bool
	// fromEnd: files are followed from their end (watch --from-end).
	fromEnd       bool
	spoolMaxBytes int64
	// killNote is said beside the kill hook on screen (the demo's
	// in-process receiver).
	killNote string
}

func (l *liveFlags) register(cmd *cobra.Command) {
	l.analysisFlags.register(cmd)
	l.acting = true
	// What config.LoadFor does for a command that can kill: it reads no
	// ./burnrate.toml it was not given (issue 36: the help said it did).
	cmd.Flags().Lookup("config").Usage = "TOML config file, read only when named here or by $" + config.EnvConfig + ": a ./burnrate.toml in the working directory is not read (the command stops and says so), since a command that can kill reads no config it was not given"
	f := cmd.Flags()
	f.Float64Var(&l.act.Ceiling, "ceiling", 0, "run spend ceiling in USD (rule run_ceiling; drawn in the header)")
	f.Float64Var(&l.act.JobCeiling, "job-ceiling", 0, "per-job spend ceiling in USD (rule job_ceiling)")
	f.Float64Var(&l.act.BurnRate, "burn-rate", 0, "burn-rate limit in USD/min over the burn window (rule burn_rate)")
	f.Float64Var(&l.act.Projected, "projected-ceiling", 0, "projected run total limit in USD (rule projected_ceiling)")
	f.StringVar(&l.act.KillWebhook, "kill-webhook", "", "POST a kill request here when a kill rule fires")
	f.StringVar(&l.act.KillExec, "kill-exec", "", "run this command (no shell) when a kill rule fires; {job_id} {job_type} {scope} {rule} {run_id} {spend_usd} {ceiling_usd}")
	f.StringVar(&l.act.RunKillExec, "run-kill-exec", "", "run this command (no shell) for a run-wide kill (run ceiling) instead of --kill-exec; {run_id} {spend_usd} {ceiling_usd} {rule}")
	f.StringVar(&l.act.NotifyWebhook, "notify-webhook", "", "POST non-kill alerts here as {\"text\": ...} (Slack-compatible)")
	f.BoolVar(&l.act.DryRun, "dry-run", false, "evaluate and journal everything as \"would fire\"; send nothing")
	f.BoolVar(&l.act.ReadOnly, "readonly", false, "disable every kill, from keys and rules alike")
	f.BoolVar(&l.headless, "headless", false, "no dashboard: alerts as JSON lines on stdout, a status line on stderr every minute")
	f.StringVar(&l.reportOut, "report-out", "", "write the report JSON to this file on exit")
	f.StringVar(&l.jobRetention, "job-retention", "", fmt.Sprintf("retire a finished job's detail this long (log time) after its last event; its spend and counts stay in every sum; 0 keeps every job (default %s)", correlate.DefaultJobRetention))
	f.StringVar(&l.act.RunID, "run-id", "", "name this run: kills are keyed by it (default: the logs' run_id, else derived from the file names and first event)")
	f.StringVar(&l.act.RunWindow, "run-window", "", "where a run ends when the logs name no run_id: \"daily 06:00 Europe/Berlin\", \"idle 2h\" (default: only at a change of the logs' run_id)")
	f.StringVar(&l.act.Journal, "journal", "", "action journal file (default $STATE_DIRECTORY/journal.jsonl, else ~/.local/state/burnrate/journal.jsonl)")
	// Default 0 (unset): a flag default that is set would always win over
	// the config's [actions] drain_window (issue 34: it was ignored).
	f.DurationVar(&l.act.DrainWindow, "drain-window", 0, fmt.Sprintf("on SIGINT/SIGTERM, how long deliveries under way may finish; the rest are sent at the next start (default: [actions] drain_window, else %s)", alerts.DefaultDrainWindow))
	f.StringVar(&l.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on this address, e.g. 127.0.0.1:9464 (a host left out is loopback)")
	f.StringVar(&l.metricsTokenFile, "metrics-token-file", "", "require \"Authorization: Bearer TOKEN\" on /metrics, the token read from this file (or $"+envMetricsToken+"); needed off loopback")
	f.BoolVar(&l.metricsInsecure, "metrics-insecure-listen", false, "allow a non-loopback --metrics-addr without a token")
	f.StringVar(&l.replica, "replica", "", "name this replica of a fleet: the replica label on /metrics and \"replica\" in --report-out, for report --merge (default: the host name)")
}

func newWatchCmd() *cobra.Command {
	var l liveFlags
	var fromEnd, waitForFiles bool
	var poll time.Duration
	var oc otlp.Config
	var tokenFile string
	cmd := &cobra.Command{
		Use:   "watch [flags] FILE...",
		Short: "Follow logs live in the dashboard (survives rotation; globs allowed)",
		Long: `Follows JSON-lines logs: from the start of each
file by default, to rebuild state, then live. Survives rename-and-create and
copytruncate rotation, waits for files that do not exist yet, and picks up new
files matching a glob (quote it: 'logs/*.jsonl').`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, _, err := l.load(); err != nil {
				return err
			}
			var sources []ingest.Source
			if l.claude {
				dirs, err := agentDirs("claude", decode.FormatClaudeCode)
				if err != nil {
					return err
				}
				args = append(args, dirs...) // followed as directories: new sessions are picked up
			}
			if l.codex {
				dirs, err := agentDirs("codex", decode.FormatCodex)
				if err != nil {
					return err
				}
				args = append(args, dirs...)
			}
			followable, refused := followableFiles(args)
			// A path that matches nothing is said at once: a typo must not
			// wait for ever behind "no events yet".
			unmatched := unmatchedPaths(followable)
			for _, p := range unmatched {
				fmt.Fprintf(os.Stderr, "burnrate: %s matches no file%s\n", display.Text(p), map[bool]string{true: "; waiting for it (--wait-for-files)", false: ""}[waitForFiles])
			}
			otlpOn := oc.GRPCAddr != "" || oc.HTTPAddr != ""
			if len(followable) > 0 && len(unmatched) == len(followable) && !otlpOn && !waitForFiles {
				verb := "matches"
				if len(unmatched) > 1 {
					verb = "match"
				}
				return fmt.Errorf("nothing can be followed: %s %s no file; check the path, or pass --wait-for-files to wait for logs that are not written yet", display.Text(strings.Join(unmatched, ", ")), verb)
			}
			if len(followable) > 0 {
				tl := follow.NewTail(followable, fromEnd, l.input)
				tl.SetPoll(poll)
				sources = append(sources, tl)
			}
			if oc.GRPCAddr != "" || oc.HTTPAddr != "" {
				tok, err := otlpToken(oc.Token, tokenFile)
				if err != nil {
					return err
				}
				oc.Token = tok
				if err := oc.Validate(); err != nil {
					return err
				}
				limitMemoryForOTLP(oc)
				sources = append(sources, &otlp.Source{R: otlp.New(oc)})
			}
			if len(sources) == 0 && refused != nil {
				return fmt.Errorf("nothing can be followed: %w", refused)
			}
			if len(sources) == 0 {
				return fmt.Errorf("nothing to watch: give log files, or --otlp-grpc %s / --otlp-http %s", otlp.DefaultGRPCAddr, otlp.DefaultHTTPAddr)
			}
			l.spool, l.fromEnd = spoolable(followable, fromEnd), fromEnd
			if !l.spool && slices.Contains(followable, "-") && stdinIsFile() && !fromEnd {
				fmt.Fprintln(os.Stderr, "burnrate: note: stdin is a regular file: it is read from its start at every start, like a file named on the command line, and not spooled (a restart replaying its events and reading it again would count them twice)")
			}
			if !l.spool && (otlpOn || slices.Contains(followable, "-") && !stdinIsFile()) {
				fmt.Fprintln(os.Stderr, "burnrate: note: events received over OTLP or stdin are not spooled across a restart while files are followed from their start (a restart reads the files again, and replaying a spool of them too would count them twice): give the receiver a watch of its own, or --from-end")
			}
			return runLive(cmd.Context(), l, "watch", runSourceNames(args, len(sources) > len(args)), sources...)
		},
	}
	l.register(cmd)
	f := cmd.Flags()
	f.BoolVar(&fromEnd, "from-end", false, "skip history: start at the end of each file")
	f.BoolVar(&waitForFiles, "wait-for-files", false, "when no path matches a file yet, wait for them (a service started before its logs) instead of exiting 2")
	f.DurationVar(&poll, "poll-interval", follow.DefaultPoll, "how often followed files are checked for new lines and rotation")
	f.StringVar(&oc.GRPCAddr, "otlp-grpc", "", "receive OTLP/gRPC traces and logs on this address, e.g. "+otlp.DefaultGRPCAddr)
	f.StringVar(&oc.HTTPAddr, "otlp-http", "", "receive OTLP/HTTP (/v1/traces, /v1/logs) on this address, e.g. "+otlp.DefaultHTTPAddr)
	f.StringVar(&oc.Token, "otlp-token", "", "require \"Authorization: Bearer TOKEN\" on both OTLP transports (visible in ps: prefer $"+envOTLPToken+" or --otlp-token-file)")
	f.StringVar(&tokenFile, "otlp-token-file", "", "read the OTLP bearer token from this file (first line; mode 0600)")
	f.Int64Var(&oc.MaxBytes, "otlp-max-bytes", otlp.DefaultMaxBytes, "largest OTLP request accepted, in bytes (after decompression)")
	f.Int64Var(&oc.MaxInFlightBytes, "otlp-max-inflight-bytes", otlp.DefaultMaxInFlightBytes, "memory all OTLP requests in progress may take together; past it, 429 / RESOURCE_EXHAUSTED before the body is read")
	f.BoolVar(&oc.InsecureListen, "insecure-listen", false, "allow a non-loopback OTLP address without --otlp-token")
	f.Int64Var(&l.spoolMaxBytes, "spool-max-bytes", spool.DefaultMaxBytes, "with inputs that cannot be read again (OTLP, stdin, --from-end), the most the event spool beside the journal may hold; past it events are applied but not spooled, said on stderr, in the header and on /metrics")
	return cmd
}

// spoolable reports whether a watch of these inputs spools its events
// for a restart: when none is read again from its start then — OTLP,
// stdin, files followed from their end.
func spoolable(followable []string, fromEnd bool) bool {
	for _, p := range followable {
		if (p != "-" || stdinIsFile()) && !fromEnd {
			return false
		}
	}
	return true
}

// stdinIsFile: stdin is a regular file (`< app.log`, systemd's
// StandardInput=file:), which the next start reads again from its start
// like any file followed from its start — spooled too, a restart counted
// it twice, then three times (red team R8-17: a job killed at half its
// ceiling). A pipe or a terminal cannot be read again.
func stdinIsFile() bool {
	st, err := os.Stdin.Stat()
	return err == nil && st.Mode().IsRegular()
}

func newReplayCmd() *cobra.Command {
	var l liveFlags
	var speed string
	cmd := &cobra.Command{
		Use:   "replay [--speed N|max] FILE...",
		Short: "Play a finished log through the dashboard on the log's own clock",
		Long: `Plays finished logs through the same dashboard, N times faster than they
happened (default 60). Keys: p pause, . single-step, + faster, - slower,
E jump to the end.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sp, err := parseSpeed(speed)
			if err != nil {
				return err
			}
			if _, _, err := l.load(); err != nil {
				return err
			}
			paths, err := l.inputs(args, true)
			if err != nil {
				return err
			}
			fs, err := file.OpenFiles(paths, l.input)
			if err != nil {
				return err
			}
			l.afterRun = func(last *engine.Frame) error {
				var unopened []string
				for _, it := range fs.Files {
					if it.Unopened() {
						unopened = append(unopened, it.Path)
					}
				}
				if last != nil && last.Snap.Events > 0 && len(unopened) > 0 {
					// As report: a file that could not be opened costs
					// itself only, but the replay was without it.
					return fmt.Errorf("%d of %d input files could not be opened (each named in the sources), so the replay was without them: %s", len(unopened), len(paths), display.Text(firstNames(unopened, 3)))
				}
				if last != nil && last.Snap.Events > 0 {
					// As report: one file read to nothing beside others
					// that read is missing from what was played.
					var empty []string
					for _, it := range fs.Files {
						if it.Stats.Events == 0 && it.Stats.SkippedTotal() > 0 {
							if h := it.Hint(); h != "" {
								fmt.Fprintln(os.Stderr, "burnrate:", display.Text(it.Path+": "+h))
							}
							empty = append(empty, it.Path)
						}
					}
					if len(empty) > 0 {
						return fmt.Errorf("no events in %s: nothing in it was read as a model call or job event, so the replay was without it (see its hint above; burnrate formats lists what is read)", display.Text(strings.Join(empty, ", ")))
					}
					return nil
				}
				// As report: a replay of nothing is a usage error, said
				// with what the file looked like, never a clean exit 0.
				for _, it := range fs.Files {
					if h := it.Hint(); h != "" {
						fmt.Fprintln(os.Stderr, "burnrate:", display.Text(h))
					}
				}
				var skipped int64
				if last != nil {
					for _, src := range last.Sources {
						skipped += src.Stats.SkippedTotal()
					}
				}
				return fmt.Errorf("no events in %s: nothing was read as a model call or job event (%d line(s) skipped; burnrate formats lists what is read)", display.Text(strings.Join(paths, ", ")), skipped)
			}
			return runLive(cmd.Context(), l, "replay", runSourceNames(paths, false), file.NewFileReplay(fs, sp))
		},
	}
	l.register(cmd)
	cmd.Flags().StringVar(&speed, "speed", "60", "replay speed: a factor such as 60, or max")
	return cmd
}

func newDemoCmd() *cobra.Command {
	var l liveFlags
	var speed string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the dashboard on a built-in simulated overnight batch (no files, no network)",
		Long: `Replays a built-in 25-minute overnight batch at 60x: healthy at first, then a
provider overload with SDK × wrapper × queue retries, synchronized bursts, and a
poisoned record whose 400 is tried 75 times.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Accepted and ignored, --claude made a user think the demo
			// read their sessions.
			for _, name := range demoIgnores {
				if cmd.Flags().Changed(name) {
					return fmt.Errorf("--%s means nothing to demo: its log is built in; drop the flag, or use watch or replay to read your own logs", name)
				}
			}
			sp, err := parseSpeed(speed)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := scenario.Write(&buf, scenario.Demo()); err != nil {
				return err
			}
			// The simulation logs every HTTP attempt, numbered by the SDK
			// (queue × wrapper × SDK): its attempt field is the SDK's.
			if l.attemptLayer == "" {
				l.attemptLayer = "sdk"
			}
			it := file.NewIter(&buf, "demo (built-in)", 0, decode.Options{})
			r := file.NewReplay(it, nil, sp)
			r.SetSources([]ingest.Status{{Name: it.Path, Stats: it.Stats}})
			if l.act.Ceiling == 0 {
				l.act.Ceiling = 5
			}
			if l.act.JobCeiling == 0 {
				l.act.JobCeiling = 0.25
			}
			if l.act.RunID == "" {
				// The demo is not a log: each showing is its own run, so a
				// kill hook fires again on the next one.
				l.act.RunID = fmt.Sprintf("demo-%d", time.Now().UnixNano())
			}
			// A kill hook the demo can show: x, its confirm and the
			// kill's states, sent to a receiver inside this process.
			done, err := demoKills(&l)
			if err != nil {
				return err
			}
			defer done()
			return runLive(cmd.Context(), l, "demo", nil, r)
		},
	}
	l.register(cmd)
	// The demo's log is built in: the input flags mean nothing to it.
	for _, name := range demoIgnores {
		cmd.Flags().MarkHidden(name)
	}
	cmd.Flags().StringVar(&speed, "speed", "60", "replay speed: a factor such as 60, or max")
	return cmd
}

// demoIgnores are the flags that choose or read input: demo has its own.
var demoIgnores = []string{"input-format", "map", "pattern", "claude", "codex"}

func parseSpeed(s string) (float64, error) {
	if s == "max" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("--speed %q: use a positive factor such as 60, or max", s)
	}
	return v, nil
}

func loadReplay(paths []string, speed float64, opts decode.Options) (*file.Replay, error) {
	fs, err := file.OpenFiles(paths, opts)
	if err != nil {
		return nil, err
	}
	// Streamed: the set stays open while the replay plays, and closes
	// when it ends.
	return file.NewFileReplay(fs, speed), nil
}

// runLive wires a source through the engine, the rules and the actions
// into the dashboard, or runs headless until the source ends or a signal.
//
// runSources name the inputs for a derived run ID (see alerts.Rules.RunID).
func runLive(parent context.Context, l liveFlags, title string, runSources []string, sources ...ingest.Source) error {
	file, cfg, err := l.load()
	if err != nil {
		return err
	}
	// Headless, nothing shows a job's attempts: keep none (as report).
	cfg.NoAttemptDetail = l.headless
	// A replay reads its files together in time order; watch follows each
	// at its own pace (correlate.Config.SettleResumed).
	cfg.SettleResumed = title == "replay"
	acts, err := file.Alerts(l.act)
	if err != nil {
		return err
	}
	if l.claude && acts.Hooks.KillExec != nil {
		acts.Hooks.KillExec.SessionIDs = true // jobs are Claude Code sessions
	}
	if l.reportOut != "" {
		if err := checkReportOut(l.reportOut); err != nil {
			return err
		}
		if err := keepEarlierReport(l.reportOut); err != nil {
			return err
		}
	}
	replica := l.replica
	if replica == "" {
		replica = metrics.DefaultReplica()
	} else if err := metrics.CheckReplica(replica); err != nil {
		return err
	}
	started := time.Now()
	if parent == nil {
		parent = context.Background()
	}
	// SIGHUP (a dropped ssh session) stops like SIGTERM: drain the kills,
	// write --report-out, exit. A closed stdout must end only the output,
	// never the kill path: with SIGPIPE ignored, a write to a broken pipe
	// returns EPIPE to lineWriter instead of killing the process.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	// Only a process that can act owns (locks) the journal: a dashboard
	// with no hook, beside the daemon that kills, reads it and never writes.
	openJournal := alerts.OpenJournal
	viewer := acts.Hooks.KillWebhook == "" && acts.Hooks.KillExec == nil && acts.Hooks.RunKillExec == nil && acts.Hooks.NotifyWebhook == ""
	if viewer {
		openJournal = alerts.OpenJournalReadOnly
	}
	journal, err := openJournal(acts.Journal)
	if err != nil {
		return err
	}
	for _, w := range journal.Warnings() {
		fmt.Fprintln(os.Stderr, "burnrate: warning:", w)
	}
	acts.Rules.RunSources = runSources
	fmt.Fprintf(os.Stderr, "burnrate: limits in force (%s): %s\n", display.Text(file.Describe()), acts.Effective())
	if acts.Rules.JobCeilingUSD > 0 || len(acts.Rules.JobTypeJobCeilingUSD) > 0 {
		for _, p := range l.input.Patterns {
			if !p.NamesJob() {
				// Said before the night (R7b-4): a runaway job whose every
				// call is such a line burns past its ceiling in silence.
				fmt.Fprintf(os.Stderr, "burnrate: warning: format %q names no job: its lines take the job of the JSON line before them, by position alone — a guess whose spend never weighs on a job ceiling (the run ceiling still counts it). Add a (?P<job_id>…) group to the pattern for job ceilings to act on its calls\n", display.Text(p.Name))
			}
		}
	}
	if slices.Contains(acts.Rules.KillOn, "finding:"+correlate.AssumptionViolated.String()) && len(l.declared) == 0 {
		// Only the operator arms a kill (issue 34): said before the
		// night, not discovered when a broken premise kills nothing.
		fmt.Fprintln(os.Stderr, "burnrate: warning: kill_on finding:assumption_violated arms no kill without --assumptions FILE: the logs' own declarations are shown and alerted, never killed on (docs/kill-hooks.md)")
	}
	out := newLineWriter(os.Stdout)
	defer func() {
		// Deferred before the dispatcher's Shutdown, so it runs after it:
		// the drain's last results are written too.
		wait := make(chan struct{})
		time.AfterFunc(time.Second, func() { close(wait) })
		out.Close(wait)
	}()
	var journalErrs, misconfigured, failedKills atomic.Int64
	wiring := alerts.Wiring{OnResult: func(r alerts.Result) {
		if r.JournalError != "" {
			// Loud, but not one line per kill on a full disk: the first,
			// then every hundredth (the header and /metrics count all).
			if n := journalErrs.Add(1); n == 1 || n%100 == 0 {
				fmt.Fprintf(os.Stderr, "burnrate: error: the action journal could not record %s %s for %s (%d failure(s) so far): %s; free space or fix --journal: until it writes, kills are held, not fired (a kill is fired only once it is journaled)\n",
					r.Action, r.State, display.Text(r.Alert.Subject()), n, display.Text(r.JournalError))
			}
		}
		if r.State == alerts.StateHeld && r.JournalError == "" {
			// A held kill without a journal error is held for the room
			// its outcome needs: as loud as a failed write.
			if n := journalErrs.Add(1); n == 1 || n%100 == 0 {
				fmt.Fprintf(os.Stderr, "burnrate: error: %s for %s held (%d so far): %s\n", r.Action, display.Text(r.Alert.Subject()), n, display.Text(r.Detail))
			}
		}
		if r.State == alerts.StateFailed && r.Action != "notify" {
			// The running daemon gave up on it (retry_for ran out, or a
			// command failed): said where the operator looks.
			if n := failedKills.Add(1); n == 1 || n%100 == 0 {
				fmt.Fprintf(os.Stderr, "burnrate: error: %s for %s failed (%d such kill(s) so far): %s\n", r.Action, display.Text(r.Alert.Subject()), n, display.Text(r.Detail))
			}
		}
		if r.State == alerts.StateMisconfigured {
			// A redirect or a 401/403/404/405 is a wrong URL or token,
			// not a verdict on the kill: say it where the operator looks,
			// rate-limited like the journal's failures.
			if n := misconfigured.Add(1); n == 1 || n%100 == 0 {
				setting, url := "--kill-webhook", acts.Hooks.KillWebhook
				if r.Action == "notify" {
					setting, url = "--notify-webhook", acts.Hooks.NotifyWebhook
				}
				fmt.Fprintf(os.Stderr, "burnrate: error: %s for %s not delivered: the receiver %s (%s) is misconfigured (%d such delivery(ies) so far): %s\n",
					r.Action, display.Text(r.Alert.Subject()), display.Text(alerts.RedactURL(url)), setting, n, display.Text(r.Detail))
			}
		}
		if l.headless {
			out.line(r.JSON())
		}
	}}
	// replaying is set while the spool is replayed: the alerts it raises
	// again were written when their events first came, and are not
	// written again at every restart (their actions the journal blocks).
	var replaying atomic.Bool
	var replayedAlerts atomic.Int64
	if l.headless {
		wiring.OnAlert = func(a alerts.Alert) {
			if replaying.Load() {
				replayedAlerts.Add(1)
				return
			}
			out.line(a.JSON())
		}
	}
	rules := alerts.New(acts.Rules, acts.Hooks, acts.Poster, journal, wiring)
	disp := rules.Dispatcher()
	// The workers outlive the signal: a stop drains them for the drain
	// window (Shutdown) instead of cutting every delivery off at once.
	disp.Start(context.WithoutCancel(ctx))
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), acts.DrainWindow)
		defer cancel()
		disp.Shutdown(sctx) // what is not delivered stays requested; flushes the journal
	}()

	// The assumptions log: watch compares each run with the one before it
	// (the last line of assumptions.jsonl, then the runs it saw); a
	// headless process keeps the file, a line per run.
	assume := statedir.NewAssumptionsLog(acts.Journal, title == "watch", l.headless, cfg)
	eopt := engine.Options{Config: cfg, CeilingUSD: acts.Rules.RunCeilingUSD, JobCeilings: acts.Rules.JobCeilings(), Observer: rules, RunWindow: acts.RunWindow,
		SummaryFrames: l.headless && l.metricsAddr == "", Assumptions: assume, Declared: l.declared} // headless, only metrics read job rows
	if l.spool && title == "watch" {
		// The spool is the journal owner's: a viewer (no hook, the journal
		// read only) takes neither, so one started in a daemon's restart
		// gap cannot keep the restarted daemon from its events.
		if viewer {
			fmt.Fprintln(os.Stderr, "burnrate: note: no kill hook, so this watch is a viewer: it neither takes the journal's lock nor spools its events, and a restart begins it at $0 (give a hook, or --kill-webhook, to a daemon that must keep its state across restarts)")
		} else {
			sp, err := spool.Open(acts.Journal, spool.Options{MaxBytes: l.spoolMaxBytes, KeepFree: alerts.JournalNeedsFree})
			if err != nil {
				return err
			}
			defer sp.Close()
			eopt.Spool = sp
		}
	}
	eng := engine.New(eopt, sources...)
	if eopt.Spool != nil {
		start := time.Now()
		replaying.Store(true)
		n, warnings, err := eng.ReplaySpool(ctx)
		replaying.Store(false)
		for _, w := range warnings {
			fmt.Fprintln(os.Stderr, "burnrate: warning:", display.Text(w))
		}
		if err != nil && ctx.Err() != nil {
			// A stop during a long replay: nothing was cut or written.
			fmt.Fprintf(os.Stderr, "burnrate: stopped while replaying the spool (%d event(s) in): the spool is kept whole for the next start\n", n)
			return nil
		}
		if err != nil {
			return err
		}
		if n > 0 {
			st := eopt.Spool.Status()
			fmt.Fprintf(os.Stderr, "burnrate: replayed %d event(s) from the spool %s (%d bytes) in %s; %d alert(s) it raised again are not written again (the journal holds what their actions did)\n",
				n, display.Text(st.Dir), st.Bytes, time.Since(start).Round(time.Millisecond), replayedAlerts.Load())
			if l.fromEnd {
				// The spool holds what was read before the stop; the files
				// are followed from their end again, so what they took
				// while burnrate was down is not read (red team R8-16):
				// said, never silent.
				fmt.Fprintln(os.Stderr, "burnrate: warning: --from-end starts at each file's end again: lines the files took while burnrate was stopped are not read (their spend is not in this run); to read them, run burnrate report on those files, or follow the files from their start without --from-end")
			}
		}
	}
	if l.metricsAddr != "" {
		token, err := tokenFrom("metrics", "", l.metricsTokenFile, envMetricsToken)
		if err != nil {
			return err
		}
		srv, _, err := metrics.ListenReplica(l.metricsAddr, replica, eng, rules, token, l.metricsInsecure)
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	go eng.Run(ctx)

	var srcErr error
	// ended: the sources ran out on their own, not stopped by a signal or
	// the operator's q (only then may afterRun judge what was read).
	ended := false
	if l.headless {
		// Every source gave up: still write what was read before that.
		if srcErr = headlessStatus(ctx, eng); srcErr != nil {
			stop()
			<-eng.Done()
		}
		ended = ctx.Err() == nil
	} else {
		opt := ui.Options{Title: title}
		if r := eng.Replay(); r != nil {
			opt.Replay = r
		}
		if acts.Hooks.KillWebhook != "" || acts.Hooks.KillExec != nil {
			opt.Killer = alerts.NewManual(rules)
			opt.KillNote = l.killNote
		}
		if err := ui.Run(ctx, eng, opt); err != nil {
			return err
		}
		select {
		case <-eng.Done():
			ended = ctx.Err() == nil
		default:
		}
		stop()
		<-eng.Done()
	}
	var final *correlate.Report
	if l.headless {
		final = eng.Report()
		eng.RecordFinal(final)
	}
	if l.reportOut != "" {
		r := final
		if r == nil {
			r = eng.Report()
		}
		r.Replica = replica
		r.Instance = report.InstanceID(replica, r.RunID, started)
		if err := writeReport(l.reportOut, r); err != nil {
			return err
		}
	}
	if srcErr == nil && ended && l.afterRun != nil {
		return l.afterRun(eng.Latest())
	}
	return srcErr
}

// envOTLPToken holds the OTLP bearer token, so it need not be on the
// command line where every user's ps can read it.
const envOTLPToken = "BURNRATE_OTLP_TOKEN"

// envMetricsToken holds the /metrics bearer token.
const envMetricsToken = "BURNRATE_METRICS_TOKEN"

// otlpToken picks the OTLP bearer token (see tokenFrom).
func otlpToken(flag, file string) (string, error) { return tokenFrom("otlp", flag, file, envOTLPToken) }

// tokenFrom picks a bearer token: the flag, else the file, else the
// environment variable; two of them at once is a mistake said.
func tokenFrom(what, flag, file, envName string) (string, error) {
	env := os.Getenv(envName)
	given := 0
	for _, v := range []string{flag, file, env} {
		if v != "" {
			given++
		}
	}
	if given > 1 {
		return "", fmt.Errorf("the %s token is given more than once (--%s-token, --%s-token-file, $%s): give one", what, what, what, envName)
	}
	switch {
	case flag != "":
		alerts.AddSecretValue(flag) // redacted from what kill commands print
		return flag, nil
	case env != "":
		return strings.TrimSpace(env), nil
	case file == "":
		return "", nil
	}
	b, err := config.ReadSmallFile(file, 4096, "--"+what+"-token-file")
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(file); err == nil && st.Mode().Perm()&0o044 != 0 {
		fmt.Fprintf(os.Stderr, "burnrate: warning: --%s-token-file %s is readable by other users (mode %04o): chmod 600 it\n", what, file, st.Mode().Perm())
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	if tok = strings.TrimSpace(tok); tok == "" {
		return "", fmt.Errorf("--%s-token-file %s is empty: write the token on its first line", what, file)
	}
	alerts.AddSecretValue(tok) // redacted from what kill commands print
	return tok, nil
}

// followableFiles refuses, at once and on stderr, the paths that can never
// be followed (a gzip file, a directory); refused is the first refusal.
func followableFiles(args []string) (followable []string, refused error) {
	for _, p := range args {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			if others := dirWithoutJSONL(p); len(others) > 0 {
				// Only *.jsonl files in a directory are followed: a daemon
				// pointed at app.log's directory idled in silence, its
				// jobs never killed (red team R8-30).
				glob := "*" + filepath.Ext(others[0])
				if filepath.Ext(others[0]) == "" {
					glob = others[0]
				}
				err := fmt.Errorf("%s holds no *.jsonl files (only *.jsonl files in a directory are followed) but %d other file(s), e.g. %s: give them as a glob ('%s') or by name", p, len(others), others[0], filepath.Join(p, glob))
				fmt.Fprintln(os.Stderr, "burnrate:", display.Text(err.Error()))
				if refused == nil {
					refused = err
				}
				continue
			}
			followable = append(followable, p) // every *.jsonl in it, new ones too
			continue
		}
		if r := decode.DocumentOf(p); r != nil && r.Rewritten != "" {
			err := fmt.Errorf("%s is %s", p, r.Rewritten)
			fmt.Fprintln(os.Stderr, "burnrate:", display.Text(err.Error()))
			if refused == nil {
				refused = err
			}
			continue
		}
		if p != "-" && !strings.ContainsAny(p, "*?[") {
			if err := follow.Check(p); err != nil {
				fmt.Fprintln(os.Stderr, "burnrate:", display.Text(err.Error()))
				if refused == nil {
					refused = err
				}
				continue
			}
		}
		followable = append(followable, p)
	}
	return followable, refused
}

// dirWithoutJSONL: the regular files of dir (its first 1,000 entries,
// recursively) when none of them is a *.jsonl, else nil.
func dirWithoutJSONL(dir string) (others []string) {
	seen := 0
	jsonl := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > 1000 {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() {
			// A rotated copy (app.jsonl.1, app.jsonl.2.gz) says the log
			// is a *.jsonl between rotations (logrotate's nocreate, an
			// app that opens its log on first write); a dotfile
			// (.gitkeep) is no log (red team R8b-8).
			if strings.HasSuffix(d.Name(), ".jsonl") || strings.Contains(d.Name(), ".jsonl.") {
				jsonl = true
				return filepath.SkipAll
			}
			if strings.HasPrefix(d.Name(), ".") {
				return nil
			}
			if len(others) < 3 {
				others = append(others, filepath.Base(path))
			}
		}
		return nil
	})
	if jsonl {
		return nil
	}
	return others
}

// statusLine is the headless minute's line: the dashboard's header in
// words, the same rates, what is waited for, and a quiet input said.
func statusLine(f *engine.Frame) string {
	var missing []string
	for _, src := range f.Sources {
		if src.Missing {
			missing = append(missing, display.Text(src.Name))
		}
	}
	waiting := ""
	if len(missing) > 0 {
		waiting = "; waiting for " + strings.Join(missing, ", ") + " (matches no file yet)"
	}
	s := f.Snap
	if s.Events == 0 {
		return "no events yet" + waiting
	}
	window := func(name string, warming bool) string {
		if warming {
			return name + ", warming up"
		}
		return name
	}
	line := fmt.Sprintf("log clock %s, %d events, %d calls, %d jobs, spend %s, burn %s/min (%s), %s/min (%s)",
		correlate.FormatTime(s.Now), s.Events, s.Attempts, s.JobCount, correlate.USD(s.Spend.USD()),
		correlate.USD(s.BurnPerMin1), window("1m", s.BurnWarming1), correlate.USD(s.BurnPerMin5), window("5m", s.BurnWarming5))
	if f.QuietFor > 0 {
		line += fmt.Sprintf(", input quiet for %s", f.QuietFor.Round(time.Second))
	}
	return line + waiting
}

// unmatchedPaths are the paths and globs that match no file now ("-",
// stdin, always matches).
func unmatchedPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "-" {
			continue
		}
		if strings.ContainsAny(p, "*?[") {
			if m, err := filepath.Glob(p); err == nil && len(m) > 0 {
				continue
			}
		} else if _, err := os.Stat(p); err == nil {
			continue
		}
		out = append(out, p)
	}
	return out
}

// errNoSource ends a headless run in which no source can be read.
var errNoSource = errors.New("no source can be read (see the errors above)")

// headlessStatus waits for the engine, printing a source's error or
// possible loss to stderr as soon as it shows and a status line every
// minute. It returns errNoSource when every source gave up.
func headlessStatus(ctx context.Context, eng *engine.Engine) error {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	var last *engine.Frame
	said := map[string]bool{}
	for {
		select {
		case f := <-eng.Frames():
			last = f
			failed := 0
			for _, src := range f.Sources {
				for _, msg := range []string{src.Err, src.Warn} {
					if msg != "" && !said[src.Name+"\x00"+msg] {
						said[src.Name+"\x00"+msg] = true
						fmt.Fprintf(os.Stderr, "burnrate: %s: %s\n", display.Text(src.Name), display.Text(msg))
					}
				}
				if src.Err != "" && !src.Active {
					failed++
				}
			}
			if f.RunChurn != "" && !said["\x00runchurn"] {
				said["\x00runchurn"] = true
				fmt.Fprintln(os.Stderr, "burnrate: warning:", f.RunChurn)
			}
			if !said["\x00nomodel"] && f.Snap != nil {
				// Calls that name no model and carry no cost (an OpenCode
				// stream of cost 0 on a subscription or a custom
				// provider) are unpriced: no ceiling can see their spend,
				// and live nothing said so (issue 35).
				for _, m := range f.Snap.Models {
					if m.Model == correlate.UnknownModel && m.UnpricedAttempts > 0 {
						said["\x00nomodel"] = true
						fmt.Fprintf(os.Stderr, "burnrate: warning: %d calls unpriced: the stream names no model; ceilings cannot see their spend\n", m.UnpricedAttempts)
					}
				}
			}
			if f.RunSpan != "" && !said["\x00runspan"] {
				said["\x00runspan"] = true
				fmt.Fprintln(os.Stderr, "burnrate: warning:", f.RunSpan)
			}
			if len(f.Sources) > 0 && failed == len(f.Sources) && f.Replay == nil {
				return errNoSource
			}
		case <-t.C:
			if last != nil {
				fmt.Fprintln(os.Stderr, "burnrate: "+statusLine(last))
			}
		case <-eng.Done():
			// Every source gave up (a port in use, a file refused): a
			// service manager must see a failure, not a clean exit.
			if f := eng.Latest(); f != nil && len(f.Sources) > 0 && f.Replay == nil {
				failed := 0
				for _, src := range f.Sources {
					if src.Err != "" && !src.Active {
						failed++
					}
				}
				if failed == len(f.Sources) {
					return errNoSource
				}
			}
			return nil
		}
	}
}

// checkReportOut refuses, before a night is watched rather than after it,
// a --report-out path that is a symlink or anything but a regular file.
func checkReportOut(path string) error {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("--report-out %s is %s, not a regular file: give a file path", path, config.FileKind(st.Mode()))
	}
	return nil
}

// keepEarlierReport moves a report an earlier process left at path aside,
// named by its time ("a.json" → "a.20261202T010203Z.json"): a replica
// restarted in the night writes its report again at exit, and the report
// of its first part is what report --merge needs beside it.
func keepEarlierReport(path string) error {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	ext := filepath.Ext(path)
	aside := strings.TrimSuffix(path, ext) + "." + st.ModTime().UTC().Format("20060102T150405Z") + ext
	if _, err := os.Lstat(aside); err == nil {
		return nil // moved aside already (two starts within a second)
	}
	if err := os.Rename(path, aside); err != nil {
		return fmt.Errorf("--report-out: keeping the earlier report %s: %w", path, err)
	}
	fmt.Fprintf(os.Stderr, "burnrate: --report-out: the earlier report %s is kept as %s (report --merge takes both)\n", display.Text(path), display.Text(aside))
	return nil
}

// writeReport writes the report to a new 0600 file beside path and renames
// it over path: a reader never sees half a report, and a symlink (or
// anything but a regular file) at path is refused, never written through.
func writeReport(path string, r *correlate.Report) error {
	if err := checkReportOut(path); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("--report-out: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	if err := report.JSON(f, r); err != nil {
		f.Close()
		return fmt.Errorf("--report-out %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("--report-out %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--report-out %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("--report-out %s: %w", path, err)
	}
	return nil
}

// runSourceNames are the inputs' base names, so that two replicas reading
// the same log from different mounts derive the same run ID.
func runSourceNames(paths []string, otlp bool) []string {
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	if otlp {
		names = append(names, "otlp")
	}
	return names
}

// limitMemoryForOTLP sets a soft memory limit a little above what OTLP
// requests in progress may take, unless GOMEMLIMIT says otherwise: the
// garbage collector then returns memory before the heap doubles, which
// keeps a flood of large requests within the documented bound.
func limitMemoryForOTLP(oc otlp.Config) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	inflight := oc.MaxInFlightBytes
	if inflight <= 0 {
		inflight = otlp.DefaultMaxInFlightBytes
	}
	debug.SetMemoryLimit(inflight + 192<<20)
}
