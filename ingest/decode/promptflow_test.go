package decode_test

import (
	"encoding/json"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/otlp"
)

// promptflowSpans is a PromptFlow trace as its trace service lists it (a
// JSON array of the devkit's Span._to_rest_object(), written here field
// for field from microsoft/promptflow's promptflow-tracing _trace.py and
// the devkit's span entity): the flow's root span, whose
// __computed__.cumulative_token_count.* sum its children, a function
// span, and the LLM span, whose own usage is llm.usage.* (OpenAI's usage
// dict) and its model llm.response.model; times are UTC without a zone.
const promptflowSpans = `[
 {"name":"openai_chat","context":{"trace_id":"0x7e4b3f9c2a1d4e5f8a9b0c1d2e3f4a5b","span_id":"0x1a2b3c4d5e6f7a8b","trace_state":""},"kind":"1","parent_id":"0x2b3c4d5e6f7a8b9c",
  "start_time":"2026-03-01T20:47:18.711501","end_time":"2026-03-01T20:47:20.1","status":{"status_code":"Ok","description":""},
  "attributes":{"framework":"promptflow","span_type":"LLM","function":"openai.resources.chat.completions.Completions.create","node_name":"chat","line_run_id":"b2f0",
   "llm.response.model":"gpt-4o-mini-2024-07-18","llm.usage.completion_tokens":120,"llm.usage.prompt_tokens":1500,"llm.usage.total_tokens":1620,
   "__computed__.cumulative_token_count.completion":120,"__computed__.cumulative_token_count.prompt":1500,"__computed__.cumulative_token_count.total":1620},
  "events":[],"links":[],"resource":{"attributes":{"service.name":"promptflow","collection":"chat-flow"},"schema_url":""}},
 {"name":"chat","context":{"trace_id":"0x7e4b3f9c2a1d4e5f8a9b0c1d2e3f4a5b","span_id":"0x2b3c4d5e6f7a8b9c","trace_state":""},"kind":"1","parent_id":"0x9f8e7d6c5b4a3928",
  "start_time":"2026-03-01T20:47:18.5","end_time":"2026-03-01T20:47:20.5","status":{"status_code":"Ok","description":""},
  "attributes":{"framework":"promptflow","span_type":"Function","function":"chat","node_name":"chat","line_run_id":"b2f0",
   "__computed__.cumulative_token_count.completion":120,"__computed__.cumulative_token_count.prompt":1500,"__computed__.cumulative_token_count.total":1620},
  "events":[],"links":[],"resource":{"attributes":{"service.name":"promptflow","collection":"chat-flow"},"schema_url":""}},
 {"name":"flow","context":{"trace_id":"0x7e4b3f9c2a1d4e5f8a9b0c1d2e3f4a5b","span_id":"0x9f8e7d6c5b4a3928","trace_state":""},"kind":"1","parent_id":null,
  "start_time":"2026-03-01T20:47:18.0","end_time":"2026-03-01T20:47:21.0","status":{"status_code":"Ok","description":""},
  "attributes":{"framework":"promptflow","span_type":"Flow","function":"flow","line_run_id":"b2f0",
   "__computed__.cumulative_token_count.completion":120,"__computed__.cumulative_token_count.prompt":1500,"__computed__.cumulative_token_count.total":1620},
  "events":[],"links":[],"resource":{"attributes":{"service.name":"promptflow","collection":"chat-flow"},"schema_url":""}}
]`

// TestPromptFlowSpansAreTheirLLMCalls: issue 35 — PromptFlow's spans
// were read as nothing (llm.usage.* and llm.response.model were no
// spelling of ours); its LLM span is one call, its ancestors' cumulative
// counts none, and its time without a zone is UTC.
func TestPromptFlowSpansAreTheirLLMCalls(t *testing.T) {
	var spans []json.RawMessage
	if err := json.Unmarshal([]byte(promptflowSpans), &spans); err != nil {
		t.Fatal(err)
	}
	d := decode.NewDetector()
	d.Add(spans[0])
	f := d.Result().Format
	if f != decode.FormatOTelConsole {
		t.Fatalf("a PromptFlow span is detected as %s", f)
	}
	dec := decode.NewDecoder(f, nil, decode.Options{OTLP: otlp.NewFileDecoder})
	var calls []ingest.Event
	for _, sp := range spans {
		dec.Decode(sp, func(ev *ingest.Event) {
			if ev.Kind == ingest.KindLLMCall {
				calls = append(calls, *ev)
			}
		})
	}
	if fl, ok := dec.(decode.Flusher); ok {
		fl.Flush(func(ev *ingest.Event) {
			if ev.Kind == ingest.KindLLMCall {
				calls = append(calls, *ev)
			}
		})
	}
	if len(calls) != 1 {
		t.Fatalf("format %s: %d calls, want the LLM span's one: %+v", f, len(calls), calls)
	}
	c := calls[0]
	if c.Model != "gpt-4o-mini-2024-07-18" || c.InputTokens != 1500 || c.OutputTokens != 120 || c.TS != 1772398038711501000 || c.Status != 200 {
		t.Errorf("the LLM span: model %q in/out %d/%d ts %d status %d", c.Model, c.InputTokens, c.OutputTokens, c.TS, c.Status)
	}
}
