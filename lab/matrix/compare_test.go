package matrix

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/lab/mockprovider"
)

func ledger(rows ...mockprovider.Entry) []mockprovider.Entry {
	for i := range rows {
		rows[i].Seq = int64(i + 1)
	}
	return rows
}

func e(job string, status int, cost int64) mockprovider.Entry {
	return mockprovider.Entry{Job: job, Status: status, CostPico: cost}
}

// A job is exact only when calls, spend and outcome all match the wire.
func TestCompareJudgesEachJob(t *testing.T) {
	truth := TruthFrom(ledger(
		e("a", 529, 0), e("a", 529, 0), e("a", 200, 2_500_000_000), // 3 calls, $0.0025, succeeded
		e("b", 529, 0), e("b", 529, 0), // 2 calls, failed
		e("c", 200, 1_000_000_000),
		e("", 200, 7),
	))
	if truth.Calls != 7 || truth.Unattributed != 1 || truth.Jobs["a"].Calls != 3 || !truth.Jobs["a"].Succeeded || truth.Jobs["b"].Succeeded {
		t.Fatalf("truth %+v", truth)
	}
	seen := Seen{Jobs: []SeenJob{
		{JobID: "a", Outcome: "succeeded", Attempts: 3, SpendUSD: 0.0025},
		{JobID: "b", Outcome: "succeeded", Attempts: 2},                             // wrong outcome
		{JobID: "c", Outcome: "succeeded", Attempts: 2, SpendUSD: 0.001},            // counted twice
		{JobID: "0af7651916cd43dd8448eb211c80319c", Outcome: "failed", Attempts: 1}, // a trace-ID job
	}}
	seen.Totals.Attempts = 8
	r := Compare(truth, seen)
	if r.JobsExact != 1 || r.JobsWrong != 3 || r.WireJobs != 3 || r.WireCalls != 7 || r.SeenCalls != 8 {
		t.Fatalf("result %+v", r)
	}
	all := strings.Join(r.Wrong, "\n")
	for _, want := range []string{`b: [outcome "succeeded", wire failed]`, "c: [calls 2, wire 1]", "0af7651916cd43dd8448eb211c80319c: not on the wire"} {
		if !strings.Contains(all, want) {
			t.Errorf("wrong list lacks %q:\n%s", want, all)
		}
	}
}

// Spend is compared to the picodollar, and a lost job is wrong.
func TestCompareSpendAndMissing(t *testing.T) {
	truth := TruthFrom(ledger(e("a", 200, 1_234_567_891), e("b", 200, 1)))
	r := Compare(truth, Seen{Jobs: []SeenJob{{JobID: "a", Outcome: "succeeded", Attempts: 1, SpendUSD: 0.001234}}})
	if r.JobsExact != 0 || r.JobsWrong != 2 {
		t.Fatalf("result %+v", r)
	}
	if !strings.Contains(strings.Join(r.Wrong, "\n"), "b: missing from burnrate") {
		t.Fatalf("%v", r.Wrong)
	}
	r = Compare(truth, Seen{Jobs: []SeenJob{{JobID: "a", Outcome: "dead_lettered", Attempts: 1, SpendUSD: 0.001234567891}, {JobID: "b", Outcome: "succeeded", Attempts: 1, SpendUSD: 1e-12}}})
	if r.JobsExact != 1 || r.JobsWrong != 1 || !strings.Contains(r.Wrong[0], `outcome "dead_lettered"`) {
		t.Fatalf("result %+v", r)
	}
}

