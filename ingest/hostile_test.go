package ingest

import (
	"strings"
	"testing"
)

// TestHostileTextEdges: issue 12's edges — a BOM lost the first line,
// distinct invalid-UTF-8 IDs merged into one job, valid JSON nested past
// 512 levels was called invalid, and the "no events" hint printed JSON
// keys (terminal escapes) raw.
func TestHostileTextEdges(t *testing.T) {
	it := NewIter(strings.NewReader("\xEF\xBB\xBF"+`{"ts":"2026-03-10T01:00:00Z","job_id":"j","model":"m","status":200}`+"\n"), "bom", 0)
	var ev Event
	if !it.Next(&ev) || ev.JobID != "j" {
		t.Errorf("a BOM lost the first line: %+v %+v", ev, it.Stats)
	}

	ids := map[string]bool{}
	for _, raw := range []string{"job-\xff", "job-\xfe", "job-\xfd\xfc"} {
		ev, r := parse(t, `{"job_id":"`+raw+`","model":"m","status":200}`)
		if r != Accepted {
			t.Fatalf("%q: %v", raw, r)
		}
		ids[ev.JobID] = true
	}
	if len(ids) != 3 {
		t.Errorf("distinct invalid-UTF-8 IDs merged: %v", ids)
	}

	ev, _ = parse(t, `{"job_id":"job\u202eexe.txt","model":"m\u200b","status":200}`)
	if ev.JobID != `job\u202eexe.txt` || ev.Model != `m\u200b` {
		t.Errorf("bidi and zero-width characters must be shown escaped: %q %q", ev.JobID, ev.Model)
	}

	deep := `{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`
	if _, r := parse(t, deep); r != SkipTooDeep {
		t.Errorf("valid JSON 600 levels deep: %v, want too_deep", r)
	}

	it = NewIter(strings.NewReader(`{"\u001b]0;pwned\u0007":1,"\u001b[2J":2}`+"\n"), "keys", 0)
	for it.Next(&ev) {
	}
	if h := it.Hint(); h == "" || strings.ContainsAny(h, "\x1b\x07") {
		t.Errorf("the hint must show keys escaped: %q", h)
	}
}
