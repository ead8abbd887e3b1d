package decode

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// The Node SDKs (@anthropic-ai/sdk, openai) at ANTHROPIC_LOG=debug /
// OPENAI_LOG=debug print, beside each one-line response
// ("[log_c0cd86, request-id: "req_…"] post … failed with status 529 in
// 21ms - retrying, 2 attempts remaining"), a block per request and per
// response through console.debug, util.inspect's layout:
//
//	[log_c0cd86] sending request {
//	  method: 'POST',
//	  url: 'https://api.anthropic.com/v1/messages',
//	  …
//	  headers: {
//	    'x-job-id': 'job-27',
//	    'x-stainless-retry-count': '1',
//	    …
//	  }
//	}
//
// (testdata/node-sdk/README.md says how the fixtures were recorded). The
// request block is written before its response line, and names the
// request headers the app set: a job header puts the attempt in its job
// whatever other job logged last — with 4 to 16 jobs in flight the last
// JSON line is another job's as often as not. Every line of a block is
// the block's, never a call: a message body holding "Retrying request"
// reads as nothing.

var (
	// nodeBlockStart: "[log_c0cd86] sending request {", "[log_c0cd86]
	// response error (retrying, 2 attempts remaining) {", "… response
	// start {", "… response parsed {".
	nodeBlockStart = regexp.MustCompile(`^\[(log_[0-9a-zA-Z]+)\] ([a-z][^{}\[\]]{0,80}?) ?\{\s*$`)
	// nodeBlockField: one "key: 'value'" line of a block.
	nodeBlockField = regexp.MustCompile(`^\s+'?([A-Za-z0-9_-]{1,64})'?: '([^']{0,512})',?\s*$`)
)

// maxNodeBlockLines bounds a block: past it the next lines are read as
// lines again (a lost closing brace must not swallow the file).
const maxNodeBlockLines = 400

// jobHeaders are the request headers an app sets to name its job; the
// SDK's debug block logs them.
var jobHeaders = map[string]bool{"x-job-id": true, "job-id": true, "x-job": true, "x-jobid": true, "x-burnrate-job": true}

// nodeRequest is what a request block said of one log ID.
type nodeRequest struct {
	job   string
	model string
	retry int16 // x-stainless-retry-count, -1 unknown
	// stream: the request asked for a stream (options' "stream: true"),
	// whose chunks — and so its usage — the debug output never prints.
	stream bool
}

// nodeBlockState is the open block, if any.
type nodeBlockState struct {
	id      string // log ID of the open block, "" none
	request bool   // a "sending request" block: its fields are kept
	// parsed: a "response parsed" block, whose body's usage (util.inspect
	// writes its numbers bare: "input_tokens: 545,") is the answer's.
	parsed bool
	usage  [numNodeUsage]int64
	has    bool
	// cacheHidden: OpenAI's usage details printed as "[Object]"
	// (util.inspect's depth): the cached part of the prompt is unseen.
	cacheHidden bool
	lines       int
	req         nodeRequest
}

// The usage numbers of a parsed body, Anthropic's and OpenAI's names.
const (
	nuIn = iota
	nuPrompt
	nuOut
	nuCacheRead
	nuCacheWrite
	nuCached
	numNodeUsage
)

var nodeBodyModel = regexp.MustCompile(`^\s+body: \{ model: '([^']{1,200})'`)

var nodeUsageField = regexp.MustCompile(`^\s+(input_tokens|prompt_tokens|output_tokens|completion_tokens|cache_read_input_tokens|cache_creation_input_tokens|cached_tokens): ([0-9]{1,12}),?\s*$`)

var nodeUsageIndex = map[string]int{"input_tokens": nuIn, "prompt_tokens": nuPrompt, "output_tokens": nuOut, "completion_tokens": nuOut,
	"cache_read_input_tokens": nuCacheRead, "cache_creation_input_tokens": nuCacheWrite, "cached_tokens": nuCached}

