package correlate

import (
	"fmt"
	"slices"
	"strings"
)

// Evidence that never guesses (issue 39): a job whose calls were placed by
// timing alone, or whose request ID another job's record also names, has
// an ambiguous count — some of its calls may be another job's. A finding
// that rests on which calls are the job's (a 400 retried, a success twice,
// a layer past its count) then convicts no one. Such a finding raised on
// an ambiguous job is kept apart, and one raised before the job became
// ambiguous (the conflicting record came later) is withdrawn from it: the
// report and watch's dashboard, which build their findings from the same
// state, list it as ambiguous at severity info; it alerts and kills
// nothing more. A kill already sent stays sent, in the journal, and the
// withdrawn finding says so.

// convicts are the kinds that rest on which calls are a job's.
var convicts = [NumFindingKinds]bool{TerminalErrorRetried: true, DuplicateCompletion: true, AssumptionViolated: true,
	HiddenRetryLayer: true, RetryAmplification: true, StreamRepaid: true, RetryAfterIgnored: true}

// maxShares bounds the per-job shares a finding keeps for a withdrawal;
// past it, a withdrawn job takes one occurrence and no waste with it.
const maxShares = 1 << 12

// findingShare is one job's part of a finding: what a withdrawal takes.
type findingShare struct {
	n      int64
	wasted Pico
}

// ambiguousFinding is a finding kind's withdrawn or never-raised part:
// the jobs whose count was ambiguous.
type ambiguousFinding struct {
	count     int64
	wasted    Pico
	jobs      []string
	jobsTotal int
	firstTS   int64
	// seen are the jobs counted (up to maxShares): an ambiguous job
	// carries no finding bit, so its detector flags it again at every
	// call, and a job must count once.
	seen map[string]struct{}
}

// oncePerJob are the kinds a job counts once in, however often flagged.
var oncePerJob = [NumFindingKinds]bool{HiddenRetryLayer: true, RetryAmplification: true}

// ambiguate marks job's count ambiguous and withdraws the findings that
// convicted it.
func (s *State) ambiguate(job *Job) {
	if job.evidence&evTiming != 0 {
		return
	}
	job.evidence |= evTiming
	for k := range NumFindingKinds {
		if convicts[k] && job.HasFinding(k) {
			s.withdraw(k, job)
		}
	}
}

// withdraw moves job's part of finding k to the ambiguous findings.
func (s *State) withdraw(k FindingKind, job *Job) {
	f := &s.findings[k]
	sh, had := f.shares[job.ID]
	if !had {
		sh = findingShare{n: 1}
	}
	delete(f.shares, job.ID)
	sh.n = min(sh.n, f.count)
	f.count -= sh.n
	f.wasted -= min(sh.wasted, f.wasted)
	if i := slices.Index(f.jobs, job.ID); i >= 0 {
		f.jobs = slices.Delete(f.jobs, i, i+1)
	}
	f.jobsTotal = max(f.jobsTotal-1, 0)
	job.findings &^= 1 << k
	if f.count == 0 {
		// Its example was another job's, or this one's: either way it no
		// longer describes a finding anyone has.
		f.example, f.exampleOf = "", nil
	} else if strings.Contains(f.exampleText(), job.ID) {
		// The example named the withdrawn job: it would say the finding
		// of a job the finding no longer names.
		f.example, f.exampleOf = fmt.Sprintf("%d job(s); the first example's job turned ambiguous and was withdrawn (see the ambiguous row)", f.jobsTotal), nil
	}
	if s.hiddenExample.job == job {
		s.hiddenExample.job = nil
	}
	s.addAmbiguous(k, job, max(sh.n, 1), sh.wasted, job.FirstTS)
	if k == AssumptionViolated {
		// The SDK's own retry count broke the declaration whichever job
		// the request was: the conviction of this job is withdrawn, the
		// run's finding is not — the report's comparison of declared and
		// observed retries, which a live flag had stood for, says it again
		// (naming no job).
		clear(s.assume.violatedLive)
	}
}

func (s *State) addAmbiguous(k FindingKind, job *Job, n int64, wasted Pico, ts int64) {
	a := &s.ambiguousFindings[k]
	if a.count == 0 || (ts != 0 && ts < a.firstTS) {
		a.firstTS = ts
	}
	_, again := a.seen[job.ID]
	if !again && len(a.seen) < maxShares {
		if a.seen == nil {
			a.seen = map[string]struct{}{}
		}
		a.seen[job.ID] = struct{}{}
	}
	a.wasted = a.wasted.Add(wasted)
	if again || slices.Contains(a.jobs, job.ID) {
		if !oncePerJob[k] {
			a.count += n
		}
		return
	}
	a.count += n
	a.jobsTotal++
	if len(a.jobs) < maxFindingJobs {
		a.jobs = append(a.jobs, job.ID)
	}
}

// share notes job's part of a convicting finding, for a withdrawal.
func (f *findingAcc) share(job *Job, n int64, wasted Pico) {
	sh, ok := f.shares[job.ID]
	if !ok && len(f.shares) >= maxShares {
		return
	}
	if f.shares == nil {
		f.shares = map[string]findingShare{}
	}
	sh.n += n
	sh.wasted = sh.wasted.Add(wasted)
	f.shares[job.ID] = sh
}

// reportAmbiguous lists the ambiguous findings: severity info, marked,
// never a reason to exit 1, alert or kill.
func (s *State) reportAmbiguous(r *Report) {
	for k := range NumFindingKinds {
		a := s.ambiguousFindings[k]
		if a.count == 0 || s.cfg.severity(k) == SeverityOff {
			continue
		}
		ex := fmt.Sprintf("%s on %d job(s) whose count is ambiguous (a call placed by timing alone, a request ID another job's record also names, or calls that named no job grouped by their idempotency key): not held against them", k, a.jobsTotal)
		// A kill the journal says was made (report --journal sets
		// KilledTS) is not undone by the withdrawal: it is said.
		var killed []string
		for _, id := range a.jobs {
			if j := s.Job(id); j != nil && j.KilledTS != 0 {
				killed = append(killed, id)
			}
		}
		if len(killed) > 0 {
			ex += fmt.Sprintf("; a kill was already made for %s (the journal keeps it): the finding that armed it no longer holds", strings.Join(killed, ", "))
		}
		r.Findings = append(r.Findings, FindingReport{Kind: k.String(), Severity: SeverityInfo, Ambiguous: true, Count: a.count,
			Jobs: slices.Clone(a.jobs), JobsTotal: a.jobsTotal, WastedUSD: a.wasted.USD(), Example: ex, FirstAt: FormatTime(a.firstTS), Advice: Advice[k]})
	}
}
