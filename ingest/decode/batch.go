package decode

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Batch result files: one line per request, priced at batch rates. They
// carry no per-line time; OpenAI's has the response's creation time.

type batchUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *batchUsage) apply(ev *ingest.Event) bool {
	if u == nil {
		return true
	}
	if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.InputTokens < 0 || u.OutputTokens < 0 {
		return false
	}
	if u.PromptTokens > 0 || u.CompletionTokens > 0 { // OpenAI: prompt includes cached
		cached := int64(0)
		if u.PromptTokensDetails != nil {
			cached = u.PromptTokensDetails.CachedTokens
		}
		ev.SetInclusiveInput(u.PromptTokens, cached, 0)
		ev.OutputTokens = u.CompletionTokens
		return true
	}
	ev.InputTokens, ev.OutputTokens = u.InputTokens, u.OutputTokens
	ev.CacheReadTokens, ev.CacheCreateTokens = u.CacheReadTokens, u.CacheCreationTokens
	return true
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
