package decode

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Claude Code session transcripts: ~/.claude/projects/<project>/<session>.jsonl,
// with subagents in <session>/subagents/agent-*.jsonl (their records carry
// the parent's sessionId). One API response is written once per content
// block, so records repeating a message.id (and requestId, where a line
// has one: Bedrock, Vertex and proxies write none) are one response. Its
// usage grows across them while the response streams — the first holds a
// partial output count (e.g. 8), the last the final one (e.g. 1,703) — so
// the first record is the call and each later one adds only its growth
// (ingest.KindUsageGrowth): the response costs what its last record says,
// as the bill does. (ccusage keeps the first record: its issues #901 and
// #938.) Claude Code also retries on
// its own: each retry is a {"type":"system","subtype":"api_error",…}
// record, and when it gives up an assistant record with
// "isApiErrorMessage":true. Those are the failed attempts of the call in
// flight; the response that follows completes it.

// CostMode chooses between a transcript's costUSD and tokens × prices.
type CostMode string

const (
	// CostAuto uses costUSD where a record has it, else tokens × prices.
	CostAuto CostMode = "auto"
	// CostCalculate always prices tokens (what ccusage does by default).
	CostCalculate CostMode = "calculate"
	// CostDisplay uses only costUSD; a record without it costs 0.
	CostDisplay CostMode = "display"
)

// ParseCostMode checks a --cost-mode value.
func ParseCostMode(s string) (CostMode, error) {
	switch CostMode(s) {
	case "", CostAuto:
		return CostAuto, nil
	case CostCalculate, CostDisplay:
		return CostMode(s), nil
	}
	return "", fmt.Errorf("--cost-mode %q: use auto, calculate or display", s)
}

type claudeCacheSplit struct{ Ephemeral5m, Ephemeral1h int64 }

type claudeUsage struct {
	InputTokens, OutputTokens                      int64
	CacheReadInputTokens, CacheCreationInputTokens int64
	CacheCreation                                  *claudeCacheSplit
	// Bill is what the usage says beyond its tokens: usage.speed,
	// usage.inference_geo, usage.service_tier; compaction iterations'
	// tokens are already in the counts (issue 35).
	Bill ingest.Bill
}

type claudeMessage struct {
	ID, Model string
	Usage     *claudeUsage
}

// claudeRecord is what a transcript line says about API calls.
type claudeRecord struct {
	Type, Subtype, SessionID, Cwd, Timestamp, RequestID, UUID string
	// Version is Claude Code's own version (transcripts' "version",
	// claude -p's "claude_code_version"): an observed assumption.
	Version    string
	CostUSD    *float64
	IsAPIError bool
	// ForkedFrom: the line is a forked session's copy of its parent's
	// (Claude Code writes "forkedFrom": {"sessionId", "messageUuid"} on
	// each line a fork copies): the parent made the call, not this session.
	ForkedFrom  bool
	APIErrorSt  int
	ErrorStatus int    // error.status of an api_error record
	ErrorCode   string // error as a string, on the give-up record
	Message     *claudeMessage
	// claude -p's result record: Claude Code's own cost figure and usage
	// per model (which counts internal calls no assistant record shows).
	TotalCostUSD *float64
	IsError      bool
	ModelUsage   []claudeModelUsage
	// Result is the result record's text, kept only when it is an API
	// error ("API Error: 529 {…}"): the status of a run's last call when
	// no assistant record shows it (claude -p --output-format json).
	Result string
}

// claudeModelUsage is one model's entry of a result record's modelUsage.
type claudeModelUsage struct {
	Model                                 string
	Input, Output, CacheRead, CacheCreate int64
}

// claudeCounted is what one response has been billed so far: the largest
// of each field over its records (usage only grows while it streams, and
// taking the largest means a hostile record can never lower the spend).
type claudeCounted struct {
	usage   claudeUsage
	cc1h    int64
	costUSD float64
}

// claudeCall is the API call in flight in one session (and file: a
// subagent's calls run beside its parent's).
type claudeCall struct {
	key      string // the operation: the session and the uuid of the call's first record
	attempts int16  // attempts made so far
}

type claudeDecoder struct {
	p     *Parser
	sc    scanner
	rec   claudeRecord
	msg   claudeMessage
	usage claudeUsage
	cc    claudeCacheSplit
	ev    ingest.Event
	mode  CostMode
	calls map[string]*claudeCall // session → call in flight
	// seen is what each response (message.id + requestId) has been
	// counted so far; bySession what each session and model has, for a
	// claude -p result's modelUsage.
	seen     map[claudeKey]*claudeCounted
	sessions map[claudeKey]*claudeSession
	failed   map[string]int16 // session → status of its last give-up, for its result
	// comp sums the record's compaction iterations (usage.iterations[]),
	// it the one being read.
	comp, it iterUsage
	// usageUnread: a token count of the record's usage did not read (a
	// string, NaN, 1e999): dropped, the call kept, its usage a floor.
	usageUnread bool
	version     string // the last Claude Code version seen, emitted once per change
}

