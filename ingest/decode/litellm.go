package decode

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// liteLLMDecoder reads LiteLLM's StandardLoggingPayload (what its logging
// callbacks write, one object per call) and its SpendLogs rows.
type liteLLMDecoder struct {
	p  *Parser
	ev ingest.Event
}

type liteLLMLine struct {
	ID               string          `json:"id"`
	TraceID          string          `json:"trace_id"`
	Model            string          `json:"model"`
	Provider         string          `json:"custom_llm_provider"`
	ResponseCost     *float64        `json:"response_cost"`
	PromptTokens     *json.Number    `json:"prompt_tokens"`
	CompletionTokens *json.Number    `json:"completion_tokens"`
	Status           string          `json:"status"`
	StartTime        json.RawMessage `json:"startTime"`
	EndTime          json.RawMessage `json:"endTime"`
	Metadata         json.RawMessage `json:"metadata"` // an object, or (SpendLogs) a JSON string
	ErrorInformation *struct {
		ErrorCode  json.RawMessage `json:"error_code"`
		ErrorClass string          `json:"error_class"`
	} `json:"error_information"`
	HiddenParams *struct {
		AdditionalHeaders map[string]json.RawMessage `json:"additional_headers"`
	} `json:"hidden_params"`
	// SpendLogs rows
	RequestID string   `json:"request_id"`
	SessionID string   `json:"session_id"`
	Spend     *float64 `json:"spend"`
}

type liteLLMMeta struct {
	SpendLogsMetadata map[string]any `json:"spend_logs_metadata"`
	UsageObject       *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		CacheReadTokens     int64 `json:"cache_read_input_tokens"`
		CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage_object"`
	AttemptedRetries *int64 `json:"attempted_retries"`
	MaxRetries       *int64 `json:"max_retries"`
}

