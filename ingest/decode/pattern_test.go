package decode

import (
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestPatternRefusedAtStart: every bad pattern is refused with what to
// change, naming the group or key at fault.
func TestPatternRefusedAtStart(t *testing.T) {
	for _, c := range []struct {
		spec PatternSpec
		want string
	}{
		{PatternSpec{Name: "a", Regex: `attempt (?P<tries>\d+)`}, "group (?P<tries>…) is not a field"},
		{PatternSpec{Name: "b", Regex: `attempt (\d+) failed`}, "no group a call can be read from"},
		{PatternSpec{Name: "c", Regex: `attempt (?P<attempt>\d+`}, "does not compile"},
		{PatternSpec{Name: "d", Regex: `(?P<attempt>\d*)`}, "matches an empty line"},
		{PatternSpec{Name: "e", Regex: `(?P<status>\d+) (?P<status>\d+)`}, "appears twice"},
		{PatternSpec{Name: "f", Regex: `x (?P<attempt>\d+)`, TimeLayout: "2006-01-02"}, "no (?P<ts>…) group"},
		{PatternSpec{Name: "g", Regex: `(?P<ts>\S+) x (?P<attempt>\d+)`, TimeLayout: "yyyy-mm-dd"}, "none of Go's reference time parts"},
		{PatternSpec{Name: "h", Regex: `x (?P<attempt>\d+)`, Set: map[string]string{"status": "four"}}, `set.status = "four" is not a number`},
		{PatternSpec{Name: "i", Regex: `x (?P<attempt>\d+)`, Set: map[string]string{"colour": "red"}}, "set.colour is not a field"},
		{PatternSpec{Name: "j", Regex: strings.Repeat(`\w{999}`, 30) + `(?P<attempt>\d)`}, "instructions, over the"},
		{PatternSpec{Name: "k", Regex: strings.Repeat("a", 5000) + `(?P<attempt>\d)`}, "over the 4096-byte limit"},
		{PatternSpec{Name: "l", Regex: `x(?=y)(?P<attempt>\d)`}, "does not compile"},
		{PatternSpec{Name: "m", Regex: "  "}, "the pattern is empty"},
	} {
		_, err := CompilePattern(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"`+c.spec.Name+`"`) {
			t.Errorf("%s: error %v, want one naming the format and saying %q", c.spec.Name, err, c.want)
		}
	}
}

func mustPattern(t testing.TB, s PatternSpec) *LinePattern {
	t.Helper()
	p, err := CompilePattern(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The second README example: an app that prints its own retries with no
// time, "⏳ API overloaded, retrying in 5s (attempt 1/3)..."
// (truegwrit/mad-hat-orchestration's steps/claude-client.js prints it).
func TestPatternOwnRetryLines(t *testing.T) {
	p := mustPattern(t, PatternSpec{Name: "claude-client", Regex: `API overloaded, retrying in \d+s \(attempt (?P<attempt>\d+)/\d+\)`,
		Set: map[string]string{"status": "529", "provider": "anthropic"}})
	d := NewDecoder(FormatAuto, nil, Options{Patterns: []*LinePattern{p}})
	lines := []string{
		`{"ts":"2026-03-10T01:00:00Z","event":"job_started","job_id":"step-7","model":"claude-sonnet-4-6"}`,
		"    ⏳ API overloaded, retrying in 5s (attempt 1/3)...",
		"    ⏳ API overloaded, retrying in 10s (attempt 2/3)...",
		"Step 7 done",
		"    ⏳ API overloaded, retrying in 5s (attempt 1/3)...",
	}
	var got []ingest.Event
	var reasons []ingest.SkipReason
	for _, l := range lines {
		reasons = append(reasons, d.Decode([]byte(l), func(e *ingest.Event) { got = append(got, *e) }))
	}
	if len(got) != 4 {
		t.Fatalf("%d events, want the job event and 3 attempts", len(got))
	}
	a := got[1:]
	if a[0].Attempt != 1 || a[1].Attempt != 2 || a[2].Attempt != 1 || a[0].Status != 529 || a[0].Provider != "anthropic" {
		t.Errorf("attempts %+v", a)
	}
	if a[0].IdempotencyKey != a[1].IdempotencyKey || a[1].IdempotencyKey == a[2].IdempotencyKey {
		t.Errorf("keys %q %q %q: attempt 1 after 2 starts a new operation", a[0].IdempotencyKey, a[1].IdempotencyKey, a[2].IdempotencyKey)
	}
	if a[0].JobID != "step-7" || a[0].Model != "claude-sonnet-4-6" || !a[0].TSCarried || a[0].TS == 0 {
		t.Errorf("job %q model %q carried %v TS %d: a text line takes the job, model and time of the line before", a[0].JobID, a[0].Model, a[0].TSCarried, a[0].TS)
	}
	if reasons[3] != ingest.SkipUnmatched {
		t.Errorf("the app's other line: %v, want unmatched", reasons[3])
	}
	h := d.(Hinter).Hint(4)
	if !strings.Contains(h, "1 text line(s) matched none") || !strings.Contains(h, "Step 7 done") {
		t.Errorf("hint %q", h)
	}
}

// TestPatternValuesAreChecked: a value that is not what its field holds
// skips the line as wrong_type; implausible values as the JSON path does.
func TestPatternValuesAreChecked(t *testing.T) {
	p := mustPattern(t, PatternSpec{Name: "x", Regex: `^call (?P<model>\S+) tokens=(?P<output_tokens>\S+) cost=(?P<cost_usd>\S+)`})
	d := NewDecoder(FormatPattern, nil, Options{Patterns: []*LinePattern{p}})
	for line, want := range map[string]ingest.SkipReason{
		"call gpt-4o tokens=12 cost=0.001":           ingest.Accepted,
		"call gpt-4o tokens=twelve cost=0.001":       ingest.SkipWrongType,
		"call gpt-4o tokens=1e12 cost=0.001":         ingest.SkipImplausible,
		"call gpt-4o tokens=12 cost=NaN":             ingest.SkipWrongType,
		"call gpt-4o tokens=-5 cost=0.001":           ingest.SkipWrongType, // as {"output_tokens":-5} is
		"call \x1b[31mgpt-4o\x1b[0m tokens=1 cost=0": ingest.Accepted,
	} {
		var evs []ingest.Event
		if r := d.Decode([]byte(line), func(e *ingest.Event) { evs = append(evs, *e) }); r != want {
			t.Errorf("%q: %v, want %v", line, r, want)
		}
		for _, e := range evs {
			if strings.ContainsRune(e.Model, 0x1b) {
				t.Errorf("escape reached the model: %q", e.Model)
			}
		}
	}
}

// TestPatternTimeLayouts: a ts group in the layouts people print.
func TestPatternTimeLayouts(t *testing.T) {
	for _, c := range []struct{ layout, val, want string }{
		{"", "2026-07-16 20:52:33", "2026-07-16T20:52:33Z"},
		{"", "2025-05-04 00:07:32,016", "2025-05-04T00:07:32.016Z"},
		{"", "1773104400", "2026-03-10T01:00:00Z"},
		{"02/Jan/2006:15:04:05 -0700", "10/Mar/2026:02:00:00 +0100", "2026-03-10T01:00:00Z"},
		{"unix_ms", "1773104400000", "2026-03-10T01:00:00Z"},
	} {
		ts, ok := patternTime(c.val, c.layout)
		if !ok || formatTS(ts) != c.want {
			t.Errorf("%q with %q: %s %v, want %s", c.val, c.layout, formatTS(ts), ok, c.want)
		}
	}
}

func formatTS(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
