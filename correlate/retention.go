package correlate

import (
	"math"
	"slices"
	"strings"
	"time"
)

// A daemon runs for weeks. Without a run window or run_id in the logs one
// run holds every job it ever saw — about 600 bytes each — so finished
// jobs are retired after Config.JobRetention of log time: their detail
// (the row, the attempts kept for the detail pane, their operations) is
// dropped, and what they contributed is kept in sums (retired), so the
// run's spend, wasted spend, job and outcome counts, calls-per-job
// percentiles, job types, projection and findings' waste stay exactly
// what they were. A retired job that logs again is a new job from $0:
// its ceiling starts over (the journal still blocks a second kill under
// the same run and job).

// DefaultJobRetention is the live default: a night's jobs are in the
// dashboard until lunch. Reports keep every job (0: never retire).
const DefaultJobRetention = 6 * time.Hour

// MinJobRetention is the shortest retention accepted: a job quiet for less
// may only be waiting between retries.
const MinJobRetention = 10 * time.Minute

// retired is what the retired jobs of a run add up to.
type retired struct {
	jobs, succeeded, failed, deadLettered, queued, running int64
	ops                                                    int64
	opsFirst, opsWithin3, opsWithin5                       int64 // for the recovery figures
	wasted                                                 Pico
	calls                                                  map[int64]int64 // model calls per job → jobs
	deadLetter                                             []float64       // seconds to dead letter, up to maxRetiredSamples
	types                                                  map[string]*retiredType
	// findingJobsWasted and findingAttemptsWasted are the retired jobs'
	// shares of each finding's two figures (see reportFindings).
	findingJobsWasted, findingAttemptsWasted [NumFindingKinds]Pico
	// evidence counts the jobs by what their calls were seen by (Job.evidence):
	// how far their counts can be trusted outlives their detail.
	evidence map[uint8]int64
}

// retiredType is one job type's retired jobs.
type retiredType struct {
	jobs, attempts, succeeded, failed, deadLettered int64
	spend, wasted                                   Pico
	calls                                           map[int64]int64
	amp                                             int
	layers                                          []int
	finished                                        int64 // for Projected
	finishedSpend                                   Pico
	unpriced                                        int64 // calls of no known cost
}

const maxRetiredSamples = 1 << 20

// RetiredJobs is how many jobs have been retired (see JobRetention).
func (s *State) RetiredJobs() int64 { return s.retired.jobs }

// retireSweep retires what it can when the log clock has moved a quarter
// of the retention since the last sweep, and only when at least half of
// the jobs (and 1,024) can go: a compaction copies the jobs it keeps, so
// keeping no more than it drops makes its cost linear in the jobs a run
// ever sees (the live set is at most twice what the retention holds).
func (s *State) retireSweep() {
	keep := s.cfg.JobRetention
	due := s.lastTS >= s.nextSweep || (s.srcClocks != nil && s.wall != 0 && s.wall >= s.nextWallSweep)
	if keep <= 0 || !due {
		return
	}
	s.nextSweep = s.lastTS + max(int64(keep)/4, int64(time.Minute))
	if s.wall != 0 {
		s.nextWallSweep = s.wall + max(int64(keep)/4, int64(time.Minute))
	}
	n := 0
	for _, j := range s.jobList {
		if s.retirable(j) {
			n++
		}
	}
	ops := s.idleOps()
	if (n < 1024 || n < len(s.jobList)/2) && (ops < 1024 || ops < s.opCount/2) {
		return
	}
	s.compact()
}

// horizon is the time before which job's work is retired: the retention
// back from its source's clock (clockOf), never from another source's.
func (s *State) horizon(j *Job) int64 { return s.clockOf(j) - int64(s.cfg.JobRetention) }

// opHorizon is horizon for the job of a keyed operation (its key begins
// with the job's ID), or the log clock's when the job is gone.
func (s *State) opHorizon(o *operation) int64 {
	if s.srcClocks != nil {
		if i := strings.IndexByte(o.key, 0); i >= 0 {
			if j := s.Job(o.key[:i]); j != nil {
				return s.horizon(j)
			}
		}
	}
	return s.lastTS - int64(s.cfg.JobRetention)
}

