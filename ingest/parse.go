package ingest

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// MaxLineBytes is the longest line accepted; longer lines are skipped whole.
const MaxLineBytes = 1 << 20

// maxFieldBytes bounds identifier fields so a hostile line cannot make one
// job ID the size of the line.
const maxFieldBytes = 512

// Parser turns one JSON line into an Event. It is not safe for concurrent
// use: each source owns one.
type Parser struct {
	json   fastjson.Parser
	intern interner
	// lastTS carries the previous line's time to a line that has none, so a
	// billable call without a timestamp is kept rather than dropped.
	lastTS int64

	// recent holds the last value of each low-cardinality field: most lines
	// repeat it, and a byte comparison is cheaper than a map lookup.
	recent [numRecent]string

	// per-line scratch
	ev                  *Event
	bad                 bool
	evName              []byte
	typeName            []byte
	respModel, reqModel string
	inputIncludesCache  bool
	httpDate            []byte
	numBuf              []byte
}

const (
	recentJobType = iota
	recentProvider
	recentModel
	recentErrorType
	recentTool
	numRecent
)

// NewParser returns a parser with an empty intern table.
func NewParser() *Parser {
	return &Parser{intern: newInterner(1 << 16)}
}

// ParseLine fills ev from line. It returns Accepted, or why the line was
// skipped; it never panics on any input.
func (p *Parser) ParseLine(line []byte, ev *Event) SkipReason {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return SkipBlank
	}
	if len(line) > MaxLineBytes {
		return SkipTooLong
	}
	if bytes.IndexByte(line, 0) >= 0 {
		return SkipBinary
	}
	v, err := p.json.ParseBytes(line)
	if err != nil {
		return SkipInvalidJSON
	}
	obj, err := v.Object()
	if err != nil {
		return SkipNotObject
	}
	ev.Reset()
	p.ev, p.bad = ev, false
	p.evName, p.typeName, p.respModel, p.reqModel = nil, nil, "", ""
	p.inputIncludesCache, p.httpDate = false, nil
	obj.Visit(p.visitTop)
	p.ev = nil
	if p.bad {
		return SkipWrongType
	}
	return p.finish(ev)
}

func (p *Parser) finish(ev *Event) SkipReason {
	switch {
	case p.evName != nil:
		ev.Kind = ParseKind(string(p.evName))
		if ev.Kind == KindUnknown {
			return SkipUnknownEvent
		}
	case p.typeName != nil && ParseKind(string(p.typeName)) != KindUnknown:
		// "type" is a common field for other things, so only a known value counts.
		ev.Kind = ParseKind(string(p.typeName))
	}
	if ev.Model == "" {
		if p.respModel != "" {
			ev.Model = p.respModel
		} else {
			ev.Model = p.reqModel
		}
	}
	if ev.Kind == KindUnknown {
		switch {
		case ev.Model != "":
			ev.Kind = KindLLMCall
		case ev.Tool != "":
			ev.Kind = KindToolCall
		default:
			return SkipNoEvent
		}
	}
	if ev.TS == 0 {
		ev.TS = p.lastTS
	} else {
		p.lastTS = ev.TS
	}
	if p.httpDate != nil && ev.RetryAfterMs == NoRetryAfter {
		if t, err := http.ParseTime(string(p.httpDate)); err == nil && ev.TS != 0 {
			ev.RetryAfterMs = max(0, (t.UnixNano()-ev.TS)/1e6)
		}
	}
	if p.inputIncludesCache {
		// OpenAI's prompt_tokens and OTel's input_tokens include cached
		// tokens; billing them again at the input rate double-charges.
		ev.InputTokens = max(0, ev.InputTokens-ev.CacheReadTokens-ev.CacheCreateTokens)
	}
	if ev.Status == StatusUnknown && (ev.Kind == KindLLMCall || ev.Kind == KindToolCall) {
		ev.Status = statusFromError(ev.ErrorType, ev.OutputTokens > 0)
	}
	return Accepted
}

// statusFromError infers an HTTP status for attempts that logged only an
// error type (Anthropic's names, plus the common transport ones).
func statusFromError(errType string, producedOutput bool) int16 {
	switch errType {
	case "":
		if producedOutput {
			return 200
		}
		return StatusUnknown
	case "timeout", "connection_error", "APIConnectionError", "APITimeoutError", "ETIMEDOUT", "ECONNRESET":
		return 0
	case "overloaded_error":
		return 529
	case "rate_limit_error", "RateLimitError":
		return 429
	case "invalid_request_error", "BadRequestError":
		return 400
	case "authentication_error", "AuthenticationError":
		return 401
	case "permission_error", "PermissionDeniedError":
		return 403
	case "not_found_error", "NotFoundError":
		return 404
	case "request_too_large":
		return 413
	case "api_error", "InternalServerError":
		return 500
	}
	return StatusUnknown
}

