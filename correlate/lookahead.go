package correlate

import (
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// resolved is an event's job and operation, looked up ahead (ApplyBatch).
type resolved struct {
	job *Job
	op  *operation
	h   uint64 // findOp's: the ops index's hash of the event's scoped key
	// hashed says h is set though op is nil (a key not seen yet): op
	// reuses it instead of hashing the key again.
	hashed bool

	// The stages' scratch.
	key   string // the event's job key
	jh    uint64 // the job index's hash of key
	slot  int32  // position+1 of the first index slot of the hash's tag, 0 none
	viaOp bool   // slot is the op index's (else the job's last operation is the candidate)
	opKey string // the candidate operation's key
}

// resolve looks up the jobs and operations of b's events ahead of applying
// them (up to its first KindTraceJob, which moves jobs), into res.
//
// Each lookup is a chain of dependent loads that miss the cache on a log
// whose jobs are interleaved (the index slot, the job's position, the job,
// its ID's bytes; then its last operation and that key's bytes, or the
// operation index): done event by event, the CPU waits for each miss of a
// chain in turn. Here the batch goes through the chains a step at a time,
// every event's step before any event's next, so the loads of one step are
// independent and the CPU waits for many at once.
//
// It finds exactly what Job and findOp find: a step that meets anything
// but the plain case (a tag shared by two keys, a retry whose last
// operation has another key of the same hash) falls back to them. It only
// finds: what is new is created while applying, in order.
func (s *State) resolve(b ingest.Batch, res []resolved) {
	n := len(b)
	for i := range b {
		if b[i].Kind == ingest.KindTraceJob {
			n = i
			break
		}
	}
	b, res = b[:n], res[:n]
	// 1. Each job key's hash and its first slot of that tag.
	for i := range b {
		ev := &b[i]
		if ev.Kind == ingest.KindAssumption || ev.Kind == ingest.KindSpanLink {
			continue // belongs to no job: apply takes it alone
		}
		r := &res[i]
		r.key = jobKey(ev)
		r.jh = s.jobs.hash(r.key)
		r.slot = s.jobs.first(r.jh)
	}
	// 2. The jobs at those positions.
	for i := range res {
		if r := &res[i]; r.slot != 0 {
			r.job = s.jobList[r.slot-1]
		}
	}
	// 3. Confirmed by their IDs (a job's first line), else looked up whole:
	// the first slot of the tag was another key's.
	for i := range res {
		if r := &res[i]; r.job != nil && r.job.ID != r.key {
			r.job = s.Job(r.key)
		}
	}
	// The jobs' other hot lines (Job's second and third cache lines: its
	// counts, its type and run), which applying reads: loaded here, they
	// miss together instead of one event at a time. The sum only keeps
	// the loads.
	warm := 0
	for i := range res {
		if j := res[i].job; j != nil {
			warm += int(j.Calls) + len(j.RunID)
		}
	}
	s.warm = warm
	// 4. A keyed call's scoped key, hashed: the job's last operation is the
	// candidate when the hash is its (a retry), else the first slot of
	// the tag in the operations' index.
	for i := range b {
		ev := &b[i]
		r := &res[i]
		if ev.IdempotencyKey == "" || (ev.Kind != ingest.KindLLMCall && ev.Kind != ingest.KindToolCall) {
			r.slot = 0
			continue
		}
		r.h, r.hashed = s.ops.hash(s.scope(r.key, ev.IdempotencyKey)), true
		if j := r.job; j != nil && j.lastOp != nil && j.lastHash == r.h {
			r.op, r.slot, r.viaOp = j.lastOp, 0, false
			continue
		}
		r.slot, r.viaOp = s.ops.first(r.h), true
	}
	// 5. The candidates: each operation's key (its first line), loaded.
	for i := range res {
		r := &res[i]
		switch {
		case r.op != nil: // the job's last operation
			r.opKey = r.op.key
		case r.viaOp && r.slot != 0:
			r.op = s.opAt(r.slot - 1)
			r.opKey = r.op.key
		}
	}
	// 6. The keys' bytes, compared.
	for i := range res {
		r := &res[i]
		if r.op != nil {
			key := b[i].IdempotencyKey
			var same bool
			if r.viaOp {
				same = isScoped(r.opKey, r.key, key)
			} else {
				same = r.opKey[strings.IndexByte(r.opKey, 0)+1:] == key // lastKey
			}
			if !same {
				r.op, _ = s.findOp(r.job, r.key, key)
			}
		}
		r.key, r.opKey, r.slot, r.viaOp = "", "", 0, false // no strings kept past the batch
	}
}

// isScoped reports whether k is jk+"\x00"+key (scope's string) without
// building it.
func isScoped(k, jk, key string) bool {
	return len(k) == len(jk)+1+len(key) && k[len(jk)] == 0 && k[:len(jk)] == jk && k[len(jk)+1:] == key
}
