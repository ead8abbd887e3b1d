package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// A function that calls itself again after a rate limit —
//
//	except httpx.HTTPStatusError as e:
//	    if e.response.status_code == 429:
//	        time.sleep(30)
//	        return self.build(path, tags)
//
//	} catch (err) {
//	  if (err.status === 429 && retries < MAX_RETRIES) {
//	    await sleep(2 ** retries * 1000);
//	    return this.send(body, retries + 1);
//	  }
//
// — is a retry layer written as a recursion: with no count, nothing stops
// it but the API letting the call through (unbounded, critical); with a
// count passed on (`retries + 1` against a guard `retries < N`, or
// `tries - 1` against `tries > 0`), bounded by the guard. Found in Python
// and JavaScript/TypeScript: a `return` of a call to the function it is in
// (`self.name(…)`, `this.name(…)`, `name(…)`) inside a block whose header —
// an `except`, a `catch` or an `if`, any enclosing one up to the function —
// names a rate limit (429, RateLimitError, rate_limit, TooManyRequests,
// throttling). Not layers: a recursion on a 429 whose count has no guard
// this file shows (bounded by what this rule cannot read), one whose
// function counts its retries in its object (this.retries++), a 429 that
// raises, a call of another function.

var (
	rateLimitWord = regexp.MustCompile(`\b429\b|(?i:rate_?limit|too_?many_?requests|throttl)`)
	// passedCount: the recursion passes a name on one up or down
	// (retries + 1, tries - 1, attempt=attempt + 1).
	passedCount = regexp.MustCompile(`(?:^|[^\w$.])([A-Za-z_$][\w$.]*)\s*([-+])\s*1\b`)
)

// mayRateLimit: the file names a rate limit at all — literal tests before
// any matching, as most files do not.
func mayRateLimit(f *file) bool {
	for _, s := range []string{"429", "ateLimit", "ate_limit", "atelimit", "ATE_LIMIT", "ooManyRequests", "OO_MANY_REQUESTS", "oo_many_requests", "hrottl", "HROTTL"} {
		if f.contains(s) {
			return true
		}
	}
	return false
}

// rateLimitRecursion builds the layer of a recursion at at (the return)
// whose call's arguments are code[a:b], in the function fn whose parameter
// list is params: unbounded with no count; bounded by the guard of the
// count it passes on; ok false when the count's guard is not in fn.
func rateLimitRecursion(f *file, at int, name string, args, fn, heads, params []byte, group string) (Layer, bool) {
	setting := "return " + name + "(…) again after a rate limit"
	if movesOn(args, params) {
		return Layer{}, false
	}
	ms := passedCount.FindAllSubmatch(args, 8)
	if ms == nil {
		if countsRetries(fn) {
			return Layer{}, false // counted in its object: bounded by a guard not read here
		}
		if l, ok := boundInMethod(f, at, heads, setting, group, "a function that calls itself again after a rate limit"); ok {
			return l, true // a method of the object decides (boundelsewhere.go)
		}
		l := handRolled(f.rel, f.lines().at(at), 0, "", group,
			"a function that calls itself again after a rate limit, with no count: nothing stops it but the API letting the call through")
		l.Retries4xx = false // it retries a 429, not any 400
		l.setUnbounded(setting + " (no count)")
		return l, true
	}
	// The count that bounds the call is one the conditions of the blocks
	// holding the return compare (heads, innermost first), not the first
	// `x + 1` in its arguments nor the first comparison in the function
	// (R6-8: fetch(q, page + 1, retries + 1) under `if retries < 3:` is
	// bounded by retries). None compared there (a guard that raises
	// above): each count with a guard anywhere in the function.
	var cands [][][]byte
	for _, m := range ms {
		if countGuard(string(m[1])).Match(heads) {
			cands = append(cands, m)
		}
	}
	scope := heads
	if len(cands) == 0 {
		cands, scope = ms, fn
	}
	note := "a function that calls itself again after a rate limit, counting the tries it passes on: read it to confirm the guard"
	var best Layer
	found, differ := 0, false
	for _, m := range cands {
		l, ok := countedRepeat(f, at, m, scope, params, setting, group, note)
		if !ok {
			continue
		}
		found++
		switch {
		case found == 1:
			best = l
		case l.Unbounded != best.Unbounded || l.Attempts != best.Attempts:
			differ = true
			if l.Unbounded || !best.Unbounded && l.Attempts > best.Attempts {
				best = l
			}
		}
	}
	if found == 0 {
		return Layer{}, false
	}
	if differ {
		// Ambiguous: the larger, and the report says so.
		best.Note = strings.TrimPrefix(best.Note+"; ", "; ") + "several counts passed on have guards: the larger bound is shown"
	}
	return best, true
}

