package decode

import (
	"encoding/json"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// OpenCode (sst/opencode, now anomalyco/opencode) writes a session two
// ways that a user keeps:
//
//   - its storage directory, ${XDG_DATA_HOME:-~/.local/share}/opencode/
//     storage (OpenCode before 1.2.0; since, its SQLite opencode.db holds
//     the same JSON in its rows, which ingest/file gives back their IDs
//     and hands to this decoder): message/<session>/msg_*.json is one
//     message each,
//     rewritten while it streams — an assistant message holds its
//     modelID, providerID, tokens {input, output, reasoning, cache{read,
//     write}, total?}, the cost OpenCode computed, time{created,
//     completed} and error{name, data{statusCode, message}} when the call
//     failed; session/<project>/ses_*.json (session/info/ in older
//     versions) is a session, its parentID naming the session that
//     started it (a subagent's task); part/<message>/prt_*.json are a
//     message's parts, of which a step-finish is its call again (the
//     same tokens: billed once) and a retry {attempt, error (APIError)}
//     is a request that failed and was sent again.
//   - `opencode run --format json`, one event a line {type, timestamp
//     (Unix ms), sessionID, …}: step_finish carries part{id, messageID,
//     type:"step-finish", reason, cost, tokens} — one model call per step,
//     and no model name (the stream never says which model it was) — and
//     error carries error{name, data}. The stream shows the session's own
//     steps only: a subagent's calls are not in it (opencode's run.ts
//     skips parts of other sessions); its storage has them.
//
// tokens.input is the prompt without the cache since OpenCode's getUsage
// fix for OpenRouter (it subtracts cache read and write unless the provider
// is Anthropic or Bedrock, whose SDKs already report it so); before it,
// OpenCode stored the SDK's inputTokens as given, which includes the cache
// for every provider but Anthropic's. The record says which it is where it
// can: total (written by the versions with the fix) equal to input +
// output (+ reasoning) + cache means input excludes the cache, equal to
// input + output (+ reasoning) means it includes it; a cache larger than
// input can only be outside it. Otherwise the provider decides: Anthropic,
// Bedrock and Vertex-Anthropic exclude, others include (the versions
// without total). The cost OpenCode recorded is kept beside ours (the
// producer's evidence), never zero (a subscription login records 0).
//
// A message is one call, named by its ID: read twice (the file rewritten,
// the same call in the run stream and the storage) it is billed once, at
// its largest usage. A session is a job; a subagent's session is folded
// into its parent's job once its session file names the parent.

type opencodeTokens struct {
	Input, Output, Reasoning, Total json.RawMessage
	Cache                           *opencodeCache
}

type opencodeCache struct{ Read, Write json.RawMessage }

type opencodeTime struct{ Created, Completed, Updated json.RawMessage }

type opencodeErrorData struct {
	StatusCode json.RawMessage `json:"statusCode"`
}

func (t *opencodeTokens) UnmarshalJSON(b []byte) error {
	type plain opencodeTokens
	var p plain
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &p) != nil {
		p = plain{} // not this shape: the field lost, never the record
	}
	*t = opencodeTokens(p)
	return nil
}

func (t *opencodeCache) UnmarshalJSON(b []byte) error {
	type plain opencodeCache
	var p plain
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &p) != nil {
		p = plain{} // not this shape: the field lost, never the record
	}
	*t = opencodeCache(p)
	return nil
}

func (t *opencodeTime) UnmarshalJSON(b []byte) error {
	type plain opencodeTime
	var p plain
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &p) != nil {
		p = plain{} // not this shape: the field lost, never the record
	}
	*t = opencodeTime(p)
	return nil
}

func (t *opencodeErrorData) UnmarshalJSON(b []byte) error {
	type plain opencodeErrorData
	var p plain
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &p) != nil {
		p = plain{} // not this shape: the field lost, never the record
	}
	*t = opencodeErrorData(p)
	return nil
}

func (t *opencodePart) UnmarshalJSON(b []byte) error {
	type plain opencodePart
	var p plain
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &p) != nil {
		p = plain{} // not this shape: the field lost, never the record
	}
	*t = opencodePart(p)
	return nil
}

type opencodeRecord struct {
	// A storage message (and a session, which has no role).
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Role       string          `json:"role"`
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Cost       json.RawMessage `json:"cost"`
	Tokens     *opencodeTokens `json:"tokens"`
	Time       *opencodeTime   `json:"time"`
	Error      *opencodeError  `json:"error"`
	ParentID   string          `json:"parentID"`
	Title      json.RawMessage `json:"title"`
	// A storage part (part/<message>/prt_*.json): its message, and a
	// retry's attempt.
	MessageID string          `json:"messageID"`
	Attempt   json.RawMessage `json:"attempt"`
	// A run --format json event (or a part's type).
	Type      string          `json:"type"`
	Timestamp json.RawMessage `json:"timestamp"`
	Part      *opencodePart   `json:"part"`
}

