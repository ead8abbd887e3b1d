// Package otlp receives OTLP traces and logs over gRPC and HTTP (decoded
// with go.opentelemetry.io/collector/pdata) and maps GenAI spans and log
// records onto the same normalized events as the JSON-lines ingest.
package otlp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// StatusUnknownRetried marks attempts a span says happened (its
// http.request.resend_count) but whose status it did not report.
const StatusUnknownRetried = "status unknown (retried)"

type spanRef struct {
	span ptrace.Span
	res  pcommon.Map
	// src is the sender its resource names (sourceOf).
	src uint16
	// model: the span carries gen_ai / OpenInference model attributes.
	model bool
	// shadowed: a model-call child exists, so this span's usage is the
	// child's counted again (the Vercel AI SDK's ai.generateText).
	shadowed bool
	// httpKids is how many HTTP CLIENT spans under this model-call span
	// are in the request: they are its attempts (instrumentation-undici
	// records one span per HTTP request the SDK sends).
	httpKids int32
}

type spanKey struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

// maxRemembered and maxRememberedBytes bound the mapper's memory of traces
// and call groups, in entries and in bytes; past either the memory starts
// over (a call split across that boundary may count a synthesized attempt
// twice). Every string kept is capped first (decode.CleanField, 512 bytes),
// so a client sending 2 MB job IDs fills the bound, never grows past it.
const (
	maxRemembered      = 100_000
	maxRememberedBytes = 32 << 20
)

// Mapper maps OTLP payloads to events. It remembers, across requests, the
// job each trace belongs to and how many attempts each call has shown, since
// exporters split one trace over several requests (children usually end,
// and are exported, before the root that carries job.id). Safe for
// concurrent use.
type Mapper struct {
	mu sync.Mutex
	// sdk is the last package version seen per SDK (assumptions.go),
	// under its own lock: MapLogs does not take mu.
	sdkMu  sync.Mutex
	sdk    map[string]string
	groups map[groupKey]*group
	// seen and seenOld are the spans mapped lately (two generations of
	// maxSeenSpans): an exporter that retries a batch the receiver did
	// take (a timeout after the 200, the Collector's retry_on_failure)
	// sends its spans again, and they must not be billed twice.
	// Each keeps the span's parent, to tell across requests whether a
	// span is below the one that named a job.
	seen, seenOld map[spanKey]seenSpan
	// modelBelow and modelBelowOld are the spans a model-call span was
	// mapped below (its parent, and theirs): a model-call span arriving
	// later is then a wrapper of calls already billed.
	modelBelow, modelBelowOld map[spanKey]struct{}
	// Repeats counts the spans dropped as already mapped; Collisions the
	// spans that reuse a mapped span's trace and span ID with another
	// start or end (a forked worker pool whose ID generator's state was
	// copied at fork): each is its own span, mapped.
	Repeats, Collisions int64
	jobs                map[pcommon.TraceID][2]string // job ID, job type
	bytes               int64                         // of the strings held by groups and jobs
	// orphans are traces whose calls were mapped under their trace ID (no
	// span above them had named the job yet), with those calls' span IDs:
	// when a later span that is above every one of them names a job, a
	// KindTraceJob event tells correlate to move them.
	orphans map[pcommon.TraceID]*orphanCalls
	// named are the spans below a trace's root that named a job: it is
	// the job of the spans under them only. A sibling's job is a guess
	// (one trace per batch run holds many jobs), and a guess never moves
	// spend toward a kill.
	named map[spanKey][2]string
	// namedIn counts named's spans per trace: a trace with none (most)
	// is never walked.
	namedIn map[pcommon.TraceID]int32
	// req and reqRefs are the request being mapped (its spans' index),
	// whose spans are not in seen yet while its jobs are learned.
	req     map[spanKey]int
	reqRefs []spanRef
	// Unlinked counts spans below a trace's root that named a job while
	// calls of the trace filed under its trace ID were not all below them:
	// those calls stay under the trace ID.
	Unlinked int64
	// calls remembers model-call spans mapped (model, provider, and the
	// attempts counted for them), and kids the HTTP attempt spans mapped
	// under a model-call span not seen yet: the call's span ends after
	// its attempts and often comes in a later request.
	calls     map[spanKey]*callMemo
	kids      map[spanKey]int32
	callBytes int64 // held by calls and kids
	// LostLinks counts traces whose calls stay under the trace ID because
	// the memory of them was dropped at its bound before the job's span
	// came; RehomeLinks counts the KindTraceJob events sent.
	LostLinks, RehomeLinks int64
	// spoolMemory: every change of the memory that decides a span's job
	// is written down in memos and handed over with the request's events
	// (memory.go); BadLinks counts spooled changes Remember could not read.
	spoolMemory bool
	memos       []ingest.Event
	memoTS      int64
	// parents and parentsOld are the parents of spans mapped before a restart,
	// given back by the replay (memory.go: putLink).
	parents, parentsOld map[spanKey]pcommon.SpanID
	BadLinks            int64
}

// links returns RehomeLinks and LostLinks.
func (mp *Mapper) links() (linked, lost int64) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	return mp.RehomeLinks, mp.LostLinks
}

// callMemo is what the attempt spans of a model call take from it.
type callMemo struct {
	model, provider string
	counted         int32 // attempts counted for it, that HTTP spans may still claim
}

// groupKey names a call: its trace, its parent span and its span name.
// The IDs stay binary: hex strings of them cost an allocation per span.
type groupKey struct {
	trace  pcommon.TraceID
	parent pcommon.SpanID
	name   string
}

type group struct {
	spans int64 // attempt spans seen
	synth int64 // attempts synthesized from resend_count
	// placeholders has bit n-1 set for attempt n when it was synthesized
	// and its own span has not come since (attempts 1–64): a Collector
	// with several export consumers can deliver resend_count 2 before 0
	// and 1, and their spans must not be counted a second time.
	placeholders uint64
	// synthBefore is the start of the span that synthesized the
	// placeholders: only a span that ended by then can be one of those
	// attempts. A span that started later is another call of the same
	// name (a wrapper's second try): spans are distinct by span ID.
	synthBefore int64
}

// maxSeenSpans is one generation of the span memory: about 13 MB, and
// minutes of a busy fleet's spans — a retried export comes within seconds.
const maxSeenSpans = 1 << 18

// seenSpan is what is remembered of a span mapped: its parent, and its
// start and end, which tell a re-send (the same span again) from another
// span under the same IDs.
type seenSpan struct {
	parent     pcommon.SpanID
	start, end pcommon.Timestamp
	// first is the start and end of the first span mapped under these
	// IDs, when another came since: a re-send of either is one.
	first [2]pcommon.Timestamp
}

// sawSpan reports whether the span was mapped before (again), or another
// span under its IDs was (other), and remembers it.
func (mp *Mapper) sawSpan(k spanKey, sp ptrace.Span) (again, other bool) {
	now := seenSpan{parent: sp.ParentSpanID(), start: sp.StartTimestamp(), end: sp.EndTimestamp()}
	now.first = [2]pcommon.Timestamp{now.start, now.end}
	was, ok := mp.seen[k]
	if !ok {
		was, ok = mp.seenOld[k]
	}
	if ok {
		if was.start == now.start && was.end == now.end || was.first == now.first {
			return true, false
		}
		other = true
		now.first = was.first
	}
	if other {
		mp.Collisions++
	}
	mp.putSeen(k, now)
	return false, other
}

