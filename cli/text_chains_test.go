package cli

import (
	"errors"
	"testing"
)

const chainFixtures = "../ingest/file/testdata/text/"

// jobsByID is a JSON report's jobs: outcome and attempts by job ID.
func jobsByID(t *testing.T, r map[string]any) map[string][2]any {
	t.Helper()
	out := map[string][2]any{}
	jobs, _ := r["jobs"].([]any)
	for _, j := range jobs {
		m := j.(map[string]any)
		out[m["job_id"].(string)] = [2]any{m["outcome"], m["attempts"]}
	}
	return out
}

// TestReportMixedFileChainSucceeds: a Node or Python SDK chain split by a
// JSON line of job j1 is one operation, 529 then 200, succeeded — no
// false failed job, and j1 keeps its own one attempt.
func TestReportMixedFileChainSucceeds(t *testing.T) {
	for file, chain := range map[string]string{"mixed-node-json.log": "sdk:log_5e91a2", "mixed-python-json.log": "sdk::/messages:1"} {
		jobs := jobsByID(t, textReportJSON(t, chainFixtures+file))
		if got := jobs[chain]; got != [2]any{"succeeded", 2.0} {
			t.Errorf("%s: chain %s %v, want succeeded in 2 attempts (jobs %v)", file, chain, got, jobs)
		}
		if got := jobs["j1"]; got != [2]any{"succeeded", 1.0} || len(jobs) != 2 {
			t.Errorf("%s: j1 %v, want its own 1 attempt (jobs %v)", file, got, jobs)
		}
	}
}

// TestReportConcurrentPythonExits: concurrent requests that retried as
// declared exit 0; an ambiguous reading exits 0 (not critical); a certain
// violation under concurrency still exits 1.
func TestReportConcurrentPythonExits(t *testing.T) {
	if _, err := run(t, "report", assumeFixtures+"concurrent-ambiguous.log"); err != nil {
		t.Errorf("ambiguous chains: %v, want exit 0", err)
	}
	if _, err := run(t, "report", assumeFixtures+"concurrent-certain.log"); !errors.Is(err, errCritical) {
		t.Errorf("a certain violation: %v, want the critical exit", err)
	}
	jobs := jobsByID(t, textReportJSON(t, chainFixtures+"concurrent-anthropic-python.log"))
	if len(jobs) != 2 || jobs["sdk::/messages:1"] != [2]any{"succeeded", 3.0} || jobs["sdk::/messages:2"] != [2]any{"succeeded", 3.0} {
		t.Errorf("jobs %v, want two of 3 attempts", jobs)
	}
}