// countGuard matches a comparison of counter (x < N, N > x, x >= 1).
func countGuard(counter string) *regexp.Regexp {
	q := regexp.QuoteMeta(counter)
	return regexp.MustCompile(`\b` + q + `\s*(?:<=?|>=?|==)|(?:<=?|>=?)\s*` + q + `\b|\bnot\s+` + q + `\b|!\s*` + q + `\b`)
}

// countedRepeat is the layer of a call made again (a recursion, a task
// enqueued again) that passes a count on — m, passedCount's match in its
// arguments — bounded by the guard of that count in fn, counted from its
// default in params; ok false when fn shows no guard.
func countedRepeat(f *file, at int, m [][]byte, fn, params []byte, setting, group, note string) (Layer, bool) {
	counter, down := string(m[1]), string(m[2]) == "-"
	q := regexp.QuoteMeta(counter)
	start := 0
	if d := regexp.MustCompile(`(?:^|[(,\s])` + q + `\s*(?::\s*(?:int|number)\s*)?=\s*([0-9]+)\s*(?:[,)]|$)`).FindSubmatch(params); d != nil {
		start, _ = strconv.Atoi(string(d[1]))
	}
	if down {
		// tries - 1 against tries > 0 (or <= 0 / not tries, raising): the
		// parameter's value and one more.
		if !regexp.MustCompile(`\b` + q + `\s*(?:>\s*0|<=\s*0|==\s*0|===\s*0|<\s*1|>=\s*1)|\bnot\s+` + q + `\b|!\s*` + q + `\b`).Match(fn) {
			return Layer{}, false
		}
		l, ok := loopLayer(f, at, counter, 1, setting+" ("+counter+" - 1)", group, note)
		l.Retries4xx = false
		return l, ok
	}
	g := regexp.MustCompile(`\b` + q + `\s*(<=?|>=?)\s*([0-9]+|[A-Za-z_$][\w$.]*)|([0-9]+|[A-Za-z_$][\w$.]*)\s*(<=?|>=?)\s*` + q + `\b`).FindSubmatch(fn)
	if g == nil {
		return Layer{}, false
	}
	op, bound := string(g[1]), string(g[2])
	if len(g[3]) > 0 {
		// N > x is x < N.
		bound, op = string(g[3]), map[string]string{">": "<", ">=": "<=", "<": ">", "<=": ">="}[string(g[4])]
	}
	// x < N recurses for x = start … N-1: N − start calls again, one
	// first; x <= N (or a guard x > N that raises) one more.
	offset := 1 - start
	if op == "<=" || op == ">" {
		offset++
	}
	l, ok := loopLayer(f, at, bound, offset, setting+" ("+counter+" + 1, "+counter+" "+op+" "+bound+")", group, note)
	l.Retries4xx = false
	return l, ok
}

