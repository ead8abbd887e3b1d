package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestACallThatNamesNoJobIsNoKillTarget: R7-26 — job-A and job-B each
// sent a 429 under idempotency key "K", then four calls under "K" named no
// job (the field missing, null, "", an object): they became a job named
// "K", counted exact, "job K made 4 calls" against app.maxRetries = 2, and
// a kill went to "K". A key is not a job ID: the group is said, its count
// ambiguous, the finding convicts no one and nothing is killed — in the
// report and in the live pipeline.
func TestACallThatNamesNoJobIsNoKillTarget(t *testing.T) {
	dir := t.TempDir()
	call := func(sec int, job string, status int) string {
		return fmt.Sprintf(`{"ts":"2026-06-02T00:00:%02d.000Z","event":"llm_call",%s"run_id":"r1","idempotency_key":"K","provider":"openai","model":"gpt-4o","status":%d,"input_tokens":100,"output_tokens":10}`, sec, job, status)
	}
	p := writeTextLines(t, dir, "orphan.jsonl",
		`{"ts":"2026-06-02T00:00:00.000Z","event":"job_started","job_id":"job-A","job_type":"t","run_id":"r1"}`,
		`{"ts":"2026-06-02T00:00:01.000Z","event":"job_started","job_id":"job-B","job_type":"t","run_id":"r1"}`,
		call(2, `"job_id":"job-A","job_type":"t",`, 429),
		call(3, `"job_id":"job-B","job_type":"t",`, 429),
		call(4, ``, 429),
		call(5, `"job_id":null,`, 429),
		call(6, `"job_id":"",`, 429),
		call(7, `"job_id":{"id":"a"},`, 429),
		call(8, `"job_id":"job-B","job_type":"t",`, 200),
		call(9, `"job_id":"job-A","job_type":"t",`, 200),
	)
	rc := newReceiver(t, false)
	cfg := filepath.Join(dir, "kill.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[actions]\nkill_webhook = %q\nkill_on = [\"finding:assumption_violated\"]\n", rc.URL)), 0o600)
	assumptions := filepath.Join(dir, "operator.assumptions.toml")
	os.WriteFile(assumptions, []byte("[app]\nmaxRetries = 2\n[openai-sdk]\nmaxRetries = 0\n"), 0o600)
	journal := filepath.Join(dir, "journal.jsonl")
	cmd := exec.Command(burnrate(t), "replay", "--headless", "--speed", "max", "--config", cfg, "--journal", journal, "--assumptions", assumptions, p)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, exit := err.(*exec.ExitError); !exit {
			t.Fatalf("replay: %v\n%s", err, stderr.String())
		}
	}
	if _, kills := rc.snapshot(); len(kills) != 0 {
		t.Fatalf("kills %v, want none: an idempotency key is no job to kill\n%s", kills, stdout.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), "K made") {
		t.Errorf("watch says a key made calls as a job:\n%s\n%s", stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "calls that named no job grouped by their idempotency key") {
		t.Errorf("watch does not say why the finding is held against no one:\n%s", stderr.String())
	}
	r, err := declaredReport(t, "--journal", journal, "--assumptions", assumptions, "--config", cfg, p)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	if r.Totals.KeyNamedCalls != 4 {
		t.Errorf("key_named_calls %d, want 4", r.Totals.KeyNamedCalls)
	}
	for _, j := range r.Jobs {
		switch j.JobID {
		case "(key) K":
			if j.Count != "ambiguous" {
				t.Errorf("(key) K: count %q, want ambiguous (a key is not a job ID)", j.Count)
			}
		case "K":
			t.Errorf("the key's calls are a job named K: %+v", j)
		case "job-A", "job-B":
			if j.Count != "exact" {
				t.Errorf("%s: count %q, want exact", j.JobID, j.Count)
			}
		}
	}
	if c := criticalOn(r, "(key) K"); len(c) != 0 {
		t.Errorf("findings held against the key K: %v", c)
	}
	for _, f := range r.Findings {
		if strings.Contains(f.Example, "K made") {
			t.Errorf("the report says a key made calls as a job: %+v", f)
		}
	}
	md, _ := run(t, "report", "--assumptions", assumptions, p)
	if !strings.Contains(md, "| Calls that named no job | 4, grouped by their idempotency key") || !strings.Contains(md, "| (key) K |  | failed | 4? |") {
		t.Errorf("the Markdown does not say it:\n%s", md)
	}
}

