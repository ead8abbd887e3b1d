package correlate_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// perJobKinds are counted once per job they name.
var perJobKinds = map[string]bool{"hidden_retry_layer": true, "retry_amplification": true, "deadline_exceeded": true}

// burstJobs reads the job count out of a synchronized_retries example.
var burstJobs = regexp.MustCompile(`^(\d+) jobs retried within`)

// findingsAddUp lists every way r's findings exceed their whole: a count
// above its population, a job list longer than its total, a waste above
// the run's wasted spend.
func findingsAddUp(r *correlate.Report) []string {
	var bad []string
	t := r.Totals
	// USD figures are rounded from exact picodollars; a part may round up
	// by at most this much against its whole.
	const eps = 1e-9
	for _, f := range r.Findings {
		say := func(format string, a ...any) { bad = append(bad, f.Kind+": "+fmt.Sprintf(format, a...)) }
		if f.JobsTotal > t.Jobs {
			say("%d jobs of a run of %d", f.JobsTotal, t.Jobs)
		}
		if len(f.Jobs) > f.JobsTotal {
			say("lists %d jobs of a total of %d", len(f.Jobs), f.JobsTotal)
		}
		seen := map[string]bool{}
		for _, j := range f.Jobs {
			if seen[j] {
				say("lists job %s twice", j)
			}
			seen[j] = true
		}
		if all := t.Attempts + t.ToolCalls; f.Count > all {
			say("count %d above the run's %d attempts", f.Count, all)
		}
		if perJobKinds[f.Kind] && f.Count > int64(f.JobsTotal) {
			say("count %d above its %d jobs", f.Count, f.JobsTotal)
		}
		if m := burstJobs.FindStringSubmatch(f.Example); m != nil {
			if n, _ := strconv.Atoi(m[1]); n > f.JobsTotal || n > t.Jobs {
				say("a burst of %d jobs in a finding of %d jobs, a run of %d", n, f.JobsTotal, t.Jobs)
			}
		} else if f.Kind == "synchronized_retries" {
			say("example %q does not say how many jobs its burst had", f.Example)
		}
		if f.WastedUSD < 0 || f.WastedUSD > t.WastedUSD+eps {
			say("its attempts wasted $%v of the run's $%v", f.WastedUSD, t.WastedUSD)
		}
		if f.JobsWastedUSD < 0 || f.JobsWastedUSD > t.WastedUSD+eps {
			say("its jobs wasted $%v of the run's $%v", f.JobsWastedUSD, t.WastedUSD)
		}
	}
	return bad
}

// TestEveryGoldenFindingAddsUp holds every golden report to its whole.
func TestEveryGoldenFindingAddsUp(t *testing.T) {
	paths, err := filepath.Glob("testdata/golden/*.json")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../*/testdata/golden/*.json")
	paths = append(paths, more...)
	if len(paths) < 10 {
		t.Fatalf("found %d golden reports, want the dozen under testdata/golden", len(paths))
	}
	withFindings := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var r correlate.Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if r.Totals.Jobs == 0 {
			t.Fatalf("%s: a golden report with no jobs", p)
		}
		if len(r.Findings) > 0 {
			withFindings++
		}
		for _, e := range findingsAddUp(&r) {
			t.Errorf("%s: %s", p, e)
		}
	}
	if withFindings < 3 {
		t.Fatalf("only %d golden reports have findings: the test would check nothing", withFindings)
	}
}

// TestFindingsAddUpCatchesAnOverrun: the check fails on the numbers issue
// 23 found (a 24-job burst in a 22-job run, a finding wasting more than
// the run).
func TestFindingsAddUpCatchesAnOverrun(t *testing.T) {
	r := &correlate.Report{Findings: []correlate.FindingReport{
		{Kind: "synchronized_retries", Count: 67, JobsTotal: 22, Jobs: []string{"a"},
			Example: "24 jobs retried within 250ms of each other at 2026-03-10T01:00:05.015Z (burst 3)"},
		{Kind: "retry_after_ignored", Count: 3, JobsTotal: 2, WastedUSD: 1.09},
		{Kind: "hidden_retry_layer", Count: 5, JobsTotal: 2, Jobs: []string{"a", "a", "b"}},
	}}
	r.Totals.Jobs, r.Totals.Attempts, r.Totals.WastedUSD = 22, 100, 0.0424
	bad := findingsAddUp(r)
	if len(bad) != 5 {
		t.Fatalf("found %d overruns, want 5 (burst, waste, count, list length, repeat): %q", len(bad), bad)
	}
}

// TestSyncBurstCountsItsOwnJobs: seed 000's third burst had at most 4
// distinct jobs within 250 ms; the example said 24 (its own jobs and the
// two earlier bursts', some twice).
func TestSyncBurstCountsItsOwnJobs(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), samples+"seed000-incident.jsonl")
	f := finding(r, "synchronized_retries")
	if f == nil {
		t.Fatal("no synchronized_retries on seed 000")
	}
	m := burstJobs.FindStringSubmatch(f.Example)
	if m == nil || m[1] != "4" {
		t.Fatalf("example %q: want a burst of 4 jobs", f.Example)
	}
}
