package decode

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
)

// Declared assumptions (seed 003): a run writes the premises it depends on
// at its top, as
//
//	[assumptions] {"anthropic-sdk.maxRetries":0,"retry.owner":"wrapper.withSingleOwnerRetry"}
//
// anywhere on a text line (after a logger's prefix, too), or as a JSON
// record {"event":"assumptions", …}: its "assumptions" object, else its
// keys other than the record's own (time, job, level, message). Nested
// objects flatten to dotted keys ({"anthropic-sdk":{"maxRetries":0}} is
// anthropic-sdk.maxRetries), as a TOML table does.

// assumptionMarker begins seed 003's line.
var assumptionMarker = []byte("[assumptions]")

// declarationPrefix is what may stand before the marker on a text line:
// nothing, or a logger's prefix that ends with its level — "2026-07-01
// 01:00:00,001 - jobs - INFO - ", "INFO:jobs:", "[2026-07-01 01:00:00]
// [INFO] ", structlog's "… [info     ] ", loguru's "… | INFO     |
// module:func:12 - ", Ruby's "I, […]  INFO -- : ", "level=info msg=" —
// so the marker begins the message: after the level at most one word
// (the logger's name) and separators. A marker further into a message
// is the message's text.
var declarationPrefix = regexp.MustCompile(`^(?:|.{0,200}?(?i:\b(?:info|notice|warn|warning|debug|error|trace)\b)\s*\]?(?:[\s\-:|>]+(?:[\w.:<>/\[\]-]{1,128}[\s\-:|>]+)?)?(?:msg=)?)$`)

// Provenances of declared assumptions, as the report shows them.
const (
	FromLogLine = "log line"
	FromRecord  = "assumptions record"
)

// assumptionMaxDepth is how deep a declaration's objects flatten; a value
// deeper is kept as its JSON text.
const assumptionMaxDepth = 4

// recordMetaKeys are an assumptions record's own keys, never premises.
var recordMetaKeys = map[string]bool{"event": true, "type": true, "ts": true, "time": true, "timestamp": true, "@timestamp": true,
	"job_id": true, "job_type": true, "run_id": true, "level": true, "msg": true, "message": true, "logger": true, "name": true}

// assumptionLine reads seed 003's line. It returns how many assumptions
// it emitted, 0 when the line is not one, -1 when it is one that did not
// read (a truncated or invalid object).
func (t *sdkText) assumptionLine(line []byte, emit func(*ingest.Event)) int {
	at := bytes.Index(line, assumptionMarker)
	if at < 0 {
		return 0
	}
	if !declarationPrefix.Match(line[:at]) {
		// Not where a run prints its premises: the marker inside a
		// message's text (a prompt echoed, a model's output) is no
		// declaration — one such line armed kill_on for 500 jobs.
		return 0
	}
	obj := bytes.TrimSpace(line[at+len(assumptionMarker):])
	if len(obj) == 0 || obj[0] != '{' {
		return -1
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return -1
	}
	base := t.base(line[:at])
	base.Kind, base.Status = ingest.KindAssumption, ingest.StatusUnknown
	// A bare line is run-wide: the job type of the JSON line before it is
	// not its own (two nights in one log took the second night's line for
	// a job type's, and raised a false assumption_violated).
	base.Model, base.Provider, base.JobID, base.CorrelationID, base.JobType = "", "", "", "", ""
	return emitAssumptions(base, FromLogLine, m, emit)
}

// assumptionMessage reads seed 003's line written through a structured
// logger: {"level":30,"time":…,"msg":"[assumptions] {…}"} (pino, bunyan,
// structlog, zap). ev is what the parser read of the record (its time,
// job type); 0 when the record holds no such message.
func (p *Parser) assumptionMessage(line []byte, ev *ingest.Event, emit func(*ingest.Event)) int {
	if !bytes.Contains(line, assumptionMarker) {
		return 0
	}
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return 0
	}
	for _, k := range [...]string{"msg", "message", "event", "log", "text"} {
		s, ok := m[k].(string)
		if !ok {
			continue
		}
		// The message is the declaration only when it begins with the
		// marker: further in, it is text the record carries.
		msg := strings.TrimSpace(s)
		if !strings.HasPrefix(msg, string(assumptionMarker)) {
			continue
		}
		obj := strings.TrimSpace(msg[len(assumptionMarker):])
		var decl map[string]any
		dec := json.NewDecoder(strings.NewReader(obj))
		dec.UseNumber()
		if !strings.HasPrefix(obj, "{") || dec.Decode(&decl) != nil {
			return -1
		}
		out := p.declaration(ev)
		return emitAssumptions(&out, FromLogLine, decl, emit)
	}
	return 0
}

