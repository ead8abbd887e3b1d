package correlate

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/scenario"
)

// TestLookAheadFindsWhatApplyFinds: resolve looks a batch's jobs and
// operations up a step at a time and confirms only the first slot of each
// tag; with every job ID and every scoped key hashed alike (each first
// slot another's key, each job's last operation a hash match of another
// key) it must still find what Apply finds one event at a time — on a
// uniform log (keys new, retried and repeated within a batch) and on
// hand-made events whose job is named by correlation ID or key alone,
// whose key repeats across jobs, whose job and key first appear within
// one batch, whose job ID or key holds a NUL, and trace links that move
// jobs in the middle of a batch.
func TestLookAheadFindsWhatApplyFinds(t *testing.T) {
	var log bytes.Buffer
	if err := scenario.NightUniform(&log, 20_000, 4, 3); err != nil {
		t.Fatal(err)
	}
	var events []ingest.Event
	var ev ingest.Event
	for it := file.NewIter(bytes.NewReader(log.Bytes()), "uniform", 0, decode.Options{}); it.Next(&ev); {
		events = append(events, ev)
	}
	for i := range 3000 {
		e := ingest.Event{TS: int64(2_000_000+i) * 1e9, Kind: ingest.KindLLMCall, Model: "gpt-4o", Status: int16([]int{429, 200, 500}[i%3]),
			RetryAfterMs: ingest.NoRetryAfter, Attempt: int16(i%3 + 1), InputTokens: 100, OutputTokens: 10}
		switch i % 5 {
		case 4:
			// A NUL in a job ID or key: "a\x00b"+"\x00"+"c" and "a"+"\x00"+"b\x00c" are
			// one scoped key; the look-ahead must agree with findOp on it.
			e.JobID, e.IdempotencyKey = []string{"a\x00b", "a"}[i%2], []string{"c", "b\x00c"}[i/5%2]
		case 0:
			e.JobID, e.IdempotencyKey = fmt.Sprint("hand-", i%97), fmt.Sprint("req-", i%5) // per-worker counters: shared by jobs
		case 1:
			e.CorrelationID, e.IdempotencyKey = fmt.Sprint("corr-", i%89), fmt.Sprint("k-", i/8)
		case 2:
			e.IdempotencyKey = fmt.Sprint("lone-", i%61) // the key is the job
		case 3:
			e.JobID = fmt.Sprint("hand-", i%97) // keyless: the job's tool operation
		}
		events = append(events, e)
	}
	// Trace links mid-batch: a trace's keyed calls (retried), its root
	// naming a job — new, or one with calls already (folded in) — and
	// calls after the link that name the trace again or the job.
	for k := range 40 {
		trace := fmt.Sprintf("%032x", k*7919)
		for n := range 6 {
			events = append(events, ingest.Event{TS: int64(3_000_000+k*10+n) * 1e9, Kind: ingest.KindLLMCall, Model: "gpt-4o", Status: int16([]int{429, 200}[n%2]),
				RetryAfterMs: ingest.NoRetryAfter, JobID: trace, CorrelationID: trace, IdempotencyKey: fmt.Sprint("t-", n/2), InputTokens: 50})
		}
		events = append(events, ingest.Event{TS: int64(3_000_000+k*10+7) * 1e9, Kind: ingest.KindTraceJob, JobID: fmt.Sprint("hand-", k%3*40), JobType: "t", CorrelationID: trace})
		events = append(events,
			ingest.Event{TS: int64(3_000_000+k*10+8) * 1e9, Kind: ingest.KindLLMCall, Model: "gpt-4o", Status: 200, RetryAfterMs: ingest.NoRetryAfter, CorrelationID: trace, IdempotencyKey: "t-2", InputTokens: 50},
			ingest.Event{TS: int64(3_000_000+k*10+9) * 1e9, Kind: ingest.KindLLMCall, Model: "gpt-4o", Status: 200, RetryAfterMs: ingest.NoRetryAfter, JobID: fmt.Sprint("hand-", k%3*40), IdempotencyKey: "t-2", InputTokens: 50})
	}
	if len(events) < 20_000 {
		t.Fatalf("%d events", len(events))
	}
	one := New(DefaultConfig())
	for i := range events {
		one.Apply(&events[i])
	}
	want := one.Report()
	for _, collide := range []bool{false, true} {
		st := New(DefaultConfig())
		st.jobs.testCollide, st.ops.testCollide = collide, collide
		for i := 0; i < len(events); i += ingest.BatchSize {
			st.ApplyBatch(slices.Clone(events[i:min(i+ingest.BatchSize, len(events))]), nil)
		}
		if len(st.Jobs()) != len(one.Jobs()) || st.opCount != one.opCount {
			t.Fatalf("collide=%v: %d jobs, %d operations; Apply made %d and %d", collide, len(st.Jobs()), st.opCount, len(one.Jobs()), one.opCount)
		}
		if got := st.Report(); !reflect.DeepEqual(got, want) {
			t.Errorf("collide=%v: ApplyBatch's report differs from Apply's", collide)
		}
	}
}
