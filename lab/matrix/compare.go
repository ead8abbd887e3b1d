// Package matrix runs the lab's apps against the mock provider, runs
// burnrate on the evidence they leave, and compares burnrate's answer per
// job with the provider's ledger (docs/lab.md). The ledger is the truth:
// what burnrate says is right only where it matches the wire.
package matrix

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/burnrate-dev/burnrate/lab/mockprovider"
)

// WireJob is one job as the wire saw it.
type WireJob struct {
	Calls     int   // HTTP requests
	Answered  int   // of them, answered 200
	SpendPico int64 // their cost, by burnrate's embedded price table
	// Succeeded: at least one request was answered 200 (the apps stop
	// calling once one is).
	Succeeded bool
	// TerminalRetried: a 400 was followed by another request of the job.
	TerminalRetried bool
	// SDKCalls are the calls the app made through its SDK: the requests
	// sent as the SDK's first attempt (x-stainless-retry-count 0, or no
	// such header). With the app's log alone this is what burnrate can
	// count; the SDK's retries below are unseen.
	SDKCalls int
	// Failed counts the requests not answered 200 (an error status, a
	// timeout, a reset); Dropped those that got no status at all.
	Failed, Dropped int
	// RetriedAfterFailure: a request of the job followed a failed one —
	// some layer retried. Every retry finding needs it.
	RetriedAfterFailure bool
}

// Truth is the ledger folded per job. Requests without a job are counted
// apart (Unattributed): an app of the lab always names its job, so any is
// a bug of the lab.
type Truth struct {
	Jobs         map[string]*WireJob
	Calls        int
	Unattributed int
}

// TruthFrom folds ledger entries per job, in arrival order.
func TruthFrom(entries []mockprovider.Entry) Truth {
	t := Truth{Jobs: map[string]*WireJob{}}
	es := slices.Clone(entries)
	slices.SortStableFunc(es, func(a, b mockprovider.Entry) int { return int(a.Seq - b.Seq) })
	seen400 := map[string]bool{}
	for _, e := range es {
		t.Calls++
		if e.Job == "" {
			t.Unattributed++
			continue
		}
		j := t.Jobs[e.Job]
		if j == nil {
			j = &WireJob{}
			t.Jobs[e.Job] = j
		}
		if seen400[e.Job] {
			j.TerminalRetried = true
		}
		if j.Failed > 0 {
			j.RetriedAfterFailure = true
		}
		j.Calls++
		if e.RetryCount == "" || e.RetryCount == "0" {
			j.SDKCalls++
		}
		j.SpendPico += e.CostPico
		switch e.Status {
		case 200:
			j.Answered++
			j.Succeeded = true
		case 400:
			seen400[e.Job] = true
		}
		if e.Status != 200 {
			j.Failed++
		}
		if e.Status == 0 {
			j.Dropped++
		}
	}
	return t
}

// SeenJob is one job as burnrate's report JSON gives it.
type SeenJob struct {
	JobID    string  `json:"job_id"`
	Outcome  string  `json:"outcome"`
	Attempts int     `json:"attempts"`
	SpendUSD float64 `json:"spend_usd"`
	// Count is how far burnrate says its count holds: exact, lower_bound
	// or ambiguous.
	Count string `json:"count"`
	// UnpricedCalls: calls whose cost the evidence does not say; the
	// job's spend is then a lower bound.
	UnpricedCalls int `json:"unpriced_calls"`
}

// Finding is one of the report's findings.
type Finding struct {
	Kind     string   `json:"kind"`
	Severity string   `json:"severity"`
	Jobs     []string `json:"jobs"`
}

// Seen is what burnrate reported: `report --format json`, or the report
// `watch --report-out` writes (the same schema).
type Seen struct {
	Totals struct {
		Attempts int `json:"attempts"`
	} `json:"totals"`
	Jobs     []SeenJob `json:"jobs"`
	Findings []Finding `json:"findings"`
	// UnseenLayers are the layers below the records burnrate names.
	UnseenLayers []struct {
		Layer string `json:"layer"`
	} `json:"unseen_layers"`
}

