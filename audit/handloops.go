package audit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// Retry loops written by hand: a loop of a small literal count whose body
// catches an error and sleeps. A low-confidence layer, as only a reader can
// tell a retry from a loop that happens to sleep.

// handRolled is the layer of a hand-written loop of attempts tries.
func handRolled(rel string, line, attempts int, setting, group, note string) Layer {
	return Layer{File: rel, Line: line, DefaultID: "hand-rolled", Library: "hand-rolled retry loop", Kind: KindWrapper,
		Attempts: attempts, Configured: true, Setting: setting, Retries4xx: true, Backoff: "none",
		Confidence: ConfidenceLow, group: group, Note: note}
}

var (
	pyRangeLoop = regexp.MustCompile(`^for\s+(\w+)\s+in\s+range\(\s*(?:([0-9]+)\s*,\s*)?([0-9][0-9_]*(?:\s*\*\*\s*[0-9]+)?|[A-Za-z_][\w.]*)(\s*\+\s*1)?\s*\)\s*:`)
	pyTupleLoop = regexp.MustCompile(`^for\s+(\w+)\s+in\s+[(\[]\s*([0-9]+(?:\s*,\s*[0-9]+)*)\s*,?\s*[)\]]\s*:`)
	pyTry       = regexp.MustCompile(`\btry\s*:`)
	pySleep     = regexp.MustCompile(`\bsleep\s*\(`)
)

