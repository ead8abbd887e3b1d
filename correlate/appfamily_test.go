package correlate_test

import (
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// TestModellessAppCallTakesTheRunsFamily: the lab's OpenAI app logs a
// failed job as one line — "job failed", the status and the requestId, no
// model. That app-level call's count was "exact" with the OpenAI SDK's
// retries below it unseen. When every app-level call that named a model
// named one family, a call that names none is that family's: a lower
// bound, with the SDK named. With no family anywhere it stays exact.
func TestModellessAppCallTakesTheRunsFamily(t *testing.T) {
	call := func(job, model string, status int16) ingest.Event {
		var e ingest.Event
		e.Reset()
		e.Kind, e.JobID, e.Model, e.Status, e.TS = ingest.KindLLMCall, job, model, status, 1e18
		return e
	}
	st := correlate.New(correlate.DefaultConfig())
	for _, e := range []ingest.Event{call("ok", "gpt-4o-mini", 200), call("failed", "", 503)} {
		st.Apply(&e)
	}
	r := st.Report()
	for _, j := range r.Jobs {
		if j.Count != correlate.CountLowerBound {
			t.Errorf("%s: count %s, want lower_bound", j.JobID, j.Count)
		}
	}
	if len(r.UnseenLayers) != 1 || r.UnseenLayers[0].Jobs != 2 {
		t.Errorf("unseen layers %+v", r.UnseenLayers)
	}

	st = correlate.New(correlate.DefaultConfig())
	e := call("failed", "", 503)
	st.Apply(&e)
	if r := st.Report(); r.Jobs[0].Count != correlate.CountExact || len(r.UnseenLayers) != 0 {
		t.Errorf("nothing names a family: %+v, %+v", r.Jobs[0], r.UnseenLayers)
	}
}
