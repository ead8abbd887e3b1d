package correlate_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/report"
)

const assumeDir = "testdata/assumptions/"

// seed003Line is seed 003's line, byte for byte.
const seed003Line = `[assumptions] {"anthropic-sdk.maxRetries":0,"claude-code.streaming-idle-watchdog":"default-on / 300s idle -> abort+retry","scheduler.rerunsOnFailure":1,"retry.owner":"wrapper.withSingleOwnerRetry"}`

func assumption(r *correlate.Report, jobType, key string) *correlate.AssumptionReport {
	for i := range r.Assumptions {
		if r.Assumptions[i].Key == key && r.Assumptions[i].JobType == jobType {
			return &r.Assumptions[i]
		}
	}
	return nil
}

// TestSeed003LineIsRead: the seed's exact line at the top of a night's
// log gives its four keys, declared by a log line, first under the time of
// the first event after it (the line has none of its own).
func TestSeed003LineIsRead(t *testing.T) {
	b, err := os.ReadFile(assumeDir + "night-2026-06-30.log")
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(b), "\n"); first != seed003Line {
		t.Fatalf("the fixture must open with seed 003's exact line, has %q", first)
	}
	r := reportOf(t, correlate.DefaultConfig(), assumeDir+"night-2026-06-30.log")
	want := map[string]string{"anthropic-sdk.maxRetries": "0", "claude-code.streaming-idle-watchdog": "default-on / 300s idle -> abort+retry",
		"scheduler.rerunsOnFailure": "1", "retry.owner": "wrapper.withSingleOwnerRetry"}
	for k, v := range want {
		a := assumption(r, "", k)
		if a == nil || a.Declared != v || a.DeclaredFrom != "log line" || a.FirstAt != "2026-06-30T01:00:00Z" {
			t.Errorf("%s: %+v, want declared %q from a log line, first at 2026-06-30T01:00:00Z", k, a, v)
		}
	}
	// The SDK answered every call at once: 0 retries observed, as declared.
	if a := assumption(r, "", "anthropic-sdk.maxRetries"); a == nil || a.Observed != "0" {
		t.Errorf("observed: %+v", a)
	}
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Kind, "assumption") {
			t.Errorf("a night that kept its premises has %s: %s", f.Kind, f.Example)
		}
	}
	var md bytes.Buffer
	if err := report.Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## Assumptions", "| anthropic-sdk.maxRetries | 0 (log line) |", "default-on / 300s idle -&gt; abort+retry (log line)"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md.String())
		}
	}
}

// TestAssumptionChangedAtTheRightTime: the second night declares
// anthropic-sdk.maxRetries 2; read after the first (one log, or a
// baseline), the change is a warning at the log time of that night's
// first event.
func TestAssumptionChangedAtTheRightTime(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), assumeDir+"night-2026-06-30.log", assumeDir+"night-2026-07-01.log")
	a := assumption(r, "", "anthropic-sdk.maxRetries")
	if a == nil || a.Declared != "2" || a.Previous != "0" || a.ChangedAt != "2026-07-01T01:00:00Z" {
		t.Fatalf("one log of both nights: %+v", a)
	}
	f := finding(r, "assumption_changed")
	if f == nil || f.Severity != correlate.SeverityWarning || f.FirstAt != "2026-07-01T01:00:00Z" || f.Count != 1 {
		t.Fatalf("assumption_changed: %+v (findings %v)", f, kinds(r))
	}
	if assumption(r, "", "retry.owner").Previous != "" {
		t.Error("an unchanged key must not be marked changed")
	}

	prev := reportOf(t, correlate.DefaultConfig(), assumeDir+"night-2026-06-30.log")
	next := reportOf(t, correlate.DefaultConfig(), assumeDir+"night-2026-07-01.log")
	if finding(next, "assumption_changed") != nil {
		t.Fatal("the second night alone has nothing to compare with")
	}
	correlate.CompareAssumptions(next, prev.Assumptions, correlate.DefaultConfig().SeverityOf)
	f = finding(next, "assumption_changed")
	if f == nil || f.FirstAt != "2026-07-01T01:00:00Z" || !strings.Contains(f.Example, "was 0 in the previous run, is 2") {
		t.Fatalf("against the baseline: %+v", f)
	}
	if a := assumption(next, "", "anthropic-sdk.maxRetries"); a.Previous != "0" || a.ChangedAt != "2026-07-01T01:00:00Z" {
		t.Errorf("row against the baseline: %+v", a)
	}
	// The declaration allowed the 2 retries the SDK made: no violation.
	if f := finding(next, "assumption_violated"); f != nil {
		t.Errorf("declared 2, observed 2: %+v", f)
	}
}