// A critical finding is false when the wire refutes it for the job it names.
func TestCompareFalseCritical(t *testing.T) {
	truth := TruthFrom(ledger(
		e("dup", 200, 1), e("dup", 200, 1), // two successes: a true duplicate_completion
		e("bad", 400, 0), e("bad", 400, 0), // a 400 retried: a true terminal_error_retried
		e("ok", 429, 0), e("ok", 200, 1),
	))
	if !truth.Jobs["bad"].TerminalRetried || truth.Jobs["ok"].TerminalRetried || truth.Jobs["dup"].Answered != 2 {
		t.Fatalf("truth %+v", truth.Jobs)
	}
	r := Compare(truth, Seen{Findings: []Finding{
		{Kind: "duplicate_completion", Severity: "critical", Jobs: []string{"dup", "ok"}},     // ok: false
		{Kind: "terminal_error_retried", Severity: "critical", Jobs: []string{"bad", "ok"}},   // ok: false
		{Kind: "assumption_violated", Severity: "critical", Jobs: []string{"trace-4bf92f35"}}, // no such job: false
		{Kind: "retry_amplification", Severity: "warning", Jobs: []string{"nobody"}},          // not critical
	}})
	if r.FalseCritical != 3 {
		t.Fatalf("false critical %d, want 3", r.FalseCritical)
	}
	// Every critical kind is held to the ledger: a retry finding needs a
	// request after a failed one; any other kind at least one failure.
	r = Compare(truth, Seen{Findings: []Finding{
		{Kind: "assumption_violated", Severity: "critical", Jobs: []string{"ok", "dup"}}, // ok retried a 429: true; dup never failed: false
		{Kind: "undeclared_retry_layer", Severity: "critical", Jobs: []string{"bad"}},    // bad retried a 400: true
		{Kind: "deadline_exceeded", Severity: "critical", Jobs: []string{"dup", "ok"}},   // a configured severity: dup never failed
		{Kind: "stream_repaid", Severity: "critical", Jobs: []string{"ok"}},              // nothing dropped
		{Kind: "hidden_retry_layer", Severity: "critical", Jobs: []string{"bad", "dup"}}, // dup: false
	}})
	want := []string{"assumption_violated on dup", "deadline_exceeded on dup", "stream_repaid on ok", "hidden_retry_layer on dup"}
	if r.FalseCritical != len(want) {
		t.Fatalf("false critical %d, want %d: %v", r.FalseCritical, len(want), r.FalseCriticals)
	}
	for i, w := range want {
		if !strings.HasPrefix(r.FalseCriticals[i], w) {
			t.Errorf("false critical %d: %q, want %q…", i, r.FalseCriticals[i], w)
		}
	}
}

// A kill is innocent when the wire shows the job below the ceiling.
func TestInnocentKills(t *testing.T) {
	truth := TruthFrom(ledger(e("rich", 200, PicoFromUSD(0.02)), e("poor", 200, PicoFromUSD(0.002))))
	kills := []Kill{{JobID: "rich", Scope: "job"}, {JobID: "poor", Scope: "job"}, {JobID: "4bf92f3577b34da6", Scope: "job"}, {Scope: "run"}}
	if n := InnocentKills(truth, kills, PicoFromUSD(0.01)); n != 2 {
		t.Fatalf("innocent kills %d, want 2 (poor and the trace-ID job)", n)
	}
	// A finding's kill is judged by the ledger's faults, not the ceiling.
	truth = TruthFrom(ledger(e("stormy", 529, 0), e("stormy", 200, 1), e("calm", 200, 1)))
	kills = []Kill{{JobID: "stormy", Scope: "job", Rule: "finding:assumption_violated"}, {JobID: "calm", Scope: "job", Rule: "finding:assumption_violated"}}
	if n := InnocentKills(truth, kills, PicoFromUSD(0.01)); n != 1 {
		t.Fatalf("innocent finding kills %d, want 1 (calm never retried)", n)
	}
	truth = TruthFrom(ledger(e("rich", 200, PicoFromUSD(0.02)), e("poor", 200, PicoFromUSD(0.002))))
	if n := MissedKills(truth, []Kill{{JobID: "poor"}}, PicoFromUSD(0.01)); n != 1 {
		t.Fatalf("missed kills %d, want 1 (rich)", n)
	}
}

