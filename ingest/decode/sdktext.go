package decode

import (
	"bytes"
	"hash/maphash"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/layers"
)

// Lines the official SDKs write about their own retries. They carry no
// tokens, but they reveal the SDK retry layer people forget exists.
var (
	// Python (Stainless): "Retrying request to /v1/messages in 0.412345 seconds",
	// newer openai-python: "Retrying request in 0.412345 seconds". The path
	// is relative to the client's base URL: openai-python logs
	// "/chat/completions" for POST https://api.openai.com/v1/chat/completions.
	pyRetry = regexp.MustCompile(`Retrying request(?: to (\S+))? in ([0-9.]+) seconds`)
	// httpx under the SDK: HTTP Request: POST https://… "HTTP/1.1 429 Too Many Requests"
	pyHTTP = regexp.MustCompile(`HTTP Request: (POST|GET|PUT|DELETE|PATCH) (https?://([^/\s"]+)(/[^\s"]*)?) "HTTP/[0-9.]+ (\d{3})`)
	// apiPrefix is the part of a URL path a client's base URL holds: up to
	// a version segment (/v1, /v1beta, /api/v1) or Azure's /openai.
	apiPrefix = regexp.MustCompile(`^(?:.*/(?:v\d+(?:alpha|beta)?\d*|openai))(?:/|$)`)
	// Node: [log_c0cd86, request-id: "req_1"] post https://…/v1/messages failed with status 529 in 30ms - retrying, 2 attempts remaining
	//       [log_44c751, retryOf: log_c0cd86, …] … succeeded with status 200 in 5ms
	nodeLine    = regexp.MustCompile(`\[(log_[0-9a-zA-Z]+)((?:, [^\]]*)?)\]\s+(?:(?:post|get|put|delete|patch) (https?://([^/\s]+)(/\S*))?)?.*?(succeeded|failed) with status (\d{3}) in (\d+)ms`)
	nodeRetryOf = regexp.MustCompile(`retryOf: (log_[0-9a-zA-Z]+)`)
	// Node, an attempt that got no response: "[log_c0cd86] connection timed out - retrying, 1 attempts remaining"
	nodeConn = regexp.MustCompile(`\[(log_[0-9a-zA-Z]+)((?:, [^\]]*)?)\] connection (timed out|failed) - retrying`)
	// openai-python 0.x: INFO:openai:error_code=429 error_message='…' error_param=None error_type=requests message='OpenAI API error received' stream_error=False
	openaiV0 = regexp.MustCompile(`error_code=(\d{3}) error_message='(.*?)' error_param=\S+ error_type=(\S*)`)
	// A time near the start: 2026-03-10 01:00:00[.123][Z], or with a T.
	lineTime = regexp.MustCompile(`(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)(Z|[+-]\d{2}:?\d{2})?`)
	// A time of day alone at the start (LiteLLM's console: "00:07:32 - LiteLLM Router:INFO: …").
	lineClock = regexp.MustCompile(`^(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\b`)
	// "Please retry after 3 seconds" (Azure), "Please try again in 2.904s" / "in 180ms" (OpenAI).
	retryHint = regexp.MustCompile(`^(\d+(?:\.\d+)?) ?(ms|s|sec|secs|seconds?)\b`)
)

// maxTextBytes is how much of a text line the text formats read.
const maxTextBytes = 64 << 10

// timePrefix is how far into a line its time is looked for: a logger puts
// it in the prefix, and a date deep in a message is not the line's time.
const timePrefix = 96

// sdkLineKind names the built-in text format a line is, "" for none.
func sdkLineKind(line []byte) Format {
	switch {
	case bytes.Contains(line, []byte("Retrying request")) && pyRetry.Match(line),
		bytes.Contains(line, []byte("HTTP Request: ")) && pyHTTP.Match(line),
		bytes.Contains(line, []byte("[log_")) && (nodeLine.Match(line) || nodeConn.Match(line)),
		bytes.Contains(line, []byte("error_code=")) && openaiV0.Match(line):
		return FormatSDKText
	}
	return textLineKind(line)
}

