package decode

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Span exports that are not OTLP — Jaeger UI's "Download JSON", the
// Python SDK's ConsoleSpanExporter — are rewritten here as OTLP/JSON
// export requests and read through the OTLP mapping (Options.OTLP), the
// same one a live export goes through: a span means the same whatever
// file it was saved in.

// otlpSpan is one span in OTLP/JSON's shape (what pdata's JSON reader
// takes): IDs in hex, times in Unix nanoseconds as strings.
type otlpSpan struct {
	TraceID      string         `json:"traceId"`
	SpanID       string         `json:"spanId"`
	ParentSpanID string         `json:"parentSpanId,omitempty"`
	Name         string         `json:"name"`
	Kind         int            `json:"kind,omitempty"`
	Start        string         `json:"startTimeUnixNano"`
	End          string         `json:"endTimeUnixNano"`
	Attributes   []otlpKV       `json:"attributes"`
	Status       map[string]any `json:"status,omitempty"`
}

type otlpKV struct {
	Key   string         `json:"key"`
	Value map[string]any `json:"value"`
}

type otlpResourceSpans struct {
	Resource struct {
		Attributes []otlpKV `json:"attributes"`
	} `json:"resource"`
	ScopeSpans []struct {
		Spans []otlpSpan `json:"spans"`
	} `json:"scopeSpans"`
}

// otlpValue is an attribute value in OTLP/JSON: strings, whole numbers
// (as int64 strings), other numbers, booleans; a list or an object is kept
// as its JSON text (no mapping reads one as a number).
func otlpValue(v any) map[string]any {
	switch x := v.(type) {
	case string:
		return map[string]any{"stringValue": x}
	case bool:
		return map[string]any{"boolValue": x}
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return map[string]any{"intValue": strconv.FormatInt(n, 10)}
		}
		if f, err := x.Float64(); err == nil && !math.IsInf(f, 0) {
			return map[string]any{"doubleValue": f}
		}
		return map[string]any{"stringValue": x.String()}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return map[string]any{"intValue": strconv.FormatInt(int64(x), 10)}
		}
		return map[string]any{"doubleValue": x}
	case nil:
		return map[string]any{}
	}
	b, _ := json.Marshal(v)
	return map[string]any{"stringValue": string(b)}
}

// hexID is an ID as OTLP/JSON wants it: n hex digits, "0x" and dashes
// gone, left-padded with zeros (Jaeger drops leading zeros); "" when it
// is no hex ID.
func hexID(s string, n int) string {
	s = strings.TrimPrefix(strings.ToLower(strings.ReplaceAll(s, "-", "")), "0x")
	if s == "" || len(s) > n {
		return ""
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return strings.Repeat("0", n-len(s)) + s
}

// spanExportDecoder hands the spans a non-OTLP span format was rewritten
// into to the OTLP mapping; one mapping per file, so a span printed twice
// is counted once. A format with one span per record (the console
// exporter's) is held until its trace's root span ends — the mapping
// needs a trace's spans together to bill usage on the innermost model
// span only — and at most maxHeldSpans (or maxHeldBytes of them) are held.
type spanExportDecoder struct {
	name     string
	otlp     OTLPDecoder
	toOTLP   func(rec []byte) ([]*otlpResourceSpans, ingest.SkipReason)
	perSpan  bool
	held     []*otlpResourceSpans
	heldN    int
	heldB    int
	rejected int64
}

const (
	maxHeldSpans = 4096
	maxHeldBytes = 16 << 20
)

func newSpanExportDecoder(name string, o Options, perSpan bool, toOTLP func([]byte) ([]*otlpResourceSpans, ingest.SkipReason)) *spanExportDecoder {
	d := &spanExportDecoder{name: name, toOTLP: toOTLP, perSpan: perSpan}
	if o.OTLP != nil {
		d.otlp = o.OTLP()
	}
	return d
}

func (d *spanExportDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	rec, skip := prelude(rec, 0)
	switch {
	case skip != ingest.Accepted:
		return skip
	case rec[0] != '{':
		return ingest.SkipNotObject
	case d.otlp == nil:
		return ingest.SkipNoEvent // no OTLP mapping passed in (a bare decoder in a test)
	}
	rss, skip := d.toOTLP(rec)
	if skip != ingest.Accepted {
		return skip
	}
	if !d.perSpan {
		return d.send(rss, emit)
	}
	root := false
	for _, rs := range rss {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				d.heldN++
				root = root || sp.ParentSpanID == ""
			}
		}
	}
	d.held = append(d.held, rss...)
	d.heldB += len(rec)
	if !root && d.heldN < maxHeldSpans && d.heldB < maxHeldBytes {
		return ingest.SkipInfo // held with its trace until the root span ends
	}
	return d.release(emit)
}

