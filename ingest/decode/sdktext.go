package decode

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
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
	// A time somewhere near the start: 2026-03-10 01:00:00[.123][Z], or with a T.
	lineTime = regexp.MustCompile(`(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)(Z|[+-]\d{2}:?\d{2})?`)
)

// sdkLineKind says which SDK line a text line is: 'r' Python retry, 'h'
// Python HTTP response, 'n' Node line, 0 none.
func sdkLineKind(line []byte) byte {
	switch {
	case pyRetry.Match(line):
		return 'r'
	case pyHTTP.Match(line):
		return 'h'
	case nodeLine.Match(line):
		return 'n'
	}
	return 0
}

// sdkText turns SDK lines into llm_call attempts. Python lines do not
// number their attempts: a "Retrying" line makes the next response to the
// same path the next attempt. Node lines chain by retryOf: the chain's
// first log ID is the operation. Text lines belong to the job of the most
// recent JSON line in the file, and take its model.
type sdkText struct {
	p       *Parser
	ev      ingest.Event
	lastJob ingest.Event // job, type, model, provider of the last JSON line
	lastTS  int64
	// Python, per endpoint (the path relative to the base URL): the attempt
	// and operation number in flight, failed responses not yet followed by
	// their "Retrying" line, and retries announced but not yet answered.
	pyAttempt map[string]int16
	pyOp      map[string]int
	pyFailed  map[string]int
	pyPending map[string]int
	pySeq     int
	pyLast    string // endpoint of the last response line
	// sawSDK: this file has SDK lines, so other text lines are its
	// application's own text, not broken JSON.
	sawSDK bool
	node   map[string]nodeChain
}

// nodeChain is, for a chain's first log ID, the chain and its latest attempt.
type nodeChain struct {
	root    string
	attempt int16
}

func newSDKText(p *Parser) *sdkText {
	return &sdkText{p: p, pyAttempt: map[string]int16{}, pyOp: map[string]int{}, pyFailed: map[string]int{}, pyPending: map[string]int{},
		node: map[string]nodeChain{}}
}

// noteJSON remembers the context a JSON line sets for the text lines after it.
func (t *sdkText) noteJSON(ev *ingest.Event) {
	if ev.TS != 0 {
		t.lastTS = ev.TS
	}
	if ev.JobID != "" || ev.CorrelationID != "" {
		t.lastJob.JobID, t.lastJob.JobType, t.lastJob.CorrelationID = ev.JobID, ev.JobType, ev.CorrelationID
	}
	if ev.Model != "" {
		t.lastJob.Model, t.lastJob.Provider = ev.Model, ev.Provider
	}
}

func (t *sdkText) base(line []byte) *ingest.Event {
	ev := &t.ev
	ev.Reset()
	ev.Kind = ingest.KindLLMCall
	ev.JobID, ev.JobType, ev.CorrelationID = t.lastJob.JobID, t.lastJob.JobType, t.lastJob.CorrelationID
	ev.Model, ev.Provider = t.lastJob.Model, t.lastJob.Provider
	ev.TS = t.lastTS
	if m := lineTime.FindSubmatch(line); m != nil {
		text := string(m[1]) + "T" + strings.Replace(string(m[2]), ",", ".", 1)
		zone := string(m[3])
		if zone == "" {
			zone = "Z" // no zone in the prefix: taken as UTC
		}
		if ts, err := time.Parse(time.RFC3339Nano, text+zone); err == nil {
			ev.TS = ts.UnixNano()
			t.lastTS = ev.TS
		}
	}
	return ev
}

// endpoint is a request path relative to the client's base URL, without
// its query: "/v1/chat/completions" and openai-python's retry line's
// "/chat/completions" are one endpoint, and so are Anthropic's "/v1/messages"
// in both lines. "" (a retry line that names no path) stays "".
func endpoint(path string) string {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if loc := apiPrefix.FindStringIndex(path); loc != nil {
		path = "/" + path[loc[1]:]
	}
	return strings.TrimSuffix(path, "/")
}

// pyKey names a Python operation: the job, the endpoint and its number.
func (t *sdkText) pyKey(job, endpoint string) string {
	return CleanField("sdk:" + job + ":" + endpoint + ":" + strconv.Itoa(t.pyOp[endpoint])) // the path is raw log text
}

