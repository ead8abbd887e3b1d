package statedir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestCarryFileRoundTrip: job IDs come back byte for byte, a bad UTF-8
// byte included; the end line's counts are checked.
func TestCarryFileRoundTrip(t *testing.T) {
	runs := []engine.CarriedRun{{ID: "night-\xff", LogRunID: "night-\xff", Current: true, LastTS: 5,
		Totals: correlate.Carried{Spend: 7, Attempts: 2, FirstTS: 1, LastTS: 5, Jobs: 3, LeftOut: 1, Statuses: map[int16]int64{200: 1, 529: 1},
			JobList: []correlate.CarriedJob{{ID: "a\"\n\x00\xfe", Type: "t", Spend: 3, Calls: 1, FirstTS: 1, LastTS: 2}, {ID: "b", Spend: 4, Calls: 1}}}}}
	var buf bytes.Buffer
	if err := EncodeCarry(&buf, "fp", runs, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	for _, j := range runs[0].Totals.JobList {
		line := fmt.Sprintf(`{"job_of_run":0,"job_id":%s}`, mustJSON(t, j.ID))
		if utf8.ValidString(j.ID) && len(line) > carryJobBound(&j) {
			t.Errorf("the bound of %q is %d, its line %d", j.ID, carryJobBound(&j), len(line))
		}
	}
	fp, back, err := DecodeCarry(bytes.NewReader(buf.Bytes()))
	if err != nil || fp != "fp" {
		t.Fatalf("decode: %v %q\n%s", err, fp, buf.String())
	}
	if back[0].ID != runs[0].ID || back[0].Totals.JobList[0].ID != runs[0].Totals.JobList[0].ID || back[0].Totals.Spend != 7 || back[0].Totals.LeftOut != 1 || !back[0].Current ||
		back[0].Totals.Statuses[529] != 1 || back[0].Totals.Statuses[200] != 1 {
		t.Fatalf("round trip: %+v", back)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	dropped := bytes.Join(append(lines[:2:2], lines[3:]...), []byte("\n"))
	if _, _, err := DecodeCarry(bytes.NewReader(dropped)); err == nil || !strings.Contains(err.Error(), "end line counts") {
		t.Errorf("a job line left out: %v", err)
	}
	long := append([]byte(`{"burnrate_carry":1,"fingerprint":"`), bytes.Repeat([]byte("x"), maxCarryLine+1)...)
	if _, _, err := DecodeCarry(bytes.NewReader(long)); err == nil {
		t.Errorf("a line past the bound was read")
	}
}

// TestACarryOfLongJobIDsFitsItsBound: 200,000 jobs with 512-byte IDs would
// be a carry of ~130 MB, which the next start refuses whole; the writer
// leaves out the lowest spend until it fits, and the start reads it.
func TestACarryOfLongJobIDsFitsItsBound(t *testing.T) {
	jobs := make([]correlate.CarriedJob, MaxCarryJobs)
	pad := strings.Repeat("x", 500)
	for i := range jobs {
		jobs[i] = correlate.CarriedJob{ID: fmt.Sprintf("%s-%08d", pad, i), Spend: correlate.Pico(i + 1), Calls: 1}
	}
	runs := []engine.CarriedRun{{ID: "night-l", Current: true, Totals: correlate.Carried{Spend: 1 << 40, Jobs: int64(len(jobs)), JobList: jobs}}}
	var buf bytes.Buffer
	if err := EncodeCarry(&buf, "fp", runs, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	if size > maxCarryBytes {
		t.Fatalf("carry of %d bytes, over the %d a start reads", size, maxCarryBytes)
	}
	_, back, err := DecodeCarry(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got := back[0].Totals
	if len(got.JobList) == 0 || len(got.JobList) == len(jobs) || got.LeftOut != int64(len(jobs)-len(got.JobList)) || got.Spend != 1<<40 {
		t.Fatalf("kept %d jobs, %d left out, spend %d", len(got.JobList), got.LeftOut, got.Spend)
	}
	// The highest spend is kept: the last jobs.
	if last := got.JobList[len(got.JobList)-1]; last.Spend != correlate.Pico(len(jobs)) {
		t.Errorf("the costliest job was left out (last kept: $%d)", last.Spend)
	}
	if first := got.JobList[0]; first.Spend != correlate.Pico(len(jobs)-len(got.JobList)+1) {
		t.Errorf("kept from spend %d, want the %d costliest", first.Spend, len(got.JobList))
	}
	if len(runs[0].Totals.JobList) != len(jobs) {
		t.Errorf("the engine's carry was changed in place")
	}
	t.Logf("200,000 jobs with 509-byte IDs: %d kept in %d bytes, %d left out", len(got.JobList), size, got.LeftOut)
}

// TestATamperedCarryIsRefused: a job twice in one run (the first copy
// was seeded: $0, no kill), jobs that spent more than their run, are
// refused as corrupt; an ID past the bound is capped as ingest caps it,
// so the job's next call finds it (a 100 KB ID seeded raw became a second
// job and missed its kill).
func TestATamperedCarryIsRefused(t *testing.T) {
	encode := func(jobs ...correlate.CarriedJob) []byte {
		var sum correlate.Pico
		for _, j := range jobs {
			sum = sum.Add(j.Spend)
		}
		runs := []engine.CarriedRun{{ID: "n1", LogRunID: "n1", Current: true, Totals: correlate.Carried{Spend: sum, Jobs: int64(len(jobs)), JobList: jobs}}}
		var buf bytes.Buffer
		if err := EncodeCarry(&buf, "fp", runs, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	dup := encode(correlate.CarriedJob{ID: "a", Spend: 1, Calls: 1}, correlate.CarriedJob{ID: "a", Spend: 5, Calls: 1})
	if _, _, err := DecodeCarry(bytes.NewReader(dup)); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a job twice: %v", err)
	}
	over := bytes.Replace(encode(correlate.CarriedJob{ID: "a", Spend: 9, Calls: 1}), []byte(`"spend_pico":9,"calls":0`), []byte(`"spend_pico":1,"calls":0`), 1)
	if bytes.Equal(over, encode(correlate.CarriedJob{ID: "a", Spend: 9, Calls: 1})) {
		t.Fatalf("the run line was not tampered:\n%s", over)
	}
	if _, _, err := DecodeCarry(bytes.NewReader(over)); err == nil || !strings.Contains(err.Error(), "more than its run") {
		t.Errorf("jobs over their run: %v", err)
	}
	huge := strings.Repeat("J", 100_000)
	_, runs, err := DecodeCarry(bytes.NewReader(encode(correlate.CarriedJob{ID: huge, Spend: 1, Calls: 1})))
	if err != nil {
		t.Fatal(err)
	}
	if got := runs[0].Totals.JobList[0].ID; got != decode.CleanID(huge) {
		t.Errorf("a 100 KB ID seeded as %d bytes, not as ingest caps it", len(got))
	}
}

// TestDeclarationsAreCarried: a declaration printed once at the top of a
// stream is not printed again after a restart; carried, the resumed run
// keeps its premises (the kill kill_on finding:assumption_violated makes
// at a retry past them was missed after a restart).
func TestDeclarationsAreCarried(t *testing.T) {
	st := correlate.New(correlate.DefaultConfig())
	var ev ingest.Event
	ev.Kind, ev.TS = ingest.KindAssumption, 1773104400*1e9
	ev.SetAssumption("log line", "anthropic-sdk.maxRetries", "0")
	st.Apply(&ev)
	c := st.CarryOut(0)
	if len(c.Declared) != 1 {
		t.Fatalf("carried %+v", c.Declared)
	}
	runs := []engine.CarriedRun{{ID: "n1", LogRunID: "n1", Current: true, Totals: c}}
	var buf bytes.Buffer
	if err := EncodeCarry(&buf, "fp", runs, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	_, back, err := DecodeCarry(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	resumed := correlate.New(correlate.DefaultConfig())
	if err := resumed.Seed(back[0].Totals); err != nil {
		t.Fatal(err)
	}
	// The SDK's own retry after the restart breaks the carried premise.
	call := ingest.Event{Kind: ingest.KindLLMCall, TS: 1773104460 * 1e9, JobID: "j", Model: "claude-sonnet-4-6", Provider: "anthropic", Status: 200,
		Attempt: 2, AttemptBy: ingest.AttemptBySDK, RetryAfterMs: ingest.NoRetryAfter}
	resumed.Apply(&call)
	r := resumed.Report()
	if !slices.ContainsFunc(r.Findings, func(f correlate.FindingReport) bool { return f.Kind == "assumption_violated" }) {
		t.Errorf("the resumed run lost its premise: %+v", r.Assumptions)
	}
	// A declaration line out of place or past its bounds is corruption.
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	dropped := bytes.Join(append(lines[:len(lines)-2:len(lines)-2], lines[len(lines)-1]), []byte("\n"))
	if _, _, err := DecodeCarry(bytes.NewReader(dropped)); err == nil {
		t.Error("a declaration line left out went unnoticed")
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