// release sends what is held as one request.
func (d *spanExportDecoder) release(emit func(*ingest.Event)) ingest.SkipReason {
	held := d.held
	d.held, d.heldN, d.heldB = nil, 0, 0
	return d.send(held, emit)
}

// Flush sends the spans still held at the end of the input.
func (d *spanExportDecoder) Flush(emit func(*ingest.Event)) int {
	if len(d.held) == 0 {
		return 0
	}
	n := 0
	d.release(func(ev *ingest.Event) { n++; emit(ev) })
	return n
}

func (d *spanExportDecoder) send(rss []*otlpResourceSpans, emit func(*ingest.Event)) ingest.SkipReason {
	if len(rss) == 0 {
		return ingest.SkipNoEvent
	}
	req, err := json.Marshal(map[string]any{"resourceSpans": rss})
	if err != nil {
		return ingest.SkipInvalidJSON
	}
	n := 0
	rejected, err := d.otlp(req, func(ev *ingest.Event) { n++; emit(ev) })
	d.rejected += rejected
	switch {
	case err != nil:
		return ingest.SkipInvalidJSON
	case n == 0:
		return ingest.SkipNoEvent
	}
	return ingest.Accepted
}

// decodeNumbers unmarshals rec keeping numbers exact.
func decodeNumbers(rec []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(rec)))
	dec.UseNumber()
	return dec.Decode(v)
}

// decodeObject reads rec, a record that must be one JSON object, into v
// with encoding/json (the document formats: small next to a night of
// logs): Accepted, or why the record is skipped.
func decodeObject(rec []byte, v any) ingest.SkipReason {
	rec, skip := prelude(rec, 0)
	switch {
	case skip != ingest.Accepted:
		return skip
	case rec[0] != '{':
		return ingest.SkipNotObject
	}
	if err := json.Unmarshal(rec, v); err != nil {
		return wrongJSON(err)
	}
	return ingest.Accepted
}

// wrongJSON is the skip reason of an unmarshal error.
func wrongJSON(err error) ingest.SkipReason {
	if _, ok := err.(*json.UnmarshalTypeError); ok {
		return ingest.SkipWrongType
	}
	return ingest.SkipInvalidJSON
}

// otlpRequestDecoder reads records that are OTLP/JSON export requests
// (the Collector's file exporter: one a line) through the mapping the
// caller passed in (Options.OTLP). A file of them read whole goes through
// it record by record (ingest/file); a followed one line by line, chosen
// by the line's own keys — `watch` of the exporter's file read nothing
// and said nothing.
type otlpRequestDecoder struct {
	decode OTLPDecoder
}

// NewOTLPRequestDecoder reads OTLP/JSON export requests through
// o.OTLP's mapping, one mapping per file; with none passed in every
// record is an unknown event.
func NewOTLPRequestDecoder(o Options) Decoder {
	d := &otlpRequestDecoder{}
	if o.OTLP != nil {
		d.decode = o.OTLP()
	}
	return d
}

func (o *otlpRequestDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	if o.decode == nil {
		return ingest.SkipUnknownEvent
	}
	n := 0
	_, err := o.decode(rec, func(e *ingest.Event) { n++; emit(e) })
	switch {
	case err != nil:
		return ingest.SkipWrongType
	case n == 0:
		return ingest.SkipNoEvent
	}
	return ingest.Accepted
}

// MaxRequestLineBytes bounds a line that is an OTLP/JSON export request
// (the Collector's file exporter writes one request a line, and a batch
// of a few thousand spans passes 1 MiB): followed, such a line is read up
// to this size, where any other line stops at MaxLineBytes.
const MaxRequestLineBytes = 16 << 20

// IsRequestLine says whether line opens as an OTLP/JSON export request
// (its first key resourceSpans or resourceLogs, as protojson writes it).
func IsRequestLine(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	for _, p := range requestPrefixes {
		if bytes.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

var requestPrefixes = [][]byte{[]byte(`{"resourceSpans"`), []byte(`{"resourceLogs"`), []byte(`{"resource_spans"`), []byte(`{"resource_logs"`)}
