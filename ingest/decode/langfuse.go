package decode

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Langfuse trace exports: a trace as the Langfuse UI downloads it, or as
// GET /api/public/traces/{id} returns it — one JSON document,
// {"trace":{id, name, sessionId, …, observations:[…]}, "observations":[…]}
// (the UI's merge of the trace and its "Log View"), or the trace's fields
// at the top level beside "observations". Each observation is
// {id, type, name, model, usageDetails, costDetails, parentObservationId,
// startTime, endTime, level, statusMessage}.
//
// A call is a GENERATION with usage that is not the parent of another
// GENERATION: frameworks wrap the provider call in generations of their
// own (the Vercel AI SDK's ai.generateText around
// ai.generateText.doGenerate, with numbers that do not even match the
// child's), and agent observations (AGENT invoke_agent) carry usage of
// their own that repeats or approximates their children's. Counting
// either bills a call twice; Langfuse's own trace total does.
//
// usageDetails is Langfuse's additive usage: its total is the sum of the
// keys (LangGraph.js: input 179 + output 35 + output_reasoning 64 = 278).
// So every input* key is input (input_cache_read / input_cached_tokens are
// cache reads, input_cache_creation* cache writes) and every output* key
// is output, reasoning included; "total" is never added. OpenInference's
// breakdowns ("prompt_details.cache_read", "completion_details.reasoning")
// are parts of input and output, not additions: a cache-read breakdown
// moves that many input tokens to cache reads. The cost is tokens ×
// prices; Langfuse's costDetails are its own estimate, not a bill.

type langfuseObservation struct {
	ID        string                     `json:"id"`
	Type      string                     `json:"type"`
	Name      string                     `json:"name"`
	Model     string                     `json:"model"`
	Parent    string                     `json:"parentObservationId"`
	Start     string                     `json:"startTime"`
	End       string                     `json:"endTime"`
	Level     string                     `json:"level"`
	Status    string                     `json:"statusMessage"`
	Usage     map[string]json.RawMessage `json:"usageDetails"`
	OldUsage  map[string]json.RawMessage `json:"usage"` // older exports: {input, output, total, unit}
	TraceID   string                     `json:"traceId"`
	TraceName string                     `json:"-"`
}

type langfuseTrace struct {
	ID           string                `json:"id"`
	Name         string                `json:"name"`
	SessionID    string                `json:"sessionId"`
	Observations []langfuseObservation `json:"observations"`
}

type langfuseDoc struct {
	langfuseTrace                       // the API's form: the trace's fields at the top
	Trace         *langfuseTrace        `json:"trace"`
	Observations  []langfuseObservation `json:"observations"`
}

type langfuseDecoder struct {
	p  *Parser
	ev ingest.Event
}

func (d *langfuseDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var doc langfuseDoc
	if skip := decodeObject(rec, &doc); skip != ingest.Accepted {
		return skip
	}
	tr := doc.langfuseTrace
	if doc.Trace != nil {
		tr = *doc.Trace
	}
	// The merged observations and the trace's own: the same observation
	// in both is one.
	obs := make([]langfuseObservation, 0, len(doc.Observations)+len(tr.Observations))
	seen := map[string]bool{}
	for _, list := range [][]langfuseObservation{doc.Observations, tr.Observations} {
		for _, o := range list {
			if o.ID != "" && seen[o.ID] {
				continue
			}
			seen[o.ID] = true
			obs = append(obs, o)
		}
	}
	breakParentCycles(obs)
	parentOfGeneration := map[string]bool{}
	for _, o := range obs {
		if o.Type == "GENERATION" && o.Parent != "" {
			parentOfGeneration[o.Parent] = true
		}
	}
	job := tr.SessionID
	if job == "" {
		job = tr.ID
	}
	calls := 0
	for i := range obs {
		o := &obs[i]
		if o.Type != "GENERATION" || (o.ID != "" && parentOfGeneration[o.ID]) {
			continue
		}
		usage := o.Usage
		if len(usage) == 0 {
			usage = o.OldUsage
		}
		if len(usage) == 0 {
			continue // a generation with no usage recorded: nothing to bill
		}
		ev := &d.ev
		ev.Reset()
		ev.Kind = ingest.KindLLMCall
		ev.JobID, ev.JobType = CleanID(job), CleanField(tr.Name)
		ev.CorrelationID = CleanID(tr.ID)
		ev.Model = CleanField(o.Model)
		if o.ID != "" {
			ev.ResponseID = CleanID("langfuse\x00" + tr.ID + "\x00" + o.ID)
		}
		langfuseUsage(ev, usage)
		if t, err := time.Parse(time.RFC3339Nano, o.Start); err == nil {
			ev.TS = unixNanoInRange(t)
			d.p.lastTS = ev.TS
			if e, err := time.Parse(time.RFC3339Nano, o.End); err == nil && !e.Before(t) && e.Sub(t) < 24*time.Hour {
				ev.LatencyMs = int32(e.Sub(t).Milliseconds())
			}
		} else {
			ev.TS, ev.TSCarried = d.p.lastTS, true
			if o.Start != "" {
				ev.Dropped |= ingest.DropTimeUnread
			}
		}
		ev.Attempt, ev.Status = 1, 200
		if o.Level == "ERROR" {
			ev.Status = ingest.StatusUnknown
			ev.ErrorType = CleanField(firstLine(o.Status, 120))
			if ev.ErrorType == "" {
				ev.ErrorType = "error"
			}
		}
		emit(ev)
		calls++
	}
	if calls == 0 {
		return ingest.SkipNoEvent
	}
	return ingest.Accepted
}

