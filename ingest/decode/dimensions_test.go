package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// The bill's dimensions as records carry them (issue 35), each shape as
// its producer's API reference writes it: Anthropic's usage (speed,
// inference_geo, service_tier, iterations[] of type "message" and
// "compaction" — anthropic-sdk's BetaUsage and BetaCompactionIterationUsage),
// OpenAI's response (top-level service_tier, usage.prompt_tokens_details /
// input_tokens_details with cached_tokens and cache_write_tokens).

func parseOne(t *testing.T, line string) ingest.Event {
	t.Helper()
	var ev ingest.Event
	if r := NewParser().ParseLine([]byte(line), &ev); r != ingest.Accepted {
		t.Fatalf("%s: %v", line, r)
	}
	return ev
}

func TestAnthropicUsageDimensions(t *testing.T) {
	ev := parseOne(t, `{"ts":"2026-09-01T10:00:00Z","job_id":"j","model":"claude-opus-4-6","usage":{"input_tokens":120,"output_tokens":300,"cache_read_input_tokens":5000,"cache_creation_input_tokens":40,"service_tier":"standard","speed":"fast","inference_geo":"us","iterations":[{"type":"compaction","input_tokens":180000,"output_tokens":3500,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0}},{"type":"message","input_tokens":120,"output_tokens":300,"cache_read_input_tokens":5000,"cache_creation_input_tokens":40}]}}`)
	if ev.Bill != ingest.BillFast|ingest.BillGeoUS|ingest.BillCompaction {
		t.Errorf("bill %b, want fast, US and compaction", ev.Bill)
	}
	// The compaction iteration's tokens are not in the top-level counts
	// and are billed: added. The message iteration is the top level.
	if ev.InputTokens != 180_120 || ev.OutputTokens != 3_800 || ev.CacheReadTokens != 5000 || ev.CacheCreateTokens != 40 {
		t.Errorf("tokens %d/%d/%d/%d, want 180120/3800/5000/40", ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens)
	}
	// Iterations before the top-level counts: the same sums.
	ev = parseOne(t, `{"ts":"2026-09-01T10:00:00Z","model":"claude-opus-4-6","usage":{"iterations":[{"type":"compaction","input_tokens":10,"output_tokens":5}],"input_tokens":1,"output_tokens":2,"speed":"standard","inference_geo":"global"}}`)
	if ev.Bill != ingest.BillCompaction || ev.InputTokens != 11 || ev.OutputTokens != 7 {
		t.Errorf("iterations first: bill %b tokens %d/%d", ev.Bill, ev.InputTokens, ev.OutputTokens)
	}
	// Hostile shapes cost the dimension, never the record.
	for _, l := range []string{
		`{"model":"m","usage":{"input_tokens":1,"speed":7,"inference_geo":{"x":1},"iterations":"compaction"}}`,
		`{"model":"m","usage":{"input_tokens":1,"iterations":[1,"x",null,{"type":3}]}}`,
	} {
		if ev := parseOne(t, l); ev.Bill != 0 || ev.InputTokens != 1 {
			t.Errorf("%s: bill %b input %d", l, ev.Bill, ev.InputTokens)
		}
	}
}

func TestOpenAIServiceTierAndCacheWrites(t *testing.T) {
	for _, c := range []struct {
		line  string
		bill  ingest.Bill
		batch bool
	}{
		{`{"model":"gpt-5.6","service_tier":"flex","usage":{"prompt_tokens":3000,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":1000,"cache_write_tokens":1500}}}`, ingest.BillFlex, false},
		{`{"model":"gpt-5.6","service_tier":"priority","usage":{"input_tokens":3000,"output_tokens":10,"input_tokens_details":{"cached_tokens":1000,"cache_write_tokens":1500}}}`, ingest.BillPriority, false},
		{`{"model":"gpt-5.6","service_tier":"default","usage":{"prompt_tokens":3000,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":1000,"cache_creation_tokens":1500}}}`, 0, false},
		{`{"model":"gpt-5.6","service_tier":"auto","usage":{"prompt_tokens":3000,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":1000,"cache_write_tokens":1500}}}`, 0, false},
		{`{"model":"gpt-5.6","service_tier":"batch","usage":{"prompt_tokens":3000,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":1000,"cache_write_tokens":1500}}}`, 0, true},
	} {
		ev := parseOne(t, c.line)
		if ev.Bill != c.bill || ev.Batch != c.batch {
			t.Errorf("%s: bill %b batch %v, want %b %v", c.line, ev.Bill, ev.Batch, c.bill, c.batch)
		}
		// prompt_tokens hold the cached and the written ones.
		if ev.InputTokens != 500 || ev.CacheReadTokens != 1000 || ev.CacheCreateTokens != 1500 {
			t.Errorf("%s: fresh/read/write %d/%d/%d, want 500/1000/1500", c.line, ev.InputTokens, ev.CacheReadTokens, ev.CacheCreateTokens)
		}
	}
}

// TestClaudeCodeDimensions: a transcript's usage carries speed,
// inference_geo and iterations as the API returns them; a later record of
// the same response keeps them.
func TestClaudeCodeDimensions(t *testing.T) {
	d := NewDecoder(FormatClaudeCode, nil, Options{})
	var got []ingest.Event
	for _, l := range []string{
		`{"type":"assistant","sessionId":"s1","uuid":"u1","requestId":"req_1","timestamp":"2026-09-01T10:00:00.000Z","message":{"id":"msg_1","model":"claude-opus-4-6","usage":{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":100,"cache_creation_input_tokens":0,"service_tier":"standard","speed":"fast","inference_geo":"us","iterations":[{"type":"compaction","input_tokens":1000,"output_tokens":50}]}}}`,
		`{"type":"assistant","sessionId":"s1","uuid":"u2","requestId":"req_1","timestamp":"2026-09-01T10:00:01.000Z","message":{"id":"msg_1","model":"claude-opus-4-6","usage":{"input_tokens":10,"output_tokens":90,"cache_read_input_tokens":100,"cache_creation_input_tokens":0,"service_tier":"standard","speed":"fast","inference_geo":"us","iterations":[{"type":"compaction","input_tokens":1000,"output_tokens":50}]}}}`,
	} {
		d.Decode([]byte(l), func(e *ingest.Event) {
			if e.Kind == ingest.KindLLMCall || e.Kind == ingest.KindUsageGrowth {
				got = append(got, *e)
			}
		})
	}
	if len(got) != 2 {
		t.Fatalf("events %+v", got)
	}
	want := ingest.BillFast | ingest.BillGeoUS | ingest.BillCompaction
	if got[0].Bill != want || got[1].Bill != want {
		t.Errorf("bills %b %b, want %b", got[0].Bill, got[1].Bill, want)
	}
	if got[0].InputTokens != 1010 || got[0].OutputTokens != 51 || got[1].OutputTokens != 140 {
		t.Errorf("tokens: call %d/%d, growth to %d out", got[0].InputTokens, got[0].OutputTokens, got[1].OutputTokens)
	}
}