// sdkText turns text lines into llm_call attempts: the SDKs' own request
// and retry lines, LiteLLM's router lines, retry libraries' warnings and
// the user's own patterns. Python lines do not number their attempts: a
// "Retrying" line makes the response to the same endpoint that comes at
// its announced time the next attempt (pychains.go). Node lines chain by
// retryOf: the chain's first log ID is the operation. Text lines belong to
// the job of the most recent JSON line in the file, and take its model
// unless they name their own; a retry chain keeps its first attempt's.
type sdkText struct {
	p       *Parser
	ev      ingest.Event
	lastJob jobContext // job, type, model, provider of the last JSON line
	// failedAt is t.lines when the last JSON line was the record of a
	// failed call (a status of 400 or more, or an error): a retry
	// library's "Retrying … as it raised" line right after it announces
	// the next attempt of that failure, which is already counted (R8-6).
	failedAt int
	// py follows Python requests per endpoint (the path relative to the
	// base URL): their failed responses and announced retries (pychains.go).
	py     map[string]*pyEndpoint
	pySeq  int
	pyLast string // endpoint of the last response line
	// pyJobChains counts the Python requests started since the job of
	// the last JSON line became the context (pyFresh).
	pyJobChains int
	keyBuf      []byte // pyKey's scratch
	// sawSDK: this file has SDK lines, so other text lines are its
	// application's own text, not broken JSON.
	sawSDK bool
	node   map[string]nodeChain
	// nodeBlock is the Node SDK debug block being read, nodeReqs what
	// each request block said until its response line (nodelinks.go).
	nodeBlock nodeBlockState
	nodeReqs  map[string]nodeRequest
	// nodeAnswered is, per log ID, the 2xx attempt its response line
	// counted: the "response parsed" block after it bills its usage.
	nodeAnswered map[string]ingest.Event
	nodeUsage    ingest.Event
	// nodeHeld are Node chains no request block placed, waiting for the
	// app's line that names their request ID (nodelinks.go).
	nodeHeld []*nodeHeld
	// timingClaims: an app line took a held chain by timing with other
	// calls in flight (claimNodeByTiming); later claims are timing's too.
	timingClaims bool
	jobSwitches  int // JSON lines naming another job than the one before
	lines        int
	// open holds the time of each job's last JSON line; interleavedAt is
	// when the lines last showed two jobs at work at once (pychains.go:
	// noteOpen).
	open          openJobs
	interleavedAt int64
	interleaved   bool
	// held is an httpx response kept back one line in a file of LiteLLM
	// router lines: the router's line after it names the model (see
	// textlines.go).
	held     ingest.Event
	hasHeld  bool
	holdHTTP bool
	// pyHeld: the held response is a Python SDK attempt, its "HTTP
	// Response:" line read, waiting for its "request_id: req_…" line
	// (_base_client.py logs the two at once, no await between): the
	// request ID makes the attempt one call with the app's line naming it.
	pyHeld bool
	// pySDK: the Python SDK's own debug lines are in the input.
	pySDK bool
	// pyHttpx are httpx's response lines read since pySDK, not yet met
	// by an SDK "HTTP Response:" line (each of which is one of them
	// again, counted): a line that only claims to be the SDK's must not
	// blind the count, so past maxPyHttpx unmet, and at the input's end,
	// they are read as attempts after all.
	pyHttpx [][]byte
	// pyExc is an attempt the SDK's "Encountered …" line said failed with
	// no response (a timeout, a reset): counted at its "Retrying" line
	// when one follows, else, at the SDK's next line, as its last (pyexc.go).
	pyExc     pyException
	pySending string // endpoint of the SDK's last "Sending HTTP Request:" line
	lite      liteState
	retry     retryState
	patterns  []*patternState
	scratch   []byte // a line without its ANSI escapes
}

// jobContext is what a JSON line says about the text lines after it: the
// job and the model. An SDK retry chain keeps the one of its first
// attempt — a JSON line of another job logged while a retry waits does
// not move the retry into that job.
type jobContext struct {
	JobID, JobType, CorrelationID, Model, Provider string
}

// nodeChain is, for a chain's first log ID, the chain, its latest attempt
// and the job context of its first attempt.
type nodeChain struct {
	root    string
	attempt int16
	ctx     jobContext
	placed  bool // a request block's job header named the chain's job
}

func newSDKText(p *Parser) *sdkText {
	return &sdkText{p: p, py: map[string]*pyEndpoint{}, node: map[string]nodeChain{}}
}

// noteJSON remembers the context a JSON line sets for the text lines after it.
func (t *sdkText) noteJSON(ev *ingest.Event) { t.noteJSONHashed(ev, 0) }

