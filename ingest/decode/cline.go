package decode

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Cline task files and their forks' (Roo Code, Kilo Code): VS Code's
// globalStorage/<extension>/tasks/<task id>/ui_messages.json, one JSON
// array per task, rewritten whole as the task goes on. Each element is a
// message {ts (Unix ms), type:"say"|"ask", say|ask, text, modelInfo?}.
//
// The attempts are two kinds of message:
//
//   - say:"api_req_started" is one request to the model. Its text is
//     itself JSON: {request, tokensIn, tokensOut, cacheWrites, cacheReads,
//     cost, cancelReason?, streamingFailedMessage?}. tokensIn excludes
//     cache reads and writes (Anthropic's meaning); cost is what the
//     provider billed as Cline was told (Cline's gateway bills cache
//     writes it logs as 0), so it is the call's cost, not tokens × prices.
//     cancelReason streaming_failed is a request that failed — billed
//     when its usage says so — and user_cancelled one the user stopped.
//   - say:"api_req_retried" is the same request sent again after a failure
//     (Cline's auto-retry, or the user's Retry after ask:"api_req_failed").
//
// Roo Code and Kilo Code (forks of Cline) retry on their own without an
// api_req_retried: say:"api_req_retry_delayed" is a countdown message
// ("<error>\n\nRetrying in 5 seconds...", updated in place) that ends
// "Retrying now..." when the request is sent again — that message is the
// attempt; the error it quotes gives its status when it opens with one
// ("429 Rate limit…"). Their api_conversation_history.json beside it holds
// the messages sent, no usage and no attempt: it adds no call, and is not
// read (it would count nothing twice, and nothing once).
//
// say:"error_retry" ({attempt, maxAttempts, delaySeconds, failed?}) only
// schedules the retry and ask:"api_req_failed" is the give-up: neither is
// a request. modelInfo {providerId, modelId} is on newer Cline's messages
// only: an older task's calls have no model and are priced by their cost.
// A task is one job, named by its directory (the task ID).
//
// A Roo Code subtask (its new_task tool: an Orchestrator hands a part of
// the work to a task of another mode) is a task directory of its own. Its
// parent's ui_messages.json names no child (an ask:"tool" {"tool":
// "newTask", mode, content}); the child's HistoryItem names its parent and
// root (rootTaskId, parentTaskId: RooCodeInc/Roo-Code packages/types/src/
// history.ts at 1524d66, set in Task's constructor, src/core/task/Task.ts
// at 452adf0), written since TaskHistoryStore (src/core/task-persistence/
// TaskHistoryStore.ts at ab30708) as tasks/<id>/history_item.json beside
// ui_messages.json. Read so, the subtask's calls are billed to the root
// task's job: the Orchestrator's task costs what its subtasks cost. Before
// it the history lived in VS Code's global state only, and Cline's own
// new_task starts a new task with the context carried over, which names
// no parent: each such task is its own job.

// historyItemLimit bounds history_item.json: Roo's is a few hundred bytes
// (its task text, the first message, is the longest field).
const historyItemLimit = 1 << 20

type clineMessage struct {
	TS        int64  `json:"ts"`
	Type      string `json:"type"`
	Say       string `json:"say"`
	Ask       string `json:"ask"`
	Text      string `json:"text"`
	ModelInfo *struct {
		ProviderID string `json:"providerId"`
		ModelID    string `json:"modelId"`
	} `json:"modelInfo"`
}

// clineRequest is api_req_started's text, each field read alone: one
// that does not read costs that field, never the request.
type clineRequest map[string]json.RawMessage

func (r clineRequest) str(k string) string {
	var s string
	json.Unmarshal(r[k], &s)
	return s
}

type clineDecoder struct {
	p    *Parser
	ev   ingest.Event
	task string
	// job is the task's job: its root task's when its history_item.json
	// names one. dropped: that file was there and could not be read (each
	// call's job is then the task's own, and the call counts the field).
	job     string
	dropped ingest.FieldDrop
	attempt int32 // of the request under way: 1 at api_req_started, +1 each api_req_retried
	model   string
	prov    string
}

func newClineDecoder(p *Parser, o Options) *clineDecoder {
	d := &clineDecoder{p: p, task: "cline-task"}
	source := o.SourceName
	if source != "" && source != "-" {
		d.task = filepath.Base(filepath.Dir(source)) // tasks/<task id>/ui_messages.json
	}
	d.job = CleanID(d.task)
	if o.Sidecar != nil && d.task != "cline-task" {
		d.readHistoryItem(o.Sidecar)
	}
	return d
}

// readHistoryItem bills the task to its root task when its Roo Code
// history_item.json says it is a subtask (rootTaskId, else parentTaskId).
// No file (Cline, an older Roo, a root task) changes nothing; one that
// does not read, or names another task, is counted on each call.
func (d *clineDecoder) readHistoryItem(sidecar func(string, int64) ([]byte, error)) {
	b, err := sidecar("history_item.json", historyItemLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var item map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &item) != nil {
		d.dropped = ingest.DropWrongType
		return
	}
	str := func(k string) (string, bool) {
		raw, ok := item[k]
		if !ok || string(raw) == "null" {
			return "", true
		}
		var s string
		return s, json.Unmarshal(raw, &s) == nil
	}
	id, okID := str("id")
	root, okRoot := str("rootTaskId")
	parent, okParent := str("parentTaskId")
	switch {
	case !okID || !okRoot || !okParent || id != d.task:
		// Not this task's item (a copy, another writer): its link is not
		// this task's.
		d.dropped = ingest.DropWrongType
	case root != "" && root != id:
		d.job = CleanID(root)
	case parent != "" && parent != id:
		d.job = CleanID(parent)
	}
}

