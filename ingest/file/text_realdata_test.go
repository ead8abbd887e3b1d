//go:build realdata

package file

import (
	"slices"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// The text logs real stacks write, read from ../shared/realdata (origins
// and truths in its SOURCES.md: round2 §5, round1's sdk-text files).
const realdata = "../../../shared/realdata/"

// The regression: a text file whose first line starts with "[" was taken
// for a broken JSON array and read as nothing.
func TestBracketedPythonLoggingIsLines(t *testing.T) {
	r := readText(t, realdata+"round1/sdk-text-openai-python-langbot-606.log", decode.Options{})
	if r.it.Detected.Document || r.it.Detected.Format != decode.FormatSDKText {
		t.Errorf("detected %+v, want sdk-text read line by line", r.it.Detected)
	}
	// Truth: operation 1 = 429, retry, 429, retry, 429 (max_retries=2);
	// operation 2, 45 minutes later, one 429.
	wantOps(t, r, "429@1 429@2 429@3", "429@1")
	if r.events[0].TS == 0 || r.it.Stats.NoTimestamp != 0 {
		t.Errorf("the bracketed times are the lines' own: first TS %d, no_timestamp %d", r.events[0].TS, r.it.Stats.NoTimestamp)
	}
	for _, e := range r.events {
		if e.Provider != "openai" {
			t.Errorf("provider %q, want openai", e.Provider)
		}
	}
}

func TestPlainPythonLoggingLines(t *testing.T) {
	// Truth: a retry, then its answer: the first attempt got no response
	// line (a connection error httpx does not log), the second a 429.
	r := readText(t, realdata+"round1/sdk-text-openai-python-plush-158.log", decode.Options{})
	wantOps(t, r, "0@1 429@2")
	// No line has a time: each is counted, none skipped for it.
	if r.it.Stats.NoTimestamp != 2 || r.it.Stats.Skipped[ingest.SkipOutOfRange] != 0 {
		t.Errorf("no_timestamp %d, out_of_range %d; want 2 and 0", r.it.Stats.NoTimestamp, r.it.Stats.Skipped[ingest.SkipOutOfRange])
	}
}

func TestBedrockRetriesAreOneRequest(t *testing.T) {
	// Truth: ONE request, 3 attempts all 429, 2 SDK retries, the model in
	// the URL path, the retry line naming /v1/messages.
	r := readText(t, realdata+"round2/text/sdk-text-anthropic-python-bedrock-429.log", decode.Options{})
	wantOps(t, r, "429@1 429@2 429@3")
	for _, m := range r.models() {
		if m != "us.anthropic.claude-haiku-4-5-20251001-v1:0" {
			t.Errorf("model %q, want the one in the path", m)
		}
	}
	if r.events[0].Provider != "bedrock" {
		t.Errorf("provider %q", r.events[0].Provider)
	}
}

func TestProxy503RetriedOnce(t *testing.T) {
	// Truth: 2 attempts, both 503, one retry.
	r := readText(t, realdata+"round2/text/sdk-text-anthropic-python-503-proxy.log", decode.Options{})
	wantOps(t, r, "503@1 503@2")
}

func TestOpenAIV0AzureRateLimit(t *testing.T) {
	// Truth: one attempt, 429 on Azure OpenAI, the server asks for 3 s.
	r := readText(t, realdata+"round2/text/openai-python-v0-azure-429-action-python-12.log", decode.Options{})
	wantOps(t, r, "429@1")
	if e := r.events[0]; e.Provider != "azure" || e.RetryAfterMs != 3000 {
		t.Errorf("provider %q retry after %d ms; want azure, 3000", e.Provider, e.RetryAfterMs)
	}
}

func TestLiteLLMRouterSuccesses(t *testing.T) {
	// Truth: 6 successful calls: openai/qwen-turbo ×4, openai/deepseek-chat ×2.
	r := readText(t, realdata+"round2/text/litellm-router-text-200ok.log", decode.Options{})
	if r.it.Detected.Format != decode.FormatLiteLLMText {
		t.Errorf("detected %s", r.it.Detected.Format)
	}
	wantOps(t, r, "200@1", "200@1", "200@1", "200@1", "200@1", "200@1")
	want := []string{"openai/qwen-turbo", "openai/qwen-turbo", "openai/qwen-turbo", "openai/deepseek-chat", "openai/deepseek-chat", "openai/qwen-turbo"}
	if got := r.models(); !slices.Equal(got, want) {
		t.Errorf("models %q, want %q", got, want)
	}
	// The lines carry a time of day and no date: no time of their own.
	if r.it.Stats.NoTimestamp != 6 {
		t.Errorf("no_timestamp %d, want 6", r.it.Stats.NoTimestamp)
	}
}

func TestLiteLLMRouterRateLimitOneAttempt(t *testing.T) {
	// Truth: 1 attempt, 429 rate_limit_error for claude-3-5-sonnet-20240620;
	// the exception and the "Retrying" line each logged twice (two
	// handlers), the run stopped before any retry.
	r := readText(t, realdata+"round2/text/litellm-router-text-anthropic-429.log", decode.Options{})
	wantOps(t, r, "429@1")
	e := r.events[0]
	if e.Model != "claude-3-5-sonnet-20240620" || e.ErrorType != "rate_limit_error" || e.Provider != "anthropic" {
		t.Errorf("model %q error %q provider %q", e.Model, e.ErrorType, e.Provider)
	}
	if e.TS == 0 {
		t.Error("the httpx line's time is lost")
	}
}

func TestTenacityRetriesAreOneCall(t *testing.T) {
	// Truth: ≥3 failed attempts (429 on gpt-4), one logical call, the
	// server's hints 180 ms, 2.904 s, 3.822 s.
	r := readText(t, realdata+"round2/text/langchain-tenacity-retry-crewai-32.log", decode.Options{})
	if r.it.Detected.Format != decode.FormatRetryText {
		t.Errorf("detected %s", r.it.Detected.Format)
	}
	wantOps(t, r, "429@1 429@2 429@3")
	var hints []int64
	for _, e := range r.events {
		hints = append(hints, e.RetryAfterMs)
		if e.Model != "gpt-4" || e.ErrorType != "RateLimitError" {
			t.Errorf("model %q error %q", e.Model, e.ErrorType)
		}
	}
	if !slices.Equal(hints, []int64{180, 2904, 3822}) {
		t.Errorf("retry-after hints %v", hints)
	}
}

func TestClaudeCodeRetryLines(t *testing.T) {
	// Truth: one call, 8 failed attempts: 7 × 529 overloaded, then a
	// connection error.
	r := readText(t, realdata+"round2/text/claude-code-tui-retry-issue-4064.txt", decode.Options{})
	wantOps(t, r, "529@1 529@2 529@3 529@4 529@5 529@6 529@7 0@8")
	if r.events[0].ErrorType != "overloaded_error" {
		t.Errorf("error type %q", r.events[0].ErrorType)
	}
}