// openSeed is the seed of the open-jobs table's hash, the table made
// ready if it was not.
func (t *sdkText) openSeed() maphash.Seed {
	if t.open.slots == nil {
		t.open.reset()
	}
	return t.open.seed
}

// noteJSONHashed is noteJSON with the job ID's hash in the open-jobs
// table (openJobs.hash), or 0 to compute it here.
func (t *sdkText) noteJSONHashed(ev *ingest.Event, h uint64) {
	t.lines++
	if ev.Kind == ingest.KindLLMCall && ev.JobID != "" && (ev.Status >= 400 || ev.Status <= 0 && ev.ErrorType != "") {
		t.failedAt = t.lines
	}
	if ev.JobID != "" && ev.JobID != t.lastJob.JobID {
		t.jobSwitches++
		t.pyJobChains = 0
	}
	t.noteOpen(ev, h)
	if ev.JobID != "" || ev.CorrelationID != "" {
		t.lastJob.JobID, t.lastJob.JobType, t.lastJob.CorrelationID = ev.JobID, ev.JobType, ev.CorrelationID
	}
	if ev.Model != "" {
		t.lastJob.Model, t.lastJob.Provider = ev.Model, ev.Provider
	}
}

// base starts an attempt from a text line: the job context of the last
// JSON line, and the line's own time, or the time of the line before it
// (TSCarried).
func (t *sdkText) base(line []byte) *ingest.Event {
	ts, carried := t.lineTime(line)
	return t.attemptAt(ts, carried, t.lastJob)
}

// placed marks an attempt of a text line that names no job but is in one:
// the job of the JSON line before it, by position alone — another
// process, or a second logger, writing the stream puts its lines there
// as easily. Counted and shown, never held against a declaration, never
// a kill (issue 39: tenacity, Claude Code and LiteLLM retry lines beside
// one JSON line convicted and killed its job).
func (t *sdkText) placed(ev *ingest.Event) *ingest.Event {
	if ev.JobID != "" {
		ev.AttemptBy = ingest.AttemptByLineAmbiguous
	}
	return ev
}

// lineTime is a text line's time: its own, or the time of the line before
// it (carried).
func (t *sdkText) lineTime(line []byte) (ts int64, carried bool) {
	if ts, ok := t.lineTS(line); ok {
		t.p.lastTS = ts
		return ts, false
	}
	return t.p.lastTS, true
}

// attemptAt starts an attempt at ts in the job context ctx.
func (t *sdkText) attemptAt(ts int64, carried bool, ctx jobContext) *ingest.Event {
	ev := &t.ev
	ev.Reset()
	ev.Kind = ingest.KindLLMCall
	ev.JobID, ev.JobType, ev.CorrelationID = ctx.JobID, ctx.JobType, ctx.CorrelationID
	ev.Model, ev.Provider = ctx.Model, ctx.Provider
	ev.TS, ev.TSCarried = ts, carried
	return ev
}

// lineTS reads the time in a text line's prefix: a date and time, or a
// time of day alone on the date of the line before (a day later when the
// clock went backwards by more than 12 hours: midnight passed). A time of
// day with no date known is no time.
func (t *sdkText) lineTS(line []byte) (int64, bool) {
	head := line[:min(len(line), timePrefix)]
	if at := dateAt(head); at < 0 {
		// No date: only a time of day at the start can be one.
	} else if m := lineTime.FindSubmatch(head[at:]); m != nil {
		text := string(m[1]) + "T" + strings.Replace(string(m[2]), ",", ".", 1)
		zone := string(m[3])
		if zone == "" {
			zone = "Z" // no zone in the prefix: taken as UTC
		}
		if ts, err := time.Parse(time.RFC3339Nano, text+zone); err == nil {
			return unixNanoInRange(ts), true
		}
		return 0, false
	}
	if len(head) < 8 || !isDigit(head[0]) || head[2] != ':' {
		return 0, false
	}
	m := lineClock.FindSubmatch(head)
	if m == nil || t.p.lastTS <= 0 {
		return 0, false
	}
	h, _ := strconv.Atoi(string(m[1]))
	mi, _ := strconv.Atoi(string(m[2]))
	s, _ := strconv.Atoi(string(m[3]))
	if h > 23 || mi > 59 || s > 60 {
		return 0, false
	}
	var frac int64
	if len(m[4]) > 0 {
		f, _ := strconv.ParseInt((string(m[4]) + "000000000")[:9], 10, 64)
		frac = f
	}
	prev := time.Unix(0, t.p.lastTS).UTC()
	day := time.Date(prev.Year(), prev.Month(), prev.Day(), 0, 0, 0, 0, time.UTC).UnixNano()
	ts := day + int64(h)*int64(time.Hour) + int64(mi)*int64(time.Minute) + int64(s)*int64(time.Second) + frac
	if t.p.lastTS-ts > int64(12*time.Hour) {
		ts += int64(24 * time.Hour)
	}
	return ts, true
}