// noteModelBelow remembers that a model-call span lies below the span k
// (two generations of maxSeenSpans, as the spans mapped).
func (mp *Mapper) noteModelBelow(k spanKey) {
	if _, ok := mp.modelBelow[k]; ok {
		return
	}
	if mp.modelBelow == nil || len(mp.modelBelow) >= maxSeenSpans {
		mp.modelBelowOld, mp.modelBelow = mp.modelBelow, make(map[spanKey]struct{}, 1024)
	}
	mp.modelBelow[k] = struct{}{}
}

// hadModelBelow reports whether a model-call span below k was mapped.
func (mp *Mapper) hadModelBelow(k spanKey) bool {
	if _, ok := mp.modelBelow[k]; ok {
		return true
	}
	_, ok := mp.modelBelowOld[k]
	return ok
}

// embedding: a model-call span of an embedding (GenAI's operation
// "embeddings", the Vercel AI SDK's ai.embed*, OpenInference's
// EMBEDDING kind).
func embedding(sp ptrace.Span) bool {
	a := sp.Attributes()
	switch firstStr(a, "gen_ai.operation.name") {
	case "embeddings", "embedding", "embed":
		return true
	}
	if strings.EqualFold(firstStr(a, "openinference.span.kind"), "EMBEDDING") {
		return true
	}
	id := firstStr(a, "ai.operationId")
	return strings.HasPrefix(id, "ai.embed")
}

// vercelOuter: the Vercel AI SDK's outer span of a generation or an
// embedding (ai.operationId "ai.generateText", "ai.streamObject",
// "ai.embedMany", …). The SDK makes the model call in a child span of the
// same name plus ".doGenerate", ".doStream" or ".doEmbed", which carries
// the call's own usage; the outer span's ai.usage.* is the sum over its
// steps. Read by its own shape, it is never a call, whichever of its
// spans a request brings first (packages/ai/core/generate-text in
// vercel/ai: recordSpan "ai.generateText" around each step's
// "ai.generateText.doGenerate").
func vercelOuter(sp ptrace.Span) bool {
	id := firstStr(sp.Attributes(), "ai.operationId")
	if id == "" {
		id = sp.Name()
	}
	switch id {
	case "ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject", "ai.embed", "ai.embedMany":
		return true
	}
	return false
}

// NewMapper returns a mapper with empty memory.
func NewMapper() *Mapper {
	return &Mapper{groups: map[groupKey]*group{}, jobs: map[pcommon.TraceID][2]string{}, named: map[spanKey][2]string{}, namedIn: map[pcommon.TraceID]int32{},
		orphans: map[pcommon.TraceID]*orphanCalls{}, calls: map[spanKey]*callMemo{}, kids: map[spanKey]int32{}}
}

// learned is what earlier spans say of a span whose parent is parent:
// the job a span above it named, else its trace's root span's.
func (mp *Mapper) learned(trace pcommon.TraceID, parent pcommon.SpanID) [2]string {
	root := mp.jobs[trace]
	if mp.namedIn[trace] == 0 {
		return root
	}
	n := mp.namedAbove(trace, parent)
	if n[0] == "" {
		n[0] = root[0]
	}
	if n[1] == "" {
		n[1] = root[1]
	}
	return n
}

// orphanCalls are the calls of a trace filed under its trace ID, by the
// spans their known chains stop at (each call's first ancestor not seen
// yet, or the root it reaches): a span that is one of them or above them
// all names their job. Calls under one job span share it, so a long run's
// thousands of calls are one entry (R7b-10: kept call by call, past 256 a
// job span below the root never took them). Past maxOrphanCalls distinct
// ones (over), only the trace's root span naming a job moves them.
type orphanCalls struct {
	spans []pcommon.SpanID
	over  bool
}

// frontier is where the known chain above a span of trace whose parent is
// parent stops: its first ancestor not seen yet, or the root it reaches
// (self when it is a root).
func (mp *Mapper) frontier(trace pcommon.TraceID, self, parent pcommon.SpanID) pcommon.SpanID {
	if parent.IsEmpty() {
		return self
	}
	p := parent
	for hop := 0; hop < maxHops; hop++ {
		pp, ok := mp.parentOf(spanKey{trace, p})
		if !ok || pp.IsEmpty() {
			return p
		}
		p = pp
	}
	return p
}

const maxOrphanCalls = 256

// maxHops bounds a walk up a trace's remembered parents.
const maxHops = 64

// parentOf is k's parent: from the request being mapped, else from the
// spans mapped lately.
func (mp *Mapper) parentOf(k spanKey) (pcommon.SpanID, bool) {
	if i, ok := mp.req[k]; ok {
		return mp.reqRefs[i].span.ParentSpanID(), true
	}
	if p, ok := mp.seen[k]; ok {
		return p.parent, true
	}
	if p, ok := mp.seenOld[k]; ok {
		return p.parent, true
	}
	if p, ok := mp.parents[k]; ok {
		return p, true
	}
	p, ok := mp.parentsOld[k]
	return p, ok
}

// namedAbove is the job named by the nearest span above parent (parent
// included) that named one, as far as the remembered parents reach.
func (mp *Mapper) namedAbove(trace pcommon.TraceID, parent pcommon.SpanID) [2]string {
	for hop := 0; hop < maxHops && !parent.IsEmpty(); hop++ {
		k := spanKey{trace, parent}
		if n, ok := mp.named[k]; ok {
			return n
		}
		p, ok := mp.parentOf(k)
		if !ok {
			break
		}
		parent = p
	}
	return [2]string{}
}

// below reports whether span is under above, as far as the remembered
// parents show.
func (mp *Mapper) below(trace pcommon.TraceID, span, above pcommon.SpanID) bool {
	for hop := 0; hop < maxHops; hop++ {
		p, ok := mp.parentOf(spanKey{trace, span})
		if !ok || p.IsEmpty() {
			return false
		}
		if p == above {
			return true
		}
		span = p
	}
	return false
}

// MapTraces turns model-call and client HTTP spans into events. rejected
// counts spans that looked like calls but could not be read.
func (mp *Mapper) MapTraces(td ptrace.Traces) (events []ingest.Event, rejected int64, reason string) {
	events, rejected, reason, _ = mp.MapTracesOnce(td)
	return events, rejected, reason
}

// Forget drops spans from the memory of those mapped: the request that
// brought them was refused (the engine was behind), so the exporter sends
// them again, and they must be taken then.
func (mp *Mapper) Forget(keys []SpanKey) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	for _, k := range keys {
		delete(mp.seen, spanKey(k))
		delete(mp.seenOld, spanKey(k))
	}
}

// SpanKey names a span mapped (its trace and span ID), for Forget.
type SpanKey spanKey

