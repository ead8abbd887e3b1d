package decode_test

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/otlp"
)

// TestNewFormatsTakeHostileRecords: issue 35's decoders on records of
// their shape with every field wrong: no panic, no implausible event (each
// passes Event.Check), and the skip reason of a record that gives none.
func TestNewFormatsTakeHostileRecords(t *testing.T) {
	huge := strings.Repeat("9", 400)
	recs := map[decode.Format][]string{
		decode.FormatCline: {
			`{"ts":-5,"type":"say","say":"api_req_started","text":"{\"tokensIn\":-1,\"tokensOut\":` + huge + `,\"cost\":\"NaN\",\"cancelReason\":{}}"}`,
			`{"ts":"x","type":"say","say":"api_req_started","text":7}`,
			`{"ts":1,"type":"say","say":"api_req_retried","modelInfo":"nope"}`,
			`[1,2]`, `{"ts":1e400}`,
		},
		decode.FormatLangfuse: {
			`{"trace":{"id":7},"observations":[]}`,
			`{"trace":{"id":"t"},"observations":[{"id":"a","type":"GENERATION","parentObservationId":"a","usageDetails":{"input":-4,"output":1e300,"total":"x"}}]}`,
			`{"trace":null,"observations":[{"type":"GENERATION","usageDetails":{"input":` + huge + `}}]}`,
		},
		decode.FormatJaeger: {
			`{"data":[{"traceID":"zz","spans":[{"spanID":"` + huge + `","startTime":-1,"duration":"x","tags":[{"key":"gen_ai.usage.input_tokens","type":"int64","value":-9}]}]}],"total":0,"limit":0,"offset":0}`,
			`{"data":"x","total":0,"limit":0,"offset":0}`,
		},
		decode.FormatOTelConsole: {
			`{"name":"chat","context":{"trace_id":"0xq","span_id":7},"parent_id":null,"start_time":"bad","end_time":"2026-01-01T00:00:00Z","attributes":{"gen_ai.operation.name":"chat","gen_ai.usage.input_tokens":1e300}}`,
			`{"name":"chat","context":null,"parent_id":null,"start_time":null,"end_time":"x","attributes":[]}`,
		},
		decode.FormatBedrockBatch: {
			`{"recordId":"r","modelOutput":{"usage":{"input_tokens":-1,"output_tokens":2}}}`,
			`{"recordId":"r","modelInput":{},"error":{"errorCode":"x"}}`,
			`{"recordId":"r","modelOutput":{"inputTextTokenCount":-7,"results":[{"tokenCount":-1}]}}`,
		},
		decode.FormatPortkey: {
			`{"status":"x","headers":{"x-portkey-retry-attempt-count":"-99999999999"},"body":[1],"responseTime":-1}`,
			`{"status":429,"headers":{"x-portkey-trace-id":"` + huge + `","date":"never"},"body":{"usage":{"prompt_tokens":-5}},"responseTime":1e300}`,
		},
		decode.FormatAider: {
			`> Tokens: 999999999M sent, -1 received.`, `# aider chat started at tomorrow`, `> litellm.:`, "> Tokens: 1.2.3k sent, 4 received.",
		},
		decode.FormatAIRetry: {
			`[Error [AI_RetryError]: Failed after 99999999999999999999 attempts.`, `    statusCode: 999,`, `    model: '` + strings.Repeat("m", 300) + `'`, `}`,
		},
	}
	for f, lines := range recs {
		dec := decode.NewDecoder(f, nil, decode.Options{Format: f, OTLP: otlp.NewFileDecoder})
		n := 0
		emit := func(ev *ingest.Event) {
			n++
			if r := ev.Check(); r != ingest.Accepted {
				t.Errorf("%s: an event that fails its check: %+v", f, ev)
			}
		}
		for _, l := range lines {
			dec.Decode([]byte(l), emit)
		}
		if fl, ok := dec.(decode.Flusher); ok {
			fl.Flush(emit)
		}
		if f == decode.FormatAIRetry && n > 1000 {
			t.Errorf("%s: %d attempts from one dump, want at most 1000", f, n)
		}
	}
}