// ReadSeen decodes a report. A report that is not one is an error: a row
// must never read as "0 calls seen" because the run broke.
func ReadSeen(r io.Reader) (Seen, error) {
	var s Seen
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return s, fmt.Errorf("burnrate's report: %w", err)
	}
	return s, nil
}

// Result is one setup's comparison.
type Result struct {
	WireCalls, SeenCalls int
	// Expected is the total burnrate must say: the wire's calls, or with
	// the app's log alone the SDK calls (CompareAppLog).
	Expected             int
	WireJobs             int
	JobsExact, JobsWrong int
	// Wrong lists, per wrong job, what differed (for the detail section).
	Wrong []string
	// Marked counts the wrong jobs whose every difference burnrate's
	// report itself marks: fewer calls with the count a lower_bound, any
	// count "ambiguous" (a job the wire never saw too: calls whose job
	// burnrate could not name), less spend with unpriced calls named. Such a job
	// is not exact, but its number does not pass for exact either.
	Marked int
	// FalseCritical counts each job a critical finding names that the
	// wire refutes (Refutes): a job the wire never saw, or a job whose
	// ledger shows no such fault.
	FalseCritical int
	// FalseCriticals lists them ("kind: job"), for the detail section.
	FalseCriticals []string
	// FalseKills counts kills of jobs that the wire shows did nothing to
	// deserve them; -1 when the setup does not run kills.
	FalseKills int
	// MissedKills counts jobs the wire shows over the ceiling that were
	// not killed (live setups only).
	MissedKills int
}

// spendTolerance: burnrate sums picodollars and prints USD as a float64;
// one part in 10^9 of a dollar is far below any price difference.
const spendTolerance = 1e-9

// Compare judges burnrate's report against the wire, job by job. A job is
// exact when its calls, spend and outcome all match; a job burnrate names
// that the wire never saw, or a wire job burnrate lost, is wrong.
func Compare(t Truth, s Seen) Result { return compare(t, s, false) }

// CompareAppLog judges a report of the app's log alone: the wire's
// requests below the app's calls are the SDK's retries, which that log
// cannot show. A job is exact when burnrate counts the app's calls
// (WireJob.SDKCalls), spend and outcome as the wire has them, and marks
// the count a lower bound, with the layer below named (unseen_layers).
func CompareAppLog(t Truth, s Seen) Result { return compare(t, s, true) }

func compare(t Truth, s Seen, appLog bool) Result {
	r := Result{WireCalls: t.Calls, Expected: t.Calls, SeenCalls: s.Totals.Attempts, WireJobs: len(t.Jobs), FalseKills: -1}
	if appLog {
		r.Expected = 0
		for _, j := range t.Jobs {
			r.Expected += j.SDKCalls
		}
	}
	seen := map[string]SeenJob{}
	for _, j := range s.Jobs {
		if prev, dup := seen[j.JobID]; dup {
			// One job reported twice is wrong however its halves add up.
			j.Attempts += prev.Attempts
			j.SpendUSD += prev.SpendUSD
			j.Outcome = "reported twice"
		}
		seen[j.JobID] = j
	}
	ids := make([]string, 0, len(t.Jobs)+len(seen))
	for id := range t.Jobs {
		ids = append(ids, id)
	}
	for id := range seen {
		if t.Jobs[id] == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		w, sj := t.Jobs[id], seen[id]
		why, marked := judge(w, sj, id, seen, appLog)
		if why == "" && appLog && (sj.Count != "lower_bound" || len(s.UnseenLayers) == 0) {
			why = fmt.Sprintf("count %q with the SDK's retries unseen (%d layers named below), want lower_bound", sj.Count, len(s.UnseenLayers))
		}
		if why != "" {
			if marked {
				r.Marked++
				why += " (marked)"
			}
			r.JobsWrong++
			r.Wrong = append(r.Wrong, fmt.Sprintf("%s: %s", id, why))
			continue
		}
		r.JobsExact++
	}
	for _, f := range s.Findings {
		if f.Severity != "critical" {
			continue
		}
		for _, id := range f.Jobs {
			if why := Refutes(t.Jobs[id], f.Kind); why != "" {
				r.FalseCritical++
				r.FalseCriticals = append(r.FalseCriticals, fmt.Sprintf("%s on %s: %s", f.Kind, id, why))
			}
		}
	}
	return r
}

