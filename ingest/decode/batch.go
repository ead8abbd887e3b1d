package decode

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Batch result files: one line per request, priced at batch rates. They
// carry no per-line time; OpenAI's has the response's creation time.

// tokenCount is a batch result's token count: a JSON number, or null
// (none). Anything else — a string ("n/a", ""), a number past int64 —
// failed the whole record's decoding, and the call was lost; it reads as
// unreadCount instead: the field dropped and counted, the call kept and
// its usage a floor (unpriced), as the JSON lines reader does (R7b-3).
type tokenCount int64

// unreadCount marks a count that did not read (never a real count: one
// below zero is refused as before).
const unreadCount = tokenCount(math.MinInt64)

func (t *tokenCount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*t = 0
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*t = tokenCount(n)
		return nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= -9e18 && f <= 9e18 {
		*t = tokenCount(f)
		return nil
	}
	*t = unreadCount
	return nil
}

// get is the count, and whether it read.
func (t tokenCount) get() (int64, bool) {
	if t == unreadCount {
		return 0, false
	}
	return int64(t), true
}

type batchUsage struct {
	PromptTokens        tokenCount `json:"prompt_tokens"`
	CompletionTokens    tokenCount `json:"completion_tokens"`
	InputTokens         tokenCount `json:"input_tokens"`
	OutputTokens        tokenCount `json:"output_tokens"`
	CacheReadTokens     tokenCount `json:"cache_read_input_tokens"`
	CacheCreationTokens tokenCount `json:"cache_creation_input_tokens"`
	PromptTokensDetails *struct {
		CachedTokens tokenCount `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// present: the usage names some tokens, or a count that did not read.
func (u *batchUsage) present() bool {
	if u == nil {
		return false
	}
	for _, c := range [...]tokenCount{u.PromptTokens, u.CompletionTokens, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens} {
		if c > 0 || c == unreadCount {
			return true
		}
	}
	return false
}

func (u *batchUsage) apply(ev *ingest.Event) bool {
	if u == nil {
		return true
	}
	read := true
	get := func(c tokenCount) int64 {
		n, ok := c.get()
		read = read && ok
		return n
	}
	prompt, completion, in, out := get(u.PromptTokens), get(u.CompletionTokens), get(u.InputTokens), get(u.OutputTokens)
	if prompt < 0 || completion < 0 || in < 0 || out < 0 {
		return false
	}
	cacheRead, cacheWrite := get(u.CacheReadTokens), get(u.CacheCreationTokens)
	cached := int64(0)
	if u.PromptTokensDetails != nil {
		cached = get(u.PromptTokensDetails.CachedTokens)
	}
	if !read {
		unreadBatchUsage(ev)
	}
	if prompt > 0 || completion > 0 || u.PromptTokens == unreadCount || u.CompletionTokens == unreadCount { // OpenAI: prompt includes cached
		ev.SetInclusiveInput(prompt, cached, 0)
		ev.OutputTokens = completion
		return true
	}
	ev.InputTokens, ev.OutputTokens = in, out
	ev.CacheReadTokens, ev.CacheCreateTokens = cacheRead, cacheWrite
	return true
}

// unreadBatchUsage marks a call whose usage has a count that did not read:
// dropped and counted, the call unpriced (its spend a floor).
func unreadBatchUsage(ev *ingest.Event) {
	ev.Dropped |= ingest.DropWrongType
	ev.UsageUnseen = true
}

func decodeStrict(line []byte, v any) ingest.SkipReason {
	line, r := prelude(line, 0)
	switch {
	case r != ingest.Accepted:
		return r
	case !json.Valid(line):
		return ingest.SkipInvalidJSON
	case line[0] != '{':
		return ingest.SkipNotObject
	}
	if json.Unmarshal(line, v) != nil {
		return ingest.SkipWrongType
	}
	return ingest.Accepted
}

type openAIBatchDecoder struct {
	p  *Parser
	ev ingest.Event
}

type openAIBatchLine struct {
	ID       string `json:"id"`
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int    `json:"status_code"`
		RequestID  string `json:"request_id"`
		Body       *struct {
			Model   string      `json:"model"`
			Created int64       `json:"created"`
			Usage   *batchUsage `json:"usage"`
			Error   *struct {
				Type string `json:"type"`
				Code string `json:"code"`
			} `json:"error"`
		} `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (d *openAIBatchDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var l openAIBatchLine
	if r := decodeStrict(line, &l); r != ingest.Accepted {
		return r
	}
	if l.CustomID == "" {
		return ingest.SkipNoEvent
	}
	ev := &d.ev
	ev.Reset()
	ev.Kind, ev.Batch, ev.Provider = ingest.KindLLMCall, true, "openai"
	ev.JobID, ev.IdempotencyKey = CleanID(l.CustomID), CleanID(l.CustomID)
	switch {
	case l.Response != nil:
		ev.Status = int16(min(max(l.Response.StatusCode, 0), 999))
		if b := l.Response.Body; b != nil {
			ev.Model = CleanField(b.Model)
			if b.Created > 0 {
				ev.TS = time.Unix(b.Created, 0).UnixNano()
			}
			if !b.Usage.apply(ev) {
				return ingest.SkipWrongType
			}
			if b.Error != nil {
				ev.ErrorType = CleanField(first(b.Error.Type, b.Error.Code))
			}
		}
	case l.Error != nil && notRun(l.Error.Code) != "":
		ev.Kind, ev.ErrorType = ingest.KindRequestNotRun, notRun(l.Error.Code)
	case l.Error != nil:
		ev.ErrorType = CleanField(l.Error.Code)
		ev.Status = StatusFromError(l.Error.Code, false)
	default:
		return ingest.SkipNoEvent
	}
	if ev.TS == 0 {
		ev.TS = d.p.lastTS
	} else {
		d.p.lastTS = ev.TS
	}
	emit(ev)
	return ingest.Accepted
}

type anthropicBatchDecoder struct {
	p  *Parser
	ev ingest.Event
}

type anthropicError struct {
	Type  string          `json:"type"`
	Error *anthropicError `json:"error"`
}

type anthropicBatchLine struct {
	CustomID string `json:"custom_id"`
	Result   *struct {
		Type    string `json:"type"`
		Message *struct {
			Model string      `json:"model"`
			Usage *batchUsage `json:"usage"`
		} `json:"message"`
		Error *anthropicError `json:"error"`
	} `json:"result"`
}

func (d *anthropicBatchDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var l anthropicBatchLine
	if r := decodeStrict(line, &l); r != ingest.Accepted {
		return r
	}
	if l.CustomID == "" || l.Result == nil {
		return ingest.SkipNoEvent
	}
	ev := &d.ev
	ev.Reset()
	ev.Kind, ev.Batch, ev.Provider = ingest.KindLLMCall, true, "anthropic"
	ev.JobID, ev.IdempotencyKey = CleanID(l.CustomID), CleanID(l.CustomID)
	ev.TS = d.p.lastTS
	switch l.Result.Type {
	case "succeeded":
		ev.Status = 200
		if m := l.Result.Message; m != nil {
			ev.Model = CleanField(m.Model)
			if !m.Usage.apply(ev) {
				return ingest.SkipWrongType
			}
		}
	case "errored":
		// The error is the full {"type":"error","error":{…}} envelope or flat.
		e := l.Result.Error
		if e != nil && e.Type == "error" && e.Error != nil {
			e = e.Error
		}
		if e != nil {
			ev.ErrorType = CleanField(e.Type)
		}
		ev.Status = StatusFromError(ev.ErrorType, false)
	case "canceled", "expired":
		ev.Kind, ev.ErrorType = ingest.KindRequestNotRun, l.Result.Type
	default:
		return ingest.SkipUnknownEvent
	}
	emit(ev)
	return ingest.Accepted
}

// notRun names an OpenAI batch error code for a request that never ran
// ("expired", "canceled"), "" for one that did.
func notRun(code string) string {
	switch code {
	case "batch_expired":
		return "expired"
	case "batch_cancelled", "batch_canceled":
		return "canceled"
	}
	return ""
}

// retryAfterDate reads an HTTP-date Retry-After relative to ts (ms, or -1).
func retryAfterDate(v string, ts int64) int64 {
	t, err := http.ParseTime(v)
	if err != nil || ts == 0 {
		return -1
	}
	return max(0, (t.UnixNano()-ts)/1e6)
}
