package decode_test

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/otlp"
)

// jaegerTrace is a trace in Jaeger UI's Download JSON shape (written
// here): OpenLLMetry's LangChain spans — an invoke_agent workflow, two
// execute_task nodes with no usage, and the chat span whose
// gen_ai.*.model say "unknown" while traceloop's association properties
// name the LiteLLM model; one failed chat span with an error tag.
const jaegerTrace = `{"data":[{"traceID":"5edab84350c3da3b38a026540a681652","spans":[
{"traceID":"5edab84350c3da3b38a026540a681652","spanID":"a1","operationName":"LangGraph.workflow","references":[],"startTime":1782229343000000,"duration":9000000,"processID":"p1",
 "tags":[{"key":"gen_ai.operation.name","type":"string","value":"invoke_agent"},{"key":"session.id","type":"string","value":"s1"}]},
{"traceID":"5edab84350c3da3b38a026540a681652","spanID":"b1","operationName":"execute_task call_model","references":[{"refType":"CHILD_OF","traceID":"5edab84350c3da3b38a026540a681652","spanID":"a1"}],"startTime":1782229343100000,"duration":8000000,"processID":"p1",
 "tags":[{"key":"gen_ai.operation.name","type":"string","value":"execute_task"}]},
{"traceID":"5edab84350c3da3b38a026540a681652","spanID":"b2","operationName":"execute_task should_continue","references":[{"refType":"CHILD_OF","traceID":"5edab84350c3da3b38a026540a681652","spanID":"a1"}],"startTime":1782229351100000,"duration":1000,"processID":"p1",
 "tags":[{"key":"gen_ai.operation.name","type":"string","value":"execute_task"}]},
{"traceID":"5edab84350c3da3b38a026540a681652","spanID":"c1","operationName":"ChatLiteLLM.chat","references":[{"refType":"CHILD_OF","traceID":"5edab84350c3da3b38a026540a681652","spanID":"b1"}],"startTime":1782229343915009,"duration":7200834,"processID":"p1",
 "tags":[{"key":"gen_ai.operation.name","type":"string","value":"chat"},{"key":"gen_ai.request.model","type":"string","value":"unknown"},{"key":"gen_ai.response.model","type":"string","value":"unknown"},
  {"key":"traceloop.association.properties.ls_model_name","type":"string","value":"anthropic/claude-opus-4-5-20251101"},
  {"key":"gen_ai.usage.input_tokens","type":"int64","value":806},{"key":"gen_ai.usage.output_tokens","type":"string","value":"84"},{"key":"span.kind","type":"string","value":"client"}]},
{"traceID":"5edab84350c3da3b38a026540a681652","spanID":"c2","operationName":"ChatLiteLLM.chat","references":[{"refType":"CHILD_OF","traceID":"5edab84350c3da3b38a026540a681652","spanID":"b1"}],"startTime":1782229352000000,"duration":1000,"processID":"p1",
 "tags":[{"key":"gen_ai.operation.name","type":"string","value":"chat"},{"key":"gen_ai.request.model","type":"string","value":"gpt-4o"},{"key":"error","type":"bool","value":true}]}
],"processes":{"p1":{"serviceName":"supervisor","tags":[]}}}],"total":0,"limit":0,"offset":0,"errors":null}`

// TestJaegerExportIsReadAsItsSpans: issue 35 — a Jaeger UI export read as
// nothing; read through the OTLP mapping, each node of the graph was an
// unpriced call of model "(unknown)" and the chat calls were "unknown".
func TestJaegerExportIsReadAsItsSpans(t *testing.T) {
	d := decode.NewDetector()
	d.Add([]byte(jaegerTrace))
	if f := d.Result().Format; f != decode.FormatJaeger {
		t.Fatalf("detected %s", f)
	}
	dec := decode.NewDecoder(decode.FormatJaeger, nil, decode.Options{OTLP: otlp.NewFileDecoder})
	var calls []ingest.Event
	dec.Decode([]byte(jaegerTrace), func(ev *ingest.Event) {
		if ev.Kind == ingest.KindLLMCall {
			calls = append(calls, *ev)
		}
	})
	if len(calls) != 2 {
		t.Fatalf("%d calls, want the 2 chat spans: %+v", len(calls), calls)
	}
	c := calls[0]
	if c.Model != "anthropic/claude-opus-4-5-20251101" || c.InputTokens != 806 || c.OutputTokens != 84 || c.TS != 1782229343915009000 || c.LatencyMs != 7200 {
		t.Errorf("chat span: %+v", c)
	}
	if calls[1].Model != "gpt-4o" || calls[1].Status == 200 {
		t.Errorf("failed chat span: %+v", calls[1])
	}
}

