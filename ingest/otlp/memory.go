package otlp

import (
	"encoding/hex"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/burnrate-dev/burnrate/ingest"
)

// The mapper's memory across requests decides the job of a span: the job
// its trace's root named, a span above it that named one (which names
// only the spans under it), the calls filed under the trace ID until such
// a span comes — all found through the parents of the spans mapped
// before. A watch restarted between two export requests replays the
// events it spooled, but that memory was the process's own: a child whose
// job span came before the restart was filed under the trace, and calls
// filed under a trace before it were never moved. So every change of
// that memory goes through one of the methods below, which make it and,
// with a spool (SpoolMemory), write it down as a KindSpanLink event
// handed over with the request's events; Remember makes the same changes
// from the spooled events. The memory after a replay is the memory at
// the stop: not fixed up afterwards, rebuilt from what was spooled.
//
// What stays the process's own: the memory of model-call spans and their
// HTTP attempts (attempt numbering and wrapper spans across requests) and
// of attempts by resend_count — how many attempts a call counts, not
// whose job it is.

// Memory changes, the first byte of a KindSpanLink's Tool.
const (
	memoSeen         = 's' // a span mapped: its parent
	memoNamed        = 'n' // a span below its root named a job (JobID, JobType)
	memoRoot         = 'r' // the trace's job, named by its root (JobID, JobType)
	memoOrphan       = 'o' // a call filed under the trace ID, by its chain's frontier
	memoLinked       = 'd' // the trace's filed calls were moved to a job
	memoClearJobs    = 'J' // the memory of jobs reached its bound
	memoClearOrphans = 'X' // the memory of filed calls reached its bound
)

// SpoolMemory makes the mapper hand over every change of its memory as a
// KindSpanLink event (ingest.Remembering).
func (o *Source) SpoolMemory() {
	o.R.mapper.mu.Lock()
	o.R.mapper.spoolMemory = true
	o.R.mapper.mu.Unlock()
}

// Remember rebuilds the mapper's memory from the changes a spool kept
// (ingest.Remembering).
func (o *Source) Remember(links []ingest.Event) { o.R.mapper.Remember(links) }

// Remember makes the changes links record, in order. A link it cannot
// read (a spool of another build) is counted in BadLinks and skipped.
func (mp *Mapper) Remember(links []ingest.Event) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	keep := mp.spoolMemory
	mp.spoolMemory = false // made again, not written again
	defer func() { mp.spoolMemory = keep }()
	for i := range links {
		if !mp.remember(&links[i]) {
			mp.BadLinks++
		}
	}
}

func (mp *Mapper) remember(ev *ingest.Event) bool {
	if ev.Kind != ingest.KindSpanLink || ev.Tool == "" {
		return false
	}
	var trace pcommon.TraceID
	if ev.CorrelationID != "" {
		if b, err := hex.DecodeString(ev.CorrelationID); err != nil || len(b) != len(trace) {
			return false
		} else {
			copy(trace[:], b)
		}
	}
	op, rest := ev.Tool[0], ev.Tool[1:]
	span := func(s string) (pcommon.SpanID, bool) {
		var id pcommon.SpanID
		if s == "" {
			return id, true
		}
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != len(id) {
			return id, false
		}
		copy(id[:], b)
		return id, true
	}
	switch op {
	case memoSeen:
		s, p, found := strings.Cut(rest, " ")
		self, ok1 := span(s)
		parent, ok2 := span(p)
		if !found || !ok1 || !ok2 {
			return false
		}
		mp.putLink(spanKey{trace, self}, parent)
	case memoNamed:
		self, ok := span(rest)
		if !ok {
			return false
		}
		mp.putNamed(spanKey{trace, self}, [2]string{ev.JobID, ev.JobType})
	case memoRoot:
		mp.putRoot(trace, [2]string{ev.JobID, ev.JobType})
	case memoOrphan:
		f, ok := span(rest)
		if !ok {
			return false
		}
		mp.addOrphan(trace, f)
	case memoLinked:
		mp.linked(trace)
	case memoClearJobs:
		mp.clearJobs()
	case memoClearOrphans:
		mp.clearOrphans()
	default:
		return false
	}
	return true
}

