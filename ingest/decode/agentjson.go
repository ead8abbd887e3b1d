package decode

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Helpers the agent decoders of issue 35 share (OpenCode, Copilot CLI,
// Continue, Pi, Qwen Code): each field of a record is read alone, and one
// that does not read costs that field (counted in ev.Dropped), never the
// record.

// jsonCount reads a token count: a JSON number that is a whole count in
// range. Absent or null is 0; anything else (a string, a fraction, a
// negative or implausible count, NaN written as a string) is dropped.
func jsonCount(ev *ingest.Event, raw json.RawMessage) int64 {
	if len(raw) == 0 || string(raw) == "null" {
		return 0
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f < 0 || f > ingest.MaxTokensPerCall || f != math.Trunc(f) {
		ev.Dropped |= ingest.DropWrongType
		return 0
	}
	return int64(f)
}

// jsonCost reads a producer's own cost in USD: ok only for a number in
// [0, MaxCostPerCallUSD]; any other value is dropped.
func jsonCost(ev *ingest.Event, raw json.RawMessage) (usd float64, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false
	}
	if json.Unmarshal(raw, &usd) != nil || !(usd >= 0 && usd <= ingest.MaxCostPerCallUSD) {
		ev.Dropped |= ingest.DropWrongType
		return 0, false
	}
	return usd, true
}

// jsonString reads a string field; another type reads as "".
func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		json.Unmarshal(raw, &s)
	}
	return s
}

// setProducerCost keeps what the producer says the call cost beside our
// own computation, as Cline's cost is carried (ev.CostUSD, HasCost). A
// zero is no evidence: the agents write 0 for a subscription or an
// unknown price (OpenCode on a Claude Max login, Pi on a local model),
// and taking it would bill the call $0. A cost its own tokens could not
// cost (ingest.PlausibleCost, as Cline's) is a forged or mistyped field:
// dropped and counted (implausible_field), the call priced by its tokens
// (issue 35). The event's tokens must be set before.
func setProducerCost(ev *ingest.Event, raw json.RawMessage) {
	c, ok := jsonCost(ev, raw)
	if !ok || c <= 0 {
		return
	}
	if !ingest.PlausibleCost(c, satAdd(satAdd(ev.InputTokens, ev.OutputTokens), satAdd(ev.CacheReadTokens, ev.CacheCreateTokens))) {
		ev.Dropped |= ingest.DropImplausible
		return
	}
	ev.CostUSD, ev.HasCost = c, true
}

// setTSMillis sets ev.TS from Unix milliseconds, or carries the last time.
func setTSMillis(p *Parser, ev *ingest.Event, ms int64) {
	if ms > 0 && ms < ingest.MaxTS/1_000_000 {
		ev.TS = ms * 1_000_000
		p.lastTS = ev.TS
		return
	}
	ev.TS, ev.TSCarried = p.lastTS, true
}

// setTSText sets ev.TS from an RFC 3339 time, or carries the last time.
func setTSText(p *Parser, ev *ingest.Event, s string) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if ns := unixNanoInRange(t); ns > 0 {
			ev.TS = ns
			p.lastTS = ns
			return
		}
	}
	ev.TS, ev.TSCarried = p.lastTS, true
}

// jsonMillis reads Unix milliseconds (a number); 0 when it does not read.
func jsonMillis(raw json.RawMessage) int64 {
	var f float64
	if json.Unmarshal(raw, &f) != nil || !(f > 0 && f < ingest.MaxTS/1_000_000) {
		return 0
	}
	return int64(f)
}

// agentCall resets ev as one answered call of an agent's session.
func agentCall(ev *ingest.Event, job string) {
	ev.Reset()
	ev.Kind, ev.AgentSession = ingest.KindLLMCall, true
	ev.JobID = CleanID(job)
	ev.Attempt, ev.Status = 1, 200
}

// decodeRecord is decodeObject for the agents' records, read field by
// field: a top-level field of the wrong type (a number where a string
// is, a string where an object is) is that field lost, left zero, never
// the record (encoding/json gives up on the whole object at the first).
// Keys match a field's json tag, else its name, case-insensitively, as
// encoding/json matches them.
func decodeRecord(rec []byte, v any) ingest.SkipReason {
	rec, skip := prelude(rec, 0)
	switch {
	case skip != ingest.Accepted:
		return skip
	case rec[0] != '{':
		return ingest.SkipNotObject
	}
	// The common case, a record as its producer writes it, in one pass.
	rv := reflect.ValueOf(v).Elem()
	if json.Unmarshal(rec, v) == nil {
		return ingest.Accepted
	}
	rv.SetZero()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(rec, &m); err != nil {
		return wrongJSON(err)
	}
	rt := rv.Type()
	var lower map[string]json.RawMessage
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		raw, ok := m[name]
		if !ok {
			if lower == nil { // once a record, and only when a key is not written as its tag
				lower = make(map[string]json.RawMessage, len(m))
				for k, r := range m {
					if _, seen := lower[strings.ToLower(k)]; !seen {
						lower[strings.ToLower(k)] = r
					}
				}
			}
			raw, ok = lower[strings.ToLower(name)]
		}
		if !ok {
			continue
		}
		if json.Unmarshal(raw, rv.Field(i).Addr().Interface()) != nil {
			rv.Field(i).SetZero()
		}
	}
	return ingest.Accepted
}
