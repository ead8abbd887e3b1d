package audit

import (
	"bytes"
	"fmt"
	"regexp"
)

// A recursion with no count of its own may be bounded by another method
// of its object (issue 37, round 8's two wrong criticals):
//
//	except (ModelRateLimitError, ModelProviderError) as e:
//	    if not self._try_switch_to_fallback_llm(e):
//	        raise
//	    return await self.get_model_output(input_messages)
//
// where _try_switch_to_fallback_llm returns False once self._using_fallback
// is set (it sets it): one re-send; and
//
//	maybe_next_step = await self.handle_failed_step(organization, task, step)
//	…
//	if retry and next_step:
//	    return await self.execute_step(…, next_step, …)
//
// where handle_failed_step gives no next step past max_retries_per_step.
// Before a self-call with no count is called unbounded (a critical), the
// guard is followed into the method that decides it: a flag it tests and
// sets is one re-send (2 attempts); a count it compares, or anything else
// it decides, is a bound this rule cannot read — reported as a layer of at
// least 2 attempts whose bound is not resolved, not as an unbounded one.
// Only when no method of the object guards the call does the recursion
// stay unbounded.

var (
	// guardNotMethod: `if not self.m(…):` / `if (!this.m(…))` — the
	// call goes on only when the method says so.
	guardNotMethod = regexp.MustCompile(`\bif\s*(?:\(\s*!\s*|not\s+)(?:await\s+)?(?:self|this)\.(\w+)\s*\(`)
	methodCall     = regexp.MustCompile(`(?:self|this)\.(\w+)\s*\(`)
	condName       = regexp.MustCompile(`[A-Za-z_$][\w$]*`)
)

// boundInMethod is the layer of the self-call at at (group, setting,
// note as the rule's) when a method of its object guards it; ok false
// when none does.
func boundInMethod(f *file, at int, cond []byte, setting, group, note string) (Layer, bool) {
	code := f.blanked()
	a, _, ok := enclosingFunc(f, f.lines().at(at))
	if !ok || a >= at {
		return Layer{}, false
	}
	pre := code[a:at]
	method := ""
	// A guard just above, in the same handler: `if not self.m(e): raise`.
	near := pre[max(0, len(pre)-800):]
	if ms := guardNotMethod.FindAllSubmatchIndex(near, -1); len(ms) > 0 {
		g := ms[len(ms)-1]
		if sameBlock(f, near[g[0]:], at-(len(near)-g[0])) {
			method = string(near[g[2]:g[3]])
		}
	}
	if method == "" {
		if m := methodCall.FindSubmatch(cond); m != nil {
			method = string(m[1])
		}
	}
	if method == "" {
		method = assignedFromMethod(pre, cond)
	}
	if method == "" {
		return Layer{}, false
	}
	body, found := methodBody(f, method)
	l := handRolled(f.rel, f.lines().at(at), 2, "", group, note)
	l.Retries4xx = false
	how := ""
	switch flag, isFlag := testsAndSetsFlag(body); {
	case found && isFlag:
		l.setAttempts(2, fmt.Sprintf("%s (once: %s(…) lets it through while %s is unset, and sets it)", setting, method, flag))
		l.Confidence = ConfidenceLow
		return l, true
	case found && countsInMethod(body):
		how = "a count compared in " + method + "(…)"
	case found:
		// The method is read and neither flags nor counts (it tests the
		// error: `return e.status == 429`): nothing bounds the call.
		return Layer{}, false
	default:
		how = "decided by " + method + "(…), defined elsewhere"
	}
	l.setAttempts(2, fmt.Sprintf("%s (bound not resolved: %s)", setting, how))
	l.Confidence = ConfidenceLow
	l.Note = "the call is sent again when " + method + "(…) allows it; its bound is not read here — at least 2 attempts: read " + method + " for the limit"
	return l, true
}

