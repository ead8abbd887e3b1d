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

	"github.com/burnrate-dev/burnrate/correlate"
)

func writeTextLines(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func criticalOn(r *correlate.Report, job string) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Severity == correlate.SeverityCritical && contains(f.Jobs, job) {
			out = append(out, f.Kind)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestAFindingRaisedBeforeItsJobTurnedAmbiguousIsWithdrawn: issue 39's
// red team (F3) — job-a's 400 was "retried" (a critical
// terminal_error_retried, exit 1), and only then did job-b's line name
// the request ID of job-a's second 400: one of the two records is wrong,
// so job-a's count is ambiguous, and the finding that rested on it stayed
// critical. It is withdrawn: in the report (info, marked ambiguous, exit
// 0) and in the live pipeline's report (replay's --report-out, which is
// watch's state).
func TestAFindingRaisedBeforeItsJobTurnedAmbiguousIsWithdrawn(t *testing.T) {
	dir := t.TempDir()
	line := func(sec int, job, req string) string {
		return fmt.Sprintf(`{"ts":"2026-12-07T10:00:%02dZ","job_id":%q,"model":"claude-sonnet-4-5","status":400,"request_id":%q,"input_tokens":10}`, sec, job, req)
	}
	p := writeTextLines(t, dir, "conflict.jsonl", line(0, "job-a", "req_0001aaaa"), line(1, "job-a", "req_0002bbbb"), line(2, "job-b", "req_0002bbbb"))
	r, err := declaredReport(t, p)
	if err != nil {
		t.Fatalf("report: %v (a withdrawn finding is no reason to exit 1)", err)
	}
	if c := criticalOn(r, "job-a"); len(c) > 0 || r.Totals.RequestIDConflicts != 1 {
		t.Fatalf("critical %v, conflicts %d: a finding on an ambiguous count convicts no one", c, r.Totals.RequestIDConflicts)
	}
	f := finding(r, "terminal_error_retried")
	if f == nil || !f.Ambiguous || f.Severity != correlate.SeverityInfo || !contains(f.Jobs, "job-a") {
		t.Fatalf("the withdrawn finding is not said as ambiguous: %+v", f)
	}
	for _, j := range r.Jobs {
		if len(j.Findings) > 0 {
			t.Errorf("job %s still carries %v", j.JobID, j.Findings)
		}
	}
	md, _ := run(t, "report", p)
	if !strings.Contains(md, "terminal_error_retried — info (ambiguous") {
		t.Errorf("the Markdown does not say it:\n%s", md)
	}
	// The live pipeline: watch's state, as replay writes it on exit.
	out := filepath.Join(dir, "live.json")
	cmd := exec.Command(burnrate(t), "replay", "--headless", "--speed", "max", "--journal", filepath.Join(dir, "j.jsonl"), "--report-out", out, p)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("replay: %v\n%s", err, b)
	}
	b, _ := os.ReadFile(out)
	var live correlate.Report
	if err := json.Unmarshal(b, &live); err != nil {
		t.Fatal(err)
	}
	if c := criticalOn(&live, "job-a"); len(c) > 0 {
		t.Fatalf("live: critical %v on an ambiguous job", c)
	}
}

// TestAKillMadeBeforeTheFindingWasWithdrawnIsSaid: the operator declared
// anthropic-sdk.maxRetries = 0 and kills on assumption_violated; job-x's
// SDK retried (a kill, sent), and a later line of job-y named the request
// ID of that retry. The finding is withdrawn — and the kill, which cannot
// be unsent, stays in the journal and is said beside it.
func TestAKillMadeBeforeTheFindingWasWithdrawnIsSaid(t *testing.T) {
	dir := t.TempDir()
	call := func(sec int, job string, status, retry int, req string) string {
		return fmt.Sprintf(`{"ts":"2026-07-01T01:00:%02d.000Z","event":"llm_call","job_id":%q,"model":"claude-sonnet-4-5","status":%d,"request_id":%q,"headers":{"x-stainless-retry-count":"%d"},"input_tokens":100,"output_tokens":10}`, sec, job, status, req, retry)
	}
	p := writeTextLines(t, dir, "night.log",
		`{"ts":"2026-07-01T01:00:00.000Z","event":"job_started","job_id":"job-x"}`,
		call(1, "job-x", 529, 0, "req_000001xx"),
		call(3, "job-x", 529, 1, "req_000002xx"),
		call(5, "job-x", 200, 2, "req_000003xx"),
		call(7, "job-y", 200, 0, "req_000002xx"),
	)
	rc := newReceiver(t, false)
	cfg := filepath.Join(dir, "kill.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[actions]\nkill_webhook = %q\nkill_on = [\"finding:assumption_violated\"]\n", rc.URL)), 0o600)
	assumptions := filepath.Join(dir, "operator.assumptions.toml")
	os.WriteFile(assumptions, []byte("[anthropic-sdk]\nmaxRetries = 0\n"), 0o600)
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
	if _, kills := rc.snapshot(); len(kills) != 1 || kills[0]["job_id"] != "job-x" {
		t.Fatalf("kills %v, want job-x's one (made before the conflicting line)\n%s", kills, stdout.String())
	}
	r, err := declaredReport(t, "--journal", journal, "--assumptions", assumptions, "--config", cfg, p)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	if c := criticalOn(r, "job-x"); contains(c, "assumption_violated") {
		t.Fatalf("assumption_violated still critical on job-x, whose count is ambiguous: %v", c)
	}
	// The run's finding stands: the SDK's own retry counts broke the
	// declaration, whichever job the request was.
	run := false
	for _, f := range r.Findings {
		run = run || (f.Kind == "assumption_violated" && f.Severity == correlate.SeverityCritical && len(f.Jobs) == 0 && strings.Contains(f.Example, "declared 0 but 2 retries observed"))
	}
	if err != errCritical || !run {
		t.Fatalf("the run's assumption_violated (no job named) is gone (exit %v): %+v", err, r.Findings)
	}
	var f *correlate.FindingReport
	for i := range r.Findings {
		if r.Findings[i].Kind == "assumption_violated" && r.Findings[i].Ambiguous {
			f = &r.Findings[i]
		}
	}
	if f == nil || f.Severity != correlate.SeverityInfo || !strings.Contains(f.Example, "a kill was already made for job-x") {
		t.Fatalf("the withdrawn finding does not say the kill: %+v\n%+v", f, r.Findings)
	}
	for _, j := range r.Jobs {
		if j.JobID == "job-x" && j.Outcome != "killed" {
			t.Errorf("job-x: outcome %q, want killed (the kill was made)", j.Outcome)
		}
	}
}

