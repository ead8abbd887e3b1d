package decode

import (
	"bytes"
	"encoding/binary"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
)

// MaxLineBytes is the longest line accepted; longer lines are skipped whole.
const MaxLineBytes = 1 << 20

// maxFieldBytes bounds identifier fields so a hostile line cannot make one
// job ID the size of the line.
const maxFieldBytes = 512

// Parser turns one JSON line into an Event. It is not safe for concurrent
// use: each source owns one.
type Parser struct {
	sc     scanner
	intern interner
	ids    idArena // job IDs and keys (id)
	// lastTS carries the previous line's time to a line that has none, so a
	// billable call without a timestamp is kept rather than dropped.
	lastTS int64

	// recent holds the last value of each low-cardinality field: most lines
	// repeat it, and a byte comparison is cheaper than a map lookup.
	recent     [numRecent][recentWays]string
	recentNext [numRecent]uint8
	hour       hourCache
	// keys predicts each top-level key from the previous line (topObject).
	keys [maxKeyPredictions]keyPrediction

	// per-line scratch
	// msg and outcome are the line's message and outcome words (a
	// lifecycle line of the app's own: lifecycle.go), cut to
	// maxLifecycleBytes; reset by topObject.
	msg, outcome []byte
	ev           *ingest.Event
	bad          bool
	// numUnread: the last number() read no number (dropped, counted);
	// usageUnread: a token count of the line did not read — what its
	// usage prices is then a floor.
	numUnread, usageUnread bool
	emptyStr               bool // the last number() read "" (count drops it)
	evName                 []byte
	typeName               []byte
	respModel, reqModel    string
	inputIncludesCache     bool
	// compaction sums the usage.iterations[] of type "compaction" (their
	// tokens are not in the top-level counts), and iter is the element
	// being read: added once the record is read.
	compaction, iter  iterUsage
	httpDate          []byte
	lower             [48]byte
	errType, errInner string
	hasEv, hasType    bool
	hasDate           bool
	// announce: the line is an app's "calling model" — a model and a job,
	// nothing the answer gives (status, tokens, cost, latency, request ID,
	// error): the jsonl decoder pairs it with the job's next record.
	announce bool
	// ends: the line is a call record that also ends its job by its own
	// outcome field ({"outcome":"failed","status":529,"request_id":…}):
	// the jsonl decoder emits the job's end after the call (R8-1).
	ends ingest.Kind
	// summary: the line may be a job's summary, its end with the totals
	// of its calls (R8-37): the decoder decides by whether it read them.
	summary          ingest.Kind
	resetMs, resetAt int64 // rate-limit reset hints: a duration, an instant
	// routerRetries is a LiteLLM response's x-litellm-max-retries, -1
	// when the line has none.
	routerRetries int64
	statusCode    int16 // a status object's word, read (statusObjField)
	statusFailed  bool
	statusKnown   bool
	// drops are the fields of the line that could not be read as written
	// (ingest.FieldDrop), set on its event.
	drops ingest.FieldDrop
	// zone reads a time written without one; nil is UTC.
	zone *time.Location
}

const (
	recentJobType = iota
	recentProvider
	recentModel
	recentErrorType
	recentTool
	recentRunID
	numRecent
)

// recentWays is how many recent values strRecent remembers per field.
const recentWays = 8

// NewParser returns a parser with an empty intern table.
func NewParser() *Parser {
	return &Parser{intern: newInterner(minInternSlots)}
}

// NewParserFor is NewParser reading times without a zone in o.Zone.
func NewParserFor(o Options) *Parser {
	p := NewParser()
	p.zone = o.Zone
	return p
}

// prelude is every decoder's first look at a line: surrounding space
// trimmed, then a blank line, one over max bytes (0: no bound) or one with
// a NUL byte skipped for that reason, in that order, before any decoding.
func prelude(line []byte, max int) ([]byte, ingest.SkipReason) {
	// A line that starts and ends with a printable ASCII byte (a JSON
	// line's braces) has no space to trim, Unicode's included: their
	// encodings start at 0x80.
	if n := len(line); n == 0 || line[0] <= ' ' || line[0] >= 0x7f || line[n-1] <= ' ' || line[n-1] >= 0x7f {
		line = bytes.TrimSpace(line)
	}
	switch {
	case len(line) == 0:
		return line, ingest.SkipBlank
	case max > 0 && len(line) > max:
		return line, ingest.SkipTooLong
	case bytes.IndexByte(line, 0) >= 0:
		return line, ingest.SkipBinary
	}
	return line, ingest.Accepted
}

// ParseLine fills ev from line. It returns Accepted, or why the line was
// skipped; it never panics on any input.
func (p *Parser) ParseLine(line []byte, ev *ingest.Event) ingest.SkipReason {
	line, r := prelude(line, MaxLineBytes)
	if r != ingest.Accepted {
		return r
	}
	ev.Reset()
	p.ev, p.bad = ev, false
	p.evName, p.typeName, p.respModel, p.reqModel = p.evName[:0], p.typeName[:0], "", ""
	p.hasEv, p.hasType, p.announce, p.ends, p.summary = false, false, false, ingest.KindUnknown, ingest.KindUnknown
	p.inputIncludesCache, p.httpDate = false, p.httpDate[:0]
	p.compaction = iterUsage{}
	p.hasDate = false
	p.resetMs, p.resetAt = -1, 0
	p.routerRetries = -1
	p.drops = 0
	p.usageUnread = false
	sc := &p.sc
	sc.reset(line)
	sc.ws()
	if sc.peek() != '{' {
		sc.skip()
		sc.ws()
		p.ev = nil
		if sc.tooDeep {
			return ingest.SkipTooDeep
		}
		if sc.err || sc.i != len(sc.b) {
			return ingest.SkipInvalidJSON
		}
		return ingest.SkipNotObject
	}
	p.topObject()
	sc.ws()
	p.ev = nil
	if sc.tooDeep {
		return ingest.SkipTooDeep
	}
	if sc.err || sc.i != len(sc.b) {
		return ingest.SkipInvalidJSON
	}
	if p.bad {
		return ingest.SkipWrongType
	}
	return p.finish(ev)
}