// A job that never ends — a service logging under one constant job_id, a
// claude -p session fed forever — is never retired, and kept an
// operation per idempotency key it ever used (426 MB at 2M lines, 914 MB
// at 6M). An operation idle past the horizon (its last attempt ended
// before it) is summarized instead: folded into the recovery sums, its
// most tries into its job's (retiredTries), and dropped. A job's memory
// is then its operations of the last horizon, whatever its length; a
// retry of a dropped operation's key after the horizon starts a new
// operation, as a retired job's next line starts a new job.

// idleOps counts the keyed operations of jobs that stay whose last
// attempt ended before horizon.
func (s *State) idleOps() int {
	n, left := 0, s.opCount
	for _, slab := range s.opSlabs {
		for i := range slab[:min(len(slab), left)] {
			if o := &slab[i]; o.key != "" && o.lastEnd < s.opHorizon(o) {
				n++
			}
		}
		left -= min(len(slab), left)
	}
	return n
}

func (s *State) retirable(j *Job) bool {
	return j.LastTS < s.horizon(j) && s.Outcome(j, false).Finished()
}

// compact retires the jobs finished before their horizon and rebuilds the job
// index, the operations and the attempt store without them.
func (s *State) compact() {
	kept := make([]*Job, 0, len(s.jobList))
	gone := map[*Job]bool{}
	var goneSeqs []int32
	for _, j := range s.jobList {
		if s.retirable(j) {
			s.retire(j)
			for i := range j.ops {
				s.retireOp(j.ops[i].op)
			}
			gone[j] = true
			goneSeqs = append(goneSeqs, j.Seq)
			continue
		}
		kept = append(kept, j)
	}
	// The job index, by new position.
	s.jobs = newHashIndex()
	s.jobList = kept
	for i, j := range kept {
		s.jobs.add(s.jobs.hash(j.ID), int32(i))
	}
	s.lastJob = nil
	// Operations: keyed ones are found through the index, a job's tool
	// operations through its ops list; both move to fresh slabs.
	oldSlabs, oldCount := s.opSlabs, s.opCount
	s.ops, s.opSlabs, s.opSlab, s.opCount = newHashIndex(), nil, nil, 0
	for _, j := range kept {
		for i := range j.ops {
			o := s.newOp()
			*o = *j.ops[i].op
			j.ops[i].op = o
		}
	}
	for n, slab := range oldSlabs {
		for i := range slab {
			if n*opSlabSize+i >= oldCount {
				break
			}
			old := &slab[i]
			if old.key == "" {
				continue
			}
			jobID := old.key[:strings.IndexByte(old.key, 0)]
			j := s.Job(jobID)
			if j == nil {
				s.retireOp(old)
				continue
			}
			if old.lastEnd < s.horizon(j) {
				// An idle operation of a job that stays: summarized.
				s.retireOp(old)
				if s.retiredTries == nil {
					s.retiredTries = map[int32]int32{}
				}
				s.retiredTries[j.Seq] = max(s.retiredTries[j.Seq], old.maxTries)
				if j.lastOp == old {
					j.lastOp, j.lastHash = nil, 0
				}
				continue
			}
			o := s.newOp()
			*o = *old
			s.ops.add(s.ops.hash(o.key), int32(s.opCount-1))
			if j.lastOp == old {
				j.lastOp = o
			}
		}
	}
	// Retained attempts, chain by chain.
	old := s.store
	s.store = attemptStore{}
	for _, j := range kept {
		if j.retained == 0 {
			continue
		}
		var as []Attempt
		for i := j.firstChunk; i >= 0; {
			c := old.chunk(i)
			as = append(as, c.a[:c.n]...)
			i = c.next
		}
		j.retained = 0
		for _, a := range as {
			s.store.add(j, a)
		}
	}
	// Pending synchronized-retry jobs are kept only if they are.
	pending := s.syncPending[:0]
	for _, j := range s.syncPending {
		if !gone[j] {
			pending = append(pending, j)
		}
	}
	s.syncPending = pending
	for _, seq := range goneSeqs {
		s.freeSeq(seq)
	}
}