// langfuseUsage reads usageDetails into ev (see the comment at the top).
func langfuseUsage(ev *ingest.Event, usage map[string]json.RawMessage) {
	var in, out, cr, cw, crPart int64
	for k, raw := range usage {
		var n int64
		if json.Unmarshal(raw, &n) != nil || n < 0 || n > ingest.MaxTokensPerCall {
			if string(raw) != "null" && k != "unit" { // "unit":"TOKENS" in older exports
				ev.Dropped |= ingest.DropWrongType
			}
			continue
		}
		k = strings.ToLower(k)
		switch {
		case k == "total":
		case strings.Contains(k, "_details."):
			if strings.HasPrefix(k, "prompt") && strings.Contains(k, "cache_read") || strings.Contains(k, "cached") {
				crPart = satAdd(crPart, n)
			}
		case strings.HasPrefix(k, "input") || strings.HasPrefix(k, "prompt"):
			switch {
			case strings.Contains(k, "cache_read") || strings.Contains(k, "cached"):
				cr = satAdd(cr, n)
			case strings.Contains(k, "cache_creation") || strings.Contains(k, "cache_write"):
				cw = satAdd(cw, n)
			default:
				in = satAdd(in, n)
			}
		case strings.HasPrefix(k, "output") || strings.HasPrefix(k, "completion"):
			out = satAdd(out, n)
		}
	}
	if crPart > 0 && cr == 0 {
		move := min(crPart, in)
		in, cr = in-move, move
	}
	ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens = in, out, cr, cw
}

// firstLine is s up to its first line break, at most n bytes.
func firstLine(s string, n int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") // cut on a character boundary
	}
	return s
}

// breakParentCycles cuts each cycle of parentObservationId links (A's
// parent B, B's parent A: an export no tracer makes, but a file can
// hold): every generation of a cycle is the parent of another, so none
// was billed and the trace read $0. The cycle's member with the smallest
// ID loses its parent and becomes the root, so the cycle is a chain whose
// leaf is the call — the same whatever order the observations came in.
// Linear in the observations: each has one parent, so a walk from each
// unvisited one either ends or closes one cycle.
func breakParentCycles(obs []langfuseObservation) {
	at := make(map[string]int, len(obs))
	for i, o := range obs {
		if o.ID != "" {
			at[o.ID] = i
		}
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(obs))
	var path []int
	for start := range obs {
		path = path[:0]
		i, ok := start, true
		for ok && state[i] == unseen {
			state[i] = onPath
			path = append(path, i)
			i, ok = at[obs[i].Parent]
		}
		if ok && state[i] == onPath {
			// The walk came back to i: the path from i on is a cycle.
			root := i
			for j := i; ; {
				if obs[j].ID < obs[root].ID {
					root = j
				}
				if j = at[obs[j].Parent]; j == i {
					break
				}
			}
			obs[root].Parent = ""
		}
		for _, j := range path {
			state[j] = done
		}
	}
}
