package scenario

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Night writes an n-line log of a large night, for benchmarks: jobs of 12
// lines (start, 10 model calls with SDK retries, success), `concurrent` of
// them in flight at once, so each job's lines are spread across the log
// as a real queue's are — the access pattern that decides how fast
// correlation is, which a log sorted by job hides.
func Night(w io.Writer, n, concurrent int) error { return NightOf(w, n, concurrent, 10) }

// NightOf is Night with jobs of `calls` model calls (calls+2 lines each):
// 3 gives the 5-line jobs of a 1,000,000-job, 5,000,000-line night.
func NightOf(w io.Writer, n, concurrent, calls int) error {
	return night(w, n, concurrent, calls, nil)
}

// NightUniform writes the other shape that hurts: every job is in flight
// for the whole log, each job's lines spread uniformly from the first
// line to the last in a shuffled order, as in a fleet's 24-hour file or a
// log merged from many workers — n/(calls+2) jobs, every lookup a job
// that was last touched a whole round ago. Deterministic for a seed.
func NightUniform(w io.Writer, n, calls int, seed uint64) error {
	calls = max(calls, 1)
	jobs := max(n/(calls+2), 1)
	return night(w, n, jobs, calls, rand.New(rand.NewPCG(seed, 0x6275726e72617465)))
}

func night(w io.Writer, n, concurrent, calls int, shuffle *rand.Rand) error {
	calls = max(calls, 1)
	concurrent = max(concurrent, 1)
	bw := bufio.NewWriterSize(w, 1<<20)
	start := time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC)
	statuses := []int{529, 529, 429, 200, 200, 200, 200, 200}
	type slot struct{ job, step int }
	slots := make([]slot, concurrent)
	next := 0
	for i := range slots {
		slots[i] = slot{job: next}
		next++
	}
	var order []int
	if shuffle != nil {
		order = make([]int, concurrent)
		for i := range order {
			order[i] = i
		}
	}
	for i := 0; i < n; i++ {
		at := i % concurrent
		if order != nil {
			if at == 0 {
				shuffle.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			}
			at = order[at]
		}
		s := &slots[at]
		ts := start.Add(time.Duration(i) * 3 * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
		job := s.job
		switch {
		case s.step == 0:
			fmt.Fprintf(bw, `{"ts":"%s","event":"job_started","job_id":"job-%07d","job_type":"type-%d"}`+"\n", ts, job, job%7)
		case s.step <= calls:
			k := s.step - 1
			st := statuses[(job+k)%len(statuses)]
			fmt.Fprintf(bw, `{"ts":"%s","event":"llm_call","job_id":"job-%07d","job_type":"type-%d","idempotency_key":"job-%07d-%d","attempt":%d,"provider":"anthropic","model":"claude-sonnet-4-6","status":%d,"retry_after_s":%d,"input_tokens":1200,"output_tokens":%d,"cache_read_tokens":4096,"latency_ms":830}`+"\n",
				ts, job, job%7, job, k/3, k%3+1, st, st/200, 300*(st/200))
		default:
			fmt.Fprintf(bw, `{"ts":"%s","event":"job_succeeded","job_id":"job-%07d","job_type":"type-%d"}`+"\n", ts, job, job%7)
		}
		if s.step++; s.step == calls+2 {
			*s = slot{job: next}
			next++
		}
	}
	return bw.Flush()
}
