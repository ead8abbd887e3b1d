package correlate

import (
	"fmt"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestOneSkewedLineAgesNoJob: issue 34 — one line from a skewed clock, 10 h
// ahead (local time written as UTC), moved the log clock, and every job in
// flight was idle by it: each began again from $0 at its next call, and
// 412 of 1,100 job-ceiling alerts never fired. A line more than an hour
// ahead of the events around it is billed at its own time and counted; it
// moves no clock, so no job is aged by it.
func TestOneSkewedLineAgesNoJob(t *testing.T) {
	cfg := DefaultConfig()
	st := New(cfg)
	t0 := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC).UnixNano()
	c := func(job string, ts int64) ingest.Event {
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.Status, ev.JobID, ev.Model, ev.CostUSD, ev.HasCost = ts, ingest.KindLLMCall, 200, job, "claude-sonnet-4-5", 0.18, true
		return ev
	}
	for i := range 100 {
		ev := c(fmt.Sprintf("job-%d", i), t0+int64(i)*int64(time.Second))
		st.Apply(&ev)
	}
	skew := c("job-skewed", t0+10*int64(time.Hour))
	st.Apply(&skew)
	for i := range 100 {
		ev := c(fmt.Sprintf("job-%d", i), t0+2*int64(time.Minute)+int64(i)*int64(time.Second))
		st.Apply(&ev)
	}
	for i := range 100 {
		j := st.Job(fmt.Sprintf("job-%d", i))
		if j == nil || j.Spend != PicoFromUSD(0.36) || j.Calls != 2 {
			t.Fatalf("job-%d after the skewed line: %+v, want $0.36 in 2 calls", i, j)
		}
	}
	if st.OutOfOrder() != 1 || st.Now() > t0+int64(time.Hour) {
		t.Errorf("out of order %d, clock %s: the skewed line moved it", st.OutOfOrder(), time.Unix(0, st.Now()).UTC())
	}
	// The next night, eight hours on: the clock follows once half the
	// recent events are there, and its first events are not counted out
	// of order.
	night := t0 + 8*int64(time.Hour)
	for i := range 100 {
		ev := c(fmt.Sprintf("next-%d", i), night+int64(i)*int64(time.Second))
		st.Apply(&ev)
	}
	if st.Now() < night || st.OutOfOrder() != 1 {
		t.Errorf("after the next night: clock %s, out of order %d (want the night's time, and only the skewed line)", time.Unix(0, st.Now()).UTC(), st.OutOfOrder())
	}
}

// TestASkewedSourceAgesNoJobOfAnother: issue 34 — a second source whose
// clock is 10 h ahead (local time written as UTC) and logs more than the
// first moved the one log clock: the first source's 1,100 jobs in flight
// were idle by it, retired, and each began again from $0 at its next
// call. Each job is judged on its own source's clock.
func TestASkewedSourceAgesNoJobOfAnother(t *testing.T) {
	cfg := DefaultConfig()
	cfg.JobRetention = 6 * time.Hour
	st := New(cfg)
	t0 := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC).UnixNano()
	c := func(src uint16, job string, ts int64) ingest.Event {
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.Status, ev.JobID, ev.Model, ev.CostUSD, ev.HasCost, ev.Source = ts, ingest.KindLLMCall, 200, job, "claude-sonnet-4-5", 0.18, true, src
		return ev
	}
	const jobs = 1100
	for i := range jobs {
		ev := c(0, fmt.Sprintf("job-%d", i), t0+int64(i)*int64(time.Millisecond))
		st.Apply(&ev)
	}
	// The skewed source logs more than the honest one: the log clock
	// follows it.
	for i := range 2 * jobs {
		ev := c(1, fmt.Sprintf("skewed-%d", i%7), t0+10*int64(time.Hour)+int64(i)*int64(time.Millisecond))
		st.Apply(&ev)
	}
	for i := range jobs {
		if j := st.Job(fmt.Sprintf("job-%d", i)); j == nil || st.Outcome(j, false) != OutcomeActive {
			t.Fatalf("job-%d is not active on its own source's clock: %+v", i, j)
		}
	}
	for i := range jobs {
		ev := c(0, fmt.Sprintf("job-%d", i), t0+2*int64(time.Minute)+int64(i)*int64(time.Millisecond))
		st.Apply(&ev)
	}
	if n := st.RetiredJobs(); n != 0 {
		t.Errorf("%d jobs retired by another source's clock", n)
	}
	for i := range jobs {
		j := st.Job(fmt.Sprintf("job-%d", i))
		if j == nil || j.Spend != PicoFromUSD(0.36) || j.Calls != 2 {
			t.Fatalf("job-%d: %+v, want $0.36 in 2 calls", i, j)
		}
	}
	// A day on by the honest source's own clock, its jobs retire; the
	// skewed source's, on a clock of its own, stay.
	for i := range 64 {
		ev := c(0, "next", t0+24*int64(time.Hour)+int64(i)*int64(time.Millisecond))
		st.Apply(&ev)
	}
	if j := st.Job("job-0"); j != nil {
		t.Errorf("job-0 is kept a day past its own source's clock: %+v", j)
	}
	if j := st.Job("skewed-0"); j == nil {
		t.Errorf("skewed-0 retired by another source's clock")
	}
}