// MapTracesOnce is MapTraces, also returning the spans it remembered as
// mapped, for the receiver to Forget if it cannot deliver their events.
func (mp *Mapper) MapTracesOnce(td ptrace.Traces) (events []ingest.Event, rejected int64, reason string, keys []SpanKey) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if len(mp.groups) > maxRemembered || len(mp.jobs) > maxRemembered || mp.bytes > maxRememberedBytes {
		mp.clearJobs()
	}
	// The call memory has its own bounds, so a busy app's model spans do
	// not wipe the memory of trace jobs more often than before.
	if len(mp.calls) > maxRemembered || len(mp.kids) > maxRemembered || mp.callBytes > maxRememberedBytes/2 {
		clear(mp.calls)
		clear(mp.kids)
		mp.callBytes = 0
	}
	if len(mp.orphans) > maxRemembered/maxOrphanCalls*4 {
		mp.clearOrphans()
	}
	n := td.SpanCount()
	refs := make([]spanRef, 0, n)
	index := make(map[spanKey]int, n)
	events = make([]ingest.Event, 0, n)
	var lastTrace pcommon.TraceID
	var lastTraceHex string
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		rs := rss.At(i)
		res := rs.Resource().Attributes()
		src := sourceOf(res)
		sss := rs.ScopeSpans()
		if sss.Len() > 0 && sss.At(0).Spans().Len() > 0 {
			// Declared for everything the resource sends: at its first span.
			from := len(events)
			events = declared(events, res, fromResource, "", int64(sss.At(0).Spans().At(0).StartTimestamp()))
			stampFrom(events, from, src)
		}
		for j := range sss.Len() {
			spans := sss.At(j).Spans()
			for k := range spans.Len() {
				sp := spans.At(k)
				key := spanKey{sp.TraceID(), sp.SpanID()}
				if first, dup := index[key]; dup && !key.trace.IsEmpty() && !key.span.IsEmpty() {
					if f := refs[first].span; f.StartTimestamp() == sp.StartTimestamp() && f.EndTimestamp() == sp.EndTimestamp() {
						// The same span twice in one request (a batch that
						// merged an export with its retry): the first copy
						// only — the second doubled its parent's children,
						// and the storm's 63 calls a job read as 103.
						mp.Repeats++
						continue
					}
					// Another span under the same IDs: its own call (the
					// collision is counted when it is mapped). The index
					// keeps the first (a child names one parent).
					refs = append(refs, spanRef{span: sp, res: res, src: src, model: isModelCall(sp.Attributes())})
					continue
				}
				index[key] = len(refs)
				refs = append(refs, spanRef{span: sp, res: res, src: src, model: isModelCall(sp.Attributes())})
			}
		}
	}
	mp.req, mp.reqRefs = index, refs
	// The memory's changes are spooled at the request's time: the spool
	// keeps a segment while its run's events may still be re-sent, and
	// so the memory that explains them.
	mp.memoTS = 0
	for i := range refs {
		if t := int64(refs[i].span.StartTimestamp()); t > mp.memoTS && t < ingest.MaxTS {
			mp.memoTS = t
		}
	}
	defer func() { mp.req, mp.reqRefs = nil, nil }()
	parentOf := func(i int) int {
		sp := refs[i].span
		if sp.ParentSpanID().IsEmpty() {
			return -1
		}
		if p, ok := index[spanKey{sp.TraceID(), sp.ParentSpanID()}]; ok && p != i {
			return p
		}
		return -1
	}
	anc := ancestors(refs, parentOf)
	// Count usage on the innermost model-call span only. An embedding
	// below a chat call (the call's retrieval step) is a call of its own,
	// not the chat's usage counted again (R7b-8: the chat's tokens were
	// dropped); an embedding outer span over its doEmbed is one call.
	embed := make([]bool, len(refs))
	for i := range refs {
		embed[i] = refs[i].model && embedding(refs[i].span)
	}
	for i := range refs {
		if refs[i].model {
			if a := anc.model[i]; a >= 0 && embed[i] == embed[a] {
				refs[a].shadowed = true
			}
		}
	}
	// An agent's span (invoke_agent) beside the model calls it made is
	// their sum, not a call: Microsoft Agent Framework's invoke_agent is a
	// sibling of its chat spans under one executor span and carries their
	// summed usage, which doubled the spend.
	var parentOfCall map[pcommon.SpanID]bool
	for i := range refs {
		if refs[i].model && !agentOperation(refs[i].span.Attributes()) && !refs[i].span.ParentSpanID().IsEmpty() {
			if parentOfCall == nil {
				parentOfCall = map[pcommon.SpanID]bool{}
			}
			parentOfCall[refs[i].span.ParentSpanID()] = true
		}
	}
	for i := range refs {
		if refs[i].model && parentOfCall[refs[i].span.ParentSpanID()] && agentOperation(refs[i].span.Attributes()) {
			refs[i].shadowed = true
		}
	}
	// A model-call span is a wrapper whatever this request holds when its
	// own shape says so (the Vercel AI SDK's outer spans: their calls are
	// always their doGenerate/doStream children), or when a model-call
	// span below it came in an earlier request. An exporter sends spans
	// as they end, so the children usually go first, and the wrapper
	// alone in a later request was billed again: twice the spend, a
	// phantom call. Every span below a model call (in this request or
	// remembered from one before) notes its parent, so a wrapper above a
	// chain of plain spans is found too.
	// Earlier requests' memory first, spread up this request's chains;
	// this request's own model calls are the ancestry's (which cuts a
	// cycle), and are remembered only after, so a ring of spans never
	// shadows itself.
	below := make([]bool, len(refs))
	up := func(i int, mark []bool, note bool) {
		for j, steps := i, 0; steps <= len(refs); steps++ {
			sp := refs[j].span
			if note && !sp.ParentSpanID().IsEmpty() {
				mp.noteModelBelow(spanKey{sp.TraceID(), sp.ParentSpanID()})
			}
			p := parentOf(j)
			if p < 0 || mark[p] {
				return
			}
			mark[p] = true
			j = p
		}
	}
	known := make([]bool, len(refs))
	for i := range refs {
		if mp.hadModelBelow(spanKey{refs[i].span.TraceID(), refs[i].span.SpanID()}) {
			known[i] = true
			up(i, below, false)
		}
	}
	for i := range refs {
		if refs[i].model && !refs[i].shadowed && (known[i] || below[i] || vercelOuter(refs[i].span)) {
			refs[i].shadowed = true
		}
	}
	noted := make([]bool, len(refs))
	for i := range refs {
		if refs[i].model && !embed[i] || known[i] || below[i] {
			up(i, noted, true)
		}
	}
	// An HTTP CLIENT span under a model-call span is an attempt of that
	// call: the call's span then carries only its usage. The attempts of
	// a call whose span is here are numbered in the order they came (an
	// exporter sends spans as they end: a retry ends after the attempt it
	// retried), after those of it that came in earlier requests; that is
	// the SDK's attempt number. Attempts whose call span is not here yet
	// stay unnumbered: their parent may be the call or the job.
	//
	// Only the innermost call's own requests are its attempts: its direct
	// children, or requests to a model endpoint below it. A tool's fetch
	// under the Vercel AI SDK's ai.generateText (a call span whose
	// doGenerate child is the call) is a tool call.
	var attemptNo map[int]int16
	callOf := make([]int32, len(refs))
	for i := range refs {
		callOf[i] = -1
		m := anc.model[i]
		if m < 0 || !isHTTPClient(&refs[i]) || refs[m].shadowed {
			continue
		}
		direct := refs[i].span.ParentSpanID() == refs[m].span.SpanID()
		if !direct && modelEndpoint(refs[i].span.Attributes()) == "" {
			continue
		}
		callOf[i] = m
		if direct {
			if attemptNo == nil {
				attemptNo = map[int]int16{}
			}
			attemptNo[i] = int16(min(int64(mp.kids[spanKey{refs[m].span.TraceID(), refs[m].span.SpanID()}])+int64(refs[m].httpKids)+1, 1<<15-1))
		}
		refs[m].httpKids++
	}
	// Learn each trace's job. A root span's job is the whole trace's
	// (every span is below it); a span below the root names the job of
	// the spans under it only — a batch run's trace holds many jobs, and
	// a call beside a job's span, not under it, is not that job's.
	st := stamper{events: &events, from: len(events)}
	for i := range refs {
		st.next(refs[i].src)
		a := refs[i].span.Attributes()
		id, typ := decode.CleanID(firstStr(a, decode.FieldJobID.OTel()...)), clean(firstStr(a, decode.FieldJobType.OTel()...))
		if id == "" && typ == "" {
			continue
		}
		trace, self := refs[i].span.TraceID(), refs[i].span.SpanID()
		root := refs[i].span.ParentSpanID().IsEmpty()
		// A model call's own spans below it (its HTTP attempts) end, and
		// are sent, before it: a later request brings none, so it is not
		// remembered (every call span of an app that puts job.id on each
		// would fill the memory).
		if !root && !refs[i].model {
			mp.putNamed(spanKey{trace, self}, [2]string{id, typ})
		}
		if o := mp.orphans[trace]; o != nil && id != "" {
			// Calls of this trace went out under its trace ID: they are
			// this job's if this span is above every one of them.
			all := root
			if !all && !o.over {
				all = true
				for _, c := range o.spans {
					if c != self && !mp.below(trace, c, self) {
						all = false
						break
					}
				}
			}
			if all {
				mp.linked(trace)
				_, jt := resolveJob(&refs[i], anc, i, mp.learned(trace, refs[i].span.ParentSpanID()))
				var ev ingest.Event
				ev.Reset()
				// At the span's end: it ended after the calls it names the job
				// of, and a merge of files by time must not put it first.
				ev.Kind, ev.TS, ev.JobID, ev.JobType = ingest.KindTraceJob, max(int64(refs[i].span.EndTimestamp()), int64(refs[i].span.StartTimestamp())), id, jt
				ev.CorrelationID = clean(trace.String())
				events = append(events, ev)
				mp.RehomeLinks++
			} else {
				mp.Unlinked++
			}
		}
		if !root {
			continue
		}
		known := mp.jobs[trace]
		if known[0] == "" {
			known[0] = id
		}
		if known[1] == "" {
			known[1] = typ
		}
		mp.putRoot(trace, known)
	}
	st.done()
	for i := range refs {
		st.next(refs[i].src)
		r := &refs[i]
		collided := false
		if k := (spanKey{r.span.TraceID(), r.span.SpanID()}); !k.trace.IsEmpty() && !k.span.IsEmpty() {
			again, other := mp.sawSpan(k, r.span)
			if again {
				mp.Repeats++
				continue // delivered again: billed once
			}
			collided = other
			keys = append(keys, SpanKey(k))
		}
		attrs := r.span.Attributes()
		// Its own or an ancestor's job here is the job; the walk up the
		// remembered parents is for a span that has none.
		learned := mp.jobs[r.span.TraceID()]
		if anc.id[i] == "" {
			learned = mp.learned(r.span.TraceID(), r.span.ParentSpanID())
		}
		job, jobType := resolveJob(r, anc, i, learned)
		var ev ingest.Event
		ev.Reset()
		ev.TS = int64(r.span.StartTimestamp())
		if end := int64(r.span.EndTimestamp()); end > ev.TS {
			ev.LatencyMs = int32(min((end-ev.TS)/1e6, 1<<31-1))
		}
		// A trace's spans come together: its hex ID is made once.
		if tid := r.span.TraceID(); tid != lastTrace || lastTraceHex == "" {
			lastTrace, lastTraceHex = tid, clean(tid.String())
		}
		ev.CorrelationID = lastTraceHex
		ev.JobID, ev.JobType = job, jobType
		named := anc.id[i] != "" || learned[0] != "" || firstStr(r.res, decode.FieldJobID.OTel()...) != ""
		ev.IdempotencyKey = decode.CleanID(header(attrs, decode.FieldIdempotencyKey.OTel()...))
		ev.RetryAfterMs = retryAfter(header(attrs, "http.response.header.retry-after"), ev.TS)
		self := spanKey{r.span.TraceID(), r.span.SpanID()}
		parent := spanKey{r.span.TraceID(), r.span.ParentSpanID()}
		switch {
		case r.model && !r.shadowed && (r.httpKids > 0 || mp.kids[self] > 0):
			// Its attempts came as HTTP spans: the call adds its usage.
			ev.Kind = ingest.KindUsageGrowth
			if !readModelCall(&ev, attrs) { // the count is dropped, the call kept (unreadUsage)
				reason = "a model-call span has a token count that is not a count: that count dropped, the call kept unpriced"
			}
			ev.Status = spanStatus(r.span, attrs)
			mp.rememberCall(self, ev.Model, ev.Provider, 0)
			delete(mp.kids, self)
			events = mp.observeSDK(events, attrs, ev.Provider, ev.TS)
			if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 && !ev.HasCost {
				continue
			}
		case r.model && !r.shadowed:
			ev.Kind = ingest.KindLLMCall
			if sid := r.span.SpanID(); !sid.IsEmpty() && !r.span.TraceID().IsEmpty() {
				// Its identity, in the state a restart's replay rebuilds:
				// a span delivered again after a restart (a Collector's
				// retry) is billed once (correlate's responses).
				ev.ResponseID = ingest.OTLPSpanPrefix + lastTraceHex + sid.String()
				if collided {
					// Another span under the IDs of one mapped before (a
					// forked worker pool's copied generator): another
					// call, under a key of its own. Only then — the key
					// of every other span is the one the spool of an
					// earlier build holds, so an exporter's re-send after
					// an upgrade is billed once (R7b-2).
					ev.ResponseID += "@" + strconv.FormatUint(uint64(r.span.StartTimestamp()), 36)
				}
			}
			if !readModelCall(&ev, attrs) { // the count is dropped, the call kept (unreadUsage)
				reason = "a model-call span has a token count that is not a count: that count dropped, the call kept unpriced"
			}
			ev.Status = spanStatus(r.span, attrs)
			// One call may be several attempts: one span per attempt
			// (resend_count 0, 1, 2) or one span for all (its final
			// resend_count). Sibling spans of one name are one call, with
			// max(spans, highest resend + 1) attempts; the ones no span
			// recorded are added with an unknown status.
			key := groupKey{r.span.TraceID(), r.span.ParentSpanID(), clean(r.span.Name())}
			g := mp.groups[key]
			if g == nil {
				g = &group{}
				mp.groups[key] = g
				mp.bytes += int64(len(key.name) + 96)
			}
			resend, hasResend := num(attrs, "http.request.resend_count")
			if hasResend && resend >= 0 && resend+1 <= g.spans+g.synth &&
				(resend >= 64 || g.placeholders&(1<<resend) == 0 || int64(r.span.EndTimestamp()) > g.synthBefore) {
				// Its attempt was counted already, and not as a
				// placeholder it could be: another call of this name.
				*g = group{}
			}
			g.spans++
			counted := int32(1)
			if n, ok := resend, hasResend; ok && n >= 0 {
				ev.Attempt, ev.AttemptBy = int16(min(n+1, 1<<15-1)), ingest.AttemptBySDK
				if n < 64 && g.placeholders&(1<<n) != 0 {
					// This attempt was counted, status unknown, when a later
					// one arrived first: its own span adds only what it cost.
					g.placeholders &^= 1 << n
					g.synth-- // now a span of its own (counted above)
					if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 && !ev.HasCost {
						continue
					}
					ev.Kind = ingest.KindUsageGrowth
					events = append(events, ev)
					continue
				}
				if missing := n + 1 - g.spans - g.synth; missing > 0 {
					for k := range missing {
						unk := ev
						unk.Attempt, unk.AttemptBy = int16(min(n+1-missing+k, 1<<15-1)), ingest.AttemptBySDK
						if a := int64(unk.Attempt) - 1; a >= 0 && a < 64 {
							g.placeholders |= 1 << a
						}
						unk.Status, unk.ErrorType = ingest.StatusUnknown, StatusUnknownRetried
						unk.InputTokens, unk.OutputTokens, unk.CacheReadTokens, unk.CacheCreateTokens = 0, 0, 0, 0
						unk.HasCost, unk.CostUSD, unk.LatencyMs, unk.RetryAfterMs = false, 0, 0, ingest.NoRetryAfter
						events = append(events, unk)
					}
					g.synth += missing
					g.synthBefore = int64(r.span.StartTimestamp())
					counted += int32(min(missing, 1<<20))
				}
			}
			mp.rememberCall(self, ev.Model, ev.Provider, counted)
			if ev.Attempt == 0 {
				if a, by, ok := stainlessRetries(attrs); ok {
					ev.Attempt, ev.AttemptBy = a, by
				}
			}
			events = mp.observeSDK(events, attrs, ev.Provider, ev.TS)
		case isHTTPClient(r) && (callOf[i] >= 0 || mp.calls[parent] != nil || modelEndpoint(attrs) != ""):
			// One HTTP attempt of a model call: under the call's span (in
			// this request or an earlier one), or to a provider's host
			// with no call span above it. Never a tool call.
			ev.Kind = ingest.KindLLMCall
			ev.Status = spanStatus(r.span, attrs)
			if m := callOf[i]; m >= 0 {
				var call ingest.Event
				readModelCall(&call, refs[m].span.Attributes())
				ev.Model, ev.Provider = call.Model, call.Provider
				if refs[m].span.SpanID() != r.span.ParentSpanID() {
					parent = spanKey{} // attempts are remembered under their direct parent only
				}
			} else if c := mp.calls[parent]; c != nil {
				ev.Model, ev.Provider = c.model, c.provider
				if c.counted > 0 {
					// The call's span came first and counted this attempt.
					c.counted--
					continue
				}
			}
			if ev.Provider == "" {
				ev.Provider = modelEndpoint(attrs)
			}
			if callOf[i] < 0 && mp.calls[parent] == nil && !parent.span.IsEmpty() {
				// The call's span may come later: it must know its
				// attempts were counted.
				if _, had := mp.kids[parent]; !had {
					mp.callBytes += 64
				}
				mp.kids[parent]++
			}
			if n, ok := num(attrs, "http.request.resend_count"); ok && n >= 0 {
				ev.Attempt, ev.AttemptBy = int16(min(n+1, 1<<15-1)), ingest.AttemptBySDK
			} else if a, by, ok := stainlessRetries(attrs); ok {
				ev.Attempt, ev.AttemptBy = a, by
			} else if n, ok := attemptNo[i]; ok {
				ev.Attempt, ev.AttemptBy = n, ingest.AttemptBySDK
			}
			events = mp.observeSDK(events, attrs, hostProvider(attrs), ev.TS)
		case r.span.Kind() == ptrace.SpanKindClient && has(attrs, "http.response.status_code"):
			ev.Kind = ingest.KindToolCall
			ev.Tool = clean(firstStr(attrs, "url.template", "http.route", "url.path", "server.address"))
			if ev.Tool == "" {
				ev.Tool = clean(r.span.Name())
			}
			ev.Status = spanStatus(r.span, attrs)
			if n, ok := num(attrs, "http.request.resend_count"); ok && n >= 0 {
				ev.Attempt, ev.AttemptBy = int16(min(n+1, 1<<15-1)), ingest.AttemptBySDK
			} else if a, by, ok := stainlessRetries(attrs); ok {
				ev.Attempt, ev.AttemptBy = a, by
			}
			events = mp.observeSDK(events, attrs, hostProvider(attrs), ev.TS)
		default:
			continue
		}
		if !named && ev.JobID == lastTraceHex {
			mp.addOrphan(r.span.TraceID(), mp.frontier(r.span.TraceID(), r.span.SpanID(), r.span.ParentSpanID()))
		}
		events = append(events, ev)
	}
	st.done()
	events, rejected, reason = checkEvents(mp.takeMemos(events), rejected, reason)
	return events, rejected, reason, keys
}

