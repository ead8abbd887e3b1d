package audit

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// A CrewAI Flow that regenerates: a @router(M) method returning a label
// that M itself (or the method M listens to) starts or listens on —
//
//	@start("retry")
//	def generate(self): …kickoff…
//
//	@router(generate)
//	def evaluate(self):
//	    if self.state.retry_count > 3:
//	        return "max_retry_exceeded"
//	    …review…
//	    self.state.retry_count += 1
//	    return "complete" if valid else "retry"
//
// — runs M again each time the router returns that label: a loop in the
// flow's graph (crewAI's docs: "@start("method_or_label")": a start gated
// on a router label; the router's return value is the label). A layer only
// when the router counts the tries in a counter named for retries or
// attempts against a bound; its tries are the runs of M the count lets
// through (bound + 2 with `>` tested before the increment, + 1 after; one
// fewer with `>=`). A router without such a count (a human's choice) is not
// read.

var (
	pyFlowDecorated   = regexp.MustCompile(`(?m)^([ \t]*)@(start|listen|router)\(([^\n]{0,300})\)[ \t]*\n(?:[ \t]*@[^\n]*\n){0,4}[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)`)
	pyFlowReturnLabel = regexp.MustCompile(`\breturn[ \t]+["']([\w.-]{1,80})["']`)
	pyFlowCount       = regexp.MustCompile(`\bif[ \t]+(?:self\.state\.|self\.)?([A-Za-z_]\w*)[ \t]*(>=|>|<=|<)[ \t]*([0-9]+|[A-Za-z_][\w.]*)\b[^\n:]{0,120}:`)
)

// flowMethod is one decorated method of a Flow class.
type flowMethod struct {
	kind, trigger, name string // "router", its argument as written (raw), the method
	at, line            int    // the decorator
	defAt               int
}

func crewAIFlows(f *file) []Layer {
	if !importsPrefix(f.pyImports(), "crewai") || !f.contains("@router") {
		return nil
	}
	code := f.blanked()
	var ms []flowMethod
	for _, m := range pyFlowDecorated.FindAllSubmatchIndex(code, maxCandidates) {
		ms = append(ms, flowMethod{
			kind: string(code[m[4]:m[5]]), trigger: string(f.raw[m[6]:m[7]]), name: string(code[m[8]:m[9]]),
			at: m[4] - 1, line: f.lines().at(m[4]), defAt: m[8],
		})
	}
	var out []Layer
	for _, r := range ms {
		if r.kind != "router" {
			continue
		}
		target := strings.TrimSpace(r.trigger)
		// The router's own block: the lines indented deeper than its def.
		defAt := lineStartBefore(code, r.defAt)
		for defAt < r.defAt && (code[defAt] == ' ' || code[defAt] == '\t') {
			defAt++
		}
		end := min(pyBlockEndWithin(code, defAt, r.defAt, maxLoopBodyBytes), len(code))
		rawBody, body := f.raw[r.defAt:end], code[r.defAt:end]
		for _, lm := range pyFlowReturnLabel.FindAllSubmatch(rawBody, 16) {
			label := string(lm[1])
			regen, ok := flowLoopsTo(ms, label, target)
			if !ok {
				continue
			}
			attempts, setting, ok := flowBound(f, body, rawBody, label)
			if !ok {
				continue
			}
			l := handRolled(f.rel, r.line, attempts, fmt.Sprintf("@router(%s) returns %q, which runs %s again; %s", target, label, regen, setting), "python",
				"a CrewAI Flow router sends the flow back to a method it followed: read it to confirm it regenerates the answer")
			l.Retries4xx = false // it re-runs on a judged answer; an error leaves the flow
			out = append(out, l)
			break
		}
	}
	return out
}

// flowLoopsTo: a method that starts or listens on label is the router's
// target, or the method its target listens to: the label closes a loop.
// The method run again is returned.
func flowLoopsTo(ms []flowMethod, label, target string) (string, bool) {
	upstream := map[string]bool{target: true}
	for _, m := range ms {
		if m.name == target && m.kind != "router" {
			for _, w := range pyWords.FindAllString(m.trigger, 8) {
				upstream[w] = true
			}
		}
	}
	q := regexp.MustCompile(`["']` + regexp.QuoteMeta(label) + `["']`)
	for _, m := range ms {
		if m.kind != "router" && upstream[m.name] && q.MatchString(m.trigger) {
			return m.name, true
		}
	}
	return "", false
}

var pyWords = regexp.MustCompile(`[A-Za-z_]\w*`)

// flowBound reads the router's count: a test of a counter named for
// retries or attempts, and its increment.
func flowBound(f *file, body, rawBody []byte, label string) (int, string, bool) {
	m := pyFlowCount.FindSubmatchIndex(body)
	if m == nil || !retryCounterName(string(body[m[2]:m[3]])) {
		return 0, "", false
	}
	counter, op, bound := string(body[m[2]:m[3]]), string(body[m[4]:m[5]]), string(body[m[6]:m[7]])
	n, how, ok := loopBound(f, bound)
	if !ok {
		return 0, "", false
	}
	inc := regexp.MustCompile(`\b` + regexp.QuoteMeta(counter) + `[ \t]*\+=[ \t]*1\b`).FindIndex(body)
	if inc == nil {
		return 0, "", false
	}
	// The branch of the test: does it leave (return another label) or go
	// round (return this one)? A `<`/`<=` test that returns the loop's
	// label goes round while it holds: the same as leaving on its negation.
	bEnd := min(pyBlockEnd(body, m[0], m[1]), len(body))
	branch := rawBody[m[1]:bEnd] // the if's own block; labels are strings: raw
	goesRound := bytes.Contains(branch, []byte(`"`+label+`"`)) || bytes.Contains(branch, []byte(`'`+label+`'`))
	exitOp := op
	if goesRound {
		exitOp = map[string]string{"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
	}
	if exitOp != ">" && exitOp != ">=" {
		return 0, "", false
	}
	tries := n + 1 // counted before the test: the test sees the tries so far
	if inc[0] > m[0] {
		tries++ // counted after it: the test sees the tries before this one
	}
	if exitOp == ">=" {
		tries--
	}
	if tries < 2 || tries > 1000 {
		return 0, "", false
	}
	return tries, fmt.Sprintf("while %s %s %s%s", counter, op, bound, how), true
}
