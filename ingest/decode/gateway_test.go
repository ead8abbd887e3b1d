package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestGatewayRetryHeaders: a LiteLLM proxy's retry headers (BerriAI/litellm
// litellm/router_utils/add_retry_fallback_headers.py: attempted and max
// retries, numbers or, as an HTTP client logs them, strings) number the
// Router's attempts, and its configured retries are observed once per
// change, not per response; a value that is no count does not read.
func TestGatewayRetryHeaders(t *testing.T) {
	line := func(ts, attempted, max string) string {
		return `{"ts":"` + ts + `","job_id":"j1","provider":"anthropic","model":"claude-sonnet-4-5","status":200,"input_tokens":10,"output_tokens":5,"headers":{"x-litellm-attempted-retries":` + attempted + `,"x-litellm-max-retries":` + max + `}}`
	}
	evs, reasons := decodeAll(t,
		line("2026-07-02T01:00:00Z", `"2"`, `"3"`),
		line("2026-07-02T01:00:01Z", `0`, `3`),
		line("2026-07-02T01:00:02Z", `"1"`, `"5"`),
		`{"ts":"2026-07-02T01:00:03Z","job_id":"j2","model":"gpt-4o-mini","status":200,"headers":{"x-portkey-retry-attempt-count":"1","x-stainless-retry-count":"0"}}`,
		`{"ts":"2026-07-02T01:00:04Z","job_id":"j3","model":"gpt-4o-mini","status":200,"attempt":2,"headers":{"x-litellm-attempted-retries":"4"}}`,
		line("2026-07-02T01:00:05Z", `"0"`, `"NaN"`),
		line("2026-07-02T01:00:06Z", `"0"`, `"-3"`),
	)
	var calls []ingest.Event
	var facts []string
	for _, e := range evs {
		switch e.Kind {
		case ingest.KindLLMCall:
			calls = append(calls, e)
		case ingest.KindAssumption:
			from, k, v, _ := e.AssumptionParts()
			facts = append(facts, k+"="+v+" "+from)
		}
	}
	want := []struct {
		attempt int16
		by      ingest.AttemptBy
	}{{3, ingest.AttemptByLiteLLMRouter}, {1, ingest.AttemptByLiteLLMRouter}, {2, ingest.AttemptByLiteLLMRouter}, {0, 0}, {2, ingest.AttemptByLine}, {1, ingest.AttemptByLiteLLMRouter}}
	if len(calls) != len(want) {
		t.Fatalf("%d calls, want %d: %v", len(calls), len(want), reasons)
	}
	for i, w := range want {
		if i == 3 {
			// The first header read numbers it: Portkey's or the SDK's.
			if c := calls[i]; !(c.Attempt == 2 && c.AttemptBy == ingest.AttemptByPortkey || c.Attempt == 1 && c.AttemptBy == ingest.AttemptByLine) {
				t.Errorf("call %d: attempt %d by %d", i, c.Attempt, c.AttemptBy)
			}
			continue
		}
		if calls[i].Attempt != w.attempt || calls[i].AttemptBy != w.by {
			t.Errorf("call %d: attempt %d by %d, want %d by %d", i, calls[i].Attempt, calls[i].AttemptBy, w.attempt, w.by)
		}
	}
	if len(facts) != 2 || facts[0] != "litellm-router.numRetries=3 observed: x-litellm-max-retries" || facts[1] != "litellm-router.numRetries=5 observed: x-litellm-max-retries" {
		t.Errorf("facts: %q", facts)
	}
	// "NaN" says no count: that header is dropped and the call kept (R7-5);
	// -3 is a count no router sends, which marks the line.
	if reasons[5] != ingest.Accepted || reasons[6] != ingest.SkipWrongType {
		t.Errorf("NaN and -3 as a count: %v %v", reasons[5], reasons[6])
	}
}
