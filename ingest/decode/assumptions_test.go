package decode

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/ingest"
)

// decodeAll runs lines through the auto decoder, Flush included.
func decodeAll(t *testing.T, lines ...string) (evs []ingest.Event, reasons []ingest.SkipReason) {
	t.Helper()
	d := NewDecoder(FormatAuto, nil, Options{})
	emit := func(e *ingest.Event) { evs = append(evs, *e) }
	for _, l := range lines {
		reasons = append(reasons, d.Decode([]byte(l), emit))
	}
	if f, ok := d.(Flusher); ok {
		f.Flush(emit)
	}
	return evs, reasons
}

func declaredOf(t *testing.T, evs []ingest.Event) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i := range evs {
		if evs[i].Kind != ingest.KindAssumption {
			continue
		}
		from, k, v, ok := evs[i].AssumptionParts()
		if !ok {
			t.Fatalf("an assumption event that does not unpack: %q", evs[i].Tool)
		}
		out[k] = v + " |" + from
	}
	return out
}

// TestAssumptionLineShapes: seed 003's line bare, after a logger's
// prefix, as a record, nested, and timed by the next event.
func TestAssumptionLineShapes(t *testing.T) {
	evs, rs := decodeAll(t,
		`2026-07-01 01:00:00,001 - jobs - INFO - [assumptions] {"anthropic-sdk":{"maxRetries":0},"retry.owner":"queue"}`,
		`{"ts":"2026-07-01T01:00:05Z","event":"assumptions","job_type":"nightly","level":"info","scheduler.rerunsOnFailure":1}`,
		`{"ts":"2026-07-01T01:00:06Z","event":"assumptions","assumptions":{"x.enabled":true,"y.list":[1,2]}}`,
		`[assumptions] not json`,
	)
	got := declaredOf(t, evs)
	want := map[string]string{"anthropic-sdk.maxRetries": "0 |log line", "retry.owner": "queue |log line",
		"scheduler.rerunsOnFailure": "1 |assumptions record", "x.enabled": "true |assumptions record", "y.list": "[1,2] |assumptions record"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("extra keys: %v", got)
	}
	if rs[3] != ingest.SkipInvalidJSON {
		t.Errorf("a broken declaration: %v, want it counted as invalid JSON", rs[3])
	}
	for _, e := range evs {
		if _, k, _, _ := e.AssumptionParts(); k == "scheduler.rerunsOnFailure" && (e.JobType != "nightly" || e.TS == 0) {
			t.Errorf("the record's job type and time: %+v", e)
		}
		if _, k, _, _ := e.AssumptionParts(); k == "retry.owner" && e.TS == 0 {
			t.Errorf("the prefixed line's time: %+v", e)
		}
	}
}

// TestHostileAssumptions: a huge value, deep nesting, 10k keys, escape
// characters in keys and values, invalid UTF-8 — bounded, inert, and
// the good lines around them kept.
func TestHostileAssumptions(t *testing.T) {
	var many strings.Builder
	many.WriteString(`[assumptions] {`)
	for i := range 10000 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	many.WriteString(`}`)
	deep := `[assumptions] {"a":` + strings.Repeat(`{"b":`, 200) + `1` + strings.Repeat(`}`, 200) + `}`
	deeper := `[assumptions] {"a":` + strings.Repeat(`[`, 200000) + strings.Repeat(`]`, 200000) + `}`
	huge := `[assumptions] {"big":"` + strings.Repeat("x", 900<<10) + `"}`
	escapes := `[assumptions] {"evil\u001b[31m\u202ekey\n":"val\u0007ue\u001b]0;pwned\u0007","bad":"` + "\xff\xfe" + `"}`
	good := `{"ts":"2026-07-01T01:00:00Z","event":"llm_call","job_id":"j","model":"claude-haiku-4-5","status":200}`
	evs, rs := decodeAll(t, many.String(), deep, deeper, huge, escapes, good)
	if rs[5] != ingest.Accepted {
		t.Fatalf("the good line after them: %v", rs[5])
	}
	n := 0
	for _, e := range evs {
		if e.Kind != ingest.KindAssumption {
			continue
		}
		n++
		_, k, v, ok := e.AssumptionParts()
		if !ok || len(k) > ingest.MaxAssumptionKeyBytes || len(v) > ingest.MaxAssumptionValueBytes {
			t.Fatalf("unbounded: %d-byte key, %d-byte value", len(k), len(v))
		}
		for _, s := range []string{k, v} {
			if !utf8.ValidString(s) || strings.ContainsAny(s, "\x1b\x07\n\u202e\x1f") {
				t.Errorf("raw control or bidi text survived: %q", s)
			}
		}
	}
	// 64 of the 10k keys, one flattened deep key, one huge value cut,
	// two escaped keys; the 200,000-deep array is refused as JSON.
	if n != ingest.MaxAssumptionsPerRecord+1+1+2 {
		t.Errorf("%d assumptions, want %d", n, ingest.MaxAssumptionsPerRecord+4)
	}
	if rs[2] != ingest.SkipInvalidJSON {
		t.Errorf("200,000 nested arrays: %v, want invalid JSON", rs[2])
	}
	got := declaredOf(t, evs)
	if v, ok := got["a.b.b.b"]; !ok || !strings.HasPrefix(v, `{"b":`) {
		t.Errorf("deep nesting flattens to 4 levels, then JSON text: %v", v)
	}
}

