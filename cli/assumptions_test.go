package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

const assumeFixtures = "../correlate/testdata/assumptions/"

// TestReportAssumptionViolatedExits1: a run declaring 0 SDK retries
// whose SDK lines show 2 is critical.
func TestReportAssumptionViolatedExits1(t *testing.T) {
	out, err := run(t, "report", assumeFixtures+"violated-2026-07-01.log")
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
	if _, err := run(t, "report", "--assumptions", path, assumeFixtures+"silent.log"); err == nil || !strings.Contains(err.Error(), "README: Assumptions") {
		t.Errorf("a broken file: %v", err)
	}
}
