package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
)

// The generic reader is the safety net under every format: a JSON record
// that no format reads as an event (no row's keys, nothing the canonical
// JSON-lines parser takes for a call) but that holds a recognizable usage
// object beside a model is read as one call — and a canonical call that
// names neither its model nor any usage at its top level takes them from
// such an object — marked generic: the file's
// hint says how many records were read so and at which JSON path (shown
// in the report's sources, Markdown and JSON), so a person can check them
// and, better, map the format (--map) or ask for a decoder.
//
// A usage object is an object with a token count under a name some
// producer writes — input/prompt (input_tokens, prompt_tokens,
// inputTokens, promptTokens, promptTokenCount, input), output/completion
// (output_tokens, completion_tokens, outputTokens, completionTokens,
// candidatesTokenCount, output), cache reads and writes, thinking — found
// as the value of usage, usageMetadata, usage_metadata, token_usage,
// tokenUsage, tokens or usageDetails in an object that also names a
// string model (model, model_name, modelId, modelID, model_id). No model,
// or no input or output count above zero: not a call (random JSON with a
// "usage" key is not read as spend). The first such object in document
// order, breadth first, is the call: one record is one call.
//
// Input holds the cache (OpenAI's and Gemini's meaning) unless the
// record names the cache the Anthropic way (cache_read_input_tokens,
// cache_creation_input_tokens) or the cache is larger than the input.
// Gemini's thoughtsTokenCount is added to output (billed as output,
// reported apart); OpenAI's reasoning_tokens are inside output already.
// A producer's own cost beside the usage (cost, total_cost, cost_usd,
// costUSD) is kept beside ours, as Cline's is.

// genericBudget bounds the walk of one record: its size (a document's
// record may be 64 MiB, which decoded into maps would take ten times
// that), nodes visited, depth.
const (
	genericMaxBytes = 1 << 20
	genericMaxNodes = 20_000
	genericMaxDepth = 24
	genericMaxPaths = 4 // distinct paths the hint names
)

var genericUsageKeys = []string{"usage", "usageMetadata", "usage_metadata", "token_usage", "tokenUsage", "tokens", "usageDetails"}
var genericModelKeys = []string{"model", "model_name", "modelId", "modelID", "model_id"}
var genericCostKeys = []string{"cost", "total_cost", "cost_usd", "costUSD"}

var (
	genericIn        = []string{"input_tokens", "prompt_tokens", "inputTokens", "promptTokens", "promptTokenCount", "input"}
	genericOut       = []string{"output_tokens", "completion_tokens", "outputTokens", "completionTokens", "candidatesTokenCount", "output"}
	genericReadAnth  = []string{"cache_read_input_tokens", "cache_read_tokens"}
	genericWriteAnth = []string{"cache_creation_input_tokens", "cache_write_tokens"}
	genericRead      = []string{"cacheReadTokens", "cacheRead", "cached_tokens", "cachedContentTokenCount", "cached_input_tokens", "cache_read"}
	genericWrite     = []string{"cacheWriteTokens", "cacheWrite", "cache_write", "cache_creation"}
)

// genericStatusKeys name a record's HTTP status where a producer the
// generic reader reads puts it (Helicone's response_status, a gateway's
// status_code), on the usage's object or the record's top level.
var genericStatusKeys = []string{"response_status", "status_code", "statusCode", "http_status", "httpStatus"}

// awsErrorStatus is the HTTP status of each error code a Bedrock
// invocation log record carries instead of an output ("errorCode"),
// as the Bedrock runtime API documents them; another code is a failed
// call of unknown status.
var awsErrorStatus = map[string]int16{
	"ThrottlingException": 429, "ServiceQuotaExceededException": 429, "TooManyRequestsException": 429, "ModelNotReadyException": 429,
	"ModelTimeoutException": 408, "ServiceUnavailableException": 503, "InternalServerException": 500,
	"ModelErrorException": 424, "ModelStreamErrorException": 424,
	"ValidationException": 400, "AccessDeniedException": 403, "ResourceNotFoundException": 404,
}

