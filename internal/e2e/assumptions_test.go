package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/config"
	"github.com/burnrate-dev/burnrate/correlate"
)

const assumeFixtures = "../../correlate/testdata/assumptions/"

// TestReportAssumptionViolatedExits1: a run declaring 0 SDK retries
// whose SDK lines show 2 is critical.
func TestReportAssumptionViolatedExits1(t *testing.T) {
	out, err := run(t, "report", assumeFixtures+"violated-records-2026-07-01.log")
	if !errors.Is(err, errCritical) {
		t.Fatalf("violated: %v, want the critical exit", err)
	}
	if !strings.Contains(out, "### assumption_violated — critical") || !strings.Contains(out, "## Assumptions") {
		t.Errorf("report:\n%s", out)
	}
	if _, err := run(t, "report", assumeFixtures+"night-2026-06-30.log"); err != nil {
		t.Errorf("a night that kept its premises: %v", err)
	}
}

// TestReportAssumptionsBaseline: last night's JSON report as --baseline
// makes tonight's changed declaration assumption_changed.
func TestReportAssumptionsBaseline(t *testing.T) {
	prev, err := run(t, "report", "--format", "json", assumeFixtures+"night-2026-06-30.log")
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "prev.json")
	if err := os.WriteFile(base, []byte(prev), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "report", "--format", "json", "--baseline", base, assumeFixtures+"night-2026-07-01.log")
	if err != nil {
		t.Fatal(err)
	}
	var r correlate.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var changed *correlate.FindingReport
	for i := range r.Findings {
		if r.Findings[i].Kind == "assumption_changed" {
			changed = &r.Findings[i]
		}
	}
	if changed == nil || changed.FirstAt != "2026-07-01T01:00:00Z" {
		t.Fatalf("assumption_changed: %+v in %v", changed, r.Findings)
	}
}

// TestAssumptionsTOML: a committed burnrate.assumptions.toml declares
// as a log line does, tables flattened, per job type too.
func TestAssumptionsTOML(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "burnrate.assumptions.toml")
	toml := "\"retry.owner\" = \"wrapper.withSingleOwnerRetry\"\n\n[anthropic-sdk]\nmaxRetries = 0\n\n[job_types.nightly-article]\n\"scheduler.rerunsOnFailure\" = 1\n"
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	// The night's own line declares 2; the file 0 for the SDK — and the
	// SDK retried twice.
	out, err := run(t, "report", "--format", "json", "--assumptions", path, assumeFixtures+"silent.log")
	if err != nil {
		t.Fatal(err)
	}
	var r correlate.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range r.Assumptions {
		if a.Declared != "" {
			got[a.JobType+"|"+a.Key] = a.Declared + " from " + a.DeclaredFrom + " at " + a.FirstAt
		}
	}
	want := map[string]string{
		"|retry.owner":                              "wrapper.withSingleOwnerRetry from burnrate.assumptions.toml at 2026-07-02T01:00:00Z",
		"|anthropic-sdk.maxRetries":                 "0 from burnrate.assumptions.toml at 2026-07-02T01:00:00Z",
		"nightly-article|scheduler.rerunsOnFailure": "1 from burnrate.assumptions.toml at 2026-07-02T01:00:00Z",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	os.WriteFile(path, []byte("not = [toml"), 0o600)
	if _, err := run(t, "report", "--assumptions", path, assumeFixtures+"silent.log"); err == nil || !strings.Contains(err.Error(), "docs/assumptions.md") {
		t.Errorf("a broken file: %v", err)
	}
}