// observeVersion emits the Claude Code version a record names, as an
// observed assumption (claude-code.version): its watchdog and retry
// defaults change between versions.
func (d *claudeDecoder) observeVersion(r *claudeRecord, emit func(*ingest.Event)) {
	d.version = r.Version
	ev := *d.base(r)
	ev.Provider, ev.AgentSession, ev.JobID, ev.Status = "", false, "", ingest.StatusUnknown
	ev.SetAssumption(ingest.AssumptionFromObserved+"Claude Code transcript version", "claude-code.version", AssumptionText(r.Version, 64))
	emit(&ev)
}

func newClaudeDecoder(p *Parser, mode CostMode) *claudeDecoder {
	if mode == "" {
		mode = CostAuto
	}
	return &claudeDecoder{p: p, mode: mode, calls: map[string]*claudeCall{}, seen: map[claudeKey]*claudeCounted{},
		sessions: map[claudeKey]*claudeSession{}, failed: map[string]int16{}}
}

// claudeKey is a fixed-size digest of the strings that name a response
// (message.id, requestId) or a session's model: memory per entry is the
// same whatever the line's IDs are (a 200 KB message.id costs 16 bytes).
// Two seeds make it 128 bits, seeded per process, so no transcript can aim
// at a collision.
type claudeKey [2]uint64

var claudeSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func keyOf(a, b string) claudeKey {
	var k claudeKey
	for i := range k {
		var h maphash.Hash
		h.SetSeed(claudeSeeds[i])
		h.WriteString(a)
		h.WriteByte(0)
		h.WriteString(b)
		k[i] = h.Sum64()
	}
	return k
}

// modelFamily is the model a name stands for, whatever spelling a record
// uses: claude -p writes "claude-opus-4-6[1m]" in modelUsage where the
// assistant records say "claude-opus-4-6", and Bedrock IDs carry a region
// and a version ("us.anthropic.claude-opus-4-6-v1:0").
func modelFamily(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if i := strings.IndexByte(m, '['); i > 0 {
		m = m[:i]
	}
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"us.", "eu.", "apac.", "jp.", "au.", "ca.", "global.", "us-gov."} {
		m = strings.TrimPrefix(m, p)
	}
	m = strings.TrimPrefix(m, "anthropic.")
	if i := strings.IndexByte(m, '@'); i > 0 {
		m = m[:i]
	}
	if i := strings.LastIndex(m, "-v"); i > 0 && i+2 < len(m) && m[i+2] >= '0' && m[i+2] <= '9' {
		m = m[:i]
	}
	return m
}

// maxSeen bounds the de-duplication memory: past it, what was counted is
// forgotten (the records of one response are written within seconds: a
// repeat that far apart is not a content-block repeat).
const maxSeen = 1 << 18

func (d *claudeDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	r, sr := d.scan(line)
	if sr != ingest.Accepted {
		return sr
	}
	if r.Version != "" && r.Version != d.version {
		d.observeVersion(r, emit)
	}
	synthetic := r.Message != nil && r.Message.Model == "<synthetic>"
	switch {
	case r.Type == "system" && r.Subtype == "api_error":
		return d.retry(r, emit)
	case r.Type == "assistant" && (r.IsAPIError || synthetic && r.ErrorCode != ""):
		return d.gaveUp(r, line, emit)
	case synthetic:
		// Claude Code's own notices ("No response requested.", an
		// interrupt): no API call was made.
		return ingest.SkipInfo
	case r.Type == "assistant" && r.Message != nil && r.Message.Usage != nil:
		return d.response(r, emit)
	case r.Type == "result":
		return d.result(r, emit)
	}
	if !claudeRecordTypes[r.Type] {
		// Not a record Claude Code writes (an app's {"type":"app_start",
		// "sessionId":…}, a chat log's messages): left to the reader of
		// its own shape (shape.go), never taken for a transcript's turn.
		return ingest.SkipUnknownEvent
	}
	return ingest.SkipInfo // user turns, summaries, snapshots, init: not API calls
}