// pyHandLoops: `for attempt in range(3):` whose block has a try and a
// sleep.
func pyHandLoops(f *file) []Layer {
	if pyTalksOnlyToStore(f) {
		return nil // a database's retries (localerrors.go)
	}
	code := f.blanked()
	var out []Layer
	for _, m := range scanAt(code, "for", pyRangeLoop, 200) {
		if !atLineStart(code, m[0]) {
			continue
		}
		start := 0
		if m[4] >= 0 {
			start, _ = strconv.Atoi(string(code[m[4]:m[5]]))
		}
		offset := -start
		if m[8] >= 0 {
			offset++ // range(attempts + 1)
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		body := code[m[1]:end]
		if !bytes.Contains(body, []byte("try")) {
			continue // no try: a cheap refusal before the regexps read a long block
		}
		// A loop that tries and sleeps; or one that tries at once again,
		// without a sleep, when its counter says what it counts (for
		// attempt in range(MAX_RETRIES + 1): try … except: continue).
		paced := bytes.Contains(body, []byte("sleep")) && pySleep.Match(body) || retryCounterName(string(code[m[2]:m[3]])) && pyHandlesAndGoesOn(f, m[1], end)
		if !pyTry.Match(body) || !paced || pyLoopHasStallHandler(f, m[1], end) || pyRetriesOnlyLocal(f, m[1], end) || pyTriesOnlyLocalWork(f, m[1], end) || pyTriesInInnerLoops(f, m[0], m[1], end) {
			continue // no retry shape, a stall watchdog's loop (watchdog.go), or a file's (localerrors.go)
		}
		if l, ok := loopLayer(f, m[0], string(code[m[6]:m[7]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), "python",
			"a loop that tries and sleeps: read it to confirm it retries the call"); ok {
			if only429.Match(body) && !pyCatchesAllAndGoesOn(f, m[1], end) || pyGoesOnOnlyForSpecific(f, m[1], end) || pyGoesOnOnlyForRetryableStatus(f, m[1], end) {
				l.Retries4xx = false // it tries again only on a rate limit, or on errors that are no client's (localerrors.go)
			}
			out = append(out, l)
		}
	}
	return out
}

// pyTupleLoops: `for attempt in (1, 2):` — a counter named for retries
// or attempts over a literal tuple or list, whose block tries and sleeps:
// one try per element.
func pyTupleLoops(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range scanAt(code, "for", pyTupleLoop, 200) {
		if !atLineStart(code, m[0]) || !retryCounterName(string(code[m[2]:m[3]])) {
			continue
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		body := code[m[1]:end]
		if !pyTry.Match(body) || !pySleep.Match(body) || pyLoopHasStallHandler(f, m[1], end) {
			continue
		}
		n := len(bytes.Split(code[m[4]:m[5]], []byte(",")))
		if n < 2 || n > 1000 {
			continue
		}
		out = append(out, handRolled(f.rel, f.lines().at(m[0]), n, strings.TrimSpace(string(code[m[0]:m[1]])), "python",
			"a loop over the tries, numbered, that tries and sleeps: read it to confirm it retries the call"))
	}
	return out
}

// loopBound is a loop's bound as written: a literal, or a name the file
// gives a value (values.go), with the resolution to show after the
// setting.
func loopBound(f *file, written string) (int, string, bool) {
	return loopBoundAt(f, written, 0)
}

// loopBoundAt is loopBound for a loop at line site: a name bound twice at
// module level is read at the binding the loop sees (resolveAt).
func loopBoundAt(f *file, written string, site int) (int, string, bool) {
	if n, err := strconv.Atoi(written); err == nil {
		return min(n, hugeBound), "", true
	}
	if n, ok := bigLiteral(written); ok {
		return n, "", true // 10**12, or too large for an int
	}
	r, ok := f.resolveAt(written, site)
	if !ok {
		return 0, "", false
	}
	return r.n, " (" + r.text(f.rel) + ")", true
}

// pyLocalBound: in Python, the bound a plain name is given by an
// assignment in the loop's own function before the loop (max_retries = 3
// just above it) — the value the loop runs with, whatever another
// function's parameter of the same name defaults to.
func pyLocalBound(f *file, at int, bound string) (int, string, bool) {
	if f.kind != fkPython || !isName(bound) || strings.ContainsRune(bound, '.') {
		return 0, "", false
	}
	code := f.blanked()
	ind := indentAt(code, at)
	assign := regexp.MustCompile(`^[ \t]*` + regexp.QuoteMeta(bound) + `\s*(?::\s*int\s*)?=\s*([0-9][0-9_]*)\s*$`)
	for ls, n := lineStartBefore(code, at), 0; ls > 0 && n < 400; n++ {
		ls = lineStartBefore(code, ls-1)
		le := ls
		for le < len(code) && code[le] != '\n' {
			le++
		}
		line := code[ls:le]
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 {
			continue
		}
		if li := len(line) - len(t); li < ind && (bytes.HasPrefix(t, []byte("def ")) || bytes.HasPrefix(t, []byte("async def ")) || bytes.HasPrefix(t, []byte("class "))) {
			// The function's head: its parameter's default, if it has one.
			if op := bytes.IndexByte(t, '('); op >= 0 && bytes.HasPrefix(t, []byte("def ")) || op >= 0 && bytes.HasPrefix(t, []byte("async def ")) {
				a, b := args(code, ls+li+op)
				param := regexp.MustCompile(`(?:^|[(,\s])` + regexp.QuoteMeta(bound) + `\s*(?::\s*int\s*)?=\s*([0-9][0-9_]*)\s*(?:,|$)`)
				if m := param.FindSubmatch(code[a:b]); m != nil {
					if v, ok := atoiBounded(string(m[1])); ok {
						return v, fmt.Sprintf(" (%s = %d, default of the parameter at %s:%d)", bound, v, f.rel, f.lines().at(ls)), true
					}
				}
			}
			return 0, "", false
		} else if li == 0 {
			return 0, "", false // left the function
		}
		if m := assign.FindSubmatch(line); m != nil {
			v, ok := atoiBounded(string(m[1]))
			if !ok {
				return 0, "", false
			}
			return v, fmt.Sprintf(" (%s = %d, assigned at %s:%d)", bound, v, f.rel, f.lines().at(ls)), true
		}
	}
	return 0, "", false
}

// loopLayer is the hand-rolled layer of a loop of bound + offset tries
// whose head starts at at; a bound that is a name no line of this file
// defines leaves the layer pending the root's other files
// (resolveValues), which drop it when none does.
func loopLayer(f *file, at int, bound string, offset int, setting, group, note string) (Layer, bool) {
	n, how, ok := pyLocalBound(f, at, bound)
	var fn *paramFn
	if !ok || strings.Contains(how, "default of the parameter") {
		// The function's own parameter: its default and what its calls
		// pass (params.go); in Go, the name in the loop's scope. The
		// function is kept: calls in other files may pass more.
		pn, phow, pok := paramBound(f, at, bound)
		fn = f.paramCache().last
		if pok {
			n, how, ok = pn, phow, true
		}
	}
	if !ok && fn == nil {
		n, how, ok = loopBoundAt(f, bound, f.lines().at(at))
	}
	if ok {
		attempts := n + offset
		if attempts > maxSiteBound {
			// Over the plausible cap: unbounded, never dropped (rt5 F4).
			l := handRolled(f.rel, f.lines().at(at), 0, setting+how, group, note)
			markUnbounded(&l, attempts)
			return l, true
		}
		if attempts < 2 {
			if fn == nil {
				return Layer{}, false
			}
			// One try from this file's calls; another file may pass more
			// (rt5 F3): pending the root's calls (resolveCallSites), dropped
			// when none does.
			l := handRolled(f.rel, f.lines().at(at), 0, setting, group, note)
			l.calledAs, l.callBase, l.loopOffset, l.loopPending = fn, n, offset, true
			return l, true
		}
		l := handRolled(f.rel, f.lines().at(at), attempts, setting+how, group, note)
		l.calledAs, l.callBase, l.loopOffset = fn, n, offset
		return l, true
	}
	if !isName(bound) {
		return Layer{}, false
	}
	l := handRolled(f.rel, f.lines().at(at), 0, setting, group, note)
	l.valueName, l.valueExpr, l.pending, l.loopOffset, l.loopPending = lastSegment(bound), bound, true, offset, true
	l.calledAs, l.callBase = fn, -1
	if fn != nil && fn.dflt != "" && isName(fn.dflt) && strings.Contains(fn.dflt, ".") && !ownAttribute(fn.dflt) {
		l.valueAlt = fn.dflt // settings.MAX_RETRIES: a module's value, looked up when the parameter's name has none
	}
	return l, true
}

// pyBlockEnd is where the block of the statement written at [at, end)
// ends: the following lines indented deeper than it, bounded.
func pyBlockEnd(code []byte, at, end int) int {
	return pyBlockEndWithin(code, at, end, maxArgBytes)
}

// maxLoopBodyBytes bounds a flag loop's block: a `while True:` that builds
// a long prompt (an f-string of examples) before its call and its try
// runs well past maxArgBytes. scanAt finds at most maxCandidates loops a
// file, so a file costs at most maxCandidates × this.
const maxLoopBodyBytes = 64 << 10

// maxCountedLoopBytes bounds a counted retry loop's block: a stream
// handled event by event runs past maxArgBytes before its except and its
// sleep (8 KB in round 5); a quarter of a flag loop's bound, as a file
// holds up to maxCandidates of each shape.
const maxCountedLoopBytes = 16 << 10

// pyBlockEndWithin is pyBlockEnd reading at most limit bytes of block.
func pyBlockEndWithin(code []byte, at, end, limit int) int {
	indent := 0
	for i := at - 1; i >= 0 && code[i] != '\n'; i-- {
		indent++
	}
	e := end
	// Inside a triple-quoted string (its contents blanked, its quotes
	// kept) a line at column 0 — a prompt's text, its closing """ — is
	// not a dedent. Counted from the statement's own line.
	dq, sq := bytes.Count(code[at:end], []byte(`"""`))%2 == 1, bytes.Count(code[at:end], []byte(`'''`))%2 == 1
	for e < len(code) && e-end < limit {
		nl := e
		for nl < len(code) && code[nl] != '\n' {
			nl++
		}
		if nl >= len(code) {
			return nl
		}
		line := code[e:nl]
		dq = dq != (bytes.Count(line, []byte(`"""`))%2 == 1)
		sq = sq != (bytes.Count(line, []byte(`'''`))%2 == 1)
		next := nl + 1
		if dq || sq {
			e = next
			continue
		}
		ind := 0
		for next+ind < len(code) && (code[next+ind] == ' ' || code[next+ind] == '\t') {
			ind++
		}
		blankLine := next+ind >= len(code) || code[next+ind] == '\n'
		if !blankLine && ind <= indent {
			return nl
		}
		e = next
	}
	return e
}

var (
	jsHandLoop  = regexp.MustCompile(`^for\s*\(\s*(?:let|var)\s+(\w+)\s*=\s*([01])\s*;\s*(\w+)\s*(<=?)\s*([0-9]+|[A-Za-z_$][\w$.]*)(\s*\+\s*1)?\s*;`)
	jsLoopCatch = regexp.MustCompile(`\bcatch\b`)
	jsLoopWait  = regexp.MustCompile(`\bsetTimeout\s*\(|\bsleep\s*\(|\bdelay\s*\(|\bwait\s*\(`)
)

// cLoops finds the C-family counted loops of re in f — `for (let i = 0;
// i < N; i++)`, `for (int attempt = 0; …)`: groups 1 and 3 the counter, 2
// its start, 4 the comparison, 5 the bound — whose body (the braces after
// the header) matches catch and wait, and makes each a layer of lang.
func cLoops(f *file, re, catch, wait *regexp.Regexp, lang, note string) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range scanAt(code, "for", re, 200) {
		if string(code[m[2]:m[3]]) != string(code[m[6]:m[7]]) {
			continue
		}
		offset := -int(code[m[4]] - '0')
		if string(code[m[8]:m[9]]) == "<=" {
			offset++
		}
		if len(m) > 13 && m[12] >= 0 {
			offset++ // attempt <= maxRetries + 1
		}
		open := m[1]
		for open < len(code) && open-m[1] < 200 && code[open] != '{' {
			open++
		}
		if open >= len(code) || code[open] != '{' {
			continue
		}
		a, b := args(code, open)
		body := code[a:b]
		if !catch.Match(body) {
			continue
		}
		// A loop that catches and waits; or, in JavaScript, one that tries
		// again at once when its counter says what it counts (for (let
		// attempt = 1; attempt <= maxAttempts; attempt++) { try { return
		// await call() } catch (e) { last = e } }).
		named := retryCounterName(string(code[m[2]:m[3]])) || retryCounterName(string(code[m[10]:m[11]]))
		if !wait.Match(body) && !(lang == "javascript" && (named || !overCollection(string(code[m[10]:m[11]])) && jsTryAwaitsThenLeaves(body)) && jsCatchGoesOn(f, a, b)) {
			continue
		}
		if lang == "javascript" && (jsLoopHasStallHandler(f, a, b) || jsTriesOnlyLocalWork(f, a, b)) {
			continue // a stall watchdog's loop (watchdog.go), or a file's (localerrors.go)
		}
		if l, ok := loopLayer(f, m[0], string(code[m[10]:m[11]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), lang, note); ok {
			out = append(out, l)
		}
	}
	return out
}

// jsCatchGoesOn: a catch block within code[a:b] lets the loop go on —
// no throw, return, break or continue of its own level (an `if (…) throw`
// gives up only at the bound, and goes on before it).
func jsCatchGoesOn(f *file, a, b int) bool {
	code := f.blanked()
	cs, _ := f.catches()
	for _, c := range cs {
		if c.at < a || c.bodyB > b {
			continue
		}
		exits, depth := false, 0
		body := code[c.bodyA:c.bodyB]
		for i := 0; i < len(body); i++ {
			switch body[i] {
			case '{', '(':
				depth++
			case '}', ')':
				depth--
			}
			if depth == 0 && (i == 0 || !isIdentByte(body[i-1])) && jsExitWord.Match(body[i:min(len(body), i+10)]) {
				// An exit at the catch's own level, not the then of an if.
				j := bytes.LastIndexAny(body[:i], ";\n{}")
				prev := bytes.TrimSpace(body[j+1 : i])
				if len(prev) == 0 {
					exits = true
					break
				}
			}
		}
		if !exits {
			return true
		}
	}
	return false
}

var jsExitWord = regexp.MustCompile(`^(?:throw|return|break|continue)\b`)

// jsHandLoops finds `for (let i = 0; i < 3; i++) { try … catch … sleep }`.
func jsHandLoops(f *file) []Layer {
	return cLoops(f, jsHandLoop, jsLoopCatch, jsLoopWait, "javascript", "a loop that catches and sleeps: read it to confirm it retries the call")
}

// goHandLoops: `for i := 0; i < 3; i++ { ... time.Sleep(...) }` that
// looks at err.
func goHandLoops(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []Layer
	ast.Inspect(g.ast, func(n ast.Node) bool {
		fs, ok := n.(*ast.ForStmt)
		if !ok {
			return true
		}
		bound, offset, ok := goLoopBound(fs, g)
		if !ok || !(goSleepsOnErr(fs.Body, g.local) || goTriesAtOnce(fs, bound)) {
			return true
		}
		// Every error leaves: a poll, unless what it tries again on is a
		// response's retryable status (a 429, a 5xx) — then it re-sends
		// on that status alone, never on a 400 (go_atonce.go).
		poll, onStatus := goPollLoop(fs.Body), goRetriesOnStatus(g, fs.Body)
		if poll && !onStatus {
			return true
		}
		if l, ok := loopLayer(f, g.offset(fs), bound, offset, "for … "+fs.Cond.(*ast.BinaryExpr).Op.String()+" "+bound, "go",
			"a loop that sleeps between tries: read it to confirm it retries the call"); ok {
			if poll || goAsksRetryable(fs.Body) {
				l.Retries4xx = false
			}
			out = append(out, l)
		}
		return true
	})
	return out
}

// goLoopBound is the bound of `for i := a; i < n` (or <=) as written — a
// literal or a name, resolved by loopLayer — and the tries beyond it.
func goLoopBound(fs *ast.ForStmt, g *goFile) (string, int, bool) {
	if fs.Cond == nil {
		return "", 0, false
	}
	be, ok := fs.Cond.(*ast.BinaryExpr)
	if !ok || (be.Op != token.LSS && be.Op != token.LEQ) {
		return "", 0, false
	}
	var bound string
	switch y := be.Y.(type) {
	case *ast.BasicLit:
		if y.Kind != token.INT {
			return "", 0, false
		}
		bound = y.Value
	case *ast.Ident, *ast.SelectorExpr:
		bound = g.text(y)
	default:
		return "", 0, false
	}
	start := 0
	if as, ok := fs.Init.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
		if bl, ok := as.Rhs[0].(*ast.BasicLit); ok {
			start, _ = strconv.Atoi(bl.Value)
		}
	}
	offset := -start
	if be.Op == token.LEQ {
		offset++
	}
	return bound, offset, true
}

// goSleepsOnErr: the body calls time.Sleep and names err.
func goSleepsOnErr(body *ast.BlockStmt, local map[string]string) bool {
	sleeps, checksErr := false, false
	ast.Inspect(body, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && id.Name == "err" {
			checksErr = true
		}
		if c, ok := m.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] == "time" && (sel.Sel.Name == "Sleep" || sel.Sel.Name == "After" || sel.Sel.Name == "NewTimer") {
					sleeps = true
				}
			}
		}
		return true
	})
	return sleeps && checksErr
}

