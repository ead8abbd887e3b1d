package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// A synchronous retry-once — the guarded call made again, the same way,
// in the handler of every error:
//
//	try:
//	    reply = client.messages.create(**params)
//	except Exception:
//	    reply = client.messages.create(**params)
//
// and JavaScript's `try { return await ask(input) } catch { return await
// ask(input) }` — is a layer of 2 tries (3 when the handler's own handler
// sends it once more). Precision first: the call must be the guarded
// block's first statement that gives a result and be repeated word for
// word (its arguments as written, spacing aside) at the handler's own
// level; a fallback that changes an argument (model_dump(mode="json"),
// then model_dump()) is not a retry, nor is a call of another function.
// The awaited Python form with changed arguments is pyRetryOnce's
// (watchdog.go); a handler inside a loop is the loop's.

var (
	pySyncResult = regexp.MustCompile(`(?m)^[ \t]*(?:([A-Za-z_][\w.]*)[ \t]*=|return)[ \t]*([A-Za-z_][\w.]*)[ \t]*\(`)
	jsAwaitCall  = regexp.MustCompile(`(?:\b(?:const|let|var)\s+)?(?:([A-Za-z_$][\w$.]*)\s*=|\breturn)\s*await\s+([A-Za-z_$][\w$.]*)\s*\(`)
)

// callText is the raw text of the call whose parenthesis is at open,
// without its spacing.
func callText(f *file, start, open int) string {
	_, b := args(f.blanked(), open)
	if b <= open || b > len(f.raw) {
		return ""
	}
	return strings.Join(strings.Fields(string(f.raw[start:b+1])), "")
}

// firstResultCall: the first statement of the block code[a:b] gives a
// result from a call (re's groups: the target, the callee) — the target,
// the callee and the call's text; ok false when it does not, or the
// callee is a type, a log line or a wait. The first statement only: what
// the block tries is what it does first, not a logger fetched further down.
func firstResultCall(f *file, re *regexp.Regexp, a, b int) (string, string, string, bool) {
	code := f.blanked()
	for a < b && isSpace(code[a]) {
		a++
	}
	if f.kind == fkPython {
		a = lineStartBefore(code, a)
	}
	for _, m := range re.FindAllSubmatchIndex(code[a:b], 1) {
		if len(bytes.TrimSpace(code[a:a+m[0]])) > 0 {
			break
		}
		callee := string(code[a+m[4] : a+m[5]])
		c := callee[strings.LastIndexByte(callee, '.')+1:]
		if notARecall[strings.ToLower(c)] || isTypeName(c) {
			return "", "", "", false
		}
		target := ""
		if m[2] >= 0 {
			target = string(code[a+m[2] : a+m[3]])
		}
		return target, callee, callText(f, a+m[4], a+m[5]), true
	}
	return "", "", "", false
}

// repeatsCall: code[a:b] makes, at its top level, the call written text
// (the same callee) giving the same target.
func repeatsCall(f *file, re *regexp.Regexp, a, b int, target, callee, text string) bool {
	code := f.blanked()
	ind := -1 // a Python handler's own statements are at its first line's indentation
	if f.kind == fkPython {
		k := a
		for k < b && isSpace(code[k]) {
			k++
		}
		ind = indentAt(code, k)
	}
	for _, m := range re.FindAllSubmatchIndex(code[a:b], 64) {
		if !atTopLevel(code[a:b], m[0]) || string(code[a+m[4]:a+m[5]]) != callee {
			continue
		}
		if ind >= 0 {
			k := a + m[0]
			for k < b && isSpace(code[k]) {
				k++
			}
			if indentAt(code, k) != ind && !afterTryAt(code, k, ind) {
				continue
			}
		}
		t := ""
		if m[2] >= 0 {
			t = string(code[a+m[2] : a+m[3]])
		}
		if (t == target || target == "" || t == "") && callText(f, a+m[4], a+m[5]) == text {
			return true
		}
	}
	return false
}

// pySyncRetryOnce: the Python form.
func pySyncRetryOnce(f *file) []Layer {
	code := f.blanked()
	return pyOnceMore(f, func(h pyHandler) (func(pyHandler) bool, string, bool) {
		tryBody := h.tryAt + bytes.IndexByte(code[h.tryAt:h.at], '\n') + 1
		if tryBody <= h.tryAt {
			return nil, "", false
		}
		target, callee, text, ok := firstResultCall(f, pySyncResult, tryBody, h.at)
		if !ok || text == "" {
			return nil, "", false
		}
		repeats := func(n pyHandler) bool {
			bodyA := n.end - len(n.body)
			return bodyA >= n.at && repeatsCall(f, pySyncResult, bodyA, n.end, target, callee, text)
		}
		return repeats, callee + "(…) called again, as written", repeats(h)
	}, "every error is answered by the same call, made again: read it to confirm it re-sends the request")
}

