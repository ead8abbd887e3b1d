package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

func TestFormatting(t *testing.T) {
	for v, want := range map[float64]string{0: "$0", 0.000225: "$0.000225", 0.729: "$0.7290", 1.296: "$1.30", 198: "$198.00", 217.8: "$217.80", 1234567.891: "$1,234,567.89",
		3.999: "$4.00", 19.995001: "$20.00", -2.5: "-$2.50"} {
		if got := correlate.USD(v); got != want {
			t.Errorf("correlate.USD(%v) = %s, want %s", v, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1043: "1,043", 42075: "42,075", -1234567: "-1,234,567"} {
		if got := correlate.Count(n); got != want {
			t.Errorf("correlate.Count(%d) = %s, want %s", n, got, want)
		}
	}
	for s, want := range map[float64]string{38: "38.0s", 700: "11m 40s", 3900: "1h 05m"} {
		if got := Seconds(s); got != want {
			t.Errorf("Seconds(%v) = %s, want %s", s, got, want)
		}
	}
	if got := cell("a|b\nc<img src=x onerror=alert(1)>[x](javascript:y)"); got != `a\|b\\u000ac&lt;img src=x onerror=alert(1)&gt;\[x\](javascript:y)` {
		t.Errorf("a log value must not break a Markdown table or become live Markdown: %s", got)
	}
}

// FuzzJobJSONMatchesEncodingJSON holds the streamed job encoder to the
// bytes encoding/json writes, for any job.
func FuzzJobJSONMatchesEncodingJSON(f *testing.F) {
	f.Add("job-1", "report", "succeeded", int32(3), 0.000225, 1e-7, "2026-03-10T01:00:00Z", "<&>\"\\\u2028\xff", 3, true)
	f.Add("", "", "", int32(-1), 1e21, 0.0, "", "", 0, false)
	f.Fuzz(func(t *testing.T, id, typ, outcome string, n int32, spend, wasted float64, ts, finding string, layers int, nilSlices bool) {
		if math.IsNaN(spend) || math.IsInf(spend, 0) || math.IsNaN(wasted) || math.IsInf(wasted, 0) {
			return
		}
		j := correlate.JobReport{JobID: id, JobType: typ, Outcome: outcome, Attempts: n, ToolCalls: -n, SpendUSD: spend, WastedUSD: wasted,
			Duplicates: n / 2, LastStatus: int16(n), FirstTS: ts, LastTS: finding, Layers: []int{}, Findings: []string{}}
		for k := range layers % 4 {
			j.Layers = append(j.Layers, k*int(n))
			j.Findings = append(j.Findings, finding)
		}
		if nilSlices {
			j.Layers, j.Findings = nil, nil
		}
		r := &correlate.Report{Jobs: []correlate.JobReport{j, j}}
		var got bytes.Buffer
		if err := JSON(&got, r); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.Encode(r)
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("streamed JSON differs:\n%s\nwant\n%s", got.Bytes(), want.Bytes())
		}
	})
}

// sliceSource serves a job list as a streamed report would.
type sliceSource []correlate.JobReport

func (s sliceSource) Len() int { return len(s) }
func (s sliceSource) Fill(i int, jr *correlate.JobReport) {
	*jr = s[i]
	jr.Findings = append(jr.Findings[:0:0], s[i].Findings...)
}

func manyJobs(n int) []correlate.JobReport {
	jobs := make([]correlate.JobReport, n)
	for i := range jobs {
		jobs[i] = correlate.JobReport{JobID: fmt.Sprintf("job-%06d", i), JobType: "t", Outcome: "succeeded", Attempts: int32(i % 7),
			Layers: []int{1, 2, i % 5}, SpendUSD: float64(n-i) / 1000, Findings: []string{}}
		if i%3 == 0 {
			jobs[i].Findings = []string{"hidden_retry_layer"}
		}
	}
	return jobs
}

// TestStreamedJobsInOrder: jobs encoded in parallel chunks come out in
// their order, byte for byte as the job list's encoding — across chunk
// boundaries, at an exact multiple of the chunk, and with none.
func TestStreamedJobsInOrder(t *testing.T) {
	for _, n := range []int{0, 1, jobChunk, jobChunk + 1, 5*jobChunk + 17} {
		jobs := manyJobs(n)
		var listed, streamed bytes.Buffer
		if err := JSON(&listed, &correlate.Report{Jobs: jobs}); err != nil {
			t.Fatal(err)
		}
		if err := JSON(&streamed, &correlate.Report{JobSource: sliceSource(jobs)}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(listed.Bytes(), streamed.Bytes()) {
			t.Fatalf("%d jobs: streamed JSON differs from the listed one", n)
		}
		var back correlate.Report
		if err := json.Unmarshal(streamed.Bytes(), &back); err != nil || len(back.Jobs) != n {
			t.Fatalf("%d jobs: read back %d (%v)", n, len(back.Jobs), err)
		}
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after -= len(p); w.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestStreamedJobsStopOnWriteError: a writer that fails mid-stream ends
// the encoding with its error, without hanging the workers.
func TestStreamedJobsStopOnWriteError(t *testing.T) {
	err := JSON(&failingWriter{after: 1 << 20}, &correlate.Report{JobSource: sliceSource(manyJobs(40 * jobChunk))})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the writer's", err)
	}
}

// TestAppendStringEveryByte: appendString writes plain text itself and
// leaves the rest to encoding/json; for every byte, alone and between
// plain text, its bytes must be encoding/json's.
func TestAppendStringEveryByte(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{string(rune(c)), string([]byte{byte(c)}), "job-" + string([]byte{byte(c)}) + "-1"} {
			want, _ := json.Marshal(s)
			if got := appendString(nil, s); string(got) != string(want) {
				t.Fatalf("%q: got %s, want %s", s, got, want)
			}
		}
	}
}

// TestUnpricedSumsAreFloors: R7-1 — a run whose calls are unpriced showed
// "Spend $0", "Wasted $0 (0%)", job types at "$0" and findings that
// "wasted $0": exact-looking figures of nothing known. Every sum with
// unpriced calls in it is a floor, as the jobs table's already was.
func TestUnpricedSumsAreFloors(t *testing.T) {
	r := &correlate.Report{}
	r.Totals.Attempts, r.Totals.UnpricedAttempts = 12, 12
	r.JobTypes = []correlate.JobTypeReport{{JobType: "nightly", Jobs: 2, Attempts: 12, UnpricedAttempts: 12, Layers: []int{}}}
	r.Findings = []correlate.FindingReport{{Kind: "retry_amplification", Count: 1, JobsTotal: 1, Jobs: []string{"j1"}}}
	var b strings.Builder
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| Spend | ≥$0 (12 unpriced) |", "| Wasted spend | ≥$0 (12 unpriced) |",
		"| ≥$0 (12 unpriced) | ≥$0 (12 unpriced) |", "attempts wasted at least $0"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "$0 (0%)") {
		t.Errorf("a share of two floors:\n%s", out)
	}
}

// TestMergedReplicaSpendIsAFloor: R7b-11 — report --merge's replica table
// showed an exact spend for a replica 9 of whose 15 calls were unpriced.
func TestMergedReplicaSpendIsAFloor(t *testing.T) {
	r := &correlate.Report{Merged: &correlate.MergeInfo{Replicas: []correlate.MergedReplica{
		{File: "a.json", Replica: "a", RunID: "night1", Jobs: 5, Attempts: 15, SpendUSD: 0.21, UnpricedAttempts: 9},
		{File: "b.json", Replica: "b", RunID: "night1", Jobs: 5, Attempts: 15, SpendUSD: 0.30},
	}}}
	var b strings.Builder
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "| ≥$0.2100 (9 unpriced) |") || !strings.Contains(out, "| $0.3000 |") {
		t.Errorf("replica table:\n%s", out)
	}
}