// genericStats is what the generic reader read in one stream.
type genericStats struct {
	n     int64
	paths []string // the first distinct paths, for the hint
	// errors counts the failed calls read from a record's errorCode
	// beside a model (readError), codes the first distinct codes.
	errors int64
	codes  []string
}

func (g *genericStats) hint() string {
	if g == nil || g.n+g.errors == 0 {
		return ""
	}
	var h []string
	if g.n > 0 {
		h = append(h, fmt.Sprintf("%d call(s) whose model and usage only the generic reader found (a usage object beside a model, at %s)", g.n, strings.Join(g.paths, ", ")))
	}
	if g.errors > 0 {
		h = append(h, fmt.Sprintf("%d failed call(s) read from an errorCode beside a model, with no usage (%s)", g.errors, strings.Join(g.codes, ", ")))
	}
	return display.Text(strings.Join(h, "; ") + ": check their tokens and statuses, and map the format (--map) or ask for a decoder")
}

// recordStatus reads a record's HTTP status: a status key's number (100–
// 599) on the usage's object or at the top level, else the status of a
// top-level errorCode (Bedrock). ok is false when the record says none.
func recordStatus(objs ...map[string]any) (status int16, code string, ok bool) {
	for _, o := range objs {
		for _, k := range genericStatusKeys {
			if n, isNum := o[k].(json.Number); isNum {
				if v, err := n.Int64(); err == nil && v >= 100 && v <= 599 {
					return int16(v), "", true
				}
			}
		}
	}
	for _, o := range objs {
		if c, isStr := o["errorCode"].(string); isStr && strings.TrimSpace(c) != "" {
			if st, known := awsErrorStatus[c]; known {
				return st, c, true
			}
			return ingest.StatusUnknown, c, true
		}
	}
	return 0, "", false
}

// readError reads a record that names a model and an errorCode at its top
// level and holds no usage — a Bedrock invocation log's throttled or
// failed call, which has no output — as one failed call of that model, of
// the code's status (red team R7-18: the 5 ThrottlingException records
// beside 20 read calls were skipped as no_event: the retries the tool
// exists to count were what it dropped). A record that names an event is
// the canonical parser's, skipped on purpose: never read here.
func (g *genericStats) readError(p *Parser, base, ev *ingest.Event, line []byte, emit func(*ingest.Event)) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || len(line) > genericMaxBytes || !bytes.Contains(line, []byte(`"errorCode"`)) ||
		!bytes.Contains(line, []byte(`"model`)) || shapeOf(line) != nil {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var root map[string]any
	if dec.Decode(&root) != nil {
		return false
	}
	if _, named := root["event"]; named {
		return false
	}
	model, ok := genericModel(root)
	if !ok {
		return false
	}
	status, code, ok := recordStatus(root)
	if !ok || code == "" {
		return false
	}
	ev.Reset()
	ev.Kind = ingest.KindLLMCall
	ev.Model = CleanField(model)
	ev.Attempt, ev.Status, ev.ErrorType = 1, status, CleanField(code)
	g.base(p, base, ev, root)
	accepted := ev.Check() == ingest.Accepted
	emit(ev)
	if accepted {
		g.errors++
		if c := CleanField(code[:min(len(code), 64)]); len(g.codes) < genericMaxPaths && !slices.Contains(g.codes, c) {
			g.codes = append(g.codes, c)
		}
	}
	return true
}

// base gives a generic call the record's own job, run and time, as the
// canonical parser read them at its top level; else the time of the
// object o.
func (g *genericStats) base(p *Parser, base, ev *ingest.Event, o map[string]any) {
	ev.JobID, ev.JobType, ev.RunID, ev.CorrelationID = base.JobID, base.JobType, base.RunID, base.CorrelationID
	ev.TS, ev.TSCarried, ev.Dropped = base.TS, base.TSCarried, ev.Dropped|base.Dropped
	if ev.TSCarried {
		for _, k := range []string{"timestamp", "created_at", "createdAt", "time", "ts", "startTime"} {
			if s, ok := o[k].(string); ok {
				setTSText(p, ev, s)
				break
			}
		}
	}
}