// TestPositionalCountsRaiseNoRetryWarnings: issue 39's red team (F6) —
// Python SDK lines that name no job fell in doc-A by position alone (24
// 529s with their "Retrying request" lines, which another process could
// have written): the count was marked ambiguous, yet it still raised the
// warnings hidden_retry_layer ("one call tried 25 times") and
// retry_amplification on doc-A. Links by position alone raise neither:
// both are said as ambiguous, at info, on no job's row — in the report
// and in the live pipeline's.
func TestPositionalCountsRaiseNoRetryWarnings(t *testing.T) {
	dir := t.TempDir()
	lines := []string{`{"ts":"2026-07-01T01:00:00.000Z","event":"job_started","job_id":"doc-A","job_type":"summarize"}`,
		`2026-07-01 01:00:01,000 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"`}
	for i := range 24 {
		lines = append(lines,
			fmt.Sprintf(`2026-07-01 01:00:%02d,100 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 529 Overloaded"`, 2+2*i%58),
			fmt.Sprintf(`2026-07-01 01:00:%02d,101 - anthropic._base_client - INFO - Retrying request to /v1/messages in 0.5 seconds`, 2+2*i%58))
	}
	lines = append(lines, `2026-07-01 01:00:59,000 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"`)
	p := writeTextLines(t, dir, "py.log", lines...)
	out := filepath.Join(dir, "live.json")
	cmd := exec.Command(burnrate(t), "replay", "--headless", "--speed", "max", "--journal", filepath.Join(dir, "j.jsonl"), "--report-out", out, p)
	cmd.Dir = dir
	alerts, err := cmd.Output()
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	b, _ := os.ReadFile(out)
	var live correlate.Report
	if err := json.Unmarshal(b, &live); err != nil {
		t.Fatal(err)
	}
	r, err := declaredReport(t, p)
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]*correlate.Report{"report": r, "live": &live} {
		if len(rep.Jobs) != 1 || rep.Jobs[0].Count != "ambiguous" || rep.Jobs[0].Attempts != 26 {
			t.Fatalf("%s: jobs %+v, want doc-A's 26 calls, ambiguous", name, rep.Jobs)
		}
		for _, kind := range []string{"hidden_retry_layer", "retry_amplification"} {
			if contains(rep.Jobs[0].Findings, kind) {
				t.Errorf("%s: doc-A carries %s from links by position alone", name, kind)
			}
			for _, f := range rep.Findings {
				if f.Kind == kind && (!f.Ambiguous || f.Severity != correlate.SeverityInfo || f.Count != 1 || f.JobsTotal != 1) {
					// (Once per job: an ambiguous job carries no finding
					// bit, and its detector flags it again at every call.)
					t.Errorf("%s: %s at %s (ambiguous %t) count %d on %d jobs, want info, ambiguous, 1 on 1", name, kind, f.Severity, f.Ambiguous, f.Count, f.JobsTotal)
				}
			}
		}
	}
	for _, kind := range []string{"hidden_retry_layer", "retry_amplification"} {
		if strings.Contains(string(alerts), kind) {
			t.Errorf("live: an alert for %s from links by position alone:\n%s", kind, alerts)
		}
	}
}

