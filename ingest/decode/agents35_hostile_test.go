package decode_test

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestAgentDecodersTakeHostileRecords: issue 35's agent decoders (and the
// generic reader) on records of their shape with every field wrong —
// truncated, binary, huge, NaN, nested, ANSI and bidi controls in names:
// no panic, every event passes Event.Check, no control character reaches
// a model, job or error name, and a record that gives no usage gives no
// call.
func TestAgentDecodersTakeHostileRecords(t *testing.T) {
	huge := strings.Repeat("9", 400)
	esc := "\x1b[31mred\x1b[0m\u202egnp.exe"
	deep := strings.Repeat(`{"a":`, 5000) + `{"model":"m","usage":{"input_tokens":1}}` + strings.Repeat(`}`, 5000)
	recs := map[decode.Format][]string{
		decode.FormatOpenCode: {
			`{"id":"msg_1","sessionID":"ses_` + esc + `","role":"assistant","modelID":"` + esc + `","providerID":7,"cost":"NaN","tokens":{"input":-1,"output":` + huge + `,"reasoning":1.5,"cache":{"read":"x","write":null},"total":1e300}}`,
			`{"id":"msg_2","sessionID":"ses_1","role":"assistant","tokens":{"input":1,"output":1,"cache":[]}}`,
			`{"type":"step_finish","timestamp":-5,"sessionID":"s","part":{"messageID":"` + strings.Repeat("m", 10000) + `","tokens":{"input":1e20}}}`,
			`{"type":"error","timestamp":"x","sessionID":"s","error":{"name":"` + esc + `","data":{"statusCode":99999}}}`,
			`{"id":"prt_1","sessionID":"s","messageID":"m","type":"retry","attempt":1e9,"error":"nope"}`,
			`{"id":"ses_2","projectID":"p","title":"t","time":{"updated":"soon"},"parentID":"ses_2"}`,
			`{"id":"msg_3","sessionID":"ses_1","role":"assistant","tokens":{"input":1,"output":2,"cache":{"read":3,"write":4}},"cost":-0.5,"time":{"created":1e300}}`,
			`{"id":"msg_4"`, "\x00\x01\x02", `[]`,
		},
		decode.FormatCopilot: {
			`{"type":"assistant.message","data":{"model":"` + esc + `","outputTokens":-7,"apiCallId":{}},"id":"e1","timestamp":"yesterday","parentId":null}`,
			`{"type":"session.shutdown","data":{"modelMetrics":{"` + esc + `":{"requests":{"count":` + huge + `},"usage":{"inputTokens":"NaN","outputTokens":1e300,"cacheReadTokens":-1}}," ":{"usage":{}}}},"id":"e2","timestamp":"2026-01-01T00:00:00Z","parentId":null}`,
			`{"type":"session.shutdown","data":[1,2],"id":"e3","timestamp":"","parentId":null}`,
			`{"type":"assistant.usage","data":{"model":"m","inputTokens":5,"cacheReadTokens":9,"cost":"free"},"id":"e4","timestamp":"2026-01-01T00:00:00Z","parentId":null}`,
			`{"type":"session.start","data":{"sessionId":"` + strings.Repeat("s", 9000) + `"},"id":"e0","timestamp":"x","parentId":null}`,
		},
		decode.FormatContinue: {
			`{"model":"` + esc + `","provider":{},"promptTokens":"NaN","generatedTokens":` + huge + `}`,
			`{"model":"m","provider":"p","promptTokens":-1,"generatedTokens":2.5,"createdAt":"9999-99-99T99:99:99Z"}`,
			`{"eventName":"chatFeedback","model":"m","provider":"p","promptTokens":1,"generatedTokens":1}`,
			`{"model":"m","provider":"p","promptTokens":1`,
		},
		decode.FormatPi: {
			`{"type":"session","id":"` + esc + `","timestamp":"2026-01-01T00:00:00Z","cwd":"/","parentSession":"/x/1_` + esc + `.jsonl"}`,
			`{"type":"message","timestamp":"2025-01-01T00:00:00Z","message":{"role":"assistant","model":"` + esc + `","usage":{"input":-1,"output":` + huge + `,"cacheRead":"x","totalTokens":[],"cost":{"total":"NaN"}},"stopReason":"error","errorMessage":"status 999 ` + esc + `","timestamp":1e300}}`,
			`{"type":"message","timestamp":"x","message":{"role":"assistant","usage":null}}`,
			`{"type":"message","timestamp":"x","message":"assistant"}`,
		},
		decode.FormatQwen: {
			`{"uuid":"` + esc + `","sessionId":"s","type":"assistant","model":"` + esc + `","usageMetadata":{"promptTokenCount":5,"cachedContentTokenCount":` + huge + `,"candidatesTokenCount":-1,"thoughtsTokenCount":"x"}}`,
			`{"uuid":"u","sessionId":"s","type":"system","subtype":"parent_session","systemPayload":{"parentSessionId":"` + esc + `"}}`,
			`{"uuid":"u2","sessionId":"s","type":"assistant","usageMetadata":[],"forkedFrom":"x"}`,
		},
		decode.FormatCline: { // Roo Code's and Kilo Code's retries
			`{"ts":1,"type":"say","say":"api_req_retry_delayed","text":"999 ` + esc + ` Retrying now..."}`,
			`{"ts":-1,"type":"say","say":"api_req_retry_delayed","text":7}`,
			`{"ts":2,"type":"say","say":"api_req_retry_delayed","text":"` + strings.Repeat("Retrying now", 100000) + `"}`,
		},
		decode.FormatAmp: {
			`{"id":"T-` + esc + `","messages":[{"role":"assistant","messageId":{},"usage":{"model":"` + esc + `","inputTokens":-1,"outputTokens":` + huge + `,"cacheReadInputTokens":"NaN","timestamp":"x"}}]}`,
			`{"id":"T-1","usageLedger":{"events":[{"id":"e","model":"m","tokens":{"input":1e300,"output":-2},"toMessageId":[1]}]},"messages":7}`,
			`{"id":"T-2","messages":[` + strings.Repeat(`{"role":"assistant","usage":{"model":"m","inputTokens":1}},`, 5000) + `{}]}`,
			`{"id":7,"messages":[]}`,
		},
		decode.FormatJSONL: { // the generic reader's input
			deep,
			`{"response":{"model":"` + esc + `","usage":{"prompt_tokens":"NaN","completion_tokens":` + huge + `,"cost":1e300}}}`,
			`{"model":"gpt-4o","usage":{"input_tokens":-3,"output_tokens":0}}`,
			`{"x":[` + strings.Repeat(`{"model":"m","tokens":{"input":1,"output":1}},`, 3000) + `{}]}`,
		},
	}
	for f, lines := range recs {
		dec := decode.NewDecoder(f, nil, decode.Options{Format: f})
		emit := func(ev *ingest.Event) {
			if r := ev.Check(); r != ingest.Accepted {
				t.Errorf("%s: an event that fails its check: %+v", f, ev)
			}
			for _, s := range []string{ev.Model, ev.Provider, ev.ErrorType, ev.JobType} {
				if strings.ContainsAny(s, "\x1b\u202e") {
					t.Errorf("%s: a control character kept: %q", f, s)
				}
			}
			if ev.InputTokens > ingest.MaxTokensPerCall || ev.OutputTokens > ingest.MaxTokensPerCall {
				t.Errorf("%s: implausible tokens %+v", f, ev)
			}
		}
		for _, l := range lines {
			dec.Decode([]byte(l), emit)
		}
		if fl, ok := dec.(decode.Flusher); ok {
			fl.Flush(emit)
		}
	}
}

