package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/scenario"
)

// TestMetricsBurnIsTheDashboards: /metrics carries the 1- and 5-minute
// burn rates the dashboard shows, the same figures.
func TestMetricsBurnIsTheDashboards(t *testing.T) {
	eng, body := scrapeReplay(t, []string{"../sample-logs/seed002-six-pipelines.jsonl"}, alerts.Config{KillOn: alerts.DefaultKillOn}, "replica-a")
	s := eng.Latest().Snap
	if s.BurnPerMin5 <= 0 {
		t.Fatalf("seed 002 ends burning nothing over 5 minutes: the test would compare zeros")
	}
	for window, want := range map[string]float64{"1m": s.BurnPerMin1, "5m": s.BurnPerMin5} {
		// Labelled with the run and replica as well (issue 28's fleet rules).
		m := regexp.MustCompile(`(?m)^burnrate_burn_usd_per_minute\{[^}]*window="` + window + `"[^}]*\} (\S+)$`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("metrics lack burnrate_burn_usd_per_minute{window=%q}:\n%.2000s", window, body)
		}
		got, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil || got != want {
			t.Errorf("%s: %v (%v), want the dashboard's %v", window, got, err, want)
		}
	}
}

// TestDemoSaysNoKillWasSent: issue 23 — the demo, with no kill hook, said
// "still logging attempts after its kill" right after "kill refused: no
// kill hook". It says the rule fired and no kill was sent.
func TestDemoSaysNoKillWasSent(t *testing.T) {
	var buf bytes.Buffer
	if err := scenario.Write(&buf, scenario.Demo()); err != nil {
		t.Fatal(err)
	}
	r := file.NewReplay(file.NewIter(&buf, "demo", 0, decode.Options{}), nil, 0)
	j, err := alerts.OpenJournalReadOnly(t.TempDir() + "/journal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rules := alerts.New(alerts.Config{JobCeilingUSD: 0.25, KillOn: alerts.DefaultKillOn}, alerts.Hooks{}, alerts.NewPoster(0, 0, nil), j, alerts.Wiring{})
	rules.Dispatcher().Start(context.Background())
	eng := engine.New(engine.Options{Config: correlate.DefaultConfig(), Observer: rules}, r)
	eng.Run(context.Background())
	rules.Dispatcher().Shutdown(context.Background())
	var refused, still bool
	for _, l := range rules.Lines() {
		refused = refused || strings.Contains(l.Text, "no kill hook is configured")
		if strings.Contains(l.Text, "still logging") {
			still = true
			if !strings.Contains(l.Text, "no kill was sent: no kill hook") {
				t.Errorf("%q claims a kill that was not sent", l.Text)
			}
		}
	}
	if !refused || !still {
		t.Fatalf("the demo's rec-00042 crosses its ceiling and keeps logging: refused %v, still logging %v", refused, still)
	}
}

// TestDemoRefusesInputFlags: demo --claude was accepted and ignored.
func TestDemoRefusesInputFlags(t *testing.T) {
	for _, flag := range []string{"--claude", "--codex", "--input-format=otlp-json"} {
		if _, err := run(t, "demo", "--headless", flag); err == nil || !strings.Contains(err.Error(), "means nothing to demo") {
			t.Errorf("demo %s: %v, want it refused", flag, err)
		}
	}
}

// TestNoSilentFailures: issue 23's daemon-user failures each say what
// happened and exit 2.
func TestNoSilentFailures(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// A path that matches nothing is named; with nothing else to follow,
	// watch exits instead of waiting for ever.
	if _, err := run(t, "watch", "--headless", "typo.jsonl", "nolog/*.jsonl"); err == nil || !strings.Contains(err.Error(), "typo.jsonl, nolog/*.jsonl match no file") || !strings.Contains(err.Error(), "--wait-for-files") {
		t.Errorf("watch of nothing: %v", err)
	}
	// replay of an empty or non-JSON file exits 2 like report.
	os.WriteFile("empty.jsonl", nil, 0o644)
	os.WriteFile("text.log", []byte("hello world\nnot json\n"), 0o644)
	for _, f := range []string{"empty.jsonl", "text.log"} {
		if _, err := run(t, "replay", "--headless", "--speed", "max", f); err == nil || !strings.Contains(err.Error(), "no events in "+f) {
			t.Errorf("replay --headless %s: %v, want no events", f, err)
		}
	}
	// The dashboard without a terminal says to use --headless.
	sample, _ := filepath.Abs(filepath.Join(origDir(t), "../sample-logs/seed000-incident.jsonl"))
	if _, err := run(t, "replay", "--speed", "max", sample); err == nil || !strings.Contains(err.Error(), "--headless") {
		t.Errorf("replay without a terminal: %v, want the --headless hint", err)
	}
	// A bad value is blamed on its source: the flags' on the flags (the
	// file's overridden value is not in force), the file's on the file.
	os.WriteFile("burnrate.toml", []byte("[budget]\njob_ceiling_usd = -2\n"), 0o644)
	_, err := run(t, "replay", "--headless", "--config", "burnrate.toml", "--job-ceiling", "-5", "--ceiling", "-1", sample)
	if err == nil || !strings.Contains(err.Error(), "--job-ceiling is -5") || !strings.Contains(err.Error(), "--ceiling is -1") ||
		strings.Contains(err.Error(), "config burnrate.toml") {
		t.Errorf("bad limits: %v", err)
	}
	if _, err := run(t, "replay", "--headless", "--config", "burnrate.toml", sample); err == nil || !strings.Contains(err.Error(), "config burnrate.toml: [budget] job_ceiling_usd = -2") {
		t.Errorf("a bad file value: %v", err)
	}
	os.WriteFile("exec.toml", []byte("[actions]\nkill_exec = \"kill {jobid}\"\n"), 0o600)
	if _, err := run(t, "replay", "--headless", "--config", "exec.toml", sample); err == nil || !strings.Contains(err.Error(), "config exec.toml: [actions] kill_exec") {
		t.Errorf("a bad kill_exec in the file: %v", err)
	}
	os.Remove("burnrate.toml")
	if _, err := run(t, "replay", "--headless", "--kill-exec", "kill {jobid}", sample); err == nil || !strings.HasPrefix(err.Error(), "--kill-exec") {
		t.Errorf("a bad --kill-exec: %v", err)
	}
}

// origDir is the package directory the test started in (t.Chdir moves).
var startDir, _ = os.Getwd()

func origDir(*testing.T) string { return startDir }

// TestStatusLineSaysRatesAndQuiet: the headless minute's line carries the
// dashboard's rates, says a warming window, quiet input and what it waits
// for.
func TestStatusLineSaysRatesAndQuiet(t *testing.T) {
	f := &engine.Frame{Snap: &correlate.Snapshot{}, Sources: []ingest.Status{{Name: "typo.jsonl", Missing: true}}}
	if got := statusLine(f); got != "no events yet; waiting for typo.jsonl (matches no file yet)" {
		t.Errorf("no events: %q", got)
	}
	f.Sources = nil
	f.Snap = &correlate.Snapshot{Now: 1773104400e9, Events: 10, Attempts: 10, JobCount: 2, BurnPerMin1: 3, BurnPerMin5: 3, BurnWarming5: true}
	f.QuietFor = 90 * time.Second
	want := "log clock 2026-03-10T01:00:00Z, 10 events, 10 calls, 2 jobs, spend $0, burn $3.00/min (1m), $3.00/min (5m, warming up), input quiet for 1m30s"
	if got := statusLine(f); got != want {
		t.Errorf("status line\n got %q\nwant %q", got, want)
	}
}

// TestReplayStoppedEarlyIsNotNoEvents: a replay stopped by a signal (or
// q) before it read anything is not judged "no events": only one that
// ran out of input on its own is.
func TestReplayStoppedEarlyIsNotNoEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(path, nil, 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cmd := newRootCmd()
	cmd.SetArgs([]string{"replay", "--headless", "--speed", "max", path})
	cmd.SetOut(io.Discard)
	if err := cmd.ExecuteContext(ctx); err != nil && strings.Contains(err.Error(), "no events") {
		t.Errorf("a stopped replay was judged: %v", err)
	}
}