// pyCounterRetry: a retry counted by hand rather than by a for loop —
//
//	empty_retries += 1
//	if empty_retries > cfg.empty_response_retry_max:
//	    raise …
//
// the shape of a wrapper that regenerates a turn (an empty response, a
// stalled stream) until a bound, then gives up: bound + 1 tries with `>`,
// bound with `>=`. The counter's name says retry or attempt; the bound is
// resolved like a loop's.
func pyCounterRetry(f *file) []Layer {
	// A stall handler's counter is the watchdog's (watchdog.go).
	return pyCounters(f, 0, len(f.blanked()), func(at int) bool { return pyInStallHandler(f, at) },
		"a counter that retries until a bound, then raises (a regenerate-on-failure wrapper): read it to confirm it re-sends the call")
}

// pyCounters are the hand-counted retries whose test lies in code[a:b].
// skip, when not nil, drops a test at the offset it is given.
func pyCounters(f *file, a, b int, skip func(int) bool, note string) []Layer {
	code := f.blanked()
	var out []Layer
	whileHeads := map[int]int{} // a while True's line: its layer's index in out
	for _, m := range scanAt(code[:b], "if", pyCounterIf, 200) {
		if m[0] < a {
			continue
		}
		name := string(code[m[2]:m[3]])
		lname := strings.ToLower(name)
		if !atLineStart(code, m[0]) || !(strings.Contains(lname, "retr") || strings.Contains(lname, "attempt") || strings.Contains(lname, "regen")) {
			continue
		}
		// The line before increments the counter.
		ls := m[0]
		for ls > 0 && code[ls-1] != '\n' {
			ls--
		}
		prev := ls - 1
		for prev > 0 && code[prev-1] != '\n' {
			prev--
		}
		blockEnd := min(pyBlockEnd(code, m[0], m[1]), len(code))
		after := 0 // tested before the counter is incremented: one try more
		if ls == 0 || !pyIncrement.Match(code[max(prev, 0):ls]) || !strings.Contains(string(code[max(prev, 0):ls]), name) {
			if !pyIncrementsAfter(f, m[0], blockEnd, name) {
				continue
			}
			after = 1
		}
		body := code[m[1]:blockEnd]
		if !pyRaise.Match(body) || skip != nil && skip(m[0]) {
			continue
		}
		offset := 1 + after // > bound: bound + 1 tries
		if string(code[m[4]:m[5]]) == ">=" {
			offset = after
		}
		if l, ok := loopLayer(f, m[0], string(code[m[6]:m[7]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), "python", note); ok {
			if pyHandlerSkipsByClass(f, m[0]) {
				l.Retries4xx = false // it raises at once for the errors it names
			}
			// Inside a `while True:` the loop is the layer: its head is
			// where the retry is, and two tests of one counter in its
			// block (a chunk sent, a status probed) are one layer (issue
			// 37, round 8: skyvern's Drive upload, reported twice, 6 and
			// 49 lines below its head).
			if at, in := pyLoopAround(code, m[0], indentAt(code, m[0])); in && pyWhileTrue.Match(code[at:min(len(code), at+40)]) {
				line := f.lines().at(at)
				if k, dup := whileHeads[line]; dup {
					if l.Unbounded || l.Attempts > out[k].Attempts && !out[k].Unbounded {
						l.Line = line
						out[k] = l
					}
					continue
				}
				l.Line = line
				whileHeads[line] = len(out)
			}
			out = append(out, l)
		}
	}
	return out
}

var pyWhileTrue = regexp.MustCompile(`^while\s+(?:True|1)\s*:`)

var (
	pyCounterIf = regexp.MustCompile(`^if\s+([A-Za-z_][\w.]*)\s*(>=?)\s*([0-9]+|[A-Za-z_][\w.]*)\s*:`)
	pyIncrement = regexp.MustCompile(`^[ \t]*[A-Za-z_][\w.]*\s*\+=\s*1\s*$`)
	pyRaise     = regexp.MustCompile(`\braise\b`)
)

var (
	jsCounterIf = regexp.MustCompile(`^if\s*\(\s*(\+\+)?([A-Za-z_$][\w$.]*)(\+\+)?\s*(>=?)\s*([0-9]+|[A-Za-z_$][\w$.]*)\s*\)\s*\{?\s*throw\b`)
	jsIncrement = regexp.MustCompile(`(?:\+\+\s*([A-Za-z_$][\w$.]*)|([A-Za-z_$][\w$.]*)\s*(?:\+\+|\+=\s*1))\s*;?\s*$`)
)

// jsCounterRetry: the JavaScript form of pyCounterRetry —
//
//	if (++retries > MAX_RETRIES) throw err;   or
//	attempts += 1; if (attempts >= maxAttempts) throw err;
//
// a handler that re-sends until a counter named for retries passes its
// bound, then throws.
func jsCounterRetry(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range scanAt(code, "if", jsCounterIf, 300) {
		bound, offset, ok := jsCounterBound(code, m)
		if !ok || jsInStallHandler(f, m[0]) {
			continue // a stall handler's counter is the watchdog's (watchdog.go)
		}
		if l, ok := loopLayer(f, m[0], bound, offset, strings.TrimSpace(string(code[m[0]:m[1]])), "javascript",
			"a counter that retries until a bound, then throws: read it to confirm it re-sends the call"); ok {
			out = append(out, l)
		}
	}
	return out
}

// jsCounterBound reads one jsCounterIf match m: a counter named for
// retries or attempts, incremented in the test or the statement before,
// and the bound and offset of the tries it allows.
func jsCounterBound(code []byte, m []int) (string, int, bool) {
	name := string(code[m[4]:m[5]])
	lname := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
	if !strings.Contains(lname, "retr") && !strings.Contains(lname, "attempt") && !strings.Contains(lname, "regen") {
		return "", 0, false
	}
	pre, post := m[2] >= 0, m[6] >= 0
	if !pre && !post {
		// The statement before increments it, on this line or the last.
		ls := max(0, m[0]-200)
		prevText := code[ls:m[0]]
		if i := bytes.LastIndexByte(prevText, ';'); i >= 0 && bytes.Count(prevText[i:], []byte("\n")) <= 1 {
			prevText = prevText[:i]
		} else if i := bytes.LastIndexByte(bytes.TrimRight(prevText, " \t\n"), '\n'); i >= 0 {
			prevText = bytes.TrimRight(prevText[i+1:], " \t\n")
		}
		im := jsIncrement.FindSubmatch(prevText)
		if im == nil || (string(im[1]) != name && string(im[2]) != name) {
			return "", 0, false
		}
	}
	offset := 1 // ++n > bound throws on try bound + 1: bound + 1 tries
	if string(code[m[8]:m[9]]) == ">=" {
		offset = 0
	}
	if post {
		offset++ // n++ > bound compares the old value: one more try
	}
	return string(code[m[10]:m[11]]), offset, true
}

// goCounterRetry: the Go form of pyCounterRetry —
//
//	m.retries++
//	if m.retries >= m.Config.MaxRetries {
//	    return err
//	}
//	time.Sleep(wait)
//	return completionInput{content} // sent again
//
// a counter named for retries or attempts, incremented and then compared
// with a bound whose branch returns, in a function that sleeps: a retry
// counted by hand (a callback, a message loop) rather than by a for loop.
// bound tries with >=, bound + 1 with >.
func goCounterRetry(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []Layer
	helpers := map[string][]*ast.FuncDecl{}
	for _, d := range g.ast.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			helpers[fd.Name.Name] = append(helpers[fd.Name.Name], fd)
		}
	}
	counters := 0
	for _, d := range g.ast.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || !goSleeps(fd.Body, g.local) {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			blk, ok := n.(*ast.BlockStmt)
			if !ok {
				return true
			}
			for i := 0; i+1 < len(blk.List); i++ {
				inc, ok := blk.List[i].(*ast.IncDecStmt)
				if !ok || inc.Tok != token.INC {
					continue
				}
				name := g.text(inc.X)
				if !retryCounterName(name) || counters >= maxCandidates {
					continue
				}
				counters++ // each is read against the rest of its block: bounded, so a file of many is not quadratic
				is, ok := blk.List[i+1].(*ast.IfStmt)
				if !ok {
					// The bound checked in a helper the loop calls with the
					// counter (if !p.shouldRetry(attempts, err) { return }).
					if bound, op, written, helperOnly429, ok := goHelperBound(g, helpers, blk.List[i+1:], name); ok {
						at := goCounterDecl(g, fd.Body, name, inc)
						if l, ok := loopLayer(f, at, bound, goBoundOffset(op), written, "go",
							"a counter that retries until a bound its helper checks, waiting between tries: read it to confirm it re-sends the call"); ok {
							if helperOnly429 {
								l.Retries4xx = false // the helper lets only a rate limit through
							}
							out = append(out, l)
						}
					}
					continue
				}
				_, op, bound, ok := goBoundCheck(g, is, name)
				if !ok {
					continue
				}
				if l, ok := loopLayer(f, g.offset(is), bound, goBoundOffset(op), "if "+g.text(is.Cond), "go",
					"a counter that retries until a bound, sleeping between tries: read it to confirm it re-sends the call"); ok {
					out = append(out, l)
				}
			}
			return true
		})
	}
	return out
}

