package mockprovider

import (
	"hash/fnv"
	"math/rand/v2"
)

// Fault is what the provider does to one request instead of answering it.
type Fault string

// The faults of a schedule. Their names are the ledger's "fault" values.
const (
	OK               Fault = ""
	Overloaded       Fault = "overloaded"         // Anthropic 529 overloaded_error; OpenAI 503
	RateLimited      Fault = "rate_limited"       // 429 without retry-after
	RateLimitedAfter Fault = "rate_limited_after" // 429 with retry-after: 1
	BadRequest       Fault = "bad_request"        // 400 invalid_request_error: never succeeds
	ServerError      Fault = "server_error"       // 500 api_error
	Timeout          Fault = "timeout"            // the connection is held past the client's timeout
	Reset            Fault = "reset"              // the TCP connection is reset before any response
)

// Schedule decides each request's fault from its job and its ordinal
// within the job (0 for the job's first request on the wire). It depends
// on nothing else — not on timing, not on other jobs — so a run at
// concurrency 16 meets the same faults as one at concurrency 1.
type Schedule struct {
	Seed uint64
	// Window, when set, is a storm that ends during the night
	// (StormWindow); the seed then only places each job's start in it.
	Window *StormWindow
}

// StormWindow is a 529 storm that closes during the night, so the jobs it
// caught part-way succeed late and those it caught from their start run
// out of attempts: seed 000's night as its author lived it (22 jobs, 1,043
// calls, SeedNight). Its clock is the schedule's own, never the wall: a
// job starts at a tick drawn from the seed and the job's name in
// [0, Spread), its n-th request falls at that tick + n, and every request
// at a tick below Close is 529 overloaded, every later one answered. A
// job's faults still depend only on its name and ordinal, so concurrency
// 16 meets the same night as concurrency 1.
type StormWindow struct {
	Spread, Close int
}

// SeedNight is seed 000's night: with the seed-000 stack (3 SDK attempts ×
// 3 p-retry × 7 BullMQ = 63 per job) and the lab's job names (report-4100
// to report-4121), 13 jobs dead-letter at 63 calls, 7 succeed part-way
// and 2 at once: 1,043 requests on the wire, as the seed's night had.
// (Found by trying windows until the schedule's own prediction, Expect,
// said 1,043; TestSeedNightIs1043 holds it to that.)
var SeedNight = StormWindow{Spread: 270, Close: 232}

// Expect is what the schedule makes of job on a stack that stops at the
// first answered request or after maxCalls: how many requests the wire
// carries and whether one was answered. Every fault of a StormWindow is
// retried by every layer, so this is exact there; for the mixed seeds'
// terminal faults it is not (a 400 stops the SDK, not the wrapper).
func (s Schedule) Expect(job string, maxCalls int) (calls int, answered bool) {
	for n := range maxCalls {
		if s.Plan(job, n) == OK {
			return n + 1, true
		}
	}
	return maxCalls, false
}

// StormSeed is seed 000's night: every request is 529 overloaded, for
// every job, however often it is retried.
const StormSeed = 0

// script is a job's faults for its first requests; past its end a job
// is answered, except when forever is set (the last fault repeats).
type script struct {
	faults  []Fault
	forever bool
}

// templates are the per-job scripts a mixed seed draws from, with weights:
// mostly healthy jobs, then the shapes real nights have.
var templates = []struct {
	weight int
	s      script
}{
	{40, script{}},
	{10, script{faults: []Fault{Overloaded}}},
	{6, script{faults: []Fault{Overloaded, Overloaded, Overloaded, Overloaded}}}, // outlasts the SDK's 3 attempts
	{8, script{faults: []Fault{RateLimited}}},
	{6, script{faults: []Fault{RateLimitedAfter}}},
	{8, script{faults: []Fault{ServerError, ServerError}}},
	{5, script{faults: []Fault{Timeout}}},
	{5, script{faults: []Fault{Reset}}},
	{4, script{faults: []Fault{BadRequest}, forever: true}},
	{3, script{faults: []Fault{Overloaded}, forever: true}}, // a job that never gets through
}

// Plan returns the fault for the n-th request (from 0) of job.
func (s Schedule) Plan(job string, n int) Fault {
	if w := s.Window; w != nil {
		start := rand.New(rand.NewPCG(s.Seed, jobHash(job))).IntN(max(w.Spread, 1))
		if start+n < w.Close {
			return Overloaded
		}
		return OK
	}
	sc := s.script(job)
	if n < len(sc.faults) {
		return sc.faults[n]
	}
	if sc.forever && len(sc.faults) > 0 {
		return sc.faults[len(sc.faults)-1]
	}
	return OK
}

func (s Schedule) script(job string) script {
	if s.Seed == StormSeed {
		return script{faults: []Fault{Overloaded}, forever: true}
	}
	r := rand.New(rand.NewPCG(s.Seed, jobHash(job)))
	total := 0
	for _, t := range templates {
		total += t.weight
	}
	x := r.IntN(total)
	for _, t := range templates {
		if x < t.weight {
			return t.s
		}
		x -= t.weight
	}
	return script{}
}

func jobHash(job string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(job))
	return h.Sum64()
}
