package decode

import (
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Continue (continuedev/continue) dev data: ~/.continue/dev_data/<schema
// version>/tokensGenerated.jsonl (CONTINUE_GLOBAL_DIR moves ~/.continue),
// one line per model call the extension made — chat, edit, apply,
// autocomplete — appended. The schema (packages/config-yaml/src/schemas/
// data/tokensGenerated): 0.1.0 {model, provider, promptTokens,
// generatedTokens}; 0.2.0 adds the base fields {eventName, schema,
// createdAt, userId, userAgent, selectedProfileId}.
//
// Every line is its own call: Continue writes no request ID, no session
// and no attempt, so two lines alike are two calls, never one retried (read
// as canonical JSON lines, a day's file was one call retried hundreds of
// times). promptTokens is Continue's count of the prompt (the provider's
// when it reported one); there are no cache fields. Continue's calls are a
// job per day (UTC) of createdAt, "continue:2026-03-01"; 0.1.0 lines carry
// no time and go to "continue".

type continueRecord struct {
	Model           string          `json:"model"`
	Provider        string          `json:"provider"`
	PromptTokens    json.RawMessage `json:"promptTokens"`
	GeneratedTokens json.RawMessage `json:"generatedTokens"`
	CreatedAt       string          `json:"createdAt"`
	EventName       string          `json:"eventName"`
}

type continueDecoder struct {
	p      *Parser
	ev     ingest.Event
	n      int64  // lines read: each its own call
	source string // the file: a line of another file is another call
}

func (d *continueDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var r continueRecord
	if skip := decodeRecord(rec, &r); skip != ingest.Accepted {
		return skip
	}
	if r.EventName != "" && r.EventName != "tokensGenerated" || len(r.PromptTokens)+len(r.GeneratedTokens) == 0 {
		return ingest.SkipNoEvent
	}
	d.n++
	ev := &d.ev
	agentCall(ev, "continue")
	setTSText(d.p, ev, r.CreatedAt)
	if !ev.TSCarried && len(r.CreatedAt) >= 10 {
		ev.JobID = CleanID("continue:" + r.CreatedAt[:10])
	}
	ev.JobType = "continue"
	ev.Model, ev.Provider = CleanField(r.Model), CleanField(r.Provider)
	ev.InputTokens = jsonCount(ev, r.PromptTokens)
	ev.OutputTokens = jsonCount(ev, r.GeneratedTokens)
	// Its own operation: the file's name, the line's digest and its
	// place, so that a second file (0.1.0 lines carry no time: two
	// files' lines can be alike byte for byte), or the same file read
	// again from a restart, never makes one line a retry of another.
	h := fnv.New64a()
	h.Write([]byte(d.source))
	h.Write([]byte{0})
	h.Write(rec)
	ev.IdempotencyKey = "continue:" + strconv.FormatUint(h.Sum64(), 16) + ":" + strconv.FormatInt(d.n, 10)
	emit(ev)
	return ingest.Accepted
}
