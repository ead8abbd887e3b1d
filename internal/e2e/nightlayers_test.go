package e2e

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestNightLayersAreTheStack: issue 39 — on seed 000's night read in one
// stream (the app's pino lines and ANTHROPIC_LOG=debug, as 2>&1), every
// call was right but the layers read 1×21×3 for a stack of BullMQ
// attempts: 7 × p-retry 3 × the SDK's 3: the app's "calling model" line
// names the queue's attempt (queue_attempt, BullMQ's attemptsMade + 1), and
// nothing read it, so the wrapper's rounds ran on across the queue's
// attempts. Two jobs of the lab's night at concurrency 4 (the real SDK,
// p-retry and BullMQ on Redis against the mock provider;
// testdata/lab-night-c4, its ledger beside it): report-4100 dead-lettered
// at 63 calls, report-4115 got through at its 6th queue attempt (49).
func TestNightLayersAreTheStack(t *testing.T) {
	const dir = "testdata/lab-night-c4/"
	wire := labLedgerAt(t, dir+"ledger.jsonl")
	out, err := run(t, "report", "--format", "json", dir+"stream.log")
	if err != nil && err != errCritical {
		t.Fatalf("report: %v\n%.500s", err, out)
	}
	var rep struct {
		Jobs []struct {
			JobID    string `json:"job_id"`
			Attempts int    `json:"attempts"`
			Layers   []int  `json:"layers"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report json: %v", err)
	}
	want := map[string][]int{"report-4100": {7, 3, 3}, "report-4115": {6, 3, 3}}
	if len(rep.Jobs) != len(want) {
		t.Fatalf("%d jobs, want %d", len(rep.Jobs), len(want))
	}
	for _, j := range rep.Jobs {
		if w := wire[j.JobID]; w == nil || j.Attempts != w.calls {
			t.Errorf("%s: %d calls, the wire %v", j.JobID, j.Attempts, w)
		}
		if l, ok := want[j.JobID]; !ok || !slices.Equal(j.Layers, l) {
			t.Errorf("%s: layers %v, want %v (queue × wrapper × SDK)", j.JobID, j.Layers, l)
		}
	}
	// The Markdown report's rows say the same.
	md, err := run(t, "report", dir+"stream.log")
	if err != nil && err != errCritical {
		t.Fatalf("report: %v", err)
	}
	if !strings.Contains(md, "| 7×3×3 |") || strings.Contains(md, "×21×") {
		t.Errorf("the report's layers are not the stack's 7×3×3:\n%s", md)
	}
}

// TestQueueAttemptHostile: a queue attempt no queue writes (an object, a
// negative, a word) costs that field, counted, never the call it rides
// on; BullMQ's attemptsMade (0-based) reads as the next attempt; a huge
// one is capped, not wrapped.
func TestQueueAttemptHostile(t *testing.T) {
	dir := t.TempDir()
	log := dir + "/q.jsonl"
	lines := []string{
		`{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"a","model":"claude-sonnet-4-5","status":529,"attempt":1,"queue_attempt":{"x":1}}`,
		`{"ts":"2026-03-10T01:00:01Z","event":"llm_call","job_id":"a","model":"claude-sonnet-4-5","status":529,"attempt":2,"queue_attempt":-3}`,
		`{"ts":"2026-03-10T01:00:02Z","event":"llm_call","job_id":"a","model":"claude-sonnet-4-5","status":529,"attempt":1,"queue_attempt":"seven"}`,
		`{"ts":"2026-03-10T01:00:03Z","event":"llm_call","job_id":"a","model":"claude-sonnet-4-5","status":200,"attempt":1,"queue_attempt":1e30,"input_tokens":10,"output_tokens":5}`,
		`{"ts":"2026-03-10T01:00:04Z","event":"llm_call","job_id":"b","model":"claude-sonnet-4-5","status":529,"attempt":1,"attemptsMade":0}`,
		`{"ts":"2026-03-10T01:00:05Z","event":"llm_call","job_id":"b","model":"claude-sonnet-4-5","status":529,"attempt":2,"attemptsMade":0}`,
		`{"ts":"2026-03-10T01:00:06Z","event":"llm_call","job_id":"b","model":"claude-sonnet-4-5","status":529,"attempt":1,"attemptsMade":1}`,
		`{"ts":"2026-03-10T01:00:07Z","event":"llm_call","job_id":"b","model":"claude-sonnet-4-5","status":200,"attempt":2,"attemptsMade":1,"input_tokens":10,"output_tokens":5}`,
	}
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "report", "--format", "json", log)
	if err != nil && err != errCritical {
		t.Fatalf("report: %v\n%.500s", err, out)
	}
	var rep struct {
		Source struct {
			SkippedByReason map[string]int64 `json:"skipped_by_reason"`
			FieldsDropped   map[string]int64 `json:"fields_dropped"`
		} `json:"source"`
		Jobs []struct {
			JobID    string `json:"job_id"`
			Attempts int    `json:"attempts"`
			Layers   []int  `json:"layers"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Source.SkippedByReason) != 0 || rep.Source.FieldsDropped["wrong_type_field"] != 3 {
		t.Errorf("skipped %v, fields dropped %v: want no line skipped, the 3 unreadable queue attempts counted", rep.Source.SkippedByReason, rep.Source.FieldsDropped)
	}
	for _, j := range rep.Jobs {
		switch j.JobID {
		case "a":
			if j.Attempts != 4 || j.Layers[0] != 32767 {
				t.Errorf("a: %d calls, layers %v: want 4 calls, the huge queue attempt capped", j.Attempts, j.Layers)
			}
		case "b":
			if j.Attempts != 4 || !slices.Equal(j.Layers, []int{2, 1, 2}) {
				t.Errorf("b: %d calls, layers %v: want 4 calls, 2×1×2 (attemptsMade 0 and 1: two queue attempts)", j.Attempts, j.Layers)
			}
		}
	}
}