func (p *Parser) finish(ev *ingest.Event) ingest.SkipReason {
	ev.Dropped = p.drops
	if p.usageUnread {
		ev.UsageUnseen = true
	}
	switch {
	case p.hasEv:
		ev.Kind = ingest.ParseKind(string(p.evName))
		if ev.Kind == ingest.KindUnknown {
			if len(p.msg) > 0 || !eventIsMessage(p.evName) {
				return ingest.SkipUnknownEvent
			}
			// structlog (Python) writes the message under "event":
			// "calling model", "job finished". A sentence is no event
			// name: the line is read by its shape, as any logger's.
			p.msg = append(p.msg[:0], p.evName[:min(len(p.evName), maxLifecycleBytes)]...)
		}
	case p.hasType && ingest.ParseKind(string(p.typeName)) != ingest.KindUnknown:
		// "type" is a common field for other things, so only a known value counts.
		ev.Kind = ingest.ParseKind(string(p.typeName))
	}
	if ev.Model == "" {
		if p.respModel != "" {
			ev.Model = p.respModel
		} else {
			ev.Model = p.reqModel
		}
	}
	if ev.Kind == ingest.KindUnknown {
		switch {
		case ev.Model != "":
			ev.Kind = ingest.KindLLMCall
			p.announce = ev.JobID != "" && ev.Status == ingest.StatusUnknown && ev.ResponseID == "" && ev.ErrorType == "" &&
				ev.InputTokens == 0 && ev.OutputTokens == 0 && ev.CacheReadTokens == 0 && ev.CacheCreateTokens == 0 &&
				!ev.HasCost && ev.LatencyMs == 0 && !ev.StreamDropped
		case ev.Tool != "":
			ev.Kind = ingest.KindToolCall
		case ev.InputTokens > 0 || ev.OutputTokens > 0 || ev.CacheReadTokens > 0 || ev.CacheCreateTokens > 0:
			// Token counts are a model call, whatever it forgot to name:
			// kept as an unpriced call of model "(unknown)", never dropped.
			ev.Kind = ingest.KindLLMCall
		case ev.JobID != "" && ev.ResponseID != "" && ev.Status != ingest.StatusUnknown:
			// The app's line on a call it made: the job, the provider's
			// request ID and the status it was answered — "model call
			// failed" names no model, and is still that call (issue 39).
			ev.Kind = ingest.KindLLMCall
		case ev.JobID != "" && lifecycleKind(p.msg, p.outcome) != ingest.KindUnknown:
			// The app's own "job finished" / "job failed" line, or its
			// outcome field (lifecycle.go).
			ev.Kind = lifecycleKind(p.msg, p.outcome)
		default:
			return ingest.SkipNoEvent
		}
	}
	if ev.Kind == ingest.KindLLMCall && ev.JobID != "" && ev.ResponseID == "" && ev.Status == ingest.StatusUnknown && ev.ErrorType == "" {
		// A line that says its job ended ("job finished", an outcome)
		// and carries a model and tokens but nothing of one call (no
		// request ID, no status): a job's summary with its totals when
		// the job's calls were read before it (R8-37), else the job's one
		// call and its end. The decoder, which knows, decides.
		// The message must speak of the job ("job finished"): an outcome
		// field alone is as often the call's own ("outcome":"success" on
		// every call line: 5 calls read for 30, red team R8b-3).
		if k := messageKind(p.msg); k == ingest.KindJobSucceeded || k == ingest.KindJobFailed || k == ingest.KindJobDeadLettered {
			if o := outcomeKind(p.outcome); o != ingest.KindUnknown {
				k = o
			}
			p.summary = k
		}
	}
	if ev.Kind == ingest.KindLLMCall && ev.JobID != "" && len(p.outcome) > 0 {
		// The call and the job's end in one line: an app that logs its
		// job's failure with the last call's status and request ID. The
		// call alone left the job "running" after a 529 (R8-1). Only the
		// outcome field says it: a message such as "model call failed"
		// speaks of the call.
		if k := outcomeKind(p.outcome); k != ingest.KindUnknown {
			p.ends = k
		}
	}
	if ev.TS == 0 {
		ev.TS, ev.TSCarried = p.lastTS, true
	} else {
		p.lastTS = ev.TS
	}
	if p.hasDate && ev.RetryAfterMs == ingest.NoRetryAfter {
		if t, err := http.ParseTime(string(p.httpDate)); err == nil && ev.TS != 0 {
			ev.RetryAfterMs = max(0, (t.UnixNano()-ev.TS)/1e6)
		}
	}
	// A 429 without Retry-After may still say when the limit resets; that
	// is the server's hint. (A reset on a 2xx is not a rate-limit signal.)
	if ev.RetryAfterMs == ingest.NoRetryAfter && ev.Status == 429 {
		switch {
		case p.resetMs >= 0:
			ev.RetryAfterMs = p.resetMs
		case p.resetAt > 0 && ev.TS > 0:
			ev.RetryAfterMs = max(0, (p.resetAt-ev.TS)/1e6)
		}
	}
	if p.inputIncludesCache {
		ev.SetInclusiveInput(ev.InputTokens, ev.CacheReadTokens, ev.CacheCreateTokens)
	}
	if c := p.compaction; c.compaction {
		ev.Bill |= ingest.BillCompaction
		ev.InputTokens, ev.OutputTokens = satAdd(ev.InputTokens, c.in), satAdd(ev.OutputTokens, c.out)
		ev.CacheReadTokens, ev.CacheCreateTokens = satAdd(ev.CacheReadTokens, c.cacheRead), satAdd(ev.CacheCreateTokens, c.cacheWrite)
	}
	if ev.Status == ingest.StatusUnknown && (ev.Kind == ingest.KindLLMCall || ev.Kind == ingest.KindToolCall) {
		// Output says the call was answered only where no status was
		// written: a status written and unread ("4xx", [429]) stays
		// unknown — apps log token counts on failures too (an estimate,
		// the request's echo), and a 429 read as a 200 hid a failure.
		ev.Status = StatusFromError(ev.ErrorType, ev.OutputTokens > 0 && p.drops&ingest.DropStatusUnread == 0)
	}
	return ingest.Accepted
}

