package correlate

import (
	"reflect"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestStreamFillReusesNothingStale: a streamed job's times and layers are
// written into the storage the previous job's used (JobSource.Fill), so a
// job with none must not show the last one's: no calls is "[]" layers,
// no timestamp an empty time — and each filled report equals the built
// one.
func TestStreamFillReusesNothingStale(t *testing.T) {
	st := New(DefaultConfig())
	ts := int64(1773104400000000000)
	evs := ingest.Batch{
		// costliest: calls and times, two layers deep
		{Kind: ingest.KindLLMCall, JobID: "a", TS: ts, Provider: "anthropic", Model: "claude-sonnet-4-6", Status: 429, Attempt: 1, IdempotencyKey: "k", InputTokens: 9000, OutputTokens: 900},
		{Kind: ingest.KindLLMCall, JobID: "a", TS: ts + 2e9, Provider: "anthropic", Model: "claude-sonnet-4-6", Status: 200, Attempt: 2, IdempotencyKey: "k", InputTokens: 9000, OutputTokens: 900},
		// then one call, one time
		{Kind: ingest.KindLLMCall, JobID: "b", TS: ts + 3e9, Provider: "anthropic", Model: "claude-sonnet-4-6", Status: 200, Attempt: 1, InputTokens: 100, OutputTokens: 10},
		// then no call and no time of its own
		{Kind: ingest.KindJobStarted, JobID: "c"},
	}
	st.ApplyBatch(evs, nil)
	full := st.Report()
	src := st.ReportWith(ReportOptions{StreamJobs: true}).JobSource
	if src.Len() != 3 || len(full.Jobs) != 3 {
		t.Fatalf("%d streamed, %d built: want 3 jobs", src.Len(), len(full.Jobs))
	}
	if full.Jobs[2].JobID != "c" || len(full.Jobs[2].Layers) != 0 || full.Jobs[2].FirstTS != "" {
		t.Fatalf("the test needs the job without calls or time last: %+v", full.Jobs[2])
	}
	var jr JobReport
	for i := range src.Len() {
		src.Fill(i, &jr)
		if got := jr.Detached(); !reflect.DeepEqual(got, full.Jobs[i]) {
			t.Errorf("job %d streamed as\n%+v\nbuilt as\n%+v", i, got, full.Jobs[i])
		}
		if jr.Layers == nil {
			t.Errorf("job %d: nil layers (written null), want []", i)
		}
	}
}
