package decode

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Attacks on the text decoders: every input byte is untrusted.

// hostileTextLines are megabyte lines built to pass each text format's
// literal prefilter and keep its regexps busy, plus binary and escapes.
func hostileTextLines() [][]byte {
	var out [][]byte
	for _, unit := range []string{"[log_a", "[log_a] post https://x/ ", "HTTP Request: POST https://", " seconds as it ", "API Error (",
		"Retrying request to ", "error_code=1", "litellm.x(model=a) ", "LiteLLM Router", "2026-01-01 00:00:00 ", "[32m", "\x1b[", "[", "00:00:0"} {
		out = append(out, []byte(strings.Repeat(unit, (MaxLineBytes-16)/len(unit))))
	}
	return append(out,
		[]byte("HTTP Request: POST https://api.openai.com/v1/chat/completions \"HTTP/1.1 429 \x00\x01\xff\xfe"),
		[]byte("\x1b[31m\x1b]0;owned\x07\x1b[2J litellm.completion(model=\x1b]8;;http://x\x07gpt-4o\x1b[0m) 200 OK"),
		[]byte("Retrying a.b in 1e308 seconds as it raised RateLimitError: Please try again in 99999999999999999999s"),
		[]byte("API Error (529 {}) · Retrying in 99999999999 seconds… (attempt 99999999999/10)"),
		[]byte("[log_x, retryOf: log_x] post https://api.anthropic.com/v1/messages failed with status 999 in 99999999999999ms"),
		[]byte("\xff\xfe\x1b["),
	)
}

// TestHostileTextLines: the text decoders finish on every hostile line,
// emit only plausible events, and nothing from the line reaches a string
// field raw (escape bytes, invalid UTF-8).
func TestHostileTextLines(t *testing.T) {
	p, err := CompilePattern(PatternSpec{Name: "counted", Regex: strings.Repeat(`[a-z\[_]{99}`, 20) + `(?P<attempt>\d)`})
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {Patterns: []*LinePattern{p}}} {
		d := NewDecoder(FormatLiteLLMText, nil, opts)
		for _, l := range hostileTextLines() {
			d.Decode(l, func(e *ingest.Event) {
				if r := e.Check(); r != ingest.Accepted {
					t.Errorf("an event that fails Check was emitted: %v", r)
				}
				for _, s := range []string{e.Model, e.Provider, e.ErrorType, e.IdempotencyKey, e.JobID} {
					if strings.ContainsAny(s, "\x1b\x07\x00") || !utf8ValidString(s) || len(s) > 4*maxFieldBytes {
						t.Errorf("raw bytes reached a field: %q", s)
					}
				}
				if e.Attempt < 0 || e.Status > 999 || e.LatencyMs < 0 || e.RetryAfterMs < -1 {
					t.Errorf("implausible event %+v", e)
				}
			})
		}
		d.(Flusher).Flush(func(*ingest.Event) {})
		det := NewDetector()
		det.Patterns = opts.Patterns
		for _, l := range hostileTextLines() {
			det.Add(l) // detection matches as much of a line as the decoder does
		}
	}
}

func utf8ValidString(s string) bool { return strings.ToValidUTF8(s, "") == s }

// TestTextDecoderStateIsBounded: a million distinct endpoints, chains and
// functions do not grow the decoder without bound.
func TestTextDecoderStateIsBounded(t *testing.T) {
	d := NewDecoder(FormatSDKText, nil, Options{}).(*checked).inner.(*jsonlDecoder)
	var b []byte
	for i := range 300_000 {
		b = append(b[:0], "HTTP Request: POST https://api.openai.com/v1/x"...)
		b = append(b, []byte(time.Duration(i).String())...)
		b = append(b, " \"HTTP/1.1 429 \""...)
		d.Decode(b, func(*ingest.Event) {})
	}
	if n := len(d.text.py); n > maxPyEndpoints {
		t.Errorf("%d endpoints kept", n)
	}
}