// pyRateLimitRecursions finds the Python functions that call themselves
// again after a rate limit.
func pyRateLimitRecursions(f *file) []Layer {
	if !f.contains("return") || !mayRateLimit(f) {
		return nil
	}
	code, text := f.blanked(), f.readable()
	var out []Layer
	for _, m := range scanAt(code, "return", pySelfReturn, 200) {
		name := string(code[m[2]:m[3]])
		if notARecall[strings.ToLower(name)] || len(out) >= maxCandidates || !atLineStart(code, m[0]) {
			continue
		}
		ind := indentAt(code, m[0])
		defAt, ok := pyEnclosingDef(code, m[0], ind, name)
		if !ok || !pyHeadersName(code, text, defAt, m[0], ind, rateLimitWord) {
			continue
		}
		a, b := args(code, m[1]-1)
		// A re-ask rule already holds this line (reask.go).
		if cond, ok := pyIfAbove(code, m[0], ind); ok && (reaskCond.Match(cond) || extendsConversation.Match(code[a:b])) && !passesCount.Match(code[a:b]) {
			continue
		}
		// The def's own block: from its name, so its indent is the def's
		// (a method's block ends with the method, not the class).
		di := defAt + lineIndent(code, defAt)
		fn := code[defAt:min(len(code), pyBlockEndWithin(code, di, di, maxReaskFuncBytes))]
		po := bytes.IndexByte(fn, '(')
		if po < 0 {
			continue
		}
		pa, pb := args(code, defAt+po)
		if l, ok := rateLimitRecursion(f, m[0], name, code[a:b], fn, pyHeads(code, defAt, m[0], ind), code[pa:pb], "python"); ok {
			out = append(out, l)
		}
	}
	return out
}

// pyEachHeader calls fn with the header line of each block holding the
// line at at (indented ind) — each line above indented less — innermost
// first, down to the offset lo; it stops when fn says so.
func pyEachHeader(code []byte, lo, at, ind int, fn func(start int, line []byte) bool) {
	for end := lineStartBefore(code, at); end > lo && ind > 0; {
		start := lineStartBefore(code, end-1)
		line := code[start:end]
		end = start
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if li := lineIndent(code, start); li < ind {
			ind = li
			if fn(start, line) {
				return
			}
		}
	}
}

// pyHeadersName: a header of a block holding the line at at (an if, an
// elif, an except, a with — each line above indented less, up to the def
// at defAt) matches re, read in text (strings kept: "rate_limit_exceeded").
func pyHeadersName(code, text []byte, defAt, at, ind int, re *regexp.Regexp) bool {
	found := false
	pyEachHeader(code, defAt, at, ind, func(start int, line []byte) bool {
		found = re.Match(text[start : start+len(line)])
		return found
	})
	return found
}

// pyHeads is the headers of the blocks holding the line at at, up to the
// def at defAt, innermost first, one a line (blanked code).
func pyHeads(code []byte, defAt, at, ind int) []byte {
	var out []byte
	pyEachHeader(code, defAt, at, ind, func(_ int, line []byte) bool {
		out = append(append(out, bytes.TrimSpace(line)...), '\n')
		return false
	})
	return out
}

// jsRateLimitRecursions finds the JavaScript and TypeScript functions that
// call themselves again after a rate limit.
func jsRateLimitRecursions(f *file) []Layer {
	if !f.contains("return") || !mayRateLimit(f) {
		return nil
	}
	code, text := f.blanked(), f.readable()
	var out []Layer
	for _, m := range scanAt(code, "return", jsSelfReturn, 200) {
		name := string(code[m[2]:m[3]])
		if notARecall[strings.ToLower(name)] || len(out) >= maxCandidates {
			continue
		}
		d := jsDefsOf(f, name)
		fnOpen, fnClose, ok := jsEnclosingFunc(code, d, m[0])
		if !ok || !jsHeadersName(code, text, fnOpen, m[0], rateLimitWord) {
			continue
		}
		a, b := args(code, m[1]-1)
		if cond, ok := jsIfConsequent(code, fnOpen, m[0]); ok && (reaskCond.Match(cond) || extendsConversation.Match(code[a:b])) && !passesCount.Match(code[a:b]) {
			continue // a re-ask rule holds this line (reask.go)
		}
		var params []byte
		for _, def := range d {
			if def[1]-1 == fnOpen {
				params = code[def[0]:def[1]]
			}
		}
		if l, ok := rateLimitRecursion(f, m[0], name, code[a:b], code[fnOpen:fnClose], jsHeads(code, fnOpen, m[0]), params, "javascript"); ok {
			out = append(out, l)
		}
	}
	return out
}