// TestAKeyNamedLikeAJobIsNotThatJob: R8-9 — 30 calls that name no job
// carry the idempotency key "job-A" (another library's key scheme): they
// were filed into job-A itself (its count ambiguous, yet its job_ceiling
// kill fired on their $0.90 beside its own $0.09). The key's group is its
// own subject, "(key) job-A", whose spend is a guess: a warning that it
// is over the ceiling by such spend, never a kill; job-A keeps its own 3
// calls.
func TestAKeyNamedLikeAJobIsNotThatJob(t *testing.T) {
	dir := t.TempDir()
	lines := []string{`{"ts":"2026-06-02T00:00:00.000Z","event":"job_started","job_id":"job-A","run_id":"r1"}`}
	for i := range 33 {
		job := `"job_id":"job-A",`
		if i >= 3 {
			job = `"idempotency_key":"job-A",`
		}
		lines = append(lines, fmt.Sprintf(`{"ts":"2026-06-02T00:00:%02d.000Z","event":"llm_call",%s"run_id":"r1","model":"gpt-4o","status":200,"input_tokens":1000,"output_tokens":2750}`, 1+i, job))
	}
	p := writeTextLines(t, dir, "keyname.jsonl", lines...)
	rc := newReceiver(t, false)
	cfg := filepath.Join(dir, "kill.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[budget]\njob_ceiling_usd = 0.5\n[actions]\nkill_webhook = %q\nkill_on = [\"job_ceiling\", \"finding:assumption_violated\"]\n", rc.URL)), 0o600)
	report := filepath.Join(dir, "r.json")
	cmd := exec.Command(burnrate(t), "replay", "--headless", "--speed", "max", "--config", cfg, "--journal", filepath.Join(dir, "j.jsonl"), "--report-out", report, p)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		if _, exit := err.(*exec.ExitError); !exit {
			t.Fatal(err)
		}
	}
	if _, kills := rc.snapshot(); len(kills) != 0 {
		t.Fatalf("kills %v: calls filed under a key are no job's to kill\n%s", kills, stdout.String())
	}
	if !strings.Contains(stdout.String(), `"rule":"job_ceiling_guessed"`) || !strings.Contains(stdout.String(), `"job_id":"(key) job-A"`) {
		t.Errorf("no warning that the key's group is over the ceiling by guessed spend:\n%s", stdout.String())
	}
	b, _ := os.ReadFile(report)
	var r struct {
		Jobs []struct {
			JobID string `json:"job_id"`
			Calls int64  `json:"attempts"`
			Count string `json:"count"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, j := range r.Jobs {
		got[j.JobID] = j.Calls
	}
	if got["job-A"] != 3 || got["(key) job-A"] != 30 {
		t.Errorf("jobs %v: want job-A 3 (its own), (key) job-A 30", got)
	}
}

// TestTheUnattributedBucketIsNoKillSubject: R8-34 — 30 calls with
// "job_id":"" (any app's) filled the "(unattributed)" bucket past the job
// ceiling: a critical job_ceiling and a kill POST for job
// "(unattributed)". It is no job to stop: its spend is a guess, said as a
// warning, never a kill; the run ceiling still counts it.
func TestTheUnattributedBucketIsNoKillSubject(t *testing.T) {
	dir := t.TempDir()
	lines := []string{`{"ts":"2026-06-02T00:00:00.000Z","event":"job_started","job_id":"job-A","run_id":"r1"}`}
	for i := range 33 {
		job := `"job_id":"job-A",`
		if i >= 3 {
			job = `"job_id":"",`
		}
		lines = append(lines, fmt.Sprintf(`{"ts":"2026-06-02T00:00:%02d.000Z","event":"llm_call",%s"run_id":"r1","model":"gpt-4o","status":200,"input_tokens":1000,"output_tokens":2750}`, 1+i, job))
	}
	p := writeTextLines(t, dir, "emptyjob.jsonl", lines...)
	rc := newReceiver(t, false)
	run := func(ceiling string) string {
		cfg := filepath.Join(dir, "kill.toml")
		os.WriteFile(cfg, []byte(fmt.Sprintf("[budget]\n%s\n[actions]\nkill_webhook = %q\nkill_on = [\"job_ceiling\", \"run_ceiling\"]\n", ceiling, rc.URL)), 0o600)
		cmd := exec.Command(burnrate(t), "replay", "--headless", "--speed", "max", "--config", cfg, "--journal", filepath.Join(t.TempDir(), "j.jsonl"), p)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Run(); err != nil {
			if _, exit := err.(*exec.ExitError); !exit {
				t.Fatal(err)
			}
		}
		return stdout.String()
	}
	out := run("job_ceiling_usd = 0.5")
	if _, kills := rc.snapshot(); len(kills) != 0 {
		t.Fatalf("kills %v: the unattributed bucket is no job to kill\n%s", kills, out)
	}
	if !strings.Contains(out, `"rule":"job_ceiling_guessed"`) || !strings.Contains(out, `"job_id":"(unattributed)"`) {
		t.Errorf("no warning that the bucket is over the ceiling:\n%s", out)
	}
	// The run ceiling still weighs every call.
	out = run("ceiling_usd = 0.5")
	if _, kills := rc.snapshot(); len(kills) != 1 || kills[0]["rule"] != "run_ceiling" {
		t.Errorf("kills %v, want the run ceiling's one\n%s", kills, out)
	}
}