func (p *Parser) visitTop(key []byte, v *fastjson.Value) {
	if p.bad {
		return
	}
	ev := p.ev
	switch string(key) {
	case "ts", "time", "timestamp", "@timestamp":
		ev.TS = p.timestamp(v)
	case "event":
		p.evName = p.rawString(v)
	case "type":
		if v.Type() == fastjson.TypeString {
			p.typeName, _ = v.StringBytes()
		}
	case "job_id", "jobId", "job.id":
		ev.JobID = p.str(v)
	case "job_type", "jobType", "job.type", "job_name":
		ev.JobType = p.strRecent(v, recentJobType)
	case "job":
		p.visitJob(v)
	case "correlation_id", "correlationId", "trace_id", "x-correlation-id":
		ev.CorrelationID = p.str(v)
	case "idempotency_key", "idempotencyKey", "idempotency-key", "x-idempotency-key":
		ev.IdempotencyKey = p.str(v)
	case "attempt", "attempt_number":
		ev.Attempt = p.attempt(v, 0)
	case "retry_count", "http.request.resend_count":
		ev.Attempt = p.attempt(v, 1)
	case "provider", "gen_ai.provider.name", "gen_ai.system":
		if ev.Provider == "" || string(key) == "provider" {
			ev.Provider = p.strRecent(v, recentProvider)
		}
	case "model":
		ev.Model = p.strRecent(v, recentModel)
	case "gen_ai.response.model":
		p.respModel = p.str(v)
	case "gen_ai.request.model":
		p.reqModel = p.str(v)
	case "status", "status_code", "http.response.status_code":
		ev.Status = p.status(v)
	case "error_type", "error.type":
		ev.ErrorType = p.strRecent(v, recentErrorType)
	case "error":
		p.visitError(v)
	case "retry_after_s", "retry_after":
		ev.RetryAfterMs = p.seconds(v)
	case "ratelimit_remaining_tokens":
		ev.RateLimitTokens = p.count(v)
	case "ratelimit_remaining_requests":
		ev.RateLimitRequests = p.count(v)
	case "headers":
		p.visitHeaders(v)
	case "usage":
		p.visitUsage(v)
	case "input_tokens":
		ev.InputTokens = p.count(v)
	case "prompt_tokens":
		ev.InputTokens = p.count(v)
		p.inputIncludesCache = true
	case "gen_ai.usage.input_tokens":
		ev.InputTokens = p.count(v)
		p.inputIncludesCache = true
	case "output_tokens", "completion_tokens", "gen_ai.usage.output_tokens":
		ev.OutputTokens = p.count(v)
	case "cache_read_tokens", "gen_ai.usage.cache_read.input_tokens":
		ev.CacheReadTokens = p.count(v)
	case "cache_creation_tokens", "gen_ai.usage.cache_creation.input_tokens":
		ev.CacheCreateTokens = p.count(v)
	case "cost_usd", "response_cost":
		if f, ok := p.number(v); ok {
			if f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				p.bad = true
				return
			}
			ev.CostUSD, ev.HasCost = f, true
		}
	case "latency_ms", "duration_ms":
		if f, ok := p.number(v); ok {
			ev.LatencyMs = int32(clamp(f, 0, math.MaxInt32))
		}
	case "tool", "endpoint":
		ev.Tool = p.strRecent(v, recentTool)
	case "stream_dropped":
		switch v.Type() {
		case fastjson.TypeTrue:
			ev.StreamDropped = true
		case fastjson.TypeFalse, fastjson.TypeNull:
		default:
			p.bad = true
		}
	}
}

func (p *Parser) visitJob(v *fastjson.Value) {
	o, err := v.Object()
	if err != nil {
		// A plain "job" string is a job ID in some loggers.
		if v.Type() == fastjson.TypeString {
			p.ev.JobID = p.str(v)
		}
		return
	}
	o.Visit(func(k []byte, v *fastjson.Value) {
		switch string(k) {
		case "id":
			p.ev.JobID = p.str(v)
		case "type", "name":
			if p.ev.JobType == "" || string(k) == "type" {
				p.ev.JobType = p.str(v)
			}
		}
	})
}