// retryKinds are the findings that say a layer retried (or retried badly):
// the wire must show a request of the job after a failed one.
var retryKinds = map[string]bool{
	"hidden_retry_layer": true, "retry_amplification": true, "retry_after_ignored": true,
	"retry_after_too_short": true, "synchronized_retries": true, "assumption_violated": true,
	"assumption_missing": true, "undeclared_retry_layer": true, "breaker_open": true,
}

// Refutes says why the ledger refutes a finding of kind on a job (w nil:
// the wire never saw it), or "" when the wire shows the fault the finding
// names. Each kind is held to what the ledger can show: a retried 400
// (terminal_error_retried), two answers (duplicate_completion), a dropped
// connection retried (stream_repaid), a retry after a failure (the retry
// kinds), and for any other kind at least one failed request — a job
// whose every request was answered at once deserves no critical finding.
func Refutes(w *WireJob, kind string) string {
	switch {
	case w == nil:
		return "not on the wire"
	case kind == "terminal_error_retried":
		if !w.TerminalRetried {
			return "no request followed a 400"
		}
	case kind == "duplicate_completion":
		if w.Answered < 2 {
			return fmt.Sprintf("answered %d times", w.Answered)
		}
	case kind == "stream_repaid":
		if w.Dropped == 0 || !w.RetriedAfterFailure {
			return "no dropped request was retried"
		}
	case retryKinds[kind]:
		if !w.RetriedAfterFailure {
			return fmt.Sprintf("no request followed a failed one (%d requests, %d failed)", w.Calls, w.Failed)
		}
	default:
		if w.Failed == 0 {
			return fmt.Sprintf("every one of its %d requests was answered", w.Calls)
		}
	}
	return ""
}

func judge(w *WireJob, s SeenJob, id string, seen map[string]SeenJob, appLog bool) (string, bool) {
	if w == nil {
		// A job the wire never saw: an invented one (a trace ID), or the
		// calls of no job burnrate could name (Python SDK lines alone: an
		// operation of the SDK) — marked only when its count says so.
		return fmt.Sprintf("not on the wire; burnrate: %d calls (%s)", s.Attempts, s.Count), s.Count == "ambiguous"
	}
	if _, ok := seen[id]; !ok {
		return fmt.Sprintf("missing from burnrate; wire: %d calls", w.Calls), false
	}
	var why []string
	marked := true
	ambiguous := s.Count == "ambiguous"
	if want := w.Calls; !appLog && s.Attempts != want {
		why = append(why, fmt.Sprintf("calls %d, wire %d", s.Attempts, want))
		marked = marked && (ambiguous || s.Count == "lower_bound" && s.Attempts < want)
	} else if want := w.SDKCalls; appLog && s.Attempts != want {
		why = append(why, fmt.Sprintf("calls %d, wire %d SDK calls (%d requests)", s.Attempts, want, w.Calls))
		marked = marked && ambiguous
	}
	if wire := float64(w.SpendPico) / 1e12; math.Abs(s.SpendUSD-wire) > spendTolerance {
		why = append(why, fmt.Sprintf("spend $%.6f, wire $%.6f (%d unpriced calls)", s.SpendUSD, wire, s.UnpricedCalls))
		marked = marked && (ambiguous || s.UnpricedCalls > 0 && s.SpendUSD < wire)
	}
	if got, want := outcome(s.Outcome), wireOutcome(w); got != want {
		why = append(why, fmt.Sprintf("outcome %q, wire %s", s.Outcome, want))
		marked = marked && ambiguous
	}
	if len(why) == 0 {
		return "", false
	}
	return fmt.Sprint(why), marked
}

// outcome maps burnrate's outcomes onto what the wire can tell.
func outcome(o string) string {
	switch o {
	case "succeeded":
		return "succeeded"
	case "failed", "dead_lettered", "killed":
		return "failed"
	}
	return o
}

func wireOutcome(w *WireJob) string {
	if w.Succeeded {
		return "succeeded"
	}
	return "failed"
}
