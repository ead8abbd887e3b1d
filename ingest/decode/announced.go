package decode

import (
	"encoding/binary"
	"math"

	"github.com/burnrate-dev/burnrate/ingest"
)

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

// Past the bound of announcements held in full, the oldest is kept packed
// (packCall: its fields as varints and bytes, ~100 bytes where a held
// event costs ~400 with its strings) until its answer, which completes
// it exactly as a held one's does: the answer's outcome, status and
// usage, the announcement's model and attempt where the answer left them
// out. Only past maxPacked (or maxPackedBytes) too is the oldest packed
// let go as a call of unknown outcome (releasedJobs).
const (
	maxPacked      = 1 << 18
	maxPackedBytes = 32 << 20
	// packedOverhead is what a packed announcement costs beside its bytes
	// and its job's: the slice header, its time, the index entry.
	packedOverhead = 80
)

type packedCall struct {
	job  string
	b    []byte
	seen int64 // when a live Flush first kept it (announcedSeen), 0 not yet
}

// packedQueue holds the packed announcements in the order they were let
// out of the full queue, indexed by job like announceQueue.
type packedQueue struct {
	recs  []packedCall
	idx   map[string]int
	head  int
	fresh int // recs from fresh on are not yet seen by a live Flush
	bytes int
	// latest is the latest seen time given: a clock before it went back.
	latest int64
}

// packedSize counts the job ID once for the record and the index, which
// share its bytes, and again within b.
func packedSize(job string, b []byte) int { return packedOverhead + len(job) + len(b) }

func (q *packedQueue) len() int { return len(q.idx) }

func (q *packedQueue) live(i int) bool {
	j, ok := q.idx[q.recs[i].job]
	return ok && j == i
}

// full: adding a record of n bytes for job would pass a bound.
func (q *packedQueue) full(job string, n int) bool {
	return len(q.idx) > 0 && (len(q.idx) >= maxPacked || q.bytes+packedOverhead+len(job)+n > maxPackedBytes)
}

func (q *packedQueue) push(job string, b []byte, seen int64) {
	if q.idx == nil {
		q.idx = map[string]int{}
	}
	if len(q.recs) > 2*len(q.idx)+64 {
		q.compact()
	}
	q.idx[job] = len(q.recs)
	q.bytes += packedSize(job, b)
	q.recs = append(q.recs, packedCall{job: job, b: b, seen: seen})
}

// take removes job's packed announcement and returns it.
func (q *packedQueue) take(job string) (packedCall, bool) {
	i, ok := q.idx[job]
	if !ok {
		return packedCall{}, false
	}
	r := q.recs[i]
	delete(q.idx, job)
	q.bytes -= packedSize(r.job, r.b)
	q.recs[i] = packedCall{}
	if len(q.idx) == 0 {
		q.recs, q.head, q.fresh, q.bytes = q.recs[:0], 0, 0, 0
	}
	return r, true
}

// oldest is the position of the first live record, -1 none.
func (q *packedQueue) oldest() int {
	for ; q.head < len(q.recs); q.head++ {
		if q.live(q.head) {
			return q.head
		}
	}
	return -1
}

func (q *packedQueue) compact() {
	kept := q.recs[:0]
	fresh := -1
	for i := q.head; i < len(q.recs); i++ {
		if q.live(i) {
			if i >= q.fresh && fresh < 0 {
				fresh = len(kept)
			}
			q.idx[q.recs[i].job] = len(kept)
			kept = append(kept, q.recs[i])
		}
	}
	if fresh < 0 {
		fresh = len(kept)
	}
	clear(q.recs[len(kept):])
	q.recs, q.head, q.fresh = kept, 0, fresh
}

// packCall appends ev to b: every field of ingest.Event, so that unpacked
// it is the very event that was packed (TestPackCallKeepsEveryField).
func packCall(b []byte, ev *ingest.Event) []byte {
	b = binary.AppendVarint(b, ev.TS)
	for _, s := range [...]string{ev.JobID, ev.JobType, ev.RunID, ev.CorrelationID, ev.IdempotencyKey, ev.ResponseID, ev.Provider, ev.Model, ev.ErrorType, ev.Tool} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, math.Float64bits(ev.CostUSD))
	for _, n := range [...]int64{ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens, ev.CacheCreate1hTokens, ev.PromptTokens,
		ev.RetryAfterMs, ev.RateLimitTokens, ev.RateLimitRequests, int64(ev.LatencyMs), int64(ev.Status), int64(ev.Attempt), int64(ev.QueueAttempt), int64(ev.Source)} {
		b = binary.AppendVarint(b, n)
	}
	var flags uint16
	for i, f := range [...]bool{ev.HasCost, ev.StreamDropped, ev.UsageUnseen, ev.Batch, ev.TSCarried, ev.AgentSession, ev.ForkCopy, ev.Held} {
		if f {
			flags |= 1 << i
		}
	}
	return append(b, byte(ev.Kind), byte(ev.AttemptBy), byte(ev.Bill), byte(ev.Dropped), byte(flags))
}

// unpackCall reads back what packCall wrote (the decoder's own bytes).
func unpackCall(b []byte, ev *ingest.Event) {
	*ev = ingest.Event{}
	varint := func() int64 {
		v, n := binary.Varint(b)
		b = b[max(n, 0):]
		return v
	}
	uvarint := func() uint64 {
		v, n := binary.Uvarint(b)
		b = b[max(n, 0):]
		return v
	}
	ev.TS = varint()
	for _, s := range [...]*string{&ev.JobID, &ev.JobType, &ev.RunID, &ev.CorrelationID, &ev.IdempotencyKey, &ev.ResponseID, &ev.Provider, &ev.Model, &ev.ErrorType, &ev.Tool} {
		n := min(int(uvarint()), len(b))
		*s = string(b[:n])
		b = b[n:]
	}
	ev.CostUSD = math.Float64frombits(uvarint())
	for _, n := range [...]*int64{&ev.InputTokens, &ev.OutputTokens, &ev.CacheReadTokens, &ev.CacheCreateTokens, &ev.CacheCreate1hTokens, &ev.PromptTokens,
		&ev.RetryAfterMs, &ev.RateLimitTokens, &ev.RateLimitRequests} {
		*n = varint()
	}
	ev.LatencyMs, ev.Status, ev.Attempt, ev.QueueAttempt, ev.Source = int32(varint()), int16(varint()), int16(varint()), int16(varint()), uint16(varint())
	if len(b) < 5 {
		return
	}
	ev.Kind, ev.AttemptBy, ev.Bill, ev.Dropped = ingest.Kind(b[0]), ingest.AttemptBy(b[1]), ingest.Bill(b[2]), ingest.FieldDrop(b[3])
	for i, f := range [...]*bool{&ev.HasCost, &ev.StreamDropped, &ev.UsageUnseen, &ev.Batch, &ev.TSCarried, &ev.AgentSession, &ev.ForkCopy, &ev.Held} {
		*f = b[4]&(1<<i) != 0
	}
}