// TestLangfuseGenerationsInACycleAreBilled: issue 39's red team — two
// Langfuse generations each other's parent (and one its own) made every
// one a "wrapper" of another, so none was billed: the trace read as no
// call at all. The cycle is cut at its smallest ID, so the chain's leaf
// is the call: one for the pair, one for the self-parent, billed by their
// tokens, whatever order the observations come in.
func TestLangfuseGenerationsInACycleAreBilled(t *testing.T) {
	dir := t.TempDir()
	gen := func(id, parent string, in, out int) string {
		return fmt.Sprintf(`{"id":%q,"type":"GENERATION","name":"g","model":"claude-sonnet-4-5","parentObservationId":%q,"startTime":"2026-12-07T10:00:00.000Z","endTime":"2026-12-07T10:00:02.000Z","usageDetails":{"input":%d,"output":%d}}`, id, parent, in, out)
	}
	for _, order := range [][]string{{gen("obs-b", "obs-a", 1000, 200), gen("obs-a", "obs-b", 1000, 200), gen("obs-c", "obs-c", 500, 100)},
		{gen("obs-c", "obs-c", 500, 100), gen("obs-a", "obs-b", 1000, 200), gen("obs-b", "obs-a", 1000, 200)}} {
		p := writeTextLines(t, dir, "trace.json", `{"id":"trace-1","projectId":"proj-1","name":"summarize","sessionId":"sess-9","observations":[`+strings.Join(order, ",")+`]}`)
		r, err := declaredReport(t, p)
		if err != nil {
			t.Fatal(err)
		}
		// 1000 in + 200 out and 500 in + 100 out at $3/$15 per million.
		if r.Totals.Attempts != 2 || r.Totals.SpendUSD < 0.00899 || r.Totals.SpendUSD > 0.00901 {
			t.Fatalf("%d calls, $%g; want 2 calls, $0.009", r.Totals.Attempts, r.Totals.SpendUSD)
		}
	}
}