// nodeUsageEnd makes the closed parsed block's usage a usage growth of
// the attempt its response line counted (t.nodeUsage, for decodeLine to
// emit): the SDK's debug output alone then bills what the call cost.
func (t *sdkText) nodeUsageEnd(b *nodeBlockState) {
	if !b.parsed || !b.has {
		return
	}
	a, ok := t.nodeAnswered[b.id]
	if !ok {
		return
	}
	delete(t.nodeAnswered, b.id)
	ev := &t.nodeUsage
	*ev = a
	ev.Kind = ingest.KindUsageGrowth
	u := b.usage
	ev.OutputTokens, ev.CacheCreateTokens = u[nuOut], u[nuCacheWrite]
	ev.CacheReadTokens = max(u[nuCacheRead], u[nuCached])
	if b.cacheHidden && ev.CacheReadTokens == 0 {
		// (Only OpenAI's usage has *_tokens_details.)
		// The prompt's tokens hold an unseen number of cached ones, billed
		// at a fraction: its cost is not the block's to say. The output is
		// billed, the call counted unpriced until the app's line (naming
		// its request ID) gives the usage whole.
		ev.UsageUnseen = true
		t.usageOnHeld(ev)
		return
	}
	switch {
	case u[nuPrompt] > 0 || a.Provider == "openai":
		// OpenAI's prompt (and Responses input) tokens hold the cached ones.
		ev.SetInclusiveInput(max(u[nuPrompt], u[nuIn]), ev.CacheReadTokens, 0)
	default:
		ev.InputTokens = u[nuIn]
	}
	t.usageOnHeld(ev)
}

// usageOnHeld gives a usage growth to its attempt while that is still held
// (no request block placed it in a job yet: it goes out later, where an
// app line claims it or by position). Emitted first, the growth came
// before its response was known, and was dropped: twelve answered calls
// billed an exact $0 (R7-23).
func (t *sdkText) usageOnHeld(g *ingest.Event) {
	if g.ResponseID == "" {
		return
	}
	for _, h := range t.nodeHeld {
		for k := range h.evs {
			a := &h.evs[k]
			if a.ResponseID != g.ResponseID {
				continue
			}
			a.InputTokens, a.OutputTokens = g.InputTokens, g.OutputTokens
			a.CacheReadTokens, a.CacheCreateTokens = g.CacheReadTokens, g.CacheCreateTokens
			a.UsageUnseen = a.UsageUnseen || g.UsageUnseen
			g.Kind = ingest.KindUnknown // nothing more to emit
			return
		}
	}
}

// nodeBlockLine reads a line that opens, continues or closes a Node debug
// block; ok is false for any other line.
func (t *sdkText) nodeBlockLine(line []byte) (ok bool) {
	b := &t.nodeBlock
	if b.id != "" && len(line) > 0 && line[0] == '[' {
		// A block's own lines are indented; a line that starts a record
		// means its closing brace was lost (a truncated write): the block
		// ends, and the line is read as what it is.
		if b.request {
			t.noteNodeRequest(b.id, b.req)
		}
		*b = nodeBlockState{}
	}
	if b.id != "" {
		b.lines++
		if len(line) > 0 && line[0] == '}' && len(bytes.TrimSpace(line)) == 1 || b.lines > maxNodeBlockLines {
			if b.request {
				t.noteNodeRequest(b.id, b.req)
			}
			t.nodeUsageEnd(b)
			*b = nodeBlockState{}
			return true
		}
		if b.parsed {
			if bytes.Contains(line, []byte("tokens_details: [Object]")) {
				b.cacheHidden = true
			}
			if m := nodeUsageField.FindSubmatch(line); m != nil {
				if n, err := strconv.ParseInt(string(m[2]), 10, 64); err == nil {
					b.usage[nodeUsageIndex[string(m[1])]], b.has = n, true
				}
			}
			return true
		}
		if b.request && b.req.model == "" && bytes.Contains(line, []byte("body: {")) {
			// util.inspect writes a short body on one line:
			// "body: { model: 'claude-sonnet-4-5', max_tokens: 2048, … }".
			if m := nodeBodyModel.FindSubmatch(line); m != nil {
				b.req.model = CleanField(string(m[1]))
			}
		}
		if b.request && bytes.Equal(bytes.TrimRight(bytes.TrimSpace(line), ","), []byte("stream: true")) {
			b.req.stream = true
		}
		if b.request {
			if m := nodeBlockField.FindSubmatch(line); m != nil {
				key, val := bytes.ToLower(m[1]), m[2]
				switch {
				case jobHeaders[string(key)]:
					b.req.job = CleanID(SanitizeString(string(val)))
				case string(key) == "x-stainless-retry-count":
					if n, err := strconv.Atoi(string(val)); err == nil && n >= 0 {
						b.req.retry = int16(min(n, 1<<14))
					}
				case string(key) == "model" && b.req.model == "":
					b.req.model = CleanField(string(val))
				}
			}
		}
		return true
	}
	if len(line) < 6 || line[0] != '[' || !bytes.HasPrefix(line, []byte("[log_")) || line[len(bytes.TrimRight(line, " \t\r"))-1] != '{' {
		return false
	}
	m := nodeBlockStart.FindSubmatch(line)
	if m == nil {
		return false
	}
	t.sawSDK = true
	*b = nodeBlockState{id: string(m[1]), request: bytes.HasPrefix(m[2], []byte("sending request")), parsed: bytes.HasPrefix(m[2], []byte("response parsed")), req: nodeRequest{retry: -1}}
	return true
}

