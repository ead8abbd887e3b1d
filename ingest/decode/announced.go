package decode

import "github.com/burnrate-dev/burnrate/ingest"

// Bounds of the announcements waiting for their answer (F8): a night of
// a few thousand jobs each with a call in flight is ordinary, so the
// bound is in the tens of thousands, and bytes (job IDs and models are
// the input's) bound it too. Past either the oldest is let go as a call
// of unknown outcome, and its job is remembered (maxReleased) so that
// its answer, if it comes, completes that call rather than adding one.
const (
	maxAnnounced      = 1 << 15
	maxAnnouncedBytes = 32 << 20
	maxReleased       = 1 << 19 // ~10 MB of hashes
	// announcedOverhead is what a held announcement costs beside its
	// strings (the event and its index entry).
	announcedOverhead = 400
)

// announceQueue holds the announcements in the order read, one per job,
// indexed by job: finding, taking and adding cost O(1) however many
// wait. Taken entries stay in evs until a compaction; an entry is live
// while idx names its position.
type announceQueue struct {
	evs   []ingest.Event
	idx   map[string]int
	head  int // evs before head are all taken
	bytes int
}

func announcedSize(ev *ingest.Event) int {
	return announcedOverhead + 2*len(ev.JobID) + len(ev.Model) + len(ev.Provider) + len(ev.ResponseID)
}

func (q *announceQueue) len() int { return len(q.idx) }

func (q *announceQueue) live(i int) bool {
	j, ok := q.idx[q.evs[i].JobID]
	return ok && j == i
}

// full: adding ev would pass a bound.
func (q *announceQueue) full(ev *ingest.Event) bool {
	return len(q.idx) > 0 && (len(q.idx) >= maxAnnounced || q.bytes+announcedSize(ev) > maxAnnouncedBytes)
}

func (q *announceQueue) push(ev ingest.Event) {
	if q.idx == nil {
		q.idx = map[string]int{}
	}
	if len(q.evs) > 2*len(q.idx)+64 {
		q.compact()
	}
	q.idx[ev.JobID] = len(q.evs)
	q.bytes += announcedSize(&ev)
	q.evs = append(q.evs, ev)
}

// take removes job's announcement and returns it.
func (q *announceQueue) take(job string) (ingest.Event, bool) {
	i, ok := q.idx[job]
	if !ok {
		return ingest.Event{}, false
	}
	ev := q.evs[i]
	delete(q.idx, job)
	q.bytes -= announcedSize(&ev)
	q.evs[i] = ingest.Event{}
	if len(q.idx) == 0 {
		q.evs, q.head, q.bytes = q.evs[:0], 0, 0
	}
	return ev, true
}

// oldest is the job of the first live announcement.
func (q *announceQueue) oldest() string {
	for ; q.head < len(q.evs); q.head++ {
		if q.live(q.head) {
			return q.evs[q.head].JobID
		}
	}
	return ""
}

func (q *announceQueue) compact() {
	kept := q.evs[:0]
	for i := q.head; i < len(q.evs); i++ {
		if q.live(i) {
			q.idx[q.evs[i].JobID] = len(kept)
			kept = append(kept, q.evs[i])
		}
	}
	clear(q.evs[len(kept):])
	q.evs, q.head = kept, 0
}

// jobs are the jobs waiting, oldest first (a copy: the caller may take).
func (q *announceQueue) jobs() []string {
	var out []string
	for i := q.head; i < len(q.evs); i++ {
		if q.live(i) {
			out = append(out, q.evs[i].JobID)
		}
	}
	return out
}

// at is job's announcement, in place (nil: none).
func (q *announceQueue) at(job string) *ingest.Event {
	if i, ok := q.idx[job]; ok {
		return &q.evs[i]
	}
	return nil
}

// releasedJobs remembers the jobs whose announcement the bound let go
// before its answer: that answer is the call already counted. A job is
// remembered by a 64-bit hash of its ID (FNV-1a), 8 bytes however long
// the ID: two IDs of one hash (one chance in 2^64 a pair) would merge
// one call's answer into the other's, never add a call.
type releasedJobs struct {
	set map[uint64]struct{}
}

func jobHash(job string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(job); i++ {
		h ^= uint64(job[i])
		h *= 1099511628211
	}
	return h
}

func (r *releasedJobs) len() int { return len(r.set) }

// add remembers job; false: the memory is full, job is not remembered.
func (r *releasedJobs) add(job string) bool {
	k := jobHash(job)
	if _, ok := r.set[k]; ok {
		return true
	}
	if len(r.set) >= maxReleased {
		return false
	}
	if r.set == nil {
		r.set = map[uint64]struct{}{}
	}
	r.set[k] = struct{}{}
	return true
}

// take forgets job, reporting whether it was remembered.
func (r *releasedJobs) take(job string) bool {
	if len(r.set) == 0 {
		return false
	}
	k := jobHash(job)
	if _, ok := r.set[k]; !ok {
		return false
	}
	delete(r.set, k)
	return true
}