// claudeRecordTypes are the record types Claude Code and claude -p write.
var claudeRecordTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "result": true,
	"file-history-snapshot": true, "queue-operation": true, "progress": true,
	"attachment": true, "stream_event": true, "custom-title": true, "tag": true,
}

// scan reads the fields a record needs with the single-pass scanner,
// skipping message content (the bulk of every line) without decoding it:
// transcripts stay on the same fast path as every other format.
func (d *claudeDecoder) scan(line []byte) (*claudeRecord, ingest.SkipReason) {
	line, skip := prelude(line, 0)
	switch {
	case skip != ingest.Accepted:
		return nil, skip
	case line[0] != '{':
		return nil, ingest.SkipInvalidJSON
	}
	r := &d.rec
	*r = claudeRecord{ModelUsage: r.ModelUsage[:0]}
	d.msg, d.usage, d.cc = claudeMessage{}, claudeUsage{}, claudeCacheSplit{}
	d.usageUnread = false
	sc := &d.sc
	sc.reset(line)
	wrong := false
	str := sc.strOrSkip
	num := func() int64 {
		if c := sc.peek(); c != '-' && (c < '0' || c > '9') {
			sc.skip()
			return 0
		}
		b := sc.num()
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(b), 64)
			if ferr != nil {
				wrong = true
			}
			n = int64(f)
		}
		return n
	}
	// count reads a token count of the usage: null is none; anything
	// else that is no count (a string, a float past int64) is dropped and
	// the usage known in part (R7b-3's floor, which the JSON lines reader
	// had and this one did not: "n/a" read 0, exact; 1e999 lost the call).
	count := func() int64 {
		c := sc.peek()
		if c == 'n' {
			sc.skip()
			return 0
		}
		if c != '-' && (c < '0' || c > '9') {
			sc.skip()
			d.usageUnread = true
			return 0
		}
		b := sc.num()
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(b), 64)
			if ferr != nil || f != f || f > 9e18 || f < -9e18 {
				d.usageUnread = true
				return 0
			}
			n = int64(f)
		}
		return n
	}
	sc.object(func(k []byte) {
		switch string(k) {
		case "type":
			r.Type = str()
		case "subtype":
			r.Subtype = str()
		case "sessionId", "session_id": // transcripts; claude -p's output
			r.SessionID = str()
		case "total_cost_usd":
			if c := sc.peek(); c == '-' || (c >= '0' && c <= '9') {
				if f, err := strconv.ParseFloat(string(sc.num()), 64); err == nil {
					r.TotalCostUSD = &f
				}
			} else {
				sc.skip()
			}
		case "result":
			if sc.peek() != '"' {
				sc.skip()
				return
			}
			if t := sc.str(); bytes.HasPrefix(t, []byte("API Error")) {
				r.Result = string(t[:min(len(t), 4096)])
			}
		case "is_error":
			if sc.peek() == 't' {
				sc.lit("true")
				r.IsError = true
			} else {
				sc.skip()
			}
		case "modelUsage":
			if sc.peek() != '{' {
				sc.skip()
				return
			}
			sc.object(func(model []byte) {
				if sc.peek() != '{' || len(r.ModelUsage) >= 64 {
					sc.skip()
					return
				}
				mu := claudeModelUsage{Model: string(model)}
				sc.object(func(k []byte) {
					switch string(k) {
					case "inputTokens":
						mu.Input = num()
					case "outputTokens":
						mu.Output = num()
					case "cacheReadInputTokens":
						mu.CacheRead = num()
					case "cacheCreationInputTokens":
						mu.CacheCreate = num()
					default:
						sc.skip()
					}
				})
				r.ModelUsage = append(r.ModelUsage, mu)
			})
		case "cwd":
			r.Cwd = str()
		case "version", "claude_code_version":
			r.Version = str()
		case "timestamp":
			r.Timestamp = str()
		case "requestId":
			r.RequestID = str()
		case "uuid":
			r.UUID = str()
		case "forkedFrom":
			r.ForkedFrom = sc.peek() == '{'
			sc.skip()
		case "isApiErrorMessage":
			if sc.peek() == 't' {
				sc.lit("true")
				r.IsAPIError = true
			} else {
				sc.skip()
			}
		case "apiErrorStatus":
			r.APIErrorSt = int(num())
		case "costUSD":
			if c := sc.peek(); c == '-' || (c >= '0' && c <= '9') {
				if f, err := strconv.ParseFloat(string(sc.num()), 64); err == nil {
					r.CostUSD = &f
				}
			} else {
				sc.skip()
			}
		case "error":
			switch sc.peek() {
			case '"':
				r.ErrorCode = str()
			case '{':
				sc.object(func(k []byte) {
					if string(k) == "status" {
						r.ErrorStatus = int(num())
					} else {
						sc.skip()
					}
				})
			default:
				sc.skip()
			}
		case "message":
			if sc.peek() != '{' {
				sc.skip()
				return
			}
			r.Message = &d.msg
			sc.object(func(k []byte) {
				switch string(k) {
				case "id":
					d.msg.ID = str()
				case "model":
					d.msg.Model = str()
				case "usage":
					if sc.peek() != '{' {
						sc.skip()
						return
					}
					d.msg.Usage = &d.usage
					d.comp = iterUsage{}
					defer d.addCompaction() // once the usage is read, whatever its keys' order
					sc.object(func(k []byte) {
						switch string(k) {
						case "input_tokens":
							d.usage.InputTokens = count()
						case "output_tokens":
							d.usage.OutputTokens = count()
						case "cache_read_input_tokens":
							d.usage.CacheReadInputTokens = count()
						case "cache_creation_input_tokens":
							d.usage.CacheCreationInputTokens = count()
						case "speed":
							if str() == "fast" {
								d.usage.Bill |= ingest.BillFast
							}
						case "inference_geo":
							if str() == "us" {
								d.usage.Bill |= ingest.BillGeoUS
							}
						case "service_tier":
							d.usage.Bill |= ingest.ServiceTier(str())
						case "iterations":
							d.compaction(sc, num)
						case "cache_creation":
							if sc.peek() != '{' {
								sc.skip()
								return
							}
							d.usage.CacheCreation = &d.cc
							sc.object(func(k []byte) {
								switch string(k) {
								case "ephemeral_5m_input_tokens":
									d.cc.Ephemeral5m = count()
								case "ephemeral_1h_input_tokens":
									d.cc.Ephemeral1h = count()
								default:
									sc.skip()
								}
							})
						default:
							sc.skip()
						}
					})
				default:
					sc.skip() // content: the bulk of the line
				}
			})
		default:
			sc.skip()
		}
	})
	sc.ws()
	switch {
	case sc.tooDeep:
		return nil, ingest.SkipTooDeep
	case sc.err || sc.i != len(sc.b):
		return nil, ingest.SkipInvalidJSON
	case wrong:
		return nil, ingest.SkipWrongType
	}
	return r, ingest.Accepted
}