// memo writes a change down, with a spool.
func (mp *Mapper) memo(trace pcommon.TraceID, change string, job [2]string) {
	if !mp.spoolMemory {
		return
	}
	var ev ingest.Event
	ev.Reset()
	ev.Kind, ev.Tool, ev.JobID, ev.JobType = ingest.KindSpanLink, change, job[0], job[1]
	ev.TS = max(mp.memoTS, 0)
	if !trace.IsEmpty() {
		ev.CorrelationID = hex.EncodeToString(trace[:])
	}
	mp.memos = append(mp.memos, ev)
}

func spanHex(id pcommon.SpanID) string {
	if id.IsEmpty() {
		return ""
	}
	return hex.EncodeToString(id[:])
}

// putSeen remembers a span mapped (two generations of maxSeenSpans);
// what the spool keeps of it is its parent (putLink).
func (mp *Mapper) putSeen(k spanKey, s seenSpan) {
	if mp.seen == nil || len(mp.seen) >= maxSeenSpans {
		mp.seenOld, mp.seen = mp.seen, make(map[spanKey]seenSpan, 1024)
	}
	mp.seen[k] = s
	if mp.spoolMemory {
		mp.memo(k.trace, string(rune(memoSeen))+spanHex(k.span)+" "+spanHex(s.parent), [2]string{})
	}
}

// putLink remembers a span's parent as a replay gives it back: for the
// walks up a trace (parentOf), never as a span mapped — a request the
// exporter sends again after a restart is mapped again, and correlate,
// whose state the replay rebuilt, tells a re-send by its identity (a
// request refused half-way at a stop must not have its unspooled half
// taken for a repeat).
func (mp *Mapper) putLink(k spanKey, parent pcommon.SpanID) {
	if mp.parents == nil || len(mp.parents) >= maxSeenSpans {
		mp.parentsOld, mp.parents = mp.parents, make(map[spanKey]pcommon.SpanID, 1024)
	}
	mp.parents[k] = parent
}

// putNamed remembers a span below its trace's root that named a job.
func (mp *Mapper) putNamed(k spanKey, job [2]string) {
	if _, had := mp.named[k]; !had {
		mp.bytes += int64(len(job[0]) + len(job[1]) + 64)
		mp.namedIn[k.trace]++
	}
	mp.named[k] = job
	if mp.spoolMemory {
		mp.memo(k.trace, string(rune(memoNamed))+spanHex(k.span), job)
	}
}

// putRoot remembers the job a trace's root span named.
func (mp *Mapper) putRoot(trace pcommon.TraceID, job [2]string) {
	if _, had := mp.jobs[trace]; !had {
		mp.bytes += int64(len(job[0]) + len(job[1]) + 64)
	}
	mp.jobs[trace] = job
	mp.memo(trace, string(rune(memoRoot)), job)
}

// addOrphan remembers a call filed under its trace ID by the frontier of
// its known chain.
func (mp *Mapper) addOrphan(trace pcommon.TraceID, f pcommon.SpanID) {
	o := mp.orphans[trace]
	if o != nil && (slices.Contains(o.spans, f) || o.over && (len(o.spans) >= maxOrphanCalls || f.IsEmpty())) {
		return // known already: no change
	}
	if o == nil {
		o = &orphanCalls{}
		mp.orphans[trace] = o
	}
	if !slices.Contains(o.spans, f) {
		if len(o.spans) < maxOrphanCalls && !f.IsEmpty() {
			o.spans = append(o.spans, f)
		} else {
			o.over = true
		}
	}
	mp.memo(trace, string(rune(memoOrphan))+spanHex(f), [2]string{})
}

// linked forgets a trace's filed calls: they were moved to a job.
func (mp *Mapper) linked(trace pcommon.TraceID) {
	delete(mp.orphans, trace)
	mp.memo(trace, string(rune(memoLinked)), [2]string{})
}

func (mp *Mapper) clearJobs() {
	clear(mp.groups)
	clear(mp.jobs)
	clear(mp.named)
	clear(mp.namedIn)
	mp.bytes = 0
	mp.memo(pcommon.TraceID{}, string(rune(memoClearJobs)), [2]string{})
}

func (mp *Mapper) clearOrphans() {
	mp.LostLinks += int64(len(mp.orphans))
	clear(mp.orphans)
	mp.memo(pcommon.TraceID{}, string(rune(memoClearOrphans)), [2]string{})
}

// takeMemos prepends the changes written down while mapping a request to
// its events: spooled no later than the events they explain.
func (mp *Mapper) takeMemos(events []ingest.Event) []ingest.Event {
	if len(mp.memos) == 0 {
		return events
	}
	out := append(mp.memos, events...)
	mp.memos = nil
	return out
}