// TestAssumptionViolated: declared 0 retries, and the SDK's own lines
// show two. Python's lines name no job and no request ID: they fall in
// the job of the JSON line before them by position alone, which another
// process writing the stream decides as easily (issue 39's red team
// killed doc-A so), so the row shows the two retries and their doubt,
// and nothing is held against the declaration. A record that names its
// job and whose attempt is the SDK's convicts: critical, report exits 1.
func TestAssumptionViolated(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), assumeDir+"violated-2026-07-01.log")
	a := assumption(r, "", "anthropic-sdk.maxRetries")
	if a == nil || a.Declared != "0" || a.Observed != "2" || !strings.Contains(a.Evidence, "SDK retry lines") || !strings.Contains(a.Evidence, "by position or timing alone") {
		t.Fatalf("row: %+v", a)
	}
	if f := finding(r, "assumption_violated"); f != nil || r.HasCritical() {
		t.Fatalf("lines placed by position convicted the job: %+v", f)
	}

	dir := t.TempDir()
	p := dir + "/records.jsonl"
	os.WriteFile(p, []byte(`{"event":"assumptions","assumptions":{"anthropic-sdk.maxRetries":0}}
{"ts":"2026-07-01T01:00:00Z","event":"job_started","job_id":"site-a/2026-07-01/article-x","job_type":"nightly-article"}
{"ts":"2026-07-01T01:00:03Z","event":"llm_call","job_id":"site-a/2026-07-01/article-x","model":"claude-sonnet-4-5","status":529,"attempt":1,"idempotency_key":"x-1"}
{"ts":"2026-07-01T01:00:06.377Z","event":"llm_call","job_id":"site-a/2026-07-01/article-x","model":"claude-sonnet-4-5","status":529,"attempt":2,"idempotency_key":"x-1"}
{"ts":"2026-07-01T01:00:10Z","event":"llm_call","job_id":"site-a/2026-07-01/article-x","model":"claude-sonnet-4-5","status":200,"attempt":3,"idempotency_key":"x-1","input_tokens":100,"output_tokens":10}
`), 0o600)
	cfg := correlate.DefaultConfig()
	cfg.AttemptLayer = "sdk" // the records' attempt is the SDK's ([layers] attempt = "sdk")
	r = reportOf(t, cfg, p)
	f := finding(r, "assumption_violated")
	// Flagged live, at the first retry the declaration forbids, on the
	// job that made it (so a finding alert can name it).
	if f == nil || f.Severity != correlate.SeverityCritical || !r.HasCritical() || f.FirstAt != "2026-07-01T01:00:06.377Z" || f.Count < 2 ||
		len(f.Jobs) != 1 || f.Jobs[0] != "site-a/2026-07-01/article-x" {
		t.Fatalf("assumption_violated: %+v", f)
	}
	if !strings.Contains(f.Example, "job site-a/2026-07-01/article-x made") {
		t.Errorf("example: %s", f.Example)
	}
}

// TestSilentNightInventsNothing: no declaration, no retry count, no
// version: no assumption at all, and the report says so.
func TestSilentNightInventsNothing(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), assumeDir+"silent.log")
	for _, a := range r.Assumptions {
		if a.Declared != "" || a.Derived != "" || strings.HasSuffix(a.Key, ".maxRetries") || strings.HasSuffix(a.Key, ".version") {
			t.Errorf("invented: %+v", a)
		}
	}
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Kind, "assumption") {
			t.Errorf("finding on a silent night: %+v", f)
		}
	}
	empty := reportOf(t, correlate.DefaultConfig(), samples+"healthy-night.jsonl")
	empty.Assumptions = nil
	var md bytes.Buffer
	report.Markdown(&md, empty)
	if !strings.Contains(md.String(), "None: the run declared no assumption") {
		t.Errorf("an empty log must say so:\n%s", md.String())
	}
}

