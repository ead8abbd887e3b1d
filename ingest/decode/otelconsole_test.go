package decode_test

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/otlp"
)

// consoleSpan prints a span as the Python SDK's ConsoleSpanExporter does
// (span.to_json(), written here from its documented shape); end "" is the
// print of a span not yet ended.
func consoleSpan(name, id, parent, end, attrs string) string {
	p, e := "null", "null"
	if parent != "" {
		p = `"0x` + parent + `"`
	}
	if end != "" {
		e = `"` + end + `"`
	}
	return `{
    "name": "` + name + `",
    "context": {"trace_id": "0xe0c0afbab54efdfe2be82c2b68c1b96e", "span_id": "0x` + id + `", "trace_state": "[]"},
    "kind": "SpanKind.INTERNAL",
    "parent_id": ` + p + `,
    "start_time": "2026-03-01T20:47:18.711501Z",
    "end_time": ` + e + `,
    "status": {"status_code": "UNSET"},
    "attributes": {` + attrs + `},
    "events": [], "links": [],
    "resource": {"attributes": {"service.name": "agent_framework"}, "schema_url": ""}
}`
}

// TestOTelConsoleSpansOnceWithoutTheAgentSum: issue 35 — the console
// exporter's dump read as nothing (its status an object); each span is
// printed when it starts and again when it ends, and the agent's
// invoke_agent span beside its chat spans repeats their summed usage.
func TestOTelConsoleSpansOnceWithoutTheAgentSum(t *testing.T) {
	chat1 := `"gen_ai.operation.name": "chat", "gen_ai.request.model": "openai/gpt-oss-20b:fireworks-ai", "gen_ai.response.model": "gpt-oss-20b", "gen_ai.usage.input_tokens": 145, "gen_ai.usage.output_tokens": 40`
	chat2 := `"gen_ai.operation.name": "chat", "gen_ai.request.model": "openai/gpt-oss-20b:fireworks-ai", "gen_ai.response.model": "gpt-oss-20b", "gen_ai.usage.input_tokens": 201, "gen_ai.usage.output_tokens": 60`
	agent := `"gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "openai/gpt-oss-20b:fireworks-ai", "gen_ai.usage.input_tokens": 346, "gen_ai.usage.output_tokens": 100`
	end := "2026-03-01T20:47:19.911501Z"
	recs := []string{
		consoleSpan("chat gpt-oss-20b", "00000000000000c1", "00000000000000e1", "", `"gen_ai.operation.name": "chat"`),
		consoleSpan("chat gpt-oss-20b", "00000000000000c1", "00000000000000e1", end, chat1),
		consoleSpan("chat gpt-oss-20b", "00000000000000c2", "00000000000000e1", "", `"gen_ai.operation.name": "chat"`),
		consoleSpan("chat gpt-oss-20b", "00000000000000c2", "00000000000000e1", end, chat2),
		consoleSpan("invoke_agent Weather agent", "00000000000000a1", "00000000000000e1", end, agent),
		consoleSpan("executor.process Weather agent", "00000000000000e1", "00000000000000f1", end, `"executor.id": "Weather agent"`),
		consoleSpan("workflow.run", "00000000000000f1", "", end, `"workflow.id": "w1"`),
	}
	d := decode.NewDetector()
	for _, r := range recs {
		d.Add([]byte(strings.ReplaceAll(r, "\n", "")))
	}
	if f := d.Result().Format; f != decode.FormatOTelConsole {
		t.Fatalf("detected %s", f)
	}
	dec := decode.NewDecoder(decode.FormatOTelConsole, nil, decode.Options{OTLP: otlp.NewFileDecoder})
	var in, out int64
	calls := 0
	emit := func(ev *ingest.Event) {
		if ev.Kind == ingest.KindLLMCall {
			calls++
			in, out = in+ev.InputTokens, out+ev.OutputTokens
		}
	}
	for _, r := range recs {
		dec.Decode([]byte(r), emit)
	}
	dec.(decode.Flusher).Flush(emit)
	if calls != 2 || in != 346 || out != 100 {
		t.Errorf("%d calls, %d in / %d out; want the 2 chat spans, 346 / 100", calls, in, out)
	}
}