// TestGenericReaderNeedsAModelAndTokens: the safety net reads a usage
// object beside a model as a call, and nothing else: no model, a usage
// of no count, a model with no usage object, a record some format reads.
func TestGenericReaderNeedsAModelAndTokens(t *testing.T) {
	for _, tc := range []struct {
		line                string
		calls               int
		in, out, read       int64
		cost                float64
		hintHas             string
		model               string
		reasonIfNotAccepted bool
	}{
		{line: `{"event":"agent_step","response":{"model":"gpt-4.1-mini","usage":{"prompt_tokens":812,"completion_tokens":64,"prompt_tokens_details":{"cached_tokens":512}},"cost":0.000241}}`,
			calls: 1, in: 300, out: 64, read: 512, cost: 0.000241, hintHas: "$.response.usage", model: "gpt-4.1-mini"},
		{line: `{"step":3,"llm":{"modelId":"gemini-2.5-pro","usageMetadata":{"promptTokenCount":1000,"cachedContentTokenCount":400,"candidatesTokenCount":50,"thoughtsTokenCount":200}}}`,
			calls: 1, in: 600, out: 250, read: 400, hintHas: "$.llm.usageMetadata", model: "gemini-2.5-pro"},
		{line: `{"result":{"model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":90,"cache_read_input_tokens":20000}}}`,
			calls: 1, in: 3, out: 90, read: 20000, hintHas: "$.result.usage", model: "claude-sonnet-4-5"},
		// A canonical call whose model and usage are nested: filled in.
		{line: `{"ts":"2026-03-01T10:00:00Z","event":"llm_call","job_id":"j1","status":200,"response":{"model":"gpt-4.1-mini","usage":{"prompt_tokens":812,"completion_tokens":64}}}`,
			calls: 1, in: 812, out: 64, hintHas: "$.response.usage", model: "gpt-4.1-mini"},
		{line: `{"event":"config","usage":{"prompt_tokens":10,"completion_tokens":2}}`},             // no model
		{line: `{"response":{"model":"gpt-4o","usage":{"total_requests":4}}}`},                      // no token count
		{line: `{"response":{"model":"gpt-4o","meta":{"prompt_tokens":10}}}`},                       // no usage object
		{line: `{"response":{"model":"gpt-4o","usage":{"prompt_tokens":0,"completion_tokens":0}}}`}, // counts nothing
		{line: `{"hello":"world"}`},
	} {
		dec := decode.NewDecoder(decode.FormatAuto, nil, decode.Options{})
		var evs []ingest.Event
		keep := func(ev *ingest.Event) {
			if ev.Kind == ingest.KindLLMCall {
				evs = append(evs, *ev)
			}
		}
		dec.Decode([]byte(tc.line), keep)
		dec.(decode.Flusher).Flush(keep) // a call without a time is held for the next line's
		if len(evs) != tc.calls {
			t.Errorf("%s: %d calls, want %d", tc.line, len(evs), tc.calls)
			continue
		}
		if tc.calls == 0 {
			continue
		}
		ev := evs[0]
		if ev.InputTokens != tc.in || ev.OutputTokens != tc.out || ev.CacheReadTokens != tc.read || ev.Model != tc.model {
			t.Errorf("%s: %s %d/%d/%d, want %s %d/%d/%d", tc.line, ev.Model, ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, tc.model, tc.in, tc.out, tc.read)
		}
		if tc.cost > 0 && (!ev.HasCost || ev.CostUSD != tc.cost) {
			t.Errorf("%s: the producer's cost %v (%v), want %v", tc.line, ev.CostUSD, ev.HasCost, tc.cost)
		}
		if h, _ := dec.(decode.Hinter); h == nil || !strings.Contains(h.Hint(1), tc.hintHas) || !strings.Contains(h.Hint(1), "generic") {
			t.Errorf("%s: the hint does not say generic at %s", tc.line, tc.hintHas)
		}
	}
}

