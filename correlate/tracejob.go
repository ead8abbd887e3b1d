package correlate

import (
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// An OpenTelemetry exporter sends spans as they end, and a job's root span
// — the one that carries job.id — ends last: its calls arrive first and,
// with no job named yet, are filed under their trace ID. When the root
// arrives the OTLP mapper says so (ingest.KindTraceJob: this trace is that
// job) and the trace's job is re-homed here: renamed when the named job
// is new, folded into it when the job already has calls (a queue's second
// attempt is a second trace of one job). Findings that named the trace ID
// name the job from then on. The state keeps nothing per trace for this:
// the trace-ID job is found by its ID in the job index, so memory stays
// what the jobs cost; the mapper's memory of traces waiting for their job
// is the bounded one (ingest/otlp).

// RehomedTraces is how many trace-ID jobs were moved to the job their
// trace's root span named.
func (s *State) RehomedTraces() int64 { return s.rehomed }

// traceJob applies a KindTraceJob event and returns the job the trace
// belongs to now (nil when no job holds it: nothing was filed under it).
func (s *State) traceJob(ev *ingest.Event) *Job {
	s.lastCost = 0 // no spend of its own: the rules' burn window must not count the last call again
	from, to := ev.CorrelationID, ev.JobID
	if from == "" || to == "" || from == to {
		return nil
	}
	tj := s.Job(from)
	if tj == nil {
		return s.Job(to)
	}
	s.rehomed++
	s.lastJob = nil
	jj := s.Job(to)
	if jj == nil {
		// The usual case: the job's first trace. The trace's job takes
		// the job's name and type; its calls, findings and attempts stay.
		pos, _ := s.positionOf(tj)
		s.jobs.remove(from, s.jobs.hash(from), s.jobID)
		tj.ID = strings.Clone(to)
		if ev.JobType != "" {
			tj.Type = s.jobType(ev.JobType) // a copy, shared by the type's jobs
		}
		s.jobs.add(s.jobs.hash(tj.ID), pos)
		if tj.lastOp != nil {
			// Its next retry is looked up under the new name (findOp).
			tj.lastHash = s.ops.hash(tj.ID + "\x00" + lastKey(tj.lastOp))
		}
		s.renameInFindings(tj, from, tj.ID, false)
		return tj
	}
	s.renameInFindings(tj, from, jj.ID, jj.findings != 0)
	guessed := s.guessed[tj.Seq] // dropping tj lets its Seq go
	s.drop(tj)
	s.fold(jj, tj)
	s.guess(jj, guessed)
	return jj
}

// positionOf is j's position in the job list.
func (s *State) positionOf(j *Job) (int32, bool) {
	if i, ok := s.jobs.find(j.ID, s.jobs.hash(j.ID), s.jobID); ok {
		return i, true
	}
	for i, x := range s.jobList {
		if x == j {
			return int32(i), true
		}
	}
	return 0, false
}

// renameInFindings makes the findings that named the trace ID name the job
// (an example rendered again from a job reads the job it was made for,
// which may be leaving: it is rendered once, now, and kept as text).
func (s *State) renameInFindings(tj *Job, from, to string, toHasFindings bool) {
	for k := range s.findings {
		f := &s.findings[k]
		if f.exampleOf != nil {
			if text := f.exampleOf(); strings.Contains(text, from) {
				f.example, f.exampleOf = strings.ReplaceAll(text, from, to), nil
			}
		} else if strings.Contains(f.example, from) {
			f.example = strings.ReplaceAll(f.example, from, to)
		}
		at, had := -1, false
		for i, id := range f.jobs {
			switch id {
			case from:
				at = i
			case to:
				had = true
			}
		}
		if at < 0 {
			continue
		}
		if had || (toHasFindings && tj.ID != to && s.jobHas(to, FindingKind(k))) {
			// The job is listed (or counted) already: one job, once.
			f.jobs = append(f.jobs[:at], f.jobs[at+1:]...)
			f.jobsTotal--
			continue
		}
		f.jobs[at] = to
	}
}

func (s *State) jobHas(id string, k FindingKind) bool {
	j := s.Job(id)
	return j != nil && j.HasFinding(k)
}

// fold adds what tj holds to jj: its calls, spend, tokens, attempts kept
// for the detail view, operations and findings.
func (s *State) fold(jj, tj *Job) {
	jj.Spend = jj.Spend.Add(tj.Spend)
	jj.spendNon2xx = jj.spendNon2xx.Add(tj.spendNon2xx)
	jj.spendDuplicates = jj.spendDuplicates.Add(tj.spendDuplicates)
	jj.FirstTS = minNonZero(jj.FirstTS, tj.FirstTS)
	jj.FirstAttemptTS = minNonZero(jj.FirstAttemptTS, tj.FirstAttemptTS)
	jj.EnqueuedTS = minNonZero(jj.EnqueuedTS, tj.EnqueuedTS)
	if tj.LastTS >= jj.LastTS {
		// The trace's last call is the job's last word on how it went.
		jj.LastStatus = tj.LastStatus
		jj.setLastFailed(tj.lastFailed())
	}
	jj.LastTS = max(jj.LastTS, tj.LastTS)
	jj.EndTS = max(jj.EndTS, tj.EndTS)
	jj.DeadLetterTS = max(jj.DeadLetterTS, tj.DeadLetterTS)
	jj.KilledTS = max(jj.KilledTS, tj.KilledTS)
	jj.tokensFresh += tj.tokensFresh
	jj.tokensCacheRead += tj.tokensCacheRead
	jj.tokensCacheWrite += tj.tokensCacheWrite
	jj.Calls = addSat32(jj.Calls, tj.Calls)
	jj.ToolCalls = addSat32(jj.ToolCalls, tj.ToolCalls)
	jj.QueueAttempts = addSat32(jj.QueueAttempts, tj.QueueAttempts)
	jj.Duplicates = addSat32(jj.Duplicates, tj.Duplicates)
	jj.Unpriced = addSat32(jj.Unpriced, tj.Unpriced)
	jj.MaxRounds = max(jj.MaxRounds, tj.MaxRounds)
	jj.MaxSDKAttempt = max(jj.MaxSDKAttempt, tj.MaxSDKAttempt)
	jj.findings |= tj.findings
	jj.evidence |= tj.evidence &^ notEvidence
	if tj.lifecycle() && !jj.lifecycle() {
		jj.Outcome = tj.Outcome
		jj.evidence |= evLifecycle
	}
	if jj.Type == "" {
		jj.Type = tj.Type
	}
	if jj.RunID == "" {
		jj.RunID = tj.RunID
	}
	jj.ops = append(jj.ops, tj.ops...)
	// Attempts kept for the detail view: the trace's chain after the job's.
	if tj.retained > 0 {
		if jj.retained == 0 {
			jj.firstChunk, jj.lastChunk = tj.firstChunk, tj.lastChunk
		} else {
			s.store.chunk(jj.lastChunk).next = tj.firstChunk
			jj.lastChunk = tj.lastChunk
		}
		jj.retained += tj.retained
		tj.retained = 0
	}
	if p, ok := s.agentReported[tj.Seq]; ok {
		if _, has := s.agentReported[jj.Seq]; !has {
			s.agentReported[jj.Seq] = p
		}
		delete(s.agentReported, tj.Seq)
	}
	if t, ok := s.retiredTries[tj.Seq]; ok { // its summarized operations (retention.go)
		s.retiredTries[jj.Seq] = max(s.retiredTries[jj.Seq], t)
		delete(s.retiredTries, tj.Seq)
	}
	if s.hiddenExample.job == tj {
		s.hiddenExample.job = jj
	}
	for i, j := range s.syncPending {
		if j == tj {
			s.syncPending[i] = jj
		}
	}
	if r := s.recorded[tj.Seq]; r != nil { // the trace's records' own costs are the job's
		to := s.recorded[jj.Seq]
		if to == nil {
			to = &recordedCost{}
			s.recorded[jj.Seq] = to
		}
		to.recorded, to.ours, to.calls = to.recorded.Add(r.recorded), to.ours.Add(r.ours), to.calls+r.calls
	}
	s.freeSeq(tj.Seq)
	*tj = Job{Seq: tj.Seq, LastStatus: ingest.StatusUnknown, firstChunk: -1, lastChunk: -1}
}

// drop takes tj out of the job list and the index in O(1): the last job
// takes its place (so the list is in first-seen order but where a folded
// trace's job was; Seq keeps the order of creation). Rebuilding the list
// in order cost 26 ms a fold at 100,000 jobs.
func (s *State) drop(tj *Job) {
	pos, ok := s.positionOf(tj)
	if !ok {
		return
	}
	s.jobs.remove(tj.ID, s.jobs.hash(tj.ID), s.jobID)
	last := int32(len(s.jobList) - 1)
	if pos != last {
		moved := s.jobList[last]
		s.jobs.remove(moved.ID, s.jobs.hash(moved.ID), s.jobID)
		s.jobList[pos] = moved
		s.jobs.add(s.jobs.hash(moved.ID), pos)
	}
	s.jobList[last] = nil
	s.jobList = s.jobList[:last]
	s.lastJob = nil
}

func minNonZero(a, b int64) int64 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

func addSat32(a, b int32) int32 { return int32(min(int64(a)+int64(b), 1<<31-1)) }
