package correlate_test

import (
	"fmt"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

// readAgentFiles reads paths (files or directories) as report does.
func readAgentFiles(t *testing.T, paths ...string) (*correlate.State, *correlate.Report) {
	t.Helper()
	all, err := file.ExpandInputs(paths, true)
	if err != nil || len(all) == 0 {
		t.Fatalf("%v: %v (../shared must sit beside the repository)", paths, err)
	}
	fs, err := file.OpenFiles(all, decode.Options{CostMode: decode.CostCalculate})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	st := correlate.New(correlate.DefaultConfig())
	file.Drain(fs.Events(), st)
	formatsRead = map[string]string{}
	for _, f := range fs.Files {
		formatsRead[f.Path] = string(f.Detected.Format)
	}
	return st, st.Report()
}

// formatsRead is what the last readAgentFiles read each file as.
var formatsRead map[string]string

// TestPricesFromTheMakerFirst: issue 25 — gemini-3-pro resolved to
// replicate's entry (no cache rate: cached input at 10×), a dated Claude
// ID to Vertex's entry without cache rates, and a proxy's gpt-5-1-codex
// spelling to nothing.
func TestPricesFromTheMakerFirst(t *testing.T) {
	tb := correlate.EmbeddedPrices()
	for model, want := range map[string]string{
		"gemini-3-pro":               "gemini-3-pro-preview",
		"claude-3-5-sonnet-20240620": "anthropic.claude-3-5-sonnet-20240620-v1:0",
		"gpt-5-1-codex":              "gpt-5.1-codex",
		"claude-sonnet-4-5-20250929": "claude-sonnet-4-5-20250929",
	} {
		r := tb.Resolve(model)
		if r.Key != want || r.Price.NoCacheRead {
			t.Errorf("%s priced as %q (no cache rate: %v), want the maker's %q", model, r.Key, r.Price.NoCacheRead, want)
		}
	}
	if r := tb.Resolve("gpt-5-1-codex-2025-11-13"); r.Key == "" || reseller(r.Key) {
		t.Errorf("the proxy's dated spelling priced as %q", r.Key)
	}
}

func reseller(key string) bool {
	for _, p := range []string{"replicate/", "snowflake/", "vercel_ai_gateway/", "openrouter/", "gmi/"} {
		if len(key) >= len(p) && key[:len(p)] == p {
			return true
		}
	}
	return false
}

// applyLines reads lines as one Claude Code file would be read.
func applyClaudeLines(t *testing.T, lines []string) *correlate.Report {
	t.Helper()
	dec := decode.NewDecoder(decode.FormatClaudeCode, nil, decode.Options{CostMode: decode.CostCalculate})
	st := correlate.New(correlate.DefaultConfig())
	for _, l := range lines {
		dec.Decode([]byte(l), func(ev *ingest.Event) { st.Apply(ev) })
	}
	return st.Report()
}

// TestAResponseCannotGrowPastAnyCall: red team of issue 25 — usage growth
// came in pieces each under the per-call bound, so one response reached
// 99 billion output tokens ($2.475M). The response as a whole is bounded.
func TestAResponseCannotGrowPastAnyCall(t *testing.T) {
	var lines []string
	for i := range 1001 {
		lines = append(lines, fmt.Sprintf(`{"type":"assistant","sessionId":"s","uuid":"u%d","timestamp":"2026-03-10T01:00:00Z","message":{"id":"msg_1","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":1,"output_tokens":%d}}}`, i, i*99_000_000))
	}
	r := applyClaudeLines(t, lines)
	if r.Totals.OutputTokens > ingest.MaxTokensPerCall || r.Totals.Attempts != 1 {
		t.Errorf("one response billed %d output tokens over %d attempts", r.Totals.OutputTokens, r.Totals.Attempts)
	}
	// And a growth is no attempt: an unpriced response is one unpriced attempt.
	lines = lines[:0]
	for i := range 6 {
		lines = append(lines, fmt.Sprintf(`{"type":"assistant","sessionId":"s","uuid":"u%d","timestamp":"2026-03-10T01:00:00Z","message":{"id":"msg_1","model":"claude-nonexistent-9","usage":{"input_tokens":1,"output_tokens":%d}}}`, i, 1+i*10))
	}
	if r = applyClaudeLines(t, lines); r.Totals.UnpricedAttempts != 1 || r.Totals.Attempts != 1 {
		t.Errorf("one unpriced response: %d attempts, %d unpriced", r.Totals.Attempts, r.Totals.UnpricedAttempts)
	}
}

// TestCodexFromTheEndKeepsTheSession: red team of issue 25 — a follower
// that starts at the end of a live rollout never sees session_meta, and
// every call became a job of its own ("codex::146"), none ever reaching a
// job ceiling. The file name names the session.
func TestCodexFromTheEndKeepsTheSession(t *testing.T) {
	dec := decode.NewDecoder(decode.FormatCodex, nil, decode.Options{SourceName: "/s/2026/02/23/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"})
	st := correlate.New(correlate.DefaultConfig())
	for i := range 3 {
		l := fmt.Sprintf(`{"timestamp":"2026-02-23T12:00:0%dZ","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d},"last_token_usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":110}}}}`, i, 100*(i+1), 10*(i+1), 110*(i+1))
		dec.Decode([]byte(l), func(ev *ingest.Event) { st.Apply(ev) })
	}
	if jobs := st.Jobs(); len(jobs) != 1 || jobs[0].ID != "019c8a4d-8f45-7010-8b5d-7fad920aa6f9" || jobs[0].Calls != 3 {
		t.Errorf("jobs %v: want the one session of the file name, 3 calls", jobs)
	}
}