func (d *liteLLMDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	line, r := prelude(line, 0)
	if r != ingest.Accepted {
		return r
	}
	var l liteLLMLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&l); err != nil {
		if !json.Valid(line) {
			return ingest.SkipInvalidJSON
		}
		if line[0] != '{' {
			return ingest.SkipNotObject
		}
		return ingest.SkipWrongType
	}
	if l.Model == "" && l.ResponseCost == nil && l.Spend == nil {
		return ingest.SkipNoEvent
	}
	ev := &d.ev
	ev.Reset()
	ev.Kind = ingest.KindLLMCall
	ev.Model, ev.Provider = CleanField(l.Model), LowerProvider(CleanField(l.Provider))
	ev.CorrelationID = CleanID(l.TraceID)
	ev.IdempotencyKey = CleanID(first(l.RequestID, l.ID))
	// Spend: "spend" in SpendLogs, "response_cost" in the payload. Float
	// noise is rounded to the picodollar when summed.
	for _, c := range []*float64{l.Spend, l.ResponseCost} {
		if c != nil {
			if *c < 0 {
				return ingest.SkipWrongType
			}
			ev.CostUSD, ev.HasCost = *c, true
			break
		}
	}
	start, ok1 := liteLLMTime(l.StartTime)
	end, ok2 := liteLLMTime(l.EndTime)
	if !ok1 || !ok2 {
		return ingest.SkipWrongType
	}
	ev.TS = start
	if end > start {
		ev.LatencyMs = int32(min((end-start)/1e6, 1<<31-1))
	}
	var meta liteLLMMeta
	if len(l.Metadata) > 0 && l.Metadata[0] == '"' {
		var s string // SpendLogs keep metadata as a JSON string
		if json.Unmarshal(l.Metadata, &s) == nil {
			json.Unmarshal([]byte(s), &meta)
		}
	} else if len(l.Metadata) > 0 {
		json.Unmarshal(l.Metadata, &meta)
	}
	if v, ok := meta.SpendLogsMetadata["job_id"].(string); ok {
		ev.JobID = CleanID(v)
	}
	if v, ok := meta.SpendLogsMetadata["job_type"].(string); ok {
		ev.JobType = CleanField(v)
	}
	if ev.JobID == "" {
		ev.JobID = CleanID(l.SessionID)
	}
	// Tokens: OpenAI's meaning (prompt includes cached tokens).
	var prompt, cached, created int64
	if l.PromptTokens != nil {
		prompt, _ = l.PromptTokens.Int64()
	}
	if l.CompletionTokens != nil {
		ev.OutputTokens, _ = l.CompletionTokens.Int64()
	}
	if u := meta.UsageObject; u != nil {
		if prompt == 0 {
			prompt, ev.OutputTokens = u.PromptTokens, u.CompletionTokens
		}
		cached = u.CacheReadTokens
		if u.PromptTokensDetails != nil && cached == 0 {
			cached = u.PromptTokensDetails.CachedTokens
		}
		created = u.CacheCreationTokens
	}
	if prompt < 0 || ev.OutputTokens < 0 {
		return ingest.SkipWrongType
	}
	ev.SetInclusiveInput(prompt, cached, created)
	switch l.Status {
	case "success", "":
		ev.Status = 200
	default:
		ev.Status = ingest.StatusUnknown
		if e := l.ErrorInformation; e != nil {
			code := strings.Trim(string(e.ErrorCode), `"`)
			if s, ok := atoi16(code); ok {
				ev.Status = s
			} else {
				ev.Status = StatusFromError(e.ErrorClass, false)
			}
			ev.ErrorType = CleanField(e.ErrorClass)
		}
	}
	if h := l.HiddenParams; h != nil {
		liteLLMHeaders(ev, h.AdditionalHeaders)
	}
	// SpendLogs record the router's retries: attempts = attempted_retries + 1,
	// the earlier ones of unknown status.
	if r := meta.AttemptedRetries; r != nil && *r > 0 {
		final := *ev
		for a := int64(1); a <= min(*r, 1000); a++ {
			unk := final
			unk.Attempt = int16(a)
			unk.Status, unk.ErrorType = ingest.StatusUnknown, "status unknown (retried)"
			unk.InputTokens, unk.OutputTokens, unk.CacheReadTokens, unk.CacheCreateTokens = 0, 0, 0, 0
			unk.HasCost, unk.CostUSD, unk.LatencyMs = false, 0, 0
			emit(&unk)
		}
		final.Attempt = int16(min(*r+1, 1<<15-1))
		emit(&final)
		return ingest.Accepted
	}
	emit(ev)
	return ingest.Accepted
}

// liteLLMTime reads epoch floats or "2025-01-24 09:20:46.847371" (no
// zone: taken as UTC).
func liteLLMTime(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, true
	}
	s := strings.Trim(string(raw), `"`)
	if ts, ok := parseTimeText([]byte(s)); ok {
		return ts, true
	}
	ts, ok := parseEpoch([]byte(s))
	return ts, ok
}

// liteLLMHeaders reads provider headers LiteLLM passes on; it writes them
// with underscores (x_ratelimit_remaining_tokens).
func liteLLMHeaders(ev *ingest.Event, h map[string]json.RawMessage) {
	for k, raw := range h {
		name := strings.ReplaceAll(strings.ToLower(k), "_", "-")
		name = strings.TrimPrefix(name, "llm-provider-")
		v := strings.Trim(string(raw), `"`)
		f, err := strconv.ParseFloat(v, 64)
		switch name {
		case "retry-after":
			if err == nil && f >= 0 {
				ev.RetryAfterMs = int64(f * 1000)
			} else if ms := retryAfterDate(v, ev.TS); ms >= 0 {
				ev.RetryAfterMs = ms
			}
		case "retry-after-ms":
			if err == nil && f >= 0 {
				ev.RetryAfterMs = int64(f)
			}
		case "x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining":
			if err == nil && f >= 0 {
				ev.RateLimitTokens = int64(f)
			}
		case "x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining":
			if err == nil && f >= 0 {
				ev.RateLimitRequests = int64(f)
			}
		}
	}
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
