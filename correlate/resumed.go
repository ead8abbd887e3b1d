package correlate

import (
	"cmp"
	"slices"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// A resumed agent session copies its parent's responses into its own
// transcript, under its own session ID, with their times, IDs and usage
// unchanged (issue 35; CodexBar #1002 and agentsview #307 saw the same).
// The response is billed once (responses.go); which session it is billed
// to must not depend on which file was read first: billed to the copy,
// the resumed session read as the original's spend and a job ceiling
// killed it (3 runs of 3 when its file sorted first).
//
// The session that made a response is the one that stopped first: the
// original is no longer written once it is resumed, while the resumed one
// goes on past its copies. So a response held by several sessions is
// billed to the one whose last record is earliest, then whose first
// record is earliest (see settle for a tie). Each
// such response is a contest, settled whenever a candidate's last record
// moves — the owner then may lose it — so that what it is billed to
// follows the sessions as they are read, and, once every record is in,
// is the same whatever the order the files were read in.

// maxContests bounds the contests kept (past it a copied response stays
// with the session that was read first, as before), and maxCandidates the
// sessions one response is weighed between.
// maxMoves bounds the moves of a run: two sessions that hold many
// responses and write in turn would move them all at each turn (hostile
// input could make that quadratic); past it, every response stays where
// it is.
const (
	maxContests   = 1 << 18
	maxCandidates = 8
	maxMoves      = 1 << 20
)

// contest is a response seen under several sessions.
type contest struct {
	r          *responseUsage
	candidates []string // job IDs, the owner (r.job) among them
	// made has bit i set when candidates[i] holds a record of the
	// response that is no fork's copy (ingest.Event.ForkCopy).
	made uint8
}

// agentCopy reports whether ev's response may be copied by a resumed
// session: an agent's own response ID, not a provider's HTTP request ID
// (two jobs naming one request are a conflict, not a copy).
func agentCopy(ev *ingest.Event) bool {
	return ev.ResponseID != "" && !strings.HasPrefix(ev.ResponseID, ingest.HTTPAttemptPrefix)
}

// copied notes that job holds a copy of the response r, billed to another
// session, and settles who owns it.
func (s *State) copied(r *responseUsage, job *Job, forkCopy bool) {
	if r.contest < 0 {
		return // no room: the first reader keeps it
	}
	if r.contest == 0 {
		if len(s.contests) >= maxContests {
			r.contest = -1
			return
		}
		c := contest{r: r, candidates: []string{r.job}}
		if !r.forked {
			c.made = 1
		}
		s.contests = append(s.contests, c)
		r.contest = int32(len(s.contests))
		s.own(r.job, r.contest)
	}
	c := &s.contests[r.contest-1]
	for i, id := range c.candidates {
		if id == job.ID {
			if !forkCopy && c.made&(1<<i) == 0 {
				c.made |= 1 << i
				s.settle(r.contest)
			}
			return
		}
	}
	if len(c.candidates) >= maxCandidates {
		return
	}
	if !forkCopy {
		c.made |= 1 << len(c.candidates)
	}
	c.candidates = append(c.candidates, job.ID)
	s.settle(r.contest)
}

// own records that the job id owns contest n.
func (s *State) own(id string, n int32) {
	if s.owned == nil {
		s.owned = map[string]map[int32]struct{}{}
	}
	m := s.owned[id]
	if m == nil {
		m = map[int32]struct{}{}
		s.owned[id] = m
	}
	m[n] = struct{}{}
}

// disown records that the job id no longer owns contest n.
func (s *State) disown(id string, n int32) {
	if m := s.owned[id]; m != nil {
		delete(m, n)
		if len(m) == 0 {
			delete(s.owned, id)
		}
	}
}

// markDirty notes that job's last record moved to ts: its contests are
// weighed again once the records of that time are all in (two sessions'
// copies of one record carry one time; weighed between them, the one read
// second would look stopped a record early).
func (s *State) markDirty(job *Job, ts int64) {
	if len(s.dirty) > 0 && s.dirty[len(s.dirty)-1] == job {
		s.dirtyTS = max(s.dirtyTS, ts)
		return
	}
	if len(s.dirty) >= 1024 {
		s.resettleDirty()
	}
	s.dirty = append(s.dirty, job)
	s.dirtyTS = max(s.dirtyTS, ts)
}

// resettleDirty weighs again the contests of the dirty jobs.
func (s *State) resettleDirty() {
	d := s.dirty
	s.dirty, s.dirtyTS = s.dirty[:0], 0
	for i, j := range d {
		if !slices.Contains(d[:i], j) {
			s.resettle(j)
		}
	}
}

// resettle weighs again the contests job owns: its last record moved.
// They are weighed in contest order, so that moves follow one order
// whatever the map's.
func (s *State) resettle(job *Job) {
	m := s.owned[job.ID]
	if len(m) == 0 || s.moves >= maxMoves {
		return
	}
	mine := make([]int32, 0, len(m))
	for n := range m {
		mine = append(mine, n)
	}
	slices.Sort(mine)
	for _, n := range mine {
		s.settle(n)
	}
}

// before compares sessions a and b: below 0 when a made their shared
// responses (see above), 0 when nothing tells them apart yet.
func before(a, b *Job) int {
	return cmp.Or(cmp.Compare(a.LastTS, b.LastTS), cmp.Compare(a.FirstTS, b.FirstTS))
}

// settle bills contest n's response to the session that made it. Two
// sessions nothing tells apart yet (a resumed session's copies before its
// own first record, or two exact copies) leave it where it is: no
// transient move a ceiling could see. That is still the same whatever the
// files' order, since records of one time are read in job ID order
// (file.Merge); the ID decides between the others.
func (s *State) settle(n int32) {
	c := &s.contests[n-1]
	if c.made == 0 {
		// Only forks' copies, their parent unread: held where read first,
		// no fork stopped for it, until a record of the parent's comes.
		return
	}
	owner := s.Job(c.r.job)
	var best *Job
	if !s.cfg.SettleResumed {
		// Files followed each at its own pace (watch): times say nothing
		// yet, a fork's marks do — a response held first as a fork's copy
		// goes to the first session read holding a record of its own.
		for i, id := range c.candidates {
			if c.made&(1<<i) != 0 {
				if id == c.r.job {
					return
				}
				if best = s.Job(id); best != nil {
					break
				}
			}
		}
	}
	for i, id := range c.candidates {
		if !s.cfg.SettleResumed {
			break
		}
		j := s.Job(id)
		if j == nil || (c.made != 0 && c.made&(1<<i) == 0) {
			continue // a fork's copy, beside a session that holds its own record
		}
		if best == nil {
			best = j
			continue
		}
		switch d := before(j, best); {
		case d < 0, d == 0 && j == owner, d == 0 && best != owner && j.ID < best.ID:
			best = j
		}
	}
	if best == nil || best == owner || s.moves >= maxMoves {
		return
	}
	s.moves++
	s.disown(c.r.job, n)
	s.moveResponse(c.r, owner, best)
	s.own(best.ID, n)
}

// moveResponse bills r to job to instead of from (nil: retired): its
// spend, its call and its tokens. The run's sums do not move.
func (s *State) moveResponse(r *responseUsage, from, to *Job) {
	if r.forked {
		// A fork's copy, moved to a session holding its own record (or
		// to another fork's, past which no parent is known): no longer held.
		r.forked = false
		if from != nil {
			s.forkHeld(from, -r.billed)
		}
	}
	if from != nil {
		if !from.Spend.Saturated() {
			from.Spend = max(0, from.Spend-r.billed)
		}
		from.Calls = max(0, from.Calls-r.calls)
		from.tokensFresh = max(0, from.tokensFresh-r.in)
		from.tokensCacheRead = max(0, from.tokensCacheRead-r.cacheRead)
		from.tokensCacheWrite = max(0, from.tokensCacheWrite-r.cacheWrite)
		if rec := s.recorded[from.Seq]; rec != nil && r.recorded+r.ours > 0 {
			rec.recorded, rec.ours, rec.calls = max(0, rec.recorded-r.recorded), max(0, rec.ours-r.ours), max(0, rec.calls-int64(r.calls))
			if rec.recorded+rec.ours == 0 {
				delete(s.recorded, from.Seq)
			}
		}
	}
	to.Spend = to.Spend.Add(r.billed)
	if r.calls > 0 {
		if to.Calls == 0 || to.FirstAttemptTS == 0 {
			// Its outcome is its last call's: the response's.
			to.LastStatus = r.status
			to.setLastFailed(classify(r.status) != classSuccess)
		}
		to.Calls += r.calls
		if to.FirstAttemptTS == 0 || r.ts < to.FirstAttemptTS {
			to.FirstAttemptTS = r.ts
		}
	}
	to.tokensFresh = satAdd(to.tokensFresh, r.in)
	to.tokensCacheRead = satAdd(to.tokensCacheRead, r.cacheRead)
	to.tokensCacheWrite = satAdd(to.tokensCacheWrite, r.cacheWrite)
	if r.recorded+r.ours > 0 {
		if s.recorded == nil {
			s.recorded = map[int32]*recordedCost{}
		}
		rec := s.recorded[to.Seq]
		if rec == nil {
			rec = &recordedCost{}
			s.recorded[to.Seq] = rec
		}
		rec.recorded, rec.ours, rec.calls = rec.recorded.Add(r.recorded), rec.ours.Add(r.ours), rec.calls+int64(r.calls)
	}
	r.job = to.ID
}

// forkHold is what a job that holds a fork's copies (ingest.Event.ForkCopy)
// keeps of them.
type forkHold struct {
	// held is the part of the job's spend that is responses it holds only
	// as a fork's copies, read before its parent's records: billed to it
	// until they say whose the responses are, but no reason to stop it.
	held Pico
	// own: the job wrote a response record of its own. A fork copies its
	// parent's lines before it writes any of its own, so a mark after
	// one is no copy (forged, it would hide the job's spend from its
	// ceiling).
	own bool
}

// forkMark weighs ev's forkedFrom mark: a job's first call record marked
// opens its fork's copies; a mark after an own record, or on a job whose
// first call was unmarked, is none, and is cleared (the event is this
// State's to read: ingest.Batch's ownership).
func (s *State) forkMark(job *Job, ev *ingest.Event) {
	f := s.forks[job.Seq]
	if f == nil {
		if !ev.ForkCopy {
			return // no mark yet: the job's calls say it had own records
		}
		if s.forks == nil {
			s.forks = map[int32]*forkHold{}
		}
		f = &forkHold{own: job.Calls > 0 || job.FirstAttemptTS != 0}
		s.forks[job.Seq] = f
	}
	if ev.ForkCopy && f.own {
		ev.ForkCopy = false
	}
	if !ev.ForkCopy {
		f.own = true
	}
}

// forkHeld adds d to what job holds as a fork's copies.
func (s *State) forkHeld(job *Job, d Pico) {
	if f := s.forks[job.Seq]; f != nil {
		f.held = max(0, f.held+d)
	}
}

// CeilingSpend is the spend a job ceiling weighs: the job's, less the
// responses it holds only as a fork's copies — its parent's spend, billed
// to the parent once its records are read, never a reason to stop the
// fork.
func (s *State) CeilingSpend(j *Job) Pico {
	spend := j.Spend
	if j.Spend.Saturated() {
		return spend
	}
	if f := s.forks[j.Seq]; f != nil {
		spend = max(0, spend-f.held)
	}
	if g := s.guessed[j.Seq]; g > 0 {
		// Calls placed in it by position alone: shown in its spend,
		// never a reason to stop it.
		spend = max(0, spend-g)
	}
	return spend
}

// GuessedSpend is the part of j's spend placed in it by position or
// timing alone (left out of CeilingSpend): the rules say a job that only
// this part carries over its ceiling, never kill it.
func (s *State) GuessedSpend(j *Job) Pico {
	if j.Spend.Saturated() {
		return 0
	}
	return s.guessed[j.Seq]
}

// guess notes cost as spend placed in job by position or timing alone.
func (s *State) guess(job *Job, cost Pico) {
	if cost <= 0 {
		return
	}
	if s.guessed == nil {
		s.guessed = map[int32]Pico{}
	}
	s.guessed[job.Seq] = s.guessed[job.Seq].Add(cost)
	s.lastGuessed = s.lastGuessed.Add(cost)
}