// StatusFromError infers an HTTP status for attempts that logged only an
// error type (Anthropic's names, plus the common transport ones).
func StatusFromError(errType string, producedOutput bool) int16 {
	switch errType {
	case "":
		if producedOutput {
			return 200
		}
		return ingest.StatusUnknown
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
	return ingest.StatusUnknown
}

// Value kinds the field readers see at the scanner's position.
func (p *Parser) kind() byte {
	switch c := p.sc.peek(); {
	case c == '"':
		return 's'
	case c == '-' || ('0' <= c && c <= '9'):
		return '0'
	case c == 'n':
		return 'n'
	default:
		return c // '{', '[', 't', 'f', or garbage
	}
}

// topObject is scanner.object for the top level, with the keys predicted:
// a logger writes its fields in the same order on every line, so the raw
// bytes of the key at each position are compared with the last line's
// before the key is scanned and looked up. Only the raw bytes are
// compared, quotes included, so a match is exactly the same key.
func (p *Parser) topObject() {
	p.msg, p.outcome = p.msg[:0], p.outcome[:0]
	s := &p.sc
	s.i++ // '{', checked by the caller
	s.depth++
	s.ws()
	if s.peek() == '}' {
		s.i++
		s.depth--
		return
	}
	for n := 0; !s.err; n++ {
		s.ws()
		var f Field
		if pred := p.keyPred(n); pred != nil && pred.at(s.b, s.i) {
			// The key as the line before spelled it here, with the colon
			// right after it when it had one (most lines: no space).
			s.i += len(pred.raw)
			f = pred.field
			if !pred.colon && !s.colon() {
				return
			}
		} else {
			start := s.i
			key := s.str()
			if s.err {
				return
			}
			f = jsonFields[string(key)] // the spellings are in fields.go
			if pred != nil {
				pred.colon = s.peek() == ':'
				end := s.i
				if pred.colon {
					end++
				}
				pred.set(s.b[start:end], f)
			}
			if !s.colon() {
				return
			}
		}
		s.ws()
		p.topField(f)
		if s.err {
			return
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return
		default:
			s.fail()
		}
	}
}

// keyPrediction is the raw key (with its quotes) last seen at a position
// of the top-level object.
type keyPrediction struct {
	raw   []byte // with the colon after the key when colon
	field Field
	colon bool
	// A raw key of at most 16 bytes (most are) as two little-endian words
	// and the masks of its bytes in them: at compares two words.
	w, mask [2]uint64
}

// set makes raw, of field, the prediction.
func (k *keyPrediction) set(raw []byte, field Field) {
	k.raw, k.field = append(k.raw[:0], raw...), field
	k.w, k.mask = [2]uint64{}, [2]uint64{}
	if len(raw) > 16 {
		return
	}
	for j, c := range raw {
		k.w[j/8] |= uint64(c) << (8 * (j % 8))
		k.mask[j/8] |= 0xff << (8 * (j % 8))
	}
}

// at reports whether b holds the predicted raw key at i.
func (k *keyPrediction) at(b []byte, i int) bool {
	n := len(k.raw)
	if n == 0 || len(b)-i < n {
		return false
	}
	if n <= 16 && len(b)-i >= 16 {
		return binary.LittleEndian.Uint64(b[i:])&k.mask[0] == k.w[0] &&
			binary.LittleEndian.Uint64(b[i+8:])&k.mask[1] == k.w[1]
	}
	return string(b[i:i+n]) == string(k.raw)
}

const maxKeyPredictions = 48

func (p *Parser) keyPred(n int) *keyPrediction {
	if n < maxKeyPredictions {
		return &p.keys[n]
	}
	return nil
}

// topField reads one top-level field; the scanner is at its value.
func (p *Parser) topField(field Field) {
	ev := p.ev
	switch field {
	case FieldTS:
		ev.TS = p.timestamp()
	case FieldEvent:
		if p.kind() == 's' {
			p.evName, p.hasEv = append(p.evName[:0], p.sc.str()...), true
		} else {
			p.wrong()
		}
	case FieldType:
		if p.kind() == 's' {
			p.typeName, p.hasType = append(p.typeName[:0], p.sc.str()...), true
		} else {
			p.sc.skip() // "type" means other things in other loggers
		}
	case FieldJobID:
		ev.JobID = p.id()
	case FieldJobType:
		ev.JobType = p.strRecent(recentJobType)
	case FieldJob:
		p.job()
	case FieldRunID:
		ev.RunID = p.id() // a kill scope: its exact bytes, as job IDs (CleanID)
	case FieldCorrelationID:
		ev.CorrelationID = p.id()
	case FieldIdempotencyKey:
		ev.IdempotencyKey = p.id()
	case FieldAttempt:
		ev.Attempt, ev.AttemptBy = p.attempt(0), ingest.AttemptByLine
	case FieldRetryCount:
		ev.Attempt, ev.AttemptBy = p.attempt(1), ingest.AttemptByLine
	case FieldQueueAttempt:
		ev.QueueAttempt = p.queueAttempt(0)
	case FieldQueueAttemptsMade:
		ev.QueueAttempt = p.queueAttempt(1)
	case FieldProvider:
		ev.Provider = LowerProvider(p.strRecent(recentProvider))
	case FieldSystem:
		v := LowerProvider(p.strRecent(recentProvider))
		if ev.Provider == "" {
			ev.Provider = v
		}
	case FieldModel:
		ev.Model = p.strRecent(recentModel)
	case FieldResponseModel:
		p.respModel = p.strRecent(recentModel)
	case FieldRequestModel:
		p.reqModel = p.str()
	case FieldStatus:
		ev.Status = p.status()
	case FieldErrorType:
		ev.ErrorType = p.strRecent(recentErrorType)
	case FieldError:
		p.errorField()
	case FieldRetryAfter:
		ev.RetryAfterMs = p.seconds()
	case FieldRateLimitTokens:
		ev.RateLimitTokens = p.count()
	case FieldRateLimitRequests:
		ev.RateLimitRequests = p.count()
	case FieldHeaders:
		p.headers()
	case FieldUsage:
		p.usage()
	case FieldInputTokens:
		ev.InputTokens = p.count()
	case FieldInclusiveInputTokens:
		ev.InputTokens = p.count()
		p.inputIncludesCache = true
	case FieldOutputTokens:
		ev.OutputTokens = p.count()
	case FieldCacheReadTokens:
		ev.CacheReadTokens = p.count()
	case FieldCacheWriteTokens:
		ev.CacheCreateTokens = p.count()
	case FieldCost:
		if f, ok := p.number(); ok {
			if f < 0 {
				p.bad = true
				return
			}
			ev.CostUSD, ev.HasCost = f, true
		}
	case FieldLatency:
		if f, ok := p.number(); ok {
			ev.LatencyMs = int32(clamp(f, 0, math.MaxInt32))
		}
	case FieldMessage, FieldOutcome:
		// Words, read only to tell a lifecycle line: any other type (a
		// message object) is not this field's, and costs nothing.
		if p.kind() != 's' {
			p.sc.skip()
			break
		}
		dst := &p.msg
		if field == FieldOutcome {
			dst = &p.outcome
		}
		v := p.sc.str()
		*dst = append((*dst)[:0], v[:min(len(v), maxLifecycleBytes)]...)
	case FieldTool:
		ev.Tool = p.strRecent(recentTool)
	case FieldRequestID:
		if v := p.id(); ev.ResponseID == "" && providerRequestID(v) {
			ev.ResponseID = HTTPAttemptID(v)
		}
	case FieldServiceTier:
		p.serviceTier()
	case FieldStreamDropped:
		switch p.sc.peek() {
		case 't':
			p.sc.lit("true")
			ev.StreamDropped = true
		case 'f':
			p.sc.lit("false")
		case 'n':
			p.sc.lit("null")
		default:
			p.wrong()
		}
	default:
		p.sc.skip()
	}
}

// wrong consumes a value of the wrong type: that field is dropped and
// counted, the line kept (a field that cannot be read costs that field,
// never the record). A value of the right type that no real record holds
// (a negative count) still marks the line (p.bad).
func (p *Parser) wrong() {
	p.sc.skip()
	p.drops |= ingest.DropWrongType
}

func (p *Parser) job() {
	switch p.kind() {
	case 's':
		p.ev.JobID = p.id() // a plain "job" string is a job ID in some loggers
	case '{':
		p.sc.object(p.jobField)
	default:
		p.sc.skip()
	}
}

func (p *Parser) jobField(key []byte) {
	switch string(key) {
	case "id":
		p.ev.JobID = p.id()
	case "type":
		p.ev.JobType = p.strRecent(recentJobType)
	case "name":
		if v := p.strRecent(recentJobType); p.ev.JobType == "" {
			p.ev.JobType = v
		}
	default:
		p.sc.skip()
	}
}

// errorField reads "error" as a string, an object with a "type", or
// Anthropic's envelope {"type":"error","error":{"type":...}}.
func (p *Parser) errorField() {
	switch p.kind() {
	case 's':
		p.ev.ErrorType = p.strRecent(recentErrorType)
	case '{':
		p.errType, p.errInner = "", ""
		p.sc.object(p.errorObjField)
		if p.errInner != "" {
			p.ev.ErrorType = p.errInner
		} else if p.errType != "" {
			p.ev.ErrorType = p.errType
		}
	default:
		p.sc.skip()
	}
}

func (p *Parser) errorObjField(key []byte) {
	switch string(key) {
	case "type":
		if p.kind() == 's' {
			p.errType = p.strRecent(recentErrorType)
		} else {
			p.sc.skip()
		}
	case "error":
		if p.kind() == '{' {
			p.sc.object(p.errorInnerField)
		} else {
			p.sc.skip()
		}
	default:
		p.sc.skip()
	}
}

func (p *Parser) errorInnerField(key []byte) {
	if string(key) == "type" && p.kind() == 's' {
		p.errInner = p.strRecent(recentErrorType)
		return
	}
	p.sc.skip()
}

func (p *Parser) usage() {
	switch p.kind() {
	case '{':
		p.sc.object(p.usageField)
	case 'n':
		p.sc.lit("null")
	default:
		p.wrong()
	}
}

func (p *Parser) usageField(key []byte) {
	ev := p.ev
	switch string(key) {
	case "input_tokens":
		ev.InputTokens = p.count()
	case "prompt_tokens", "promptTokens", "inputTokens":
		// OpenAI's prompt tokens, and the camelCase an app or the Vercel
		// AI SDK writes them in, hold the cached ones (issue 39).
		ev.InputTokens = p.count()
		p.inputIncludesCache = true
	case "output_tokens", "completion_tokens", "completionTokens", "outputTokens":
		ev.OutputTokens = p.count()
	case "cache_read_input_tokens", "cachedTokens", "cachedInputTokens", "cached_tokens":
		ev.CacheReadTokens = p.count()
	case "cache_creation_input_tokens":
		ev.CacheCreateTokens = p.count()
	// Gemini's usageMetadata (REST camelCase, the Python SDK's
	// snake_case): the prompt includes the cached content; thinking is
	// billed as output and reported apart from the candidates, and the
	// tool-use prompt is billed as input — both were unbilled.
	case "promptTokenCount", "prompt_token_count":
		ev.InputTokens = satAdd(ev.InputTokens, p.count())
		p.inputIncludesCache = true
	case "toolUsePromptTokenCount", "tool_use_prompt_token_count":
		ev.InputTokens = satAdd(ev.InputTokens, p.count())
	case "candidatesTokenCount", "candidates_token_count", "thoughtsTokenCount", "thoughts_token_count":
		ev.OutputTokens = satAdd(ev.OutputTokens, p.count())
	case "cachedContentTokenCount", "cached_content_token_count":
		ev.CacheReadTokens = p.count()
	case "service_tier":
		// Anthropic's usage.service_tier says how the response was billed:
		// "batch" at batch rates, whatever the request asked for.
		p.serviceTier()
	case "speed":
		// Anthropic's usage.speed: "fast" is a multiple of the price.
		if p.word() == "fast" {
			ev.Bill |= ingest.BillFast
		}
	case "inference_geo":
		// Anthropic's usage.inference_geo: "us" is US-only inference.
		if p.word() == "us" {
			ev.Bill |= ingest.BillGeoUS
		}
	case "iterations":
		p.iterations()
	case "input_tokens_details":
		// The Responses API's input_tokens hold the cached ones, which
		// these details name: the input is then inclusive.
		p.inputIncludesCache = true
		fallthrough
	case "prompt_tokens_details", "promptTokensDetails":
		if p.kind() == '{' {
			p.sc.object(p.cachedField)
		} else {
			p.sc.skip()
		}
	default:
		p.sc.skip()
	}
}

func (p *Parser) cachedField(key []byte) {
	switch string(key) {
	case "cached_tokens", "cachedTokens":
		p.ev.CacheReadTokens = p.count()
	case "cache_write_tokens", "cache_creation_tokens":
		// OpenAI's cache writes (GPT-5.6 and later price them), in
		// input_tokens_details and prompt_tokens_details.
		p.ev.CacheCreateTokens = p.count()
	default:
		p.sc.skip()
	}
}

// word reads a short string value ("" for any other type, skipped and
// not counted: a dimension that cannot be read is billed as standard).
func (p *Parser) word() string {
	if p.kind() != 's' {
		p.sc.skip()
		return ""
	}
	b := p.sc.str()
	if len(b) > 16 {
		return ""
	}
	return string(b) // short: the compiler's switch on it does not allocate
}

// serviceTier reads a service tier as the response reports it: "batch"
// at batch rates, "flex" and "priority" at their own (ingest.ServiceTier).
func (p *Parser) serviceTier() {
	switch w := p.word(); w {
	case "batch":
		p.ev.Batch = true
	default:
		p.ev.Bill |= ingest.ServiceTier(w)
	}
}

// iterUsage is one usage.iterations[] element, or their sum.
type iterUsage struct {
	compaction                     bool
	in, out, cacheRead, cacheWrite int64
}

// iterations reads Anthropic's usage.iterations[]: the compaction
// iterations' tokens are billed and are not in the top-level counts
// (the message iterations are), so they are summed and added.
func (p *Parser) iterations() {
	if p.kind() != '[' {
		p.wrong()
		return
	}
	p.sc.each(func() {
		if p.sc.peek() != '{' {
			p.sc.skip()
			return
		}
		p.iter = iterUsage{}
		p.sc.object(p.iterField)
		if it := p.iter; it.compaction {
			c := &p.compaction
			c.compaction = true
			c.in, c.out = satAdd(c.in, it.in), satAdd(c.out, it.out)
			c.cacheRead, c.cacheWrite = satAdd(c.cacheRead, it.cacheRead), satAdd(c.cacheWrite, it.cacheWrite)
		}
	})
}

func (p *Parser) iterField(key []byte) {
	it := &p.iter
	switch string(key) {
	case "type":
		it.compaction = p.word() == "compaction"
	case "input_tokens":
		it.in = p.count()
	case "output_tokens":
		it.out = p.count()
	case "cache_read_input_tokens":
		it.cacheRead = p.count()
	case "cache_creation_input_tokens":
		it.cacheWrite = p.count()
	default:
		p.sc.skip()
	}
}

// headers reads captured HTTP headers; names are case-insensitive and
// values are often strings.
func (p *Parser) headers() {
	if p.kind() != '{' {
		p.sc.skip()
		return
	}
	p.sc.object(p.headerField)
}

func (p *Parser) headerField(k []byte) {
	ev := p.ev
	if len(k) > len(p.lower) {
		p.sc.skip()
		return
	}
	name := p.lower[:len(k)]
	for i, c := range k {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		name[i] = c
	}
	switch string(name) {
	case "x-stainless-retry-count":
		// The SDK's own count, sent with each request: the SDK's layer,
		// whoever logged the record.
		if a := p.attempt(1); ev.Attempt == 0 {
			ev.Attempt, ev.AttemptBy = a, ingest.AttemptBySDK
		}
	case "x-litellm-attempted-retries", "x-portkey-retry-attempt-count":
		// A gateway's retries, counted in its response: the attempt is the
		// gateway layer's (litellm-router, portkey-gateway), not the
		// client SDK's. LiteLLM: litellm/router_utils/add_retry_fallback_headers.py;
		// Portkey: its response schema ("the number of retry attempts made
		// for the call", the first not counted).
		f, ok := p.number()
		if !ok {
			return
		}
		if f == -1 && name[2] == 'p' {
			// Portkey's -1: its retries are exhausted, how many it made
			// is not said (it depends on the config). The count is
			// dropped, the record kept: it was read as a negative count
			// and the whole response lost.
			p.drops |= ingest.DropWrongType
			return
		}
		if f < 0 || int64(f)+1 < 1 {
			p.bad = true
			return
		}
		if a := int16(min(int64(f)+1, math.MaxInt16)); ev.Attempt == 0 {
			ev.Attempt, ev.AttemptBy = a, ingest.AttemptByPortkey
			if name[2] == 'l' {
				ev.AttemptBy = ingest.AttemptByLiteLLMRouter
			}
		}
	case "x-litellm-max-retries":
		// The Router's num_retries, sent beside x-litellm-attempted-retries
		// (add_retry_headers_to_response): what it is configured to do, an
		// observed litellm-router.numRetries.
		if f, ok := p.number(); ok {
			if !(f >= 0) { // negative or NaN
				p.bad = true
				return
			}
			p.routerRetries = int64(min(f, 1e6))
		}
	case "retry-after":
		if p.kind() == 's' {
			b := p.sc.str()
			if f, err := strconv.ParseFloat(string(b), 64); err == nil && f >= 0 {
				if ev.RetryAfterMs == ingest.NoRetryAfter {
					ev.RetryAfterMs = int64(clamp(f*1000, 0, 1e12))
				}
			} else {
				p.httpDate, p.hasDate = append(p.httpDate[:0], b...), true // resolved against the event time
			}
			return
		}
		if v := p.seconds(); ev.RetryAfterMs == ingest.NoRetryAfter {
			ev.RetryAfterMs = v
		}
	case "x-ratelimit-reset-requests", "x-ratelimit-reset-tokens":
		// OpenAI: Go-style durations ("8.64s", "6ms", "1m30s").
		if p.kind() == 's' {
			if d, err := time.ParseDuration(string(p.sc.str())); err == nil && d >= 0 {
				p.resetMs = max(p.resetMs, d.Milliseconds())
			}
			return
		}
		p.sc.skip()
	case "anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-reset",
		"anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-output-tokens-reset":
		// Anthropic: RFC 3339 times, resolved against the event time.
		if p.kind() == 's' {
			if ts, ok := parseTimeText(p.sc.str()); ok {
				p.resetAt = max(p.resetAt, ts)
			}
			return
		}
		p.sc.skip()
	case "retry-after-ms":
		if f, ok := p.number(); ok {
			ev.RetryAfterMs = int64(clamp(f, 0, math.MaxInt64/2))
		}
	case "anthropic-ratelimit-tokens-remaining", "x-ratelimit-remaining-tokens":
		ev.RateLimitTokens = p.count()
	case "anthropic-ratelimit-requests-remaining", "x-ratelimit-remaining-requests":
		ev.RateLimitRequests = p.count()
	case "idempotency-key", "x-idempotency-key":
		if v := p.id(); ev.IdempotencyKey == "" {
			ev.IdempotencyKey = v
		}
	case "request-id", "x-request-id":
		// The response's request ID, logged with its headers: the SDK's
		// line of the same attempt names it too.
		if v := p.id(); ev.ResponseID == "" && providerRequestID(v) {
			ev.ResponseID = HTTPAttemptID(v)
		}
	case "x-correlation-id":
		if v := p.id(); ev.CorrelationID == "" {
			ev.CorrelationID = v
		}
	default:
		p.sc.skip()
	}
}

// number reads a JSON number or a numeric string. Null is "absent";
// anything else marks the line as having a wrong type.
func (p *Parser) number() (float64, bool) {
	var b []byte
	switch p.kind() {
	case '0':
		if n, ok := p.sc.plainInt(); ok {
			return float64(n), true
		}
		if p.sc.nonFinite() { // -Infinity
			p.drops |= ingest.DropWrongType
			p.numUnread = true
			return 0, false
		}
		b = p.sc.num()
	case 's':
		b = p.sc.str()
		if len(b) == 0 {
			p.emptyStr = true
			return 0, false
		}
	case 'n':
		p.sc.lit("null")
		return 0, false
	default:
		p.wrong()
		p.numUnread = true
		return 0, false
	}
	if p.sc.err {
		return 0, false
	}
	if n, ok := smallInt(b); ok {
		return float64(n), true
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		// "n/a", "NaN", 1e999: the field says no number, so it is
		// dropped and counted; the call stays (its cost is then its
		// tokens' price, a count zero). It cost the whole call before.
		p.drops |= ingest.DropWrongType
		p.numUnread = true
		return 0, false
	}
	return f, true
}

// smallInt is the fast path for the plain integers most fields hold.
func smallInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func (p *Parser) count() int64 {
	p.numUnread, p.emptyStr = false, false
	f, ok := p.number()
	if !ok {
		if p.emptyStr {
			// "": no number either — dropped and counted, a floor, as
			// "n/a" is (the cache counts too: a $0.35 call read exact).
			p.drops |= ingest.DropWrongType
			p.numUnread = true
		}
		// NaN, "n/a", 1e999: the count is dropped, and the call's usage
		// is known only in part (R7b-3: priced exactly, a $0.35 call
		// read $0.10).
		p.usageUnread = p.usageUnread || p.numUnread
		return 0
	}
	if f < 0 {
		p.bad = true
		return 0
	}
	return int64(clamp(f, 0, 1e15))
}

// status reads an HTTP status: a number, a number in a string, or a
// word that says one ("OK", "success": 200). A value that says no number
// — an object ({"code":2,"message":…}, OTel's console exporter), a word
// such as "ERROR" or "failed" that names no status — is dropped and
// counted (ingest.DropStatusUnread): the record stays, of unknown status,
// and its error type, if it has none, says it failed.
func (p *Parser) status() int16 {
	switch p.kind() {
	case 's':
		b := p.sc.str()
		if n, ok := smallInt(b); ok && len(b) > 0 {
			if n > 999 {
				p.drops |= ingest.DropStatusUnread
				return ingest.StatusUnknown
			}
			return int16(n)
		}
		if n, ok := leadingStatus(b); ok {
			return n // "429 Too Many Requests", "HTTP/1.1 503"
		}
		code, failed, known := statusWord(b)
		switch {
		case code != 0:
			return code
		case failed:
			if p.ev.ErrorType == "" {
				p.ev.ErrorType = "error"
			}
			return ingest.StatusUnknown
		case len(b) == 0 || known:
			return ingest.StatusUnknown
		}
		p.drops |= ingest.DropStatusUnread
		return ingest.StatusUnknown
	case '{':
		// A span's status as the OTel Python console exporter writes it,
		// {"status_code":"ERROR","description":…}: its word is read. A
		// number in an object ({"code":2}: OTel's enum, or an HTTP
		// status?) says nothing for certain, and is dropped.
		p.statusCode, p.statusFailed, p.statusKnown = 0, false, false
		p.sc.object(p.statusObjField)
		switch {
		case p.statusCode != 0:
			return p.statusCode
		case p.statusFailed:
			if p.ev.ErrorType == "" {
				p.ev.ErrorType = "error"
			}
			return ingest.StatusUnknown
		case p.statusKnown:
			return ingest.StatusUnknown
		}
		p.drops |= ingest.DropStatusUnread
		return ingest.StatusUnknown
	case '[', 't', 'f':
		p.sc.skip()
		p.drops |= ingest.DropStatusUnread
		return ingest.StatusUnknown
	}
	f, ok := p.number()
	if !ok {
		return ingest.StatusUnknown
	}
	if f < 0 {
		p.bad = true
		return ingest.StatusUnknown
	}
	if f > 999 {
		// A number no HTTP status is (as a string of one): unread, the
		// call kept at an unknown status.
		p.drops |= ingest.DropStatusUnread
		return ingest.StatusUnknown
	}
	return int16(f)
}

func (p *Parser) statusObjField(key []byte) {
	k := string(key)
	if k != "status_code" && k != "code" && k != "status" && k != "http_status" {
		p.sc.skip()
		return
	}
	switch p.kind() {
	case 's':
		b := p.sc.str()
		if n, ok := leadingStatus(b); ok {
			p.statusCode = max(p.statusCode, n)
			return
		}
		code, failed, known := statusWord(b)
		p.statusCode, p.statusFailed, p.statusKnown = max(p.statusCode, code), p.statusFailed || failed, p.statusKnown || known
	case '0':
		// {"code":429}: a number an HTTP status can be. OTel's enum (0–2)
		// is none, and says nothing for certain.
		n, ok := p.sc.plainInt()
		if !ok {
			p.sc.skip()
		} else if n >= 100 && n <= 599 {
			p.statusCode = max(p.statusCode, int16(n))
		}
	default:
		p.sc.skip()
	}
}

// leadingStatus reads an HTTP status written with its reason phrase or
// after the protocol: "429 Too Many Requests", "HTTP/1.1 503", "503
// Service Unavailable". Three digits 100–599, then the end or a space.
func leadingStatus(b []byte) (int16, bool) {
	if len(b) > 5 && string(b[:5]) == "HTTP/" {
		i := 5
		for i < len(b) && b[i] != ' ' {
			i++
		}
		for i < len(b) && b[i] == ' ' {
			i++
		}
		b = b[i:]
	}
	if len(b) < 3 || (len(b) > 3 && b[3] != ' ') {
		return 0, false
	}
	n := 0
	for _, c := range b[:3] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n < 100 || n > 599 {
		return 0, false
	}
	return int16(n), true
}

// statusWord reads a status spelled as a word: code 200 for one that says
// the call succeeded, failed for one that says it did not (with no code:
// which error, the word does not say); known for any word it knows, such
// as OTel's UNSET (no status was set).
func statusWord(b []byte) (code int16, failed, known bool) {
	if len(b) > 24 {
		return 0, false, false
	}
	var low [24]byte
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(b)]) {
	case "ok", "success", "succeeded", "successful", "completed", "complete", "done", "status_code_ok":
		return 200, false, true
	case "error", "failed", "failure", "fail", "errored", "status_code_error":
		return 0, true, true
	case "unset", "status_code_unset":
		return 0, false, true
	}
	return 0, false, false
}

