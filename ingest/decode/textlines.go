package decode

import (
	"bytes"
	"regexp"
	"strconv"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Text lines of the layers above the SDKs: LiteLLM's Router (its console
// and std-logging handlers, the proxy's log), and the retry warnings of
// retry libraries and agents (tenacity under LangChain and CrewAI, Claude
// Code's "API Error … Retrying in …").
var (
	// router.py: f"litellm.acompletion(model={model_name})\033[32m 200 OK\033[0m"
	//            f"litellm.acompletion(model={model_name})\033[31m Exception {str(e)}\033[0m"
	liteOutcome = regexp.MustCompile(`litellm\.([a-z_]+)\(model=([^)\s]*)\)\s*(200 OK|Exception (.*))`)
	// "litellm.RateLimitError: AnthropicException - {…}" → RateLimitError
	liteErrClass = regexp.MustCompile(`^(?:litellm\.)?([A-Za-z]+(?:Error|Exception|Timeout))\b`)
	// Anthropic's and OpenAI's error body inside a message: "type":"rate_limit_error" or 'type': 'api_error'
	bodyErrType = regexp.MustCompile(`["']type["']\s*:\s*["']([a-z_]+_error)["']`)
	statusInMsg = regexp.MustCompile(`(?:Error code|status_code|status code)[:=]? ?(\d{3})\b`)
	liteRetries = regexp.MustCompile(`Retrying request with num_retries: (\d+)`)

	// tenacity's before_sleep_log: "Retrying %s in %s seconds as it raised %s: %s." (or "as it returned %s.")
	tenacityLine = regexp.MustCompile(`Retrying (\S+) in (\d+(?:\.\d+)?) seconds as it (raised|returned) ([A-Za-z_][\w.]*)?`)
	// "Rate limit reached for gpt-4 in organization org-… on tokens per min"
	modelInLimit = regexp.MustCompile(`^['"]?([A-Za-z0-9][\w.:/@-]*)['"]? in (?:organization|project)`)

	// Claude Code's console: "⎿  API Error (529 {…}) · Retrying in 5 seconds… (attempt 4/10)",
	// "API Error (Connection error.) · Retrying in 34 seconds… (attempt 8/10)"
	agentRetry = regexp.MustCompile(`API Error \((?:(\d{3})\b)?\s*(.*?)\) · Retrying in (\d+(?:\.\d+)?) seconds?… \(attempt (\d+)/(\d+)\)`)
	// and its later console (2.1.x): "✻ 529 Overloaded · Retrying in 21s · attempt 7/10"
	agentRetryNew = regexp.MustCompile(`(?:^|[^\w])(?:(\d{3}) )?([A-Z][\w .']*?) · Retrying in (\d+(?:\.\d+)?)s · attempt (\d+)/(\d+)`)
)

// textLineKind names the format of the layers' lines, "" for none.
func textLineKind(line []byte) Format {
	switch {
	case bytes.Contains(line, []byte("(model=")) && liteOutcome.Match(line),
		bytes.Contains(line, []byte("LiteLLM Router")) && liteInfoKind(line) != 0:
		return FormatLiteLLMText
	case bytes.Contains(line, []byte(" seconds as it ")) && tenacityLine.Match(line),
		bytes.Contains(line, []byte("API Error (")) && agentRetry.Match(line),
		bytes.Contains(line, []byte(" · Retrying in ")) && agentRetryNew.Match(line):
		return FormatRetryText
	}
	return ""
}

// liteState follows LiteLLM Router operations. The router logs one line per
// deployment call (200 OK or Exception); after a failure it logs "Retrying
// request with num_retries: N" once and then tries up to N more times,
// each a line, or "Trying to fallback b/w models" and tries another model
// group: those lines are attempts of the same operation. A line logged
// twice, by two handlers (the console's and std logging's: the message the
// same, the prefix not), is one record.
type liteState struct {
	seq       int
	attempt   int16
	open      bool // the next outcome line continues the operation
	remaining int  // retries the router announced and has not yet used
	retrying  bool
	lastMsg   []byte // the last router line's message, after its prefix
	lastPre   []byte // and its prefix's shape (digits dropped)
	shape     []byte
	lastDup   bool // the last router line repeated the one before it
	lastTS    int64
}

// liteInfoKind: 'r' the router will retry, 'f' it falls back to another
// model group, 'i' another router line that is no attempt, 0 not one.
func liteInfoKind(line []byte) byte {
	switch {
	case bytes.Contains(line, []byte("Retrying request with num_retries")):
		return 'r'
	case bytes.Contains(line, []byte("Trying to fallback b/w models")), bytes.Contains(line, []byte("Falling back to model_group")):
		return 'f'
	case bytes.Contains(line, []byte("LiteLLM Router")):
		return 'i'
	}
	return 0
}

// liteDuplicate reports a router line that repeats the one before it
// through a second handler, and remembers this one.
func (t *sdkText) liteDuplicate(line []byte, msgAt int, ts int64) bool {
	l := &t.lite
	msg := line[msgAt:]
	shape := l.shape[:0]
	for _, c := range line[:msgAt] {
		if c < '0' || c > '9' { // the prefix's shape: its format, not its time
			shape = append(shape, c)
		}
	}
	l.shape = shape
	// Two handlers write each record once each, one after the other: a
	// line that repeats a repeat is a record of its own.
	dup := !l.lastDup && l.lastMsg != nil && bytes.Equal(msg, l.lastMsg) && !bytes.Equal(shape, l.lastPre) &&
		(ts == 0 || l.lastTS == 0 || abs64(ts-l.lastTS) <= 2e9)
	l.lastMsg = append(l.lastMsg[:0], msg...)
	l.lastPre = append(l.lastPre[:0], shape...)
	l.lastTS, l.lastDup = ts, dup
	return dup
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// liteMerge, with an httpx response held, reads a router outcome line that
// is that response's: the held attempt takes the router's model and error,
// and is emitted. ok false: the line is not one; the caller flushes.
func (t *sdkText) liteMerge(line []byte, emit func(*ingest.Event)) (int, bool) {
	if !bytes.Contains(line, []byte("(model=")) {
		return 0, false
	}
	loc := liteOutcome.FindSubmatchIndex(line)
	if loc == nil {
		return 0, false
	}
	m := submatches(line, loc)
	ev := &t.held
	t.hasHeld = false
	ts, _ := t.lineTS(line)
	t.liteDuplicate(line, loc[0], ts)
	if model := string(m[2]); model != "" && model != "None" {
		ev.Model = t.p.intern.get([]byte(CleanField(model)))
	}
	if len(m[4]) > 0 {
		cls, et, _ := liteError(m[4])
		ev.ErrorType = t.p.intern.get([]byte(CleanField(first(et, cls))))
	}
	t.liteAttempt(ev, len(m[4]) == 0)
	emit(ev)
	return 1, true
}

// liteAttempt numbers a router attempt and closes or keeps open its operation.
func (t *sdkText) liteAttempt(ev *ingest.Event, ok bool) {
	l := &t.lite
	if l.open && l.attempt < 1<<14 {
		l.attempt++
	} else {
		l.seq++
		l.attempt = 1
	}
	ev.Attempt = l.attempt
	ev.IdempotencyKey = t.p.intern.get([]byte(CleanField("litellm:" + ev.JobID + ":" + strconv.Itoa(l.seq))))
	switch {
	case ok:
		l.open, l.retrying = false, false
	case l.retrying:
		// One of the retries the router announced: the operation goes on
		// while some remain.
		l.remaining--
		l.open = l.remaining > 0
		l.retrying = l.open
	default:
		l.open = false // continues only if a retry or fallback line comes next
	}
}

// liteError reads a router exception: its class, the provider's error
// type in the body, and the status they mean.
func liteError(msg []byte) (class, errType string, status int16) {
	status = ingest.StatusUnknown
	if m := liteErrClass.FindSubmatch(msg); m != nil {
		class = string(m[1])
	}
	errType = bodyErrorType(msg)
	status = statusInMessage(msg)
	if status == ingest.StatusUnknown {
		status = liteStatus(class)
	}
	if status == ingest.StatusUnknown {
		status = StatusFromError(errType, false)
	}
	return class, errType, status
}

// liteStatus is the HTTP status LiteLLM's exception classes stand for
// (litellm/exceptions.py sets each class's status_code).
func liteStatus(class string) int16 {
	switch class {
	case "RateLimitError":
		return 429
	case "BadRequestError", "ContextWindowExceededError", "ContentPolicyViolationError", "UnsupportedParamsError", "InvalidRequestError":
		return 400
	case "AuthenticationError":
		return 401
	case "PermissionDeniedError":
		return 403
	case "NotFoundError":
		return 404
	case "Timeout", "APITimeoutError":
		return 408
	case "UnprocessableEntityError":
		return 422
	case "InternalServerError", "APIError":
		return 500
	case "BadGatewayError":
		return 502
	case "ServiceUnavailableError":
		return 503
	case "APIConnectionError":
		return 0
	}
	return ingest.StatusUnknown
}

// bodyErrorType is the provider's error type in a message's JSON body.
func bodyErrorType(msg []byte) string {
	if !bytes.Contains(msg, []byte("type")) {
		return ""
	}
	if m := bodyErrType.FindSubmatch(msg); m != nil {
		return string(m[1])
	}
	return ""
}

// statusInMessage is "Error code: 429" / "status_code=503" in a message.
func statusInMessage(msg []byte) int16 {
	if !bytes.Contains(msg, []byte("code")) {
		return ingest.StatusUnknown
	}
	if m := statusInMsg.FindSubmatch(msg); m != nil {
		if s, ok := atoi16(string(m[1])); ok {
			return s
		}
	}
	return ingest.StatusUnknown
}

func submatches(line []byte, loc []int) [][]byte {
	out := make([][]byte, len(loc)/2)
	for i := range out {
		if loc[2*i] >= 0 {
			out[i] = line[loc[2*i]:loc[2*i+1]]
		}
	}
	return out
}

// decodeOther reads the layers' lines (after the SDKs' own).
func (t *sdkText) decodeOther(line []byte, emit func(*ingest.Event)) int {
	if bytes.Contains(line, []byte("(model=")) {
		if loc := liteOutcome.FindSubmatchIndex(line); loc != nil {
			return t.liteLine(line, loc, emit)
		}
	}
	if bytes.Contains(line, []byte("LiteLLM")) {
		if k := liteInfoKind(line); k != 0 {
			t.sawSDK = true
			t.holdHTTP = true
			ts, _ := t.lineTS(line)
			if at := bytes.Index(line, []byte("LiteLLM Router")); at >= 0 && t.liteDuplicate(line, at+len("LiteLLM Router"), ts) {
				return -1
			}
			switch k {
			case 'r':
				if m := liteRetries.FindSubmatch(line); m != nil {
					n, _ := strconv.Atoi(string(m[1]))
					t.lite.remaining, t.lite.retrying, t.lite.open = min(n, 1000), true, n > 0
				}
			case 'f':
				t.lite.open = true
			}
			return -1
		}
	}
	if bytes.Contains(line, []byte(" seconds as it ")) {
		if loc := tenacityLine.FindSubmatchIndex(line); loc != nil {
			m := submatches(line, loc)
			// The message after the class: ": Rate limit reached …"
			m = append(m, bytes.TrimLeft(line[loc[1]:], ": "))
			return t.tenacity(line, m, emit)
		}
	}
	if bytes.Contains(line, []byte("API Error (")) {
		if m := agentRetry.FindSubmatch(line); m != nil {
			return t.agentRetryLine(line, m, emit)
		}
	}
	if bytes.Contains(line, []byte(" · Retrying in ")) {
		if m := agentRetryNew.FindSubmatch(line); m != nil {
			return t.agentRetryLine(line, m, emit)
		}
	}
	return 0
}

// liteLine is a router outcome line with no httpx response before it.
func (t *sdkText) liteLine(line []byte, loc []int, emit func(*ingest.Event)) int {
	t.sawSDK = true
	t.holdHTTP = true
	m := submatches(line, loc)
	ev := t.placed(t.base(line))
	if t.liteDuplicate(line, loc[0], ev.TS) {
		return -1
	}
	model := string(m[2])
	if model == "" || model == "None" {
		// No deployment was found for the model group: the router
		// failed before any call.
		return -1
	}
	ev.Model = t.p.intern.get([]byte(CleanField(model)))
	ev.Provider = ""
	if i := bytes.IndexByte(m[2], '/'); i > 0 {
		ev.Provider = t.p.intern.get([]byte(CleanField(LowerProvider(string(m[2][:i])))))
	}
	if len(m[4]) == 0 {
		ev.Status = 200
	} else {
		cls, et, st := liteError(m[4])
		ev.Status = st
		ev.ErrorType = t.p.intern.get([]byte(CleanField(first(et, cls))))
	}
	t.liteAttempt(ev, len(m[4]) == 0)
	emit(ev)
	return 1
}

// retryState follows retry warnings: tenacity does not number its
// attempts, so consecutive warnings of one function are one operation;
// Claude Code numbers them (attempt n/N), a smaller n starts a new one.
type retryState struct {
	fn      []byte
	seq     int
	attempt int16
	lastTS  int64
	waitMs  int64
}

// tenacity reads one "Retrying … as it raised …" warning: the attempt
// that raised, followed by the wait.
func (t *sdkText) tenacity(line []byte, m [][]byte, emit func(*ingest.Event)) int {
	t.sawSDK = true
	// Only the app's own retried function ("<unknown>", a bare name): a
	// framework's dotted one (LangChain's completion_with_retry) is a call
	// no JSON line records, whatever line it follows (R8b-5).
	if t.failedAt > 0 && t.failedAt == t.lines-1 && string(m[3]) == "raised" && !bytes.Contains(m[1], []byte(".")) { // t.lines counts this line too
		// Right after the app's record of a failed call: tenacity's
		// before_sleep line of that failure, already counted — the next
		// attempt is its own record (R8-6: 50 calls for the wire's 41,
		// "observed 8" for stop_after_attempt(4)).
		t.failedAt = 0
		return -1
	}
	ev := t.placed(t.base(line))
	r := &t.retry
	wait, _ := strconv.ParseFloat(string(m[2]), 64)
	// A new operation: another function, or (with times) a gap longer than
	// the last wait and two minutes for the call itself.
	gap := !ev.TSCarried && r.lastTS > 0 && ev.TS-r.lastTS > (r.waitMs+120_000)*1e6
	if !bytes.Equal(m[1], r.fn) || gap || r.attempt >= 1<<14 {
		r.seq++
		r.attempt = 0
		r.fn = append(r.fn[:0], m[1]...)
	}
	r.attempt++
	r.lastTS, r.waitMs = ev.TS, int64(min(max(wait, 0), 1e7)*1000)
	ev.Attempt = r.attempt
	class, msg := string(m[4]), m[5]
	if i := bytes.LastIndexByte([]byte(class), '.'); i >= 0 {
		class = class[i+1:]
	}
	if string(m[3]) == "returned" {
		class = "returned_result"
	}
	ev.Status = liteStatus(class)
	if ev.Status == ingest.StatusUnknown {
		ev.Status = StatusFromError(class, false)
	}
	if class == "ServiceUnavailableError" || bytes.Contains(msg, []byte("overloaded")) {
		ev.Status = max(ev.Status, 503)
	}
	if s := statusInMessage(msg); s != ingest.StatusUnknown {
		ev.Status = s
	}
	ev.ErrorType = t.p.intern.get([]byte(CleanField(class)))
	if i := bytes.Index(msg, []byte("limit reached for ")); i >= 0 {
		if mm := modelInLimit.FindSubmatch(msg[i+len("limit reached for "):]); mm != nil {
			ev.Model = t.p.intern.get([]byte(CleanField(string(mm[1]))))
		}
	}
	if bytes.Contains(m[1], []byte("openai")) || bytes.Contains(msg, []byte("platform.openai.com")) {
		ev.Provider = "openai"
	} else if bytes.Contains(m[1], []byte("anthropic")) {
		ev.Provider = "anthropic"
	}
	if ms, ok := retryHintMs(msg); ok && ev.Status == 429 {
		ev.RetryAfterMs = ms
	}
	ev.IdempotencyKey = t.p.intern.get([]byte(CleanField("retry:" + ev.JobID + ":" + string(m[1]) + ":" + strconv.Itoa(r.seq))))
	emit(ev)
	return 1
}

// agentRetryLine reads Claude Code's "API Error (…) · Retrying in Ns… (attempt n/N)":
// attempt n failed, and the next comes after the wait.
func (t *sdkText) agentRetryLine(line []byte, m [][]byte, emit func(*ingest.Event)) int {
	t.sawSDK = true
	ev := t.placed(t.base(line))
	r := &t.retry
	n, _ := strconv.Atoi(string(m[4]))
	if n <= 0 || n > 1<<14 {
		return 0
	}
	if int16(n) <= r.attempt || !bytes.Equal(r.fn, []byte("claude-code")) {
		r.seq++
		r.fn = append(r.fn[:0], "claude-code"...)
	}
	r.attempt = int16(n)
	ev.Attempt = r.attempt
	if ev.Provider == "" {
		ev.Provider = "anthropic"
	}
	msg := m[2]
	if s, ok := atoi16(string(m[1])); ok && len(m[1]) > 0 {
		ev.Status = s
		if et := bodyErrorType(msg); et != "" {
			ev.ErrorType = t.p.intern.get([]byte(et))
		} else if s == 529 {
			ev.ErrorType = "overloaded_error"
		}
	} else {
		// "Connection error.", "Request timed out.": no response.
		ev.Status, ev.ErrorType = 0, "connection_error"
		if bytes.Contains(bytes.ToLower(msg), []byte("timed out")) {
			ev.ErrorType = "timeout"
		}
	}
	ev.IdempotencyKey = t.p.intern.get([]byte(CleanField("retry:" + ev.JobID + ":claude-code:" + strconv.Itoa(r.seq))))
	emit(ev)
	return 1
}
