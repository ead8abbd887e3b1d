package decode

import (
	"fmt"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Text decoders' throughput: lines of each shape, and the lines that are
// none of them (an app's own text, every text decoder's prefilter), with
// and without a user pattern. Targets live here, never in unit tests.

func textBenchLines(n int) [][]byte {
	shapes := []string{
		`[2023-11-20 21:34:00.847] _client.py (1013) - [INFO] : HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 429 Too Many Requests"`,
		`[2023-11-20 21:34:00.848] _base_client.py (919) - [INFO] : Retrying request to /chat/completions in 0.915115 seconds`,
		`INFO:httpx:HTTP Request: POST https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-haiku-4-5-20251001-v1:0/invoke "HTTP/1.1 200 OK"`,
		`[log_%06x, retryOf: log_c0cd86, request-id: "req_01B"] post https://api.anthropic.com/v1/messages failed with status 529 in 28ms - retrying, 1 attempts remaining`,
		`12:00:56 - LiteLLM Router:INFO: router.py:1103 - litellm.acompletion(model=openai/qwen-turbo)` + "\x1b[32m 200 OK\x1b[0m",
		`Retrying langchain.chat_models.openai.ChatOpenAI.completion_with_retry.<locals>._completion_with_retry in 4.0 seconds as it raised RateLimitError: Rate limit reached for gpt-4 in organization org-XXXX on tokens_usage_based per min: Limit 10000, Used 7760, Requested 2270. Please try again in 180ms.`,
		`2026-07-16 20:52:33,123 - app.worker - INFO - processed document %d of the nightly batch in 412 ms`,
	}
	out := make([][]byte, n)
	for i := range out {
		s := shapes[i%len(shapes)]
		if i%len(shapes) == 3 || i%len(shapes) == 6 {
			s = fmt.Sprintf(s, i)
		}
		out[i] = []byte(s)
	}
	return out
}

func benchText(b *testing.B, lines [][]byte, opts Options) {
	d := NewDecoder(FormatSDKText, nil, opts)
	var bytes int64
	for _, l := range lines {
		bytes += int64(len(l)) + 1
	}
	emit := func(*ingest.Event) {}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, l := range lines {
			d.Decode(l, emit)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(lines))/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkTextLinesMixed(b *testing.B) { benchText(b, textBenchLines(7000), Options{}) }

// BenchmarkTextLinesAppOnly: lines no text format matches, the common
// case in an application's log.
func BenchmarkTextLinesAppOnly(b *testing.B) {
	lines := textBenchLines(7000)
	var app [][]byte
	for i := 6; i < len(lines); i += 7 {
		app = append(app, lines[i])
	}
	benchText(b, app, Options{})
}

func BenchmarkPatternLines(b *testing.B) {
	p, err := CompilePattern(PatternSpec{Name: "nanobot", TimeLayout: "2006-01-02 15:04:05",
		Regex: `^(?P<ts>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) \| WARNING \| [^|]* \| LLM transient error \(attempt (?P<attempt>\d+)/\d+\), retrying in \d+s: error: (?P<error_type>.*)$`})
	if err != nil {
		b.Fatal(err)
	}
	lines := make([][]byte, 1000)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, "2026-07-16 20:%02d:%02d | WARNING | - | LLM transient error (attempt %d/3), retrying in 25s: error: {'message': 'requests limit reached: too many requests per minute for this model.'}", i/60%60, i%60, i%3+1)
	}
	benchText(b, lines, Options{Patterns: []*LinePattern{p}})
}

// BenchmarkPatternLinesUnmatched: a pattern against lines it never matches.
func BenchmarkPatternLinesUnmatched(b *testing.B) {
	p, err := CompilePattern(PatternSpec{Name: "x", Regex: `LLM transient error \(attempt (?P<attempt>\d+)/\d+\)`})
	if err != nil {
		b.Fatal(err)
	}
	lines := textBenchLines(7000)
	var app [][]byte
	for i := 6; i < len(lines); i += 7 {
		app = append(app, lines[i])
	}
	benchText(b, app, Options{Patterns: []*LinePattern{p}})
}
