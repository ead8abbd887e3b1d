package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestBedrockBatchRecords: issue 35 — Bedrock batch output read as
// nothing (and forced through --map, billed at twice the batch price).
// Records written here in the shapes AWS documents: Anthropic, Titan,
// Llama, Nova, an error, an input record not run yet.
func TestBedrockBatchRecords(t *testing.T) {
	lines := []string{
		`{"modelInput":{"anthropic_version":"bedrock-2023-05-31"},"modelOutput":{"id":"msg_bdrk_01","model":"claude-3-haiku-20240307","usage":{"input_tokens":111,"output_tokens":73}},"recordId":"r1"}`,
		`{ "recordId" : "r2", "modelInput" : {"inputText": "Roses are red"}, "modelOutput" : {"inputTextTokenCount": 8, "results": [{"tokenCount": 3, "outputText": "blue"}]}}`,
		`{"recordId":"r3","modelInput":{"prompt":"hi"},"modelOutput":{"generation":"hello","prompt_token_count":12,"generation_token_count":5}}`,
		`{"recordId":"r4","modelInput":{"messages":[]},"modelOutput":{"output":{},"usage":{"inputTokens":20,"outputTokens":7,"cacheReadInputTokens":4}}}`,
		`{ "recordId" : "r5", "modelInput" : {"inputText": "Hello world"}, "error" : {"errorCode" : 400, "errorMessage" : "bad request" }}`,
		`{"recordId":"r6","modelInput":{"inputText":"not run"}}`,
	}
	d := NewDetector()
	for _, l := range lines {
		d.Add([]byte(l))
	}
	if f := d.Result().Format; f != FormatBedrockBatch {
		t.Fatalf("detected %s", f)
	}
	dec := NewDecoder(FormatBedrockBatch, nil, Options{SourceName: "s3/job-1/input.jsonl.out"})
	var evs []ingest.Event
	for _, l := range lines {
		dec.Decode([]byte(l), func(ev *ingest.Event) { evs = append(evs, *ev) })
	}
	if len(evs) != 5 {
		t.Fatalf("%d events, want 5", len(evs))
	}
	want := [][3]int64{{111, 73, 0}, {8, 3, 0}, {12, 5, 0}, {20, 7, 4}, {0, 0, 0}}
	for i, ev := range evs {
		if got := [3]int64{ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens}; got != want[i] || !ev.Batch || ev.JobID != "input.jsonl" {
			t.Errorf("record %d: %v batch %v job %q; want %v, batch, input.jsonl", i, got, ev.Batch, ev.JobID, want[i])
		}
	}
	if evs[0].Model != "claude-3-haiku-20240307" || evs[0].Status != 200 || evs[4].Status != 400 || evs[4].ErrorType != "bad request" {
		t.Errorf("model/status: %+v / %+v", evs[0], evs[4])
	}
}