// retireOp folds a retired job's operation into the recovery sums.
func (s *State) retireOp(o *operation) {
	r := &s.retired
	r.ops++
	switch n := o.firstSuccessAt; {
	case n == 1:
		r.opsFirst++
		fallthrough
	case n >= 1 && n <= 3:
		r.opsWithin3++
		fallthrough
	case n >= 1 && n <= 5:
		r.opsWithin5++
	}
}

// retire folds j into the run's retired sums.
func (s *State) retire(j *Job) {
	r := &s.retired
	if r.calls == nil {
		r.calls, r.types = map[int64]int64{}, map[string]*retiredType{}
	}
	o := s.Outcome(j, false)
	w := j.wasted(o)
	r.jobs++
	if j.evidence&^(evAgent|notEvidence) != 0 {
		if r.evidence == nil {
			r.evidence = map[uint8]int64{}
		}
		r.evidence[j.evidence&^(evAgent|notEvidence)]++
	}
	r.wasted = r.wasted.Add(w)
	switch o {
	case OutcomeSucceeded:
		r.succeeded++
	case OutcomeFailed:
		r.failed++
	case OutcomeDeadLettered:
		r.deadLettered++
	case OutcomeQueued:
		r.queued++
	default:
		r.running++
	}
	if j.Calls > 0 {
		r.calls[int64(j.Calls)]++
	}
	if j.DeadLetterTS != 0 && len(r.deadLetter) < maxRetiredSamples {
		start := cmpOr(j.EnqueuedTS, j.FirstAttemptTS)
		if start != 0 {
			r.deadLetter = append(r.deadLetter, float64(j.DeadLetterTS-start)/1e9)
		}
	}
	for k := range NumFindingKinds {
		if j.HasFinding(k) {
			// A retired job cannot turn ambiguous: its share is let go,
			// so a long watch keeps room for the jobs still live.
			delete(s.findings[k].shares, j.ID)
			r.findingJobsWasted[k] = r.findingJobsWasted[k].Add(w)
			if jobScoped[k] {
				r.findingAttemptsWasted[k] = r.findingAttemptsWasted[k].Add(j.spendNon2xx.Add(j.spendDuplicates))
			}
		}
	}
	jt := jobTypeName(j.Type)
	t := r.types[jt]
	if t == nil {
		t = &retiredType{calls: map[int64]int64{}}
		r.types[jt] = t
	}
	t.jobs++
	t.attempts += int64(j.Calls)
	t.unpriced += int64(j.Unpriced)
	t.spend = t.spend.Add(j.Spend)
	t.wasted = t.wasted.Add(w)
	if j.Calls > 0 {
		t.calls[int64(j.Calls)]++
	}
	switch o {
	case OutcomeSucceeded:
		t.succeeded++
	case OutcomeFailed:
		t.failed++
	case OutcomeDeadLettered:
		t.deadLettered++
	}
	if amp := j.Amplification(); amp > t.amp {
		t.amp, t.layers = amp, j.Layers()
	}
	t.finished++
	t.finishedSpend = t.finishedSpend.Add(j.Spend)
	if s.agentReported != nil {
		delete(s.agentReported, j.Seq)
	}
	delete(s.retiredTries, j.Seq)
}

func cmpOr(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// histPercentiles is intPercentiles over a histogram of values (value →
// how many) merged with the values in v.
func histPercentiles(v []int64, h map[int64]int64) Percentiles {
	if len(h) == 0 {
		return intPercentiles(v)
	}
	all := map[int64]int64{}
	for k, c := range h {
		all[k] += c
	}
	for _, x := range v {
		all[x]++
	}
	keys := make([]int64, 0, len(all))
	var n int64
	for k, c := range all {
		keys = append(keys, k)
		n += c
	}
	slices.Sort(keys)
	rank := func(p float64) int64 {
		want := max(int64(math.Ceil(p/100*float64(n))), 1)
		var seen int64
		for _, k := range keys {
			seen += all[k]
			if seen >= want {
				return k
			}
		}
		return keys[len(keys)-1]
	}
	return Percentiles{P50: rank(50), P99: rank(99), Max: keys[len(keys)-1]}
}
