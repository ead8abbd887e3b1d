package correlate

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// liveHeap is the heap in use once everything unreachable is collected.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// growth applies lines(from, to) for the ranges [0,n) and [n,2n) and
// returns the live heap's growth over the second range per item: what
// the n items added cost, the state's constants and its first allocations
// left out. The lines are parsed a batch at a time and dropped.
func growth(t *testing.T, st *State, n int, lines func(i int) []string) float64 {
	t.Helper()
	p := decode.NewParser()
	apply := func(from, to int) {
		b := make(ingest.Batch, 0, ingest.BatchSize)
		for i := from; i < to; i++ {
			for _, l := range lines(i) {
				var ev ingest.Event
				if r := p.ParseLine([]byte(l), &ev); r != ingest.Accepted {
					t.Fatalf("%s: %s", l, r)
				}
				b = append(b, ev)
				if len(b) == ingest.BatchSize {
					st.ApplyBatch(b, nil)
					b = make(ingest.Batch, 0, ingest.BatchSize)
				}
			}
		}
		st.ApplyBatch(b, nil)
	}
	apply(0, n)
	before := liveHeap()
	apply(n, 2*n)
	after := liveHeap()
	runtime.KeepAlive(st)
	return float64(int64(after)-int64(before)) / float64(n)
}

// TestBytesPerLiveJobAndOperation: issue 38 — the memory a live job and a
// live operation cost, measured as the live heap's growth from n to 2n of
// them (docs/performance.md quotes these figures; go test -v prints
// them). A job here is gen -night's with -calls 3: started, one keyed
// call retried twice, succeeded; all inside the retention, so none is
// retired. An operation is a never-ending job's request. The bounds have
// room for the hash index's doubling (a power of two may fall between n
// and 2n) and catch a per-job cost that grows by half (measured here
// 2026-12-07: 425, 818 and 109 bytes).
func TestBytesPerLiveJobAndOperation(t *testing.T) {
	if testing.Short() {
		t.Skip("applies 500,000 lines")
	}
	const n = 50_000
	base := int64(1773104400000)
	job := func(i int) []string {
		ts, id := base+int64(i)*3, fmt.Sprintf("job-%07d", i)
		ls := []string{fmt.Sprintf(`{"ts":%d,"event":"job_started","job_id":"%s","job_type":"type-%d"}`, ts, id, i%7)}
		for a := 1; a <= 3; a++ {
			status := 529
			if a == 3 {
				status = 200
			}
			ls = append(ls, fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"%s","job_type":"type-%d","idempotency_key":"%s-0","attempt":%d,"provider":"anthropic","model":"claude-sonnet-4-6","status":%d,"input_tokens":1200,"output_tokens":600,"latency_ms":830}`,
				ts+int64(a), id, i%7, id, a, status))
		}
		return append(ls, fmt.Sprintf(`{"ts":%d,"event":"job_succeeded","job_id":"%s","job_type":"type-%d"}`, ts+4, id, i%7))
	}
	op := func(i int) []string {
		return []string{fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"service","job_type":"api","idempotency_key":"req-%d","model":"gpt-4o-mini","input_tokens":800,"output_tokens":200,"status":200,"latency_ms":900}`,
			base+int64(i)*10, i)}
	}
	for _, c := range []struct {
		name     string
		detail   bool // the dashboard's per-attempt records
		lines    func(int) []string
		atMost   float64
		measured string
	}{
		{"job, report and watch --headless (no attempt detail)", false, job, 640, "job"},
		{"job, the dashboard (attempt detail kept)", true, job, 1230, "job"},
		{"operation of a never-ending job", false, op, 200, "operation"},
	} {
		cfg := DefaultConfig()
		cfg.JobRetention = DefaultJobRetention // nothing here is older: none retired
		cfg.NoAttemptDetail = !c.detail
		st := New(cfg)
		per := growth(t, st, n, c.lines)
		t.Logf("%s: %.0f bytes per live %s", c.name, per, c.measured)
		if per > c.atMost {
			t.Errorf("%s: %.0f bytes per live %s, over %.0f: what grew?", c.name, per, c.measured, c.atMost)
		}
		if st.RetiredJobs() != 0 {
			t.Fatalf("%s: %d jobs retired: the measurement must hold them all", c.name, st.RetiredJobs())
		}
	}
}