// goBoundCheck: is is `if name > bound { …; return }` (or >=), a literal
// or a name for bound.
func goBoundCheck(g *goFile, is *ast.IfStmt, name string) (*ast.BinaryExpr, token.Token, string, bool) {
	if len(is.Body.List) == 0 {
		return nil, 0, "", false
	}
	be, ok := is.Cond.(*ast.BinaryExpr)
	if !ok || (be.Op != token.GEQ && be.Op != token.GTR) || g.text(be.X) != name {
		return nil, 0, "", false
	}
	if _, ret := is.Body.List[len(is.Body.List)-1].(*ast.ReturnStmt); !ret {
		return nil, 0, "", false
	}
	switch y := be.Y.(type) {
	case *ast.BasicLit:
		return be, be.Op, y.Value, true
	case *ast.Ident, *ast.SelectorExpr:
		return be, be.Op, g.text(y), true
	}
	return nil, 0, "", false
}

// goBoundOffset: the counter is checked after a failed try, so `> N`
// lets N+1 tries through and `>= N` N.
func goBoundOffset(op token.Token) int {
	if op == token.GTR {
		return 1
	}
	return 0
}

// goHelperBound: among stmts (the loop body after the counter's
// increment) a call to a function or method of this file given the
// counter, whose body gives up — `if attempts > maxRetries { return … }`
// on the parameter the counter is passed as. The bound, its comparison
// and the setting to show.
func goHelperBound(g *goFile, helpers map[string][]*ast.FuncDecl, stmts []ast.Stmt, name string) (string, token.Token, string, bool, bool) {
	var (
		bound, written string
		op             token.Token
		found, rate    bool
	)
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			if found {
				return false
			}
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			callee := ""
			switch fn := c.Fun.(type) {
			case *ast.Ident:
				callee = fn.Name
			case *ast.SelectorExpr:
				callee = fn.Sel.Name
			}
			for k, a := range c.Args {
				if g.text(a) != name {
					continue
				}
				for _, h := range helpers[callee] {
					param := goParamName(h, k)
					if param == "" {
						continue
					}
					ast.Inspect(h.Body, func(m ast.Node) bool {
						if found {
							return false
						}
						if is, ok := m.(*ast.IfStmt); ok {
							if _, o, b, ok := goBoundCheck(g, is, param); ok {
								bound, op, found = b, o, true
								rate = only429.Match(g.src[g.offset(h.Body):min(len(g.src), g.fset.Position(h.Body.End()).Offset)])
								written = g.text(c.Fun) + "(" + name + ", …): if " + g.text(is.Cond) + " it gives up"
							}
						}
						return !found
					})
				}
			}
			return !found
		})
		if found {
			break
		}
	}
	return bound, op, written, rate, found
}