type opencodePart struct {
	ID        string          `json:"id"`
	MessageID string          `json:"messageID"`
	SessionID string          `json:"sessionID"`
	Type      string          `json:"type"`
	Cost      json.RawMessage `json:"cost"`
	Tokens    *opencodeTokens `json:"tokens"`
}

type opencodeError struct {
	Name string             `json:"name"`
	Data *opencodeErrorData `json:"data"`
}

// UnmarshalJSON reads an error of any shape: OpenCode's {name, data}, or
// anything else (an app's "error":"boom" in a line of the same keys) as an
// error without a name — the field, never the record.
func (e *opencodeError) UnmarshalJSON(b []byte) error {
	type plain opencodeError
	var p plain
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &p) != nil {
		*e = opencodeError{}
		return nil
	}
	*e = opencodeError(p)
	return nil
}

type opencodeDecoder struct {
	p     *Parser
	ev    ingest.Event
	steps map[string]int // run stream: steps seen per message (versions that made several calls in one message)
}

func newOpenCodeDecoder(p *Parser) *opencodeDecoder { return &opencodeDecoder{p: p} }

func (d *opencodeDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var r opencodeRecord
	if skip := decodeRecord(rec, &r); skip != ingest.Accepted {
		return skip
	}
	ev := &d.ev
	switch {
	case r.MessageID != "" && r.Type == "retry":
		// A storage part: OpenCode's retry of a failed request. The
		// request that failed is an attempt of the message's call.
		agentCall(ev, "opencode:"+r.SessionID)
		var created int64
		if r.Time != nil {
			created = jsonMillis(r.Time.Created)
		}
		setTSMillis(d.p, ev, created)
		d.failed(ev, r.Error)
		if n := jsonCount(ev, r.Attempt); n > 0 {
			ev.Attempt = int16(min(n, 999))
		}
		ev.IdempotencyKey = CleanID("opencode:" + r.MessageID)
		if r.ID != "" {
			// The part is one request: read again (from the storage
			// files and opencode.db both), it is not another attempt.
			ev.ResponseID = CleanID("opencode\x00" + r.ID)
		}
		emit(ev)
		return ingest.Accepted
	case r.MessageID != "" && r.Type == "step-finish" && r.Tokens != nil:
		// A storage part: the step of a message (the same call as the
		// message, billed once by its ID).
		r.Part = &opencodePart{ID: r.ID, MessageID: r.MessageID, SessionID: r.SessionID, Cost: r.Cost, Tokens: r.Tokens}
		r.Type = "step_finish"
		fallthrough
	case r.Part != nil && r.Type == "step_finish":
		if r.Part.Tokens == nil {
			return ingest.SkipNoEvent
		}
		session := r.SessionID
		if session == "" {
			session = r.Part.SessionID
		}
		agentCall(ev, "opencode:"+session)
		setTSMillis(d.p, ev, jsonMillis(r.Timestamp))
		d.tokens(ev, r.Part.Tokens, "")
		setProducerCost(ev, r.Part.Cost)
		if m := r.Part.MessageID; m != "" {
			// One step per message in the OpenCode of 2025–26: the step
			// and the stored message are one response. An older
			// OpenCode's second step of a message is another call.
			if d.steps == nil || len(d.steps) >= maxSeen {
				d.steps = map[string]int{}
			}
			d.steps[m]++
			id, key := "opencode\x00"+m, "opencode:"+m
			if n := d.steps[m]; n > 1 {
				id, key = id+"\x00"+r.Part.ID, key+":"+r.Part.ID
			}
			ev.ResponseID, ev.IdempotencyKey = CleanID(id), CleanID(key)
		}
		emit(ev)
		return ingest.Accepted
	case r.Type == "error" && r.SessionID != "" && r.Role == "":
		// The session's error: the failed request made no step. A
		// status is said when the error carries one (APIError).
		agentCall(ev, "opencode:"+r.SessionID)
		setTSMillis(d.p, ev, jsonMillis(r.Timestamp))
		var e struct {
			Error *opencodeError `json:"error"`
		}
		json.Unmarshal(rec, &e)
		d.failed(ev, e.Error)
		emit(ev)
		return ingest.Accepted
	case r.Type != "":
		return ingest.SkipInfo // step_start, text, reasoning, tool_use, done; other parts
	case r.Role == "assistant":
		if r.Tokens == nil && r.Error == nil {
			return ingest.SkipInfo
		}
		agentCall(ev, "opencode:"+r.SessionID)
		ev.Model, ev.Provider = CleanField(r.ModelID), CleanField(r.ProviderID)
		var created int64
		if r.Time != nil {
			created = jsonMillis(r.Time.Created)
		}
		setTSMillis(d.p, ev, created)
		if r.Tokens != nil {
			d.tokens(ev, r.Tokens, r.ProviderID)
		}
		setProducerCost(ev, r.Cost)
		if r.Error != nil && r.Error.Name != "MessageAbortedError" {
			d.failed(ev, r.Error)
		}
		if r.ID != "" {
			ev.ResponseID = CleanID("opencode\x00" + r.ID)
			ev.IdempotencyKey = CleanID("opencode:" + r.ID)
		}
		if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 && ev.Status == 200 {
			return ingest.SkipInfo // a message still streaming: its usage comes with the rewrite
		}
		emit(ev)
		return ingest.Accepted
	case r.Role != "":
		return ingest.SkipInfo // the user's messages
	case strings.HasPrefix(string(r.ID), "ses") && len(r.Title) > 0:
		// A session: a subagent's names its parent, whose job it bills.
		if r.ParentID == "" || r.ParentID == r.ID {
			return ingest.SkipInfo
		}
		ev.Reset()
		ev.Kind = ingest.KindTraceJob
		ev.CorrelationID = CleanID("opencode:" + r.ID)
		ev.JobID = CleanID("opencode:" + r.ParentID)
		// At the session's last update: inputs are merged in time order,
		// and the fold must come after the calls it moves (a move
		// before them finds no job and moves nothing).
		var updated int64
		if r.Time != nil {
			updated = max(jsonMillis(r.Time.Updated), jsonMillis(r.Time.Created))
		}
		setTSMillis(d.p, ev, updated)
		emit(ev)
		return ingest.Accepted
	}
	return ingest.SkipNoEvent
}

