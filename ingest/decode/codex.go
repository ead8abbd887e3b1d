package decode

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// OpenAI Codex CLI session rollouts: ${CODEX_HOME:-~/.codex}/sessions/
// YYYY/MM/DD/rollout-<stamp>-<uuid>.jsonl, one {"timestamp","type",
// "payload"} record per line (codex-rs/protocol's RolloutItem):
//
//   - session_meta, first: payload.id is the session (no other line names
//     it), payload.cwd the project, payload.model_provider who serves it;
//   - turn_context: payload.model, the model of the turn's calls (the
//     token counts name none);
//   - event_msg with payload.type "token_count": payload.info (null when
//     only rate limits changed) holds total_token_usage, the session's
//     running sum, and last_token_usage, the latest call's.
//
// Codex writes the same snapshot more than once (again when only
// rate_limits change), so summing every token_count doubles the bill: a
// call is a token_count whose cumulative total moved, and its usage is
// last_token_usage. OpenAI's meaning holds: input_tokens include
// cached_input_tokens, and reasoning_output_tokens are inside
// output_tokens. A rollout without token_count events has no usage: it
// gives no calls rather than invented ones. Older rollouts (codex-rs's
// EventMsg::TokenCount(TokenUsage), before TokenCountEvent{info,
// rate_limits}) write the usage flat in the payload —
// {"type":"token_count","input_tokens":…,"cached_input_tokens":…,
// "output_tokens":…} — one per response (the TUI of that time added each
// to its running total: codex-rs/tui/src/chatwidget.rs, 2025), so each is
// a call. An info with a running total but no last_token_usage bills what
// the total moved by. A stream_error event
// ("Reconnecting... 2/5") is a failed attempt of the call in flight,
// which the next counted call completes; an error event (Codex gave up:
// "exceeded retry limit, last status: 429 …") is its last failed attempt
// and ends it, as a turn_aborted after failed attempts does.

type codexUsage struct {
	Input, Cached, Output, Reasoning, Total int64
}

type codexDecoder struct {
	p  *Parser
	sc scanner
	ev ingest.Event

	session, cwd, provider, model string
	fileSession                   string // from the file name: for a follower that skipped session_meta
	// A forked rollout (session_meta.forked_from_id) copies its parent's
	// history — the parent's session_meta and token_count events
	// included — before its own turns. forkAt is the copied session_meta's
	// time: token counts up to a moment after it are the parent's, billed
	// in the parent's own file, and only move the running total here.
	forked       bool
	forkAt       int64
	metaSeen     bool
	total        codexUsage // the last cumulative total counted
	calls        int        // calls counted, for the call keys
	tries        int16      // attempts of the call in flight
	typ, ts, msg string     // the line's type, timestamp, stream_error message
	payloadType  string
	hasInfo      bool
	hasLast      bool       // info held last_token_usage
	hasFlat      bool       // the usage was flat in the payload (older Codex)
	last, cum    codexUsage // flat usage is read into last
	tokenCounts  int        // token_count events seen, for the hint
}

// rolloutName is Codex's file name: rollout-<stamp>-<session uuid>.jsonl.
var rolloutName = regexp.MustCompile(`^rollout-[0-9T:-]+-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$`)

func newCodexDecoder(p *Parser, source string) *codexDecoder {
	d := &codexDecoder{p: p}
	if m := rolloutName.FindStringSubmatch(filepath.Base(source)); m != nil {
		d.fileSession = m[1] // until session_meta says (it always does, unless skipped)
	}
	return d
}

func (d *codexDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	line, skip := prelude(line, 0)
	switch {
	case skip != ingest.Accepted:
		return skip
	case line[0] != '{':
		return ingest.SkipInvalidJSON
	}
	if sr := d.scan(line); sr != ingest.Accepted {
		return sr
	}
	switch {
	case d.typ == "event_msg" && d.payloadType == "token_count":
		return d.tokenCount(emit)
	case d.typ == "event_msg" && d.payloadType == "stream_error":
		return d.streamError(emit)
	case d.typ == "event_msg" && d.payloadType == "error":
		return d.gaveUp(emit)
	case d.typ == "event_msg" && d.payloadType == "turn_aborted" && d.tries > 0:
		// The turn ended with its call failing (interrupted between
		// retries): the next turn's call is an operation of its own.
		d.calls++
		d.tries = 0
	}
	switch d.typ {
	case "session_meta", "turn_context", "event_msg", "response_item", "compacted":
		return ingest.SkipInfo // messages, reasoning, tool calls, turn contexts: not calls
	}
	// Not a record Codex writes: left to the reader of its own shape
	// (shape.go), as an app's line in the same stream is.
	return ingest.SkipUnknownEvent
}

