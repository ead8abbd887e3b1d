package decode

import (
	"encoding/json"
	"strconv"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Jaeger UI's "Download JSON" (and its query API, /api/traces): one
// document {"data":[{traceID, spans:[{traceID, spanID, operationName,
// references:[{refType:"CHILD_OF", spanID}], startTime, duration (both
// µs), tags:[{key, type, value}], processID}], processes:{p1:{serviceName,
// tags}}}], total, limit, offset, errors}. A trace of a long agent run is
// megabytes on one line, read whole as one record of the document (the
// document's record cap, not the line cap). Each trace is rewritten as an
// OTLP export request and read by the OTLP mapping.

type jaegerDoc struct {
	Data []struct {
		TraceID string `json:"traceID"`
		Spans   []struct {
			TraceID    string `json:"traceID"`
			SpanID     string `json:"spanID"`
			Operation  string `json:"operationName"`
			References []struct {
				RefType string `json:"refType"`
				SpanID  string `json:"spanID"`
			} `json:"references"`
			Start     json.Number `json:"startTime"`
			Duration  json.Number `json:"duration"`
			Tags      []jaegerTag `json:"tags"`
			ProcessID string      `json:"processID"`
		} `json:"spans"`
		Processes map[string]struct {
			ServiceName string      `json:"serviceName"`
			Tags        []jaegerTag `json:"tags"`
		} `json:"processes"`
	} `json:"data"`
}

type jaegerTag struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// jaegerKinds are span.kind tag values as OTLP span kinds.
var jaegerKinds = map[string]int{"internal": 1, "server": 2, "client": 3, "producer": 4, "consumer": 5}

func jaegerToOTLP(rec []byte) ([]*otlpResourceSpans, ingest.SkipReason) {
	var doc jaegerDoc
	if err := decodeNumbers(rec, &doc); err != nil {
		return nil, wrongJSON(err)
	}
	var out struct {
		ResourceSpans []*otlpResourceSpans `json:"resourceSpans"`
	}
	for _, tr := range doc.Data {
		byProc := map[string]*otlpResourceSpans{}
		for _, s := range tr.Spans {
			rs := byProc[s.ProcessID]
			if rs == nil {
				rs = &otlpResourceSpans{}
				p := tr.Processes[s.ProcessID]
				if p.ServiceName != "" {
					rs.Resource.Attributes = append(rs.Resource.Attributes, otlpKV{"service.name", otlpValue(p.ServiceName)})
				}
				for _, t := range p.Tags {
					rs.Resource.Attributes = append(rs.Resource.Attributes, otlpKV{t.Key, otlpValue(t.Value)})
				}
				rs.ScopeSpans = make([]struct {
					Spans []otlpSpan `json:"spans"`
				}, 1)
				byProc[s.ProcessID] = rs
				out.ResourceSpans = append(out.ResourceSpans, rs)
			}
			traceID := s.TraceID
			if traceID == "" {
				traceID = tr.TraceID
			}
			sp := otlpSpan{TraceID: hexID(traceID, 32), SpanID: hexID(s.SpanID, 16), Name: s.Operation}
			for _, r := range s.References {
				if r.RefType == "CHILD_OF" || sp.ParentSpanID == "" {
					sp.ParentSpanID = hexID(r.SpanID, 16)
				}
			}
			start, _ := s.Start.Int64() // µs; one that does not read gives 0 and the mapping's own handling
			dur, _ := s.Duration.Int64()
			if start > 0 && start < ingest.MaxTS/1000 {
				sp.Start = strconv.FormatInt(start*1000, 10)
				sp.End = strconv.FormatInt((start+max(dur, 0))*1000, 10)
			}
			failed := false
			for _, t := range s.Tags {
				switch t.Key {
				case "span.kind":
					if v, ok := t.Value.(string); ok {
						sp.Kind = jaegerKinds[v]
					}
					continue
				case "error":
					failed = failed || t.Value == true || t.Value == "true"
				case "otel.status_code":
					failed = failed || t.Value == "ERROR"
				}
				sp.Attributes = append(sp.Attributes, otlpKV{t.Key, otlpValue(t.Value)})
			}
			if failed {
				sp.Status = map[string]any{"code": 2}
			}
			rs.ScopeSpans[0].Spans = append(rs.ScopeSpans[0].Spans, sp)
		}
	}
	if len(out.ResourceSpans) == 0 {
		return nil, ingest.SkipNoEvent
	}
	return out.ResourceSpans, ingest.Accepted
}
