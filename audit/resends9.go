package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Re-sends without a retry's vocabulary (issue 37, round 9's misses):
//
//   - the call sent again once, in its handler, with a longer timeout
//     (`catch (e) { return await attemptScrape(options.timeout * 2) }`):
//     2 tries — the same call, only given more time;
//   - a poll loop with an error budget: `while (status === undefined) {
//     if (errors.length >= errorLimit) throw …; try { status = await
//     checkStatus(…) } catch (e) { errors.push(e) } }` — each failed call
//     is sent again until the budget is spent: errorLimit tries.

// timeoutGrown: an argument that grows a timeout (options.timeout * 2,
// 2 * timeout, timeout_s * 2, timeout + 30000).
var timeoutGrown = regexp.MustCompile(`(?i)[\w$.]*time_?out[\w$]*\s*(?:\*\s*[0-9.]+|\+\s*[0-9.]+)|[0-9.]+\s*\*\s*[\w$.]*time_?out`)

// jsLongerTimeouts: a catch, not in a loop, that calls the try's call
// again with a grown timeout.
func jsLongerTimeouts(f *file) []Layer {
	code := f.blanked()
	cs, stall := f.catches()
	var out []Layer
	for i, c := range cs {
		if stall[i] {
			continue // a watchdog's (watchdog.go)
		}
		name, ok := recalls(code[c.tryA:c.tryB], code[c.bodyA:c.bodyB])
		if !ok || !timeoutGrown.Match(code[c.bodyA:c.bodyB]) {
			continue
		}
		if _, in := innermost(f.loops(), c.tryA, c.bodyB); in {
			continue
		}
		if l, ok := grownRecall(f, c.bodyA, c.bodyB, name, "javascript"); ok {
			out = append(out, l)
		}
	}
	return out
}

// pyLongerTimeouts is jsLongerTimeouts for an except.
func pyLongerTimeouts(f *file) []Layer {
	code := f.blanked()
	hs, stall := f.handlers()
	var out []Layer
	for i, h := range hs {
		if stall[i] {
			continue
		}
		tryA := h.tryAt + len("try:")
		if tryA > h.at || !timeoutGrown.Match(code[h.at:h.end]) {
			continue
		}
		name, ok := recalls(code[tryA:h.at], code[h.at:h.end])
		if !ok {
			continue
		}
		if _, in := pyLoopAround(code, h.tryAt, indentAt(code, h.tryAt)); in {
			continue
		}
		if l, ok := grownRecall(f, h.at, h.end, name, "python"); ok {
			out = append(out, l)
		}
	}
	return out
}

// grownRecall: the handler code[a:b] calls name with a grown timeout
// among its arguments; the layer is at that call.
func grownRecall(f *file, a, b int, name, group string) (Layer, bool) {
	code := f.blanked()
	// The call by its last name, a method's too (client.get(…)).
	re, err := regexp.Compile(`(?:^|[^\w$])` + regexp.QuoteMeta(name) + `\s*\(`)
	if err != nil {
		return Layer{}, false
	}
	for _, m := range re.FindAllIndex(code[a:b], maxCandidates) {
		o := m[1] - 1
		x, y := args(code[a:b], o)
		if timeoutGrown.Match(code[a+x : a+y]) {
			at := a + o // the line of its parenthesis
			return resendLayer(f.rel, f.lines().at(at), 2, name+"(…) sent again with "+display1(strings.TrimSpace(string(timeoutGrown.Find(code[a+x:a+y])))), group,
				"the call sent again, once, with a longer timeout: read it to confirm which failures it follows"), true
		}
	}
	return Layer{}, false
}

func resendLayer(rel string, line, attempts int, setting, group, note string) Layer {
	l := handRolled(rel, line, attempts, setting, group, note)
	l.Retries4xx = false // sent again for time, after a timeout or a failure to answer
	return l
}

var (
	budgetWhile = regexp.MustCompile(`\bwhile\s*\(`)
	// errorBudget: `if (errors.length >= errorLimit)`, `if error_count > max_errors:`.
	errorBudget = regexp.MustCompile(`\bif\s*\(?\s*(?:len\(\s*)?([A-Za-z_$][\w$.]*?)(?:\.length)?\s*\)?\s*(>=?)\s*([A-Za-z_$][\w$.]*|[0-9]+)\s*\)?`)
	errorName   = regexp.MustCompile(`(?i)err|fail`)
)

// errorBudgetLoops: a while loop that stops when its count of errors
// reaches a budget, and whose catch or except adds to that count.
func errorBudgetLoops(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("while")) {
		return nil
	}
	var out []Layer
	for _, m := range scanAt(code, "while", budgetWhile, 40) {
		var body []byte
		var a, b int
		open := closeOf(code, m[1]-1, maxArgBytes)
		if open < 0 {
			continue
		}
		brace := bytes.IndexByte(code[open:min(len(code), open+8)], '{')
		if brace < 0 {
			continue
		}
		a = open + brace
		b = closeOf(code, a, maxLoopBodyBytes)
		if b < 0 {
			continue
		}
		body = code[a:b]
		bm := errorBudget.FindSubmatchIndex(body)
		if bm == nil {
			continue
		}
		name := string(body[bm[2]:bm[3]])
		if !errorName.MatchString(name) || !budgetExits(body[bm[1]:]) {
			continue
		}
		if !jsAddsTo(f, a, b, name) {
			continue
		}
		offset := 0
		if string(body[bm[4]:bm[5]]) == ">" {
			offset = 1
		}
		bound := string(body[bm[6]:bm[7]])
		if l, ok := loopLayer(f, m[0], bound, offset, "while (…) with an error budget: "+strings.TrimSpace(string(body[bm[0]:bm[1]])), "javascript",
			"a loop that sends the call again after each failure until its error budget is spent: read it to confirm"); ok {
			l.Retries4xx = true
			out = append(out, l)
		}
	}
	return out
}