// TestJobTypeDeclarationHeldToItsJobs: a job type declaring 0 retries is
// violated by its own jobs' retries, not by another type's (records
// whose attempt is the SDK's: lines placed by position convict no job).
func TestJobTypeDeclarationHeldToItsJobs(t *testing.T) {
	dir := t.TempDir()
	cfg := correlate.DefaultConfig()
	cfg.AttemptLayer = "sdk"
	write := func(name, decl string) string {
		p := dir + "/" + name
		os.WriteFile(p, []byte(decl+`
{"ts":"2026-07-01T01:00:00Z","event":"job_started","job_id":"a-1","job_type":"nightly-article"}
{"ts":"2026-07-01T01:00:03Z","event":"llm_call","job_id":"a-1","job_type":"nightly-article","model":"claude-sonnet-4-5","status":529,"attempt":1,"idempotency_key":"a-1-1"}
{"ts":"2026-07-01T01:00:06Z","event":"llm_call","job_id":"a-1","job_type":"nightly-article","model":"claude-sonnet-4-5","status":529,"attempt":2,"idempotency_key":"a-1-1"}
{"ts":"2026-07-01T01:00:10Z","event":"llm_call","job_id":"a-1","job_type":"nightly-article","model":"claude-sonnet-4-5","status":200,"attempt":3,"idempotency_key":"a-1-1"}
`), 0o600)
		return p
	}
	mine := write("mine.log", `{"event":"assumptions","job_type":"nightly-article","assumptions":{"anthropic-sdk.maxRetries":0}}`)
	r := reportOf(t, cfg, mine)
	if f := finding(r, "assumption_violated"); f == nil {
		t.Errorf("its own jobs retried twice: %v %+v", kinds(r), r.Assumptions)
	}
	other := write("other.log", `{"event":"assumptions","job_type":"weekly-digest","assumptions":{"anthropic-sdk.maxRetries":0}}`)
	r = reportOf(t, cfg, other)
	if f := finding(r, "assumption_violated"); f != nil {
		t.Errorf("another type's retries violate nothing: %+v", f)
	}
}

// TestRetriesAreChargedToTheLayerThatNumberedThem: seed 003's own design —
// the SDK at 0 retries, one owner (a wrapper) logging "attempt":1..3 — is
// no violation: a record's attempt field is the layer that logged it, the
// declared owner; an SDK's x-stainless-retry-count is the SDK's and a
// gateway's x-litellm-attempted-retries the gateway's (a critical, exit 1,
// for retries the SDK never made was the false alarm).
func TestRetriesAreChargedToTheLayerThatNumberedThem(t *testing.T) {
	for _, tc := range []struct {
		file, layer string
	}{
		{"owner-wrapper.jsonl", "app.maxRetries"},
		{"gateway-retries.jsonl", "litellm-router.maxRetries"},
	} {
		r := reportOf(t, correlate.DefaultConfig(), "testdata/assumptions/"+tc.file)
		for _, f := range r.Findings {
			if f.Kind == "assumption_violated" {
				t.Errorf("%s: %s: %s", tc.file, f.Kind, f.Example)
			}
			// The wrapper owner declares no count of its own: a premise
			// missing (info), not a violation.
			if f.Kind == "assumption_missing" && (tc.file != "owner-wrapper.jsonl" || !strings.Contains(f.Example, "declares no count of its own")) {
				t.Errorf("%s: %s: %s", tc.file, f.Kind, f.Example)
			}
		}
		var observed string
		for _, a := range r.Assumptions {
			if a.Key == tc.layer {
				observed = a.Observed
			}
			if a.Key == "anthropic-sdk.maxRetries" && a.Observed != "" && a.Observed != "0" {
				t.Errorf("%s: the SDK charged with %s retries it never made (%s)", tc.file, a.Observed, a.Evidence)
			}
		}
		if observed != "2" {
			t.Errorf("%s: %s observed %q, want 2", tc.file, tc.layer, observed)
		}
	}
	b0, _ := os.ReadFile("testdata/assumptions/owner-wrapper.jsonl")
	// The report judges by the run's declarations, wherever they stand:
	// the owner declared after the calls reads as declared before them.
	lines := bytes.SplitAfter(b0, []byte("\n"))
	moved := append(slices.Concat(lines[1:]...), lines[0]...)
	p1 := filepath.Join(t.TempDir(), "owner-after.jsonl")
	os.WriteFile(p1, moved, 0o600)
	if r := reportOf(t, correlate.DefaultConfig(), p1); slices.ContainsFunc(r.Findings, func(f correlate.FindingReport) bool { return f.Kind == "assumption_violated" }) {
		t.Errorf("the owner declared after the calls: %+v", r.Findings)
	}
	// An owner whose name has "sdk" in it is no SDK.
	p0 := filepath.Join(t.TempDir(), "sdk-wrapper.jsonl")
	os.WriteFile(p0, bytes.ReplaceAll(b0, []byte("wrapper.withSingleOwnerRetry"), []byte("sdk-wrapper")), 0o600)
	if r := reportOf(t, correlate.DefaultConfig(), p0); slices.ContainsFunc(r.Findings, func(f correlate.FindingReport) bool { return f.Kind == "assumption_violated" }) {
		t.Errorf("retry.owner sdk-wrapper taken for an SDK: %+v", r.Findings)
	}
	// The same owner's log with the SDK's own header saying it retried
	// twice: that is the violation.
	b, err := os.ReadFile("testdata/assumptions/owner-wrapper.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sdk-retried.jsonl")
	os.WriteFile(path, bytes.Replace(b, []byte(`"x-stainless-retry-count":"0"`), []byte(`"x-stainless-retry-count":"2"`), 1), 0o600)
	r := reportOf(t, correlate.DefaultConfig(), path)
	if !slices.ContainsFunc(r.Findings, func(f correlate.FindingReport) bool { return f.Kind == "assumption_violated" }) {
		t.Errorf("the SDK retried twice under a declared 0, yet: %+v", r.Findings)
	}
}