// visitError reads "error" as a string, an object with a "type", or
// Anthropic's envelope {"type":"error","error":{"type":...}}.
func (p *Parser) visitError(v *fastjson.Value) {
	switch v.Type() {
	case fastjson.TypeString:
		p.ev.ErrorType = p.str(v)
	case fastjson.TypeObject:
		if inner := v.Get("error"); inner != nil && inner.Type() == fastjson.TypeObject {
			v = inner
		}
		if t := v.Get("type"); t != nil {
			p.ev.ErrorType = p.str(t)
		}
	case fastjson.TypeNull:
	}
}

func (p *Parser) visitUsage(v *fastjson.Value) {
	o, err := v.Object()
	if err != nil {
		if v.Type() != fastjson.TypeNull {
			p.bad = true
		}
		return
	}
	ev := p.ev
	o.Visit(func(k []byte, v *fastjson.Value) {
		switch string(k) {
		case "input_tokens":
			ev.InputTokens = p.count(v)
		case "prompt_tokens":
			ev.InputTokens = p.count(v)
			p.inputIncludesCache = true
		case "output_tokens", "completion_tokens":
			ev.OutputTokens = p.count(v)
		case "cache_read_input_tokens":
			ev.CacheReadTokens = p.count(v)
		case "cache_creation_input_tokens":
			ev.CacheCreateTokens = p.count(v)
		case "prompt_tokens_details":
			if c := v.Get("cached_tokens"); c != nil {
				ev.CacheReadTokens = p.count(c)
			}
		}
	})
}

// visitHeaders reads captured HTTP headers; names are case-insensitive and
// values are often strings.
func (p *Parser) visitHeaders(v *fastjson.Value) {
	o, err := v.Object()
	if err != nil {
		return
	}
	ev := p.ev
	var lower [48]byte
	o.Visit(func(k []byte, v *fastjson.Value) {
		if len(k) > len(lower) {
			return
		}
		name := lower[:len(k)]
		for i, c := range k {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			name[i] = c
		}
		switch string(name) {
		case "x-stainless-retry-count", "x-litellm-attempted-retries", "x-portkey-retry-attempt-count":
			if ev.Attempt == 0 {
				ev.Attempt = p.attempt(v, 1)
			}
		case "retry-after":
			if v.Type() == fastjson.TypeString {
				b, _ := v.StringBytes()
				if _, err := strconv.ParseFloat(string(b), 64); err != nil {
					p.httpDate = b // an HTTP-date, resolved against the event time
					return
				}
			}
			if ev.RetryAfterMs == NoRetryAfter {
				ev.RetryAfterMs = p.seconds(v)
			}
		case "retry-after-ms":
			if f, ok := p.number(v); ok {
				ev.RetryAfterMs = int64(clamp(f, 0, math.MaxInt64/2))
			}
		case "anthropic-ratelimit-tokens-remaining", "x-ratelimit-remaining-tokens":
			ev.RateLimitTokens = p.count(v)
		case "anthropic-ratelimit-requests-remaining", "x-ratelimit-remaining-requests":
			ev.RateLimitRequests = p.count(v)
		case "idempotency-key", "x-idempotency-key":
			if ev.IdempotencyKey == "" {
				ev.IdempotencyKey = p.str(v)
			}
		case "x-correlation-id":
			if ev.CorrelationID == "" {
				ev.CorrelationID = p.str(v)
			}
		}
	})
}

// number reads a JSON number or a numeric string. Null is "absent";
// anything else marks the line as having a wrong type.
func (p *Parser) number(v *fastjson.Value) (float64, bool) {
	switch v.Type() {
	case fastjson.TypeNumber:
		f, err := v.Float64()
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			p.bad = true
			return 0, false
		}
		return f, true
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		if len(b) == 0 {
			return 0, false
		}
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			p.bad = true
			return 0, false
		}
		return f, true
	case fastjson.TypeNull:
		return 0, false
	}
	p.bad = true
	return 0, false
}

func (p *Parser) count(v *fastjson.Value) int64 {
	f, ok := p.number(v)
	if !ok {
		return 0
	}
	if f < 0 {
		p.bad = true
		return 0
	}
	return int64(clamp(f, 0, 1e15))
}

func (p *Parser) status(v *fastjson.Value) int16 {
	f, ok := p.number(v)
	if !ok {
		return StatusUnknown
	}
	if f < 0 || f > 999 {
		p.bad = true
		return StatusUnknown
	}
	return int16(f)
}

// attempt reads an attempt number; base is 1 for 0-based retry counts.
func (p *Parser) attempt(v *fastjson.Value, base int64) int16 {
	f, ok := p.number(v)
	if !ok {
		return 0
	}
	n := int64(f) + base
	if f < 0 || n < 1 {
		p.bad = true
		return 0
	}
	return int16(min(n, math.MaxInt16))
}

