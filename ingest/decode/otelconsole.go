package decode

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// The OpenTelemetry Python SDK's ConsoleSpanExporter (span.to_json()),
// and PromptFlow's spans as its trace service lists them (the same shape,
// a JSON array of them, times without a zone; an LLM span's usage in
// llm.usage.*, its model in llm.response.model):
// pretty-printed JSON objects one after another, separated by a line
// break — not JSON lines, not OTLP. Each is one span: {name, context:
// {trace_id:"0x…", span_id:"0x…"}, kind:"SpanKind.CLIENT", parent_id,
// start_time, end_time (ISO 8601), status:{status_code:"UNSET"|"OK"|
// "ERROR", description?}, attributes:{flat dotted keys}, events, links,
// resource:{attributes:{…}}}. Its status is an object, which the JSON-lines
// reader took for a status of the wrong type (387 spans dropped).
//
// Some frameworks print a span twice — when it starts (end_time null, no
// usage yet) and when it ends (Microsoft Agent Framework): the print of a
// span not yet ended is no call, and the ended print is read once (the
// OTLP mapping bills a span ID once). Each span is rewritten as an OTLP
// export request and read by the OTLP mapping, so an invoke_agent span
// that repeats the sum of its chat children is shadowed by them.

type otelConsoleSpan struct {
	Name    string `json:"name"`
	Context struct {
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
	} `json:"context"`
	Kind     string  `json:"kind"`
	ParentID *string `json:"parent_id"`
	Start    *string `json:"start_time"`
	End      *string `json:"end_time"`
	Status   struct {
		Code        string `json:"status_code"`
		Description string `json:"description"`
	} `json:"status"`
	Attributes map[string]any `json:"attributes"`
	Resource   struct {
		Attributes map[string]any `json:"attributes"`
	} `json:"resource"`
}

var consoleKinds = map[string]int{"SpanKind.INTERNAL": 1, "SpanKind.SERVER": 2, "SpanKind.CLIENT": 3, "SpanKind.PRODUCER": 4, "SpanKind.CONSUMER": 5}

func otelConsoleToOTLP(rec []byte) ([]*otlpResourceSpans, ingest.SkipReason) {
	var s otelConsoleSpan
	if err := decodeNumbers(rec, &s); err != nil {
		return nil, wrongJSON(err)
	}
	if s.End == nil || *s.End == "" {
		return nil, ingest.SkipInfo // printed as it started: its ended print carries the usage
	}
	sp := otlpSpan{TraceID: hexID(s.Context.TraceID, 32), SpanID: hexID(s.Context.SpanID, 16), Name: s.Name, Kind: consoleKinds[s.Kind]}
	if s.ParentID != nil {
		sp.ParentSpanID = hexID(*s.ParentID, 16)
	}
	var start time.Time
	if s.Start != nil {
		if t, err := spanTime(*s.Start); err == nil {
			start = t
			sp.Start = strconv.FormatInt(unixNanoInRange(t), 10)
		}
	}
	if t, err := spanTime(*s.End); err == nil && !start.IsZero() && !t.Before(start) {
		sp.End = strconv.FormatInt(unixNanoInRange(t), 10)
	}
	for _, k := range sortedKeys(s.Attributes) {
		sp.Attributes = append(sp.Attributes, otlpKV{k, otlpValue(s.Attributes[k])})
	}
	switch strings.ToUpper(strings.TrimPrefix(s.Status.Code, "StatusCode.")) {
	case "ERROR":
		sp.Status = map[string]any{"code": 2, "message": s.Status.Description}
	case "OK":
		sp.Status = map[string]any{"code": 1}
	}
	rs := &otlpResourceSpans{}
	for _, k := range sortedKeys(s.Resource.Attributes) {
		rs.Resource.Attributes = append(rs.Resource.Attributes, otlpKV{k, otlpValue(s.Resource.Attributes[k])})
	}
	rs.ScopeSpans = []struct {
		Spans []otlpSpan `json:"spans"`
	}{{Spans: []otlpSpan{sp}}}
	return []*otlpResourceSpans{rs}, ingest.Accepted
}

// spanTime reads a span's time: RFC 3339, or PromptFlow's spans'
// isoformat() of a UTC time without its zone ("2026-03-01T20:47:18.711501",
// the devkit's Span._to_rest_object), read as UTC.
func spanTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Parse("2006-01-02T15:04:05.999999999", s)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
