package decode

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Claude Code session transcripts: ~/.claude/projects/<project>/<session>.jsonl,
// with subagents in <session>/subagents/agent-*.jsonl (their records carry
// the parent's sessionId). One API response is written once per content
// block, so records repeating a message.id and requestId are one response,
// counted once — the first, as ccusage does. Claude Code also retries on
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
}

type claudeMessage struct {
	ID, Model string
	Usage     *claudeUsage
}

// claudeRecord is what a transcript line says about API calls.
type claudeRecord struct {
	Type, Subtype, SessionID, Cwd, Timestamp, RequestID, UUID string
	CostUSD                                                   *float64
	IsAPIError                                                bool
	APIErrorSt                                                int
	ErrorStatus                                               int    // error.status of an api_error record
	ErrorCode                                                 string // error as a string, on the give-up record
	Message                                                   *claudeMessage
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
	seen  map[string]struct{}    // message.id + requestId already counted
}

func newClaudeDecoder(p *Parser, mode CostMode) *claudeDecoder {
	if mode == "" {
		mode = CostAuto
	}
	return &claudeDecoder{p: p, mode: mode, calls: map[string]*claudeCall{}, seen: map[string]struct{}{}}
}

// maxSeen bounds the de-duplication memory: past it, the oldest half is
// not remembered (a repeat that far apart is not a content-block repeat).
const maxSeen = 1 << 20

func (d *claudeDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	r, sr := d.scan(line)
	if sr != ingest.Accepted {
		return sr
	}
	switch {
	case r.Type == "system" && r.Subtype == "api_error":
		return d.retry(r, emit)
	case r.Type == "assistant" && r.IsAPIError:
		return d.gaveUp(r, emit)
	case r.Type == "assistant" && r.Message != nil && r.Message.Usage != nil:
		return d.response(r, emit)
	}
	return ingest.SkipInfo // user turns, summaries, snapshots: not API calls
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
	*r = claudeRecord{}
	d.msg, d.usage, d.cc = claudeMessage{}, claudeUsage{}, claudeCacheSplit{}
	sc := &d.sc
	sc.reset(line)
	wrong := false
	str := func() string {
		if sc.peek() != '"' {
			sc.skip()
			return ""
		}
		return string(sc.str())
	}
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
	sc.object(func(k []byte) {
		switch string(k) {
		case "type":
			r.Type = str()
		case "subtype":
			r.Subtype = str()
		case "sessionId":
			r.SessionID = str()
		case "cwd":
			r.Cwd = str()
		case "timestamp":
			r.Timestamp = str()
		case "requestId":
			r.RequestID = str()
		case "uuid":
			r.UUID = str()
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
					sc.object(func(k []byte) {
						switch string(k) {
						case "input_tokens":
							d.usage.InputTokens = num()
						case "output_tokens":
							d.usage.OutputTokens = num()
						case "cache_read_input_tokens":
							d.usage.CacheReadInputTokens = num()
						case "cache_creation_input_tokens":
							d.usage.CacheCreationInputTokens = num()
						case "cache_creation":
							if sc.peek() != '{' {
								sc.skip()
								return
							}
							d.usage.CacheCreation = &d.cc
							sc.object(func(k []byte) {
								switch string(k) {
								case "ephemeral_5m_input_tokens":
									d.cc.Ephemeral5m = num()
								case "ephemeral_1h_input_tokens":
									d.cc.Ephemeral1h = num()
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

func (d *claudeDecoder) base(r *claudeRecord) *ingest.Event {
	ev := &d.ev
	ev.Reset()
	ev.Kind, ev.Provider = ingest.KindLLMCall, "anthropic"
	ev.JobID = CleanField(r.SessionID)
	if r.Cwd != "" {
		ev.JobType = CleanField(path.Base(strings.ReplaceAll(r.Cwd, "\\", "/")))
	}
	if ts, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil {
		ev.TS = unixNanoInRange(ts)
		d.p.lastTS = ev.TS
	} else {
		ev.TS = d.p.lastTS
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
		c = &claudeCall{key: CleanField("cc:" + r.SessionID + ":" + id)}
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

// gaveUp is the last failed attempt: Claude Code stopped retrying.
func (d *claudeDecoder) gaveUp(r *claudeRecord, emit func(*ingest.Event)) ingest.SkipReason {
	ev := d.base(r)
	c := d.call(r)
	c.attempts++
	ev.Attempt = c.attempts
	ev.IdempotencyKey = c.key
	ev.Status = int16(min(max(r.APIErrorSt, 0), 999))
	code := r.ErrorCode
	ev.ErrorType = CleanField(code)
	if ev.Status == 0 && code == "" {
		ev.ErrorType = "connection_error"
	}
	delete(d.calls, r.SessionID) // the call is over
	emit(ev)
	return ingest.Accepted
}

// response is a completed call, once per message.id and requestId.
func (d *claudeDecoder) response(r *claudeRecord, emit func(*ingest.Event)) ingest.SkipReason {
	m := r.Message
	if m.ID != "" && r.RequestID != "" {
		k := m.ID + "\x00" + r.RequestID
		if _, dup := d.seen[k]; dup {
			return ingest.SkipInfo // another content block of a response already counted
		}
		if len(d.seen) >= maxSeen {
			clear(d.seen)
		}
		d.seen[k] = struct{}{}
	}
	ev := d.base(r)
	c := d.call(r)
	c.attempts++
	ev.Attempt = c.attempts
	ev.IdempotencyKey = c.key
	delete(d.calls, r.SessionID)
	ev.Status = 200
	if m.Model != "<synthetic>" {
		ev.Model = CleanField(m.Model)
	}
	u := m.Usage
	if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadInputTokens < 0 || u.CacheCreationInputTokens < 0 {
		return ingest.SkipWrongType
	}
	ev.InputTokens, ev.OutputTokens = u.InputTokens, u.OutputTokens
	ev.CacheReadTokens, ev.CacheCreateTokens = u.CacheReadInputTokens, u.CacheCreationInputTokens
	if cc := u.CacheCreation; cc != nil && cc.Ephemeral1h > 0 && cc.Ephemeral1h <= u.CacheCreationInputTokens {
		ev.CacheCreate1hTokens = cc.Ephemeral1h
	}
	switch d.mode {
	case CostAuto:
		if r.CostUSD != nil {
			ev.CostUSD, ev.HasCost = *r.CostUSD, true
		}
	case CostDisplay:
		ev.HasCost = true
		if r.CostUSD != nil {
			ev.CostUSD = *r.CostUSD
		}
	}
	emit(ev)
	return ingest.Accepted
}