// assignedFromMethod: a name of cond is assigned, in pre, from a method of
// the object (`x = await self.m(…)`), directly or through one plain
// alias (`next_step = maybe_next_step`); the method's name.
func assignedFromMethod(pre, cond []byte) string {
	// The assignment is read in the 8 KiB above the call: a hostile
	// function of many self-calls with long conditions costs that much
	// per name, not its whole length.
	pre = pre[max(0, len(pre)-8<<10):]
	for _, n := range condName.FindAll(cond, 6) {
		name := string(n)
		if pyKeywords[name] || name == "self" || name == "this" || name == "None" || name == "null" || name == "undefined" {
			continue
		}
		for range 2 {
			q := regexp.QuoteMeta(name)
			if m := regexp.MustCompile(`\b`+q+`\s*=\s*(?:await\s+)?(?:self|this)\.(\w+)\s*\(`).FindAllSubmatch(pre, -1); len(m) > 0 {
				return string(m[len(m)-1][1])
			}
			m := regexp.MustCompile(`(?m)\b`+q+`\s*=\s*([A-Za-z_$][\w$]*)\s*;?\s*$`).FindAllSubmatch(pre, -1)
			if len(m) == 0 {
				break
			}
			name = string(m[len(m)-1][1])
		}
	}
	return ""
}

// methodBody is the body of the file's method named name (its first
// definition), found false when the file defines none.
func methodBody(f *file, name string) ([]byte, bool) {
	code := f.blanked()
	q := regexp.QuoteMeta(name)
	if f.kind == fkPython {
		m := regexp.MustCompile(`(?m)^[ \t]*(?:async\s+)?def\s+` + q + `\s*\(`).FindIndex(code)
		if m == nil {
			return nil, false
		}
		head := m[0] + lineIndent(code, m[0])
		_, c := args(code, m[1]-1)
		colon := bytes.IndexByte(code[c:min(len(code), c+400)], ':')
		if c <= m[1]-1 || colon < 0 {
			return nil, false
		}
		return code[head:min(len(code), pyBlockEndWithin(code, head, c+colon+1, maxReaskFuncBytes))], true
	}
	for _, m := range regexp.MustCompile(`\b`+q+`\s*\(`).FindAllIndex(code, 16) {
		_, c := args(code, m[1]-1)
		if c <= m[1]-1 {
			continue
		}
		rest := code[c+1 : min(len(code), c+200)]
		open := bytes.IndexByte(rest, '{')
		if open < 0 || bytes.ContainsAny(rest[:open], ";}") {
			continue // a call, not a definition
		}
		if end := closeOf(code, c+1+open, maxReaskFuncBytes); end > 0 {
			return code[m[0] : end+1], true
		}
	}
	return nil, false
}

var (
	flagTest = regexp.MustCompile(`\bif\s*\(?\s*(?:not\s+|!\s*)?(?:self|this)\.(\w+)\s*\)?\s*[:{]?`)
)

// testsAndSetsFlag: the method tests a flag of its object and sets it
// true — it lets the call through once.
func testsAndSetsFlag(body []byte) (string, bool) {
	for _, m := range flagTest.FindAllSubmatch(body, 8) {
		q := regexp.QuoteMeta(string(m[1]))
		if regexp.MustCompile(`(?:self|this)\.` + q + `\s*=\s*(?:True|true)\b`).Match(body) {
			return "self." + string(m[1]), true
		}
	}
	return "", false
}

// countsInMethod: the method compares a count of retries or attempts
// (max_retries_per_step, attempts >= MAX): a name counting tries on one
// side of an ordering comparison, not a name merely said (is_retryable).
func countsInMethod(body []byte) bool {
	for _, m := range countCompare.FindAllSubmatch(body, 64) {
		if retryCounterName(string(m[1])) || retryCounterName(string(m[2])) {
			return true
		}
	}
	return false
}

var countCompare = regexp.MustCompile(`([A-Za-z_][\w.]*)\s*(?:>=|<=|<|>)\s*([A-Za-z_][\w.]*|[0-9]+)`)

// sameBlock: the guard at off (between, the text from it to the
// self-call) is a statement of the block the self-call is in: in Python
// at the call's indent with nothing between indented less; in JavaScript
// no block closed between them that was open at the guard.
func sameBlock(f *file, between []byte, off int) bool {
	code := f.blanked()
	if f.kind == fkPython {
		ind := indentAt(code, off)
		for _, line := range bytes.Split(between, []byte("\n"))[1:] {
			if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && len(line)-len(t) < ind {
				return false
			}
		}
		return true
	}
	depth := 0
	for _, c := range between {
		switch c {
		case '{':
			depth++
		case '}':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return true
}
