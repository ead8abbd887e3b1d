package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// decodeAll runs lines through d and returns the events.
func decodeStream(d Decoder, lines ...string) (evs []ingest.Event, reasons []ingest.SkipReason) {
	emit := func(e *ingest.Event) { evs = append(evs, *e) }
	for _, l := range lines {
		reasons = append(reasons, d.Decode([]byte(l), emit))
	}
	if f, ok := d.(Flusher); ok {
		f.Flush(emit)
	}
	return evs, reasons
}

// TestShapeOf: a record's row is the first whose keys it has, valued keys
// included; a canonical line has none.
func TestShapeOf(t *testing.T) {
	cases := map[string]Format{
		`{"type":"assistant","sessionId":"s","message":{}}`:                     FormatClaudeCode,
		`{"timestamp":"t","type":"event_msg","payload":{}}`:                     FormatCodex,
		`{"timestamp":"t","type":"other","payload":{}}`:                         "",
		`{"custom_id":"r","result":{}}`:                                         FormatAnthropicBatch,
		`{"model":"gpt-4o","response_cost":0.1,"custom_llm_provider":"openai"}`: FormatLiteLLM,
		`{"ts":"t","event":"llm_call","model":"m"}`:                             "",
		`{"id":"a","timestamp":"t","type":"gemini","content":""}`:               FormatGemini,
		`not json`: "",
	}
	for line, want := range cases {
		var got Format
		if row := shapeOf([]byte(line)); row != nil {
			got = row.Name
		}
		if got != want {
			t.Errorf("%s: %q, want %q", line, got, want)
		}
	}
}

// TestStreamStartupLineBlindsNothing: a followed stream whose first line
// is shaped like a Claude Code record reads the app's calls after it.
func TestStreamStartupLineBlindsNothing(t *testing.T) {
	d := NewStreamDecoder(Options{})
	evs, _ := decodeStream(d,
		`{"type":"app_start","sessionId":"worker-7"}`,
		`{"ts":"2026-05-30T01:00:00Z","event":"llm_call","job_id":"j1","model":"m","status":200,"cost_usd":0.5}`,
		`{"ts":"2026-05-30T01:00:01Z","job_id":"j1","model":"m","status":200,"cost_usd":0.5}`)
	if len(evs) != 2 || evs[0].JobID != "j1" || evs[1].JobID != "j1" {
		t.Fatalf("%d events %+v, want the 2 calls of j1", len(evs), evs)
	}
}

// TestStreamReadsEachRecordByItsRow: a Claude Code response in an app's
// JSON-lines stream is read by the Claude Code decoder, once; an app's
// canonical call in a Claude Code stream by the canonical one.
func TestStreamReadsEachRecordByItsRow(t *testing.T) {
	claude := `{"type":"assistant","sessionId":"s1","requestId":"req_1","timestamp":"2026-05-30T01:00:02Z","message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":20}}}`
	app := `{"ts":"2026-05-30T01:00:00Z","event":"llm_call","job_id":"j1","model":"m","status":200}`
	for _, order := range [][]string{{app, claude}, {claude, app}} {
		evs, _ := decodeStream(NewStreamDecoder(Options{}), order...)
		var calls, claudeCalls int
		for _, e := range evs {
			if e.Kind == ingest.KindLLMCall {
				calls++
				if e.Model == "claude-sonnet-4-5" && e.OutputTokens == 20 {
					claudeCalls++
				}
			}
		}
		if calls != 2 || claudeCalls != 1 {
			t.Errorf("first line %.20s: %d calls (%d Claude Code's), want 2 (1): %+v", order[0], calls, claudeCalls, evs)
		}
	}
}

// TestKeyedFileKeepsItsOwnRecords: a Claude Code user turn and a Gemini
// message written again are their format's records that bill nothing:
// never billed again by the canonical reader.
func TestKeyedFileKeepsItsOwnRecords(t *testing.T) {
	gem := `{"id":"g1","timestamp":"2026-05-01T10:00:03.000Z","type":"gemini","content":"","tokens":{"input":100,"output":10,"cached":0,"thoughts":0,"tool":0,"total":110},"model":"gemini-2.5-pro"}`
	evs, _ := decodeStream(NewDecoder(FormatGemini, nil, Options{}), gem, gem, gem)
	if len(evs) != 1 {
		t.Errorf("a Gemini message written three times: %d events, want 1", len(evs))
	}
	user := `{"type":"user","sessionId":"s1","timestamp":"2026-05-30T01:00:00Z","model":"x","message":{"role":"user","content":"hi"}}`
	if evs, _ := decodeStream(NewDecoder(FormatClaudeCode, nil, Options{}), user); len(evs) != 0 {
		t.Errorf("a Claude Code user turn: %+v, want no event", evs)
	}
}

