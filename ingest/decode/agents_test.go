package decode

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestCodexDetectionNeedsCodexRecords: red team of issue 25 — "timestamp",
// "type" and "payload" alone took a canonical JSON-lines log for a Codex
// rollout: 0 events, and beside another file its calls vanished silently.
// A Codex record's type is one of Codex's own.
func TestCodexDetectionNeedsCodexRecords(t *testing.T) {
	for line, want := range map[string]Format{
		`{"timestamp":"2026-03-10T01:00:00Z","type":"llm_call","job_id":"j1","model":"gpt-4o","status":200,"payload":{"prompt":"hi"}}`: FormatJSONL,
		`{"timestamp":"2026-02-23T12:19:52.689Z","type":"event_msg","payload":{"type":"token_count","info":null}}`:                     FormatCodex,
		`{"timestamp":"2026-02-23T12:19:38.535Z","type":"session_meta","payload":{"id":"019c8a70-dda7-7f33-98ea-f30553347322"}}`:       FormatCodex,
	} {
		d := NewDetector()
		d.Add([]byte(line))
		if got := d.Result().Format; got != want {
			t.Errorf("%s: detected %s, want %s", line, got, want)
		}
	}
}

// TestAnIDShapedLikeACappedOneIsNotThatID: red team of issue 22 — an ID
// written as another, longer ID's capped form (its first bytes, "…#" and
// its digest) merged with it. A capped form is always longer than any
// logged ID, so the two never meet, and an ID of that shape keeps its
// name (digesting it let a job escape its kill by its name).
func TestAnIDShapedLikeACappedOneIsNotThatID(t *testing.T) {
	long := strings.Repeat("a", MaxIDBytes+100)
	capped := CleanID(long)
	if capped == long || len(capped) <= MaxIDBytes || len(capped) > MaxIDBytes+6 || !IsCappedID(capped) {
		t.Fatalf("a %d-byte ID: %d bytes", len(long), len(capped))
	}
	if CleanID(capped) == capped {
		t.Fatal("a capped form is re-read as itself")
	}
	forged := capped[:MaxIDBytes-40] + capped[len(capped)-34:] // the shape, within the bound
	if got := CleanID(forged); got != forged || IsCappedID(got) || got == capped {
		t.Errorf("an ID in the capped shape: kept %v, taken for capped %v", got == forged, IsCappedID(got))
	}
	short := "job…#" + strings.Repeat("0", 32)
	if got := CleanID(short); got != short {
		t.Errorf("a short ID of the capped shape changed: %q", got)
	}
	if got := CleanID("plain-id"); got != "plain-id" {
		t.Errorf("a plain ID changed: %q", got)
	}
}

// TestACallLineIsNeverADeclaration: red team of issue 27 — a pattern line
// (or an httpx line) with "[assumptions] {…}" anywhere in it was taken for
// seed 003's declaration and its call dropped from the spend: the run
// ceiling fell silent. A bare declaration after a job's JSON line was given
// that job's type (a false assumption_violated on two nights in one log),
// and a declaration record lost the job context of the SDK lines after it.
func TestACallLineIsNeverADeclaration(t *testing.T) {
	lp, err := CompilePattern(PatternSpec{Regex: `^(?P<ts>\S+) job=(?P<job_id>\S+) model=(?P<model>\S+) in=(?P<input_tokens>\d+) out=(?P<output_tokens>\d+) status=(?P<status>\d+)`})
	if err != nil {
		t.Fatal(err)
	}
	dec := NewDecoder(FormatAuto, nil, Options{Patterns: []*LinePattern{lp}})
	kinds := map[ingest.Kind]int{}
	for _, l := range []string{
		`2026-07-01T01:00:05Z job=j2 model=claude-opus-4-1 in=1000 out=100 status=200 note=[assumptions] {}`,
		`2026-07-01T01:00:09Z job=j3 model=claude-opus-4-1 in=1000 out=100 status=200 note=[assumptions] {"x":1}`,
	} {
		dec.Decode([]byte(l), func(ev *ingest.Event) { kinds[ev.Kind]++ })
	}
	if kinds[ingest.KindLLMCall] != 2 {
		t.Errorf("events %v: two call lines must stay two calls", kinds)
	}

	dec = NewDecoder(FormatAuto, nil, Options{})
	var declared []*ingest.Event
	for _, l := range []string{
		`{"ts":"2026-07-01T01:00:00Z","event":"llm_call","job_id":"a","job_type":"nightly-article","model":"m","status":200}`,
		`[assumptions] {"anthropic-sdk.maxRetries":0}`,
		`{"ts":"2026-07-01T01:00:02Z","event":"llm_call","job_id":"a","job_type":"nightly-article","model":"m","status":200}`,
	} {
		dec.Decode([]byte(l), func(ev *ingest.Event) {
			if ev.Kind == ingest.KindAssumption {
				c := *ev
				declared = append(declared, &c)
			}
		})
	}
	if f, ok := dec.(Flusher); ok {
		f.Flush(func(ev *ingest.Event) {
			if ev.Kind == ingest.KindAssumption {
				c := *ev
				declared = append(declared, &c)
			}
		})
	}
	if len(declared) == 0 || declared[0].JobType != "" {
		t.Errorf("a bare declaration: %d read, job type %q; want run-wide", len(declared), func() string {
			if len(declared) > 0 {
				return declared[0].JobType
			}
			return ""
		}())
	}
}
