package file

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestArrayRecordOverCapIsSkippedAlone: a JSON array whose first record
// was over the record cap lost every record after it (and peaked at 251
// MiB for a 100 MB one, under a 64 MiB cap): the record is skipped in
// constant memory, counted too long, and the array read on after it —
// strings holding brackets, quotes and escapes included.
func TestArrayRecordOverCapIsSkippedAlone(t *testing.T) {
	good := func(id string) string {
		return `{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"` + id + `","model":"claude-sonnet-4-6","status":200,"input_tokens":10,"output_tokens":5}`
	}
	big := `{"event":"llm_call","msg":"` + strings.Repeat(`a]}[{\"\\`, (MaxArrayRecordBytes+1<<20)/8) + `","nested":{"a":[1,{"b":"}"}]}}`
	for _, c := range []struct {
		name, doc string
		want      []string
		tooLong   int64
	}{
		{"first", "[" + big + ",\n" + good("after") + "]\n", []string{"after"}, 1},
		{"middle", "[" + good("before") + ", " + big + " , " + good("after") + "]", []string{"before", "after"}, 1},
		{"last", "[" + good("before") + "," + big + "]\n" + good("line") + "\n", []string{"before", "line"}, 1},
		{"two", "[" + big + "," + big + "," + good("after") + "]", []string{"after"}, 2},
		// Cut off inside the record: the reader stops at the end of the
		// stream, the records before it kept.
		{"cut", "[" + good("before") + "," + big[:len(big)-40], []string{"before"}, 1},
		// Garbage after it: the document ends there, as a broken one does.
		{"garbage", "[" + good("before") + "," + big + " x " + good("after") + "]", []string{"before"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			it := NewIter(strings.NewReader(c.doc), "doc.json", 0, decode.Options{})
			var ev ingest.Event
			var got []string
			for it.Next(&ev) {
				got = append(got, ev.JobID)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("jobs %v, want %v (stats %+v, err %v)", got, c.want, it.Stats, it.Err)
			}
			if it.Stats.Skipped[ingest.SkipTooLong] != c.tooLong {
				t.Errorf("too_long %d, want %d (stats %+v)", it.Stats.Skipped[ingest.SkipTooLong], c.tooLong, it.Stats)
			}
		})
	}
}