// isHTTPClient: an HTTP CLIENT span (a request was sent: it has a method
// or a response status) that is not itself a model-call span.
func isHTTPClient(r *spanRef) bool {
	if r.model || r.span.Kind() != ptrace.SpanKindClient {
		return false
	}
	a := r.span.Attributes()
	return has(a, "http.response.status_code") || has(a, "http.request.method") || has(a, "http.method")
}

// modelEndpoint names the provider an HTTP request went to when it was a
// model call by its own attributes: a provider's host, a provider SDK's
// user agent (Anthropic/JS 1.17.0, OpenAI/Python 1.x: a base URL pointed
// at a proxy or a mock keeps it), or a model API path. "" when none.
func modelEndpoint(m pcommon.Map) string {
	if p := hostProvider(m); p != "" {
		return p
	}
	ua := strings.ToLower(firstStr(m, "user_agent.original", "http.user_agent"))
	switch {
	case strings.HasPrefix(ua, "anthropic/"), strings.HasPrefix(ua, "anthropicbedrock/"):
		return "anthropic"
	case strings.HasPrefix(ua, "openai/"):
		return "openai"
	}
	path := firstStr(m, "url.path", "url.template", "http.route", "http.target")
	if path == "" {
		path = firstStr(m, "url.full", "http.url")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
	}
	switch {
	case strings.HasSuffix(path, "/v1/messages"):
		return "anthropic"
	case strings.HasSuffix(path, "/chat/completions"), strings.HasSuffix(path, "/v1/responses"):
		return "openai"
	}
	return ""
}

