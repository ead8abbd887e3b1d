package matrix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/internal/testutil"
	"github.com/burnrate-dev/burnrate/lab/mockprovider"
)

// The lab reads the real binary's report: a log in burnrate's own
// documented shape, one line per HTTP call, must come out exact against
// the ledger of the same calls. It holds the lab's reading of the report
// JSON (a renamed field would read as 0 calls) and the comparison
// together, on a real process.
func TestReportOfExactLogIsExact(t *testing.T) {
	dir := t.TempDir()
	price := correlate.EmbeddedPrices().Resolve("claude-sonnet-4-5").Price
	var log strings.Builder
	var entries []mockprovider.Entry
	calls := []struct {
		job     string
		status  int
		in, out int64
	}{{"a", 529, 0, 0}, {"a", 529, 0, 0}, {"a", 200, 700, 120}, {"b", 200, 300, 40}, {"c", 529, 0, 0}, {"c", 529, 0, 0}}
	for i, c := range calls {
		fmt.Fprintf(&log, `{"ts":"2026-03-10T01:00:%02d.000Z","event":"llm_call","job_id":%q,"attempt":%d,"provider":"anthropic","model":"claude-sonnet-4-5","status":%d,"input_tokens":%d,"output_tokens":%d}`+"\n",
			i, c.job, i+1, c.status, c.in, c.out)
		e := mockprovider.Entry{Seq: int64(i + 1), Job: c.job, Status: c.status, InputTokens: c.in, OutputTokens: c.out}
		if c.status == 200 {
			e.CostPico = int64(price.Cost(c.in, c.out, 0, 0))
		}
		entries = append(entries, e)
	}
	for _, j := range []string{"a", "b"} {
		fmt.Fprintf(&log, `{"ts":"2026-03-10T01:01:00.000Z","event":"job_succeeded","job_id":%q}`+"\n", j)
	}
	fmt.Fprintf(&log, `{"ts":"2026-03-10T01:01:00.000Z","event":"job_failed","job_id":"c"}`+"\n")
	if err := os.WriteFile(filepath.Join(dir, "app.log"), []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Lab{Burnrate: testutil.Binary(t)}
	seen, note, err := l.report(dir, []string{"app.log"})
	if err != nil || note != "" {
		t.Fatalf("report: %v %s", err, note)
	}
	r := Compare(TruthFrom(entries), seen)
	if r.JobsExact != 3 || r.JobsWrong != 0 || r.SeenCalls != 6 || r.WireCalls != 6 {
		t.Fatalf("result %+v", r)
	}
	// The same report against a wire with one more call of job a: wrong.
	entries = append(entries, mockprovider.Entry{Seq: 99, Job: "a", Status: 529})
	if r := Compare(TruthFrom(entries), seen); r.JobsWrong != 1 || !strings.Contains(r.Wrong[0], "calls 3, wire 4") {
		t.Fatalf("result %+v", r)
	}
}