// TestClockLinesRollOverMidnight: a time of day alone takes the date of
// the line before, and the next day once the clock goes back.
func TestClockLinesRollOverMidnight(t *testing.T) {
	d := NewDecoder(FormatLiteLLMText, nil, Options{})
	var got []int64
	for _, l := range []string{
		`2025-05-04 23:59:58,016 - LiteLLM Router - INFO - litellm.acompletion(model=gpt-4o) 200 OK`,
		`00:00:03 - LiteLLM Router:INFO: router.py:1103 - litellm.acompletion(model=gpt-4o) 200 OK`,
		`00:00:09 - LiteLLM Router:INFO: router.py:1103 - litellm.acompletion(model=gpt-4o) 200 OK`,
	} {
		d.Decode([]byte(l), func(e *ingest.Event) { got = append(got, e.TS) })
	}
	want := []string{"2025-05-04T23:59:58.016Z", "2025-05-05T00:00:03Z", "2025-05-05T00:00:09Z"}
	for i, ts := range got {
		if formatTS(ts) != want[i] {
			t.Errorf("line %d: %s, want %s", i, formatTS(ts), want[i])
		}
	}
}

// TestHeldResponseIsNeverLost: an httpx line held for the router line
// after it comes out before a JSON line, with an unrelated line, or at
// the end.
func TestHeldResponseIsNeverLost(t *testing.T) {
	httpx := `INFO:httpx:HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"`
	for name, next := range map[string]string{
		"json":  `{"ts":"2026-03-10T01:00:05Z","event":"job_succeeded","job_id":"j1"}`,
		"text":  "the app's own line",
		"blank": "",
		"end":   "-",
	} {
		d := NewDecoder(FormatLiteLLMText, nil, Options{})
		var kinds []ingest.Kind
		emit := func(e *ingest.Event) { kinds = append(kinds, e.Kind) }
		d.Decode([]byte(httpx), emit)
		if len(kinds) != 0 {
			t.Errorf("%s: the response was not held", name)
		}
		if next != "-" {
			d.Decode([]byte(next), emit)
		}
		d.(Flusher).Flush(emit)
		if len(kinds) == 0 || kinds[0] != ingest.KindLLMCall {
			t.Errorf("%s: events %v, want the held call first", name, kinds)
		}
	}
}

// TestClaudeCodeLaterRetryLine: Claude Code 2.1's console shape, as its
// issues quote it ("✻ 529 Overloaded · Retrying in 21s · attempt 7/10").
func TestClaudeCodeLaterRetryLine(t *testing.T) {
	d := NewDecoder(FormatRetryText, nil, Options{})
	var got []ingest.Event
	for _, l := range []string{
		"✻ 529 Overloaded · Retrying in 4s · attempt 6/10  ⎿  If it persists, check https://status.claude.com.",
		"[✻ 529 Overloaded · Retrying in 0s · attempt 7/10]",
		"✻ Connection error · Retrying in 2s · attempt 1/10",
	} {
		d.Decode([]byte(l), func(e *ingest.Event) { got = append(got, *e) })
	}
	if len(got) != 3 || got[0].Status != 529 || got[0].Attempt != 6 || got[1].Attempt != 7 || got[2].Status != 0 || got[2].Attempt != 1 ||
		got[0].IdempotencyKey != got[1].IdempotencyKey || got[1].IdempotencyKey == got[2].IdempotencyKey || got[0].ErrorType != "overloaded_error" {
		t.Errorf("%+v", got)
	}
}