// dateAt is where "dddd-dd-dd" first starts in b, or -1: a scan for the
// dash pattern that spares the regexp the lines without a date.
func dateAt(b []byte) int {
	for i := 0; i+10 <= len(b); i++ {
		if b[i+4] == '-' && b[i+7] == '-' && isDigit(b[i]) && isDigit(b[i+1]) && isDigit(b[i+2]) && isDigit(b[i+3]) &&
			isDigit(b[i+5]) && isDigit(b[i+6]) && isDigit(b[i+8]) && isDigit(b[i+9]) {
			return i
		}
	}
	return -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// endpoint is a request path relative to the client's base URL, without
// its query: "/v1/chat/completions" and openai-python's retry line's
// "/chat/completions" are one endpoint, and so are Anthropic's "/v1/messages"
// in both lines. "" (a retry line that names no path) stays "".
func endpoint(path string) string {
	key, _, _ := route("", path)
	return key
}

var (
	// Bedrock: /model/<model-id>/invoke (and -with-response-stream, converse, converse-stream).
	bedrockPath = regexp.MustCompile(`(?:^|/)model/([^/]+)/(?:invoke|invoke-with-response-stream|converse|converse-stream)$`)
	// Vertex AI: …/publishers/<publisher>/models/<model>:rawPredict (or streamRawPredict, generateContent…).
	vertexPath = regexp.MustCompile(`/publishers/[^/]+/models/([^/:]+):([A-Za-z]+)$`)
	// Azure OpenAI: /openai/deployments/<deployment>/chat/completions.
	azurePath = regexp.MustCompile(`(?:^|/)deployments/([^/]+)(/.*)$`)
)

// route reads what a request line's URL says: the endpoint the SDK's
// retry line names for it, and the model and provider when the path holds
// them. The SDK's clients for Bedrock and Vertex rewrite /v1/messages into
// a path with the model in it but log the retry under /v1/messages, and
// openai-python's Azure client logs the deployment's path or the plain
// one: all of these are the one endpoint their retry line names.
func route(host, path string) (key, model, provider string) {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	path = strings.TrimSuffix(path, "/")
	if p := layers.ByHost(host); p != nil {
		provider = p.Name
	}
	// Most paths hold no model: the regexps only look at those that may.
	if strings.Contains(path, "/model/") || strings.HasPrefix(path, "model/") {
		if m := bedrockPath.FindStringSubmatch(path); m != nil {
			model := unescapePath(m[1])
			if i := strings.LastIndexByte(model, '/'); strings.HasPrefix(model, "arn:") && i >= 0 {
				model = model[i+1:] // an inference profile's ARN ends with its ID: eu.anthropic.claude-…
			}
			return "/messages", model, provider
		}
	}
	if strings.Contains(path, "/publishers/") {
		if m := vertexPath.FindStringSubmatch(path); m != nil {
			if m[1] == "count-tokens" {
				return "/messages/count_tokens", "", provider
			}
			if m[2] == "rawPredict" || m[2] == "streamRawPredict" {
				return "/messages", unescapePath(m[1]), provider
			}
			return "/" + m[2], unescapePath(m[1]), provider
		}
	}
	var m []string
	if strings.Contains(path, "deployments/") {
		m = azurePath.FindStringSubmatch(path)
	}
	if m != nil {
		if provider == "" {
			provider = "azure"
		}
		model, path = unescapePath(m[1]), m[2]
	} else if loc := apiPrefix.FindStringIndex(path); loc != nil {
		path = "/" + path[loc[1]:]
	}
	return strings.TrimSuffix(path, "/"), model, provider
}

func unescapePath(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

func providerOf(host string) string {
	_, _, p := route(host, "")
	return p
}

// retryableStatus: the statuses the SDKs retry; their "Retrying" line follows.
func retryableStatus(s int16) bool { return s == 408 || s == 409 || s == 429 || s >= 500 }

// decode returns how many events a text line gave; -1 for a recognized
// line that describes no attempt by itself.
func (t *sdkText) decode(line []byte, emit func(*ingest.Event)) int {
	// What a text line says is in its first KiB or so (an SDK line, a
	// router line, a retry warning and its message): a longer one is read
	// on its first maxTextBytes, so a hostile megabyte of "[log_" costs
	// the regexps no more than that.
	line = t.stripANSI(line[:min(len(line), maxTextBytes)])
	t.lines++
	flushed := 0
	if len(t.nodeHeld) > 0 {
		before := len(t.nodeHeld)
		t.expireNode(t.p.lastTS, t.p.lastTS > 0, emit)
		if len(t.nodeHeld) < before {
			flushed = 1
		}
	}
	if t.hasHeld && t.pyHeld {
		if n, ok := t.pyResponseLine(line, emit); ok {
			return n
		}
		t.flush(emit)
		flushed = 1
	}
	if t.hasHeld {
		if n, ok := t.liteMerge(line, emit); ok {
			return n
		}
		t.flush(emit)
		flushed = 1
	}
	n := t.decodeLine(line, emit)
	if flushed > 0 {
		return flushed + max(n, 0)
	}
	return n
}

// maxPyHttpx bounds the httpx lines waiting for the SDK's (pyHttpx):
// more than the requests an asyncio app has in flight at once.
const maxPyHttpx = 256

// flushPyHttpx reads, at the input's end, the httpx lines no SDK line met
// as attempts.
func (t *sdkText) flushPyHttpx(emit func(*ingest.Event)) int {
	n := t.flush(emit) + t.pyRaised(emit)
	for len(t.pyHttpx) > 0 {
		line := t.pyHttpx[0]
		t.pyHttpx = t.pyHttpx[1:]
		if t.pyHTTPLine(line, pyHTTP.FindSubmatch(line), false, emit) != 0 {
			n++
		}
		n += t.flush(emit)
	}
	t.pyHttpx = nil
	return n
}

// flush emits the held response, if any.
func (t *sdkText) flush(emit func(*ingest.Event)) int {
	if !t.hasHeld {
		return 0
	}
	t.hasHeld, t.pyHeld = false, false
	emit(&t.held)
	return 1
}

func (t *sdkText) decodeLine(line []byte, emit func(*ingest.Event)) int {
	if t.pyExc.set && pyEndsException(line) {
		if r := t.pyRaised(emit); r > 0 {
			return r + max(t.decodeSDKLine(line, emit), 0)
		}
	}
	return t.decodeSDKLine(line, emit)
}

func (t *sdkText) decodeSDKLine(line []byte, emit func(*ingest.Event)) int {
	if (t.nodeBlock.id != "" || len(line) > 0 && line[0] == '[') && t.nodeBlockLine(line) {
		if t.nodeUsage.Kind == ingest.KindUsageGrowth {
			emit(&t.nodeUsage)
			t.nodeUsage.Kind = ingest.KindUnknown
			return 1
		}
		return -1
	}
	for _, ps := range t.patterns {
		if n, ok := t.pattern(ps, line, emit); ok {
			return n
		}
	}
	if bytes.Contains(line, []byte("] Encountered ")) && bytes.Contains(line, []byte("_base_client")) {
		if t.pyEncountered(line) {
			return -1
		}
	}
	if bytes.Contains(line, []byte("Retrying request")) {
		if m := pyRetry.FindSubmatch(line); m != nil {
			return t.pyRetryLine(line, m, emit)
		}
	}
	if bytes.Contains(line, []byte("] HTTP Response: ")) {
		if m := pySDKResponse.FindSubmatch(line); m != nil {
			t.pySDK = true
			if len(t.pyHttpx) > 0 {
				t.pyHttpx = t.pyHttpx[1:] // httpx's line of this attempt, or another's: one each
			}
			return t.pyHTTPLine(line, m, true, emit)
		}
	}
	if bytes.Contains(line, []byte("] Request options: ")) && bytes.Contains(line, []byte("_base_client")) {
		if t.pyRequestOptions(line) {
			return -1
		}
	}
	if bytes.Contains(line, []byte("Sending HTTP Request: ")) && bytes.Contains(line, []byte("_base_client")) {
		// The SDK's debug lines are there: its "HTTP Response:" lines
		// count the attempts, httpx's are the same ones again.
		t.pySDK = true
		t.pySending = ""
		if m := pySending.FindSubmatch(line); m != nil {
			t.pySending, _, _ = route(string(m[2]), string(m[3])) // an "Encountered" line after it is this request's
		}
	}
	if bytes.Contains(line, []byte("HTTP Request: ")) {
		if m := pyHTTP.FindSubmatch(line); m != nil {
			if t.pySDK && bytes.Contains(line, []byte("httpx")) {
				t.pyHttpx = append(t.pyHttpx, bytes.Clone(line))
				if len(t.pyHttpx) <= maxPyHttpx {
					return -1
				}
				old := t.pyHttpx[0]
				t.pyHttpx = t.pyHttpx[1:]
				return t.pyHTTPLine(old, pyHTTP.FindSubmatch(old), false, emit)
			}
			return t.pyHTTPLine(line, m, false, emit)
		}
	}
	if bytes.Contains(line, []byte("[log_")) {
		if m := nodeLine.FindSubmatch(line); m != nil {
			return t.nodeResponse(line, m, emit)
		}
		if m := nodeConn.FindSubmatch(line); m != nil {
			return t.nodeConnection(line, m, emit)
		}
	}
	if bytes.Contains(line, []byte("error_code=")) {
		if m := openaiV0.FindSubmatch(line); m != nil {
			return t.openaiV0Line(line, m, emit)
		}
	}
	return t.decodeOther(line, emit)
}

func (t *sdkText) nodeResponse(line []byte, m [][]byte, emit func(*ingest.Event)) int {
	t.sawSDK = true
	status, ok := atoi16(string(m[7]))
	if !ok {
		return 0
	}
	ch := t.nodeChainOf(string(m[1]), m[2])
	ts, carried := t.lineTime(line)
	ev := t.attemptAt(ts, carried, ch.ctx)
	placed := t.nodeLinks(ev, string(m[1]), &ch)
	ev.ResponseID = HTTPAttemptID(CleanID(SanitizeString(nodeRequestID(m[2]))))
	latency, _ := strconv.Atoi(string(m[8]))
	ev.LatencyMs = int32(min(latency, 1<<31-1))
	if !ev.TSCarried {
		ev.TS -= int64(latency) * 1e6 // logged when the response arrived
		ev.TS = max(ev.TS, 0)
	}
	ev.Status, ev.Attempt = status, ch.attempt
	_, model, provider := route(string(m[4]), string(m[5]))
	if model != "" {
		ev.Model = t.p.intern.get([]byte(CleanField(model)))
	}
	if provider != "" && (ev.Provider == "" || model != "") {
		ev.Provider = provider
	}
	ev.IdempotencyKey = t.p.intern.get([]byte(CleanField("sdk:" + ch.root)))
	if status/100 == 2 && ev.ResponseID != "" {
		if t.nodeAnswered == nil || len(t.nodeAnswered) >= 4096 {
			t.nodeAnswered = map[string]ingest.Event{}
		}
		t.nodeAnswered[string(m[1])] = *ev
	}
	if !placed {
		t.holdNode(ev, ch.root, emit)
		return -1
	}
	emit(ev)
	return 1
}

// nodeConnection is a Node attempt that got no response. Its line names
// only its own log ID, so it is its chain's root or a retry whose chain
// the next line (retryOf) reveals.
func (t *sdkText) nodeConnection(line []byte, m [][]byte, emit func(*ingest.Event)) int {
	t.sawSDK = true
	ch := t.nodeChainOf(string(m[1]), m[2])
	ts, carried := t.lineTime(line)
	ev := t.attemptAt(ts, carried, ch.ctx)
	placed := t.nodeLinks(ev, string(m[1]), &ch)
	ev.Status, ev.Attempt = 0, ch.attempt
	ev.ErrorType = "connection_error"
	if string(m[3]) == "timed out" {
		ev.ErrorType = "timeout"
	}
	ev.IdempotencyKey = t.p.intern.get([]byte(CleanField("sdk:" + ch.root)))
	if !placed {
		t.holdNode(ev, ch.root, emit)
		return -1
	}
	emit(ev)
	return 1
}

// nodeChainOf counts attempts per chain root: retryOf names the chain's
// first request on every retry. A chain keeps the job context of its first
// attempt: a JSON line of another job between a failure and its retry does
// not move the retry into that job.
func (t *sdkText) nodeChainOf(id string, rest []byte) nodeChain {
	ch := nodeChain{root: id, attempt: 1, ctx: t.lastJob}
	if r := nodeRetryOf.FindSubmatch(rest); r != nil {
		root := string(r[1])
		if prev, ok := t.node[root]; ok {
			root = prev.root
		}
		last, ok := t.node[root]
		if !ok {
			// The first request's line was not in this file: the chain
			// starts here, in the context of now.
			last = nodeChain{root: root, attempt: 1, ctx: t.lastJob}
		}
		ch = nodeChain{root: root, attempt: min(last.attempt, 1<<14) + 1, ctx: last.ctx, placed: last.placed}
		t.node[root] = ch
	}
	if ch.attempt == 1 {
		t.node[id] = ch
	}
	if len(t.node) > 100_000 {
		clear(t.node)
	}
	return ch
}

// openaiV0Line is openai-python 0.x's log of an error response. It retried
// nothing itself (0.x had no retries for these): each line is an attempt.
func (t *sdkText) openaiV0Line(line []byte, m [][]byte, emit func(*ingest.Event)) int {
	t.sawSDK = true
	status, ok := atoi16(string(m[1]))
	if !ok {
		return 0
	}
	ev := t.placed(t.base(line))
	ev.Status, ev.Attempt = status, 1
	msg := m[2]
	if bytes.Contains(msg, []byte("Azure OpenAI")) {
		ev.Provider = "azure"
	} else if ev.Provider == "" {
		ev.Provider = "openai"
	}
	if ms, ok := retryHintMs(msg); ok {
		ev.RetryAfterMs = ms
	}
	if et := string(m[3]); et != "" && et != "None" {
		ev.ErrorType = t.p.intern.get([]byte(CleanField(et)))
	}
	t.pySeq++
	ev.IdempotencyKey = t.p.intern.get([]byte(CleanField("sdk:" + ev.JobID + ":openai0:" + strconv.Itoa(t.pySeq))))
	emit(ev)
	return 1
}

// retryHintMs reads the server's wait hint from an error message.
func retryHintMs(msg []byte) (int64, bool) {
	var m [][]byte
	for _, lead := range []string{"try again in ", "etry after "} { // "Please try again in 2.904s", "Retry after 3 seconds"
		if i := bytes.Index(msg, []byte(lead)); i >= 0 {
			if m = retryHint.FindSubmatch(msg[i+len(lead):]); m != nil {
				break
			}
		}
	}
	if m == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil || f < 0 || f > 1e7 {
		return 0, false
	}
	if string(m[2]) == "ms" {
		return int64(f), true
	}
	return int64(f * 1000), true
}

// stripANSI returns line without terminal escape sequences (ESC [ … final
// byte) and without the remnants a copy-paste leaves of them ("[32m"):
// coloured console output reads as the text it shows.
func (t *sdkText) stripANSI(line []byte) []byte {
	if bytes.IndexByte(line, 0x1b) < 0 && !hasSGRRemnant(line) {
		return line
	}
	out := t.scratch[:0]
	for i := 0; i < len(line); {
		c := line[i]
		if c == 0x1b {
			j := i + 1
			if j < len(line) && line[j] == '[' {
				j++
				for j < len(line) && (line[j] >= 0x30 && line[j] <= 0x3f || line[j] >= 0x20 && line[j] <= 0x2f) {
					j++
				}
				if j < len(line) {
					j++ // the final byte
				}
			}
			i = j
			continue
		}
		if c == '[' {
			if n := sgrRemnant(line[i:]); n > 0 {
				i += n
				continue
			}
		}
		out = append(out, c)
		i++
	}
	t.scratch = out
	return out
}

// sgrRemnant is the length of "[32m" / "[1;31m" / "[0m" at the start of b, else 0.
func sgrRemnant(b []byte) int {
	j := 1
	for j < len(b) && j < 12 && (b[j] >= '0' && b[j] <= '9' || b[j] == ';') {
		j++
	}
	if j > 1 && j < len(b) && b[j] == 'm' {
		return j + 1
	}
	return 0
}

func hasSGRRemnant(line []byte) bool {
	for i := 0; i < len(line); {
		k := bytes.IndexByte(line[i:], '[')
		if k < 0 {
			return false
		}
		if sgrRemnant(line[i+k:]) > 0 {
			return true
		}
		i += k + 1
	}
	return false
}