// jsOpenBraces is where the blocks still open at at were opened, since
// the function's brace at fnOpen, outermost first.
func jsOpenBraces(code []byte, fnOpen, at int) []int {
	var open []int
	for i := fnOpen + 1; i < at; i++ {
		switch code[i] {
		case '{':
			open = append(open, i)
		case '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	return open
}

// jsHeadStart is where the header ending at end begins: after the last
// `;`, `{` or `}` before it, at most 300 bytes back.
func jsHeadStart(code []byte, fnOpen, end int) int {
	start := end
	for start > fnOpen && end-start < 300 && code[start-1] != ';' && code[start-1] != '{' && code[start-1] != '}' {
		start--
	}
	return start
}

// jsHeads is the headers of the blocks still open at at (as
// jsHeadersName reads them), innermost first, one a line (blanked code).
func jsHeads(code []byte, fnOpen, at int) []byte {
	open := jsOpenBraces(code, fnOpen, at)
	head := func(end int) []byte { return bytes.TrimSpace(code[jsHeadStart(code, fnOpen, end):end]) }
	out := append(append([]byte(nil), head(at)...), '\n') // a copy: head is a slice of code
	for i := len(open) - 1; i >= 0; i-- {
		out = append(append(out, head(open[i])...), '\n')
	}
	return out
}

// jsHeadersName: a header of a block still open at at — the text before
// each `{` opened since the function's brace at fnOpen and not closed, or
// the brace-less `if (…)` the return ends — matches re, read in text.
func jsHeadersName(code, text []byte, fnOpen, at int, re *regexp.Regexp) bool {
	for _, o := range jsOpenBraces(code, fnOpen, at) {
		if re.Match(text[jsHeadStart(code, fnOpen, o):o]) {
			return true
		}
	}
	return re.Match(text[jsHeadStart(code, fnOpen, at):at])
}

// movesOn: the call passes on something other than what it was given — a
// parameter's field or element, or a call made of it (walk(tree.left),
// crawl(page.next_page), this.fetchAll(nextUrl(url))): a walk or a
// paginator that moves on after a 429, not the same request sent again
// (R6-16: four false criticals). A count passed on (retries + 1) and the
// receiver (self, cls, this) are not moving on.
func movesOn(passed, params []byte) bool {
	if i := bytes.IndexByte(params, '('); i >= 0 { // a JS definition's head: its list
		a, b := args(params, i)
		params = params[a:b]
	}
	names := map[string]bool{}
	for _, p := range topLevelArgs(params) {
		p = bytes.TrimLeft(bytes.TrimSpace(p), "*.")
		if m := leadingIdent.Find(p); m != nil && !receiverName[string(m)] {
			names[string(m)] = true
		}
	}
	if len(names) == 0 {
		return false
	}
	for _, a := range topLevelArgs(passed) {
		a = bytes.TrimSpace(a)
		if kw := keywordArg.FindSubmatchIndex(a); kw != nil {
			a = bytes.TrimSpace(a[kw[1]:])
		}
		if m := derivedArg.FindSubmatch(a); m != nil && names[string(m[1])] {
			return true
		}
		if c := calledOn.FindSubmatch(a); c != nil && !receiverName[string(c[1])] {
			for _, id := range identWord.FindAll(c[2], -1) {
				if names[string(id)] {
					return true
				}
			}
		}
	}
	return false
}

var (
	leadingIdent = regexp.MustCompile(`^[A-Za-z_$][\w$]*`)
	identWord    = regexp.MustCompile(`[A-Za-z_$][\w$]*`)
	keywordArg   = regexp.MustCompile(`^[A-Za-z_$][\w$]*\s*=[^=]`)
	// derivedArg: a parameter's field or element (tree.left, page["next"]).
	derivedArg = regexp.MustCompile(`^([A-Za-z_$][\w$]*)\s*(?:\?\.|\.|\[)\s*[A-Za-z_$"'0-9]`)
	// calledOn: a call of a function on arguments (nextUrl(url)).
	calledOn     = regexp.MustCompile(`^([A-Za-z_$][\w$.]*)\s*\((.*)\)$`)
	receiverName = map[string]bool{"self": true, "cls": true, "this": true}
)