// unread marks ev's usage known in part when a count of its record did
// not read: that field dropped and counted, the call unpriced (a floor).
func (d *claudeDecoder) unread(ev *ingest.Event) {
	if d.usageUnread {
		ev.Dropped |= ingest.DropWrongType
		ev.UsageUnseen = true
	}
}

func (d *claudeDecoder) base(r *claudeRecord) *ingest.Event {
	ev := &d.ev
	ev.Reset()
	ev.Kind, ev.Provider = ingest.KindLLMCall, "anthropic"
	ev.AgentSession = true
	ev.JobID = CleanID(r.SessionID)
	ev.ForkCopy = r.ForkedFrom
	if r.Cwd != "" {
		ev.JobType = CleanField(path.Base(strings.ReplaceAll(r.Cwd, "\\", "/")))
	}
	if ts, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil {
		ev.TS = unixNanoInRange(ts)
		d.p.lastTS = ev.TS
	} else {
		// claude -p's stream-json has no times: the time of the record
		// before, or (live, none before) when it is read, counted as
		// no_timestamp.
		ev.TS, ev.TSCarried = d.p.lastTS, true
	}
	return ev
}

// call is the session's call in flight, started by r if there is none.
// Its key is the uuid of its first record, unique across the session's
// files (a subagent's transcript counts its own calls).
func (d *claudeDecoder) call(r *claudeRecord) *claudeCall {
	c := d.calls[r.SessionID]
	if c == nil {
		id := r.UUID
		if id == "" {
			id = r.Timestamp
		}
		c = &claudeCall{key: CleanID("cc:" + r.SessionID + ":" + id)}
		d.calls[r.SessionID] = c
		if len(d.calls) > 100_000 {
			clear(d.calls) // sessions abandoned mid-retry: forget them
			d.calls[r.SessionID] = c
		}
	}
	return c
}

// retry is one failed attempt Claude Code will retry.
func (d *claudeDecoder) retry(r *claudeRecord, emit func(*ingest.Event)) ingest.SkipReason {
	ev := d.base(r)
	c := d.call(r)
	c.attempts++
	ev.Attempt = c.attempts
	ev.IdempotencyKey = c.key
	ev.Status = int16(min(max(r.ErrorStatus, 0), 999))
	if r.ErrorStatus == 0 {
		ev.ErrorType = "connection_error" // FailedToOpenSocket and friends carry no status
	}
	// retryInMs is Claude Code's own backoff, not the server's guidance:
	// it is not a Retry-After.
	emit(ev)
	return ingest.Accepted
}

