package file

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestImplausibleAndOutOfRangeAreCountedSkips: issue 11 — one line with a
// trillion tokens or a $9M cost wrapped the run's spend negative, and a
// year-9999 timestamp wrapped to 1715. Each is now a counted skip and the
// good lines around it are kept.
func TestImplausibleAndOutOfRangeAreCountedSkips(t *testing.T) {
	good := `{"ts":"2026-03-10T01:00:00Z","job_id":"j","model":"claude-sonnet-4-6","status":200,"input_tokens":10,"output_tokens":5}`
	cases := map[string]ingest.SkipReason{
		`{"ts":"2026-03-10T01:00:01Z","job_id":"j","model":"m","status":200,"output_tokens":1000000000000}`: ingest.SkipImplausible,
		`{"ts":"2026-03-10T01:00:01Z","job_id":"j","model":"m","status":200,"input_tokens":100000001}`:      ingest.SkipImplausible,
		`{"ts":"2026-03-10T01:00:01Z","job_id":"j","model":"m","status":200,"cost_usd":9e6}`:                ingest.SkipImplausible,
		`{"ts":"9999-12-31T23:59:59Z","job_id":"j","model":"m","status":200}`:                               ingest.SkipOutOfRange,
		`{"ts":"2300-01-01T00:00:00+01:00","job_id":"j","model":"m","status":200}`:                          ingest.SkipOutOfRange,
		`{"ts":10000000000,"job_id":"j","model":"m","status":200}`:                                          ingest.SkipOutOfRange, // year 2286 in seconds
		`{"ts":"1960-01-01T00:00:00Z","job_id":"j","model":"m","status":200}`:                               ingest.SkipOutOfRange,
	}
	for line, want := range cases {
		it := NewIter(strings.NewReader(good+"\n"+line+"\n"+good+"\n"), "t", 0, decode.Options{})
		var ev ingest.Event
		n := 0
		for it.Next(&ev) {
			n++
			if ev.OutputTokens != 5 {
				t.Errorf("%s: an event of the bad line came through: %+v", line, ev)
			}
		}
		if n != 2 || it.Stats.Skipped[want] != 1 || it.Stats.Lines != 3 {
			t.Errorf("%s: %d events, stats %+v; want 2 events and one %s", line, n, it.Stats, want)
		}
	}
	// At the bounds, a line is still taken.
	ev, r := parse(t, `{"ts":"2199-12-31T23:59:59Z","job_id":"j","model":"m","status":200,"output_tokens":100000000,"cost_usd":100000}`)
	if r != ingest.Accepted || ev.Check() != ingest.Accepted {
		t.Errorf("a line at the bounds: %v / %v", r, ev.Check())
	}
}