// budgetExits: the budget test's block throws, returns or breaks.
func budgetExits(after []byte) bool {
	i := bytes.IndexByte(after, '{')
	if i < 0 || len(bytes.TrimSpace(after[:i])) > 0 {
		st := after[:min(len(after), 200)]
		if nl := bytes.IndexByte(st, '\n'); nl >= 0 && i < 0 {
			st = st[:nl]
		}
		return bytes.Contains(st, []byte("throw")) || bytes.Contains(st, []byte("return")) || bytes.Contains(st, []byte("break"))
	}
	e := closeOf(after, i, maxArgBytes)
	if e < 0 {
		return false
	}
	blk := after[i:e]
	return bytes.Contains(blk, []byte("throw")) || bytes.Contains(blk, []byte("return")) || bytes.Contains(blk, []byte("break"))
}

// jsAddsTo: a catch inside code[a:b] pushes to name or counts it up.
func jsAddsTo(f *file, a, b int, name string) bool {
	code := f.blanked()
	cs, _ := f.catches()
	add := regexp.MustCompile(regexp.QuoteMeta(name) + `\s*(?:\.push\s*\(|\+\+|\+=)`)
	for _, c := range cs {
		if c.tryA >= a && c.bodyB <= b && add.Match(code[c.bodyA:c.bodyB]) {
			return true
		}
	}
	return false
}

// A function that calls itself again with its try counter counted down
// (`return await robustFetch({ ...params, tryCount: tryCount - 1 })`
// while `tryCount > 1`): as many tries as the counter it is given — its
// default, or what its calls pass (other files' included: resolveCallSites
// reads `{ tryCount: 3 }` in a call's object argument).
var (
	jsFuncDef     = regexp.MustCompile(`\b(?:async\s+)?function\s+([A-Za-z_$][\w$]*)\s*(?:<[^(]*>)?\s*\(`)
	tryCounterArg = regexp.MustCompile(`(?i)\b((?:try|tries|attempt|retr)\w*)\s*(?::\s*([A-Za-z_$][\w$]*)\s*-\s*1\b|-\s*1\b)`)
	jsParamDflt   = `\s*(?::\s*[\w$<>\[\]|]+\s*)?=\s*([0-9]+)`
)

func jsSelfCountdowns(f *file) []Layer {
	if !bytes.Contains(f.raw, []byte("- 1")) && !bytes.Contains(f.raw, []byte("-1")) || !tryCounterArg.Match(f.raw) {
		return nil // no counter counted down anywhere: a cheap refusal before the function scan
	}
	code := f.blanked()
	var out []Layer
	for _, m := range jsFuncDef.FindAllSubmatchIndex(code, maxCandidates) {
		name := string(code[m[2]:m[3]])
		pa, pb := args(code, m[1]-1)
		open := bytes.IndexByte(code[pb:min(len(code), pb+maxArgBytes)], '{')
		if open < 0 {
			continue
		}
		end := closeOf(code, pb+open, maxLoopBodyBytes)
		if end < 0 {
			continue
		}
		body := code[pb+open : end]
		counter := ""
		for _, c := range callsOf(body, name, false) {
			x, y := args(body, c)
			cm := tryCounterArg.FindSubmatch(body[x:y])
			if cm == nil || len(cm[2]) > 0 && string(cm[2]) != string(cm[1]) {
				continue
			}
			counter = string(cm[1])
			at := pb + open + c
			dflt := 1
			re, err := regexp.Compile(`\b` + regexp.QuoteMeta(counter) + jsParamDflt)
			if err != nil {
				break
			}
			if dm := re.FindSubmatch(code[pa:pb]); dm != nil {
				dflt = atoiOr(string(dm[1]), 1)
			}
			setting := name + "(…) calls itself with " + counter + " - 1"
			note := "a function that sends the request again by calling itself with one try fewer: read it to confirm"
			l := handRolled(f.rel, f.lines().at(at), dflt, setting+" ("+counter+" = "+strconv.Itoa(dflt)+", default of the parameter)", "javascript", note)
			l.calledAs, l.callBase = &paramFn{bound: counter, name: name, kw: counter, dflt: strconv.Itoa(dflt)}, dflt
			if dflt < 2 {
				l.Attempts, l.loopPending = 0, true // one try unless a call passes more
				l.Setting = setting
			} else if dflt > maxSiteBound {
				markUnbounded(&l, dflt) // tryCount = 100000: over the plausible cap, as a loop's bound is
			}
			out = append(out, l)
			break
		}
	}
	return out
}

// objectKey: arg is an object literal `{ …, kw: value, … }`; the value,
// nil when it has no such key at its top level.
func objectKey(arg []byte, kw string) []byte {
	if len(arg) < 2 || arg[0] != '{' || arg[len(arg)-1] != '}' {
		return nil
	}
	for _, p := range topLevelArgs(arg[1 : len(arg)-1]) {
		p = bytes.TrimSpace(p)
		if k, v, ok := bytes.Cut(p, []byte(":")); ok && string(bytes.TrimSpace(k)) == kw {
			return bytes.TrimSpace(v)
		}
	}
	return nil
}