// With the app's log alone the app's calls are judged (the requests the
// SDK sent as its first attempt), and each job must say its count is a
// lower bound, with the layer below named.
func TestCompareAppLog(t *testing.T) {
	sdk := func(job string, status int, retry string) mockprovider.Entry {
		return mockprovider.Entry{Job: job, Status: status, RetryCount: retry}
	}
	truth := TruthFrom(ledger(
		sdk("a", 529, "0"), sdk("a", 529, "1"), sdk("a", 529, "2"), // one app call, 3 requests
		sdk("a", 529, "0"), sdk("a", 529, "1"), sdk("a", 529, "2"),
		sdk("b", 200, "0"),
	))
	if truth.Jobs["a"].SDKCalls != 2 || truth.Jobs["a"].Calls != 6 {
		t.Fatalf("truth %+v", truth.Jobs["a"])
	}
	seen := Seen{Jobs: []SeenJob{
		{JobID: "a", Outcome: "failed", Attempts: 2, Count: "lower_bound"},
		{JobID: "b", Outcome: "succeeded", Attempts: 1, Count: "exact"}, // right number, but says exact
	}}
	seen.Totals.Attempts = 3
	seen.UnseenLayers = append(seen.UnseenLayers, struct {
		Layer string `json:"layer"`
	}{"anthropic-sdk"})
	r := CompareAppLog(truth, seen)
	if r.JobsExact != 1 || r.JobsWrong != 1 || r.Expected != 3 || r.WireCalls != 7 || !strings.Contains(r.Wrong[0], `b: count "exact"`) {
		t.Fatalf("result %+v", r)
	}
	if r := Compare(truth, seen); r.JobsExact != 1 || !strings.Contains(r.Wrong[0], "a: [calls 2, wire 6]") {
		t.Fatalf("against the wire, the app's count is wrong: %+v", r)
	}
}

// A wrong job whose report marks the difference (a lower bound below the
// wire, unpriced calls under a lower spend, an ambiguous count) is still
// wrong, and counted as marked; an exact-looking wrong number is not.
func TestCompareCountsMarkedJobs(t *testing.T) {
	truth := TruthFrom(ledger(
		e("a", 200, 2_500_000_000), // $0.0025
		e("b", 529, 0), e("b", 200, 1_000_000_000),
		e("c", 200, 1_000_000_000),
		e("d", 529, 0), e("d", 529, 0),
	))
	seen := Seen{Jobs: []SeenJob{
		{JobID: "a", Outcome: "succeeded", Attempts: 1, Count: "exact", UnpricedCalls: 1}, // spend unknown, said
		{JobID: "b", Outcome: "succeeded", Attempts: 1, SpendUSD: 0.001, Count: "lower_bound"},
		{JobID: "c", Outcome: "succeeded", Attempts: 1, Count: "exact"}, // $0 that reads whole
		{JobID: "d", Outcome: "failed", Attempts: 3, Count: "ambiguous"},
		{JobID: "sdk::/messages:12", Outcome: "failed", Attempts: 3, Count: "ambiguous"}, // calls of no job it could name
		{JobID: "0af7651916cd43dd8448eb211c80319c", Outcome: "failed", Attempts: 1, Count: "exact"},
	}}
	r := Compare(truth, seen)
	if r.JobsWrong != 6 || r.Marked != 4 {
		t.Fatalf("wrong %d, marked %d, want 6 and 4:\n%s", r.JobsWrong, r.Marked, strings.Join(r.Wrong, "\n"))
	}
	if !strings.Contains(strings.Join(r.Wrong, "\n"), "c: [spend $0.000000, wire $0.001000 (0 unpriced calls)]\n") {
		t.Errorf("c should be wrong and unmarked:\n%s", strings.Join(r.Wrong, "\n"))
	}
}

// A critical finding alert watch sent live is judged like the report's:
// one naming a trace ID (its root span not yet come) or a job whose
// ledger refutes the finding is false, even when the report corrects it.
func TestFalseLiveCriticals(t *testing.T) {
	truth := TruthFrom(ledger(e("bad", 400, 0), e("bad", 400, 0), e("ok", 200, 1)))
	live := FalseLiveCriticals(truth, []Kill{
		{JobID: "bad", Rule: "finding:terminal_error_retried", Scope: "run"},                              // true
		{JobID: "17d6438549c29515f4607554fe4f8c87", Rule: "finding:terminal_error_retried", Scope: "run"}, // a trace ID
		{JobID: "ok", Rule: "finding:duplicate_completion", Scope: "run"},                                 // answered once
		{JobID: "ok", Rule: "job_ceiling", Scope: "job"},                                                  // not a finding
	})
	if len(live) != 2 || !strings.Contains(live[0], "17d6438549c29515f4607554fe4f8c87 (live alert): not on the wire") || !strings.Contains(live[1], "duplicate_completion on ok") {
		t.Fatalf("false live criticals %q", live)
	}
}
