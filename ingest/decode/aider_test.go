package decode

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// aiderHistory is a history in Aider's documented transcript shape
// (written here): a session, a model switch, two failed attempts and the
// answer, a call with Aider's cost, one with cache counts.
const aiderHistory = `
# aider chat started at 2025-05-04 17:02:36

> Aider v0.82.2
> Main model: gemini/gemini-2.5-pro-exp-03-25 with diff-fenced edit format
> Weak model: openai/qwen3:4b

#### make a calculator

> Tokens: 3.2k sent, 222 received.
> litellm.RateLimitError: litellm.RateLimitError: VertexAIException - b'{"error": {"code": 429}}'
> Retrying in 0.2 seconds...
> litellm.APIConnectionError: connection reset
> Retrying in 0.5 seconds...
> Tokens: 10k sent, 1.5k received.

#### /model openai/deepseek.deepseek-chat
> Main model: openai/deepseek.deepseek-chat with whole edit format
> Tokens: 1.6k sent, 171 received. Cost: $0.00062 message, $0.0077 session.
> Tokens: 12k sent, 2.0k cache write, 8.0k cache hit, 900 received. Cost: $0.0041 message, $0.0118 session.
> Tokens: 1.2M sent, 99 received.
`

// TestAiderHistoryCallsAndRetries: issue 35 — Aider's chat histories read
// as nothing. Each Tokens line is a call (Aider's rounded counts, its
// cost when shown), each litellm exception a failed attempt before it.
func TestAiderHistoryCallsAndRetries(t *testing.T) {
	lines := strings.Split(aiderHistory, "\n")
	d := NewDetector()
	for _, l := range lines {
		d.Add([]byte(l))
	}
	if f := d.Result().Format; f != FormatAider {
		t.Fatalf("detected %s", f)
	}
	dec := NewDecoder(FormatAider, nil, Options{SourceName: "/src/calc/.aider.chat.history.md"})
	var evs []ingest.Event
	for _, l := range lines {
		dec.Decode([]byte(l), func(ev *ingest.Event) { evs = append(evs, *ev) })
	}
	if len(evs) != 7 {
		t.Fatalf("%d attempts, want 7", len(evs))
	}
	type want struct {
		model           string
		status, attempt int16
		in, out, cr, cw int64
		cost            float64
	}
	gem, ds := "gemini/gemini-2.5-pro-exp-03-25", "openai/deepseek.deepseek-chat"
	for i, w := range []want{
		{gem, 200, 1, 3200, 222, 0, 0, 0},
		{gem, 429, 1, 0, 0, 0, 0, 0},
		{gem, 0, 2, 0, 0, 0, 0, 0},
		{gem, 200, 3, 10000, 1500, 0, 0, 0},
		{ds, 200, 1, 1600, 171, 0, 0, 0.00062},
		{ds, 200, 1, 2000, 900, 8000, 2000, 0.0041},
		{ds, 200, 1, 1200000, 99, 0, 0, 0},
	} {
		e := evs[i]
		got := want{e.Model, e.Status, e.Attempt, e.InputTokens, e.OutputTokens, e.CacheReadTokens, e.CacheCreateTokens, e.CostUSD}
		if got != w || e.JobID != "calc" || e.TS != 1746378156000000000 || !e.AgentSession {
			t.Errorf("attempt %d: %+v job %q ts %d, want %+v", i, got, e.JobID, e.TS, w)
		}
	}
}

// TestAgentFilesInADirectory: a directory given to report reads the
// agents' files by name: a Cline task, an Aider history, a Bedrock
// batch output; watch refuses only the one rewritten whole.
func TestAgentFilesInADirectory(t *testing.T) {
	for path, want := range map[string]Format{
		"tasks/1770000000000/ui_messages.json": FormatCline,
		"proj/.aider.chat.history.md":          FormatAider,
		"out/job-1/input.jsonl.out":            FormatBedrockBatch,
	} {
		r := DocumentOf(path)
		if r == nil || r.Name != want {
			t.Errorf("%s: %v, want %s", path, r, want)
			continue
		}
		if (r.Rewritten != "") != (want == FormatCline) {
			t.Errorf("%s: rewritten %q", path, r.Rewritten)
		}
	}
}
