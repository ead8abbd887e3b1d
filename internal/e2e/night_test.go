package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nightLog writes a night of two jobs: "big" passes a $2 job ceiling at
// its 4th call and goes on to 8; "small" stays cheap. Every call is a 200,
// so without the ceiling both jobs read "succeeded".
func nightLog(t *testing.T, dir string) (log, cfg string) {
	t.Helper()
	var b strings.Builder
	s := 0
	for range 8 {
		for _, job := range []string{"big", "small"} {
			s++
			tok := 1000
			if job == "big" {
				tok = 200000
			}
			fmt.Fprintf(&b, `{"ts":"2026-03-10T01:%02d:%02dZ","event":"llm_call","job_id":"%s","job_type":"summarize","model":"claude-sonnet-4-5","input_tokens":%d,"output_tokens":100,"status":200,"latency_ms":1200}`+"\n", s/60, s%60, job, tok)
		}
	}
	log, cfg = filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "burnrate.toml")
	if err := os.WriteFile(log, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[budget]\njob_ceiling_usd = 2.0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return log, cfg
}

type nightJSON struct {
	Totals struct {
		SucceededJobs int `json:"succeeded_jobs"`
		FailedJobs    int `json:"failed_jobs"`
	} `json:"totals"`
	Jobs []struct {
		ID      string `json:"job_id"`
		Outcome string `json:"outcome"`
	} `json:"jobs"`
	Night *struct {
		Limits    string `json:"limits"`
		Crossings []struct {
			Rule     string `json:"rule"`
			JobID    string `json:"job_id"`
			KillRule bool   `json:"kill_rule"`
			At       string `json:"at"`
		} `json:"crossings"`
		Kills []struct {
			JobID string `json:"job_id"`
			State string `json:"state"`
		} `json:"kills"`
	} `json:"night"`
}

func (n nightJSON) outcome(id string) string {
	for _, j := range n.Jobs {
		if j.ID == id {
			return j.Outcome
		}
	}
	return "(absent)"
}

// TestReportKnowsWhatTheNightDid: issue 39 — `report --config
// burnrate.toml` on the night a job was killed live at its ceiling listed
// it "succeeded", with no word of the ceiling. The report applies the
// config's ceilings and kill rules as the live run did and lists each
// crossing; with --journal it lists the kills made, and the killed job is
// "killed" (counted failed). The night is first run live (replay
// --headless with a kill webhook), so the journal is a real one.
func TestReportKnowsWhatTheNightDid(t *testing.T) {
	dir := t.TempDir()
	log, cfg := nightLog(t, dir)
	hook := newReceiver(t, false)
	journal := filepath.Join(dir, "journal.jsonl")
	replayHeadless(t, journal, hook.URL, []string{"--config", cfg}, log)
	hook.mu.Lock()
	kills := hook.kills
	hook.mu.Unlock()
	if len(kills) != 1 || kills[0]["job_id"] != "big" {
		t.Fatalf("the live run's kills: %v; want one, of big", kills)
	}

	read := func(args ...string) nightJSON {
		t.Helper()
		out, err := exec.Command(burnrate(t), append([]string{"report", "--format", "json"}, args...)...).Output()
		if err != nil {
			t.Fatalf("report %v: %v", args, err)
		}
		var n nightJSON
		if err := json.Unmarshal(out, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Before: no config, no journal — no night section, both succeeded.
	plain := read(log)
	if plain.Night != nil || plain.outcome("big") != "succeeded" {
		t.Errorf("without --config: night %+v, big %s; want none, succeeded", plain.Night, plain.outcome("big"))
	}

	withCfg := read("--config", cfg, log)
	if withCfg.Night == nil || len(withCfg.Night.Crossings) != 1 {
		t.Fatalf("--config: night %+v; want one crossing", withCfg.Night)
	}
	c := withCfg.Night.Crossings[0]
	if c.Rule != "job_ceiling" || c.JobID != "big" || !c.KillRule || c.At != "2026-03-10T01:00:07Z" {
		t.Errorf("crossing %+v; want job_ceiling of big at its 4th call (01:00:07), a kill rule", c)
	}
	if withCfg.outcome("big") != "succeeded" {
		t.Errorf("--config alone says big %s: no kill is known without the journal", withCfg.outcome("big"))
	}

	both := read("--config", cfg, "--journal", journal, log)
	if both.outcome("big") != "killed" || both.outcome("small") != "succeeded" {
		t.Errorf("--journal: big %s, small %s; want killed, succeeded", both.outcome("big"), both.outcome("small"))
	}
	if both.Totals.SucceededJobs != 1 || both.Totals.FailedJobs != 1 {
		t.Errorf("totals: %d succeeded, %d failed; want 1, 1 (a killed job did not finish)", both.Totals.SucceededJobs, both.Totals.FailedJobs)
	}
	if len(both.Night.Kills) != 1 || both.Night.Kills[0].JobID != "big" || both.Night.Kills[0].State != "acknowledged" {
		t.Errorf("kills %+v; want big, acknowledged", both.Night.Kills)
	}

	md, err := exec.Command(burnrate(t), "report", "--config", cfg, "--journal", journal, log).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## What the night did", "| job_ceiling | big |", "| big | summarize | killed |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the Markdown report lacks %q", want)
		}
	}

	// A journal that is not there is an error, and is not created.
	missing := filepath.Join(dir, "nope.jsonl")
	if _, err := exec.Command(burnrate(t), "report", "--journal", missing, log).Output(); err == nil {
		t.Error("--journal of a missing file: exit 0")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("report created the journal it was asked to read")
	}
}