// TestAgentFieldCostsTheFieldNotTheRecord: a field of the wrong type in an
// agent's record (a number for a model, an object for a provider) costs
// that field; the call and its tokens are kept (encoding/json gave up on
// the whole record at the first such field).
func TestAgentFieldCostsTheFieldNotTheRecord(t *testing.T) {
	for f, line := range map[decode.Format]string{
		decode.FormatOpenCode: `{"id":"msg_1","sessionID":"ses_1","role":"assistant","modelID":{"x":1},"providerID":7,"title":9,"tokens":{"input":10,"output":20,"reasoning":0,"cache":{"read":0,"write":0}},"time":"soon"}`,
		decode.FormatCopilot:  `{"type":"assistant.message","data":{"messageId":5,"model":"gpt-5","outputTokens":20,"apiCallId":[1]},"id":"e1","timestamp":7,"parentId":null}`,
		decode.FormatContinue: `{"model":"gpt-4o","provider":{},"promptTokens":10,"generatedTokens":20,"createdAt":17}`,
		decode.FormatPi:       `{"type":"message","id":5,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","provider":7,"model":"gpt-5","usage":{"input":10,"output":20}}}`,
		decode.FormatQwen:     `{"uuid":"u1","sessionId":9,"type":"assistant","model":"qwen3-coder-plus","usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":20},"forkedFrom":"x"}`,
		decode.FormatAmp:      `{"id":"T-1","messages":[{"role":"assistant","messageId":1,"usage":{"model":"claude-haiku-4-5","inputTokens":10,"outputTokens":20}}],"usageLedger":"none"}`,
	} {
		dec := decode.NewDecoder(f, nil, decode.Options{Format: f})
		var got []ingest.Event
		r := dec.Decode([]byte(line), func(ev *ingest.Event) { got = append(got, *ev) })
		if len(got) != 1 || got[0].OutputTokens != 20 {
			t.Errorf("%s: %v, %d events %+v; want the call kept with its 20 output tokens", f, r, len(got), got)
		}
	}
}
