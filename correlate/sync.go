package correlate

// syncDetector finds bursts of retries from distinct jobs that start within
// one short window of each other: the signature of retries without jitter.
type syncDetector struct {
	window  int64
	minJobs int
	recent  []syncEntry // retries within the window, oldest first
	head    int
	perJob  map[*Job]int
	inBurst bool
	bursts  int64
}

type syncEntry struct {
	ts  int64
	job *Job
}

func newSyncDetector(window int64, minJobs int) *syncDetector {
	return &syncDetector{window: window, minJobs: minJobs, perJob: map[*Job]int{}}
}

// add records a retry. It returns all of a burst's jobs when the retry
// starts a new burst, and joined when it falls into a running one.
func (d *syncDetector) add(ts int64, job *Job) (started []*Job, joined bool) {
	for d.head < len(d.recent) && d.recent[d.head].ts < ts-d.window {
		old := d.recent[d.head].job
		if d.perJob[old]--; d.perJob[old] <= 0 {
			delete(d.perJob, old)
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
	d.recent = append(d.recent, syncEntry{ts, job})
	d.perJob[job]++
	if d.inBurst {
		return nil, true
	}
	if len(d.perJob) < d.minJobs {
		return nil, false
	}
	d.inBurst = true
	d.bursts++
	for j := range d.perJob {
		started = append(started, j)
	}
	return started, false
}
