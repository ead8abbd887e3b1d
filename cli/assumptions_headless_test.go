package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/statedir"
)

// TestHeadlessAssumptionsLog: each headless run appends a line to
// assumptions.jsonl beside its journal; the second night, changed,
// compares with the first without a flag.
func TestHeadlessAssumptionsLog(t *testing.T) {
	dir := t.TempDir()
	cfgPath := dir + "/burnrate.toml"
	os.WriteFile(cfgPath, []byte("journal = \""+dir+"/journal.jsonl\"\n"), 0o644)
	night := func(name string) *correlate.Report {
		t.Helper()
		var l liveFlags
		l.configPath, l.maxCallsPerJob = cfgPath, -1
		l.headless, l.reportOut = true, filepath.Join(dir, name+".json")
		r, err := loadReplay([]string{assumeFixtures + name}, 0, decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		old := os.Stdout
		devnull, _ := os.Open(os.DevNull)
		os.Stdout = devnull
		err = runLive(context.Background(), l, "replay", nil, r)
		os.Stdout = old
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(l.reportOut)
		if err != nil {
			t.Fatal(err)
		}
		var rep correlate.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		return &rep
	}
	first := night("night-2026-06-30.log")
	for _, f := range first.Findings {
		if f.Kind == "assumption_changed" {
			t.Fatalf("the first night has no previous run: %+v", f)
		}
	}
	second := night("night-2026-07-01.log")
	var changed *correlate.FindingReport
	for i := range second.Findings {
		if second.Findings[i].Kind == "assumption_changed" {
			changed = &second.Findings[i]
		}
	}
	if changed == nil || changed.FirstAt != "2026-07-01T01:00:00Z" {
		t.Fatalf("second night: %+v", second.Findings)
	}
	log, err := os.ReadFile(filepath.Join(dir, "assumptions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(log, []byte("\n")); n != 2 {
		t.Fatalf("%d lines in assumptions.jsonl, want one per run:\n%s", n, log)
	}
	// A torn last line (a crash mid-write) is passed over: the run
	// before it is the baseline.
	os.WriteFile(filepath.Join(dir, "assumptions.jsonl"), append(log, []byte(`{"written_at":"2026-07-02T0`)...), 0o600)
	prev, err := statedir.LastAssumptions(filepath.Join(dir, "assumptions.jsonl"))
	if err != nil || len(prev) == 0 {
		t.Fatalf("after a torn line: %v, %v", prev, err)
	}
	for _, a := range prev {
		if a.Key == "anthropic-sdk.maxRetries" && a.Declared != "2" {
			t.Errorf("baseline after a torn line: %+v", a)
		}
	}
	// A symlink in its place is refused, never followed.
	os.Remove(filepath.Join(dir, "assumptions.jsonl"))
	os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "assumptions.jsonl"))
	if err := statedir.AppendAssumptions(filepath.Join(dir, "assumptions.jsonl"), second, time.Now()); err == nil {
		t.Error("appended through a symlink")
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); err == nil {
		t.Error("the symlink's target was created")
	}
}

// assumeFixtures are the logs of issue 27 (declared assumptions).
const assumeFixtures = "../correlate/testdata/assumptions/"