// TestAssumptionLineThroughALogger: seed 003's console.log line written
// through pino instead ({"level":30,"time":…,"msg":"[assumptions] {…}"}).
func TestAssumptionLineThroughALogger(t *testing.T) {
	evs, rs := decodeAll(t,
		`{"level":30,"time":1782867600000,"pid":4121,"hostname":"worker-1","msg":"[assumptions] {\"anthropic-sdk.maxRetries\":0,\"retry.owner\":\"wrapper.withSingleOwnerRetry\"}"}`,
		`{"level":30,"time":1782867601000,"msg":"processing record 17"}`)
	got := declaredOf(t, evs)
	if got["anthropic-sdk.maxRetries"] != "0 |log line" || got["retry.owner"] != "wrapper.withSingleOwnerRetry |log line" {
		t.Errorf("%v", got)
	}
	if rs[0] != ingest.Accepted || rs[1] != ingest.SkipNoEvent {
		t.Errorf("reasons %v", rs)
	}
	for _, e := range evs {
		if e.TS != 1782867600000*1e6 {
			t.Errorf("the record's time: %d", e.TS)
		}
	}
}

// TestADeclarationBeginsItsMessage: the marker inside a message's text —
// a prompt or a model's output echoed into a log — is no declaration (one
// such line armed kill_on finding:assumption_violated for 500 jobs).
func TestADeclarationBeginsItsMessage(t *testing.T) {
	decl := `[assumptions] {"anthropic-sdk.maxRetries":0}`
	for _, tc := range []struct {
		line string
		want bool
	}{
		{decl, true},
		{`2026-07-01 01:00:00,001 - jobs - INFO - ` + decl, true},
		{`INFO:jobs:` + decl, true},
		{`[2026-07-01 01:00:00] [INFO] ` + decl, true},
		{`2026-07-01 01:00:00 [info     ] ` + decl, true},                            // structlog's console renderer
		{`2026-07-01 01:00:00.000 | INFO     | jobs.nightly:run:12 - ` + decl, true}, // loguru
		{`I, [2026-07-01T01:00:00.000000 #4121]  INFO -- : ` + decl, true},           // Ruby's Logger
		{`time=2026-07-01T01:00:00Z level=INFO msg=` + decl, true},                   // logfmt, unquoted
		{`{"ts":"2026-07-01T01:00:00Z","level":"info","msg":"` + strings.ReplaceAll(decl, `"`, `\"`) + `"}`, true},
		{`{"ts":"2026-07-01T01:00:00Z","level":"info","msg":"  ` + strings.ReplaceAll(decl, `"`, `\"`) + `"}`, true},
		{`2026-07-01 01:00:00,001 - jobs - INFO - echo of model output: ` + decl, false},
		{`2026-07-01 01:00:00,001 - jobs - INFO - please ignore ` + decl, false},
		{`{"ts":"2026-07-01T01:00:00Z","job_id":"j-user","msg":"received ticket text: please ignore ` + strings.ReplaceAll(decl, `"`, `\"`) + `"}`, false},
		{`{"ts":"2026-07-01T01:00:00Z","job_id":"j-user","msg":"line one\n` + strings.ReplaceAll(decl, `"`, `\"`) + `"}`, false},
		{`user said: ` + decl, false},
	} {
		evs, _ := decodeAll(t, tc.line)
		got := false
		for _, e := range evs {
			got = got || e.Kind == ingest.KindAssumption
		}
		if got != tc.want {
			t.Errorf("%s: declaration %v, want %v", tc.line, got, tc.want)
		}
	}
}
