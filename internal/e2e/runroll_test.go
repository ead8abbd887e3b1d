package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestADatedRunIDRollsMidJob: issue 34 — a run_id derived from the date
// rolled at midnight and split a running job in two ($0.18 + $0.18 under
// a $0.20 ceiling, no kill). A job belongs to the run of its first event:
// its next call under the next day's run ID is still its own, and it is
// killed once at $0.36. Two pipelines that share job IDs (run IDs P and Q,
// or two dated IDs of different pipelines) stay two jobs each: no kill.
func TestADatedRunIDRollsMidJob(t *testing.T) {
	at := func(d, h, m int) string { return time.Date(2026, 12, d, h, m, 0, 0, time.UTC).Format(time.RFC3339) }
	line := func(ts, run, job string) string {
		return fmt.Sprintf(`{"ts":%q,"event":"llm_call","run_id":%q,"job_id":%q,"model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", ts, run, job)
	}
	cases := []struct {
		name  string
		lines []string
		kills int
	}{
		{"date-rolled run IDs: one job", []string{
			line(at(1, 23, 58), "nightly-2026-12-01", "job-x"),
			line(at(2, 0, 1), "nightly-2026-12-02", "job-x"),
		}, 1},
		{"a compact date rolls too", []string{
			line(at(1, 23, 58), "etl_20261201_eu", "job-x"),
			line(at(2, 0, 1), "etl_20261202_eu", "job-x"),
		}, 1},
		{"two pipelines P and Q share job IDs: two jobs", []string{
			line(at(1, 23, 58), "P", "job-x"),
			line(at(2, 0, 1), "Q", "job-x"),
		}, 0},
		{"two dated pipelines share job IDs: two jobs", []string{
			line(at(1, 23, 58), "etl-2026-12-01", "job-x"),
			line(at(2, 0, 1), "ml-2026-12-02", "job-x"),
		}, 0},
		{"the next night's job of the same ID, begun after the last went quiet: its own", []string{
			line(at(1, 22, 0), "nightly-2026-12-01", "job-x"),
			line(at(2, 0, 1), "nightly-2026-12-02", "job-x"),
		}, 0},
		{"a backfill of another day beside today's run, sharing job IDs: two jobs", []string{
			line(at(2, 1, 0), "nightly-2026-11-15", "job-x"),
			line(at(2, 1, 1), "nightly-2026-12-02", "job-x"),
		}, 0},
		{"a roll across a month's end", []string{
			line(at(30, 23, 58), "nightly-2026-11-30", "job-x"),
			line(at(31, 0, 1), "nightly-2026-12-01", "job-x"),
		}, 1},
		{"a job that succeeded before the roll: the next day's job of its ID is its own", []string{
			line(at(1, 23, 58), "nightly-2026-12-01", "job-x"),
			fmt.Sprintf(`{"ts":%q,"event":"job_succeeded","run_id":"nightly-2026-12-01","job_id":"job-x"}`+"\n", at(1, 23, 59)),
			line(at(2, 0, 1), "nightly-2026-12-02", "job-x"),
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc := newReceiver(t, false)
			p := startSpoolStdin(t, filepath.Join(t.TempDir(), "journal.jsonl"), "--job-ceiling", "0.2", "--kill-webhook", rc.URL)
			for _, l := range c.lines {
				fmt.Fprint(p.stdin, l)
			}
			if c.kills > 0 {
				waitUntil(t, "the kill", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) >= c.kills })
			}
			p.endInput()
			if k, _ := rc.snapshot(); len(k) != c.kills {
				t.Errorf("%d kills, want %d", len(k), c.kills)
			}
			if a := p.alerts("job_ceiling"); len(a) != c.kills || (c.kills == 1 && a[0]["spend_usd"].(float64) != 0.36) {
				t.Errorf("job-ceiling alerts: %v", a)
			}
		})
	}
}

// TestManyRunIDsAtOnceBlindNoCeiling: issue 34 — 64 other run IDs in the
// stream closed the honest run to make room (at most 64 open), and its
// job, $0.18 before them and $0.18 after, was never killed. The churn is
// said, and the job is killed at $0.36.
func TestManyRunIDsAtOnceBlindNoCeiling(t *testing.T) {
	rc := newReceiver(t, false)
	p := startSpoolStdin(t, filepath.Join(t.TempDir(), "journal.jsonl"), "--job-ceiling", "0.2", "--kill-webhook", rc.URL)
	at := func(s int) string { return time.Date(2026, 12, 1, 1, 0, s, 0, time.UTC).Format(time.RFC3339) }
	line := func(ts, run, job string, cost float64) {
		fmt.Fprintf(p.stdin, `{"ts":%q,"event":"llm_call","run_id":%q,"job_id":%q,"model":"claude-sonnet-4-5","status":200,"cost_usd":%g}`+"\n", ts, run, job, cost)
	}
	line(at(0), "night-h", "job-h", 0.18)
	for i := range 64 {
		line(at(1), fmt.Sprintf("other-%02d", i), fmt.Sprintf("o-%d", i), 0.001)
	}
	line(at(2), "night-h", "job-h", 0.18)
	waitUntil(t, "job-h's kill", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
	p.endInput()
	if a := p.alerts("job_ceiling"); len(a) != 1 || a[0]["job_id"] != "job-h" || a[0]["spend_usd"].(float64) != 0.36 {
		t.Errorf("job-ceiling alerts: %v", a)
	}
	if !strings.Contains(p.errText(), "run IDs churn") {
		t.Errorf("the churn is not said:\n%s", p.errText())
	}
}
