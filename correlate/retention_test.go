package correlate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// retentionNight is ten hours of log: 6,000 jobs, a new one every 6 s, of
// three types and three shapes (clean; 429 then 200; a terminal 400
// retried then dead-lettered), with and without queue lifecycle events.
func retentionNight(t *testing.T) []ingest.Event {
	t.Helper()
	p := decode.NewParser()
	var evs []ingest.Event
	add := func(l string) {
		var ev ingest.Event
		if r := p.ParseLine([]byte(l), &ev); r != ingest.Accepted {
			t.Fatalf("%s: %s", l, r)
		}
		evs = append(evs, ev)
	}
	base := int64(1773104400000)
	for i := range 6000 {
		ts := base + int64(i)*6000
		job, typ := fmt.Sprintf("job-%05d", i), fmt.Sprintf("type-%d", i%3)
		lifecycle := i%2 == 0
		if lifecycle {
			add(fmt.Sprintf(`{"ts":%d,"event":"job_started","job_id":"%s","job_type":"%s"}`, ts, job, typ))
		}
		call := func(dt int64, status, attempt int, key string) {
			add(fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"%s","job_type":"%s","idempotency_key":"%s","attempt":%d,"model":"claude-sonnet-4-6","status":%d,"input_tokens":%d,"output_tokens":50}`,
				ts+dt, job, typ, key, attempt, status, 1000+i%7*100))
		}
		switch i % 5 {
		case 0, 1, 2:
			call(100, 200, 1, "a")
		case 3:
			call(100, 429, 1, "a")
			call(2100, 200, 2, "a")
		case 4:
			for k := range 4 {
				call(100+int64(k)*500, 400, k+1, "a")
			}
		}
		if lifecycle {
			end := "job_succeeded"
			if i%5 == 4 {
				end = "job_dead_lettered"
			}
			add(fmt.Sprintf(`{"ts":%d,"event":"%s","job_id":"%s","job_type":"%s"}`, ts+3000, end, job, typ))
		}
	}
	return evs
}

// TestRetiredJobsKeepEveryNumber: issue 22 — a daemon's one run held every
// job it ever saw. With a retention, finished jobs are retired, and the
// report is the same report: spend, wasted, job and outcome counts,
// calls-per-job percentiles, job types, findings and their waste, the
// projection — everything but the retired jobs' own rows.
func TestRetiredJobsKeepEveryNumber(t *testing.T) {
	evs := retentionNight(t)
	run := func(keep time.Duration) (*State, *Report) {
		cfg := DefaultConfig()
		cfg.JobRetention = keep
		st := New(cfg)
		for start := 0; start < len(evs); start += ingest.BatchSize {
			b := make(ingest.Batch, 0, ingest.BatchSize)
			b = append(b, evs[start:min(start+ingest.BatchSize, len(evs))]...)
			st.ApplyBatch(b, nil)
		}
		return st, st.Report()
	}
	all, want := run(0)
	kept, got := run(time.Hour)
	if kept.RetiredJobs() < 4000 || len(kept.Jobs()) > 2000 {
		t.Fatalf("retired %d, kept %d of 6,000 jobs over ten hours with a retention of one hour", kept.RetiredJobs(), len(kept.Jobs()))
	}
	if len(all.Jobs()) != 6000 {
		t.Fatalf("without retention %d jobs", len(all.Jobs()))
	}
	strip := func(r *Report) *Report {
		c := *r
		c.Jobs, c.Totals.RetiredJobs = nil, 0
		return &c
	}
	a, _ := json.MarshalIndent(strip(want), "", " ")
	b, _ := json.MarshalIndent(strip(got), "", " ")
	if string(a) != string(b) {
		t.Errorf("the report changed when jobs were retired:\n%s", firstDiff(string(a), string(b)))
	}
	if kept.Projected() != all.Projected() || kept.Spend() != all.Spend() {
		t.Errorf("projection %v/%v, spend %v/%v", kept.Projected(), all.Projected(), kept.Spend(), all.Spend())
	}
	snapA, snapB := all.Snapshot(SnapshotOptions{}), kept.Snapshot(SnapshotOptions{})
	if snapA.JobCount != snapB.JobCount || snapA.Wasted != snapB.Wasted {
		t.Errorf("dashboard job count %d/%d, wasted %v/%v", snapA.JobCount, snapB.JobCount, snapA.Wasted, snapB.Wasted)
	}
	// The live jobs are whole: a retried job's detail still shows it.
	for _, j := range kept.Jobs() {
		if got, want := len(kept.Attempts(j)), len(all.Attempts(all.Job(j.ID))); got != want {
			t.Fatalf("job %s: %d attempts kept, want %d", j.ID, got, want)
		}
	}
	// A retired job that logs again is a new job, from $0.
	var ev ingest.Event
	decode.NewParser().ParseLine([]byte(`{"ts":1773140400000,"event":"llm_call","job_id":"job-00001","idempotency_key":"a","model":"claude-sonnet-4-6","status":200,"input_tokens":10}`), &ev)
	j := kept.Apply(&ev)
	if j.Calls != 1 {
		t.Errorf("a retired job that came back: %d calls", j.Calls)
	}
}

func firstDiff(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			lo := max(0, i-200)
			return "want …" + a[lo:min(len(a), i+200)] + "\n got …" + b[lo:min(len(b), i+200)]
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

var _ = reflect.DeepEqual

// TestNeverEndingJobIsBounded: issue 38 — a job that never ends (a
// service logging under one constant job_id) kept an operation per
// idempotency key for ever: 426 MB at 2M lines, 914 MB at 6M. With a
// retention its operations idle past the horizon are summarized and
// dropped, and the report is the same report: operations, recovery,
// the most tries of one call (here an early call tried 12 times, long
// since dropped), spend, findings.
func TestNeverEndingJobIsBounded(t *testing.T) {
	p := decode.NewParser()
	var evs []ingest.Event
	add := func(l string) {
		var ev ingest.Event
		if r := p.ParseLine([]byte(l), &ev); r != ingest.Accepted {
			t.Fatalf("%s: %s", l, r)
		}
		evs = append(evs, ev)
	}
	base := int64(1773104400000)
	const ops = 20000 // one every 6 s: 33 hours
	for i := range ops {
		ts := base + int64(i)*6000
		tries := 1
		switch {
		case i == 10:
			tries = 12
		case i%7 == 3:
			tries = 2
		}
		for k := range tries {
			status := 200
			if k < tries-1 {
				status = 429
			}
			add(fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"service","job_type":"api","idempotency_key":"req-%d","attempt":%d,"model":"claude-sonnet-4-6","status":%d,"input_tokens":1000,"output_tokens":50}`,
				ts+int64(k)*100, i, k+1, status))
		}
	}
	run := func(keep time.Duration) (*State, *Report) {
		cfg := DefaultConfig()
		cfg.JobRetention = keep
		st := New(cfg)
		for start := 0; start < len(evs); start += ingest.BatchSize {
			b := make(ingest.Batch, 0, ingest.BatchSize)
			b = append(b, evs[start:min(start+ingest.BatchSize, len(evs))]...)
			st.ApplyBatch(b, nil)
		}
		return st, st.Report()
	}
	all, want := run(0)
	kept, got := run(time.Hour)
	if all.opCount != ops {
		t.Fatalf("without retention %d operations, want %d", all.opCount, ops)
	}
	// An hour is 600 operations; a sweep waits for 1,024 idle ones and
	// for half of those held.
	if kept.opCount > 3000 {
		t.Errorf("a never-ending job holds %d operations with a retention of an hour: want them summarized", kept.opCount)
	}
	a, _ := json.MarshalIndent(want, "", " ")
	b, _ := json.MarshalIndent(got, "", " ")
	if string(a) != string(b) {
		t.Errorf("the report changed when operations were summarized:\n%s", firstDiff(string(a), string(b)))
	}
	// The most tries of one call, which the declared stack is held to.
	if a, b := all.jobTries(), kept.jobTries(); len(a) != 1 || len(b) != 1 || a[0] != 12 || b[0] != 12 {
		t.Errorf("most tries of one call: %v without retention, %v with: want 12", a, b)
	}
	if want.Recovery.Operations != ops || len(want.Findings) == 0 {
		t.Errorf("the test must see every operation and the 12-try call's finding: %+v, %d findings", want.Recovery, len(want.Findings))
	}
}
