package decode

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// GitHub Copilot CLI session events: ~/.copilot/session-state/<session
// id>/events.jsonl (COPILOT_HOME moves ~/.copilot), one event a line
// {type, data, id, timestamp, parentId}, appended; a resumed session
// (copilot --resume, --continue) appends to the same file after a
// session.resume event. Copilot CLI does not document the schema; the
// shape here is that of real sessions of Copilot CLI 1.0.78
// (WildChildForLife/lantern fixtures/copilot-home, a real run) and the
// public issues (github/copilot-cli #3551, #3994):
//
//   - session.start data{sessionId, copilotVersion, producer, …};
//   - assistant.message data{messageId, model, outputTokens, apiCallId,
//     interactionId, turnId, …}: one model response, its output only;
//   - session.shutdown data{modelMetrics{<model>:{requests{count, cost},
//     usage{inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
//     reasoningTokens}}}, …}: what the process used, per model, since it
//     started (the figures of /usage; a resumed process starts them
//     again at zero, #3994). requests.cost counts premium requests, not
//     dollars, and is not a cost.
//
// Each assistant.message is a call (model, output) as it happens; at
// session.shutdown the input and cache of the segment, and any output the
// messages did not show, are added to the session's spend per model
// (ingest.KindUsageGrowth), and requests the messages did not show
// (requests.count above the messages seen: a title, a compaction) are
// calls of their own. inputTokens is read as the prompt with the cache
// (OpenAI's meaning, that of Copilot's API). assistant.usage, which the
// Copilot SDK streams per call, is not written to events.jsonl; where a
// file holds it anyway, it is the call and the message adds nothing; its
// data.cost is the premium-request multiplier, not dollars, and is ignored.
// A session exited without its shutdown (killed, /new) has no input in
// its file: only the output of its messages is billed.

type copilotEvent struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
}

type copilotUsage struct {
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens, ReasoningTokens json.RawMessage
}

type copilotData struct {
	SessionID    string          `json:"sessionId"`
	MessageID    string          `json:"messageId"`
	Model        string          `json:"model"`
	OutputTokens json.RawMessage `json:"outputTokens"`
	APICallID    string          `json:"apiCallId"`
	ModelMetrics map[string]struct {
		Requests *struct {
			Count json.RawMessage `json:"count"`
		} `json:"requests"`
		Usage *copilotUsage `json:"usage"`
	} `json:"modelMetrics"`
	// assistant.usage (the SDK's, when written)
	InputTokens      json.RawMessage `json:"inputTokens"`
	CacheReadTokens  json.RawMessage `json:"cacheReadTokens"`
	CacheWriteTokens json.RawMessage `json:"cacheWriteTokens"`
}

// copilotSeen is what the messages of the segment gave one model.
type copilotSeen struct{ calls, out int64 }

type copilotDecoder struct {
	p       *Parser
	ev      ingest.Event
	session string
	seen    map[string]*copilotSeen // by model, since the last shutdown
	usage   bool                    // the file holds assistant.usage: the calls are those
}

func newCopilotDecoder(p *Parser, source string) *copilotDecoder {
	d := &copilotDecoder{p: p, session: "copilot-session"}
	if source != "" && source != "-" {
		d.session = filepath.Base(filepath.Dir(source)) // session-state/<id>/events.jsonl
	}
	return d
}