// gaveUp is the last failed attempt: Claude Code stopped retrying. In a
// transcript the record says isApiErrorMessage and apiErrorStatus; in
// claude -p's output only its text does ("API Error: 529 {…}").
func (d *claudeDecoder) gaveUp(r *claudeRecord, line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	ev := d.base(r)
	c := d.call(r)
	c.attempts++
	ev.Attempt = c.attempts
	ev.IdempotencyKey = c.key
	status, code := r.APIErrorSt, r.ErrorCode
	if status == 0 || code == "unknown" {
		if st, typ, ok := apiErrorText(line); ok {
			status = cmp.Or(status, st)
			code = cmp.Or(typ, code)
		}
	}
	ev.Status = int16(min(max(status, 0), 999))
	ev.ErrorType = CleanField(code)
	if ev.Status == 0 && (code == "" || code == "unknown") {
		ev.ErrorType = "connection_error"
	}
	delete(d.calls, r.SessionID) // the call is over
	if len(d.failed) > 100_000 {
		clear(d.failed)
	}
	d.failed[r.SessionID] = ev.Status
	emit(ev)
	return ingest.Accepted
}

// apiErrorText reads the status and error type from the text of a
// synthetic API-error record: "API Error: 529 {"type":"error","error":
// {"type":"overloaded_error",…}}". Such records are rare, so the line is
// decoded again in full rather than slowing every other line down.
func apiErrorText(line []byte) (status int, typ string, ok bool) {
	var rec struct {
		Message struct {
			Content []struct{ Type, Text string }
		}
	}
	if json.Unmarshal(line, &rec) != nil {
		return 0, "", false
	}
	for _, c := range rec.Message.Content {
		if status, typ, ok = apiErrorOf(c.Text); ok {
			return status, typ, ok
		}
	}
	return 0, "", false
}

// apiErrorOf reads "API Error: 529 {…}" (a synthetic record's text, a
// claude -p result's): its status and error type; ok when text is one.
func apiErrorOf(text string) (status int, typ string, ok bool) {
	rest, found := strings.CutPrefix(text, "API Error: ")
	if !found {
		return 0, "", false
	}
	if len(rest) >= 3 {
		if n, err := strconv.Atoi(rest[:3]); err == nil && n >= 100 && n <= 599 {
			status = n
			var body struct{ Error struct{ Type string } }
			if json.Unmarshal([]byte(strings.TrimSpace(rest[3:])), &body) == nil {
				typ = body.Error.Type
			}
			return status, typ, true
		}
	}
	return 0, "", true // "API Error: Connection error." and the like
}

// response is a completed call: the first record of a message.id (and
// requestId) is the call, a later one only its growth.
func (d *claudeDecoder) response(r *claudeRecord, emit func(*ingest.Event)) ingest.SkipReason {
	m := r.Message
	u := m.Usage
	if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadInputTokens < 0 || u.CacheCreationInputTokens < 0 {
		return ingest.SkipWrongType
	}
	var cc1h int64
	if cc := u.CacheCreation; cc != nil && cc.Ephemeral1h > 0 && cc.Ephemeral1h <= u.CacheCreationInputTokens {
		cc1h = cc.Ephemeral1h
	}
	cost, hasCost := 0.0, false
	dropImplausible := false
	switch d.mode {
	case CostAuto:
		if r.CostUSD != nil {
			cost, hasCost = *r.CostUSD, true
			// A costUSD its usage could not cost is forged or mistyped:
			// dropped and counted, priced by its tokens (issue 35, as
			// the agents' costs and cost_usd).
			if cost <= ingest.MaxCostPerCallUSD && !ingest.PlausibleCost(cost, satAdd(satAdd(u.InputTokens, u.OutputTokens), satAdd(u.CacheReadInputTokens, u.CacheCreationInputTokens))) {
				cost, hasCost = 0, false
				dropImplausible = true
			}
		}
	case CostDisplay:
		hasCost = true
		if r.CostUSD != nil {
			cost = *r.CostUSD
		}
	}
	var counted *claudeCounted
	if m.ID != "" {
		k := keyOf(m.ID, r.RequestID)
		if prev := d.seen[k]; prev != nil {
			return d.growth(r, prev, cc1h, cost, hasCost, emit)
		}
		if len(d.seen) >= maxSeen {
			clear(d.seen)
		}
		counted = &claudeCounted{usage: *u, cc1h: cc1h, costUSD: cost}
		counted.usage.CacheCreation = nil
		d.seen[k] = counted
	}
	ev := d.base(r)
	c := d.call(r)
	c.attempts++
	ev.Attempt = c.attempts
	ev.IdempotencyKey = c.key
	delete(d.calls, r.SessionID)
	ev.Status = 200
	ev.Model = CleanField(m.Model)
	ev.InputTokens, ev.OutputTokens = u.InputTokens, u.OutputTokens
	ev.CacheReadTokens, ev.CacheCreateTokens = u.CacheReadInputTokens, u.CacheCreationInputTokens
	ev.CacheCreate1hTokens = cc1h
	ev.Bill = u.Bill
	ev.CostUSD, ev.HasCost = cost, hasCost
	if dropImplausible {
		ev.Dropped |= ingest.DropImplausible
	}
	d.unread(ev)
	if m.ID != "" {
		ev.ResponseID = CleanID(m.ID + "\x00" + r.RequestID)
	}
	d.countSession(r.SessionID, m.Model, u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens)
	emit(ev)
	return ingest.Accepted
}