// failed marks a call that failed, with its status when the error has one.
func (d *opencodeDecoder) failed(ev *ingest.Event, e *opencodeError) {
	ev.Status = ingest.StatusUnknown
	if e == nil {
		ev.ErrorType = "error"
		return
	}
	ev.ErrorType = CleanField(e.Name)
	if e.Data != nil {
		var s int64
		if json.Unmarshal(e.Data.StatusCode, &s) == nil && s >= 100 && s <= 599 {
			ev.Status = int16(s)
		}
	}
}

// tokens reads OpenCode's tokens, deciding from the record whether input
// holds the cache (see the file comment).
func (d *opencodeDecoder) tokens(ev *ingest.Event, t *opencodeTokens, provider string) {
	in, out, reasoning := jsonCount(ev, t.Input), jsonCount(ev, t.Output), jsonCount(ev, t.Reasoning)
	var read, write int64
	if t.Cache != nil {
		read, write = jsonCount(ev, t.Cache.Read), jsonCount(ev, t.Cache.Write)
	}
	total := jsonCount(ev, t.Total)
	cache := read + write
	// reasoning is output OpenCode reports apart: outside output where
	// the SDK counts it apart (Gemini's thoughts), inside it where the
	// provider's output already holds it (OpenAI's output_tokens). total,
	// where written, says which; without it OpenCode's own cost adds it.
	inclusive, inside := false, false
	switch {
	case total > 0 && total == in+out+cache:
		inside = reasoning > 0
	case total > 0 && total == in+out+reasoning+cache:
	case total > 0 && cache > 0 && total == in+out:
		inclusive, inside = true, reasoning > 0
	case total > 0 && cache > 0 && total == in+out+reasoning:
		inclusive = true
	case cache == 0, cache > in, total > 0:
		// No cache, a cache larger than the input (it cannot be inside
		// it), or a total that adds up neither way (written only by the
		// versions that exclude the cache).
	default:
		inclusive = !opencodeExcludesCache(provider)
	}
	if inclusive {
		ev.SetInclusiveInput(in, read, write)
	} else {
		ev.InputTokens, ev.CacheReadTokens, ev.CacheCreateTokens = in, read, write
	}
	ev.OutputTokens = out
	if !inside {
		ev.OutputTokens = satAdd(out, reasoning) // billed as output
	}
}

// opencodeExcludesCache: the providers whose SDK reports input without
// the cache (OpenCode's getUsage: metadata anthropic or bedrock).
func opencodeExcludesCache(provider string) bool {
	switch provider {
	case "anthropic", "amazon-bedrock", "google-vertex-anthropic":
		return true
	}
	return false
}
