package decode

import (
	"regexp"

	"github.com/burnrate-dev/burnrate/ingest"
)

// An app that prints the provider's response object beside its own line
// of the call (`console.log(JSON.stringify(msg))`, `print(resp.model_dump_json())`)
// writes one call twice: its own line names the job (and often the
// request ID), the response object names neither — its `id` is the
// message's (msg_…, chatcmpl-…), not the request's. Read as two calls,
// the object's copy landed in "(unattributed)" and every answered call
// was billed twice, the run ceiling firing at half the spend (red team
// R8-25: 107 calls and $0.576 for the wire's 66 and $0.327). A response
// object that names no job is held for a few lines; a job's call line of
// the same model and the same input and output tokens is the same call,
// and the object adds only what the line left out (its cache tokens). An
// object no line matches goes on as a call of its own, as before.

// providerResponse: the shape of a provider's response object, not an
// app's record — Anthropic's Message, OpenAI's Chat Completion and
// Response.
var providerResponse = regexp.MustCompile(`"type"\s*:\s*"message"[^\n]*"id"\s*:\s*"msg_|"id"\s*:\s*"msg_[^\n]*"type"\s*:\s*"message"|"object"\s*:\s*"(?:chat\.completion|response)"`)

const (
	// maxHeldResponses bounds the objects held at once.
	maxHeldResponses = 64
	// responseCopyLines is how many JSON lines an object waits for its
	// call's line: an app prints both as the call returns.
	responseCopyLines = 64
)

type heldResponse struct {
	ev   ingest.Event
	line int
}

type responseCopies struct {
	held  []heldResponse
	lines int
}

// hold keeps ev, a response object naming no job; what it pushes out
// past the bound goes on as a call.
func (c *responseCopies) hold(ev *ingest.Event, emit func(*ingest.Event)) {
	if len(c.held) >= maxHeldResponses {
		c.release(1, emit)
	}
	c.held = append(c.held, heldResponse{ev: *ev, line: c.lines})
}

// expire lets go, as calls, the objects that waited their lines.
func (c *responseCopies) expire(emit func(*ingest.Event)) {
	n := 0
	for n < len(c.held) && c.lines-c.held[n].line > responseCopyLines {
		n++
	}
	c.release(n, emit)
}

func (c *responseCopies) release(n int, emit func(*ingest.Event)) int {
	for i := range n {
		emit(&c.held[i].ev)
	}
	c.held = append(c.held[:0], c.held[n:]...)
	return n
}

// take removes the held object that is ev's call: same model, same input
// and output tokens.
func (c *responseCopies) take(ev *ingest.Event) (ingest.Event, bool) {
	for i := range c.held {
		r := &c.held[i].ev
		if r.InputTokens == ev.InputTokens && r.OutputTokens == ev.OutputTokens && (r.InputTokens|r.OutputTokens) != 0 &&
			(ev.Model == "" || r.Model == "" || sameModel(ev.Model, r.Model)) {
			out := *r
			c.held = append(c.held[:i], c.held[i+1:]...)
			return out, true
		}
	}
	return ingest.Event{}, false
}

// growth is what the object r adds to the call line ev: with ev's request
// ID its usage as it stands (correlate bills what it adds), else the
// fields it has over ev's.
func responseGrowth(ev, r *ingest.Event) (ingest.Event, bool) {
	g := ingest.Event{Kind: ingest.KindUsageGrowth, TS: ev.TS, TSCarried: ev.TSCarried, Source: ev.Source,
		JobID: ev.JobID, JobType: ev.JobType, CorrelationID: ev.CorrelationID, RunID: ev.RunID,
		Model: ev.Model, Provider: ev.Provider, Status: ev.Status}
	if g.Model == "" {
		g.Model = r.Model
	}
	more := func(have, now int64) int64 { return max(0, now-have) }
	if ev.ResponseID != "" {
		g.ResponseID = ev.ResponseID
		g.InputTokens, g.OutputTokens = max(ev.InputTokens, r.InputTokens), max(ev.OutputTokens, r.OutputTokens)
		g.CacheReadTokens, g.CacheCreateTokens = max(ev.CacheReadTokens, r.CacheReadTokens), max(ev.CacheCreateTokens, r.CacheCreateTokens)
		g.CacheCreate1hTokens = max(ev.CacheCreate1hTokens, r.CacheCreate1hTokens)
	} else {
		g.CacheReadTokens = more(ev.CacheReadTokens, r.CacheReadTokens)
		g.CacheCreateTokens = more(ev.CacheCreateTokens, r.CacheCreateTokens)
		g.CacheCreate1hTokens = min(more(ev.CacheCreate1hTokens, r.CacheCreate1hTokens), g.CacheCreateTokens)
	}
	g.PromptTokens = max(ev.InputTokens, r.InputTokens) + max(ev.CacheReadTokens, r.CacheReadTokens) + max(ev.CacheCreateTokens, r.CacheCreateTokens)
	return g, g.InputTokens+g.OutputTokens+g.CacheReadTokens+g.CacheCreateTokens > 0
}