// noteNodeRequest keeps what a request block said until its response line.
func (t *sdkText) noteNodeRequest(id string, r nodeRequest) {
	if t.nodeReqs == nil || len(t.nodeReqs) >= 100_000 {
		t.nodeReqs = map[string]nodeRequest{}
	}
	t.nodeReqs[id] = r
}

// nodeRequestOf takes the request block of a log ID, if one was seen.
func (t *sdkText) nodeRequestOf(id string) (nodeRequest, bool) {
	r, ok := t.nodeReqs[id]
	if ok {
		delete(t.nodeReqs, id)
	}
	return r, ok
}

// nodeRequestID reads the response's request ID from a response line's
// bracket: `request-id: "req_…"` (Anthropic) or `x-request-id: "…"`
// (OpenAI).
var nodeRequestIDField = regexp.MustCompile(`(?:^|, )(?:x-)?request-id: "([^"]{1,200})"`)

func nodeRequestID(rest []byte) string {
	if m := nodeRequestIDField.FindSubmatch(rest); m != nil {
		return string(m[1])
	}
	return ""
}

// HTTPAttemptID is the ResponseID of a record that names the provider's
// request ID: the app's line carrying "req_…" and the SDK's line with the
// same request-id are one HTTP attempt, counted once (correlate bills
// the second record's usage to the call, not a new call).
func HTTPAttemptID(requestID string) string {
	if requestID == "" {
		return ""
	}
	return CleanID(ingest.HTTPAttemptPrefix + requestID)
}

// nodeLinks puts a Node response line's attempt where its request block
// says: the job its job header names (the chain keeps it for the retries
// whose blocks were not logged), and the SDK's own retry count. placed is
// false when nothing but timing says whose it is: no job header for the
// chain, and JSON lines naming jobs in the file (holdNode).
func (t *sdkText) nodeLinks(ev *ingest.Event, id string, ch *nodeChain) (placed bool) {
	r, ok := t.nodeRequestOf(id)
	if ok && r.job != "" {
		ctx := jobContext{JobID: r.job}
		if t.lastJob.JobID == r.job {
			ctx = t.lastJob
		}
		ctx.Model, ctx.Provider = ch.ctx.Model, ch.ctx.Provider
		ch.ctx, ch.placed = ctx, true
		if prev, ok := t.node[ch.root]; ok {
			prev.ctx, prev.placed = ctx, true
			t.node[ch.root] = prev
		}
		ev.JobID, ev.JobType, ev.CorrelationID = ctx.JobID, ctx.JobType, ctx.CorrelationID
	}
	if ok && r.model != "" {
		ev.Model = r.model
	}
	if ok && r.stream {
		ev.UsageUnseen = true
	}
	if ok && r.retry >= 0 {
		ev.Attempt, ev.AttemptBy = r.retry+1, ingest.AttemptBySDK
		ch.attempt = ev.Attempt
	}
	return ch.placed || t.lastJob.JobID == "" && t.jobSwitches == 0
}

// providerRequestID: v has the shape of a provider's request ID —
// Anthropic's and OpenAI's "req_…", Azure's UUID — not an app's own
// per-worker counter ("req-0059"), which repeats across a job's retries
// and would fold them into one call.
func providerRequestID(v string) bool {
	if len(v) > 200 {
		return false
	}
	if len(v) >= 8 && strings.HasPrefix(v, "req_") {
		return true
	}
	if len(v) == 36 && strings.Count(v, "-") == 4 {
		return true
	}
	return false
}