// TestBudgetFromAssumptions: seed 003's line, read into a report, gives
// the layers it declares, multiplied: scheduler 2 × watchdog 2 × SDK 1.
func TestBudgetFromAssumptions(t *testing.T) {
	rep, err := run(t, "report", "--format", "json", assumeFixtures+"night-2026-06-30.log")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "night.json")
	os.WriteFile(path, []byte(rep), 0o600)
	out, err := run(t, "budget", "layers", "--format", "json", "--from-assumptions", path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Attempts int `json:"worst_case_attempts"`
		Layers   []struct {
			Name     string `json:"name"`
			Attempts int    `json:"attempts"`
		} `json:"layers"`
		Assumed []string `json:"from_assumptions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Attempts != 4 || len(got.Layers) != 3 || got.Layers[0].Name != "scheduler" || got.Layers[2].Name != "anthropic-sdk" || got.Layers[2].Attempts != 1 {
		t.Fatalf("%+v", got)
	}
	if !strings.Contains(strings.Join(got.Assumed, "\n"), "declare wrapper.withSingleOwnerRetry.maxAttempts") {
		t.Errorf("the owner's undeclared attempts must be said: %v", got.Assumed)
	}
	// --layer adds the owner's own loop inside the declared ones.
	out, err = run(t, "budget", "layers", "--format", "json", "--from-assumptions", path, "--layer", "wrapper:attempts=4,timeout=300s")
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(out), &got)
	if got.Attempts != 16 {
		t.Errorf("with the wrapper's 4 attempts: %d, want 16", got.Attempts)
	}
	silent, _ := run(t, "report", "--format", "json", assumeFixtures+"silent.log")
	os.WriteFile(path, []byte(silent), 0o600)
	if _, err := run(t, "budget", "layers", "--from-assumptions", path); err == nil || !strings.Contains(err.Error(), "declare no retry layer") {
		t.Errorf("a report declaring nothing: %v", err)
	}
}

// TestReadmeAssumptions: docs/assumptions.md opens with seed 003's line,
// and its TOML example is a file burnrate reads.
func TestReadmeAssumptions(t *testing.T) {
	b, err := os.ReadFile("../../docs/assumptions.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "# Assumptions")
	if !ok {
		t.Fatal("docs/assumptions.md has no Assumptions title")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	line, err := os.ReadFile(assumeFixtures + "night-2026-06-30.log")
	if err != nil {
		t.Fatal(err)
	}
	seed, _, _ := strings.Cut(string(line), "\n")
	_, firstBlock, _ := strings.Cut(sec, "```\n")
	if first, _, _ := strings.Cut(firstBlock, "\n"); first != seed {
		t.Errorf("the first example is %q, want seed 003's line", first)
	}
	_, toml, ok := strings.Cut(sec, "```toml\n")
	if !ok {
		t.Fatal("no TOML example")
	}
	toml, _, _ = strings.Cut(toml, "```")
	path := filepath.Join(t.TempDir(), "burnrate.assumptions.toml")
	os.WriteFile(path, []byte(toml), 0o600)
	evs, err := config.LoadAssumptions(path)
	if err != nil || len(evs) != 4 {
		t.Fatalf("README's TOML: %d declarations, %v", len(evs), err)
	}
}