// rememberCall keeps a model-call span's model and the attempts counted
// for it, for HTTP attempt spans of it that come in a later request.
func (mp *Mapper) rememberCall(k spanKey, model, provider string, counted int32) {
	if k.span.IsEmpty() {
		return
	}
	if _, had := mp.calls[k]; !had {
		mp.callBytes += int64(len(model) + len(provider) + 96)
	}
	mp.calls[k] = &callMemo{model: model, provider: provider, counted: counted}
}

// isModelCall: GenAI semantic conventions, older spellings, OpenInference
// (by its span kind or token counts, with or without llm.model_name) and
// the Vercel AI SDK's ai.* attributes. A span that is clearly a model call
// is never dropped for a missing model: it becomes an unpriced call of
// model "(unknown)" with its tokens.
func isModelCall(m pcommon.Map) bool {
	return has(m, "gen_ai.request.model") || has(m, "gen_ai.response.model") || modelOperation(m) ||
		has(m, "llm.model_name") || has(m, "gen_ai.usage.input_tokens") || has(m, "gen_ai.usage.prompt_tokens") ||
		firstStr(m, "openinference.span.kind") == "LLM" || has(m, "llm.token_count.prompt") || has(m, "llm.token_count.completion") ||
		(has(m, "ai.model.id") && (has(m, "ai.usage.inputTokens") || has(m, "ai.usage.promptTokens") || has(m, "ai.usage.outputTokens") || has(m, "ai.usage.completionTokens"))) ||
		// PromptFlow's LLM and embedding spans (promptflow-tracing's
		// enrich_span_with_openai_tokens): llm.usage.* on the span that
		// made the call; its ancestors carry only the cumulative
		// __computed__.cumulative_token_count.*, never read.
		has(m, "llm.usage.prompt_tokens") || has(m, "llm.usage.completion_tokens")
}