// A Node response line with no request block (ANTHROPIC_LOG=info, or a
// block the logger dropped) names no job: the job of the last JSON line
// is a guess, wrong as often as not with jobs in flight. Its chain is
// held back until the app's own line names one of its request IDs
// (`request_id: "req_…"`, from the SDK's error or the response's
// _request_id): the chain is that line's job's, exactly. A chain no app
// line claims is let go in the job of its first attempt's time, marked
// a timing link (AttemptByLineAmbiguous) unless no other job logged in
// the meantime: bounded by count, by log time, and by the file's end.
const (
	maxNodeHeldChains = 256
	// maxNodeHeldAttempts bounds one held chain.
	maxNodeHeldAttempts = 256
	// nodeHeldFor is how long, in log time after its last attempt, a
	// chain waits for the app's line: an app logs a call when it returns.
	nodeHeldFor = int64(60e9)
	// nodeHeldLines is how many lines it waits without times to go by.
	nodeHeldLines = 2000
)

type nodeHeld struct {
	root   string
	evs    []ingest.Event
	reqIDs []string // ResponseIDs of its attempts
	lastTS int64
	line   int
}

// holdNode keeps ev (a Node attempt no request block placed) with its chain.
func (t *sdkText) holdNode(ev *ingest.Event, root string, emit func(*ingest.Event)) {
	var h *nodeHeld
	for _, c := range t.nodeHeld {
		if c.root == root {
			h = c
			break
		}
	}
	if h == nil {
		if len(t.nodeHeld) >= maxNodeHeldChains {
			t.releaseNode(0, emit, nil)
		}
		h = &nodeHeld{root: root}
		t.nodeHeld = append(t.nodeHeld, h)
	}
	h.evs = append(h.evs, *ev)
	if ev.ResponseID != "" {
		h.reqIDs = append(h.reqIDs, ev.ResponseID)
	}
	if len(h.evs) >= maxNodeHeldAttempts {
		// No SDK retries this often: a hostile or broken chain is let go
		// (by timing) rather than held without bound.
		for i, c := range t.nodeHeld {
			if c == h {
				t.releaseNode(i, emit, nil)
				return
			}
		}
	}
	if !ev.TSCarried && ev.TS > 0 {
		h.lastTS = max(h.lastTS, ev.TS+int64(ev.LatencyMs)*1e6)
	}
	h.line = t.lines
}

// claimNode releases, in the job of ev (an app's JSON record naming a
// request ID), the held chain with an attempt of that ID, before ev.
func (t *sdkText) claimNode(ev *ingest.Event, emit func(*ingest.Event)) {
	if ev.ResponseID == "" || len(t.nodeHeld) == 0 {
		return
	}
	for i, h := range t.nodeHeld {
		for _, id := range h.reqIDs {
			if id == ev.ResponseID {
				ctx := jobContext{JobID: ev.JobID, JobType: ev.JobType, CorrelationID: ev.CorrelationID}
				t.releaseNode(i, emit, &ctx)
				return
			}
		}
	}
}

// claimNodeAnswer: ev is the app's own record of a call it made (a JSON
// line with usage or a status, no request ID: most apps log the answer
// without it). When the SDK's debug lines of a call are in the same
// stream but name no job (the job sits in the body's metadata, printed
// as "[Object]"), the call is on the wire once — the SDK's chain — and the
// app's line is that chain's last attempt as the app saw it, never a
// further call: counting both doubled every answered call (red team 8,
// R8-4: 121 calls for the wire's 66, and an innocent run-ceiling kill).
// The chain taken is the held one that ended as ev did (answered, or
// failed) and most recently, of ev's model; ev then names its last
// attempt's request ID, so correlate bills the response once at the
// larger usage. Which chain answered which line is timing's when more
// than one chain is held: those attempts are marked so (never held
// against a ceiling or a declaration), the count stays the wire's.
func (t *sdkText) claimNodeAnswer(ev *ingest.Event, inFlight int, emit func(*ingest.Event)) {
	if ev.ResponseID != "" || ev.JobID == "" || len(t.nodeHeld) == 0 {
		return
	}
	ok := ev.Status >= 200 && ev.Status < 300
	failed := ev.Status >= 400 || ev.Status == 0 && ev.ErrorType != ""
	if !ok && !failed {
		return
	}
	if last, found := t.claimNodeByTiming(ev, ok, inFlight, emit); found && last != "" {
		ev.ResponseID = last
	}
}