// TestReportReadsTheAppsLifecycle: issue 39 — a pino app's own lifecycle
// lines ("job finished", "job failed", an outcome field) were skipped as
// no_event, so a job that failed with every call a 200 read "succeeded";
// durationMs was not a latency. On the binary: each job has the outcome
// its app said, and the model's mean latency is the calls' durations.
func TestReportReadsTheAppsLifecycle(t *testing.T) {
	log := filepath.Join(t.TempDir(), "app.jsonl")
	lines := `{"level":30,"time":1773104400000,"msg":"job started","jobId":"job-1"}
{"level":30,"time":1773104401000,"msg":"llm call","jobId":"job-1","model":"claude-sonnet-4-5","status":200,"input_tokens":100,"output_tokens":10,"durationMs":1000}
{"level":30,"time":1773104402000,"msg":"job finished","jobId":"job-1","durationMs":2000}
{"level":30,"time":1773104403000,"msg":"job started","jobId":"job-2"}
{"level":30,"time":1773104404000,"msg":"llm call","jobId":"job-2","model":"claude-sonnet-4-5","status":200,"input_tokens":100,"output_tokens":10,"duration_ms":2000}
{"level":50,"time":1773104405000,"msg":"job failed","jobId":"job-2","error":"validation failed"}
{"level":30,"time":1773104406000,"msg":"llm call","jobId":"job-3","model":"claude-sonnet-4-5","status":200,"input_tokens":100,"output_tokens":10,"latency_ms":3000}
{"level":30,"time":1773104407000,"msg":"job done","jobId":"job-3","outcome":"failed"}
`
	if err := os.WriteFile(log, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(burnrate(t), "report", "--format", "json", log).Output()
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var r struct {
		Source struct {
			Skipped int `json:"skipped"`
		} `json:"source"`
		Jobs []struct {
			ID      string `json:"job_id"`
			Outcome string `json:"outcome"`
		} `json:"jobs"`
		Models []struct {
			Latency float64 `json:"mean_latency_ms"`
		} `json:"models"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"job-1": "succeeded", "job-2": "failed", "job-3": "failed"}
	for _, j := range r.Jobs {
		if want[j.ID] != j.Outcome {
			t.Errorf("%s: %s, want %s", j.ID, j.Outcome, want[j.ID])
		}
	}
	if r.Source.Skipped != 0 {
		t.Errorf("%d lines skipped; every line is a call or a lifecycle event", r.Source.Skipped)
	}
	if len(r.Models) != 1 || r.Models[0].Latency != 2000 {
		t.Errorf("models %+v; want one, mean latency 2000 ms (1000, 2000, 3000)", r.Models)
	}
}