// scan picks the fields a record needs, skipping content without
// decoding it (response_item lines carry whole tool outputs).
func (d *codexDecoder) scan(line []byte) ingest.SkipReason {
	sc := &d.sc
	sc.reset(line)
	d.typ, d.ts, d.payloadType, d.msg, d.hasInfo, d.hasLast, d.hasFlat = "", "", "", "", false, false, false
	d.last, d.cum = codexUsage{}, codexUsage{}
	wrong := false
	str := sc.strOrSkip
	num := func() int64 {
		if c := sc.peek(); c < '0' || c > '9' {
			if c == '-' {
				wrong = true
			}
			sc.skip()
			return 0
		}
		n, err := strconv.ParseInt(string(sc.num()), 10, 64)
		if err != nil {
			wrong = true
		}
		return n
	}
	usage := func(u *codexUsage) {
		if sc.peek() != '{' {
			sc.skip()
			return
		}
		sc.object(func(k []byte) {
			switch string(k) {
			case "input_tokens":
				u.Input = num()
			case "cached_input_tokens":
				u.Cached = num()
			case "output_tokens":
				u.Output = num()
			case "reasoning_output_tokens":
				u.Reasoning = num()
			case "total_tokens":
				u.Total = num()
			default:
				sc.skip()
			}
		})
	}
	var meta struct{ id, cwd, provider, model, forkedFrom string }
	sc.object(func(k []byte) {
		switch string(k) {
		case "type":
			d.typ = str()
		case "timestamp":
			d.ts = str()
		case "payload":
			if sc.peek() != '{' {
				sc.skip()
				return
			}
			sc.object(func(k []byte) {
				switch string(k) {
				case "type":
					d.payloadType = str()
				case "id":
					meta.id = str()
				case "cwd":
					meta.cwd = str()
				case "model_provider":
					meta.provider = str()
				case "forked_from_id":
					meta.forkedFrom = str()
				case "model":
					meta.model = str()
				case "message":
					d.msg = str()
				case "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens":
					// older Codex: TokenUsage flat in the payload
					d.hasFlat = true
					n := num()
					switch string(k) {
					case "input_tokens":
						d.last.Input = n
					case "cached_input_tokens":
						d.last.Cached = n
					case "output_tokens":
						d.last.Output = n
					case "reasoning_output_tokens":
						d.last.Reasoning = n
					default:
						d.last.Total = n
					}

				case "info":
					if sc.peek() != '{' {
						sc.skip() // null: only the rate limits changed
						return
					}
					d.hasInfo = true
					sc.object(func(k []byte) {
						switch string(k) {
						case "total_token_usage":
							usage(&d.cum)
						case "last_token_usage":
							d.hasLast = sc.peek() == '{'
							usage(&d.last)
						default:
							sc.skip()
						}
					})
				default:
					sc.skip() // content, instructions, rate limits
				}
			})
		default:
			sc.skip()
		}
	})
	sc.ws()
	switch {
	case sc.tooDeep:
		return ingest.SkipTooDeep
	case sc.err || sc.i != len(sc.b):
		return ingest.SkipInvalidJSON
	case wrong:
		return ingest.SkipWrongType
	}
	switch d.typ {
	case "session_meta":
		if d.metaSeen {
			// A copied parent header: the file keeps its own session.
			if d.forked {
				d.forkAt = rolloutTime(d.ts)
			}
			break
		}
		d.metaSeen = true
		// Strings kept across lines are copies: the line's buffer is reused.
		d.session, d.cwd = strings.Clone(meta.id), strings.Clone(meta.cwd)
		d.provider = strings.Clone(meta.provider)
		d.forked = meta.forkedFrom != ""
		d.total, d.calls, d.tries = codexUsage{}, 0, 0
	case "turn_context":
		if meta.model != "" {
			d.model = strings.Clone(meta.model)
		}
		if meta.cwd != "" && d.cwd == "" {
			d.cwd = strings.Clone(meta.cwd)
		}
	}
	return ingest.Accepted
}

func (d *codexDecoder) base() *ingest.Event {
	ev := &d.ev
	ev.Reset()
	ev.Kind, ev.AgentSession = ingest.KindLLMCall, true
	ev.Provider = "openai"
	if d.provider != "" && d.provider != "openai" {
		ev.Provider = CleanField(d.provider) // an SSO proxy or another host: said as it is
	}
	session := cmp.Or(d.session, d.fileSession)
	ev.JobID = CleanID(session)
	if d.cwd != "" {
		ev.JobType = CleanField(path.Base(strings.ReplaceAll(d.cwd, "\\", "/")))
	}
	ev.Model = CleanField(d.model)
	if ts, err := time.Parse(time.RFC3339Nano, d.ts); err == nil {
		ev.TS = unixNanoInRange(ts)
		d.p.lastTS = ev.TS
	} else {
		ev.TS, ev.TSCarried = d.p.lastTS, true
	}
	ev.IdempotencyKey = CleanID("codex:" + session + ":" + strconv.Itoa(d.calls+1))
	return ev
}

