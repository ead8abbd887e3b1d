// Package scenario builds burnrate's sample logs and demo: reconstructions
// of the seed incidents and a healthy night. It is deterministic: the same
// build writes the same bytes, so golden tests can pin the reports.
package scenario

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"
)

// Samples lists every sample log by file name.
var Samples = map[string]func() []Line{
	"seed000-incident.jsonl":        seed000Incident,
	"seed000-after-fix.jsonl":       seed000AfterFix,
	"seed001-poisoned-400.jsonl.gz": seed001Poisoned,
	"seed002-six-pipelines.jsonl":   seed002Pipelines,
	"healthy-night.jsonl":           healthyNight,
}

// Line is one log record; the generator writes canonical field names.
type Line struct {
	at             int64    // ms since the sample's start; rendered into TS
	seq            int      // tie-break: emission order
	TS             string   `json:"ts"`
	Event          string   `json:"event"`
	JobID          string   `json:"job_id,omitempty"`
	JobType        string   `json:"job_type,omitempty"`
	CorrelationID  string   `json:"correlation_id,omitempty"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Attempt        int      `json:"attempt,omitempty"`
	Provider       string   `json:"provider,omitempty"`
	Model          string   `json:"model,omitempty"`
	Tool           string   `json:"tool,omitempty"`
	Status         *int     `json:"status,omitempty"`
	ErrorType      string   `json:"error_type,omitempty"`
	RetryAfterS    *float64 `json:"retry_after_s,omitempty"`
	RateLimitTok   *int     `json:"ratelimit_remaining_tokens,omitempty"`
	InputTokens    int      `json:"input_tokens,omitempty"`
	OutputTokens   int      `json:"output_tokens,omitempty"`
	CacheRead      int      `json:"cache_read_tokens,omitempty"`
	CacheCreation  int      `json:"cache_creation_tokens,omitempty"`
	LatencyMs      int      `json:"latency_ms,omitempty"`
	StreamDropped  bool     `json:"stream_dropped,omitempty"`
	Reason         string   `json:"reason,omitempty"`
}

// Write sorts lines by time (stable in emission order) and writes them.
func Write(w io.Writer, lines []Line) error {
	for i := range lines {
		lines[i].seq = i
	}
	slices.SortStableFunc(lines, func(a, b Line) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.seq - b.seq
	})
	enc := json.NewEncoder(w)
	for i := range lines {
		if err := enc.Encode(&lines[i]); err != nil {
			return err
		}
	}
	return nil
}

// log collects lines against one start time.
type log struct {
	start time.Time
	lines []Line
}

func newLog(start string) *log {
	t, err := time.Parse(time.RFC3339, start)
	if err != nil {
		panic(err)
	}
	return &log{start: t}
}

func (l *log) add(at int64, ln Line) {
	ln.at = at
	ln.TS = l.start.Add(time.Duration(at) * time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z")
	l.lines = append(l.lines, ln)
}

func intp(v int) *int           { return &v }
func floatp(v float64) *float64 { return &v }

// job is a helper that stamps a job's identity on its lines.
type job struct {
	l               *log
	id, typ, idem   string
	provider, model string
}

func (j job) lifecycle(at int64, event, reason string) {
	j.l.add(at, Line{Event: event, JobID: j.id, JobType: j.typ, Reason: reason})
}

// call logs one model attempt; it returns when the response arrived.
func (j job) call(at int64, attempt, status, latency int, c cost) int64 {
	ln := Line{Event: "llm_call", JobID: j.id, JobType: j.typ, IdempotencyKey: j.idem, Attempt: attempt,
		Provider: j.provider, Model: j.model, Status: intp(status), LatencyMs: latency,
		InputTokens: c.in, OutputTokens: c.out, CacheRead: c.cacheRead, CacheCreation: c.cacheWrite,
		ErrorType: errorType(status), RetryAfterS: c.retryAfter, RateLimitTok: c.remaining}
	j.l.add(at, ln)
	return at + int64(latency)
}

func (j job) tool(at int64, tool, idem string, attempt, status, latency int) int64 {
	j.l.add(at, Line{Event: "tool_call", JobID: j.id, JobType: j.typ, IdempotencyKey: idem, Attempt: attempt,
		Tool: tool, Status: intp(status), LatencyMs: latency, ErrorType: errorType(status)})
	return at + int64(latency)
}

type cost struct {
	in, out, cacheRead, cacheWrite int
	retryAfter                     *float64
	remaining                      *int
}

func errorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	case 500:
		return "api_error"
	case 0:
		return "timeout"
	}
	return ""
}

// seed000Incident: 22 report jobs against a wall of 529s, each retried by
// the SDK (3 attempts), a p-retry wrapper (3 rounds) and BullMQ (7 queue
// attempts), with no jitter anywhere. 15 jobs burn all 63 calls and reach
// the dead-letter queue 11 m 40 s after enqueue; 7 get through, but a
// worker dies after their report call succeeded and the queue runs them
// again: 9 duplicate reports. 1,043 calls in all.
func seed000Incident() []Line {
	l := newLog("2026-03-10T01:00:00Z")
	const (
		latency529  = 250
		latency200  = 45_000
		pickup      = 1_750
		queueBase   = 10_000
		wrapperBase = 1_000
		sdkBase     = 500
	)
	report := cost{in: 12_000, out: 3_000}
	// outcome of each SDK call per job, by queue attempt, round, SDK attempt.
	type plan [][][]int
	wall := func(n int) []int { return slices.Repeat([]int{529}, n) }
	fullFail := plan{}
	for range 7 {
		fullFail = append(fullFail, [][]int{wall(3), wall(3), wall(3)})
	}
	oneDup := plan{
		{wall(3), wall(3), {529, 529, 200}}, // success, then the worker is OOM-killed
		{wall(3), {529, 200}},
	}
	twoDup := plan{
		{wall(3), wall(3), {529, 529, 200}},
		{{529, 529, 200}}, // killed again
		{{529, 200}},
	}
	for i := range 22 {
		p := fullFail
		switch {
		case i < 5:
			p = oneDup
		case i < 7:
			p = twoDup
		}
		j := job{l: l, id: fmt.Sprintf("report:sess-%04d", 4100+i), typ: "report", provider: "anthropic", model: "claude-sonnet-4-6"}
		j.idem = j.id + ":v1"
		at := int64(i * 5) // enqueued together: the batch ran at 01:00
		j.lifecycle(at, "job_enqueued", "")
		at += pickup
		for q, rounds := range p {
			if q > 0 {
				at += queueBase << (q - 1)
			}
			j.lifecycle(at, "job_started", "")
			succeeded := false
			for r, calls := range rounds {
				if r > 0 {
					at += wrapperBase << (r - 1)
				}
				for k, status := range calls {
					if k > 0 {
						at += sdkBase << (k - 1)
					}
					if status == 200 {
						at = j.call(at, k+1, 200, latency200, report)
						succeeded = true
					} else {
						at = j.call(at, k+1, status, latency529, cost{})
					}
				}
			}
			last := q == len(p)-1
			switch {
			case succeeded && last:
				j.lifecycle(at, "job_succeeded", "")
			case succeeded:
				j.lifecycle(at, "job_failed", "worker lost after the report call: OOM-killed")
			case last:
				j.lifecycle(at, "job_failed", "overloaded_error")
				j.lifecycle(at, "job_dead_lettered", "attempts exhausted (7)")
			default:
				j.lifecycle(at, "job_failed", "overloaded_error")
			}
		}
	}
	return l.lines
}

// seed000AfterFix: the same 22 jobs in the next overload window, with the
// queue as the only retry owner (4 attempts, exponential backoff from 2 s
// with jitter), the SDK at maxRetries 0 and a 30 s absolute deadline:
// 31 calls, at most 3 per job, no duplicates, dead letter after 38 s.
func seed000AfterFix() []Line {
	l := newLog("2026-03-17T01:00:00Z")
	rng := rand.New(rand.NewPCG(0, 17))
	report := cost{in: 12_000, out: 3_000}
	for i := range 22 {
		j := job{l: l, id: fmt.Sprintf("report:sess-%04d", 5100+i), typ: "report", provider: "anthropic", model: "claude-sonnet-4-6"}
		j.idem = j.id + ":v1"
		at := int64(i) * 2_700 // enqueued as sessions finish, spread over a minute
		j.lifecycle(at, "job_enqueued", "")
		var statuses []int
		switch {
		case i == 3:
			statuses = []int{529, 529, 529}
		case i == 8 || i == 13 || i == 19:
			statuses = []int{529, 529, 200}
		case i == 11:
			statuses = []int{529, 200}
		default:
			statuses = []int{200}
		}
		if i == 3 {
			// The deadline case, with fixed timing: 1 + 10 + 2 + 10 + 4 + 11 = 38 s.
			at += 1_000
			for q, lat := range []int{10_000, 10_000, 11_000} {
				if q > 0 {
					at += 2_000 << (q - 1)
				}
				j.lifecycle(at, "job_started", "")
				at = j.call(at, 1, 529, lat, cost{})
				j.lifecycle(at, "job_failed", "overloaded_error")
			}
			j.lifecycle(at, "job_dead_lettered", "deadline exceeded (30s): UnrecoverableError")
			continue
		}
		at += 1_000
		for q, status := range statuses {
			if q > 0 {
				at += int64(rng.Float64() * float64(int64(2_000)<<q)) // full jitter
			}
			j.lifecycle(at, "job_started", "")
			if status == 200 {
				at = j.call(at, 1, 200, 40_000+rng.IntN(10_000), report)
				j.lifecycle(at, "job_succeeded", "")
			} else {
				at = j.call(at, 1, status, 200+rng.IntN(400), cost{})
				j.lifecycle(at, "job_failed", "overloaded_error")
			}
		}
	}
	return l.lines
}

// seed001Poisoned: an overnight enrichment batch of 1,375 records on 12
// workers. A schema change makes 40 % of them (550) answer 400 forever. The
// tool wrapper retries 5 times, the agent re-plans 5 times (each re-plan a
// fresh model call re-reading 6,000 tokens and writing 400), the
// orchestrator re-queues 3 times: 75 doomed tool calls and 15 model calls
// per poisoned record, $0.024 each, $198 in all.
func seed001Poisoned() []Line {
	l := newLog("2026-04-14T01:00:00Z")
	const (
		items      = 1_375
		workers    = 12
		modelLat   = 4_000
		toolLat    = 150
		queueRetry = 30_000
	)
	stuck := cost{in: 6_000, out: 400}
	workerAt := make([]int64, workers)
	for i := range items {
		w := i % workers
		at := workerAt[w]
		poisoned := i%5 == 1 || i%5 == 3
		j := job{l: l, id: fmt.Sprintf("rec-%05d", i), typ: "enrich", provider: "anthropic", model: "claude-sonnet-4-6"}
		toolKey := fmt.Sprintf("enrich:rec-%05d", i)
		if !poisoned {
			j.lifecycle(at, "job_started", "")
			j.idem = fmt.Sprintf("plan:rec-%05d:1", i)
			at = j.call(at, 1, 200, modelLat, stuck)
			at = j.tool(at, "/v1/enrich", toolKey, 1, 200, toolLat)
			j.lifecycle(at, "job_succeeded", "")
			workerAt[w] = at + 500
			continue
		}
		for q := range 3 {
			if q > 0 {
				at += queueRetry << (q - 1)
			}
			j.lifecycle(at, "job_started", "")
			for r := range 5 { // the agent re-plans after each terminal tool error
				j.idem = fmt.Sprintf("plan:rec-%05d:%d", i, q*5+r+1) // each re-plan is a new request
				at = j.call(at, 1, 200, modelLat, stuck)
				for k := range 5 {
					if k > 0 {
						at += 1_000 << (k - 1)
					}
					at = j.tool(at, "/v1/enrich", toolKey, k+1, 400, toolLat)
				}
			}
			j.lifecycle(at, "job_failed", "tool /v1/enrich answered 400 Bad Request")
		}
		j.lifecycle(at, "job_dead_lettered", "re-queued 3 times")
		workerAt[w] = at + 500
	}
	return l.lines
}

// seed002Pipelines: six content pipelines sharing one rate limit. Calls
// that meet a 429 sleep exactly Retry-After and retry — about a quarter of
// them hit the window edge and get another 429 — and because every
// pipeline sleeps the same header value, their retries land together. Some
// 429s arrive without Retry-After and fall back to 30 s.
func seed002Pipelines() []Line {
	l := newLog("2026-05-20T06:00:00Z")
	rng := rand.New(rand.NewPCG(2, 2))
	sites := []string{"site-a", "site-b", "site-c", "site-d", "site-e", "site-f"}
	const jobsPerSite = 30
	article := func() cost {
		return cost{in: 1_500 + rng.IntN(1_000), out: 900 + rng.IntN(600), cacheRead: 8_000, remaining: intp(40_000 + rng.IntN(40_000))}
	}
	for n := range jobsPerSite {
		// Every fifth round the shared limit is exhausted and all six
		// pipelines meet a 429 at the same moment.
		wave := n%5 == 4
		retryAfter := float64(2 + n%4)
		for s, site := range sites {
			j := job{l: l, id: fmt.Sprintf("%s/%s/article-%02d", site, "2026-05-20", n), typ: site, provider: "anthropic", model: "claude-sonnet-4-6"}
			j.idem = fmt.Sprintf("idem-%s-%02d", site, n)
			at := int64(n)*240_000 + int64(s)*40 // pipelines are scheduled on the same cron
			if !wave {
				at += int64(rng.IntN(90_000))
			}
			j.lifecycle(at, "job_started", "")
			attempt := 1
			if wave {
				for {
					if s == 5 && n%10 == 9 {
						// 429 during overload: no Retry-After; the client waits 30 s.
						at = j.call(at, attempt, 429, 120, cost{})
						at += 30_000
						attempt++
						break
					}
					at = j.call(at, attempt, 429, 120, cost{retryAfter: floatp(retryAfter)})
					at += int64(retryAfter * 1000) // exactly Retry-After: no jitter
					attempt++
					if rng.IntN(4) != 0 || attempt > 3 {
						break
					}
				}
			}
			at = j.call(at, attempt, 200, 8_000+rng.IntN(6_000), article())
			j.lifecycle(at, "job_succeeded", "")
		}
	}
	return l.lines
}

// healthyNight: three job types, 240 jobs, a few calls each; the odd 429 is
// retried once after Retry-After plus positive jitter. Nothing to find.
func healthyNight() []Line {
	l := newLog("2026-06-02T00:00:00Z")
	rng := rand.New(rand.NewPCG(4, 4))
	types := []struct{ typ, model, provider string }{
		{"summarize", "claude-haiku-4-5", "anthropic"},
		{"classify", "gpt-4.1-mini", "openai"},
		{"draft", "claude-sonnet-4-6", "anthropic"},
	}
	for i := range 240 {
		t := types[i%len(types)]
		j := job{l: l, id: fmt.Sprintf("%s-%04d", t.typ, i), typ: t.typ, provider: t.provider, model: t.model}
		at := int64(i)*30_000 + int64(rng.IntN(20_000))
		j.lifecycle(at, "job_enqueued", "")
		at += 200 + int64(rng.IntN(800))
		j.lifecycle(at, "job_started", "")
		for c := range 1 + rng.IntN(3) {
			j.idem = fmt.Sprintf("%s-call-%d", j.id, c)
			attempt := 1
			if rng.IntN(40) == 0 {
				ra := float64(1 + rng.IntN(3))
				at = j.call(at, 1, 429, 90, cost{retryAfter: floatp(ra)})
				at += int64(ra * 1000 * (1.2 + 0.3*rng.Float64()))
				attempt = 2
			}
			at = j.call(at, attempt, 200, 1_500+rng.IntN(3_000), cost{in: 800 + rng.IntN(2_000), out: 200 + rng.IntN(500), cacheRead: 1_024 * rng.IntN(3)})
			at += int64(rng.IntN(300))
		}
		j.lifecycle(at, "job_succeeded", "")
	}
	return l.lines
}

// Demo is the built-in overnight batch behind `burnrate demo`: 25 minutes
// of log time, healthy at first; from minute 3 the provider overloads and
// report jobs retry through three nested layers with no jitter; from
// minute 4 one poisoned enrichment record retries a 400 forever.
func Demo() []Line {
	l := newLog("2026-03-10T01:00:00Z")
	rng := rand.New(rand.NewPCG(7, 7))
	const minute = 60_000
	overloadFrom, overloadTo := int64(3*minute), int64(14*minute)
	// Steady background traffic across the whole night.
	kinds := []struct{ typ, model, provider string }{
		{"summarize", "claude-haiku-4-5", "anthropic"},
		{"classify", "gpt-4.1-mini", "openai"},
		{"draft", "claude-sonnet-4-6", "anthropic"},
	}
	for i := range 700 {
		k := kinds[i%len(kinds)]
		j := job{l: l, id: fmt.Sprintf("%s-%04d", k.typ, i), typ: k.typ, provider: k.provider, model: k.model}
		at := int64(i)*2_100 + int64(rng.IntN(1_500))
		j.lifecycle(at, "job_enqueued", "")
		at += 300
		j.lifecycle(at, "job_started", "")
		j.idem = j.id + "-c0"
		attempt := 1
		if k.provider == "anthropic" && at > overloadFrom && at < overloadTo && rng.IntN(3) == 0 {
			ra := float64(1 + rng.IntN(3))
			at = j.call(at, 1, 429, 80, cost{retryAfter: floatp(ra)})
			at += int64(ra * 1000 * (1.2 + 0.3*rng.Float64()))
			attempt = 2
		}
		at = j.call(at, attempt, 200, 1_200+rng.IntN(2_500), cost{in: 900 + rng.IntN(1_500), out: 250 + rng.IntN(400), cacheRead: 2_048})
		j.lifecycle(at, "job_succeeded", "")
	}
	// The overload: 16 report jobs, SDK 3 × wrapper 3 × queue 7, no jitter.
	for i := range 16 {
		j := job{l: l, id: fmt.Sprintf("report:sess-%04d", 7100+i), typ: "report", provider: "anthropic", model: "claude-sonnet-4-6"}
		j.idem = j.id + ":v1"
		at := overloadFrom + int64(i*7)
		j.lifecycle(at, "job_enqueued", "")
		at += 1_500
		recovers := i < 4
		for q := range 7 {
			if q > 0 {
				at += 5_000 << (q - 1)
			}
			j.lifecycle(at, "job_started", "")
			for r := range 3 {
				if r > 0 {
					at += 1_000 << (r - 1)
				}
				for k := range 3 {
					if k > 0 {
						at += 500 << (k - 1)
					}
					if recovers && q == 2 && r == 2 && k == 2 {
						at = j.call(at, k+1, 200, 30_000, cost{in: 12_000, out: 3_000})
						continue
					}
					at = j.call(at, k+1, 529, 250, cost{})
				}
			}
			if recovers && q == 2 {
				j.lifecycle(at, "job_succeeded", "")
				break
			}
			j.lifecycle(at, "job_failed", "overloaded_error")
			if q == 6 {
				j.lifecycle(at, "job_dead_lettered", "attempts exhausted (7)")
			}
		}
	}
	// The poisoned record: its tool answers 400; tool 5 × agent 5 × queue 3.
	p := job{l: l, id: "rec-00042", typ: "enrich", provider: "anthropic", model: "claude-sonnet-4-6"}
	at := int64(4 * minute)
	for q := range 3 {
		if q > 0 {
			at += 30_000 << (q - 1)
		}
		p.lifecycle(at, "job_started", "")
		for r := range 5 {
			p.idem = fmt.Sprintf("plan:rec-00042:%d", q*5+r+1)
			at = p.call(at, 1, 200, 4_000, cost{in: 6_000, out: 400})
			for k := range 5 {
				if k > 0 {
					at += 1_000 << (k - 1)
				}
				at = p.tool(at, "/v1/enrich", "enrich:rec-00042", k+1, 400, 150)
			}
		}
		p.lifecycle(at, "job_failed", "tool /v1/enrich answered 400 Bad Request")
	}
	p.lifecycle(at, "job_dead_lettered", "re-queued 3 times")
	return l.lines
}
