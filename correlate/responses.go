package correlate

import (
	"hash/maphash"

	"github.com/burnrate-dev/burnrate/ingest"
)

// A response may be written more than once: in one file, once per content
// block with its usage growing (Claude Code); in two files, when a resumed
// session copies earlier messages into its new transcript (agentsview
// #307 counts thousands of such pairs). Every record of a response names
// it (ingest.Event.ResponseID), and the response is billed once, at the
// largest usage any record gave, field by field, whichever file it came
// from: the first record is the call, a later one only what it adds.

// responseKey is a 128-bit digest of a response ID: memory per response is
// the same whatever its ID (two seeds, chosen per process).
type responseKey [2]uint64

var responseSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// responseUsage is what a response has been billed.
type responseUsage struct {
	in, out, cacheRead, cacheWrite, cacheWrite1h int64
	cost                                         Pico // a logged cost (costUSD), when the records carry one
	// job is the job the response is billed to: its first record's, or
	// the session that made it (resumed.go); a later record naming
	// another job is a conflict (State.requestIDConflicts) or a copy.
	job string
	// unseen: its records so far left its usage unseen, in whole or in
	// part (ingest.Event.UsageUnseen), and the job counts it unpriced
	// until a record gives the usage whole.
	unseen bool
	// forked: its first record was a forked session's copy
	// (ingest.Event.ForkCopy): the parent, not that session, made it.
	forked bool
	// What the response billed its job, for a move to another
	// (resumed.go): spend, calls, the recorded cost and the table's
	// beside it, the status and time of its call.
	billed, recorded, ours Pico
	calls                  int32
	status                 int16
	ts                     int64
	// contest is its contest's number (resumed.go), 0 none, -1 no room.
	contest int32
}

func (r *responseUsage) set(ev *ingest.Event) {
	r.unseen = usageUnseen(ev)
	r.in, r.out, r.cacheRead, r.cacheWrite = ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens
	r.cacheWrite1h = ev.CacheCreate1hTokens
	if ev.HasCost {
		r.cost = PicoFromUSD(ev.CostUSD)
	}
}

// maxResponses bounds the memory: two generations of half as many each.
// When the newer is full the older is forgotten and the newer takes its
// place, so the last maxResponses/2 responses at least are always known —
// a response's records come within seconds of each other, a resumed
// session's copies soon after its start, and a sender's re-send of a
// batch (an OTLP span or log record, whose identity is its ResponseID)
// within minutes — and a full table never forgets all at once.
const maxResponses = 1 << 20

// response finds what id has been billed; create makes an entry for a new
// one (seen is false then).
func (s *State) response(id string, create bool) (r *responseUsage, seen bool) {
	var k responseKey
	for i := range k {
		k[i] = maphash.String(responseSeeds[i], id)
	}
	if r = s.responses[k]; r != nil {
		return r, true
	}
	if r = s.responsesOld[k]; r != nil {
		return r, true
	}
	if !create {
		return nil, false
	}
	if s.responses == nil || len(s.responses) >= maxResponses/2 {
		s.responsesOld = s.responses
		s.responses = map[responseKey]*responseUsage{}
	}
	r = &responseUsage{}
	s.responses[k] = r
	return r, false
}

// growTo bills what ev — a response's usage as it now stands — adds over
// what r says was billed, as a usage growth.
func (s *State) growTo(job *Job, ev *ingest.Event, r *responseUsage) {
	g := *ev
	g.Kind = ingest.KindUsageGrowth
	more := func(have *int64, now int64) int64 {
		if now <= *have {
			return 0
		}
		d := now - *have
		*have = now
		return d
	}
	g.PromptTokens = ev.InputTokens + ev.CacheReadTokens + ev.CacheCreateTokens
	g.InputTokens = more(&r.in, ev.InputTokens)
	g.OutputTokens = more(&r.out, ev.OutputTokens)
	g.CacheReadTokens = more(&r.cacheRead, ev.CacheReadTokens)
	g.CacheCreateTokens = more(&r.cacheWrite, ev.CacheCreateTokens)
	g.CacheCreate1hTokens = min(more(&r.cacheWrite1h, ev.CacheCreate1hTokens), g.CacheCreateTokens)
	if ev.HasCost {
		c := PicoFromUSD(ev.CostUSD)
		g.CostUSD = 0
		if c > r.cost {
			g.CostUSD = (c - r.cost).USD()
			r.cost = c
		}
	}
	if r.unseen && !ev.UsageUnseen && r.job == job.ID && (ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens > 0 || ev.HasCost) {
		// The usage whole, from another record of the response (the app's
		// line naming its request ID): the call is priced now.
		r.unseen = false
		job.Unpriced = max(job.Unpriced-1, 0)
		s.unpriced = max(s.unpriced-1, 0)
	}
	if g.InputTokens+g.OutputTokens+g.CacheReadTokens+g.CacheCreateTokens == 0 && g.CostUSD == 0 {
		s.repeatedRecords++
		return
	}
	if g.UsageUnseen {
		if r.unseen {
			g.UsageUnseen = false // counted unpriced once
		}
		r.unseen = true
	}
	s.grow(job, &g)
}

// requestIDConflict: a record of job names a provider request ID whose
// first record named another job — the SDK's request block said one job
// (its x-job-id header), the app's line another. One of them is wrong,
// and a forged line can be either, so neither is believed over the
// other in silence (issue 39's red team split one call between two jobs
// by the order of the lines): the record's usage stays with the job its
// own line names, both jobs' counts are marked ambiguous (so neither
// convicts), and the conflict is counted in the report.
func (s *State) requestIDConflict(job *Job, r *responseUsage) {
	s.requestIDConflicts++
	s.ambiguate(job)
	if first := s.Job(r.job); first != nil {
		s.ambiguate(first)
	}
}

// growResponse bills what a record of the response r adds, to the job it
// is billed to; a record of another agent session is a copy, and who
// owns the response is weighed again (resumed.go).
func (s *State) growResponse(job *Job, ev *ingest.Event, r *responseUsage) {
	owner := job
	if r.job != job.ID && agentCopy(ev) {
		if o := s.Job(r.job); o != nil {
			owner = o
		}
	}
	s.lastCost, s.hasOurs = 0, false
	s.growTo(owner, ev, r)
	r.billed = r.billed.Add(s.lastCost)
	if r.forked && owner.ID == r.job {
		s.forkHeld(owner, s.lastCost)
	}
	if s.hasOurs {
		r.recorded, r.ours = r.recorded.Add(s.lastCost), r.ours.Add(s.lastOurs)
	}
	if owner != job && (s.cfg.SettleResumed || r.forked) {
		// (A fork's copy read first is settled by watch too: the marks
		// say who made it, at any pace.)
		s.copied(r, job, ev.ForkCopy)
	} else if owner == job && r.contest > 0 && !ev.ForkCopy && s.cfg.SettleResumed {
		s.copied(r, job, false) // the owner's own record, after its copy
	}
}
