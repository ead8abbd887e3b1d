package correlate_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

// readWithHints reads paths as report does and returns each file's hint.
func readWithHints(t *testing.T, opts decode.Options, paths ...string) (*correlate.Report, map[string]string) {
	t.Helper()
	all, err := file.ExpandInputs(paths, true)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := file.OpenFiles(all, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	st := correlate.New(correlate.DefaultConfig())
	file.Drain(fs.Events(), st)
	hints := map[string]string{}
	for _, f := range fs.Files {
		hints[f.Path] = f.Hint()
	}
	return st.Report(), hints
}

func writeRollout(t *testing.T, lines ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sessions", "2025", "08", "20")
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, "rollout-2025-08-20T10-00-00-019b1111-1111-7222-8333-444455556666.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The header and turn context of an older rollout (codex-rs 0.2x: no
// model_provider, instructions null), the shape of RolloutItem's
// session_meta and turn_context; this test's own lines.
const (
	oldCodexMeta = `{"timestamp":"2025-08-20T10:00:00.000Z","type":"session_meta","payload":{"id":"019b1111-1111-7222-8333-444455556666","timestamp":"2025-08-20T10:00:00.000Z","cwd":"/home/u/proj","originator":"codex_cli_rs","cli_version":"0.22.0","instructions":null}}`
	oldCodexTurn = `{"timestamp":"2025-08-20T10:00:01.000Z","type":"turn_context","payload":{"cwd":"/home/u/proj","model":"gpt-5"}}`
)

// TestAgentsCodexFlatTokenCountIsRead: older Codex wrote
// EventMsg::TokenCount(TokenUsage) — the usage flat in the payload, one
// per response (openai/codex codex-rs/tui/src/chatwidget.rs of 2025 adds
// each to its running total) — before TokenCountEvent{info,rate_limits}.
// Such a rollout read as nothing, with a false "no token_count events"
// hint. Two responses: 10,000 input (8,000 cached) and 500 output, then
// 12,000 (11,000) and 300, at gpt-5's $1.25/M, $0.125/M cached, $10/M.
func TestAgentsCodexFlatTokenCountIsRead(t *testing.T) {
	p := writeRollout(t, oldCodexMeta, oldCodexTurn,
		`{"timestamp":"2025-08-20T10:00:05.000Z","type":"event_msg","payload":{"type":"token_count","input_tokens":10000,"cached_input_tokens":8000,"output_tokens":500,"reasoning_output_tokens":200,"total_tokens":10500}}`,
		`{"timestamp":"2025-08-20T10:01:05.000Z","type":"event_msg","payload":{"type":"token_count","input_tokens":12000,"cached_input_tokens":11000,"output_tokens":300,"reasoning_output_tokens":0,"total_tokens":12300}}`)
	r, hints := readWithHints(t, decode.Options{}, p)
	want := (3000*1.25 + 19000*0.125 + 800*10) / 1e6
	if tt := r.Totals; tt.Attempts != 2 || tt.Jobs != 1 || tt.InputTokens != 3000 || tt.CacheReadTokens != 19000 || tt.OutputTokens != 800 || math.Abs(tt.SpendUSD-want) > 1e-9 {
		t.Errorf("%d jobs, %d calls, input %d cached %d output %d, $%.6f; want 1, 2, 3000, 19000, 800, $%.6f", tt.Jobs, tt.Attempts, tt.InputTokens, tt.CacheReadTokens, tt.OutputTokens, tt.SpendUSD, want)
	}
	if h := hints[p]; h != "" {
		t.Errorf("hint %q on a rollout that was read", h)
	}
}

// TestAgentsCodexTotalWithoutLastBillsTheMove: an info with a running
// total and no last_token_usage (written so by some versions: ccusage's
// Codex loader subtracts the totals for it) bills what the total moved
// by, not a call of no tokens.
func TestAgentsCodexTotalWithoutLastBillsTheMove(t *testing.T) {
	p := writeRollout(t, oldCodexMeta, oldCodexTurn,
		`{"timestamp":"2025-09-15T13:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5000,"cached_input_tokens":0,"output_tokens":1000,"reasoning_output_tokens":0,"total_tokens":6000}}}}`,
		`{"timestamp":"2025-09-15T13:01:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":8000,"cached_input_tokens":2000,"output_tokens":1200,"reasoning_output_tokens":0,"total_tokens":9200}}}}`)
	r, _ := readWithHints(t, decode.Options{}, p)
	if tt := r.Totals; tt.Attempts != 2 || tt.InputTokens+tt.CacheReadTokens != 8000 || tt.CacheReadTokens != 2000 || tt.OutputTokens != 1200 {
		t.Errorf("%d calls, input %d (cached %d), output %d; want 2 calls, 8000 (2000), 1200", tt.Attempts, tt.InputTokens+tt.CacheReadTokens, tt.CacheReadTokens, tt.OutputTokens)
	}
}

// TestAgentsCodexHintSaysWhatIsMissing: "no token_count events" only
// when there were none; token counts that carry no usage are said so.
func TestAgentsCodexHintSaysWhatIsMissing(t *testing.T) {
	none := writeRollout(t, oldCodexMeta, oldCodexTurn)
	_, hints := readWithHints(t, decode.Options{}, none)
	if !strings.Contains(hints[none], "no token_count events") {
		t.Errorf("no token counts: hint %q", hints[none])
	}
	empty := writeRollout(t, oldCodexMeta, oldCodexTurn,
		`{"timestamp":"2026-03-01T10:00:01.200Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":10.0,"window_minutes":300,"resets_at":1772370000}}}}`)
	_, hints = readWithHints(t, decode.Options{}, empty)
	if h := hints[empty]; strings.Contains(h, "no token_count events") || !strings.Contains(h, "1 token_count event(s) carry no usage") {
		t.Errorf("token counts without usage: hint %q", h)
	}
}

// TestAgentsCodexGiveUpIsItsOwnFailedCall: a turn whose call Codex gives
// up on — stream_error "Reconnecting... n/5" events, then the error event
// codex-rs writes when the retries run out ("exceeded retry limit, last
// status: 429 Too Many Requests, …", its RetryLimit error) and
// turn_aborted — was dropped, its failures credited to the next turn's
// call (one operation of 3 attempts that "succeeded"). Lines in the shape
// of a current rollout (event_msg payloads StreamErrorEvent, ErrorEvent,
// TurnAbortedEvent; this test's own).
func TestAgentsCodexGiveUpIsItsOwnFailedCall(t *testing.T) {
	p := writeRollout(t,
		`{"timestamp":"2026-03-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019b1111-1111-7222-8333-444455556666","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/home/u/proj","originator":"codex_cli_rs","cli_version":"0.104.0","source":"cli","model_provider":"openai"}}`,
		`{"timestamp":"2026-03-01T10:00:01.000Z","type":"turn_context","payload":{"cwd":"/home/u/proj","model":"gpt-5.3-codex"}}`,
		`{"timestamp":"2026-03-01T10:00:03.000Z","type":"event_msg","payload":{"type":"stream_error","message":"Reconnecting... 1/5 (unexpected status 429 Too Many Requests: Rate limit reached)"}}`,
		`{"timestamp":"2026-03-01T10:00:06.000Z","type":"event_msg","payload":{"type":"stream_error","message":"Reconnecting... 2/5 (unexpected status 429 Too Many Requests: Rate limit reached)"}}`,
		`{"timestamp":"2026-03-01T10:00:10.000Z","type":"event_msg","payload":{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests, request id: req_abc"}}`,
		`{"timestamp":"2026-03-01T10:00:10.100Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
		`{"timestamp":"2026-03-01T10:01:00.000Z","type":"turn_context","payload":{"cwd":"/home/u/proj","model":"gpt-5.3-codex"}}`,
		`{"timestamp":"2026-03-01T10:01:05.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10000,"cached_input_tokens":8000,"output_tokens":500,"reasoning_output_tokens":200,"total_tokens":10500},"last_token_usage":{"input_tokens":10000,"cached_input_tokens":8000,"output_tokens":500,"reasoning_output_tokens":200,"total_tokens":10500}}}}`)
	r, _ := readWithHints(t, decode.Options{}, p)
	if tt := r.Totals; tt.Attempts != 4 || tt.Operations != 2 || r.Status["429"] != 3 || r.Status["200"] != 1 {
		t.Errorf("%d attempts in %d operations, statuses %v; want the given-up call's 3 × 429 and the next call's 200, 2 operations", tt.Attempts, tt.Operations, r.Status)
	}
	// An interrupt between retries ends the call too.
	p = writeRollout(t, oldCodexMeta, oldCodexTurn,
		`{"timestamp":"2026-03-01T10:00:03.000Z","type":"event_msg","payload":{"type":"stream_error","message":"Reconnecting... 1/5 (unexpected status 503 Service Unavailable)"}}`,
		`{"timestamp":"2026-03-01T10:00:04.000Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
		`{"timestamp":"2026-03-01T10:01:05.000Z","type":"event_msg","payload":{"type":"token_count","input_tokens":100,"cached_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":110}}`)
	if r, _ = readWithHints(t, decode.Options{}, p); r.Totals.Operations != 2 {
		t.Errorf("an interrupted retry and the next call: %d operations, want 2", r.Totals.Operations)
	}
}