// claimNodeFailure: ev ends its job as failed while the job's announced
// call has no answer yet and SDK chains the stream holds name no job —
// the app gave up on the call (the SDK's retries spent) and logged the
// job's end instead of a call record. The chain that failed last is that
// call; without the claim the announcement was let go as one more call
// and the chain counted again beside it (R8-4's failed jobs).
func (t *sdkText) claimNodeFailure(ev *ingest.Event, inFlight int, emit func(*ingest.Event)) {
	t.claimNodeByTiming(ev, false, inFlight, emit)
}

// claimNodeByTiming releases in ev's job the held chain that ended as ok
// says (answered, or failed) most recently, of ev's model, and returns its
// last attempt's request ID. inFlight is how many jobs' announced calls
// wait for an answer (ev's own included).
func (t *sdkText) claimNodeByTiming(ev *ingest.Event, ok bool, inFlight int, emit func(*ingest.Event)) (last string, found bool) {
	best := -1
	for i, h := range t.nodeHeld {
		l := &h.evs[len(h.evs)-1]
		if (l.Status >= 200 && l.Status < 300) != ok {
			continue
		}
		if ev.Model != "" && l.Model != "" && !sameModel(ev.Model, l.Model) {
			continue
		}
		if best < 0 || h.line >= t.nodeHeld[best].line {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	h := t.nodeHeld[best]
	last = h.evs[len(h.evs)-1].ResponseID
	if len(t.nodeHeld) > 1 || inFlight > 1 || t.timingClaims {
		// Other chains or other jobs' calls are in flight: which chain is
		// this line's is timing's. Once so, every later claim is too — a
		// wrong pick leaves a later line the one chain left, which is
		// then no more certain (a job's 429 chain given to another, and
		// the job shown exact with one call too few).
		t.timingClaims = true
		for k := range h.evs {
			h.evs[k].AttemptBy = ingest.AttemptByLineAmbiguous
		}
	}
	ctx := jobContext{JobID: ev.JobID, JobType: ev.JobType, CorrelationID: ev.CorrelationID}
	t.releaseNode(best, emit, &ctx)
	return last, true
}

// sameModel: two spellings of one model (a request's "claude-sonnet-4-5"
// and an app's "anthropic/claude-sonnet-4-5" or a dated response name).
func sameModel(a, b string) bool {
	if a == b {
		return true
	}
	if i := strings.LastIndexByte(a, '/'); i >= 0 {
		a = a[i+1:]
	}
	if i := strings.LastIndexByte(b, '/'); i >= 0 {
		b = b[i+1:]
	}
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// expireNode lets go the chains no app line claimed in time.
func (t *sdkText) expireNode(ts int64, timed bool, emit func(*ingest.Event)) {
	for i := 0; i < len(t.nodeHeld); {
		h := t.nodeHeld[i]
		if t.lines-h.line > nodeHeldLines || timed && h.lastTS > 0 && ts-h.lastTS > nodeHeldFor {
			t.releaseNode(i, emit, nil)
			continue
		}
		i++
	}
}

// releaseNode emits held chain i: in ctx's job when an app line claimed
// it, else where it was read, a timing link when another job logged
// since its first attempt.
func (t *sdkText) releaseNode(i int, emit func(*ingest.Event), ctx *jobContext) {
	h := t.nodeHeld[i]
	t.nodeHeld = append(t.nodeHeld[:i], t.nodeHeld[i+1:]...)
	for k := range h.evs {
		ev := &h.evs[k]
		if ctx != nil && ctx.JobID != "" {
			ev.JobID, ev.JobType, ev.CorrelationID = ctx.JobID, ctx.JobType, ctx.CorrelationID
		}
		// Unclaimed, a chain is where it was read: in a job by position
		// alone even when no other job logged meanwhile — another
		// process writing the stream puts its chain there as easily (the
		// red team's unclaimed retryOf chain of 6 convicted the one job
		// in sight). It is counted and shown, never held against a
		// declaration.
		if ctx == nil && ev.JobID != "" {
			ev.AttemptBy = ingest.AttemptByLineAmbiguous
		}
		emit(ev)
	}
}

// flushNode lets go every held chain (the file's end).
func (t *sdkText) flushNode(emit func(*ingest.Event)) int {
	n := 0
	for len(t.nodeHeld) > 0 {
		n += len(t.nodeHeld[0].evs)
		t.releaseNode(0, emit, nil)
	}
	return n
}