// rooStatus is the status a Roo Code retry's quoted error opens with
// ("429 Rate limit exceeded…", as the Anthropic and OpenAI SDKs word it).
var rooStatus = regexp.MustCompile(`^\s*([1-5][0-9][0-9])\b`)

// clineStatus finds the HTTP status a failed stream's message names
// ("request failed with status 400", "statusCode":429).
var clineStatus = regexp.MustCompile(`(?:status |\\?"statusCode\\?":)([1-5][0-9][0-9])\b`)

func (d *clineDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var m clineMessage
	if skip := decodeObject(rec, &m); skip != ingest.Accepted {
		return skip
	}
	if m.ModelInfo != nil {
		d.model, d.prov = CleanField(m.ModelInfo.ModelID), CleanField(m.ModelInfo.ProviderID)
	}
	if m.Type != "say" {
		return ingest.SkipInfo // asks: the user's turn, a give-up, a resume
	}
	ev := &d.ev
	switch m.Say {
	case "api_req_started":
		d.attempt = 1
		d.start(ev, m.TS)
		var r clineRequest
		if json.Unmarshal([]byte(m.Text), &r) != nil {
			// The request was made; its usage cannot be read.
			ev.Dropped |= ingest.DropWrongType
			ev.Status = ingest.StatusUnknown
			emit(ev)
			return ingest.Accepted
		}
		ev.InputTokens = d.count(ev, r["tokensIn"])
		ev.OutputTokens = d.count(ev, r["tokensOut"])
		ev.CacheReadTokens = d.count(ev, r["cacheReads"])
		ev.CacheCreateTokens = d.count(ev, r["cacheWrites"])
		if raw, ok := r["cost"]; ok {
			var c float64
			tokens := ev.InputTokens + ev.OutputTokens + ev.CacheReadTokens + ev.CacheCreateTokens
			switch {
			case json.Unmarshal(raw, &c) != nil:
				ev.Dropped |= ingest.DropWrongType
			case !ingest.PlausibleCost(c, tokens):
				ev.Dropped |= ingest.DropImplausible
			default:
				ev.CostUSD, ev.HasCost = c, true
			}
		}
		cancel := r.str("cancelReason")
		switch cancel {
		case "":
			ev.Status = 200
		case "streaming_failed":
			ev.ErrorType = "streaming_failed"
			if s := clineStatus.FindStringSubmatch(r.str("streamingFailedMessage")); s != nil {
				n, _ := strconv.Atoi(s[1])
				ev.Status = int16(n)
			}
		default:
			ev.ErrorType = CleanField(cancel) // user_cancelled
		}
		emit(ev)
		return ingest.Accepted
	case "api_req_retried":
		// The request sent again: an attempt with no usage of its own.
		d.attempt++
		d.start(ev, m.TS)
		ev.ErrorType = "retried"
		emit(ev)
		return ingest.Accepted
	case "api_req_retry_delayed":
		// Roo Code's and Kilo Code's automatic retry: a countdown
		// message, updated in place, ending "Retrying now..." when the
		// request is sent again (an unfinished countdown, a "Rate
		// limiting for n seconds..." wait or the pre-request "Retrying in
		// n seconds..." of a retry already counted sends nothing).
		if !strings.Contains(m.Text, "Retrying now") {
			return ingest.SkipInfo
		}
		d.attempt++
		d.start(ev, m.TS)
		ev.ErrorType = "retried"
		if s := rooStatus.FindStringSubmatch(m.Text); s != nil {
			n, _ := strconv.Atoi(s[1])
			ev.Status = int16(n) // the failure the countdown names
		}
		emit(ev)
		return ingest.Accepted
	}
	return ingest.SkipInfo // text, tools, checkpoints, error_retry (a retry scheduled)
}

func (d *clineDecoder) start(ev *ingest.Event, ts int64) {
	ev.Reset()
	ev.Kind, ev.AgentSession = ingest.KindLLMCall, true
	ev.JobID = d.job
	ev.Dropped = d.dropped
	ev.Model, ev.Provider = d.model, d.prov
	ev.Attempt = int16(min(d.attempt, 999))
	if ts > 0 && ts < ingest.MaxTS/1_000_000 {
		ev.TS = ts * 1_000_000
		d.p.lastTS = ev.TS
	} else {
		ev.TS, ev.TSCarried = d.p.lastTS, true
	}
}

// count reads a token count; one that does not read is dropped (0).
func (d *clineDecoder) count(ev *ingest.Event, raw json.RawMessage) int64 {
	if len(raw) == 0 || string(raw) == "null" {
		return 0
	}
	var v int64
	if json.Unmarshal(raw, &v) != nil || v < 0 || v > ingest.MaxTokensPerCall {
		ev.Dropped |= ingest.DropWrongType
		return 0
	}
	return v
}