// genericCandidate is the cheap test before any decoding: an object of
// bounded size that names a model and a token count somewhere.
func genericCandidate(line []byte) bool {
	if len(line) == 0 || line[0] != '{' || len(line) > genericMaxBytes || !bytes.Contains(line, []byte(`"model`)) {
		return false
	}
	// One pass over the record's keys: a usage object's name and a
	// token count's must both be there (an app's log naming a model and
	// max_tokens in every line was decoded whole, six times the cost of
	// reading it).
	var usage, count bool
	for i := 0; i < len(line); {
		j := bytes.IndexByte(line[i:], '"')
		if j < 0 {
			break
		}
		start := i + j + 1
		k := bytes.IndexByte(line[start:], '"')
		if k < 0 {
			break
		}
		end := start + k
		i = end + 1
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r') {
			i++
		}
		if i >= len(line) || line[i] != ':' || k > 32 {
			continue // a value, or a key no reader names
		}
		switch genericKeyKind[string(line[start:end])] {
		case 1:
			usage = true
		case 2:
			count = true
		}
		if usage && count {
			return true
		}
	}
	return false
}

// genericKeyKind: 1 for a usage object's name, 2 for a token count's.
var genericKeyKind = func() map[string]uint8 {
	m := map[string]uint8{}
	for _, k := range genericUsageKeys {
		m[k] = 1
	}
	for _, k := range append(slices.Clone(genericIn), genericOut...) {
		m[k] = 2
	}
	return m
}()

type genericNode struct {
	v    map[string]any
	path string
	d    int
}

// read reads line as a generic call into ev, with what the canonical
// parser read of it (base: its job, run and time); false when it is none.
func (g *genericStats) read(p *Parser, base, ev *ingest.Event, line []byte, emit func(*ingest.Event)) bool {
	return g.readModel(p, base, ev, line, "", emit)
}

