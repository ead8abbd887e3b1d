package matrix

import (
	"errors"
	"fmt"
	"github.com/burnrate-dev/burnrate/lab/mockprovider"
	"strings"
	"testing"
)

// A setup marked must-hold fails the matrix on any wrong job, false
// critical finding or innocent kill; a known gap is shown, not failed; a
// broken wire or run fails whatever the mark.
func TestHoldsAndFailed(t *testing.T) {
	exact := Result{WireCalls: 63, Expected: 63, SeenCalls: 63, JobsExact: 1, FalseKills: -1}
	rows := []Row{
		{Setup: Setup{App: "a", Logging: AppJSON, MustHold: true}, Result: exact},
		{Setup: Setup{App: "a", Logging: SDKDebug, MustHold: true}, Result: Result{WireCalls: 63, Expected: 63, SeenCalls: 63, JobsWrong: 1, FalseKills: -1}},
		{Setup: Setup{App: "a", Logging: BothStream, MustHold: true}, Result: Result{WireCalls: 63, Expected: 63, SeenCalls: 63, JobsExact: 1, FalseKills: 1}},
		{Setup: Setup{App: "a", Logging: BothFiles}, Result: Result{WireCalls: 63, Expected: 63, SeenCalls: 107, JobsWrong: 1, FalseKills: -1}},
		{Setup: Setup{App: "a", Logging: OTLP, WireCallsPerJob: 63}, Result: exact, WireBad: "job-1: 64 calls on the wire, want 63"},
		{Setup: Setup{App: "b", Logging: AppJSON}, Err: errors.New("node: exit status 1")},
	}
	failed := Failed(rows)
	var got []string
	for _, r := range failed {
		got = append(got, string(r.Logging)+"/"+r.App)
	}
	if want := "sdk-debug/a both-one-stream/a otlp/a app-json/b"; strings.Join(got, " ") != want {
		t.Fatalf("failed %q, want %q", strings.Join(got, " "), want)
	}
	var b strings.Builder
	Table(&b, rows)
	out := b.String()
	for _, want := range []string{
		"| a · app-json · c0 · seed 000 | must hold | 63 | 63 | 1 | 0 | 0 | not run | yes |",
		"| a · both-separate-files · c0 · seed 000 | known gap | 63 | 107 | 0 | 1 | 0 | not run | no (gap) |",
		"| a · otlp · c0 · seed 000 | known gap; wire 63/job |",
		"WIRE WRONG", "ERROR", "node: exit status 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// Seed 000's stack carries its 63 in every slice, and the wire check
// holds a night to it.
func TestSeed000Expectation(t *testing.T) {
	for _, s := range append(CI(), Full([]uint64{0, 1, 2, 3})...) {
		if s.App == Apps[0].Name && s.Seed == 0 && !s.Night && s.WireCallsPerJob != 63 {
			t.Fatalf("%s: wire expectation %d", s, s.WireCallsPerJob)
		}
	}
	truth := TruthFrom(ledger(e("j1", 529, 0), e("j2", 529, 0)))
	if bad := wireCheck(Setup{WireCallsPerJob: 1}, truth, 2); bad != "" {
		t.Fatalf("wire check: %s", bad)
	}
	if bad := wireCheck(Setup{WireCallsPerJob: 63}, truth, 3); !strings.Contains(bad, "2 jobs on the wire, 3 run") || !strings.Contains(bad, "want 63") {
		t.Fatalf("wire check: %q", bad)
	}
}

// The summary adds each app × logging up over its setups.
func TestSummaryAddsUp(t *testing.T) {
	rows := []Row{
		{Setup: Setup{App: "a", Logging: OTLP, Concurrency: 1}, Result: Result{WireCalls: 63, Expected: 63, SeenCalls: 40, WireJobs: 1, JobsWrong: 3, FalseKills: 1}},
		{Setup: Setup{App: "a", Logging: OTLP, Concurrency: 4}, Result: Result{WireCalls: 63, Expected: 63, SeenCalls: 63, WireJobs: 1, JobsExact: 1, FalseKills: 0}},
		{Setup: Setup{App: "a", Logging: AppJSON}, Result: Result{WireCalls: 5, Expected: 5, SeenCalls: 5, WireJobs: 2, JobsExact: 2, FalseKills: -1, FalseCritical: 2}},
	}
	var b strings.Builder
	Summary(&b, rows)
	for _, want := range []string{"| a | otlp | 2 | 126 | 103 | 1 of 2 | 3 | 0 | 1 (missed 0) | 0 |", "| a | app-json | 1 | 5 | 5 | 2 of 2 | 0 | 2 | not run | 0 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

// -seeds reads ranges and lists; the matrix of seeds with 0 carries seed
// 000's night at each concurrency, and the night is held to its schedule,
// not to 63 a job.
func TestSeedsAndTheNight(t *testing.T) {
	got, err := ParseSeeds("0-3,7,2")
	if err != nil || fmt.Sprint(got) != "[0 1 2 3 7]" {
		t.Fatalf("ParseSeeds: %v %v", got, err)
	}
	for _, bad := range []string{"", "3-1", "x", "0-5000", "1,-2"} {
		if _, err := ParseSeeds(bad); err == nil {
			t.Errorf("ParseSeeds(%q): no error", bad)
		}
	}
	nights := map[int]int{}
	for _, s := range Matrix([]uint64{0, 1}, []int{1, 16}) {
		if s.Night {
			nights[s.Concurrency]++
			if s.WireCallsPerJob != 0 || !s.MustHold || s.Seed != 0 {
				t.Errorf("%s: wire %d, must hold %t", s, s.WireCallsPerJob, s.MustHold)
			}
		}
	}
	if nights[1] != 4 || nights[16] != 4 {
		t.Fatalf("night setups per concurrency: %v, want 4 each", nights)
	}
	for _, s := range Matrix([]uint64{5}, []int{4}) {
		if s.Night {
			t.Fatalf("%s: a night without seed 0", s)
		}
	}
}

// The night's wire is held to its schedule job by job and to 1,043 in all.
func TestNightCheck(t *testing.T) {
	sched := mockprovider.Schedule{Seed: 0, Window: &mockprovider.SeedNight}
	var rows []mockprovider.Entry
	for i := range 22 {
		job := fmt.Sprintf("report-%d", 4100+i)
		calls, answered := sched.Expect(job, 63)
		for n := range calls {
			st := 529
			if answered && n == calls-1 {
				st = 200
			}
			rows = append(rows, e(job, st, 0))
		}
	}
	if bad := nightCheck(sched, TruthFrom(ledger(rows...))); bad != "" {
		t.Fatalf("the schedule's own night: %s", bad)
	}
	if bad := nightCheck(sched, TruthFrom(ledger(rows[1:]...))); !strings.Contains(bad, "1042 requests on the wire") || !strings.Contains(bad, "report-4100") {
		t.Fatalf("a night one request short: %q", bad)
	}
}