// tokenCount is a call when the session's cumulative total moved.
func (d *codexDecoder) tokenCount(emit func(*ingest.Event)) ingest.SkipReason {
	d.tokenCounts++
	if d.hasFlat && !d.hasInfo {
		// Older Codex: one flat event per response, no running total.
		d.cum = codexUsage{Input: satAdd(d.total.Input, d.last.Input), Cached: satAdd(d.total.Cached, d.last.Cached),
			Output: satAdd(d.total.Output, d.last.Output), Reasoning: satAdd(d.total.Reasoning, d.last.Reasoning), Total: satAdd(d.total.Total, d.last.Total)}
		if d.last == (codexUsage{}) {
			return ingest.SkipInfo // no usage at all
		}
	} else if !d.hasInfo || d.cum == d.total {
		return ingest.SkipInfo // rate limits only, or the same snapshot again
	} else if !d.hasLast {
		// A running total alone: the call is what it moved by.
		sub := func(now, was int64) int64 { return max(0, now-was) }
		d.last = codexUsage{Input: sub(d.cum.Input, d.total.Input), Cached: sub(d.cum.Cached, d.total.Cached),
			Output: sub(d.cum.Output, d.total.Output), Reasoning: sub(d.cum.Reasoning, d.total.Reasoning), Total: sub(d.cum.Total, d.total.Total)}
		d.last.Cached = min(d.last.Cached, d.last.Input)
		d.last.Reasoning = min(d.last.Reasoning, d.last.Output)
	}
	if d.forked && d.forkAt != 0 && rolloutTime(d.ts) <= d.forkAt+2*int64(time.Second) {
		// The parent's history, copied when the fork was made (within
		// moments of its copied header): billed in the parent's file.
		d.total = d.cum
		return ingest.SkipInfo
	}
	u := d.last
	if u.Cached > u.Input || u.Reasoning > u.Output {
		return ingest.SkipWrongType // the parts cannot exceed their whole
	}
	d.total = d.cum // a sum that went back (a reset) moved too: a call
	ev := d.base()
	d.calls++
	d.tries++
	ev.Attempt = d.tries
	d.tries = 0
	ev.Status = 200
	ev.SetInclusiveInput(u.Input, u.Cached, 0)
	ev.OutputTokens = u.Output // reasoning tokens are inside, billed as output
	emit(ev)
	return ingest.Accepted
}

// streamError is a failed attempt Codex retries ("Reconnecting... 2/5",
// or the message of the error that ended the stream).
func (d *codexDecoder) streamError(emit func(*ingest.Event)) ingest.SkipReason {
	ev := d.base()
	d.tries = min(d.tries+1, 1<<14)
	ev.Attempt = d.tries
	ev.Status = 0
	ev.ErrorType = "stream_error"
	if st := statusIn(d.msg); st != 0 {
		ev.Status = st
	}
	emit(ev)
	return ingest.Accepted
}

// gaveUp is the error that ends a turn ({"type":"error","message":
// "exceeded retry limit, last status: 429 Too Many Requests, …"}, codex-rs
// EventMsg::Error): the last failed attempt of the call in flight, whose
// operation it closes — the next turn's call is its own operation, not
// the success of this one's retries.
func (d *codexDecoder) gaveUp(emit func(*ingest.Event)) ingest.SkipReason {
	ev := d.base()
	d.tries = min(d.tries+1, 1<<14)
	ev.Attempt = d.tries
	ev.Status = statusIn(d.msg)
	ev.ErrorType = "codex_error"
	d.calls++
	d.tries = 0
	emit(ev)
	return ingest.Accepted
}

// rolloutTime is a record's timestamp in Unix ns, 0 when it has none.
func rolloutTime(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixNano()
}

// Hint says why a rollout gave no calls.
func (d *codexDecoder) Hint(events int64) string {
	switch {
	case events > 0 || !d.metaSeen:
	case d.tokenCounts == 0:
		return "this Codex rollout has no token_count events: Codex recorded no usage for it, so its calls cannot be counted (none are invented)"
	default:
		return fmt.Sprintf("this Codex rollout's %d token_count event(s) carry no usage (rate limits only, or usage that did not read): its calls cannot be counted (none are invented)", d.tokenCounts)
	}
	return ""
}

// statusIn finds an HTTP status in an error message ("… status 429 Too
// Many Requests", "unexpected status 503"), 0 when none.
func statusIn(msg string) int16 {
	for _, marker := range []string{"status: ", "status ", "status="} {
		if i := strings.Index(msg, marker); i >= 0 {
			rest := msg[i+len(marker):]
			if len(rest) >= 3 {
				if n, err := strconv.Atoi(rest[:3]); err == nil && n >= 100 && n <= 599 {
					return int16(n)
				}
			}
		}
	}
	return 0
}