// only429: a check that lets only a rate limit (429, or Anthropic's 529
// overloaded) through to the next try — a status compared with it, Go's
// http.StatusTooManyRequests, an SDK's RateLimitError.
var only429 = regexp.MustCompile(`(?i)\b(?:status(?:_?code)?|code)\s*(?:==|===|!=|!==)\s*(?:429|529)\b|\bStatusTooManyRequests\b|\bRateLimitError\b`)

// pyCatchesAllAndGoesOn: an `except:` or `except Exception` within
// code[a:b] that goes on — every error retried, whatever else is checked.
func pyCatchesAllAndGoesOn(f *file, a, b int) bool {
	hs, _ := f.handlers()
	for _, h := range hs {
		c := strings.TrimSpace(string(h.clause))
		all := c == "" || strings.HasPrefix(c, "Exception") || strings.HasPrefix(c, "BaseException") || strings.HasPrefix(c, "(Exception")
		if h.at >= a && h.at < b && all && !pyHandlerExits(f.blanked(), h, "") {
			return true
		}
	}
	return false
}

// goParamName is the name of fd's k-th parameter, "" when it has none.
func goParamName(fd *ast.FuncDecl, k int) string {
	i := 0
	for _, fld := range fd.Type.Params.List {
		for _, nm := range fld.Names {
			if i == k {
				return nm.Name
			}
			i++
		}
		if len(fld.Names) == 0 {
			i++
		}
	}
	return ""
}