// TestAnImplausibleClineCostIsADroppedField: issue 39's red team — a
// Cline task whose every other request logs cost 99999 (for 1,200
// tokens) billed $4,999,950 (with more such lines, the saturated
// ≥$9,223,372.04). A cost no token count could make is a bad field:
// dropped and counted (implausible_field), the call priced by its tokens.
func TestAnImplausibleClineCostIsADroppedField(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tasks", "task-77")
	os.MkdirAll(dir, 0o755)
	var msgs []string
	for i := range 100 {
		cost := "0.006"
		if i%2 == 0 {
			cost = "99999"
		}
		text := fmt.Sprintf(`{"request":"x","tokensIn":1000,"tokensOut":200,"cacheWrites":0,"cacheReads":0,"cost":%s}`, cost)
		b, _ := json.Marshal(text)
		msgs = append(msgs, fmt.Sprintf(`{"ts":%d,"type":"say","say":"api_req_started","text":%s,"modelInfo":{"providerId":"anthropic","modelId":"claude-sonnet-4-5"}}`, 1780000000000+i*1000, b))
	}
	p := writeTextLines(t, dir, "ui_messages.json", "["+strings.Join(msgs, ",")+"]")
	r, err := declaredReport(t, p)
	if err != nil {
		t.Fatal(err)
	}
	// 50 calls at their logged $0.006, 50 by tokens: 1000 × $3/M + 200 × $15/M.
	if r.Totals.Attempts != 100 || r.Totals.SpendUSD < 0.5999 || r.Totals.SpendUSD > 0.6001 {
		t.Fatalf("%d calls, $%g; want 100 calls, $0.60", r.Totals.Attempts, r.Totals.SpendUSD)
	}
	if dropped := r.Source.FieldsDropped["implausible_field"]; dropped != 50 {
		t.Fatalf("implausible_field %d, want 50 (each absurd cost counted)", dropped)
	}
}

// TestAWithdrawalLeavesTheOtherJobsFindingWhole: job-a and job-c both
// retried a 400; job-a (the example's job) then turned ambiguous. The
// finding stays critical for job-c alone — its count, jobs and example
// no longer name job-a — and job-a's part is the ambiguous row.
func TestAWithdrawalLeavesTheOtherJobsFindingWhole(t *testing.T) {
	dir := t.TempDir()
	line := func(sec int, job, req string) string {
		return fmt.Sprintf(`{"ts":"2026-12-07T10:00:%02dZ","job_id":%q,"model":"claude-sonnet-4-5","status":400,"request_id":%q,"input_tokens":10}`, sec, job, req)
	}
	p := writeTextLines(t, dir, "two.jsonl", line(0, "job-a", "req_0001aaaa"), line(1, "job-a", "req_0002bbbb"),
		line(2, "job-c", "req_0003cccc"), line(3, "job-c", "req_0004dddd"), line(4, "job-b", "req_0002bbbb"))
	r, err := declaredReport(t, p)
	if err != errCritical {
		t.Fatalf("report: %v, want exit 1 (job-c's finding holds)", err)
	}
	var crit, amb *correlate.FindingReport
	for i := range r.Findings {
		if f := &r.Findings[i]; f.Kind == "terminal_error_retried" {
			if f.Ambiguous {
				amb = f
			} else {
				crit = f
			}
		}
	}
	if crit == nil || crit.Severity != correlate.SeverityCritical || crit.Count != 1 || crit.JobsTotal != 1 || len(crit.Jobs) != 1 || crit.Jobs[0] != "job-c" || strings.Contains(crit.Example, "job-a") {
		t.Fatalf("critical row %+v, want job-c's alone", crit)
	}
	if amb == nil || len(amb.Jobs) != 1 || amb.Jobs[0] != "job-a" {
		t.Fatalf("ambiguous row %+v, want job-a's", amb)
	}
}
