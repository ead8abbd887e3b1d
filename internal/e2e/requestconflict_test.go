package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestARequestIDNamedByTwoJobsIsSaid: issue 39's red team — the SDK's
// debug block of a request named job "victim" (its x-job-id header), the
// app's line of the same request ID named job-01: the call was split
// between them by the order of the lines (victim 1 attempt at $0, job-01
// $0.90 with none), both "exact", nothing said. A forged line can be
// either, so neither is believed in silence: the conflict is counted and
// both counts are ambiguous (they convict nothing).
func TestARequestIDNamedByTwoJobsIsSaid(t *testing.T) {
	src, err := os.ReadFile("testdata/node-sdk/debug-c4.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var b strings.Builder
	b.WriteString(lines[0] + "\n")  // job-01 started
	for _, l := range lines[1:32] { // log_101603's request block
		b.WriteString(strings.Replace(l, "'x-job-id': 'job-01'", "'x-job-id': 'victim'", 1) + "\n")
	}
	b.WriteString(lines[122] + "\n") // its response: request-id req_000001x
	b.WriteString(lines[421] + "\n") // the app's line of req_000001x, job-01
	if !strings.Contains(lines[122], "req_000001x") || !strings.Contains(lines[421], "req_000001x") {
		t.Fatal("the fixture moved: lines 123 and 422 no longer hold req_000001x")
	}
	p := filepath.Join(t.TempDir(), "forged.log")
	os.WriteFile(p, []byte(b.String()), 0o600)
	out, err := run(t, "report", "--format", "json", p)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	var r struct {
		Totals struct {
			Conflicts int64 `json:"request_id_conflicts"`
		} `json:"totals"`
		Jobs []struct {
			JobID string `json:"job_id"`
			Count string `json:"count"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Totals.Conflicts != 1 {
		t.Errorf("request_id_conflicts %d, want 1", r.Totals.Conflicts)
	}
	for _, j := range r.Jobs {
		if (j.JobID == "victim" || j.JobID == "job-01") && j.Count != "ambiguous" {
			t.Errorf("%s: count %q, want ambiguous (the two records of one request name two jobs)", j.JobID, j.Count)
		}
	}
	md, _ := run(t, "report", p)
	if !strings.Contains(md, "Request IDs named by two jobs") {
		t.Errorf("the Markdown does not say it:\n%s", md)
	}
}