// goCounterDecl is the offset of the counter's declaration (attempts :=
// 0) before inc in body, where a reader starts the loop; inc's own when
// there is none.
func goCounterDecl(g *goFile, body *ast.BlockStmt, name string, inc ast.Node) int {
	at := g.offset(inc)
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.Pos() < inc.Pos() && len(as.Lhs) == 1 && g.text(as.Lhs[0]) == name {
			at = g.offset(as)
		}
		return true
	})
	return at
}

// retryCounterName: the counter's last segment names retries, attempts or
// regenerations.
func retryCounterName(name string) bool {
	n := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
	return strings.Contains(n, "retr") || strings.Contains(n, "attempt") || strings.Contains(n, "regen") || n == "tries" || strings.HasSuffix(n, "_tries")
}

// goSleeps: body waits — time.Sleep, or a time.After or NewTimer to
// select on (select { case <-time.After(d): case <-ctx.Done(): }).
func goSleeps(body *ast.BlockStmt, local map[string]string) bool {
	found := false
	ast.Inspect(body, func(m ast.Node) bool {
		if c, ok := m.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] == "time" && (sel.Sel.Name == "Sleep" || sel.Sel.Name == "After" || sel.Sel.Name == "NewTimer") {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

var (
	// pyWhileCounter: `while n < N:`, or the count joined by `and` to
	// another test (`while len(valid) < n and retries < max_retries:`,
	// `while num_runs <= max_retries and not run_finished:` — round 7).
	pyWhileCounter = regexp.MustCompile(`^while\s+(?:[^\n:]{1,160}?\s+and\s+)?([A-Za-z_][\w.]*)\s*(<=?)\s*([0-9]+|[A-Za-z_][\w.]*)(?:\s+and\s+[^\n:]{1,160}?)?\s*:`)
	jsWhileCounter = regexp.MustCompile(`^while\s*\(\s*([A-Za-z_$][\w$.]*)\s*(<=?)\s*([0-9]+|[A-Za-z_$][\w$.]*)\s*\)\s*\{`)
)

// counterStart is the value a counter is given before its loop (`x = 1`
// on one of the lines before at), 0 when none is found.
func counterStart(code []byte, at int, name string) int {
	re := regexp.MustCompile(`(?m)^[ \t]*(?:(?:let|var)\s+)?` + regexp.QuoteMeta(name) + `\s*(?::\s*\w+\s*)?=\s*([0-9]+)\s*;?\s*$`)
	from := max(0, at-2000)
	ms := re.FindAllSubmatch(code[from:at], -1)
	if len(ms) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(string(ms[len(ms)-1][1]))
	return n
}

// pyWhileRetries: a retry counted by a while loop —
//
//	attempts = 0
//	while attempts < max_attempts:
//	    try:
//	        return await model.ainvoke(messages)
//	    except Exception:
//	        attempts += 1
//
// a counter named for retries or attempts whose loop tries a call and,
// in an except block, counts the failure: bound − start tries (one more
// with <=). No sleep is needed: the count of failures is the retry.
func pyWhileRetries(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range scanAt(code, "while", pyWhileCounter, 200) {
		name := string(code[m[2]:m[3]])
		if !atLineStart(code, m[0]) || !retryCounterName(name) && !retryCounterName(string(code[m[6]:m[7]])) || pyOrWord.Match(code[m[0]:m[1]]) {
			continue
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		body := code[m[1]:end]
		if !(pyTry.Match(body) && pyCountsInExcept(f, m[1], end, name)) && !pyRegenerates(body, name) {
			continue
		}
		offset := -counterStart(code, m[0], name)
		if string(code[m[4]:m[5]]) == "<=" {
			offset++
		}
		if l, ok := loopLayer(f, m[0], string(code[m[6]:m[7]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), "python",
			"a while loop that counts failed tries up to a bound: read it to confirm it re-sends the call"); ok {
			if pyGoesOnOnlyForSpecific(f, m[1], end) {
				l.Retries4xx = false // it goes on only for errors that are no client's (localerrors.go)
			}
			out = append(out, l)
		}
	}
	return out
}

// pyHandlesAndGoesOn: an except block within code[a:b] lets the loop go
// on (it does not raise, return or break): the error is caught to try
// again. A try with only a finally, or an except that gives up, is not.
func pyHandlesAndGoesOn(f *file, a, b int) bool {
	hs, _ := f.handlers()
	for _, h := range hs {
		if h.at >= a && h.at < b && !pyHandlerExits(f.blanked(), h, "") {
			return true
		}
	}
	return false
}

// pyRegenerates: a loop body that tries again without an exception —
// returns a result it accepts, else counts the try and sleeps
// (result = call(); if result: return result; tries += 1; sleep(2)): the
// shape of a wrapper that regenerates an invalid answer. The result is
// accepted by its truth or a check of it (if valid(result):), not by a
// comparison: a poll (if status == "done": return status) waits for a
// state, it sends nothing again that costs a generation.
func pyRegenerates(body []byte, name string) bool {
	inc := regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(name) + `\s*\+=\s*1\s*$`)
	if !inc.Match(body) || !pySleep.Match(body) {
		return false
	}
	for _, m := range pyAcceptReturn.FindAllSubmatch(body, 16) {
		if string(m[1]) == string(m[2]) {
			return true
		}
	}
	return false
}

// pyAcceptReturn: if result: return result, or if is_valid(result …):
// return result (groups: the name tested, the name returned).
var pyAcceptReturn = regexp.MustCompile(`(?m)^[ \t]*if[ \t]+(?:[\w.]+\([ \t]*)?(\w+)[ \t]*(?:[,)][^\n=<>!]*)?:[ \t]*\n[ \t]+return[ \t]+(\w+)[ \t]*$`)

// pyCountsInExcept: an except block within code[a:b] increments name.
func pyCountsInExcept(f *file, a, b int, name string) bool {
	inc := regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(name) + `\s*\+=\s*1\s*$`)
	hs, _ := f.handlers()
	for _, h := range hs {
		if h.at >= a && h.at < b && inc.Match(h.body) {
			return true
		}
	}
	return false
}

// jsWhileRetries: the JavaScript form of pyWhileRetries —
// `while (attempt < maxAttempts) { try { … } catch (e) { attempt++; … } }`.
func jsWhileRetries(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range scanAt(code, "while", jsWhileCounter, 200) {
		name := string(code[m[2]:m[3]])
		if !retryCounterName(name) {
			continue
		}
		a, b := args(code, m[1]-1)
		inc := regexp.MustCompile(`(?:\+\+\s*` + regexp.QuoteMeta(name) + `\b|\b` + regexp.QuoteMeta(name) + `\s*(?:\+\+|\+=\s*1\b))`)
		counted := false
		cs, _ := f.catches()
		for _, c := range cs {
			if c.at >= a && c.bodyB <= b && inc.Match(code[c.bodyA:c.bodyB]) {
				counted = true
				break
			}
		}
		if !counted || jsLoopHasStallHandler(f, a, b) {
			continue // no failure counted, or a stall watchdog's loop (watchdog.go)
		}
		offset := -counterStart(code, m[0], name)
		if string(code[m[4]:m[5]]) == "<=" {
			offset++
		}
		if l, ok := loopLayer(f, m[0], string(code[m[6]:m[7]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), "javascript",
			"a while loop that counts failed tries up to a bound: read it to confirm it re-sends the call"); ok {
			out = append(out, l)
		}
	}
	return out
}

var (
	pyFlagWhile = regexp.MustCompile(`^while\s+(?:(True|1)|(not\s+)?([A-Za-z_]\w*))\s*:`)
	// pyLLMCall: a call that sends a prompt to a model — the OpenAI and
	// Anthropic SDKs (old module-level and client forms), LiteLLM's
	// completion, Gemini's generate_content, a LangChain invoke. What a
	// flag loop must re-send to be a retry layer of an LLM call, not a
	// wait for a file or a port.
	pyLLMCall      = regexp.MustCompile(`\b(?:ChatCompletion|Completion)\.a?create\s*\(|\.(?:chat\.)?completions\.create\s*\(|\.messages\.(?:create|stream)\s*\(|\.responses\.create\s*\(|\.embeddings\.a?create\s*\(|\.generate_content\s*\(|\ba?completion\s*\(|\.a?invoke\s*\(`)
	pyAnyIncrement = regexp.MustCompile(`(?m)^[ \t]*[A-Za-z_][\w.]*\s*(?:\+=\s*1|=\s*[A-Za-z_][\w.]*\s*\+\s*1)\s*$`)
	// pyModelHelper: a project's own function named as a model call
	// (gpt_call(prompt), ask_llm(…), chat_completion(…)).
	pyModelHelper = regexp.MustCompile(`(?i)\b[a-z_]*(?:gpt|llm|openai|claude|anthropic|chat_?complet)[a-z_0-9]*\s*\(`)
	pyContinue    = regexp.MustCompile(`\bcontinue\b`)
	pyAnyExit     = regexp.MustCompile(`\b(?:raise|return|break)\b|\b(?:sys\.exit|os\._exit|exit|quit)\s*\(`)
)

// pyFlagLoops: a loop with no count that sends a model call until it
// succeeds —
//
//	keep_trying = True
//	while keep_trying:
//	    try:
//	        response = openai.ChatCompletion.create(**params)
//	        keep_trying = False
//	    except Exception as e:
//	        sleep(30)
//
// (or `while True:` … `break`): an except that sleeps and goes on, and
// nothing counted, so nothing ever stops it — an unbounded layer. A loop
// that counts (`tries += 1`) is bounded by whatever reads the count and is
// left to the counting detectors; a loop whose try sends no model call
// (a poll, a wait for a port) is not a retry of an LLM call.
func pyFlagLoops(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range scanAt(code, "while", pyFlagWhile, 200) {
		if !atLineStart(code, m[0]) {
			continue
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxLoopBodyBytes), len(code))
		body := code[m[1]:end]
		if m[6] >= 0 {
			// A flag: set True on a line before the loop, set False in it
			// (the other way round for `while not done:`).
			name := regexp.QuoteMeta(string(code[m[6]:m[7]]))
			start, stop := "True", "False"
			if m[4] >= 0 {
				start, stop = stop, start
			}
			before := code[max(0, m[0]-2000):m[0]]
			if !regexp.MustCompile(`(?m)^[ \t]*`+name+`\s*=\s*`+start+`\s*$`).Match(before) ||
				!regexp.MustCompile(`(?m)^[ \t]*`+name+`\s*=\s*`+stop+`\s*$`).Match(body) {
				continue
			}
		}
		if !pyTry.Match(body) || pyAnyIncrement.Match(body) || countsDown(body) {
			continue // a count, up or down, bounds it: the counting detectors read it
		}
		sdk := pyLLMCall.Match(body)
		if !sdk && !pyModelHelper.Match(body) {
			continue
		}
		// The handler that keeps it going: it sleeps, or it says continue
		// (the answer did not parse: ask again), and has no way out at
		// all — an `if tries > 5: raise` or `if time.time() > deadline:
		// break` bounds the loop, by a count or a clock. A helper named
		// like a model call (gpt_call, ask_llm) counts only with continue:
		// that is the regenerate-until-it-parses shape.
		how := ""
		hs, _ := f.handlers()
		for _, h := range hs {
			if h.at < m[1] || h.at >= end || pyAnyExit.Match(h.body) {
				continue
			}
			if sdk && pySleep.Match(h.body) {
				how = "an except that sleeps and goes on"
				break
			}
			if pyContinue.Match(h.body) && !pySleep.Match(h.body) {
				how = "an except that asks again at once (continue)"
				break
			}
		}
		if how == "" {
			continue
		}
		l := handRolled(f.rel, f.lines().at(m[0]), 0, "", "python",
			"a loop that sends a model call again after every error, with no count: nothing stops it but success")
		l.setUnbounded(strings.TrimSpace(string(code[m[0]:m[1]])) + " (no count, " + how + ")")
		out = append(out, l)
	}
	return out
}

// isIdentByte: b can be part of a JavaScript or Python name.
func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// goPollLoop: a counted loop that sleeps but sends nothing again on
// failure — every `if err != nil` leaves (return, break, panic, os.Exit,
// log.Fatal), no `err == nil` test lets an error fall through to the next
// turn, and no continue starts one: a poll of a job's status (tgpt's
// aihorde: for attempt < maxAttempts { time.Sleep(2s); GET status; errors
// return }), bounded by its count but not a retry of anything.
func goPollLoop(body *ast.BlockStmt) bool {
	errIfs, retries := 0, false
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			// An inner loop's continue and breaks are its own: it is
			// left alone (a stream read inside a poll).
			return false
		case *ast.BranchStmt:
			if s.Tok == token.CONTINUE {
				retries = true
			}
		case *ast.IfStmt:
			e, op := goErrCond(s.Cond)
			switch {
			case e && op == token.EQL:
				retries = true
			case e && op == token.NEQ:
				errIfs++
				if !goLeaves(s.Body) {
					retries = true
				}
			}
		}
		return true
	})
	return errIfs > 0 && !retries
}

// goErrCond: cond is `x != nil` or `x == nil` with x an error named err
// (or …Err): true and the operator.
func goErrCond(cond ast.Expr) (bool, token.Token) {
	be, ok := cond.(*ast.BinaryExpr)
	if !ok || (be.Op != token.NEQ && be.Op != token.EQL) {
		return false, 0
	}
	id, ok := be.X.(*ast.Ident)
	nilY, ok2 := be.Y.(*ast.Ident)
	if !ok || !ok2 || nilY.Name != "nil" || !strings.HasSuffix(strings.ToLower(id.Name), "err") {
		return false, 0
	}
	return true, be.Op
}

// goLeaves: the block's last statement leaves the loop for good.
func goLeaves(b *ast.BlockStmt) bool {
	if b == nil || len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.BREAK || s.Tok == token.GOTO
	case *ast.ExprStmt:
		c, ok := s.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		switch fn := c.Fun.(type) {
		case *ast.Ident:
			return fn.Name == "panic"
		case *ast.SelectorExpr:
			n := fn.Sel.Name
			return n == "Exit" || strings.HasPrefix(n, "Fatal") || strings.HasPrefix(n, "Panic")
		}
	}
	return false
}