// modelOperation: gen_ai.operation.name names a model operation. An
// agent's, a tool's or a task's span (invoke_agent, execute_tool,
// OpenLLMetry's execute_task) is no call by that name alone — one per
// LangGraph node made unpriced calls of model "(unknown)" beside the
// real ones; with usage or a model of its own it still is one, and its
// model-call children shadow it.
func modelOperation(m pcommon.Map) bool {
	switch firstStr(m, "gen_ai.operation.name") {
	case "":
		return false
	case "invoke_agent", "create_agent", "execute_tool", "execute_task", "invoke_workflow":
		return false
	}
	return true
}

// agentOperation: a span of an agent or a workflow, whose usage (where
// it has any) is its model calls'.
func agentOperation(m pcommon.Map) bool {
	switch firstStr(m, "gen_ai.operation.name") {
	case "invoke_agent", "create_agent", "invoke_workflow":
		return true
	}
	return false
}

// vendorModel is the model OpenLLMetry (traceloop) and AGNTCY's
// ioa_observe record from LangChain's metadata, for a span whose
// gen_ai.*.model says "unknown" (OpenLLMetry's LangChain instrumentation
// with ChatLiteLLM): a LiteLLM id, provider-prefixed.
func vendorModel(m pcommon.Map) string {
	return firstStr(m, "traceloop.association.properties.ls_model_name", "ioa_observe.association.properties.ls_model_name")
}

// readModelCall fills model, provider, tokens and cost. OTel's input
// count includes cache reads and writes: subtract them so the event has
// Anthropic's meaning and cached tokens are not billed twice. Both the
// current and the older spellings may be present: the current one wins,
// they are never added.
func readModelCall(ev *ingest.Event, m pcommon.Map) bool {
	ev.Model = clean(firstStr(m, decode.FieldModel.OTel()...))
	if strings.EqualFold(ev.Model, "unknown") || ev.Model == "" {
		// gen_ai.*.model says "unknown": a vendor's own attribute may name
		// it (OpenInference's llm.model_name, the AI SDK's ai.model.id,
		// then traceloop's association properties).
		for _, k := range decode.FieldModel.OTel() {
			if v := clean(firstStr(m, k)); v != "" && !strings.EqualFold(v, "unknown") {
				ev.Model = v
				break
			}
		}
	}
	if strings.EqualFold(ev.Model, "unknown") || ev.Model == "" {
		if v := clean(vendorModel(m)); v != "" {
			ev.Model = v
		}
	}
	ev.Provider = decode.LowerProvider(clean(firstStr(m, decode.FieldSystem.OTel()...)))
	if ev.Provider == "" {
		// Vercel: ai.model.provider is "anthropic.messages", "openai.chat".
		p, _, _ := strings.Cut(firstStr(m, "ai.model.provider"), ".")
		ev.Provider = decode.LowerProvider(clean(p))
	}
	ok := true
	get := func(keys ...string) int64 {
		for _, k := range keys {
			if !has(m, k) {
				continue
			}
			v, good := num(m, k)
			if !good || v < 0 {
				ok = false
				return 0
			}
			return v
		}
		return 0
	}
	// Each count is read from the first spelling present, never summed
	// across spellings: a Vercel doGenerate span carries the same input
	// as gen_ai.usage.input_tokens and as ai.usage.inputTokens.
	in := get(decode.FieldInclusiveInputTokens.OTel()...)
	ev.OutputTokens = get(decode.FieldOutputTokens.OTel()...)
	cacheRead := get(decode.FieldCacheReadTokens.OTel()...)
	cacheWrite := get(decode.FieldCacheWriteTokens.OTel()...)
	if cacheWrite == 0 && has(m, "gen_ai.usage.cache_write.input_tokens") {
		// The Anthropic TypeScript SDK's own span (1.17) spells it so.
		cacheWrite = get("gen_ai.usage.cache_write.input_tokens")
	}
	if cacheWrite == 0 {
		cacheWrite = providerMetadataCacheWrite(m)
	}
	ev.SetInclusiveInput(in, cacheRead, cacheWrite)
	// The service tier as the response reports it (never the request's).
	switch t := firstStr(m, decode.FieldServiceTier.OTel()...); t {
	case "batch":
		ev.Batch = true
	default:
		ev.Bill |= ingest.ServiceTier(t)
	}
	for _, k := range decode.FieldCost.OTel() {
		if k == "gen_ai.usage.cost.amount" {
			// The GenAI conventions' cost carries its currency: an amount
			// in another currency is not dollars, and is left to prices.
			if c := firstStr(m, "gen_ai.usage.cost.currency"); c != "" && !strings.EqualFold(c, "USD") {
				continue
			}
		}
		if v, found := m.Get(k); found {
			if f, good := float(v); good && f >= 0 {
				ev.CostUSD, ev.HasCost = f, true
			} else {
				ev.Dropped |= ingest.DropWrongType
			}
			break
		}
	}
	if !ok {
		unreadUsage(ev)
	}
	return ok
}

// unreadUsage marks a call whose token counts could not all be read (a
// string, a negative number, an int64 past its range): that field is
// dropped and counted, and the call kept, unpriced — what it cost is not
// the span's to say. It cost the whole span, counted nowhere (R7-25).
func unreadUsage(ev *ingest.Event) {
	ev.Dropped |= ingest.DropWrongType
	ev.UsageUnseen = true
}

// spanStatus: http.response.status_code, else error.type, else the span
// status (an error without a code is unknown; an unset or OK model span
// finished).
func spanStatus(sp ptrace.Span, m pcommon.Map) int16 {
	if n, ok := num(m, "http.response.status_code"); ok && n >= 0 && n < 1000 {
		return int16(n)
	}
	if et := firstStr(m, "error.type"); et != "" {
		if n, err := strconv.Atoi(et); err == nil && n >= 0 && n < 1000 {
			return int16(n)
		}
		return decode.StatusFromError(et, false)
	}
	if sp.Status().Code() == ptrace.StatusCodeError {
		return ingest.StatusUnknown
	}
	return 200
}

// ancestry is what each span inherits from its ancestors, found in one
// pass over a request's spans: the nearest model-call ancestor (-1 for
// none), the nearest job ID and job type on the span or an ancestor, and
// the name of its trace's root span.
type ancestry struct {
	model         []int32
	id, typ, root []string
}

