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