// seconds reads a duration in seconds and returns milliseconds.
func (p *Parser) seconds(v *fastjson.Value) int64 {
	f, ok := p.number(v)
	if !ok {
		return NoRetryAfter
	}
	if f < 0 {
		p.bad = true
		return NoRetryAfter
	}
	return int64(clamp(f*1000, 0, 1e12))
}

// timestamp reads RFC 3339 text or a Unix epoch number whose unit (s, ms,
// µs, ns) is told apart by magnitude.
func (p *Parser) timestamp(v *fastjson.Value) int64 {
	switch v.Type() {
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		if ts, ok := parseTimeText(b); ok {
			return ts
		}
		if ts, ok := parseEpoch(b); ok {
			return ts
		}
	case fastjson.TypeNumber:
		p.numBuf = v.MarshalTo(p.numBuf[:0])
		if ts, ok := parseEpoch(p.numBuf); ok {
			return ts
		}
	case fastjson.TypeNull:
		return 0
	}
	p.bad = true
	return 0
}

// parseEpoch reads a decimal Unix time exactly (a float64 would lose
// nanoseconds) and tells its unit by the magnitude of the integer part.
func parseEpoch(b []byte) (int64, bool) {
	intPart, frac, _ := bytes.Cut(b, []byte{'.'})
	n, err := strconv.ParseInt(string(intPart), 10, 64)
	if err != nil || n <= 0 {
		if f, err := strconv.ParseFloat(string(b), 64); err == nil { // 1.7e9 and friends
			return epochToNanos(f)
		}
		return 0, false
	}
	var scale int64
	switch {
	case n < 1e11:
		scale = 1e9
	case n < 1e14:
		scale = 1e6
	case n < 1e17:
		scale = 1e3
	case n < 9e18:
		scale = 1
	default:
		return 0, false
	}
	ns := n * scale
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		scale /= 10
		ns += int64(c-'0') * scale
	}
	return ns, true
}

func epochToNanos(f float64) (int64, bool) {
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0, false
	case f < 1e11: // seconds (until year 5138)
		return int64(f * 1e9), true
	case f < 1e14: // milliseconds
		return int64(f * 1e6), true
	case f < 1e17: // microseconds
		return int64(f * 1e3), true
	case f < 9e18: // nanoseconds
		return int64(f), true
	}
	return 0, false
}

func parseTimeText(b []byte) (int64, bool) {
	s := string(b)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixNano(), true
	}
	// Python's default str(datetime): space separator, no zone; taken as UTC.
	if t, err := time.Parse("2006-01-02 15:04:05.999999999", s); err == nil {
		return t.UnixNano(), true
	}
	return 0, false
}

// rawString returns a string field's bytes without interning; only for
// values compared on the spot.
func (p *Parser) rawString(v *fastjson.Value) []byte {
	b, err := v.StringBytes()
	if err != nil {
		p.bad = true
		return nil
	}
	return b
}

// str reads a string (or a number, which some loggers use for IDs) and
// returns it sanitized and interned.
func (p *Parser) str(v *fastjson.Value) string {
	var b []byte
	switch v.Type() {
	case fastjson.TypeString:
		b, _ = v.StringBytes()
	case fastjson.TypeNumber:
		b = v.MarshalTo(nil)
	case fastjson.TypeNull:
		return ""
	default:
		p.bad = true
		return ""
	}
	if len(b) > maxFieldBytes {
		b = b[:maxFieldBytes]
	}
	if !isPlainText(b) {
		return p.intern.get(Sanitize(b))
	}
	return p.intern.get(b)
}

// strRecent is str for a field that usually repeats the previous line's value.
func (p *Parser) strRecent(v *fastjson.Value, slot int) string {
	if v.Type() == fastjson.TypeString {
		b, _ := v.StringBytes()
		if last := p.recent[slot]; last != "" && string(b) == last {
			return last
		}
	}
	s := p.str(v)
	p.recent[slot] = s
	return s
}

// isPlainText reports whether b is valid UTF-8 without control characters,
// the common case that needs no copy.
func isPlainText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			if c >= 0x80 {
				return utf8.Valid(b) && !hasC1(b)
			}
			return false
		}
	}
	return true
}

func hasC1(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xC2 && b[i+1] >= 0x80 && b[i+1] <= 0x9F {
			return true
		}
	}
	return false
}

func clamp(f, lo, hi float64) float64 {
	if f < lo {
		return lo
	}
	if f > hi {
		return hi
	}
	return f
}