// TestOnlyTheOperatorsDeclarationArmsTheViolation: issue 34 — the same
// declaration broken by the same retry flags assumption_violated either
// way, but the job's finding is armed (may be killed on) only when the
// operator declared it (the assumptions file); a log line's declaration
// is named where it came from, and a later log line can neither lower
// the operator's count into an armed kill nor raise it out of one.
func TestOnlyTheOperatorsDeclarationArmsTheViolation(t *testing.T) {
	declare := func(st *correlate.State, from, value string) {
		var ev ingest.Event
		ev.Reset()
		ev.Kind, ev.TSCarried = ingest.KindAssumption, true
		ev.SetAssumption(from, "anthropic-sdk.maxRetries", value)
		st.Apply(&ev)
	}
	const op, logLine = ingest.AssumptionFromOperator, "log line"
	for _, c := range []struct {
		name  string
		decl  [][2]string // from, value
		armed bool
		from  string // ViolatedUnarmedFrom
	}{
		{"log", [][2]string{{logLine, "0"}}, false, logLine},
		{"operator", [][2]string{{op, "0"}}, true, ""},
		{"log lowers the operator's", [][2]string{{op, "3"}, {logLine, "0"}}, false, logLine},
		{"log raises the operator's", [][2]string{{op, "0"}, {logLine, "5"}}, true, ""},
		{"log first, operator the same", [][2]string{{logLine, "0"}, {op, "0"}}, true, ""},
	} {
		st := correlate.New(correlate.DefaultConfig())
		for _, d := range c.decl {
			declare(st, d[0], d[1])
		}
		for a := 1; a <= 2; a++ {
			ev := ingest.Event{}
			ev.Reset()
			ev.Kind, ev.TS, ev.JobID, ev.IdempotencyKey, ev.Attempt, ev.Provider, ev.Model, ev.Status = ingest.KindLLMCall, int64(1782867600+a)*1e9, "j", "k", int16(a), "anthropic", "claude-sonnet-4-5", 529
			st.Apply(&ev)
		}
		j := st.Job("j")
		if j == nil || !j.HasFinding(correlate.AssumptionViolated) {
			t.Errorf("%s: no assumption_violated on the job", c.name)
			continue
		}
		if got := j.FindingArmed(correlate.AssumptionViolated); got != c.armed {
			t.Errorf("%s: armed %v, want %v", c.name, got, c.armed)
		}
		if got := st.ViolatedUnarmedFrom(); got != c.from {
			t.Errorf("%s: unarmed from %q, want %q", c.name, got, c.from)
		}
	}
}
