package decode

import (
	"bytes"
	"regexp"
	"strconv"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Python SDK lines (Stainless: anthropic-python, openai-python) carry no
// request ID. What links a response to its retry is the endpoint and the
// SDK's own announcement, "Retrying request to /v1/messages in 0.785249
// seconds": the retry's "HTTP Request:" line is logged once its response
// arrives, so no sooner than the announced wait after the announcement. A
// response to that endpoint logged well before that — before half the
// wait has passed, within the log's time granularity — is another request
// in flight at the same time (asyncio, threads): a new operation, not the
// retry. Each endpoint keeps its few announced retries with the time each
// is due, and every response goes to the one whose time it fits.

const (
	// maxPyEndpoints bounds the endpoints followed at once.
	maxPyEndpoints = 10_000
	// maxPyInFlight bounds, per endpoint, the failed responses awaiting
	// their "Retrying" line and the retries awaiting their response: the
	// oldest goes first (a log of endless concurrent failures stays small).
	maxPyInFlight = 16
	// pyRetryLineWindow is how long after a failed response its "Retrying"
	// line may come: the SDK logs it at once, before it sleeps.
	pyRetryLineWindow = int64(1e9)
	// pyRetryLineNear is how close before a "Retrying" line another failed
	// response must be to be the one it announces, as well as the newest:
	// further back, it is a failure the SDK gave up on.
	pyRetryLineNear = int64(100e6)
	// pyRetryStale is how long past its due time an announced retry may
	// still be answered: the SDK's default timeout is 10 minutes, and a
	// retry whose response never came (the app gave up) must not take a
	// request of the next hour for its own.
	pyRetryStale = int64(15 * 60 * 1e9)
)

// pyChain is one Python request: its operation number, the attempt in
// flight, and the job context of its first attempt.
type pyChain struct {
	ctx     jobContext
	op      int
	attempt int16
	// ambiguous: an attempt of this chain fitted another chain's retry as
	// well, and the two differ, so its attempt numbers are not certain.
	ambiguous bool
}

// pyFailure is a failed, retryable response whose "Retrying" line has not
// come yet.
type pyFailure struct {
	chain pyChain
	ts    int64
	timed bool
}

// pyAnnounced is a retry the SDK announced at announced, due wait later
// (wait < 0: the line's wait did not read).
type pyAnnounced struct {
	chain           pyChain
	announced, wait int64
	timed           bool
}

// pyEndpoint is one endpoint's requests in flight.
type pyEndpoint struct {
	failed  []pyFailure   // newest last
	pending []pyAnnounced // oldest first
}

// granularity is the tolerance two log times are compared with: a second
// when either has no fraction (a log that prints whole seconds), else 10 ms
// (Python logging's asctime prints milliseconds).
func granularity(a, b int64) int64 {
	if a%1e9 == 0 || b%1e9 == 0 {
		return 1e9
	}
	return 10e6
}

// fits: a response logged at ts can be the answer to retry r. Only a time
// on both lines can say no: a response well before half the announced wait
// has passed is another request's. A time before the announcement (lines
// merged out of order, a clock stepped back) is no such evidence.
func (r *pyAnnounced) fits(ts int64, timed bool) bool {
	if !timed || !r.timed || r.wait < 0 {
		return true
	}
	tol := granularity(r.announced, ts)
	d := ts - r.announced
	return d < -tol || d >= r.wait/2-tol
}

func (r *pyAnnounced) due() int64 { return r.announced + max(r.wait, 0) }

// sameCount: two chains whose next attempt would be numbered the same in
// the same job — which of them a line answers changes no count.
func sameCount(a, b pyChain) bool { return a.attempt == b.attempt && a.ctx == b.ctx }

// expire drops what can no longer be answered at ts: failures whose
// "Retrying" line did not come at once (the SDK gave up on them), retries
// long past due.
func (e *pyEndpoint) expire(ts int64, timed bool) {
	if !timed {
		return
	}
	e.failed = deleteIf(e.failed, func(f pyFailure) bool {
		return f.timed && ts-f.ts > pyRetryLineWindow+granularity(f.ts, ts)
	})
	e.pending = deleteIf(e.pending, func(r pyAnnounced) bool {
		return r.timed && r.wait >= 0 && ts-r.due() > pyRetryStale
	})
}

func deleteIf[T any](s []T, drop func(T) bool) []T {
	out := s[:0]
	for _, x := range s {
		if !drop(x) {
			out = append(out, x)
		}
	}
	clear(s[len(out):])
	return out
}

// answer takes the announced retry a response (or a "Retrying" line of an
// attempt that got none) at ts is: of those it fits, the one due first,
// the current job's (cur, the job of the last JSON line) before another
// job's. ok is false when it fits none: a new request. When it fits two
// that would number it differently, both chains are marked ambiguous.
//
// A retry of another job is only a guess: the SDK's lines name no job,
// and a JSON line of cur logged since that retry was announced says cur
// is at work too. When cur has no request of its own in flight yet
// (fresh), the response is taken as cur's first — a later job's first 529
// is not an earlier job's retry — and else as the other job's retry; either
// way by timing alone, so the chain is marked ambiguous (never held
// against a declaration, counted in the report).
func (e *pyEndpoint) answer(ts int64, timed bool, cur string, fresh bool) (ch pyChain, ok bool) {
	best, own := -1, false
	for i := range e.pending {
		if !e.pending[i].fits(ts, timed) {
			continue
		}
		// A chain of no job (it began before any JSON line) is no other
		// job's: nothing to move a call from.
		mine := cur == "" || e.pending[i].chain.ctx.JobID == cur || e.pending[i].chain.ctx.JobID == ""
		switch {
		case best < 0, mine && !own, mine == own && e.pending[i].due() < e.pending[best].due():
			best, own = i, mine
		}
	}
	if best < 0 {
		return pyChain{}, false
	}
	if !own && fresh {
		// cur's first request, or the other job's retry: a new chain,
		// ambiguous; the retry stays announced for its own response.
		return pyChain{ambiguous: true}, false
	}
	ch = e.pending[best].chain
	if !own {
		ch.ambiguous = true
	}
	for i := range e.pending {
		if i != best && e.pending[i].fits(ts, timed) && !sameCount(e.pending[i].chain, ch) {
			e.pending[i].chain.ambiguous, ch.ambiguous = true, true
		}
	}
	e.pending = append(e.pending[:best], e.pending[best+1:]...)
	ch.attempt = min(ch.attempt, 1<<14) + 1
	return ch, true
}

// announced takes the failed response a "Retrying" line at ts announces
// the retry of: the newest (the SDK logs the line right after the
// response). Another failure just before it that would number the retry
// differently makes both chains ambiguous.
func (e *pyEndpoint) announced(ts int64, timed bool) (ch pyChain, ok bool) {
	n := len(e.failed)
	if n == 0 {
		return pyChain{}, false
	}
	ch = e.failed[n-1].chain
	for i := range n - 1 {
		f := &e.failed[i]
		near := !timed || !f.timed || ts-f.ts <= pyRetryLineNear+granularity(f.ts, ts)
		if near && !sameCount(f.chain, ch) {
			e.failed[i].chain.ambiguous, ch.ambiguous = true, true
		}
	}
	e.failed = e.failed[:n-1]
	return ch, true
}

func (e *pyEndpoint) addFailed(f pyFailure) {
	if len(e.failed) >= maxPyInFlight {
		e.failed = append(e.failed[:0], e.failed[1:]...)
	}
	e.failed = append(e.failed, f)
}

func (e *pyEndpoint) addPending(r pyAnnounced) {
	if len(e.pending) >= maxPyInFlight {
		e.pending = append(e.pending[:0], e.pending[1:]...)
	}
	e.pending = append(e.pending, r)
}

// endpointState is key's state, made on first use; a log of ever new
// paths (an ID in each) past maxPyEndpoints starts over.
func (t *sdkText) endpointState(key string) *pyEndpoint {
	if e := t.py[key]; e != nil {
		return e
	}
	if len(t.py) >= maxPyEndpoints {
		clear(t.py)
	}
	e := &pyEndpoint{}
	t.py[key] = e
	return e
}

// newPyChain starts a request in the context of now; ambiguous when it
// may as well have been another job's retry (answer).
func (t *sdkText) newPyChain(ambiguous bool) pyChain {
	t.pySeq++
	t.pyJobChains++
	return pyChain{ctx: t.lastJob, op: t.pySeq, attempt: 1, ambiguous: ambiguous}
}

// interleaveFor is how long after the log last showed two jobs at work
// at once their Python lines still link by timing alone.
const interleaveFor = int64(10 * 60 * 1e9)

// noteOpen watches the JSON lines for jobs at work at once: a line of a
// job seen before (within interleaveFor) after another job's line — job
// A's line, then B's, then A's again — says A was at work while B
// started. A sequential app (each job's lines before the next's) never
// shows it, whether or not it logs when a job ends. h is ev.JobID's
// hash (openJobs.hash), or 0 to compute it here.
func (t *sdkText) noteOpen(ev *ingest.Event, h uint64) {
	if ev.JobID == "" {
		return
	}
	ts := ev.TS
	if ev.TSCarried {
		ts = 0
	}
	if t.open.slots == nil {
		t.open.reset()
	}
	if h == 0 {
		h = t.open.hash(ev.JobID)
	}
	slot, seen := t.open.find(ev.JobID, h)
	if seen {
		if last := slot.ts; ev.JobID != t.lastJob.JobID && (ts == 0 || last == 0 || ts-last <= interleaveFor) {
			t.interleavedAt, t.interleaved = ts, true
		}
		if t.open.n < openMax {
			slot.ts = ts
			if ev.Kind == ingest.KindLLMCall {
				slot.klen |= slotCalled
			}
			return
		}
	}
	// A full table starts over, this job its first entry, seen or not.
	if t.open.n >= openMax {
		t.open.reset()
		slot = nil
	} else if t.open.full() {
		t.open.grow()
		slot = nil
	}
	if slot == nil {
		slot, _ = t.open.find(ev.JobID, h)
	}
	t.open.put(slot, ev.JobID, h, ts)
	if ev.Kind == ingest.KindLLMCall {
		slot.klen |= slotCalled
	}
}

// markCalled notes that a call of job was read from a line that is no
// JSON record of it (the SDK's own lines, placed by a job header).
func (t *sdkText) markCalled(job string) {
	if job == "" {
		return
	}
	if t.open.slots == nil {
		t.open.reset()
	}
	h := t.open.hash(job)
	slot, seen := t.open.find(job, h)
	if !seen {
		if t.open.n >= openMax {
			t.open.reset()
		} else if t.open.full() {
			t.open.grow()
		}
		slot, _ = t.open.find(job, h)
		t.open.put(slot, job, h, 0)
	}
	slot.klen |= slotCalled
}

// hadCall: a call record of job was read (since the open-jobs table last
// started over).
func (t *sdkText) hadCall(job string) bool {
	if t.open.slots == nil || job == "" {
		return false
	}
	slot, seen := t.open.find(job, t.open.hash(job))
	return seen && slot.klen&slotCalled != 0
}

// concurrent: the log has lately shown jobs at work at once — Python's
// lines, which name no request and no job, then link by timing alone:
// which job a response is, and which request's retry, is a guess.
func (t *sdkText) concurrent(ts int64, timed bool) bool {
	if !t.interleaved {
		return false
	}
	return !timed || t.interleavedAt == 0 || ts-t.interleavedAt <= interleaveFor
}

// pyFresh: the job of the last JSON line has started no Python request
// since it became the context (noteJSON resets the count).
func (t *sdkText) pyFresh() bool { return t.lastJob.JobID != "" && t.pyJobChains == 0 }

// pyKey names a Python operation: the job, the endpoint and its number.
func (t *sdkText) pyKey(ch pyChain, endpoint string) string {
	b := append(t.keyBuf[:0], "sdk:"...)
	b = append(b, ch.ctx.JobID...)
	b = append(b, ':')
	b = append(b, endpoint...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(ch.op), 10)
	t.keyBuf = b
	return CleanField(string(b)) // the path is raw log text
}

// retryWait reads a "Retrying … in 0.785249 seconds" wait (digits, an
// optional fraction) in ns; -1 when it does not read or passes a day.
func retryWait(s []byte) int64 {
	var whole, frac int64
	scale := int64(1e9)
	dot := false
	if len(s) == 0 {
		return -1
	}
	for _, c := range s {
		switch {
		case c == '.' && !dot:
			dot = true
		case c >= '0' && c <= '9' && !dot:
			whole = whole*10 + int64(c-'0')
			if whole > 86_400 {
				return -1
			}
		case c >= '0' && c <= '9':
			if scale > 1 {
				scale /= 10
				frac += int64(c-'0') * scale
			}
		default:
			return -1
		}
	}
	return whole*1e9 + frac
}

func (t *sdkText) pyRetryLine(line []byte, m [][]byte, emit func(*ingest.Event)) int {
	t.sawSDK = true
	key := endpoint(string(m[1]))
	if key == "" {
		key = t.pyLast // "Retrying request in 0.4 seconds" names no path
	}
	ts, carried := t.lineTime(line)
	timed := !carried && ts > 0
	e := t.endpointState(key)
	e.expire(ts, timed)
	retry := pyAnnounced{announced: ts, wait: retryWait(m[2]), timed: timed}
	// After an "Encountered …" line the attempt retried is the one that got
	// no response: a failed response still waiting (a 529 its chain gave up
	// on, another request's) is not the one announced.
	if ch, ok := e.announced(ts, timed); ok && !t.pyExc.set {
		// Announces the retry of a failed response already counted.
		retry.chain = ch
		e.addPending(retry)
		return -1
	}
	// No failed response came first: the attempt got none at all — a
	// connection error or a timeout, which httpx does not log. It is the
	// retry announced before that it fits, if any, else the first
	// attempt of a new request.
	ch, ok := e.answer(ts, timed, t.lastJob.JobID, t.pyFresh())
	if !ok {
		ch = t.newPyChain(ch.ambiguous)
	}
	if t.concurrent(ts, timed) {
		ch.ambiguous = true
	}
	retry.chain = ch
	e.addPending(retry)
	ev := t.attemptAt(ts, carried, ch.ctx)
	ev.Status, ev.Attempt, ev.ErrorType = 0, ch.attempt, "connection_error"
	if t.pyExc.set && t.pyExc.timeout {
		ev.ErrorType = "timeout"
	}
	t.pyExc = pyException{} // the attempt it said failed: this one
	ev.IdempotencyKey = t.pyKey(ch, key)
	if ch.ambiguous || positional(ev) {
		ev.AttemptBy = ingest.AttemptByLineAmbiguous
	}
	emit(ev)
	return 1
}

// pyHTTPLine counts a Python attempt: httpx's "HTTP Request:" line, or,
// when the SDK's own debug lines are there (sdkLine; t.pySDK), its "HTTP
// Response:" line instead — one attempt, counted once, at the line whose
// next one names its request ID.
func (t *sdkText) pyHTTPLine(line []byte, m [][]byte, sdkLine bool, emit func(*ingest.Event)) int {
	t.sawSDK = true
	status, ok := atoi16(string(m[5]))
	if !ok {
		return 0
	}
	key, model, provider := route(string(m[3]), string(m[4]))
	t.pyLast = key
	ts, carried := t.lineTime(line)
	timed := !carried && ts > 0
	e := t.endpointState(key)
	e.expire(ts, timed)
	ch, ok := e.answer(ts, timed, t.lastJob.JobID, t.pyFresh())
	if t.concurrent(ts, timed) {
		ch.ambiguous = true
	}
	if !ok {
		ch = t.newPyChain(ch.ambiguous)
		if !timed {
			// Without times, a new request says the failures of one the
			// app gave up on (no "Retrying" line after its last) are over.
			e.failed = e.failed[:0]
		}
	}
	if retryableStatus(status) {
		e.addFailed(pyFailure{chain: ch, ts: ts, timed: timed}) // the SDK retries these; its "Retrying" line follows
	}
	ev := t.attemptAt(ts, carried, ch.ctx)
	ev.Status, ev.Attempt = status, ch.attempt
	if ch.ambiguous || positional(ev) {
		ev.AttemptBy = ingest.AttemptByLineAmbiguous
	}
	if model != "" {
		ev.Model = t.p.intern.get([]byte(CleanField(model))) // the request names it: it wins over the job's
	}
	if provider != "" && (ev.Provider == "" || model != "") {
		ev.Provider = provider
	}
	ev.IdempotencyKey = t.pyKey(ch, key)
	if t.holdHTTP {
		// The router's line after this one names the model: keep the
		// response back until it comes (liteMerge), or the next line.
		t.held, t.hasHeld = *ev, true
		return -1
	}
	if sdkLine {
		// The SDK's "request_id:" line follows at once (pyResponseLine).
		t.held, t.hasHeld, t.pyHeld = *ev, true, true
		return -1
	}
	emit(ev)
	return 1
}

var (
	// pySDKResponse: _base_client.py's 'HTTP Response: POST url "200 OK"
	// Headers(…)', in pyHTTP's groups. httpx logs its own line when the
	// response's headers arrive, then reads the body (an await: other
	// requests' lines come between); the SDK logs this one after, and its
	// "request_id:" line right after it, with nothing between.
	pySDKResponse = regexp.MustCompile(`_base_client[^\]]*\] HTTP Response: (POST|GET|PUT|DELETE|PATCH) (https?://([^/\s"]+)(/[^\s"]*)?) "(\d{3})`)
	// pyRequestID: its "request_id: req_…" line (the response's
	// request-id, or x-request-id for OpenAI's SDK).
	pyRequestID = regexp.MustCompile(`_base_client[^\]]*\] request_id: (\S{1,200})\s*$`)
)

// pyResponseLine reads the line after the SDK's held "HTTP Response:":
// its "request_id:" line names the attempt's request and lets it go. ok
// is false for any other line (the held response then goes as it is).
func (t *sdkText) pyResponseLine(line []byte, emit func(*ingest.Event)) (int, bool) {
	if !bytes.Contains(line, []byte("] request_id: ")) {
		return 0, false
	}
	m := pyRequestID.FindSubmatch(line)
	if m == nil {
		return 0, false
	}
	if id := string(m[1]); providerRequestID(id) {
		t.held.ResponseID = HTTPAttemptID(CleanID(SanitizeString(id)))
		// Held one line more: the app logs the call's answer, naming this
		// request ID, right after the SDK returns (pyClaim).
		return -1, true
	}
	return t.flush(emit), true
}

// pyOptionsJob: a job header in the Python SDK's "Request options: {…}"
// dump (a dict's repr): the app passed it per call (extra_headers).
var pyOptionsJob = regexp.MustCompile(`'headers': \{[^{}]{0,1000}?'(x-job-id|job-id|x-job|x-jobid|x-burnrate-job)': '([^']{1,200})'`)

// pyRequestOptions reads the job an attempt's "Request options:" line
// names (its x-job-id header) as a JSON line naming it would be: the
// context of the lines after it. Which response answers that request is
// still timing's — httpx's and the SDK's response lines name no job — so
// what it places is placed by position (ambiguous), but in a job the
// wire knows, where with the SDK's lines alone nothing named one.
func (t *sdkText) pyRequestOptions(line []byte) bool {
	m := pyOptionsJob.FindSubmatch(line[:min(len(line), maxTextBytes)])
	if m == nil {
		return false
	}
	t.sawSDK = true
	var ev ingest.Event
	ev.JobID = CleanID(SanitizeString(string(m[2])))
	if ev.JobID == "" {
		return false
	}
	ev.TS, ev.TSCarried = t.lineTime(line)
	if ev.JobID != t.lastJob.JobID {
		t.jobSwitches++
		t.pyJobChains = 0
	}
	t.noteOpen(&ev, 0)
	t.lastJob = jobContext{JobID: ev.JobID, Model: t.lastJob.Model, Provider: t.lastJob.Provider}
	return true
}

// pyClaim is the emit of a JSON line read while a Python attempt, its
// request ID known, is held: the first record naming that request ID (the
// app's "model call ok"/"model call failed") puts the attempt in its job
// — a link by request ID, where the SDK's line had only its position —
// and the attempt goes before it.
func (t *sdkText) pyClaim(ev *ingest.Event, emit func(*ingest.Event)) {
	if t.hasHeld && t.pyHeld {
		h := &t.held
		if ev.ResponseID == h.ResponseID && ev.JobID != "" {
			// Its job is the app's by request ID; its place in a chain of
			// retries is still timing's (a retry after a timeout, which no
			// line logs, reads as a new request): it stays a timing link,
			// and its job's count ambiguous.
			h.JobID, h.JobType, h.CorrelationID = ev.JobID, ev.JobType, ev.CorrelationID
		}
		t.flush(emit)
	}
	emit(ev)
}

// positional: a Python SDK line placed in a job. The lines carry no job,
// no request ID, nothing of the app's: the job is the last JSON line's
// only by where the line fell in the stream, which another process (or
// a second logger) writing the same stream decides as easily. A link by
// position is a link by timing: counted and shown, never held against a
// declaration, never a kill (the red team convicted and killed doc-A with
// five 529 lines that were another process's, with no other job in
// sight). Lines alone, with no job named anywhere, convict no job either.
func positional(ev *ingest.Event) bool { return ev.JobID != "" }
