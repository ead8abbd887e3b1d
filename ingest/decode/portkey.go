package decode

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// A Portkey gateway response as apps save it (Portkey's SDKs and their
// users log the whole response on an error): {status, headers, body,
// responseTime (ms), lastUsedOptionJsonPath}. It is one request through
// the gateway: the response's status, the provider in
// x-portkey-provider, the trace in x-portkey-trace-id (the job), the
// usage and model in the body when it succeeded. Portkey's retries are
// in x-portkey-retry-attempt-count — "the number of retry attempts made
// for the call", so n retries are attempt n+1 of the gateway's layer; -1
// means its retries are exhausted without saying how many it made (that
// depends on the config): the count is dropped, the response kept.
// A record of this shape without any x-portkey-* header is not Portkey's
// and is read as any other JSON record.

type portkeyResponse struct {
	Status       json.RawMessage `json:"status"`
	Headers      map[string]any  `json:"headers"`
	Body         json.RawMessage `json:"body"`
	ResponseTime json.RawMessage `json:"responseTime"`
}

type portkeyBody struct {
	Model string      `json:"model"`
	Usage *batchUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type portkeyDecoder struct {
	p  *Parser
	ev ingest.Event
}

func (d *portkeyDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var r portkeyResponse
	if s := decodeStrict(rec, &r); s != ingest.Accepted {
		return s
	}
	h := map[string]string{}
	portkey := false
	for k, v := range r.Headers {
		k = strings.ToLower(k)
		portkey = portkey || strings.HasPrefix(k, "x-portkey-")
		switch x := v.(type) {
		case string:
			h[k] = x
		case float64:
			h[k] = strconv.FormatFloat(x, 'f', -1, 64)
		}
	}
	if !portkey {
		return ingest.SkipNoEvent
	}
	ev := &d.ev
	ev.Reset()
	ev.Kind = ingest.KindLLMCall
	ev.Provider = LowerProvider(CleanField(h["x-portkey-provider"]))
	ev.JobID = CleanID(h["x-portkey-trace-id"])
	ev.CorrelationID = ev.JobID
	var status float64
	if json.Unmarshal(r.Status, &status) == nil && status >= 100 && status <= 599 {
		ev.Status = int16(status)
	} else if len(r.Status) > 0 {
		ev.Dropped |= ingest.DropStatusUnread
	}
	var ms float64
	if json.Unmarshal(r.ResponseTime, &ms) == nil && ms >= 0 && ms < 1<<31 {
		ev.LatencyMs = int32(ms)
	}
	if t, err := http.ParseTime(h["date"]); err == nil {
		// The response's time; the attempt began responseTime before it.
		ev.TS = max(0, unixNanoInRange(t)-int64(ev.LatencyMs)*1_000_000)
		d.p.lastTS = ev.TS
	} else {
		ev.TS, ev.TSCarried = d.p.lastTS, true
	}
	switch n, err := strconv.Atoi(strings.TrimSpace(h["x-portkey-retry-attempt-count"])); {
	case err != nil:
	case n >= 0:
		ev.Attempt, ev.AttemptBy = int16(min(n+1, 999)), ingest.AttemptByPortkey
	default:
		ev.Dropped |= ingest.DropWrongType // -1: retries exhausted, their number not said
	}
	if v, err := strconv.ParseFloat(h["retry-after"], 64); err == nil && v >= 0 {
		ev.RetryAfterMs = int64(min(v*1000, 1e12))
	}
	var b portkeyBody
	if len(r.Body) > 0 && r.Body[0] == '{' && json.Unmarshal(r.Body, &b) == nil {
		ev.Model = CleanField(b.Model)
		if b.Usage != nil && !b.Usage.apply(ev) {
			ev.Dropped |= ingest.DropWrongType
			ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens = 0, 0, 0, 0
		}
		if b.Error != nil {
			ev.ErrorType = CleanField(b.Error.Type)
		}
	}
	emit(ev)
	return ingest.Accepted
}
