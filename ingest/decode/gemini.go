package decode

import (
	"encoding/json"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Gemini CLI chat sessions: ~/.gemini/tmp/<project-hash>/chats/
// session-*.json, one JSON document per session (gemini-cli's
// ChatRecordingService): {sessionId, projectHash, startTime, lastUpdated,
// messages:[…]}. Each "gemini" message is one model response with its
// model and tokens{input, output, cached, thoughts, tool, total}: input
// includes cached (Gemini's promptTokenCount), thoughts are billed as
// output, tool is the tool-use prompt (billed as input, outside input),
// and total = input + output + thoughts + tool. The logs.json beside
// the chats is a prompt log ({sessionId, messageId, type:"user",
// message}): no model call, and said so.

type geminiSession struct {
	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	Messages    []geminiMessage `json:"messages"`
	// MessageID marks a logs.json record (a prompt, not a session).
	MessageID json.RawMessage `json:"messageId"`
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

type geminiDecoder struct {
	p       *Parser
	ev      ingest.Event
	prompts int64 // logs.json records seen: prompts, no usage
}

func newGeminiDecoder(p *Parser) *geminiDecoder { return &geminiDecoder{p: p} }

// Decode reads one session document (the whole file is one record) or one
// prompt-log record. Sessions are small next to a night of logs, so the
// record is decoded with encoding/json rather than the line scanner.
func (d *geminiDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	rec, skip := prelude(rec, 0)
	switch {
	case skip != ingest.Accepted:
		return skip
	case rec[0] != '{':
		return ingest.SkipNotObject
	}
	var s geminiSession
	if err := json.Unmarshal(rec, &s); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return ingest.SkipWrongType
		}
		return ingest.SkipInvalidJSON
	}
	if len(s.MessageID) > 0 {
		d.prompts++
		return ingest.SkipInfo // a prompt of logs.json: the chats hold the calls
	}
	calls := 0
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Type != "gemini" || m.Tokens == nil {
			continue // user turns, info and error notices: no usage
		}
		tk := m.Tokens
		if tk.Input < 0 || tk.Output < 0 || tk.Cached < 0 || tk.Thoughts < 0 || tk.Tool < 0 || tk.Cached > tk.Input {
			continue // counted below as wrong_type if nothing else is read
		}
		ev := &d.ev
		ev.Reset()
		ev.Kind, ev.Provider, ev.AgentSession = ingest.KindLLMCall, "gemini", true
		ev.JobID = CleanID(s.SessionID)
		ev.JobType = CleanField(s.ProjectHash)
		ev.Model = CleanField(m.Model)
		ev.IdempotencyKey = CleanID("gemini:" + s.SessionID + ":" + m.ID)
		if ts, err := time.Parse(time.RFC3339Nano, m.Timestamp); err == nil {
			ev.TS = unixNanoInRange(ts)
			d.p.lastTS = ev.TS
		} else {
			ev.TS = d.p.lastTS
		}
		ev.Attempt, ev.Status = 1, 200
		ev.SetInclusiveInput(satAdd(tk.Input, tk.Tool), tk.Cached, 0)
		ev.OutputTokens = satAdd(tk.Output, tk.Thoughts) // thinking is billed as output
		emit(ev)
		calls++
	}
	if calls == 0 {
		return ingest.SkipNoEvent
	}
	return ingest.Accepted
}

// Hint says what a prompt log is, when that is all a file held.
func (d *geminiDecoder) Hint(events int64) string {
	if events == 0 && d.prompts > 0 {
		return "this is Gemini CLI's prompt log (logs.json): prompts only, no usage; read the chats/session-*.json beside it for the calls"
	}
	return ""
}
