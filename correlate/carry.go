package correlate

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// A run fed by an input that cannot be read again (an OTLP receiver,
// stdin) lives only in memory: a restart mid-night would begin it at $0,
// and a job whose spend straddles the restart would never reach its
// ceiling. Carried is what a run's ceilings and kills need of it, taken
// before a stop (CarryOut) and seeded into the same run's new State after
// the restart (Seed), so the next attempt of a carried job adds to what
// it had spent. Only totals are carried: no attempt, operation, breaker,
// finding or minute of the timeline.

// CarriedJob is one job's totals.
type CarriedJob struct {
	ID   string
	Type string
	// RunID is the run the job's first event named (Job.RunID).
	RunID           string
	Spend           Pico
	Calls           int32
	ToolCalls       int32
	FirstTS, LastTS int64
	// What the report reads of the job's standing: its queue lifecycle
	// outcome (Lifecycle: the log gave one), whether its last call
	// failed, and its spend on non-2xx attempts (wasted spend).
	Outcome     Outcome
	Lifecycle   bool
	LastFailed  bool
	SpendNon2xx Pico
}

// Carried is one run's totals and the jobs that matter most to its
// ceilings (the highest spend first, when not all are kept).
type Carried struct {
	// Events counts the events the run applied, so a report after the
	// restart holds the one before it (report --merge keeps the later).
	Events          int64
	Spend           Pico
	Attempts        int64
	ToolCalls       int64
	FirstTS, LastTS int64
	// Statuses counts the run's attempts by HTTP status (the attempts by
	// status on /metrics, whose sum is the run's calls there).
	Statuses map[int16]int64
	// Jobs counts every job the run had (retired ones too); LeftOut those
	// not in JobList (their spend is in Spend all the same).
	Jobs    int64
	LeftOut int64
	JobList []CarriedJob
	// Declared are the run's declared assumptions as they stand: a
	// declaration printed once at the top of a stream is not printed
	// again after a restart, and the run's premises (and the kills
	// kill_on finding:assumption_violated makes from them) must outlive it.
	Declared []CarriedDeclaration
}

// CarriedDeclaration is one declared assumption of a run.
type CarriedDeclaration struct {
	JobType, Key, Value, From string
	FirstTS                   int64
}

// CarryOut takes the state's carried totals, keeping at most maxJobs jobs
// (0: every job): the highest spend first, since those are the ones a
// job ceiling can still stop; a negative maxJobs keeps none, the totals
// only. The job list is in first-seen order.
func (s *State) CarryOut(maxJobs int) Carried {
	c := Carried{Events: s.events, Spend: s.spend, Attempts: s.attempts, ToolCalls: s.toolCalls, FirstTS: s.firstTS, LastTS: s.lastTS,
		Jobs: int64(len(s.jobList)) + s.retired.jobs}
	if len(s.statuses) > 0 {
		c.Statuses = make(map[int16]int64, len(s.statuses))
		for _, sc := range s.statuses {
			c.Statuses[sc.status] += sc.n
		}
	}
	jobs := s.jobList
	if maxJobs < 0 {
		jobs = nil
	} else if maxJobs > 0 && len(jobs) > maxJobs {
		jobs = slices.Clone(jobs)
		slices.SortStableFunc(jobs, func(a, b *Job) int {
			switch {
			case a.Spend > b.Spend:
				return -1
			case a.Spend < b.Spend:
				return 1
			}
			return int(a.Seq - b.Seq)
		})
		jobs = jobs[:maxJobs]
		slices.SortFunc(jobs, func(a, b *Job) int { return int(a.Seq - b.Seq) })
	}
	for k, d := range s.assume.declared {
		c.Declared = append(c.Declared, CarriedDeclaration{JobType: k.jobType, Key: k.key, Value: d.value, From: d.from, FirstTS: d.firstTS})
	}
	slices.SortFunc(c.Declared, func(a, b CarriedDeclaration) int {
		return strings.Compare(a.JobType+"\x00"+a.Key, b.JobType+"\x00"+b.Key)
	})
	c.LeftOut = c.Jobs - int64(len(jobs))
	c.JobList = make([]CarriedJob, len(jobs))
	for i, j := range jobs {
		c.JobList[i] = CarriedJob{ID: j.ID, Type: j.Type, RunID: j.RunID, Spend: j.Spend, Calls: j.Calls, ToolCalls: j.ToolCalls, FirstTS: j.FirstTS, LastTS: j.LastTS,
			Outcome: j.Outcome, Lifecycle: j.lifecycle, LastFailed: j.lastFailed, SpendNon2xx: j.spendNon2xx}
	}
	return c
}

