package correlate

// syncDetector finds bursts of retries from distinct jobs that start within
// one short window of each other: the signature of retries without jitter.
type syncDetector struct {
	window  int64
	minJobs int
	recent  []syncEntry // retries within the window, oldest first
	head    int
	// perJob counts each job's retries in the window, by Job.Seq (a slice,
	// not a map: two map writes per retry were most of this detector's
	// cost), and distinct the jobs with at least one.
	perJob   []int32
	distinct int
	inBurst  bool
	bursts   int64
}

type syncEntry struct {
	ts    int64
	job   *Job
	waste Pico  // the retry's cost when it failed (a retry that worked wasted nothing)
	seq   int32 // job.Seq, here so expiring an entry visits no job
}

func newSyncDetector(window int64, minJobs int) *syncDetector {
	return &syncDetector{window: window, minJobs: minJobs}
}

// add records a retry and what it wasted. It returns all of a burst's
// jobs, each once, and the waste of the burst's retries when the retry
// starts a new burst, and joined when it falls into a running one.
func (d *syncDetector) add(ts int64, job *Job, waste Pico) (started []*Job, startedWaste Pico, joined bool) {
	for d.head < len(d.recent) && d.recent[d.head].ts < ts-d.window {
		if old := d.recent[d.head].seq; d.perJob[old] > 0 {
			if d.perJob[old]--; d.perJob[old] == 0 {
				d.distinct--
			}
		}
		d.head++
	}
	if d.head == len(d.recent) {
		d.recent, d.head = d.recent[:0], 0
		d.inBurst = false // the window emptied: the next cluster is a new burst
	} else if d.head > 1024 && d.head*2 > len(d.recent) {
		d.recent = append(d.recent[:0], d.recent[d.head:]...)
		d.head = 0
	}
	d.recent = append(d.recent, syncEntry{ts, job, waste, job.Seq})
	if int(job.Seq) >= len(d.perJob) {
		d.perJob = append(d.perJob, make([]int32, int(job.Seq)+1-len(d.perJob)+len(d.perJob)/4)...)
	}
	if d.perJob[job.Seq]++; d.perJob[job.Seq] == 1 {
		d.distinct++
	}
	if d.inBurst {
		return nil, 0, true
	}
	if d.distinct < d.minJobs {
		return nil, 0, false
	}
	d.inBurst = true
	d.bursts++
	seen := make(map[int32]bool, d.distinct)
	for _, e := range d.recent[d.head:] {
		startedWaste = startedWaste.Add(e.waste)
		if !seen[e.seq] {
			seen[e.seq] = true
			started = append(started, e.job)
		}
	}
	return started, startedWaste, false
}