// TestLiteLLMTwoHandlersTwoCalls: with two handlers every record is
// printed twice; two identical calls in a row are still two calls.
func TestLiteLLMTwoHandlersTwoCalls(t *testing.T) {
	d := NewDecoder(FormatLiteLLMText, nil, Options{})
	n := 0
	for _, l := range []string{
		`2025-05-04 00:07:31,998 - LiteLLM Router - INFO - litellm.acompletion(model=gpt-4o) 200 OK`,
		`00:07:32 - LiteLLM Router:INFO: router.py:1103 - litellm.acompletion(model=gpt-4o) 200 OK`,
		`2025-05-04 00:07:32,416 - LiteLLM Router - INFO - litellm.acompletion(model=gpt-4o) 200 OK`,
		`00:07:32 - LiteLLM Router:INFO: router.py:1103 - litellm.acompletion(model=gpt-4o) 200 OK`,
	} {
		d.Decode([]byte(l), func(*ingest.Event) { n++ })
	}
	if n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
}

// TestNodeLinesOnEveryEndpoint: the Node SDKs' lines (openai-node,
// @anthropic-ai/bedrock-sdk, vertex-sdk) take the model from the path.
func TestNodeLinesOnEveryEndpoint(t *testing.T) {
	d := NewDecoder(FormatSDKText, nil, Options{})
	var got []ingest.Event
	for _, l := range []string{
		`[log_a1, request-id: "r1"] post https://acme.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21 failed with status 429 in 12ms - retrying, 1 attempts remaining`,
		`[log_a2, retryOf: log_a1, request-id: "r2"] post https://acme.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21 succeeded with status 200 in 840ms`,
		`[log_b1] post https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke succeeded with status 200 in 2100ms`,
		`[log_c1] post https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict failed with status 529 in 300ms - retrying, 2 attempts remaining`,
		`[log_c2] connection timed out - retrying, 1 attempts remaining`,
	} {
		d.Decode([]byte(l), func(e *ingest.Event) { got = append(got, *e) })
	}
	want := []struct {
		model, provider string
		status, attempt int16
	}{{"gpt-4o-prod", "azure", 429, 1}, {"gpt-4o-prod", "azure", 200, 2}, {"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock", 200, 1},
		{"claude-sonnet-4-5@20250929", "vertex_ai", 529, 1}, {"", "", 0, 1}}
	if len(got) != len(want) {
		t.Fatalf("%d events", len(got))
	}
	for i, w := range want {
		if e := got[i]; e.Model != w.model || e.Provider != w.provider || e.Status != w.status || e.Attempt != w.attempt {
			t.Errorf("line %d: %q %q %d@%d, want %+v", i, e.Model, e.Provider, e.Status, e.Attempt, w)
		}
	}
	if got[4].ErrorType != "timeout" || !got[4].TSCarried || got[4].TS != 0 {
		t.Errorf("connection line %+v", got[4])
	}
}

// TestAttemptNumbersNeverWrap: endless fallbacks, retries and pattern
// attempts keep attempt numbers positive.
func TestAttemptNumbersNeverWrap(t *testing.T) {
	p := mustPattern(t, PatternSpec{Name: "n", Regex: `attempt (?P<attempt>\d+)`})
	d := NewDecoder(FormatLiteLLMText, nil, Options{Patterns: []*LinePattern{p}})
	bad := 0
	emit := func(e *ingest.Event) {
		if e.Attempt <= 0 {
			bad++
		}
	}
	for i := range 40_000 {
		d.Decode([]byte("09:12:50 - LiteLLM Router:INFO: fallback_event_handlers.py:128 - Falling back to model_group = x"), emit)
		d.Decode([]byte("09:12:50 - LiteLLM Router:INFO: router.py:911 - litellm.completion(model=openai/gpt-4o)[31m Exception litellm.RateLimitError: x"), emit)
		d.Decode([]byte("Retrying a.b in 1.0 seconds as it raised RateLimitError: x"), emit)
		d.Decode(fmt.Appendf(nil, "attempt %d", i+1), emit)
		d.Decode(fmt.Appendf(nil, "API Error (529 {}) · Retrying in 1 seconds… (attempt %d/99999)", i+1), emit)
	}
	if bad > 0 {
		t.Errorf("%d events with a wrapped attempt number", bad)
	}
}