// CarriedReport is, in a report, what its run was resumed with.
type CarriedReport struct {
	Events   int64   `json:"events"`
	Attempts int64   `json:"attempts"`
	SpendUSD float64 `json:"spend_usd"`
	Jobs     int     `json:"jobs"`
}

// ErrSeedNotEmpty refuses a Seed into a State that has applied events:
// the carried totals would be added to what they already hold.
var ErrSeedNotEmpty = errors.New("carried totals can only seed a run that has applied nothing yet")

// Seed starts a new State from a run's carried totals: the run's spend,
// calls and log clock, and each carried job with its spend, calls and
// times, so that the job's next attempt adds to them and its ceiling is
// judged on the sum. A job listed twice is seeded once (the first).
// Negative amounts are taken as 0: the carry is read from a file.
func (s *State) Seed(c Carried) error {
	if s.events != 0 || len(s.jobList) != 0 || s.spend != 0 || s.attempts != 0 {
		return ErrSeedNotEmpty
	}
	s.events = max(c.Events, 0)
	s.spend = max(c.Spend, 0)
	s.attempts = max(c.Attempts, 0)
	s.toolCalls = max(c.ToolCalls, 0)
	if c.FirstTS > 0 {
		s.firstTS = c.FirstTS
	}
	for _, st := range slices.Sorted(maps.Keys(c.Statuses)) {
		if n := c.Statuses[st]; n > 0 {
			s.statuses = append(s.statuses, statusCount{st, n})
		}
	}
	if c.LastTS > 0 {
		s.lastTS = c.LastTS
	}
	for _, cj := range c.JobList {
		h := s.jobs.hash(cj.ID)
		if _, ok := s.jobs.find(cj.ID, h, s.jobID); ok {
			continue
		}
		j := &Job{ID: strings.Clone(cj.ID), Type: strings.Clone(cj.Type), RunID: strings.Clone(cj.RunID), Seq: int32(len(s.jobList)), LastStatus: ingest.StatusUnknown,
			Spend: max(cj.Spend, 0), Calls: max(cj.Calls, 0), ToolCalls: max(cj.ToolCalls, 0), FirstTS: max(cj.FirstTS, 0), LastTS: max(cj.LastTS, 0)}
		j.lastFailed, j.spendNon2xx = cj.LastFailed, min(max(cj.SpendNon2xx, 0), j.Spend)
		if cj.Lifecycle && int(cj.Outcome) < len(outcomeNames) {
			j.lifecycle, j.Outcome = true, cj.Outcome
		}
		s.jobs.add(h, int32(len(s.jobList)))
		s.jobList = append(s.jobList, j)
	}
	for _, d := range c.Declared {
		// Through the one path a declaration takes, so its layer, job
		// type and the declared product are kept as the log's would be.
		if d.Key == "" || len(d.Key) > ingest.MaxAssumptionKeyBytes || len(d.Value) > ingest.MaxAssumptionValueBytes {
			continue
		}
		var ev ingest.Event
		ev.Kind, ev.TS, ev.JobType = ingest.KindAssumption, max(d.FirstTS, 0), strings.Clone(d.JobType)
		ev.SetAssumption(strings.Clone(d.From), strings.Clone(d.Key), strings.Clone(d.Value))
		s.assume.assumption(&ev)
	}
	s.lastJob = nil
	s.seeded = &CarriedReport{Events: s.events, Attempts: s.attempts, SpendUSD: s.spend.USD(), Jobs: len(s.jobList)}
	return nil
}
