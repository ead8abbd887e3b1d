package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/report"
	"github.com/burnrate-dev/burnrate/sample-logs/scenario"
	"github.com/burnrate-dev/burnrate/ui"
)

// liveFlags are shared by watch, replay and demo.
type liveFlags struct {
	analysisFlags
	ceiling    float64
	jobCeiling float64
	headless   bool
	reportOut  string
}

func (l *liveFlags) register(cmd *cobra.Command) {
	l.analysisFlags.register(cmd)
	f := cmd.Flags()
	f.Float64Var(&l.ceiling, "ceiling", 0, "run spend ceiling in USD, drawn in the header and charts")
	f.Float64Var(&l.jobCeiling, "job-ceiling", 0, "per-job spend ceiling in USD; jobs over it are highlighted")
	f.BoolVar(&l.headless, "headless", false, "no dashboard: run until the input ends or SIGINT/SIGTERM")
	f.StringVar(&l.reportOut, "report-out", "", "write the report JSON to this file on exit")
}

func newWatchCmd() *cobra.Command {
	var l liveFlags
	var fromEnd bool
	cmd := &cobra.Command{
		Use:   "watch [flags] FILE...",
		Short: "Follow logs live in the dashboard (survives rotation; globs allowed)",
		Long: `Follows JSON-lines logs with github.com/nxadm/tail: from the start of each
file by default, to rebuild state, then live. Survives rename-and-create and
copytruncate rotation, waits for files that do not exist yet, and picks up new
files matching a glob (quote it: 'logs/*.jsonl').`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLive(cmd.Context(), l, "watch", engine.NewTail(args, fromEnd))
		},
	}
	l.register(cmd)
	cmd.Flags().BoolVar(&fromEnd, "from-end", false, "skip history: start at the end of each file")
	return cmd
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
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sp, err := parseSpeed(speed)
			if err != nil {
				return err
			}
			r, err := loadReplay(args, sp)
			if err != nil {
				return err
			}
			return runLive(cmd.Context(), l, "replay", r)
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
poisoned record whose 400 is retried 75 times.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sp, err := parseSpeed(speed)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := scenario.Write(&buf, scenario.Demo()); err != nil {
				return err
			}
			it := ingest.NewIter(&buf, "demo (built-in)", 0)
			r := engine.NewReplay(it, nil, sp)
			r.SetSources([]engine.SourceStatus{{Name: it.Path, Stats: it.Stats}})
			if l.ceiling == 0 {
				l.ceiling = 5
			}
			if l.jobCeiling == 0 {
				l.jobCeiling = 0.5
			}
			return runLive(cmd.Context(), l, "demo", r)
		},
	}
	l.register(cmd)
	cmd.Flags().StringVar(&speed, "speed", "60", "replay speed: a factor such as 60, or max")
	return cmd
}

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

func loadReplay(paths []string, speed float64) (*engine.Replay, error) {
	var iters []ingest.EventIter
	var files []*ingest.FileIter
	for i, p := range paths {
		it, err := ingest.OpenFile(p, uint16(i))
		if err != nil {
			return nil, err
		}
		defer it.Close()
		iters = append(iters, it)
		files = append(files, it)
	}
	r := engine.NewReplay(ingest.Merge(iters...), nil, speed)
	var st []engine.SourceStatus
	for _, f := range files {
		s := engine.SourceStatus{Name: f.Path, Stats: f.Stats}
		if f.Err != nil {
			s.Err = f.Err.Error()
		}
		st = append(st, s)
	}
	r.SetSources(st)
	return r, nil
}

// runLive wires a source through the engine into the dashboard, or runs
// headless until the source ends or a signal arrives.
func runLive(parent context.Context, l liveFlags, title string, src engine.Source) error {
	_, cfg, err := l.load()
	if err != nil {
		return err
	}
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	eng := engine.New(engine.Options{Config: cfg, CeilingUSD: l.ceiling}, src)
	go eng.Run(ctx)

	if l.headless {
		<-eng.Done()
	} else {
		opt := ui.Options{Title: title, JobCeilingUSD: l.jobCeiling}
		if r := eng.Replay(); r != nil {
			opt.Replay = r
		}
		p := tea.NewProgram(ui.New(eng, opt), tea.WithAltScreen(), tea.WithContext(ctx))
		if _, err := p.Run(); err != nil && ctx.Err() == nil {
			return fmt.Errorf("dashboard: %w", err)
		}
		stop()
		<-eng.Done()
	}
	if l.reportOut != "" {
		return writeReport(l.reportOut, eng.Report())
	}
	return nil
}

func writeReport(path string, r *correlate.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--report-out: %w", err)
	}
	if err := report.JSON(f, r); err != nil {
		f.Close()
		return fmt.Errorf("--report-out %s: %w", path, err)
	}
	return f.Close()
}