// growth is a later record of a response already counted: if it holds
// more than the largest seen (field by field), the response as it now
// stands, as a usage growth; correlate bills what that adds over what it
// has counted of the response (this file's records, or another file's).
// A record that adds nothing (the common repeat) is skipped.
func (d *claudeDecoder) growth(r *claudeRecord, prev *claudeCounted, cc1h int64, cost float64, hasCost bool, emit func(*ingest.Event)) ingest.SkipReason {
	u, p := r.Message.Usage, &prev.usage
	grew := false
	grow := func(have *int64, now int64) {
		if now > *have {
			*have, grew = now, true
		}
	}
	before := *p
	grow(&p.InputTokens, u.InputTokens)
	grow(&p.OutputTokens, u.OutputTokens)
	grow(&p.CacheReadInputTokens, u.CacheReadInputTokens)
	grow(&p.CacheCreationInputTokens, u.CacheCreationInputTokens)
	grow(&prev.cc1h, cc1h)
	if hasCost && cost > prev.costUSD {
		prev.costUSD, grew = cost, true
	}
	if !grew && !d.usageUnread {
		return ingest.SkipInfo // another content block, nothing more to bill
	}
	if p.InputTokens > ingest.MaxTokensPerCall || p.OutputTokens > ingest.MaxTokensPerCall || p.CacheReadInputTokens > ingest.MaxTokensPerCall ||
		p.CacheCreationInputTokens > ingest.MaxTokensPerCall || prev.costUSD > ingest.MaxCostPerCallUSD {
		// The response as a whole is past what any call has (Event.Check
		// bounds each event, and growth comes in pieces): the rest of it is
		// refused, as one implausible line would be.
		*p = claudeUsage{InputTokens: ingest.MaxTokensPerCall + 1, OutputTokens: ingest.MaxTokensPerCall + 1,
			CacheReadInputTokens: ingest.MaxTokensPerCall + 1, CacheCreationInputTokens: ingest.MaxTokensPerCall + 1}
		prev.costUSD = ingest.MaxCostPerCallUSD + 1
		return ingest.SkipImplausible
	}
	ev := d.base(r)
	ev.Kind = ingest.KindUsageGrowth
	ev.Status = 200
	ev.Model = CleanField(r.Message.Model)
	ev.ResponseID = CleanID(r.Message.ID + "\x00" + r.RequestID)
	ev.InputTokens, ev.OutputTokens = p.InputTokens, p.OutputTokens
	ev.CacheReadTokens, ev.CacheCreateTokens = p.CacheReadInputTokens, p.CacheCreationInputTokens
	ev.CacheCreate1hTokens = min(prev.cc1h, p.CacheCreationInputTokens)
	ev.Bill = p.Bill | u.Bill
	p.Bill = ev.Bill
	if hasCost {
		ev.CostUSD, ev.HasCost = prev.costUSD, true
	}
	ev.PromptTokens = p.InputTokens + p.CacheReadInputTokens + p.CacheCreationInputTokens
	d.unread(ev)
	d.countSession(r.SessionID, r.Message.Model, p.InputTokens-before.InputTokens, p.OutputTokens-before.OutputTokens,
		p.CacheReadInputTokens-before.CacheReadInputTokens, p.CacheCreationInputTokens-before.CacheCreationInputTokens)
	emit(ev)
	return ingest.Accepted
}