func (d *copilotDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var e copilotEvent
	if skip := decodeRecord(rec, &e); skip != ingest.Accepted {
		return skip
	}
	var data copilotData
	if len(e.Data) > 0 && e.Data[0] == '{' {
		if skip := decodeRecord(e.Data, &data); skip != ingest.Accepted {
			return skip
		}
	}
	ev := &d.ev
	switch e.Type {
	case "session.start":
		if data.SessionID != "" {
			d.session = data.SessionID
		}
		return ingest.SkipInfo
	case "assistant.usage":
		d.usage = true
		d.call(ev, e, data.Model)
		ev.SetInclusiveInput(jsonCount(ev, data.InputTokens), jsonCount(ev, data.CacheReadTokens), jsonCount(ev, data.CacheWriteTokens))
		ev.OutputTokens = jsonCount(ev, data.OutputTokens)
		// data.cost is the call's premium-request multiplier (3 for
		// claude-opus-4.5, 0.33 for a mini model), not dollars: never a
		// cost. The call is priced by its model and tokens (issue 35).
		d.note(data.Model, ev.OutputTokens)
		emit(ev)
		return ingest.Accepted
	case "assistant.message":
		if d.usage {
			return ingest.SkipInfo
		}
		// A message without outputTokens (an older Copilot CLI) is still
		// a response: a call, its usage from the shutdown's metrics.
		d.call(ev, e, data.Model)
		ev.OutputTokens = jsonCount(ev, data.OutputTokens)
		if id := data.APICallID; id != "" {
			ev.ResponseID = CleanID("copilot\x00" + id)
		}
		d.note(data.Model, ev.OutputTokens)
		emit(ev)
		return ingest.Accepted
	case "session.shutdown":
		n := d.shutdown(ev, e, &data, emit)
		clear(d.seen)
		if n == 0 {
			return ingest.SkipInfo
		}
		return ingest.Accepted
	}
	return ingest.SkipInfo // user turns, tools, turns, model changes, info
}

func (d *copilotDecoder) call(ev *ingest.Event, e copilotEvent, model string) {
	agentCall(ev, "copilot:"+d.session)
	ev.Model = CleanField(model)
	setTSText(d.p, ev, e.Timestamp)
	if e.ID != "" {
		ev.IdempotencyKey = CleanID("copilot:" + e.ID)
	}
}

func (d *copilotDecoder) note(model string, out int64) {
	if d.seen == nil {
		d.seen = map[string]*copilotSeen{}
	}
	s := d.seen[model]
	if s == nil {
		if len(d.seen) >= 1024 {
			return
		}
		s = &copilotSeen{}
		d.seen[model] = s
	}
	s.calls++
	s.out = satAdd(s.out, out)
}

// shutdown bills what the segment's metrics add over its messages.
func (d *copilotDecoder) shutdown(ev *ingest.Event, e copilotEvent, data *copilotData, emit func(*ingest.Event)) int {
	models := make([]string, 0, len(data.ModelMetrics))
	for m := range data.ModelMetrics {
		models = append(models, m)
	}
	slices.Sort(models) // one order, whatever the map's
	n := 0
	for _, m := range models {
		mm := data.ModelMetrics[m]
		if mm.Usage == nil || strings.TrimSpace(m) == "" {
			continue
		}
		seen := copilotSeen{}
		if s := d.seen[m]; s != nil {
			seen = *s
		}
		var requests int64
		if mm.Requests != nil {
			requests = jsonCount(ev, mm.Requests.Count)
		}
		u := mm.Usage
		d.call(ev, e, m)
		ev.IdempotencyKey = CleanID("copilot:" + e.ID + ":" + m)
		in, read, write := jsonCount(ev, u.InputTokens), jsonCount(ev, u.CacheReadTokens), jsonCount(ev, u.CacheWriteTokens)
		out := max(0, jsonCount(ev, u.OutputTokens)-seen.out)
		if d.usage {
			in, read, write = 0, 0, 0 // the assistant.usage calls held them
		}
		ev.SetInclusiveInput(in, read, write)
		ev.OutputTokens = out
		if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 && requests <= seen.calls {
			continue
		}
		if seen.calls == 0 || requests > seen.calls {
			// Requests no message showed: a call of their own, with
			// what the metrics add.
			emit(ev)
		} else {
			ev.Kind = ingest.KindUsageGrowth
			ev.PromptTokens = satAdd(in, write)
			emit(ev)
		}
		n++
	}
	return n
}
