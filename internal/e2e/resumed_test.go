package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// resumedPair writes an original Claude Code session and the session
// that resumed it, as Claude Code writes them: the resumed transcript
// begins with copies of the original's responses — same message.id,
// requestId, uuid, timestamp and usage, under its own sessionId — then
// its own. Each original response costs $2 (80,000 output tokens of
// claude-opus-4-6 at $25 per million), each of the resumed one's own $0.50.
func resumedPair(orig, resumed string, own int) (origLines, resumedLines string) {
	rec := func(sess string, i int, ts time.Time, out int) string {
		b, _ := json.Marshal(map[string]any{"type": "assistant", "sessionId": sess, "cwd": "/home/dev/proj", "version": "2.1.38",
			"uuid": fmt.Sprintf("u-%d", i), "requestId": fmt.Sprintf("req_%d", i), "timestamp": ts.Format(time.RFC3339Nano),
			"message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "model": "claude-opus-4-6",
				"usage": map[string]any{"input_tokens": 0, "output_tokens": out, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}})
		return string(b) + "\n"
	}
	t0 := time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC)
	var a, b strings.Builder
	for i := range 4 { // the original: $8
		a.WriteString(rec(orig, i, t0.Add(time.Duration(i)*time.Minute), 80_000))
		b.WriteString(rec(resumed, i, t0.Add(time.Duration(i)*time.Minute), 80_000))
	}
	for i := range own { // resumed an hour later
		b.WriteString(rec(resumed, 100+i, t0.Add(time.Hour+time.Duration(i)*time.Minute), 20_000))
	}
	return a.String(), b.String()
}

// TestResumedSessionIsBilledTheSameWhateverTheOrder: issue 35 — a resumed
// session's transcript copies its parent's responses; whichever file was
// read first was billed them, so watch --job-ceiling 5 flagged the
// resumed session for the original's spend when its file sorted first.
// The same two transcripts, each under either file name (so read either
// first), with the resumed session's ID sorting before or after the
// original's: byte-identical reports, each response billed to the
// session that made it.
func TestResumedSessionIsBilledTheSameWhateverTheOrder(t *testing.T) {
	for _, ids := range [][2]string{
		{"11111111-aaaa-4aaa-8aaa-000000000001", "99999999-bbbb-4bbb-8bbb-000000000009"},
		{"99999999-aaaa-4aaa-8aaa-000000000009", "11111111-bbbb-4bbb-8bbb-000000000001"},
	} {
		orig, resumed := resumedPair(ids[0], ids[1], 2)
		var reports [2][]byte
		var mds [2][]byte
		for k, files := range [][2]string{{orig, resumed}, {resumed, orig}} {
			dir := filepath.Join(t.TempDir(), "proj")
			os.MkdirAll(dir, 0o755)
			testutil.WriteFile(t, filepath.Join(dir, "a.jsonl"), files[0])
			testutil.WriteFile(t, filepath.Join(dir, "b.jsonl"), files[1])
			// The same path each time, so the reports name the same files.
			stable := filepath.Join(os.TempDir(), "burnrate-resumed-"+strings.ReplaceAll(t.Name(), "/", "_"))
			os.RemoveAll(stable)
			if err := os.Rename(dir, stable); err != nil {
				t.Fatal(err)
			}
			out, err := run(t, "report", "--format", "json", stable)
			if err != nil && err != errCritical {
				t.Fatalf("report: %v", err)
			}
			md, _ := run(t, "report", stable)
			os.RemoveAll(stable)
			reports[k], mds[k] = []byte(out), []byte(md)
			var r struct {
				Jobs []struct {
					JobID    string  `json:"job_id"`
					Attempts int     `json:"attempts"`
					SpendUSD float64 `json:"spend_usd"`
				} `json:"jobs"`
			}
			json.Unmarshal([]byte(out), &r)
			got := map[string]string{}
			for _, j := range r.Jobs {
				got[j.JobID] = fmt.Sprintf("%d calls $%.2f", j.Attempts, j.SpendUSD)
			}
			if got[ids[0]] != "4 calls $8.00" || got[ids[1]] != "2 calls $1.00" {
				t.Errorf("ids %v, order %d: %v; want the original 4 calls $8.00, the resumed one 2 calls $1.00", ids, k, got)
			}
		}
		if !bytes.Equal(reports[0], reports[1]) || !bytes.Equal(mds[0], mds[1]) {
			t.Errorf("ids %v: the reports differ with the files' order", ids)
		}
	}
}
