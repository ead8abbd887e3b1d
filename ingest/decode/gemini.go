package decode

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Gemini CLI chat sessions: ~/.gemini/tmp/<project-hash>/chats/ (gemini-cli's
// ChatRecordingService, packages/core/src/services/chatRecordingService.ts).
// Two forms:
//
//   - session-*.json, the older one: one JSON document per session,
//     {sessionId, projectHash, startTime, lastUpdated, messages:[…]},
//     rewritten whole on every message;
//   - session-*.jsonl, since gemini-cli f744913 (April 2026), append-only
//     lines: the metadata first ({sessionId, projectHash, startTime,
//     lastUpdated, kind}), then every message written again whenever it
//     changes (first with tokens:null, again with its tokens, again with
//     each tool call), {"$set":{…}} metadata updates (lastUpdated, and now
//     and then the whole messages list) and {"$rewindTo":id} when the user
//     rewinds (/rewind). Subagents write <sessionId>.jsonl under
//     chats/<parent session>/. A resumed legacy .json is copied, message
//     by message, into a .jsonl of the same name beside it.
//
// Each "gemini" message is one model response with its model and
// tokens{input, output, cached, thoughts, tool, total}: input includes
// cached (Gemini's promptTokenCount), thoughts are billed as output, tool
// is the tool-use prompt (billed as input, outside input), and total =
// input + output + thoughts + tool. A message is billed once, at the
// largest usage any of its copies gave: in one file by this decoder, and
// across files — the .json and its resumed .jsonl copy — by the response
// ID (the message ID, a UUID) in correlate.
//
// A rewind removes messages from the conversation Gemini shows and resumes,
// not from the bill: the calls were made and paid for, so rewound
// messages stay counted (gemini-cli's loader drops them; this is a bill,
// not a transcript). The logs.json beside the chats is a prompt log
// ({sessionId, messageId, type:"user", message}): no model call, and
// said so.

type geminiRecord struct {
	geminiMessage // a message line of a .jsonl (id, type, tokens, …)

	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	Messages    []geminiMessage `json:"messages"` // the whole session, in a .json
	// MessageID (a number) and Message (a string) beside the session
	// mark a logs.json record (a prompt, not a session): gemini-cli's
	// Logger LogEntry {sessionId, messageId, timestamp, type, message}.
	MessageID json.RawMessage `json:"messageId"`
	Message   json.RawMessage `json:"message"`
	Set       *struct {
		SessionID   string          `json:"sessionId"`
		ProjectHash string          `json:"projectHash"`
		Messages    []geminiMessage `json:"messages"` // a checkpoint: the list as it now stands
	} `json:"$set"`
	RewindTo *string `json:"$rewindTo"`
}

type geminiMessage struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Model     string `json:"model"`
	Tokens    *struct {
		Input, Output, Cached, Thoughts, Tool int64
	} `json:"tokens"`
}

// geminiCounted is what one message has been billed: input (tool prompt
// included), cached input, output (thoughts included).
type geminiCounted struct{ in, cached, out int64 }

type geminiDecoder struct {
	p  *Parser
	ev ingest.Event

	session, project string
	fileSession      string                       // from the file name: for a follower that skipped the metadata line
	parent           string                       // a subagent's: the session whose chats/<parent>/ holds its file
	seen             map[claudeKey]*geminiCounted // by a digest of the message ID: the same memory whatever its length
	prompts          int64                        // logs.json records seen: prompts, no usage
	rewinds          int64
}

func newGeminiDecoder(p *Parser, source string) *geminiDecoder {
	d := &geminiDecoder{p: p}
	if source != "" && source != "-" {
		// A subagent's file is <sessionId>.jsonl; a main session's
		// session-<stamp>-<first 8 of the ID>.jsonl names only a prefix,
		// kept whole so that it cannot pass for another session's ID.
		name := filepath.Base(source)
		d.fileSession = strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
		// chats/<parent session ID>/<session ID>.jsonl is a subagent's
		// (gemini-cli nests them under the complete parent ID): its calls
		// are the parent session's job, as Claude Code's subagents are.
		if dir := filepath.Dir(source); filepath.Base(filepath.Dir(dir)) == "chats" {
			d.parent = filepath.Base(dir)
		}
	}
	return d
}