// attempt reads an attempt number; base is 1 for 0-based retry counts.
func (p *Parser) attempt(base int64) int16 {
	f, ok := p.number()
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

// queueAttempt reads a queue's attempt number: one that no queue writes
// (negative, zero, not a number) costs the field, counted, never the
// record — the call it rides on is still a call; a huge one is capped.
func (p *Parser) queueAttempt(base int64) int16 {
	was := p.bad
	f, ok := p.number()
	if p.bad && !was {
		// number() marks an unparseable string; the field alone is lost.
		p.bad = false
		p.drops |= ingest.DropWrongType
		return 0
	}
	if !ok {
		return 0
	}
	if f+float64(base) < 1 {
		p.drops |= ingest.DropWrongType
		return 0
	}
	return int16(min(f+float64(base), math.MaxInt16))
}

// seconds reads a duration in seconds and returns milliseconds.
func (p *Parser) seconds() int64 {
	f, ok := p.number()
	if !ok {
		return ingest.NoRetryAfter
	}
	if f < 0 {
		p.bad = true
		return ingest.NoRetryAfter
	}
	return int64(clamp(f*1000, 0, 1e12))
}

// timestamp reads RFC 3339 text or a Unix epoch number whose unit (s, ms,
// µs, ns) is told apart by magnitude.
//
// A time written without a zone ("2026-05-30T11:30:35", what Python's
// isoformat() writes) is read in the configured zone and counted
// (DropTimeNoZone); a time that does not read is dropped and counted
// (DropTimeUnread), and the record takes the time of the line before it.
func (p *Parser) timestamp() int64 {
	switch p.kind() {
	case 's':
		b := p.sc.str()
		if ts, ok := p.hour.rfc3339(b); ok {
			return ts
		}
		if ts, ok := fastRFC3339(b); ok {
			return ts
		}
		if t, err := time.Parse(time.RFC3339Nano, string(b)); err == nil {
			return unixNanoInRange(t)
		}
		if ts, ok := p.zoneless(b); ok {
			return ts
		}
		if ts, ok := parseEpoch(b); ok {
			return ts
		}
	case '0':
		if ts, ok := parseEpoch(p.sc.num()); ok {
			return ts
		}
	case 'n':
		p.sc.lit("null")
		return 0
	default:
		p.sc.skip()
	}
	p.drops |= ingest.DropTimeUnread
	return 0
}

// zonelessLayouts are the times written without a zone that loggers
// write: Python's isoformat() and its str(datetime), with or without a
// fraction (the .999999999 layouts also read none).
var zonelessLayouts = [...]string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"}

// zoneless reads a time without a zone in p.zone (UTC when none is set)
// and counts it.
func (p *Parser) zoneless(b []byte) (int64, bool) {
	if len(b) < 19 || len(b) > 29 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	loc := p.zone
	if loc == nil {
		loc = time.UTC
	}
	for _, l := range zonelessLayouts {
		if t, err := time.ParseInLocation(l, string(b), loc); err == nil {
			p.drops |= ingest.DropTimeNoZone
			return unixNanoInRange(t), true
		}
	}
	return 0, false
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
	if n > ingest.MaxTS/scale {
		return ingest.MaxTS, true // out_of_range, refused by Event.Check; n*scale would wrap
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
	case f*1e9 >= ingest.MaxTS && f < 1e11: // seconds past 2200: out_of_range
		return ingest.MaxTS, true
	case f < 1e11: // seconds
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
	if ts, ok := fastRFC3339(b); ok {
		return ts, true
	}
	s := string(b)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return unixNanoInRange(t), true
	}
	// Python's default str(datetime): space separator, no zone; taken as UTC.
	if t, err := time.Parse("2006-01-02 15:04:05.999999999", s); err == nil {
		return unixNanoInRange(t), true
	}
	return 0, false
}

// unixNanoInRange is t in Unix ns, or MaxTS (which Event.Check refuses as
// out_of_range) when t lies outside 1970–2200: UnixNano itself wraps past
// 2262, and a wrapped time would be taken as real.
func unixNanoInRange(t time.Time) int64 {
	if y := t.Year(); y < 1970 || y >= 2200 {
		return ingest.MaxTS
	}
	return t.UnixNano()
}

// hourCache remembers the hour of the last "2026-03-10T01:…Z" timestamp:
// a log's lines come minutes apart, so most share it, and only their
// minutes, seconds and fraction need reading.
type hourCache struct {
	key  [13]byte // "2026-03-10T01"
	base int64    // that hour's Unix ns; 0: empty
}

// rfc3339 is fastRFC3339 for a timestamp of the cached hour; for another
// hour it parses in full and caches that one.
func (c *hourCache) rfc3339(b []byte) (int64, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	if c.base == 0 || string(b[:13]) != string(c.key[:]) {
		ts, ok := fastRFC3339(b)
		if !ok || ts >= ingest.MaxTS { // out of range: marked, not cached
			return ts, ok
		}
		rest, ok := minutesIntoHour(b)
		if !ok {
			return 0, false // cannot be: fastRFC3339 read the same bytes
		}
		copy(c.key[:], b[:13])
		c.base = ts - rest
		return ts, true
	}
	rest, ok := minutesIntoHour(b)
	return c.base + rest, ok
}

// minutesIntoHour reads "MM:SS[.fraction]Z" at b[14:] as ns into the hour,
// as strictly as fastRFC3339 does.
func minutesIntoHour(b []byte) (int64, bool) {
	_ = b[19] // callers checked len(b) >= 20
	// A byte below '0' wraps past 9: one comparison a digit.
	m1, m2, s1, s2 := b[14]-'0', b[15]-'0', b[17]-'0', b[18]-'0'
	if m1 > 5 || m2 > 9 || s1 > 5 || s2 > 9 {
		return 0, false
	}
	ns, ok := fraction(b[19 : len(b)-1])
	return (int64(m1*10+m2)*60+int64(s1*10+s2))*1e9 + ns, ok
}

// fraction reads an RFC 3339 timestamp's optional ".123456789" as ns.
func fraction(rest []byte) (int64, bool) {
	if len(rest) == 0 {
		return 0, true
	}
	if rest[0] != '.' || len(rest) < 2 || len(rest) > 10 {
		return 0, false
	}
	if len(rest) == 4 { // milliseconds, as most loggers write
		d1, d2, d3 := rest[1]-'0', rest[2]-'0', rest[3]-'0'
		if d1 > 9 || d2 > 9 || d3 > 9 {
			return 0, false
		}
		return (int64(d1)*100 + int64(d2)*10 + int64(d3)) * 1e6, true
	}
	var ns int64
	scale := int64(1e8)
	for _, c := range rest[1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		ns += int64(c-'0') * scale
		scale /= 10
	}
	return ns, true
}

// fastRFC3339 handles the overwhelmingly common "2026-03-10T01:00:00.250Z"
// shape (UTC, optional fraction) without time.Parse.
func fastRFC3339(b []byte) (int64, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(lo, hi int) (int, bool) {
		n := 0
		for _, c := range b[lo:hi] {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	ns, ok := fraction(b[19 : len(b)-1])
	if !ok {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC)
	if t.Day() != d { // 2026-02-31 and the like
		return 0, false
	}
	return unixNanoInRange(t) + ns, true
}

// str reads a string (or a number, which some loggers use for IDs) and
// returns it sanitized and interned: for fields whose few values repeat.
func (p *Parser) str() string {
	b, ok := p.text()
	if !ok {
		return ""
	}
	return p.intern.get(b)
}

// id is str for identifiers (job IDs, keys): there are as many as there
// are jobs, so an intern table of them is a cache miss per lookup, and a
// copy — from a shared block (idArena) — costs less. Correlate keeps its
// own copy of each it keeps.
func (p *Parser) id() string {
	b, ok := p.rawTextAt(MaxIDBytes)
	if !ok || len(b) == 0 {
		return ""
	}
	return p.ids.get(b)
}

// text reads a string or number value and returns its bytes, capped and
// sanitized; ok is false for null or the wrong type.
func (p *Parser) text() ([]byte, bool) {
	b, ok := p.rawText()
	if ok && !isPlainText(b) {
		b = Sanitize(b)
	}
	return b, ok
}

// rawText is text for identifiers: capped, the bytes otherwise exact (see
// CleanID).
func (p *Parser) rawText() ([]byte, bool) { return p.rawTextAt(maxFieldBytes) }

// rawTextAt is rawText capped at limit bytes.
func (p *Parser) rawTextAt(limit int) ([]byte, bool) {
	var b []byte
	switch p.kind() {
	case 's':
		b = p.sc.str()
	case '0':
		b = p.sc.num()
	case 'n':
		p.sc.lit("null")
		return nil, false
	default:
		p.wrong()
		return nil, false
	}
	if p.sc.err {
		return nil, false
	}
	return capAt(b, limit), true
}

// capText caps a value at maxFieldBytes (see capID) and sanitizes it.
func capText(b []byte) []byte {
	b = capID(b)
	if !isPlainText(b) {
		return Sanitize(b)
	}
	return b
}

// strRecent is str for a field whose value is usually one of the last few
// lines' (a job type of seven, a model of three): a byte comparison with
// each is cheaper than the intern table.
func (p *Parser) strRecent(slot int) string {
	if p.kind() != 's' {
		return p.str()
	}
	b := p.sc.str()
	if p.sc.err {
		return ""
	}
	ways := &p.recent[slot]
	for _, v := range ways {
		// v is capped and sanitized: equal bytes are that same value.
		if len(v) == len(b) && v != "" && string(b) == v {
			return v
		}
	}
	v := p.intern.get(capText(b))
	ways[p.recentNext[slot]%recentWays] = v
	p.recentNext[slot]++
	return v
}

// isPlainText reports whether b needs no escaping (see Sanitize).
func isPlainText(b []byte) bool { return display.Safe(b) }

func clamp(f, lo, hi float64) float64 {
	if f < lo {
		return lo
	}
	if f > hi {
		return hi
	}
	return f
}

// eventIsMessage: an "event" value that is a logger's message, not an
// event name — it has a space ("calling model"); names never do.
func eventIsMessage(v []byte) bool {
	return bytes.IndexByte(v, ' ') > 0
}
