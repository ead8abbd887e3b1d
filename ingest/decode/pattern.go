package decode

import (
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// A user-defined line format: a regular expression whose named groups are
// burnrate's canonical fields, for an application's own retry lines
// ("attempt 2/3 failed, retrying in 4s"). Go's regexp is RE2: matching
// takes time linear in the line whatever the pattern, so a pattern from a
// config cannot hang a reader on a hostile line.

// PatternSpec is one [[format]] table of the config, or one --pattern.
type PatternSpec struct {
	Name  string
	Regex string
	// TimeLayout is the ts group's layout, in Go's reference time
	// ("2006-01-02 15:04:05"), or unix, unix_ms, rfc3339; empty: RFC 3339,
	// "2006-01-02 15:04:05[.frac]" (a comma before the fraction too), or
	// epoch seconds.
	TimeLayout string
	// Set gives fields every matching line has, whatever the line says
	// (status = "429" for "rate limited, retrying" lines).
	Set map[string]string
}

// LinePattern is a compiled PatternSpec.
type LinePattern struct {
	Name   string
	re     *regexp.Regexp
	groups []string // per submatch index: its canonical field, or ""
	layout string
	set    [][2]string // field, value; in field order
	hasKey bool        // a group or a set value names the operation
	// maxBytes is how much of a line is matched (patternBudget).
	maxBytes int
}

// NamesJob reports whether the pattern's lines name their job (a job_id
// or correlation_id group, or a set value): a line of one that does not
// takes the job of the JSON line before it, by position alone — a guess
// that never weighs on a job ceiling.
func (p *LinePattern) NamesJob() bool {
	for _, g := range p.groups {
		if g == "job_id" || g == "correlation_id" {
			return true
		}
	}
	for _, kv := range p.set {
		if kv[0] == "job_id" || kv[0] == "correlation_id" {
			return true
		}
	}
	return false
}

// patternFields are the fields a pattern's groups may fill, and numeric
// says which are numbers.
var patternFields = map[string]bool{
	"ts": false, "event": false, "run_id": false, "job_id": false, "job_type": false, "correlation_id": false,
	"idempotency_key": false, "attempt": true, "retry_count": true, "provider": false, "model": false, "status": true,
	"error_type": false, "retry_after_s": true, "input_tokens": true, "prompt_tokens": true, "output_tokens": true,
	"cache_read_tokens": true, "cache_creation_tokens": true, "cost_usd": true, "latency_ms": true, "tool": false,
}

// callFields are the groups a call can be read from: a pattern without one
// of them describes nothing burnrate counts.
var callFields = []string{"status", "attempt", "error_type", "model", "input_tokens", "output_tokens", "cost_usd", "retry_after_s", "event"}

// maxPatternBytes and maxPatternInsts bound a pattern: matching is linear
// in the line but proportional to the compiled program too — in the worst
// case (a pattern of counted repeats against a line that keeps every one
// alive) ~25 ns per byte per instruction. patternBudget bounds that
// product for one line: a line is matched on its first
// patternBudget/instructions bytes (at least minPatternBytes), so one
// line costs at most ~50 ms whatever the pattern and the line, and the
// calls real patterns describe sit at the start of their lines.
const (
	maxPatternBytes = 4096
	maxPatternInsts = 5_000
	patternBudget   = 2_000_000
	minPatternBytes = 1024
)

func patternFieldList() string {
	names := make([]string, 0, len(patternFields))
	for k := range patternFields {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// CompilePattern checks and compiles a pattern. Its errors name the
// pattern and say what to change.
func CompilePattern(s PatternSpec) (*LinePattern, error) {
	name := s.Name
	if name == "" {
		name = "pattern"
	}
	where := fmt.Sprintf("format %q", name)
	switch {
	case strings.TrimSpace(s.Regex) == "":
		return nil, fmt.Errorf("%s: the pattern is empty; give a regular expression with named groups, e.g. attempt (?P<attempt>\\d+)", where)
	case len(s.Regex) > maxPatternBytes:
		return nil, fmt.Errorf("%s: the pattern is %d bytes, over the %d-byte limit; match less of the line", where, len(s.Regex), maxPatternBytes)
	}
	parsed, err := syntax.Parse(s.Regex, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("%s: the pattern does not compile: %v (Go's RE2 syntax: named groups are (?P<field>…); no lookaround or backreferences)", where, err)
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, fmt.Errorf("%s: the pattern does not compile: %v", where, err)
	}
	if len(prog.Inst) > maxPatternInsts {
		return nil, fmt.Errorf("%s: the pattern compiles to %d instructions, over the %d limit (large counted repeats such as {1000} multiply it); simplify it", where, len(prog.Inst), maxPatternInsts)
	}
	re, err := regexp.Compile(s.Regex)
	if err != nil {
		return nil, fmt.Errorf("%s: the pattern does not compile: %v", where, err)
	}
	p := &LinePattern{Name: name, re: re, groups: make([]string, len(re.SubexpNames())), layout: s.TimeLayout,
		maxBytes: max(minPatternBytes, patternBudget/len(prog.Inst))}
	seen := map[string]bool{}
	for i, g := range re.SubexpNames() {
		if g == "" {
			continue
		}
		if _, ok := patternFields[g]; !ok {
			return nil, fmt.Errorf("%s: group (?P<%s>…) is not a field burnrate reads; name each group after one of: %s", where, g, patternFieldList())
		}
		if seen[g] {
			return nil, fmt.Errorf("%s: group (?P<%s>…) appears twice; keep one", where, g)
		}
		seen[g] = true
		p.groups[i] = g
	}
	keys := make([]string, 0, len(s.Set))
	for k := range s.Set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := s.Set[k]
		num, ok := patternFields[k]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: set.%s is not a field burnrate reads; use one of: %s", where, k, patternFieldList())
		case seen[k]:
			return nil, fmt.Errorf("%s: set.%s is also a group of the pattern; keep one", where, k)
		case num && !isNumber(v):
			return nil, fmt.Errorf("%s: set.%s = %q is not a number", where, k, v)
		}
		p.set = append(p.set, [2]string{k, v})
		seen[k] = true
	}
	hasCall := false
	for _, f := range callFields {
		hasCall = hasCall || seen[f]
	}
	if !hasCall {
		return nil, fmt.Errorf("%s: the pattern has no group a call can be read from: add one of (?P<status>…), (?P<attempt>…), (?P<error_type>…), (?P<model>…), (?P<input_tokens>…), (?P<output_tokens>…), (?P<cost_usd>…), (?P<retry_after_s>…), or give one in set", where)
	}
	if s.TimeLayout != "" && !seen["ts"] {
		return nil, fmt.Errorf("%s: time_layout is set but the pattern has no (?P<ts>…) group to read it from", where)
	}
	if l := s.TimeLayout; l != "" && l != "unix" && l != "unix_ms" && l != "rfc3339" {
		// A layout that formats another time as itself holds no part of
		// the reference time: it would read every value as year 0.
		other := time.Date(2031, 11, 28, 22, 47, 59, 0, time.UTC)
		if other.Format(l) == l {
			return nil, fmt.Errorf("%s: time_layout %q has none of Go's reference time parts; write it as 2006-01-02 15:04:05 would appear in your lines (or unix, unix_ms, rfc3339)", where, l)
		}
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("%s: the pattern matches an empty line, so it would match every line; anchor it to text your lines always carry", where)
	}
	p.hasKey = seen["idempotency_key"] || seen["correlation_id"] || seen["job_id"]
	return p, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// patternState is one pattern's decoding state in one file: the attempt
// chains of lines that name no operation of their own.
type patternState struct {
	p       *LinePattern
	seq     int
	last    int16 // the attempt number of the last line
	obj     []byte
	matched int64
}

func newPatternStates(ps []*LinePattern) []*patternState {
	out := make([]*patternState, len(ps))
	for i, p := range ps {
		out[i] = &patternState{p: p}
	}
	return out
}

// pattern reads a line with one user pattern: ok false when it does not
// match. The groups become a canonical JSON object that the JSON-lines
// parser reads, so a pattern's fields mean exactly what the same keys
// mean in a JSON line.
func (t *sdkText) pattern(ps *patternState, line []byte, emit func(*ingest.Event)) (int, bool) {
	line = line[:min(len(line), ps.p.maxBytes)]
	loc := ps.p.re.FindSubmatchIndex(line)
	if loc == nil {
		return 0, false
	}
	ps.matched++
	obj := append(ps.obj[:0], '{')
	hasEvent := false
	add := func(field, val string) bool {
		val = strings.TrimSpace(val)
		if val == "" {
			return true
		}
		if len(obj) > 1 {
			obj = append(obj, ',')
		}
		obj = strconv.AppendQuote(obj, field)
		obj = append(obj, ':')
		switch {
		case field == "event":
			hasEvent = true
		case field == "ts":
			ts, ok := patternTime(val, ps.p.layout)
			if !ok {
				return false
			}
			obj = strconv.AppendQuote(obj, time.Unix(0, ts).UTC().Format(time.RFC3339Nano))
			return true
		case patternFields[field]:
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || f != f {
				return false
			}
			obj = strconv.AppendFloat(obj, f, 'f', -1, 64)
			return true
		}
		b, _ := json.Marshal(val) // valid JSON for any bytes: invalid UTF-8 becomes U+FFFD
		obj = append(obj, b...)
		return true
	}
	for i, field := range ps.p.groups {
		if field == "" || loc[2*i] < 0 {
			continue
		}
		if !add(field, string(line[loc[2*i]:loc[2*i+1]])) {
			ps.obj = obj
			return -2, true // matched, but a value is not what its field holds
		}
	}
	for _, kv := range ps.p.set {
		add(kv[0], kv[1])
	}
	if !hasEvent {
		if len(obj) > 1 {
			obj = append(obj, ',')
		}
		obj = append(obj, `"event":"llm_call"`...)
	}
	obj = append(obj, '}')
	ps.obj = obj
	ev := &t.ev
	if t.p.ParseLine(obj, ev) != ingest.Accepted {
		return -2, true
	}
	t.sawSDK = true
	if ev.JobID == "" && ev.CorrelationID == "" {
		// The job of the JSON line before it, by position alone: a
		// second process writing the stream puts its lines there as
		// easily (R7-17: job B's cost lines after job A's heartbeat
		// killed A). Shown in the job, counted ambiguous, never a kill.
		ev.JobID, ev.JobType, ev.CorrelationID = t.lastJob.JobID, t.lastJob.JobType, t.lastJob.CorrelationID
		if ev.JobID != "" && ev.Kind == ingest.KindLLMCall {
			ev.AttemptBy = ingest.AttemptByLineAmbiguous
		}
	}
	if ev.Model == "" {
		ev.Model = t.lastJob.Model
		if ev.Provider == "" {
			ev.Provider = t.lastJob.Provider
		}
	}
	if ev.IdempotencyKey == "" && !ps.p.hasKey && ev.Kind == ingest.KindLLMCall {
		// No key: lines of one operation count their attempts up; a
		// smaller or equal number (or none) starts the next operation.
		if ev.Attempt == 0 || ev.Attempt <= ps.last || ps.seq == 0 {
			ps.seq++
		}
		ps.last = ev.Attempt
		ev.IdempotencyKey = t.p.intern.get([]byte(CleanField("pattern:" + ps.p.Name + ":" + ev.JobID + ":" + strconv.Itoa(ps.seq))))
	}
	emit(ev)
	return 1, true
}

// patternTime reads a ts group as Unix nanoseconds.
func patternTime(val, layout string) (int64, bool) {
	switch layout {
	case "":
		b := []byte(strings.Replace(val, ",", ".", 1))
		if ts, ok := parseTimeText(b); ok {
			return ts, true
		}
		return parseEpoch(b)
	case "unix":
		return parseEpoch([]byte(val))
	case "unix_ms":
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 || f > 7.2e15 {
			return 0, false
		}
		return int64(f * 1e6), true
	case "rfc3339":
		return parseTimeText([]byte(val))
	}
	t, err := time.Parse(layout, val)
	if err != nil {
		return 0, false
	}
	return unixNanoInRange(t), true
}
