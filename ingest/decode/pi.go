package decode

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// The Pi coding agent (badlogic/pi-mono, packages/coding-agent):
// ~/.pi/agent/sessions/<encoded cwd>/<time>_<session id>.jsonl
// (PI_CODING_AGENT_DIR moves ~/.pi/agent), appended. The first line is the
// header {type:"session", id, timestamp, cwd, version? (absent in v1, 2
// and 3 since), parentSession? or branchedFrom? (a fork's or a branch's
// source file)}; then entries {type, id?, parentId?, timestamp, …} (ids
// since v2). type:"message" holds message{role, …}: an assistant's is one
// model response {api, provider, model, usage{input, output, cacheRead,
// cacheWrite, totalTokens, cost{input, output, cacheRead, cacheWrite,
// total}}, stopReason, errorMessage?, timestamp (Unix ms)}.
//
// usage.input is the prompt without the cache for most providers (pi-ai
// subtracts OpenAI's cached tokens), but Google's promptTokenCount is
// stored as given, cache included: totalTokens says which (input + output
// + cache, or input + output). output includes thinking. cost.total is
// Pi's own price of the call, kept beside ours. stopReason "error" is a
// failed call (its errorMessage may name a status), "aborted" one the user
// stopped.
//
// A fork (/fork, --fork) or a branch copies the source's entries verbatim
// into a new file whose header names the source file and the time of the
// fork: an entry older than that is a copy, billed to the source session
// (whose ID ends the source's file name), and a response is named by its
// own time, model and provider, so a copy is billed once whichever file
// is read first.

type piRecord struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	CWD       string `json:"cwd"`
	// A fork's or a branch's source file (header).
	ParentSession string          `json:"parentSession"`
	BranchedFrom  string          `json:"branchedFrom"`
	Message       json.RawMessage `json:"message"`
}

type piMessage struct {
	Role         string          `json:"role"`
	Provider     string          `json:"provider"`
	Model        string          `json:"model"`
	StopReason   string          `json:"stopReason"`
	ErrorMessage string          `json:"errorMessage"`
	Timestamp    json.RawMessage `json:"timestamp"`
	Usage        *struct {
		Input, Output, CacheRead, CacheWrite, TotalTokens json.RawMessage
		Cost                                              *struct {
			Total json.RawMessage `json:"total"`
		} `json:"cost"`
	} `json:"usage"`
}

type piDecoder struct {
	p       *Parser
	ev      ingest.Event
	session string
	project string
	// source is the session a fork or a branch was copied from, and
	// forked when: an entry older than the header is a copy of the
	// source's, and its call the source's.
	source string
	forked string
}

func newPiDecoder(p *Parser, source string) *piDecoder {
	d := &piDecoder{p: p, session: "pi-session"}
	if source != "" && source != "-" {
		name := strings.TrimSuffix(filepath.Base(source), ".jsonl")
		if _, id, ok := strings.Cut(name, "_"); ok {
			name = id
		}
		d.session = name
		d.project = filepath.Base(filepath.Dir(source))
	}
	return d
}

func (d *piDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var r piRecord
	if skip := decodeRecord(rec, &r); skip != ingest.Accepted {
		return skip
	}
	switch r.Type {
	case "session":
		if r.ID != "" {
			d.session = r.ID
		}
		if src := cmpOr(r.ParentSession, r.BranchedFrom); src != "" {
			name := strings.TrimSuffix(filepath.Base(src), ".jsonl")
			if _, id, ok := strings.Cut(name, "_"); ok {
				d.source, d.forked = id, r.Timestamp
			}
		}
		return ingest.SkipInfo
	case "message":
	default:
		return ingest.SkipInfo // model and thinking changes, compactions, labels
	}
	if len(r.Message) == 0 || r.Message[0] != '{' {
		return ingest.SkipNoEvent // an app's {"type":"message","message":"…"}: no Pi entry
	}
	var pm piMessage
	if skip := decodeRecord(r.Message, &pm); skip != ingest.Accepted {
		return ingest.SkipWrongType
	}
	m := &pm
	if m.Role != "assistant" || m.Usage == nil {
		return ingest.SkipInfo
	}
	ev := &d.ev
	session := d.session
	if d.source != "" && r.Timestamp != "" && r.Timestamp < d.forked {
		session = d.source // copied at the fork: the source session's call (RFC 3339 in UTC sorts as text)
	}
	agentCall(ev, "pi:"+session)
	ev.JobType = CleanField(d.project)
	ev.Model, ev.Provider = CleanField(m.Model), CleanField(m.Provider)
	setTSText(d.p, ev, r.Timestamp)
	u := m.Usage
	in, out := jsonCount(ev, u.Input), jsonCount(ev, u.Output)
	read, write, total := jsonCount(ev, u.CacheRead), jsonCount(ev, u.CacheWrite), jsonCount(ev, u.TotalTokens)
	if read+write > 0 && total > 0 && total == in+out && in >= read+write {
		ev.SetInclusiveInput(in, read, write) // Google's prompt count, cache inside
	} else {
		ev.InputTokens, ev.CacheReadTokens, ev.CacheCreateTokens = in, read, write
	}
	ev.OutputTokens = out
	if u.Cost != nil {
		setProducerCost(ev, u.Cost.Total)
	}
	switch m.StopReason {
	case "error":
		ev.Status, ev.ErrorType = ingest.StatusUnknown, "error"
		if s := clineStatus.FindStringSubmatch(m.ErrorMessage); s != nil {
			n, _ := strconv.Atoi(s[1])
			ev.Status = int16(n)
		}
	case "aborted":
		ev.ErrorType = "aborted"
	}
	if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 && ev.Status == 200 {
		return ingest.SkipInfo // aborted before any usage: nothing billed
	}
	if ms := jsonMillis(m.Timestamp); ms > 0 {
		ev.ResponseID = CleanID("pi\x00" + strconv.FormatInt(ms, 10) + "\x00" + m.Provider + "\x00" + m.Model)
	}
	key := r.ID
	if key == "" {
		key = r.Timestamp
	}
	ev.IdempotencyKey = CleanID("pi:" + d.session + ":" + key)
	emit(ev)
	return ingest.Accepted
}

// cmpOr is the first of a and b that is not "".
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