// readModel is read with the model the record names at its top level
// (topModel, "" for none): a usage object without a model beside it is
// that model's.
func (g *genericStats) readModel(p *Parser, base, ev *ingest.Event, line []byte, topModel string, emit func(*ingest.Event)) bool {
	line = bytes.TrimSpace(line)
	if !genericCandidate(line) || shapeOf(line) != nil {
		// A record of a row's shape is that row's, read or passed over
		// on purpose (a Claude Code response's second record, already
		// billed): never billed again here.
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var root map[string]any
	if dec.Decode(&root) != nil {
		return false
	}
	queue := []genericNode{{v: root, path: "$"}}
	visited := 0
	for len(queue) > 0 && visited < genericMaxNodes {
		n := queue[0]
		queue = queue[1:]
		visited++
		model, ok := genericModel(n.v)
		if !ok && topModel != "" {
			model, ok = topModel, true
		}
		if ok {
			for _, uk := range genericUsageKeys {
				u, ok := n.v[uk].(map[string]any)
				if !ok {
					continue
				}
				if g.call(p, base, ev, root, n.v, u, model, n.path+"."+uk, emit) {
					return true
				}
			}
		}
		if n.d >= genericMaxDepth {
			continue
		}
		keys := make([]string, 0, len(n.v))
		for k := range n.v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // one order, whatever the map's
		for _, k := range keys {
			switch c := n.v[k].(type) {
			case map[string]any:
				queue = append(queue, genericNode{c, n.path + "." + genericPathKey(k), n.d + 1})
			case []any:
				for i, e := range c {
					if m, ok := e.(map[string]any); ok {
						queue = append(queue, genericNode{m, n.path + "." + genericPathKey(k) + "[" + strconv.Itoa(i) + "]", n.d + 1})
					}
					if i >= 1000 {
						break
					}
				}
			}
		}
	}
	return false
}

func genericPathKey(k string) string {
	return CleanField(k[:min(len(k), 64)])
}

func genericModel(o map[string]any) (string, bool) {
	for _, k := range genericModelKeys {
		if s, ok := o[k].(string); ok && strings.TrimSpace(s) != "" {
			return s, true
		}
	}
	return "", false
}

// genericCount reads the first of keys in u that is a whole count in
// range; found is false when none is there.
func genericCount(ev *ingest.Event, u map[string]any, keys []string) (n int64, found bool) {
	for _, k := range keys {
		v, ok := u[k]
		if !ok || v == nil {
			continue
		}
		num, ok := v.(json.Number)
		if !ok {
			ev.Dropped |= ingest.DropWrongType
			continue
		}
		return jsonCount(ev, json.RawMessage(num)), true
	}
	return 0, false
}

func (g *genericStats) call(p *Parser, base, ev *ingest.Event, root, o, u map[string]any, model, path string, emit func(*ingest.Event)) bool {
	ev.Reset()
	in, _ := genericCount(ev, u, genericIn)
	out, _ := genericCount(ev, u, genericOut)
	if in <= 0 && out <= 0 {
		return false // a usage object that counts nothing: not a call
	}
	read, anth := genericCount(ev, u, genericReadAnth)
	write, anthW := genericCount(ev, u, genericWriteAnth)
	if !anth {
		read, _ = genericCount(ev, u, genericRead)
	}
	if !anthW {
		write, _ = genericCount(ev, u, genericWrite)
	}
	for _, details := range []string{"prompt_tokens_details", "input_tokens_details"} {
		if d, ok := u[details].(map[string]any); ok && read == 0 {
			read, _ = genericCount(ev, d, []string{"cached_tokens"})
		}
	}
	if thoughts, ok := genericCount(ev, u, []string{"thoughtsTokenCount"}); ok {
		if sum := satAdd(out, thoughts); sum <= ingest.MaxTokensPerCall {
			out = sum
		} else {
			// Each count in range, their sum not: the thoughts field is
			// dropped, never the record (the cap is per field).
			ev.Dropped |= ingest.DropImplausible
		}
	}
	ev.Kind = ingest.KindLLMCall
	ev.Model = CleanField(model)
	ev.Attempt, ev.Status = 1, 200
	if anth || anthW || read+write > in {
		ev.InputTokens, ev.CacheReadTokens, ev.CacheCreateTokens = in, read, write
	} else {
		ev.SetInclusiveInput(in, read, write)
	}
	ev.OutputTokens = out
	for _, k := range genericCostKeys {
		for _, m := range []map[string]any{u, o} {
			if c, ok := m[k].(json.Number); ok && !ev.HasCost {
				setProducerCost(ev, json.RawMessage(c))
			}
		}
	}
	// The record's status where it says one (R7-18: Helicone's
	// response_status 429 read as 200), else 200 as before.
	if st, code, ok := recordStatus(o, root); ok {
		ev.Status = st
		if code != "" {
			ev.ErrorType = CleanField(code)
		}
	}
	// The record's own job, run and time, as the canonical parser read
	// them at its top level; else the usage's object's time.
	g.base(p, base, ev, o)
	ok := ev.Check() == ingest.Accepted
	emit(ev)
	if !ok {
		return true // refused and counted as such by the check: no call of the hint's
	}
	g.n++
	if len(g.paths) < genericMaxPaths && !slices.Contains(g.paths, path) {
		g.paths = append(g.paths, path)
	}
	return true
}

// fill gives a canonical call without usage (ev) the tokens and cost of
// the usage object the record holds, if one, and its model when the call
// names none (a call that names its model at the top level takes a usage
// object found without one, {"model":…,"response":{"usage":…}}): the
// call's status, attempt, job and time stay the canonical parser's. It
// reports whether it filled the call.
func (g *genericStats) fill(p *Parser, ev, scratch *ingest.Event, line []byte) bool {
	if !g.readModel(p, ev, scratch, line, ev.Model, func(*ingest.Event) {}) {
		return false
	}
	if ev.Model == "" {
		ev.Model = scratch.Model
	}
	ev.InputTokens, ev.OutputTokens = scratch.InputTokens, scratch.OutputTokens
	ev.CacheReadTokens, ev.CacheCreateTokens = scratch.CacheReadTokens, scratch.CacheCreateTokens
	ev.CostUSD, ev.HasCost = scratch.CostUSD, scratch.HasCost
	ev.Dropped |= scratch.Dropped
	return true
}