// compaction reads usage.iterations[] (Anthropic's server-side
// compaction): the compaction iterations' tokens are billed and are not
// in the top-level counts; addCompaction adds them.
func (d *claudeDecoder) compaction(sc *scanner, num func() int64) {
	if sc.peek() != '[' {
		sc.skip()
		return
	}
	sc.each(func() {
		if sc.peek() != '{' {
			sc.skip()
			return
		}
		d.it = iterUsage{}
		sc.object(func(k []byte) {
			switch string(k) {
			case "type":
				d.it.compaction = sc.strOrSkip() == "compaction"
			case "input_tokens":
				d.it.in = max(num(), 0)
			case "output_tokens":
				d.it.out = max(num(), 0)
			case "cache_read_input_tokens":
				d.it.cacheRead = max(num(), 0)
			case "cache_creation_input_tokens":
				d.it.cacheWrite = max(num(), 0)
			default:
				sc.skip()
			}
		})
		if d.it.compaction {
			c := &d.comp
			c.compaction = true
			c.in, c.out = satAdd(c.in, d.it.in), satAdd(c.out, d.it.out)
			c.cacheRead, c.cacheWrite = satAdd(c.cacheRead, d.it.cacheRead), satAdd(c.cacheWrite, d.it.cacheWrite)
		}
	})
}

func (d *claudeDecoder) addCompaction() {
	if c := d.comp; c.compaction {
		u := &d.usage
		u.Bill |= ingest.BillCompaction
		u.InputTokens, u.OutputTokens = satAdd(u.InputTokens, c.in), satAdd(u.OutputTokens, c.out)
		u.CacheReadInputTokens, u.CacheCreationInputTokens = satAdd(u.CacheReadInputTokens, c.cacheRead), satAdd(u.CacheCreationInputTokens, c.cacheWrite)
	}
}

// claudeSession is what a session has been billed, by model family, for
// a claude -p result's modelUsage to be reconciled against.
type claudeSession struct{ models map[string]*claudeUsage }

// maxSessionModels bounds the families kept per session; past it, the
// rest share one entry (a real session uses two or three models).
const maxSessionModels = 16

// countSession adds usage to its session's per-model sums.
func (d *claudeDecoder) countSession(session, model string, in, out, cr, cw int64) {
	k := keyOf(session, "")
	sess := d.sessions[k]
	if sess == nil {
		if len(d.sessions) >= maxSeen {
			clear(d.sessions)
		}
		sess = &claudeSession{models: map[string]*claudeUsage{}}
		d.sessions[k] = sess
	}
	fam := modelFamily(model)
	u := sess.models[fam]
	if u == nil {
		if len(sess.models) >= maxSessionModels {
			fam = "\x00other"
		} else if len(fam) > 128 {
			fam = string(capID([]byte(fam)))
		}
		if u = sess.models[fam]; u == nil {
			u = &claudeUsage{}
			sess.models[fam] = u
		}
	}
	u.InputTokens = satAdd(u.InputTokens, in)
	u.OutputTokens = satAdd(u.OutputTokens, out)
	u.CacheReadInputTokens = satAdd(u.CacheReadInputTokens, cr)
	u.CacheCreationInputTokens = satAdd(u.CacheCreationInputTokens, cw)
}