// ancestors walks every span's parent chain once, in time linear in the
// spans: each span is resolved from its parent's answer (memoized), and a
// chain that loops back on itself (a span its own parent, or A → B → A:
// hostile or broken input) is cut where it closes — the span there is taken
// for a root without a name — instead of walked for ever.
func ancestors(refs []spanRef, parentOf func(int) int) ancestry {
	n := len(refs)
	a := ancestry{model: make([]int32, n), id: make([]string, n), typ: make([]string, n), root: make([]string, n)}
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, n)
	var path []int
	for i := range refs {
		if state[i] == done {
			continue
		}
		path = path[:0]
		cut := false
		for j := i; j >= 0 && state[j] != done; j = parentOf(j) {
			if state[j] == onPath {
				cut = true // the chain came back to a span on it: a cycle
				break
			}
			state[j] = onPath
			path = append(path, j)
		}
		for k := len(path) - 1; k >= 0; k-- {
			x := path[k]
			p := parentOf(x)
			if cut && k == len(path)-1 {
				p = -1
			}
			attrs := refs[x].span.Attributes()
			a.id[x] = firstStr(attrs, decode.FieldJobID.OTel()...)
			a.typ[x] = firstStr(attrs, decode.FieldJobType.OTel()...)
			if p < 0 {
				a.model[x] = -1
				if refs[x].span.ParentSpanID().IsEmpty() {
					a.root[x] = refs[x].span.Name()
				}
			} else {
				a.model[x] = a.model[p]
				if refs[p].model {
					a.model[x] = int32(p)
				}
				if a.id[x] == "" {
					a.id[x] = a.id[p]
				}
				if a.typ[x] == "" {
					a.typ[x] = a.typ[p]
				}
				a.root[x] = a.root[p]
			}
			state[x] = done
		}
	}
	return a
}

// resolveJob finds job.id / job_id on the span, then its ancestors, then
// the resource, else uses the trace ID; the type comes from job.type /
// job_type the same way, else the trace's root span name, else
// service.name.
func resolveJob(r *spanRef, anc ancestry, i int, learned [2]string) (string, string) {
	id, typ, rootName := anc.id[i], anc.typ[i], anc.root[i]
	if id == "" {
		id = learned[0]
	}
	if typ == "" {
		typ = learned[1]
	}
	if id == "" {
		id = firstStr(r.res, decode.FieldJobID.OTel()...)
	}
	if typ == "" {
		typ = firstStr(r.res, decode.FieldJobType.OTel()...)
	}
	if id == "" {
		id = r.span.TraceID().String()
	}
	if typ == "" {
		typ = rootName
	}
	if typ == "" {
		typ = firstStr(r.res, "service.name")
	}
	return decode.CleanID(id), clean(typ)
}

// MapLogs turns GenAI log records and Claude Code's api_request /
// api_error events into events.
func (mp *Mapper) MapLogs(ld plog.Logs) (events []ingest.Event, rejected int64, reason string) {
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		rl := rls.At(i)
		res := rl.Resource().Attributes()
		// Each resource's events are its sender's, however many a
		// Collector batched into one request.
		from, src := len(events), sourceOf(res)
		sls := rl.ScopeLogs()
		if sls.Len() > 0 && sls.At(0).LogRecords().Len() > 0 {
			first := sls.At(0).LogRecords().At(0)
			ts := int64(first.Timestamp())
			if ts == 0 {
				ts = int64(first.ObservedTimestamp())
			}
			events = declared(events, res, fromResource, "", ts)
		}
		for j := range sls.Len() {
			recs := sls.At(j).LogRecords()
			for k := range recs.Len() {
				lr := recs.At(k)
				a := lr.Attributes()
				var ev ingest.Event
				ev.Reset()
				ev.TS = int64(lr.Timestamp())
				if ev.TS == 0 {
					ev.TS = int64(lr.ObservedTimestamp())
				}
				if !lr.TraceID().IsEmpty() {
					ev.CorrelationID = lr.TraceID().String()
				}
				events = declared(events, a, fromLogRecord, clean(firstStr(a, decode.FieldJobType.OTel()...)), ev.TS)
				name := lr.EventName()
				if name == "" {
					name = firstStr(a, "event.name")
				}
				if name == "" && lr.Body().Type() == pcommon.ValueTypeStr {
					name = lr.Body().Str()
				}
				switch {
				case name == "claude_code.api_request" || name == "claude_code.api_error" || (strings.HasPrefix(firstStr(res, "service.name"), "claude-code") && (name == "api_request" || name == "api_error")):
					if !mapClaudeCode(&ev, a, res, strings.HasSuffix(name, "api_error")) {
						rejected++
						reason = "a Claude Code event has a non-numeric field"
						continue
					}
				case isModelCall(a):
					ev.Kind = ingest.KindLLMCall
					if !readModelCall(&ev, a) { // the count is dropped, the record kept (unreadUsage)
						reason = "a GenAI log record has a token count that is not a count: that count dropped, the call kept unpriced"
					}
					ev.Status = 200
					if n, ok := num(a, "http.response.status_code"); ok && n >= 0 && n < 1000 {
						ev.Status = int16(n)
					} else if et := firstStr(a, "error.type"); et != "" {
						ev.Status = decode.StatusFromError(et, false)
					}
					ev.JobID = decode.CleanID(firstStr(a, decode.FieldJobID.OTel()...))
					if ev.JobID == "" {
						ev.JobID = decode.CleanID(firstStr(res, decode.FieldJobID.OTel()...))
					}
					if ev.JobID == "" {
						ev.JobID = ev.CorrelationID
					}
					ev.JobType = clean(firstStr(a, decode.FieldJobType.OTel()...))
					if ev.JobType == "" {
						ev.JobType = clean(firstStr(res, "job.type", "job_type", "service.name"))
					}
				default:
					continue
				}
				// Its identity, in the state a restart's replay rebuilds:
				// a record delivered again (a Collector's retry, before or
				// after a restart) is billed once (correlate's responses).
				ev.ResponseID = logRecordID(lr, a, name)
				events = append(events, ev)
			}
		}
		stampFrom(events, from, src)
	}
	return checkEvents(events, rejected, reason)
}

// logRecordID is a model-call log record's stable identity: Claude Code's
// own (its session and event.sequence), else a digest of the record's
// time, name and attributes — what a re-send repeats byte for byte.
func logRecordID(lr plog.LogRecord, a pcommon.Map, name string) string {
	if seq, sess := firstStr(a, "event.sequence"), firstStr(a, "session.id"); seq != "" && sess != "" {
		return decode.CleanID("otlp-log:" + sess + "#" + seq + "#" + name)
	}
	kv := make([]string, 0, a.Len())
	a.Range(func(k string, v pcommon.Value) bool {
		kv = append(kv, k+"\x00"+v.AsString())
		return true
	})
	slices.Sort(kv)
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%d\x00%s\x00", lr.Timestamp(), lr.ObservedTimestamp(), name)
	for _, s := range kv {
		h.Write([]byte(s))
		h.Write([]byte{0xff})
	}
	return "otlp-log:" + hex.EncodeToString(h.Sum(nil)[:16])
}