// Decode reads one record: a whole session document (.json), one line of
// a .jsonl session, or one prompt-log record. Sessions are small next to
// a night of logs, so records are decoded with encoding/json rather than
// the line scanner.
func (d *geminiDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var r geminiRecord
	if skip := decodeObject(rec, &r); skip != ingest.Accepted {
		return skip
	}
	switch {
	case r.RewindTo != nil:
		d.rewinds++
		return ingest.SkipInfo // the rewound calls were still made: they stay billed
	case r.ID != "":
		return d.messages(emit, r.geminiMessage)
	case r.Set != nil:
		if r.Set.SessionID != "" {
			d.session = r.Set.SessionID
		}
		if r.Set.ProjectHash != "" {
			d.project = r.Set.ProjectHash
		}
		return d.messages(emit, r.Set.Messages...)
	case r.SessionID != "" && r.ProjectHash != "":
		d.session, d.project = r.SessionID, r.ProjectHash
		if r.Messages == nil {
			return ingest.SkipInfo // a .jsonl's metadata line
		}
		if sr := d.messages(emit, r.Messages...); sr != ingest.SkipInfo {
			return sr
		}
		return ingest.SkipNoEvent // a session document without one call
	case r.SessionID != "" && isJSONNumber(r.MessageID) && len(r.Message) > 0 && r.Message[0] == '"':
		d.prompts++
		return ingest.SkipInfo // a prompt of logs.json: the chats hold the calls
	}
	return ingest.SkipNoEvent
}

// messages bills the model messages with usage among ms: Accepted when one
// gave an event, SkipWrongType when only impossible usage did, SkipInfo
// otherwise (user turns, notices, a copy that adds nothing).
func (d *geminiDecoder) messages(emit func(*ingest.Event), ms ...geminiMessage) ingest.SkipReason {
	calls, wrong := 0, false
	for i := range ms {
		m := &ms[i]
		if m.Type != "gemini" || m.Tokens == nil {
			continue // user turns, info and error notices, a response before its usage
		}
		tk := m.Tokens
		if tk.Input < 0 || tk.Output < 0 || tk.Cached < 0 || tk.Thoughts < 0 || tk.Tool < 0 || tk.Cached > tk.Input {
			wrong = true
			continue
		}
		now := geminiCounted{in: satAdd(tk.Input, tk.Tool), cached: tk.Cached, out: satAdd(tk.Output, tk.Thoughts)}
		kind := ingest.KindLLMCall
		k := keyOf("gemini", m.ID)
		if prev := d.seen[k]; prev != nil {
			if now.in <= prev.in && now.cached <= prev.cached && now.out <= prev.out {
				continue // the same message again (with its tool calls, in a checkpoint)
			}
			prev.in, prev.cached, prev.out = max(prev.in, now.in), max(prev.cached, now.cached), max(prev.out, now.out)
			now, kind = *prev, ingest.KindUsageGrowth
		} else if m.ID != "" {
			if d.seen == nil || len(d.seen) >= maxSeen {
				d.seen = map[claudeKey]*geminiCounted{}
			}
			c := now
			d.seen[k] = &c
		}
		ev := &d.ev
		ev.Reset()
		ev.Kind, ev.Provider, ev.AgentSession = kind, "gemini", true
		session := d.session
		if session == "" {
			session = d.fileSession
		}
		ev.JobID = CleanID(session)
		if d.parent != "" {
			ev.JobID = CleanID(d.parent)
		}
		ev.JobType = CleanField(d.project)
		ev.Model = CleanField(m.Model)
		ev.IdempotencyKey = CleanID("gemini:" + session + ":" + m.ID)
		if m.ID != "" {
			// Message IDs are UUIDs: the same message in two files (a
			// resumed .json copied into its .jsonl) is one response.
			ev.ResponseID = CleanID("gemini\x00" + m.ID)
		}
		if ts, err := time.Parse(time.RFC3339Nano, m.Timestamp); err == nil {
			ev.TS = unixNanoInRange(ts)
			d.p.lastTS = ev.TS
		} else {
			ev.TS, ev.TSCarried = d.p.lastTS, true
		}
		ev.Attempt, ev.Status = 1, 200
		ev.SetInclusiveInput(now.in, now.cached, 0)
		ev.OutputTokens = now.out // thinking is billed as output
		if kind == ingest.KindUsageGrowth {
			ev.PromptTokens = now.in // the whole prompt chooses the price tier
		}
		emit(ev)
		calls++
	}
	switch {
	case calls > 0:
		return ingest.Accepted
	case wrong:
		return ingest.SkipWrongType
	}
	return ingest.SkipInfo
}

func isJSONNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// Hint says what a prompt log is, when that is all a file held.
func (d *geminiDecoder) Hint(events int64) string {
	if events == 0 && d.prompts > 0 {
		return "this is Gemini CLI's prompt log (logs.json): prompts only, no usage; read the chats/session-*.json beside it for the calls"
	}
	return ""
}