func providerOf(host string) string {
	switch {
	case strings.Contains(host, "anthropic"):
		return "anthropic"
	case strings.Contains(host, "openai"):
		return "openai"
	}
	return ""
}

// decode returns how many events a text line gave; -1 for a recognized
// line that describes no attempt by itself.
func (t *sdkText) decode(line []byte, emit func(*ingest.Event)) int {
	if m := pyRetry.FindSubmatch(line); m != nil {
		t.sawSDK = true
		key := endpoint(string(m[1]))
		if key == "" {
			key = t.pyLast // "Retrying request in 0.4 seconds" names no path
		}
		if t.pyFailed[key] > 0 {
			// Announces the retry of a failed response already counted.
			t.pyFailed[key]--
			t.pyPending[key]++
			return -1
		}
		// No failed response came first: the attempt got none at all — a
		// connection error or a timeout, which httpx does not log. It is
		// the retry announced before, if one is unanswered, else the first
		// attempt of a new request.
		if t.pyPending[key] > 0 {
			t.pyPending[key]--
			t.pyAttempt[key]++
		} else {
			t.pySeq++
			t.pyOp[key], t.pyAttempt[key] = t.pySeq, 1
		}
		t.pyPending[key]++
		ev := t.base(line)
		ev.Status, ev.Attempt, ev.ErrorType = 0, t.pyAttempt[key], "connection_error"
		ev.IdempotencyKey = t.pyKey(ev.JobID, key)
		emit(ev)
		return 1
	}
	if m := pyHTTP.FindSubmatch(line); m != nil {
		t.sawSDK = true
		status, ok := atoi16(string(m[5]))
		if !ok {
			return 0
		}
		key := endpoint(string(m[4]))
		t.pyLast = key
		if t.pyPending[key] > 0 {
			t.pyPending[key]--
			t.pyAttempt[key]++
		} else {
			// A new request: failures of one the app gave up on (its
			// retries exhausted, no "Retrying" line after the last) are over.
			t.pySeq++
			t.pyOp[key], t.pyAttempt[key], t.pyFailed[key] = t.pySeq, 1, 0
		}
		if status == 408 || status == 409 || status == 429 || status >= 500 {
			t.pyFailed[key]++ // the SDK retries these; its "Retrying" line follows
		}
		ev := t.base(line)
		ev.Status, ev.Attempt = status, max(t.pyAttempt[key], 1)
		if p := providerOf(string(m[3])); p != "" && ev.Provider == "" {
			ev.Provider = p
		}
		ev.IdempotencyKey = t.pyKey(ev.JobID, key)
		emit(ev)
		return 1
	}
	if m := nodeLine.FindSubmatch(line); m != nil {
		t.sawSDK = true
		id := string(m[1])
		status, ok := atoi16(string(m[7]))
		if !ok {
			return 0
		}
		// retryOf names the chain's first request on every retry; count
		// attempts per chain root.
		ch := nodeChain{root: id, attempt: 1}
		if r := nodeRetryOf.FindSubmatch(m[2]); r != nil {
			root := string(r[1])
			if prev, ok := t.node[root]; ok {
				root = prev.root
			}
			last := t.node[root]
			if last.attempt == 0 {
				last.attempt = 1 // the first request's line was not in this file
			}
			ch = nodeChain{root: root, attempt: last.attempt + 1}
			t.node[root] = nodeChain{root: root, attempt: ch.attempt}
		}
		if ch.attempt == 1 {
			t.node[id] = ch
		}
		if len(t.node) > 100_000 {
			clear(t.node)
		}
		ev := t.base(line)
		latency, _ := strconv.Atoi(string(m[8]))
		ev.LatencyMs = int32(min(latency, 1<<31-1))
		ev.TS -= int64(latency) * 1e6 // logged when the response arrived
		ev.Status, ev.Attempt = status, ch.attempt
		if p := providerOf(string(m[4])); p != "" && ev.Provider == "" {
			ev.Provider = p
		}
		ev.IdempotencyKey = t.p.intern.get([]byte("sdk:" + ch.root))
		emit(ev)
		return 1
	}
	return 0
}
