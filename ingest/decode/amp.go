package decode

import (
	"encoding/json"
	"strconv"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Amp (Sourcegraph's coding agent, closed source) keeps a thread per
// file: ${AMP_DATA_DIR:-~/.local/share/amp}/threads/T-<uuid>.json, one
// JSON document rewritten as the thread goes on. Its shape is known from
// the readers of it (ryoppippi/ccusage rust/crates/ccusage/src/adapter/amp:
// its README and parser fixtures), not from Amp's own source:
//
//   - {id:"T-…", messages:[{role, messageId, usage?}], usageLedger?}: an
//     assistant message's usage {model, inputTokens, outputTokens,
//     cacheCreationInputTokens, cacheReadInputTokens, totalInputTokens,
//     totalTokens?, credits?, timestamp} is one call (the current schema);
//   - usageLedger.events[] {id, timestamp, model, credits, tokens{input,
//     output, total}, operationType, fromMessageId, toMessageId} (the
//     older one), where present, are the calls instead, their cache taken
//     from the message they produced (toMessageId).
//
// inputTokens is Anthropic's meaning (without the cache): totalInputTokens
// = input + cache creation + cache read. credits are Amp's own unit, not
// dollars, and are not a cost. A thread is a job; a message (or ledger
// event) is named by the thread and its ID, so a rewritten file read again
// bills nothing twice.

type ampUsage struct {
	Model                    string          `json:"model"`
	InputTokens              json.RawMessage `json:"inputTokens"`
	OutputTokens             json.RawMessage `json:"outputTokens"`
	CacheCreationInputTokens json.RawMessage `json:"cacheCreationInputTokens"`
	CacheReadInputTokens     json.RawMessage `json:"cacheReadInputTokens"`
	Timestamp                string          `json:"timestamp"`
}

type ampThread struct {
	ID       string `json:"id"`
	Messages []struct {
		Role      string          `json:"role"`
		MessageID json.RawMessage `json:"messageId"`
		Usage     *ampUsage       `json:"usage"`
	} `json:"messages"`
	UsageLedger *struct {
		Events []struct {
			ID          string          `json:"id"`
			Timestamp   string          `json:"timestamp"`
			Model       string          `json:"model"`
			ToMessageID json.RawMessage `json:"toMessageId"`
			Tokens      *struct {
				Input, Output json.RawMessage
			} `json:"tokens"`
		} `json:"events"`
	} `json:"usageLedger"`
}

type ampDecoder struct {
	p  *Parser
	ev ingest.Event
}

func (d *ampDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var th ampThread
	if skip := decodeRecord(rec, &th); skip != ingest.Accepted {
		return skip
	}
	if th.ID == "" {
		return ingest.SkipNoEvent
	}
	ev := &d.ev
	calls := 0
	if th.UsageLedger != nil && len(th.UsageLedger.Events) > 0 {
		byMsg := map[string]*ampUsage{}
		for i := range th.Messages {
			if u := th.Messages[i].Usage; u != nil && len(byMsg) < maxSeen {
				byMsg[string(th.Messages[i].MessageID)] = u
			}
		}
		for _, e := range th.UsageLedger.Events {
			if e.Tokens == nil || e.Model == "" {
				continue
			}
			agentCall(ev, "amp:"+th.ID)
			ev.Model = CleanField(e.Model)
			setTSText(d.p, ev, e.Timestamp)
			ev.InputTokens, ev.OutputTokens = jsonCount(ev, e.Tokens.Input), jsonCount(ev, e.Tokens.Output)
			if u := byMsg[string(e.ToMessageID)]; u != nil {
				ev.CacheCreateTokens = jsonCount(ev, u.CacheCreationInputTokens)
				ev.CacheReadTokens = jsonCount(ev, u.CacheReadInputTokens)
			}
			if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 {
				continue
			}
			ev.ResponseID = CleanID("amp\x00" + th.ID + "\x00" + e.ID)
			ev.IdempotencyKey = CleanID("amp:" + th.ID + ":" + e.ID)
			emit(ev)
			calls++
		}
	} else {
		for i, m := range th.Messages {
			u := m.Usage
			if m.Role != "assistant" || u == nil || u.Model == "" {
				continue
			}
			agentCall(ev, "amp:"+th.ID)
			ev.Model = CleanField(u.Model)
			setTSText(d.p, ev, u.Timestamp)
			ev.InputTokens, ev.OutputTokens = jsonCount(ev, u.InputTokens), jsonCount(ev, u.OutputTokens)
			ev.CacheCreateTokens, ev.CacheReadTokens = jsonCount(ev, u.CacheCreationInputTokens), jsonCount(ev, u.CacheReadInputTokens)
			if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 {
				continue
			}
			id := string(m.MessageID)
			if id == "" {
				id = "#" + strconv.Itoa(i)
			}
			ev.ResponseID = CleanID("amp\x00" + th.ID + "\x00" + id)
			ev.IdempotencyKey = CleanID("amp:" + th.ID + ":" + id)
			emit(ev)
			calls++
		}
	}
	if calls == 0 {
		return ingest.SkipNoEvent
	}
	return ingest.Accepted
}