// TestNewGenAIUsageNames: issue 35 — the GenAI conventions renamed
// gen_ai.usage.cache_creation.input_tokens to
// gen_ai.usage.cache_write.input_tokens and added gen_ai.usage.cost.amount
// with .currency; neither was read. A cost in another currency is not
// taken for dollars.
func TestNewGenAIUsageNames(t *testing.T) {
	span := func(id, cur string) string {
		return `{"traceID":"5edab84350c3da3b38a026540a681653","spanID":"` + id + `","operationName":"chat","references":[],"startTime":1782229343000000,"duration":1000,"processID":"p1","tags":[
 {"key":"gen_ai.operation.name","type":"string","value":"chat"},{"key":"gen_ai.request.model","type":"string","value":"claude-sonnet-4-5"},
 {"key":"gen_ai.usage.input_tokens","type":"int64","value":1000},{"key":"gen_ai.usage.output_tokens","type":"int64","value":10},
 {"key":"gen_ai.usage.cache_write.input_tokens","type":"int64","value":600},{"key":"gen_ai.usage.cache_read.input_tokens","type":"int64","value":300},
 {"key":"gen_ai.usage.cost.amount","type":"float64","value":0.0042},{"key":"gen_ai.usage.cost.currency","type":"string","value":"` + cur + `"}]}`
	}
	doc := `{"data":[{"traceID":"5edab84350c3da3b38a026540a681653","spans":[` + span("d1", "USD") + `,` + span("d2", "EUR") + `],"processes":{"p1":{"serviceName":"app"}}}],"total":0,"limit":0,"offset":0,"errors":null}`
	var calls []ingest.Event
	decode.NewDecoder(decode.FormatJaeger, nil, decode.Options{OTLP: otlp.NewFileDecoder}).Decode([]byte(doc), func(ev *ingest.Event) {
		if ev.Kind == ingest.KindLLMCall {
			calls = append(calls, *ev)
		}
	})
	if len(calls) != 2 {
		t.Fatalf("%d calls", len(calls))
	}
	for i, c := range calls {
		if c.CacheCreateTokens != 600 || c.CacheReadTokens != 300 || c.InputTokens != 100 {
			t.Errorf("call %d: write/read/fresh %d/%d/%d, want 600/300/100", i, c.CacheCreateTokens, c.CacheReadTokens, c.InputTokens)
		}
	}
	if !calls[0].HasCost || calls[0].CostUSD != 0.0042 || calls[1].HasCost {
		t.Errorf("cost: USD %v %v, EUR %v", calls[0].HasCost, calls[0].CostUSD, calls[1].HasCost)
	}
}

// TestSpanServiceTierAndVendorModel: issue 35 — the service tier a span
// reports of its response (openai.response.service_tier, formerly
// gen_ai.openai.response.service_tier) is the bill's, the request's
// (openai.request.service_tier) is not; and a span whose gen_ai.*.model
// says "unknown" takes the model a vendor's attribute names
// (OpenInference's llm.model_name, the AI SDK's ai.model.id).
func TestSpanServiceTierAndVendorModel(t *testing.T) {
	span := func(id, tags string) string {
		return `{"traceID":"5edab84350c3da3b38a026540a681654","spanID":"` + id + `","operationName":"chat","references":[],"startTime":1782229343000000,"duration":1000,"processID":"p1","tags":[
 {"key":"gen_ai.operation.name","type":"string","value":"chat"},{"key":"gen_ai.usage.input_tokens","type":"int64","value":1000},{"key":"gen_ai.usage.output_tokens","type":"int64","value":10},` + tags + `]}`
	}
	doc := `{"data":[{"traceID":"5edab84350c3da3b38a026540a681654","spans":[` +
		span("e1", `{"key":"gen_ai.request.model","type":"string","value":"gpt-5.4"},{"key":"openai.request.service_tier","type":"string","value":"flex"},{"key":"openai.response.service_tier","type":"string","value":"default"}`) + `,` +
		span("e2", `{"key":"gen_ai.request.model","type":"string","value":"gpt-5.4"},{"key":"openai.request.service_tier","type":"string","value":"auto"},{"key":"openai.response.service_tier","type":"string","value":"priority"}`) + `,` +
		span("e3", `{"key":"gen_ai.request.model","type":"string","value":"gpt-5.4"},{"key":"gen_ai.openai.response.service_tier","type":"string","value":"flex"}`) + `,` +
		span("e4", `{"key":"gen_ai.request.model","type":"string","value":"unknown"},{"key":"gen_ai.response.model","type":"string","value":"unknown"},{"key":"llm.model_name","type":"string","value":"gpt-4o-mini"}`) + `,` +
		span("e5", `{"key":"gen_ai.request.model","type":"string","value":"unknown"},{"key":"ai.model.id","type":"string","value":"claude-sonnet-4-5"}`) +
		`],"processes":{"p1":{"serviceName":"app"}}}],"total":0,"limit":0,"offset":0,"errors":null}`
	var calls []ingest.Event
	decode.NewDecoder(decode.FormatJaeger, nil, decode.Options{OTLP: otlp.NewFileDecoder}).Decode([]byte(doc), func(ev *ingest.Event) {
		if ev.Kind == ingest.KindLLMCall {
			calls = append(calls, *ev)
		}
	})
	if len(calls) != 5 {
		t.Fatalf("%d calls", len(calls))
	}
	for i, want := range []ingest.Bill{0, ingest.BillPriority, ingest.BillFlex} {
		if calls[i].Bill != want {
			t.Errorf("span e%d: bill %b, want %b (the response's tier)", i+1, calls[i].Bill, want)
		}
	}
	if calls[3].Model != "gpt-4o-mini" || calls[4].Model != "claude-sonnet-4-5" {
		t.Errorf("models %q %q, want the vendors' attributes' names", calls[3].Model, calls[4].Model)
	}
}