// assumptionRecord reads {"event":"assumptions", …}: ev is what the parser
// read of it (time, job type).
func (p *Parser) assumptionRecord(line []byte, ev *ingest.Event, emit func(*ingest.Event)) int {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return -1
	}
	if inner, ok := m["assumptions"].(map[string]any); ok {
		m = inner
	} else {
		for k := range m {
			if recordMetaKeys[k] {
				delete(m, k)
			}
		}
	}
	out := p.declaration(ev)
	return emitAssumptions(&out, FromRecord, m, emit)
}

// emitAssumptions emits one event per flattened key of m, in key order, at
// most ingest.MaxAssumptionsPerRecord of them; -1 when m holds none.
func emitAssumptions(base *ingest.Event, from string, m map[string]any, emit func(*ingest.Event)) int {
	flat := make(map[string]string, min(len(m), ingest.MaxAssumptionsPerRecord))
	FlattenAssumptions("", m, 0, flat)
	if len(flat) == 0 {
		return -1
	}
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	n := 0
	for _, k := range keys {
		ev := *base
		ev.SetAssumption(from, k, flat[k])
		emit(&ev)
		n++
	}
	return n
}

// FlattenAssumptions adds v's keys, dotted under prefix, to out as
// sanitised, bounded text: strings as they are, numbers, booleans and
// null as JSON writes them, arrays and objects past assumptionMaxDepth as
// their compact JSON. It stops at ingest.MaxAssumptionsPerRecord keys.
// The TOML reader uses it too, so both sources name keys alike.
func FlattenAssumptions(prefix string, v any, depth int, out map[string]string) {
	obj, isObj := v.(map[string]any)
	if !isObj || depth >= assumptionMaxDepth {
		if prefix != "" && len(out) < ingest.MaxAssumptionsPerRecord {
			out[AssumptionText(prefix, ingest.MaxAssumptionKeyBytes)] = AssumptionValueText(v)
		}
		return
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same keys kept whatever the map's order
	for _, k := range keys {
		if len(out) >= ingest.MaxAssumptionsPerRecord {
			return
		}
		if k == "" {
			continue
		}
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		FlattenAssumptions(name, obj[k], depth+1, out)
	}
}

// AssumptionValueText is a declared value as the log shows it.
func AssumptionValueText(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case nil:
		s = "null"
	default:
		b, err := json.Marshal(x)
		if err != nil {
			s = "?"
		} else {
			s = string(b)
		}
	}
	return AssumptionText(s, ingest.MaxAssumptionValueBytes)
}

// AssumptionText makes untrusted text safe and bounded: display.Text's
// escapes (no control character survives, so the packing's separator
// cannot either), cut at max bytes on a character boundary with "…".
func AssumptionText(s string, max int) string {
	if len(s) > 4*max {
		s = s[:4*max] // escaping only grows it: no need to escape a megabyte
	}
	s = display.Text(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// declaration is the assumption event a JSON line's record makes: its
// time (or, without one, the line before it's) and job type, nothing of a
// call.
func (p *Parser) declaration(ev *ingest.Event) ingest.Event {
	out := *ev
	out.Kind, out.Status = ingest.KindAssumption, ingest.StatusUnknown
	out.Model, out.Provider, out.JobID, out.CorrelationID, out.ErrorType, out.Tool = "", "", "", "", "", ""
	if out.TS == 0 {
		out.TS, out.TSCarried = p.lastTS, true
	} else {
		p.lastTS = out.TS
	}
	return out
}