// mapClaudeCode reads Claude Code's OTLP events: api_request carries cost,
// tokens (Anthropic's meaning) and model; api_error carries status_code and
// attempt. The session is the job.
func mapClaudeCode(ev *ingest.Event, a, res pcommon.Map, isError bool) bool {
	ev.Kind = ingest.KindLLMCall
	ev.JobID = decode.CleanID(firstStr(a, "session.id"))
	if ev.JobID == "" {
		ev.JobID = decode.CleanID(firstStr(res, "session.id"))
	}
	ev.JobType = clean(firstStr(res, "service.name"))
	if ev.JobType == "" {
		ev.JobType = "claude-code"
	}
	ev.Model = clean(firstStr(a, "model"))
	ev.Provider = "anthropic"
	ok := true
	n := func(k string) int64 {
		if !has(a, k) {
			return 0
		}
		v, good := num(a, k)
		if !good || v < 0 {
			ok = false
		}
		return max(v, 0)
	}
	if d, good := num(a, "duration_ms"); good && d > 0 {
		ev.LatencyMs = int32(min(d, 1<<31-1))
	}
	if isError {
		ev.Status = ingest.StatusUnknown
		if s, good := num(a, "status_code"); good && s >= 0 && s < 1000 {
			ev.Status = int16(s)
		}
		ev.ErrorType = clean(firstStr(a, "error"))
		if at, good := num(a, "attempt"); good && at > 0 {
			ev.Attempt = int16(min(at, 1<<15-1))
		}
		if ev.Status == ingest.StatusUnknown {
			ev.Status = decode.StatusFromError(ev.ErrorType, false)
		}
		return ok
	}
	ev.Status = 200
	ev.InputTokens, ev.OutputTokens = n("input_tokens"), n("output_tokens")
	ev.CacheReadTokens, ev.CacheCreateTokens = n("cache_read_tokens"), n("cache_creation_tokens")
	if v, found := a.Get("cost_usd"); found {
		if f, good := float(v); good && f >= 0 {
			ev.CostUSD, ev.HasCost = f, true
		} else {
			ok = false
		}
	}
	return ok
}

func has(m pcommon.Map, k string) bool { _, ok := m.Get(k); return ok }

// firstStr returns the first attribute present, as text.
func firstStr(m pcommon.Map, keys ...string) string {
	for _, k := range keys {
		if v, ok := m.Get(k); ok {
			switch v.Type() {
			case pcommon.ValueTypeStr:
				return v.Str()
			case pcommon.ValueTypeSlice:
				if v.Slice().Len() > 0 {
					return v.Slice().At(0).AsString()
				}
			default:
				return v.AsString()
			}
		}
	}
	return ""
}

// header reads a captured HTTP header: a string array per the HTTP
// semantic conventions, or a plain string.
func header(m pcommon.Map, keys ...string) string { return firstStr(m, keys...) }

// num reads an integer attribute that may arrive as int, double or string.
func num(m pcommon.Map, k string) (int64, bool) {
	v, ok := m.Get(k)
	if !ok {
		return 0, false
	}
	f, ok := float(v)
	// A count past int64's range (1e300, "99999999999999999999") or NaN
	// is no count: converted, it read as a negative number or garbage.
	if !ok || !(f > -9.2e18 && f < 9.2e18) {
		return 0, false
	}
	return int64(f), true
}

func float(v pcommon.Value) (float64, bool) {
	switch v.Type() {
	case pcommon.ValueTypeInt:
		return float64(v.Int()), true
	case pcommon.ValueTypeDouble:
		return v.Double(), true
	case pcommon.ValueTypeStr:
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Str()), 64)
		return f, err == nil
	case pcommon.ValueTypeSlice:
		if v.Slice().Len() > 0 {
			return float(v.Slice().At(0))
		}
	}
	return 0, false
}

// retryAfter reads seconds or an HTTP-date relative to the event time.
func retryAfter(h string, ts int64) int64 {
	if h == "" {
		return ingest.NoRetryAfter
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(h), 64); err == nil && f >= 0 {
		return int64(min(f, 1e9) * 1000)
	}
	if t, err := http.ParseTime(h); err == nil && ts > 0 {
		return max(0, (t.UnixNano()-ts)/1e6)
	}
	return ingest.NoRetryAfter
}

// clean applies the ingest rules for untrusted text: capped and stripped
// of control characters.
func clean(s string) string { return decode.CleanField(s) }

// checkEvents holds mapped events to ingest's plausibility rules, so an
// OTLP span can no more wrap a sum or move the clock than a log line can.
func checkEvents(events []ingest.Event, rejected int64, reason string) ([]ingest.Event, int64, string) {
	kept := events[:0]
	for i := range events {
		if e := &events[i]; e.HasCost && !ingest.PlausibleCost(e.CostUSD, e.InputTokens+e.OutputTokens+e.CacheReadTokens+e.CacheCreateTokens) {
			// A cost no real call of its tokens has (a mistyped or forged
			// attribute): the cost is dropped and counted, the call priced
			// by its tokens, as a JSON line's is — it cost the whole span.
			e.CostUSD, e.HasCost = 0, false
			e.Dropped |= ingest.DropImplausible
		}
		if r := events[i].Check(); r != ingest.Accepted {
			rejected++
			reason = "an event with " + r.String() + " values (token counts, cost or time no real call has)"
			continue
		}
		kept = append(kept, events[i])
	}
	return kept, rejected, reason
}

// providerMetadataCacheWrite reads Anthropic's cache write from the Vercel
// AI SDK's ai.response.providerMetadata, a JSON string such as
// {"anthropic":{"cacheCreationInputTokens":1500}}, for SDK versions that
// do not set ai.usage.inputTokenDetails.cacheWriteTokens.
func providerMetadataCacheWrite(m pcommon.Map) int64 {
	raw := firstStr(m, "ai.response.providerMetadata")
	if raw == "" || len(raw) > 1<<16 {
		return 0
	}
	var meta struct {
		Anthropic struct {
			CacheCreationInputTokens int64 `json:"cacheCreationInputTokens"`
		} `json:"anthropic"`
	}
	if json.Unmarshal([]byte(raw), &meta) != nil || meta.Anthropic.CacheCreationInputTokens < 0 {
		return 0
	}
	return meta.Anthropic.CacheCreationInputTokens
}

// NewFileDecoder maps OTLP/JSON export requests read from a file — the
// Collector's file exporter writes one per line — through the same Mapper
// as the receiver, so a file and a live export give the same events.
func NewFileDecoder() decode.OTLPDecoder {
	mp := NewMapper()
	return func(raw []byte, emit func(*ingest.Event)) (int64, error) {
		var evs []ingest.Event
		var rejected int64
		switch {
		case bytes.Contains(raw, []byte(`"resourceSpans"`)) || bytes.Contains(raw, []byte(`"resource_spans"`)):
			req := ptraceotlp.NewExportRequest()
			if err := unmarshal(req, true, raw); err != nil {
				return 0, err
			}
			evs, rejected, _ = mp.MapTraces(req.Traces())
		case bytes.Contains(raw, []byte(`"resourceLogs"`)) || bytes.Contains(raw, []byte(`"resource_logs"`)):
			req := plogotlp.NewExportRequest()
			if err := unmarshal(req, true, raw); err != nil {
				return 0, err
			}
			evs, rejected, _ = mp.MapLogs(req.Logs())
		default:
			return 0, nil // a metrics request, or not OTLP: no calls in it
		}
		for i := range evs {
			emit(&evs[i])
		}
		return rejected, nil
	}
}