// TestAQuietSourceAgesOnWallTime: with a clock per source, a log that
// went quiet had no event to move its clock, and its jobs stayed active
// and were never retired — on the one log clock another log kept them
// ageing. Live (SetWall), a quiet source's clock runs on with wall time.
func TestAQuietSourceAgesOnWallTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.JobRetention = 10 * time.Minute
	st := New(cfg)
	t0 := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC).UnixNano()
	wall := int64(1_000_000) * int64(time.Hour)
	c := func(src uint16, job string, ts int64) {
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.Status, ev.JobID, ev.Model, ev.CostUSD, ev.HasCost, ev.Source = ts, ingest.KindLLMCall, 200, job, "claude-sonnet-4-5", 0.01, true, src
		st.Apply(&ev)
	}
	st.SetWall(wall)
	for i := range 1100 {
		c(0, fmt.Sprintf("quiet-%d", i), t0)
	}
	// The other log is 10 h ahead and logs on; the first says nothing.
	for i := range 100 {
		st.SetWall(wall + int64(i)*int64(time.Second))
		c(1, "busy", t0+10*int64(time.Hour)+int64(i)*int64(time.Second))
	}
	if o := st.Outcome(st.Job("quiet-0"), false); o != OutcomeActive {
		t.Fatalf("quiet-0 is %s after 100 s: the other log's clock aged it", o)
	}
	// Twenty minutes of wall time on: idle and retired.
	for i := range 10 {
		st.SetWall(wall + 20*int64(time.Minute) + int64(i)*int64(time.Second))
		c(1, "busy", t0+10*int64(time.Hour)+int64(200+i)*int64(time.Second))
	}
	if j := st.Job("quiet-0"); j != nil {
		t.Errorf("quiet-0 is kept 20 minutes of wall time after its log went quiet: %s", st.Outcome(j, false))
	}
	if st.RetiredJobs() != 1100 {
		t.Errorf("%d jobs retired, want the quiet log's 1,100", st.RetiredJobs())
	}
}

// TestSourceClocksAreBounded: red team of issue 34 — an OTLP sender that
// names a new service in every request made a clock each (about 600
// bytes) in every run's State. Past maxSourceClocks a source is judged on
// the log clock.
func TestSourceClocksAreBounded(t *testing.T) {
	st := New(DefaultConfig())
	t0 := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC).UnixNano()
	for i := range 40000 {
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.Status, ev.JobID, ev.Model, ev.CostUSD, ev.HasCost, ev.Source = t0+int64(i)*int64(time.Millisecond), ingest.KindLLMCall, 200, fmt.Sprint("j", i%100), "claude-sonnet-4-5", 0.01, true, uint16(i)
		st.Apply(&ev)
	}
	if n := len(st.srcClocks); n > maxSourceClocks {
		t.Fatalf("%d source clocks, over the bound of %d", n, maxSourceClocks)
	}
	if o := st.Outcome(st.Job("j1"), false); o != OutcomeActive {
		t.Errorf("a job of a source past the bound is %s, want active on the log clock", o)
	}
}