// result is claude -p's last record. Its modelUsage counts every call the
// session billed, internal ones (a haiku call naming the session, a
// summary) and retried failures included, which no assistant record
// shows: what it names beyond the records is added as usage growth, so a
// run that gave up on 529 after being billed is not $0. Its
// total_cost_usd, Claude Code's own figure, is reported beside the
// computed spend, not added to it.
func (d *claudeDecoder) result(r *claudeRecord, emit func(*ingest.Event)) ingest.SkipReason {
	if r.SessionID == "" {
		return ingest.SkipInfo
	}
	status := int16(200)
	if r.IsError {
		status = d.failed[r.SessionID] // 0 (unknown failure) when no give-up record came
	}
	emitted := false
	for _, mu := range r.ModelUsage {
		if mu.Input < 0 || mu.Output < 0 || mu.CacheRead < 0 || mu.CacheCreate < 0 {
			return ingest.SkipWrongType
		}
	}
	_, gaveUp := d.failed[r.SessionID]
	if !gaveUp && d.sessions[keyOf(r.SessionID, "")] == nil {
		// No assistant record came for the session (claude -p
		// --output-format json writes this record alone): the result is
		// all there is of the run's calls, so it stands for the last of
		// them, with the run's outcome, and modelUsage below bills them.
		status = d.lastCall(r, emit)
		emitted = true
	}
	// What modelUsage names beyond the records. A model is matched by its
	// family (modelUsage writes "claude-opus-4-6[1m]" or a Bedrock ID
	// where the records say "claude-opus-4-6"). An entry that matches
	// nothing may be a model the records spell some other way, so the
	// records of models modelUsage does not name are taken off it first:
	// what the records billed is never billed again.
	var sess *claudeSession
	if sess = d.sessions[keyOf(r.SessionID, "")]; sess == nil {
		sess = &claudeSession{models: map[string]*claudeUsage{}}
	}
	named := map[string]bool{}
	for _, mu := range r.ModelUsage {
		named[modelFamily(mu.Model)] = true
	}
	var unexplained claudeUsage // billed under families modelUsage does not name
	for fam, u := range sess.models {
		if !named[fam] {
			unexplained.InputTokens = satAdd(unexplained.InputTokens, u.InputTokens)
			unexplained.OutputTokens = satAdd(unexplained.OutputTokens, u.OutputTokens)
			unexplained.CacheReadInputTokens = satAdd(unexplained.CacheReadInputTokens, u.CacheReadInputTokens)
			unexplained.CacheCreationInputTokens = satAdd(unexplained.CacheCreationInputTokens, u.CacheCreationInputTokens)
		}
	}
	beyond := func(want int64, have, left *int64) int64 {
		if have != nil {
			return max(0, want-*have)
		}
		g := max(0, want-*left)
		*left = max(0, *left-want)
		return g
	}
	for _, mu := range r.ModelUsage {
		ev := d.base(r)
		ev.Kind = ingest.KindUsageGrowth
		ev.Status = status
		ev.Model = CleanField(mu.Model)
		if have := sess.models[modelFamily(mu.Model)]; have != nil {
			ev.InputTokens = beyond(mu.Input, &have.InputTokens, nil)
			ev.OutputTokens = beyond(mu.Output, &have.OutputTokens, nil)
			ev.CacheReadTokens = beyond(mu.CacheRead, &have.CacheReadInputTokens, nil)
			ev.CacheCreateTokens = beyond(mu.CacheCreate, &have.CacheCreationInputTokens, nil)
		} else {
			ev.InputTokens = beyond(mu.Input, nil, &unexplained.InputTokens)
			ev.OutputTokens = beyond(mu.Output, nil, &unexplained.OutputTokens)
			ev.CacheReadTokens = beyond(mu.CacheRead, nil, &unexplained.CacheReadInputTokens)
			ev.CacheCreateTokens = beyond(mu.CacheCreate, nil, &unexplained.CacheCreationInputTokens)
		}
		if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 {
			continue
		}
		d.countSession(r.SessionID, mu.Model, ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens)
		emit(ev)
		emitted = true
	}
	if r.TotalCostUSD != nil {
		ev := d.base(r)
		ev.Kind = ingest.KindAgentReport
		ev.CostUSD, ev.HasCost = *r.TotalCostUSD, true
		emit(ev)
		emitted = true
	}
	delete(d.failed, r.SessionID)
	if !emitted {
		return ingest.SkipInfo
	}
	return ingest.Accepted
}

// lastCall is the attempt a result record stands for when no assistant
// record showed the run's calls: 200, or for is_error the status its
// text gives ("API Error: 529 {…}"; 0 with the subtype as the error, as
// "error_max_turns", when it names none). The model is the one that wrote
// most of the run's output. It returns the status.
func (d *claudeDecoder) lastCall(r *claudeRecord, emit func(*ingest.Event)) int16 {
	ev := d.base(r)
	c := d.call(r)
	c.attempts++
	ev.Attempt = c.attempts
	ev.IdempotencyKey = c.key
	delete(d.calls, r.SessionID) // the run is over
	ev.Status = 200
	if r.IsError {
		st, typ, ok := apiErrorOf(r.Result)
		ev.Status = int16(min(max(st, 0), 999))
		switch {
		case typ != "":
			ev.ErrorType = CleanField(typ)
		case ok && st == 0:
			ev.ErrorType = "connection_error"
		case !ok:
			ev.ErrorType = CleanField(cmp.Or(r.Subtype, "is_error"))
		}
	}
	var most int64 = -1
	for _, mu := range r.ModelUsage {
		if mu.Output > most {
			most, ev.Model = mu.Output, CleanField(mu.Model)
		}
	}
	emit(ev)
	return ev.Status
}

// satAdd adds token counts without wrapping (a hostile transcript's sums).
func satAdd(a, b int64) int64 {
	if c := a + b; c >= a {
		return c
	}
	return 1<<63 - 1
}