// TestMapReadsDottedKeys: OTel attributes keep dots in their keys
// ({"attributes":{"gen_ai.usage.input_tokens":…}}): the --map the 0-event
// hint names for them (attributes.gen_ai.usage.input_tokens) reads them.
func TestMapReadsDottedKeys(t *testing.T) {
	var maps []FieldMap
	for _, s := range []string{"model=attributes.gen_ai.request.model", "prompt_tokens=attributes.gen_ai.usage.input_tokens", "status=status.status_code", "job_id=ctx.job.id"} {
		m, err := ParseFieldMap(s)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, m)
	}
	d := NewDecoder(FormatJSONL, maps, Options{Maps: maps})
	evs, _ := decodeStream(d, `{"name":"chat","attributes":{"gen_ai.request.model":"gpt-4o","gen_ai.usage.input_tokens":120},"status":{"status_code":"ERROR"},"ctx":{"job":{"id":"j9"}}}`)
	if len(evs) != 1 || evs[0].Model != "gpt-4o" || evs[0].InputTokens != 120 || evs[0].JobID != "j9" || evs[0].ErrorType == "" {
		t.Fatalf("%+v", evs)
	}
}

// TestForcedFormatIsStrict: a format forced (--input-format) is read by
// its decoder alone: the user said what the file is.
func TestForcedFormatIsStrict(t *testing.T) {
	app := `{"ts":"2026-05-30T01:00:00Z","event":"llm_call","job_id":"j1","model":"m","status":200}`
	if evs, _ := decodeStream(NewDecoder(FormatClaudeCode, nil, Options{Format: FormatClaudeCode}), app); len(evs) != 0 {
		t.Errorf("forced claude-code read an app's line: %+v", evs)
	}
	if evs, _ := decodeStream(NewDecoder(FormatClaudeCode, nil, Options{}), app); len(evs) != 1 {
		t.Errorf("detected claude-code: %d events of an app's line, want 1", len(evs))
	}
}

// TestCanonicalLineInALiteLLMFile: LiteLLM's decoder takes any record
// with a model; an app's canonical line among LiteLLM payloads is read as
// canonical, its tokens kept, and the payloads as LiteLLM's.
func TestCanonicalLineInALiteLLMFile(t *testing.T) {
	app := `{"ts":"2026-05-30T01:00:00Z","event":"llm_call","job_id":"j1","model":"gpt-4o","input_tokens":700,"output_tokens":50}`
	payload := `{"model":"gpt-4o","custom_llm_provider":"openai","response_cost":0.0021,"status":"success","startTime":1737710446.8,"endTime":1737710447.8}`
	evs, _ := decodeStream(NewDecoder(FormatLiteLLM, nil, Options{}), payload, app)
	if len(evs) != 2 || evs[1].JobID != "j1" || evs[1].InputTokens != 700 || !evs[0].HasCost {
		t.Fatalf("%+v", evs)
	}
}

// FuzzEachRecordByItsShape: any lines, after any first line, through the
// stream decoder and every keyed format's decoder with its second look:
// no panic, and every event passes Event.Check.
func FuzzEachRecordByItsShape(f *testing.F) {
	f.Add(`{"type":"app_start","sessionId":"w"}`, `{"ts":"2026-05-30T01:00:00","model":"m","status":{"status_code":"ERROR"}}`)
	f.Add(`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count"}}`, `{"custom_id":"r","result":{"type":"succeeded"}}`)
	f.Add(`{"model":"gpt-4o","response_cost":0.1,"startTime":1}`, `{"id":"g","timestamp":"t","type":"gemini","content":"","model":"x","tokens":{"input":1}}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		decs := []Decoder{NewStreamDecoder(Options{})}
		for _, row := range keyed {
			decs = append(decs, NewDecoder(row.Name, nil, Options{}))
		}
		for _, d := range decs {
			evs, _ := decodeStream(d, a, b, a)
			for _, e := range evs {
				if r := e.Check(); r != ingest.Accepted {
					t.Fatalf("an event that fails Check (%v): %+v", r, e)
				}
			}
		}
	})
}