// pyOnceMore walks the file's broad `except` handlers that no loop holds
// (a loop's handler is the loop's) and no stall raised (the watchdog's),
// each not inside one already taken. again says whether a handler sends
// the try's call once more, how each nested handler is judged to send it
// yet again (one try more each), and what the layer says it does.
func pyOnceMore(f *file, again func(h pyHandler) (repeats func(pyHandler) bool, does string, ok bool), advice string) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("except")) {
		return nil
	}
	hs, stall := f.handlers()
	var out []Layer
	covered := -1
	for i, h := range hs {
		if h.at < covered || !pyBroadExcept.Match(h.clause) || stall[i] {
			continue
		}
		if _, inLoop := pyLoopAround(code, h.tryAt, indentAt(code, h.tryAt)); inLoop {
			continue
		}
		repeats, does, ok := again(h)
		if !ok {
			continue
		}
		attempts := 2
		for _, n := range hs[i+1:] {
			if n.at >= h.end {
				break
			}
			if pyBroadExcept.Match(n.clause) && repeats(n) {
				attempts++
			}
		}
		covered = h.end
		out = append(out, handRolled(f.rel, f.lines().at(h.at), attempts, "except "+strings.TrimSpace(string(h.clause))+": "+does, "python", advice))
	}
	return out
}

// jsRetryOnce: the JavaScript form — an awaited call in a try, made again
// as written in its catch.
func jsRetryOnce(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("catch")) {
		return nil
	}
	cs, stall := f.catches()
	var out []Layer
	covered := -1
	for i, c := range cs {
		if c.at < covered || stall[i] || jsInLoop(code, c.tryA) {
			continue
		}
		target, callee, text, ok := firstResultCall(f, jsAwaitCall, c.tryA, c.tryB)
		if !ok || text == "" || !repeatsCall(f, jsAwaitCall, c.bodyA, c.bodyB, target, callee, text) {
			continue
		}
		// The catch must try again whatever the error: a re-call under
		// an if is a handler of one error.
		if jsIfCond.Match(code[c.bodyA:c.bodyB]) {
			continue
		}
		covered = c.bodyB
		out = append(out, handRolled(f.rel, f.lines().at(c.at), 2, "catch: "+callee+"(…) called again, as written", "javascript",
			"every error is answered by the same call, made again: read it to confirm it re-sends the request"))
	}
	return out
}

// jsInLoop: the block holding at is, within its function, a loop's body
// (for, while, do): the loop's rule reads it.
func jsInLoop(code []byte, at int) bool {
	in := false
	jsOpenBlocks(code, at, func(i int) bool {
		head := code[max(0, i-200):i]
		if jsLoopHead.Match(head) || bytes.HasSuffix(bytes.TrimRight(head, " \t\r\n"), []byte("do")) {
			in = true
			return true
		}
		if _, _, _, ok := jsFuncHead(code, i); ok {
			_, w := before(code, i)
			return !jsNotFunc[w] // the function's own block: no loop holds it
		}
		return false
	})
	return in
}

// jsOpenBlocks calls open with the offset of each `{` still open at at,
// innermost first — at most eight, within a loop body's reach — until it
// returns true.
func jsOpenBlocks(code []byte, at int, open func(brace int) bool) {
	depth := 0
	for i, blocks := at-1, 0; i >= 0 && at-i < maxLoopBodyBytes && blocks < 8; i-- {
		switch code[i] {
		case '}':
			depth++
		case '{':
			if depth > 0 {
				depth--
				continue
			}
			blocks++
			if open(i) {
				return
			}
		}
	}
}

var jsLoopHead = regexp.MustCompile(`\b(?:for|while)\s*\([^{}]*\)\s*$`)

// afterTryAt: the statement at k is the first of a try: written at indent
// (a handler that tries the call again under its own handler).
func afterTryAt(code []byte, k, indent int) bool {
	ls := lineStartBefore(code, k)
	if ls == 0 {
		return false
	}
	prev := lineStartBefore(code, ls-1)
	line := code[prev : ls-1]
	t := bytes.TrimLeft(line, " \t")
	return len(line)-len(t) == indent && pyTryLine.Match(t)
}