// TestOTLPVersionBumpAcrossADefaultChange: an OTLP stream whose spans carry
// x-stainless-retry-count and x-stainless-package-version yields the
// observed keys, and openai-go moving from 3.52.0 to 3.53.0 crosses the
// Retry-After cap recorded in the defaults history.
func TestOTLPVersionBumpAcrossADefaultChange(t *testing.T) {
	out, err := run(t, "report", "--format", "json", assumeFixtures+"otlp-openai-go-two-nights.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var r correlate.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	rows := map[string]correlate.AssumptionReport{}
	for _, a := range r.Assumptions {
		rows[a.Key] = a
	}
	if v := rows["openai-go.version"]; v.Observed != "3.53.0" || v.Previous != "3.52.0" || v.ChangedAt != "2026-07-01T01:00:00Z" {
		t.Errorf("version: %+v", v)
	}
	if m := rows["openai-sdk.maxRetries"]; m.Observed != "2" || m.Declared != "2" || m.DeclaredFrom != "otlp resource" {
		t.Errorf("retries: %+v", m)
	}
	var up *correlate.FindingReport
	for i := range r.Findings {
		if r.Findings[i].Kind == "default_changed_upstream" {
			up = &r.Findings[i]
		}
	}
	if up == nil || up.FirstAt != "2026-07-01T01:00:00Z" || !strings.Contains(up.Example, "DefaultMaxServerDelay") {
		t.Fatalf("default_changed_upstream: %+v", up)
	}
}

// TestReportAuditDerived: report --audit fills the derived column from the
// code's layers, keyed as runs declare them.
func TestReportAuditDerived(t *testing.T) {
	out, _ := run(t, "report", "--format", "json", "--audit", "../../audit/testdata/pyagent", assumeFixtures+"violated-records-2026-07-01.log")
	var r correlate.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Assumptions {
		if a.Key == "anthropic-sdk.maxRetries" {
			if a.Declared != "0" || a.Derived != "5" || !strings.Contains(a.DerivedFrom, "app/llm.py:13") {
				t.Errorf("%+v", a)
			}
			return
		}
	}
	t.Fatalf("no anthropic-sdk.maxRetries in %+v", r.Assumptions)
}

// TestBudgetFromHostileAssumptions: red team of issue 27 — maxRetries of
// -5, 999999999999 or 1e308 became a note, and the worst case was printed
// without that layer (understated), exit 0. Refused.
func TestBudgetFromHostileAssumptions(t *testing.T) {
	for _, v := range []string{`-5`, `999999999999`, `1e308`} {
		r := correlate.Report{Assumptions: []correlate.AssumptionReport{{Key: "anthropic-sdk.maxRetries", Declared: v}}}
		b, _ := json.Marshal(r)
		path := filepath.Join(t.TempDir(), "r.json")
		os.WriteFile(path, b, 0o644)
		if _, err := run(t, "budget", "layers", "--from-assumptions", path); err == nil || !strings.Contains(err.Error(), "not a count of retries") {
			t.Errorf("maxRetries %s: %v", v, err)
		}
	}
}

// TestDaemonKeepsALinePerNight: one watch --headless over three nights
// (an idle gap ends each; seed 003's [assumptions] line, which has no time
// of its own, opens each) appends a line per night as the next begins,
// says the night the premise changed on stderr, and compares the last
// night with the one before it — not with whatever ran before the daemon.
func TestDaemonKeepsALinePerNight(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	n1, err := os.ReadFile(assumeFixtures + "night-2026-06-30.log")
	if err != nil {
		t.Fatal(err)
	}
	n2, err := os.ReadFile(assumeFixtures + "night-2026-07-01.log")
	if err != nil {
		t.Fatal(err)
	}
	n3 := bytes.ReplaceAll(n2, []byte("2026-07-01"), []byte("2026-07-02"))
	logPath := filepath.Join(dir, "nights.log")
	os.WriteFile(logPath, slices.Concat(n1, n2, n3), 0o600)
	cmd := exec.Command(bin, "watch", "--headless", "--run-window", "idle 2h", "--journal", filepath.Join(dir, "journal.jsonl"),
		"--report-out", filepath.Join(dir, "last.json"), logPath)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Dir = &stderr, dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := func() []string {
		b, _ := os.ReadFile(filepath.Join(dir, "assumptions.jsonl"))
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(lines()) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(lines()); n != 2 {
		t.Fatalf("while running: %d lines, want one per night already superseded (2)", n)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got := lines()
	if len(got) != 3 {
		t.Fatalf("%d lines after the stop, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, want := range []string{`"declared":"0"`, `"declared":"2","declared_from"`, `"declared":"2","declared_from"`} {
		if !strings.Contains(got[i], want) {
			t.Errorf("night %d: %s lacks %s", i+1, got[i], want)
		}
	}
	if !strings.Contains(stderr.String(), "2026-07-01T01:00:00Z: assumption_changed (warning): anthropic-sdk.maxRetries (declared) was 0 in the previous run, is 2; the first event under the new value is at 2026-07-01T01:00:00Z") {
		t.Errorf("stderr does not name night 2's change:\n%s", stderr.String())
	}
	if strings.Count(stderr.String(), "assumption_changed") != 1 {
		t.Errorf("one change in three nights, stderr says:\n%s", stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "last.json"))
	if err != nil {
		t.Fatal(err)
	}
	var last correlate.Report
	json.Unmarshal(b, &last)
	for _, f := range last.Findings {
		if f.Kind == "assumption_changed" {
			t.Errorf("night 3 equals night 2, yet: %+v", f)
		}
	}
}
