package correlate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestANewJobNeverTakesALiveJobsSeq: Seq was len(jobList), which a
// retention compaction (or a trace's job folded into its job) shortens,
// so a job seen after it took the Seq of a live one — and with it that
// job's records' own cost, agent-reported figure, fork copies and
// summarized tries, all kept by Seq. Here a job that lives all night
// carries its records' own cost; 3,000 short jobs (one every 2 s) retire around it;
// and 400 jobs that never end; then new jobs come. Every live job's Seq is its own, the new jobs hold
// no cost of their own records, and the long job keeps its own.
func TestANewJobNeverTakesALiveJobsSeq(t *testing.T) {
	p := decode.NewParser()
	cfg := DefaultConfig()
	cfg.JobRetention = 10 * time.Minute
	st := New(cfg)
	base := int64(1773104400000)
	var b ingest.Batch
	add := func(l string) {
		var ev ingest.Event
		if r := p.ParseLine([]byte(l), &ev); r != ingest.Accepted {
			t.Fatalf("%s: %s", l, r)
		}
		b = append(b, ev)
		if len(b) == 64 {
			st.ApplyBatch(b, nil)
			b = make(ingest.Batch, 0, 64)
		}
	}
	call := func(ts int64, job string, cost string) {
		add(fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"%s","model":"claude-sonnet-4-6","status":200,"input_tokens":1000,"output_tokens":50%s}`, ts, job, cost))
	}
	for i := range 3000 {
		ts := base + int64(i)*2_000
		add(fmt.Sprintf(`{"ts":%d,"event":"job_started","job_id":"short-%03d"}`, ts, i))
		call(ts+100, fmt.Sprintf("short-%03d", i), "")
		add(fmt.Sprintf(`{"ts":%d,"event":"job_succeeded","job_id":"short-%03d"}`, ts+200, i))
		if i%300 == 0 {
			call(ts+300, "all-night", `,"cost_usd":0.5`)
		}
		if i < 800 && i%2 == 0 { // jobs that never end, each with its records' own cost
			add(fmt.Sprintf(`{"ts":%d,"event":"job_started","job_id":"open-%03d"}`, ts+400, i))
			call(ts+500, fmt.Sprintf("open-%03d", i), `,"cost_usd":0.25`)
		}
	}
	for i := range 500 {
		call(base+3000*2_000+int64(i)*1000, fmt.Sprintf("late-%d", i), "")
	}
	st.ApplyBatch(b, nil)
	seen := map[int32]string{}
	for _, j := range st.jobList {
		if other, dup := seen[j.Seq]; dup {
			t.Errorf("jobs %s and %s share Seq %d", other, j.ID, j.Seq)
		}
		seen[j.Seq] = j.ID
	}
	if st.RetiredJobs() == 0 {
		t.Fatalf("no job retired, so nothing was tested")
	}
	for _, j := range st.jobList {
		if rec, _, _, ok := st.Recorded(j); ok && j.ID != "all-night" && !strings.HasPrefix(j.ID, "open-") {
			t.Errorf("%s, whose records carry no cost, holds a recorded cost of %s: another job's", j.ID, USD(rec.USD()))
		}
	}
	if rec, _, calls, ok := st.Recorded(st.Job("all-night")); !ok || calls != 10 || rec != PicoFromUSD(5) {
		t.Errorf("all-night's own recorded cost: %v over %d calls (ok %v), want $5 over 10", rec, calls, ok)
	}
}
