package audit

import (
	"bytes"
	"go/ast"
	"regexp"
	"strings"
)

// Stall watchdogs: code that gives a call a deadline or an idle timer and,
// when it fires, calls the generation again from scratch — seed 003: "Its
// abort-and-retry regenerates from scratch, which makes it another retry
// layer, not a resume". A watchdog is found by its shape, not by a name:
//
//   - a handler of the timeout — a JavaScript catch or a Python except
//     whose condition or exception names a timeout, an abort, a stall, an
//     idle timer or a deadline; a Go if on context.DeadlineExceeded —
//   - that sends the call again without waiting: it re-calls a function
//     the guarded block called (once), or it is inside a counted loop it
//     does not leave (the loop's bound), or it counts regenerations up to
//     a bound (++regens > MAX).
//
// A handler that only aborts, throws, logs or returns a fallback is no
// layer, and neither is a timer that reports progress. A handler that
// sleeps before trying again is a retry wrapper's (handloops.go), not a
// watchdog's: the loop detectors skip exactly the loops this file owns.

// watchdogLayer is the layer of a watchdog of attempts tries.
func watchdogLayer(rel string, line, attempts int, setting, group, note string) Layer {
	l := handRolled(rel, line, attempts, setting, group, note)
	l.DefaultID, l.Library, l.Kind = "stall-watchdog", "stall watchdog (regenerate on timeout)", KindWatchdog
	l.Retries4xx = false // it re-sends on a stall only
	return l
}

// stallWord: an identifier or string that names a timeout, an abort, a
// stall or a deadline (AbortError, signal.aborted, TimeoutError,
// StallError, isIdle, context.DeadlineExceeded, ETIMEDOUT).
var stallWord = regexp.MustCompile(`(?i)abort|time[d_]?out|stall|idle|deadline|hung\b|watchdog`)

// timerCalls name a timer, not a condition: a handler that clears its idle
// timer is not for that a handler of the timeout.
var timerCalls = map[string]bool{"settimeout": true, "cleartimeout": true, "setinterval": true, "clearinterval": true}

// namesStall: some word of text (code with strings, no comments) names a
// stall.
func namesStall(text []byte) bool {
	for _, w := range wordRe.FindAll(text, 64) {
		if stallWord.Match(w) && !timerCalls[strings.ToLower(string(w))] {
			return true
		}
	}
	return false
}

var wordRe = regexp.MustCompile(`[A-Za-z_$][\w$]*`)

// calleeRe finds calls: a dotted name and its opening parenthesis.
var calleeRe = regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\(`)

// notARecall are callees that are never the generation sent again:
// keywords that take parentheses, timers, logging, promise plumbing,
// error construction.
var notARecall = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "catch": true, "function": true, "return": true, "await": true, "typeof": true, "super": true,
	"settimeout": true, "cleartimeout": true, "setinterval": true, "clearinterval": true, "abort": true, "cancel": true,
	"log": true, "warn": true, "error": true, "info": true, "debug": true, "print": true, "printf": true, "println": true, "errorf": true, "sprintf": true,
	"push": true, "append": true, "then": true, "finally": true, "resolve": true, "reject": true, "race": true, "all": true, "wait_for": true, "sleep": true,
	"error_": true, "str": true, "string": true, "number": true, "len": true, "isinstance": true, "is": true, "as": true, "new": true, "now": true,
	"stringify": true, "parse": true, "emit": true, "exception": true, "withtimeout": true, "withdeadline": true, "timeout": true, "err": true,
	// A process or thread waited for again after a kill, a module imported
	// from elsewhere: never the generation sent again.
	"wait": true, "communicate": true, "join": true, "kill": true, "terminate": true, "close": true, "shutdown": true,
	"__import__": true, "import_module": true,
	// A process that exits, a file renamed, moved, copied or removed back
	// into place: cleanup, never the generation sent again (issue 37,
	// round 6: `except TimeoutError: sys.exit(1)` after a try that also
	// exits, and a catch that renames a backup back, read as watchdogs).
	"exit": true, "_exit": true, "quit": true, "exitprocess": true,
	"rename": true, "renamesync": true, "move": true, "replace": true, "copy": true, "copyfile": true, "copyfilesync": true, "copy2": true, "copytree": true,
	"unlink": true, "unlinksync": true, "remove": true, "rmsync": true, "rmtree": true, "rm": true, "rmdir": true, "rmdirsync": true,
	"mkdir": true, "mkdirsync": true, "makedirs": true, "exists": true, "existssync": true,
	"writefile": true, "writefilesync": true, "write_text": true, "write_bytes": true,
}

// callees are the names called in code, by their last segment, that can
// be a generation (notARecall excluded).
func callees(code []byte) map[string]bool {
	out := map[string]bool{}
	for _, m := range calleeRe.FindAllSubmatch(code, 256) {
		name := string(m[1])
		if loggerCall(name) {
			continue // a log line, not a call (notlayers.go)
		}
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		name = strings.TrimSpace(name)
		if !notARecall[strings.ToLower(name)] && !isTypeName(name) {
			out[name] = true
		}
	}
	return out
}

var (
	awaitRe  = regexp.MustCompile(`\bawait\b|\basync\s+with\b`) // Python's async with awaits its context's entry
	returnRe = regexp.MustCompile(`\breturn\b`)
	// forAwaitRe is a loop over an async iterable: `for await (` in
	// JavaScript, `async for` in Python.
	forAwaitRe = regexp.MustCompile(`\bfor\s+await\s*\(|\basync\s+for\b`)
)

// primaryStatement is the statement of block whose result the block waits
// for (through its balanced brackets, to its ; or line end), or the block
// when there is none: its first await (or Python `async with`, whose head
// opens the stream), else its first return — a return
// before the first await is a guard's early answer (`if (!prompt) return
// res.status(400)…`), not the call. A first await that is a `for await`
// loop is its head, the stream it iterates: the body handles chunks (writes
// them, closes a measurement), it sends nothing.
func primaryStatement(block []byte) []byte {
	m := awaitRe.FindIndex(block)
	if f := forAwaitRe.FindIndex(block); f != nil && (m == nil || f[0] <= m[0]) {
		return loopHead(block[f[0]:])
	}
	if m == nil {
		m = returnRe.FindIndex(block)
	}
	if m == nil {
		return block
	}
	start := m[0]
	depth := 0
	for i := start; i < len(block); i++ {
		switch block[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth < 0 {
				return block[start:i]
			}
		case ';', '\n':
			if depth == 0 {
				return block[start:i]
			}
		}
	}
	return block[start:]
}

// loopHead is a loop's head: to the close of its first parenthesis (a JS
// `for await (…)`), or to the colon ending a Python `async for … :` line.
func loopHead(loop []byte) []byte {
	depth := 0
	for i, c := range loop {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 && loop[0] == 'f' {
				return loop[:i+1]
			}
		case ':', '\n':
			if depth == 0 && loop[0] == 'a' {
				return loop[:i]
			}
		}
	}
	return loop
}

// isTypeName: Error, StallError — a constructor of an error, not a call.
func isTypeName(name string) bool {
	return strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception")
}

// recalls: handler calls a function the guarded block's primary
// statement called — the first that awaits or returns (the call whose
// result the block waits for), not a metric or a log line beside it.
func recalls(guarded, handler []byte) (string, bool) {
	return recallsBut(guarded, handler, "")
}

// recallsBut is recalls that ignores the calls made on the caught error,
// exVar (`except TimeoutExpired as e: e.stdout.decode()`): a method of the
// error reads what it carries, it sends nothing again.
func recallsBut(guarded, handler []byte, exVar string) (string, bool) {
	g := callees(primaryStatement(guarded))
	for _, m := range calleeRe.FindAllSubmatch(handler, 256) {
		name := string(m[1])
		if exVar != "" {
			if first, _, _ := strings.Cut(name, "."); strings.TrimSpace(first) == exVar && strings.Contains(name, ".") {
				continue
			}
		}
		if loggerCall(name) {
			continue // a log line, not a call (notlayers.go)
		}
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		if g[strings.TrimSpace(name)] {
			return strings.TrimSpace(name), true
		}
	}
	return "", false
}

// ---- JavaScript and TypeScript ----

// catches are the file's catch blocks, found once: every detector that
// asks whether a loop or a counter lies in a stall handler reads this
// list, so a file of many loops and catches costs their sum, not their
// product. stall caches each one's jsStallHandler verdict.
func (f *file) catches() ([]jsCatch, []bool) {
	if f.jsc == nil {
		f.jsc = jsCatchBlocks(f.blanked())
		f.jscStall = make([]bool, len(f.jsc))
		for i, c := range f.jsc {
			f.jscStall[i] = jsStallHandler(f, c)
		}
	}
	return f.jsc, f.jscStall
}

// handlers are the file's Python except blocks, found once (as catches).
func (f *file) handlers() ([]pyHandler, []bool) {
	if f.pyh == nil {
		f.pyh = pyHandlers(f.blanked())
		f.pyhStall = make([]bool, len(f.pyh))
		for i, h := range f.pyh {
			f.pyhStall[i] = pyStallHandler(f, h)
		}
	}
	return f.pyh, f.pyhStall
}

var (
	jsCatchHead = regexp.MustCompile(`^catch\s*(?:\([^)]*\))?\s*\{`)
	jsIfCond    = regexp.MustCompile(`\bif\s*\(`)
	jsInfinite  = regexp.MustCompile(`^(?:for\s*\(\s*;\s*;\s*\)|while\s*\(\s*(?:true|1)\s*\))\s*\{`)
)

// jsCatches are the catch blocks of code: the catch, its body and the try
// body before it.
type jsCatch struct {
	at           int // the catch keyword
	tryA, tryB   int // the try block's body
	bodyA, bodyB int
}

func jsCatchBlocks(code []byte) []jsCatch {
	var out []jsCatch
	for _, m := range scanAt(code, "catch", jsCatchHead, 200) {
		open := m[1] - 1
		a, b := args(code, open)
		// The try body: the block closed just before the catch.
		k := m[0] - 1
		for k >= 0 && (code[k] == ' ' || code[k] == '\t' || code[k] == '\n' || code[k] == '\r') {
			k--
		}
		if k < 0 || code[k] != '}' {
			continue
		}
		o := openOf(code, k)
		if o < 0 {
			continue
		}
		t := o - 1
		for t >= 0 && (code[t] == ' ' || code[t] == '\t' || code[t] == '\n' || code[t] == '\r') {
			t--
		}
		if t < 2 || string(code[t-2:t+1]) != "try" {
			continue
		}
		out = append(out, jsCatch{at: m[0], tryA: o + 1, tryB: k, bodyA: a, bodyB: b})
	}
	return out
}

// openOf is the offset of the { that the } at close closes, looking back
// at most maxArgBytes; -1 when none does.
func openOf(code []byte, close int) int {
	if i := matchingOpen(code, close); i >= 0 && code[i] == '{' {
		return i
	}
	return -1
}

// jsStallHandler: a catch body whose conditions name a stall (or the
// catch's own parameter is tested only for one) and which does not sleep
// before the next try.
func jsStallHandler(f *file, c jsCatch) bool {
	code, vis := f.blanked(), f.readable()
	body := code[c.bodyA:c.bodyB]
	if jsLoopWait.Match(body) && !onlyTimerWait(body) {
		return false
	}
	for _, m := range jsIfCond.FindAllIndex(body, 32) {
		a, b := args(code, c.bodyA+m[1]-1)
		if namesStall(vis[a:b]) {
			return true
		}
	}
	return false
}

// onlyTimerWait: the only waits in body are setTimeout calls that arm a
// timer (an idle timer re-armed), not a sleep awaited before the next try.
func onlyTimerWait(body []byte) bool {
	for _, m := range jsLoopWait.FindAllIndex(body, 16) {
		w := string(body[m[0]:m[1]])
		if !strings.HasPrefix(w, "setTimeout") {
			return false
		}
		// `await new Promise((r) => setTimeout(r, ms))` is a sleep.
		pre := body[max(0, m[0]-40):m[0]]
		if bytes.Contains(pre, []byte("Promise")) {
			return false
		}
	}
	return true
}

// jsExits: the catch body leaves the function or the loop on every path —
// a throw, return or break written as its own statement, not under an if.
func jsExits(body []byte) bool {
	flat := make([]byte, 0, len(body))
	depth := 0
	for _, c := range body {
		switch c {
		case '{', '(', '[':
			depth++
			continue
		case '}', ')', ']':
			depth--
			continue
		}
		if depth == 0 {
			flat = append(flat, c)
		}
	}
	for _, st := range bytes.FieldsFunc(flat, func(r rune) bool { return r == ';' || r == '\n' }) {
		st = bytes.TrimSpace(st)
		for _, kw := range []string{"throw", "return", "break"} {
			if bytes.HasPrefix(st, []byte(kw)) && (len(st) == len(kw) || !isWord(st[len(kw)])) {
				return true
			}
		}
	}
	return false
}

// jsLoopAround is the innermost loop whose body holds [a, b): a counted
// loop (its match by jsHandLoop) or an infinite one (counted false).
type jsLoop struct {
	m       []int
	counted bool
	a, b    int
}

func jsLoops(code []byte) []jsLoop {
	var out []jsLoop
	for _, m := range scanAt(code, "for", jsHandLoop, 200) {
		if string(code[m[2]:m[3]]) != string(code[m[6]:m[7]]) {
			continue
		}
		open := m[1]
		for open < len(code) && open-m[1] < 200 && code[open] != '{' {
			open++
		}
		if open < len(code) && code[open] == '{' {
			a, b := args(code, open)
			out = append(out, jsLoop{m: m, counted: true, a: a, b: b})
		}
	}
	for _, lit := range []string{"for", "while"} {
		for _, m := range scanAt(code, lit, jsInfinite, 60) {
			a, b := args(code, m[1]-1)
			out = append(out, jsLoop{m: m, a: a, b: b})
		}
	}
	return out
}

func innermost(loops []jsLoop, a, b int) (jsLoop, bool) {
	best, ok := jsLoop{}, false
	for _, l := range loops {
		if l.a <= a && b <= l.b && (!ok || l.a > best.a) {
			best, ok = l, true
		}
	}
	return best, ok
}

// jsWatchdogs finds the stall handlers of a JS or TS file that send the
// call again (see the top of this file).
func jsWatchdogs(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("catch")) {
		return nil
	}
	var loops []jsLoop
	var out []Layer
	cs, stall := f.catches()
	for i, c := range cs {
		if !stall[i] {
			continue
		}
		if loops == nil {
			loops = jsLoops(code)
		}
		body := code[c.bodyA:c.bodyB]
		line := f.lines().at(c.at)
		const note = "a handler of a timeout or stall that sends the call again: read it to confirm it regenerates the call"
		if lp, ok := innermost(loops, c.tryA, c.bodyB); ok && !jsExits(body) {
			if lp.counted {
				m := lp.m
				offset := -int(code[m[4]] - '0')
				if string(code[m[8]:m[9]]) == "<=" {
					offset++
				}
				if m[12] >= 0 {
					offset++ // attempt <= regenerations + 1
				}
				if l, ok := loopLayer(f, m[0], string(code[m[10]:m[11]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), "javascript", note); ok {
					out = append(out, asWatchdog(l))
				}
				continue
			}
			// An infinite loop: bounded by a regeneration counter in the
			// handler, or no layer (a poll that waits again is not a retry
			// of a generation).
			if l, ok := jsCounterIn(f, c.bodyA, c.bodyB, note); ok {
				out = append(out, asWatchdog(l))
			}
			continue
		}
		if name, ok := recalls(code[c.tryA:c.tryB], body); ok {
			out = append(out, watchdogLayer(f.rel, line, 2, "catch: "+name+"(…) called again on a stall (once)", "javascript", note))
		}
	}
	return out
}

// asWatchdog turns a hand-rolled loop layer into a watchdog's.
func asWatchdog(l Layer) Layer {
	l.DefaultID, l.Library, l.Kind = "stall-watchdog", "stall watchdog (regenerate on timeout)", KindWatchdog
	l.Retries4xx = false
	return l
}

// jsCounterIn is the first regeneration counter (jsCounterRetry's shape)
// in code[a:b] as a layer.
func jsCounterIn(f *file, a, b int, note string) (Layer, bool) {
	code := f.blanked()
	for _, m := range scanAt(code[:b], "if", jsCounterIf, 300) {
		if m[0] < a {
			continue
		}
		if bound, offset, ok := jsCounterBound(code, m); ok {
			return loopLayer(f, m[0], bound, offset, strings.TrimSpace(string(code[m[0]:m[1]])), "javascript", note)
		}
	}
	return Layer{}, false
}

// jsInStallHandler: off lies in a catch that is a stall handler (the
// watchdog detector owns what is counted there).
func jsInStallHandler(f *file, off int) bool {
	code := f.blanked()
	if !bytes.Contains(code[max(0, off-maxArgBytes):off], []byte("catch")) {
		return false
	}
	cs, stall := f.catches()
	for i, c := range cs {
		if c.bodyA <= off && off < c.bodyB && stall[i] {
			return true
		}
	}
	return false
}

// jsLoopHasStallHandler: the loop body [a, b) holds a stall handler.
func jsLoopHasStallHandler(f *file, a, b int) bool {
	code := f.blanked()
	if !bytes.Contains(code[a:b], []byte("catch")) {
		return false
	}
	cs, stall := f.catches()
	for i, c := range cs {
		if a <= c.at && c.bodyB <= b && stall[i] {
			return true
		}
	}
	return false
}

// ---- Python ----

var (
	pyExcept  = regexp.MustCompile(`^except\b([^:\n]*):`)
	pyIfLine  = regexp.MustCompile(`(?m)^[ \t]*(?:el)?if\b([^\n]*):`)
	pyTryLine = regexp.MustCompile(`^try\s*:`)
	pyExits   = regexp.MustCompile(`^(?:raise|return|break)\b|^(?:sys\.exit|os\._exit|exit|quit)\s*\(`) // a handler that ends the process sends nothing again
	pyWhile   = regexp.MustCompile(`^while\s+(?:True|1)\s*:`)
)

type pyHandler struct {
	at, end      int // the except clause and the end of its block
	tryAt        int // the try line
	indent       int
	clause, body []byte
}

func indentAt(code []byte, at int) int {
	n := 0
	for i := at - 1; i >= 0 && code[i] != '\n'; i-- {
		n++
	}
	return n
}

// pyHandlers are the except blocks of code with their try line.
func pyHandlers(code []byte) []pyHandler {
	var out []pyHandler
	for _, m := range scanAt(code, "except", pyExcept, 200) {
		if !atLineStart(code, m[0]) {
			continue
		}
		ind := indentAt(code, m[0])
		end := min(pyBlockEnd(code, m[0], m[1]), len(code))
		// The try: the nearest line above at the same indent that opens one.
		tryAt := -1
		for ls := lineStartBefore(code, m[0]); ls > 0 && m[0]-ls < maxArgBytes; {
			ls = lineStartBefore(code, ls-1)
			i := ls
			for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
				i++
			}
			if i >= len(code) || code[i] == '\n' || i-ls > ind {
				continue
			}
			if i-ls < ind {
				break
			}
			if pyTryLine.Match(code[i:min(len(code), i+8)]) {
				tryAt = i
				break
			}
			if !bytes.HasPrefix(code[i:], []byte("except")) {
				break
			}
		}
		if tryAt < 0 {
			continue
		}
		out = append(out, pyHandler{at: m[0], end: end, tryAt: tryAt, indent: ind, clause: code[m[2]:m[3]], body: code[m[1]:end]})
	}
	return out
}

// lineStartBefore is the start of the line holding off.
func lineStartBefore(code []byte, off int) int {
	for off > 0 && code[off-1] != '\n' {
		off--
	}
	return off
}

// pyStallHandler: the except names a timeout or stall (or tests for one)
// and does not sleep before the next try.
func pyStallHandler(f *file, h pyHandler) bool {
	if pySleep.Match(h.body) {
		return false
	}
	vis := f.readable()
	if namesStall(vis[h.at : h.at+len("except")+len(h.clause)]) {
		return true
	}
	off := h.end - len(h.body)
	for _, m := range pyIfLine.FindAllSubmatchIndex(h.body, 16) {
		if namesStall(vis[off+m[2] : off+m[3]]) {
			return true
		}
	}
	return false
}

// pyHandlerExits: a raise, return or break at the handler's own level.
func pyHandlerExits(code []byte, h pyHandler, recall string) bool {
	bodyIndent := -1
	for _, line := range bytes.Split(h.body, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 {
			continue
		}
		ind := len(line) - len(t)
		if bodyIndent < 0 {
			bodyIndent = ind
		}
		if ind == bodyIndent && pyExits.Match(t) && (recall == "" || !bytes.Contains(t, []byte(recall+"("))) {
			return true
		}
	}
	return false
}

// pyLoopAround is the header of the innermost for or while enclosing the
// line at at.
func pyLoopAround(code []byte, at, indent int) (int, bool) {
	want := indent
	for ls := lineStartBefore(code, at); ls > 0 && at-ls < 4*maxArgBytes; {
		ls = lineStartBefore(code, ls-1)
		i := ls
		for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
			i++
		}
		if i >= len(code) || code[i] == '\n' || i-ls >= want {
			continue
		}
		want = i - ls
		if bytes.HasPrefix(code[i:], []byte("for ")) || bytes.HasPrefix(code[i:], []byte("while ")) {
			return i, true
		}
		if bytes.HasPrefix(code[i:], []byte("def ")) || bytes.HasPrefix(code[i:], []byte("async def ")) || bytes.HasPrefix(code[i:], []byte("class ")) || want == 0 {
			return 0, false
		}
	}
	return 0, false
}

// pyWatchdogs: except blocks of a timeout that send the call again.
func pyWatchdogs(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("except")) {
		return nil
	}
	const note = "a handler of a timeout or stall that sends the call again: read it to confirm it regenerates the call"
	var out []Layer
	hs, stall := f.handlers()
	for i, h := range hs {
		if !stall[i] {
			continue
		}
		name, re := recallsBut(code[h.tryAt:h.at], h.body, pyExceptVar(h.clause))
		if !re {
			name = ""
		}
		line := f.lines().at(h.at)
		if at, ok := pyLoopAround(code, h.tryAt, indentAt(code, h.tryAt)); ok && !pyHandlerExits(code, h, "") {
			if m := pyRangeLoop.FindSubmatchIndex(code[at:min(len(code), at+200)]); m != nil {
				for k := range m {
					if m[k] >= 0 {
						m[k] += at
					}
				}
				start := 0
				if m[4] >= 0 {
					start = atoiOr(string(code[m[4]:m[5]]), 0)
				}
				offset := -start
				if m[8] >= 0 {
					offset++
				}
				if l, ok := loopLayer(f, m[0], string(code[m[6]:m[7]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), "python", note); ok {
					out = append(out, asWatchdog(l))
				}
				continue
			}
			if pyWhile.Match(code[at:min(len(code), at+40)]) || bytes.HasPrefix(code[at:], []byte("while ")) {
				if l, ok := pyCounterIn(f, h.at, h.end, note); ok {
					out = append(out, asWatchdog(l))
				}
			}
			continue
		}
		if re && !pyHandlerExits(code, h, name) {
			out = append(out, watchdogLayer(f.rel, line, 2, "except: "+name+"(…) called again on a stall (once)", "python", note))
		} else if re && pyReturnsRecall(h, name) {
			out = append(out, watchdogLayer(f.rel, line, 2, "except: return "+name+"(…) on a stall (once)", "python", note))
		}
	}
	return out
}

// pyExceptVar is the name an except clause binds the error to (`except
// TimeoutError as e` is e), "" when it binds none.
func pyExceptVar(clause []byte) string {
	c := strings.TrimSpace(string(clause))
	i := strings.LastIndex(c, " as ")
	if i < 0 {
		return ""
	}
	v := strings.TrimSpace(c[i+4:])
	if !isName(v) || strings.Contains(v, ".") {
		return ""
	}
	return v
}

// pyReturnsRecall: the handler's exit is `return … name(…)`, the call
// sent again.
func pyReturnsRecall(h pyHandler, name string) bool {
	for _, line := range bytes.Split(h.body, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if bytes.HasPrefix(t, []byte("return")) && bytes.Contains(t, []byte(name+"(")) {
			return true
		}
	}
	return false
}

func atoiOr(s string, d int) int {
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return d
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// pyCounterIn is the first regeneration counter (pyCounterRetry's shape)
// in code[a:b] as a layer.
func pyCounterIn(f *file, a, b int, note string) (Layer, bool) {
	for _, l := range pyCounters(f, a, b, nil, note) {
		return l, true
	}
	return Layer{}, false
}

// pyInStallHandler: off lies in an except block that is a stall handler.
func pyInStallHandler(f *file, off int) bool {
	hs, stall := f.handlers()
	for i, h := range hs {
		if h.at <= off && off < h.end && stall[i] {
			return true
		}
	}
	return false
}

// pyLoopHasStallHandler: the loop body [a, b) holds a stall handler.
func pyLoopHasStallHandler(f *file, a, b int) bool {
	code := f.blanked()
	if !bytes.Contains(code[a:b], []byte("except")) {
		return false
	}
	hs, stall := f.handlers()
	for i, h := range hs {
		if a <= h.at && h.at < b && stall[i] && !pyHandlerRaises(h) && !pyHandlerReraises(h) {
			return true
		}
	}
	return false
}

// pyHandlerRaises: the handler's first statement at its own level is a
// raise — a timeout turned into an error, not a try again; the loop's
// other handlers decide whether it retries (round 7: letta's ChatGPT
// request loop, `except httpx.TimeoutException: raise LLMTimeoutError`,
// left to the watchdogs and found by nobody).
func pyHandlerRaises(h pyHandler) bool {
	for _, line := range bytes.Split(h.body, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 {
			continue
		}
		return bytes.HasPrefix(t, []byte("raise")) && (len(t) == 5 || !isIdentByte(t[5]))
	}
	return false
}

// ---- Go ----

// goWatchdogs: a counted loop that gives each try a context deadline and,
// on context.DeadlineExceeded, tries again without sleeping; or an if on
// the deadline that calls the guarded function again (once).
func goWatchdogs(f *file) []Layer {
	g := f.goSource()
	if g == nil || !bytes.Contains(f.raw, []byte("DeadlineExceeded")) {
		return nil
	}
	const note = "a deadline's expiry handled by sending the call again: read it to confirm it regenerates the call"
	var out []Layer
	inLoop := map[*ast.IfStmt]bool{}
	ast.Inspect(g.ast, func(n ast.Node) bool {
		fs, ok := n.(*ast.ForStmt)
		if !ok || !goStallLoop(fs, g) {
			return true
		}
		ast.Inspect(fs.Body, func(m ast.Node) bool {
			if is, ok := m.(*ast.IfStmt); ok {
				inLoop[is] = true
			}
			return true
		})
		if bound, offset, ok := goLoopBound(fs, g); ok {
			if l, ok := loopLayer(f, g.offset(fs), bound, offset, "for … < "+bound+" with a context deadline per try", "go", note); ok {
				out = append(out, asWatchdog(l))
			}
		}
		return true
	})
	ast.Inspect(g.ast, func(n ast.Node) bool {
		blk, ok := n.(*ast.BlockStmt)
		if !ok {
			return true
		}
		for i, st := range blk.List {
			is, ok := st.(*ast.IfStmt)
			if !ok || inLoop[is] || !goNamesDeadline(is.Cond, g) {
				continue
			}
			before := map[string]bool{}
			deadline := false
			for _, p := range blk.List[:i] {
				ast.Inspect(p, func(m ast.Node) bool {
					if c, ok := m.(*ast.CallExpr); ok {
						name := goCallName(c)
						if name == "WithTimeout" || name == "WithDeadline" {
							deadline = true
						} else if name != "" && !notARecall[strings.ToLower(name)] {
							before[name] = true
						}
					}
					return true
				})
			}
			if !deadline {
				continue
			}
			again := ""
			ast.Inspect(is.Body, func(m ast.Node) bool {
				if c, ok := m.(*ast.CallExpr); ok && again == "" && before[goCallName(c)] {
					again = goCallName(c)
				}
				return true
			})
			if again != "" {
				out = append(out, watchdogLayer(f.rel, f.lines().at(g.offset(is)), 2, "if … DeadlineExceeded: "+again+"(…) called again (once)", "go", note))
			}
		}
		return true
	})
	return out
}

func goCallName(c *ast.CallExpr) string {
	switch fn := c.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		return fn.Sel.Name
	}
	return ""
}

// goNamesDeadline: the expression tests context.DeadlineExceeded or a
// net.Error's Timeout().
func goNamesDeadline(e ast.Expr, g *goFile) bool {
	found := false
	ast.Inspect(e, func(m ast.Node) bool {
		if sel, ok := m.(*ast.SelectorExpr); ok && (sel.Sel.Name == "DeadlineExceeded" || sel.Sel.Name == "Timeout") {
			found = true
		}
		return !found
	})
	return found
}

// goStallLoop: the loop body sets a deadline per try, tests for its
// expiry, and does not sleep (a loop that sleeps is a retry wrapper's).
func goStallLoop(fs *ast.ForStmt, g *goFile) bool {
	deadline, tests, sleeps := false, false, false
	ast.Inspect(fs.Body, func(m ast.Node) bool {
		switch n := m.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					switch {
					case g.local[id.Name] == "context" && (sel.Sel.Name == "WithTimeout" || sel.Sel.Name == "WithDeadline"):
						deadline = true
					case g.local[id.Name] == "time" && sel.Sel.Name == "Sleep":
						sleeps = true
					}
				}
			}
		case *ast.IfStmt:
			if goNamesDeadline(n.Cond, g) {
				if goExitsOnDeadline(n) {
					return false // the deadline ends the loop: no try follows
				}
				tests = true
			}
		}
		return true
	})
	return deadline && tests && !sleeps
}

// goExitsOnDeadline: `if <the deadline passed> { … return }` — the
// deadline leaves the loop (a negated test, `if !errors.Is(…)`, leaves on
// every other error and tries again on this one).
func goExitsOnDeadline(is *ast.IfStmt) bool {
	if u, ok := is.Cond.(*ast.UnaryExpr); ok && u.Op.String() == "!" {
		return false
	}
	if n := len(is.Body.List); n > 0 {
		switch last := is.Body.List[n-1].(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			return last.Tok.String() == "break" || last.Tok.String() == "goto"
		}
	}
	return false
}

// ---- Retry once on any error ----

// pyBroadExcept: an except clause that catches every error (bare,
// Exception, BaseException), with or without `as e`.
var pyBroadExcept = regexp.MustCompile(`^\s*(?:\(?\s*(?:Exception|BaseException)\s*\)?)?\s*(?:as\s+\w+\s*)?$`)

// pyRetryOnce: a call made again in the handler of every error —
//
//	try:
//	    response = await create_chat_completion(model=strategic, …)
//	except Exception:
//	    response = await create_chat_completion(model=strategic, max_tokens=limit, …)
//
// sent once more (twice when the second try's own handler sends it again:
// 3 tries). A handler of a named error (json.JSONDecodeError) is a
// fallback for that error and is not read; a handler of a stall is the
// watchdog's, and one inside a counted loop the loop's.
func pyRetryOnce(f *file) []Layer {
	code := f.blanked()
	return pyOnceMore(f, func(h pyHandler) (func(pyHandler) bool, string, bool) {
		name, ok := sameResultCall(code[h.tryAt:h.at], h.body)
		return func(n pyHandler) bool { return bytes.Contains(n.body, []byte(name+"(")) }, name + "(…) called again", ok
	}, "every error is answered by sending the call again: read it to confirm it re-sends the call")
}

// pyResultCall: a statement whose value is an awaited call — `x = await
// f(…)` or `return await f(…)` — the target ("" for return) and the
// callee's last segment. Awaited: a request over the network, not a
// serializer's fallback (output.model_dump(mode="json"), then
// model_dump()); a synchronous retry-once is not read.
// A tuple target (`tbl, sql = await get_table()`) is a target too (issue
// 37, round 9: ragflow's SQL regenerated after an execution error).
var pyResultCall = regexp.MustCompile(`(?m)^[ \t]*(?:((?:[A-Za-z_][\w.]*[ \t]*,[ \t]*)*[A-Za-z_][\w.]*)[ \t]*=|return)[ \t]*await[ \t]+([A-Za-z_][\w.]*)[ \t]*\(`)

// atTopLevel reports, for a match at off in block, that it is a statement
// of its own: no bracket of the block is open there (a keyword argument
// state_metadata=self._meta() inside a call is not an assignment).
func atTopLevel(block []byte, off int) bool {
	depth := 0
	for _, c := range block[:off] {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
	return depth <= 0
}

// sameResultCall: the handler gives the same result the same way the
// guarded block's first call did — assigns the same name from a call of the same
// function, or returns it — the call sent again, not a log line or a
// clean-up.
func sameResultCall(guarded, handler []byte) (string, bool) {
	type key struct{ target, callee string }
	seen := map[key]bool{}
	last := func(n string) string { return n[strings.LastIndexByte(n, '.')+1:] }
	// The guarded call is the block's first call that gives a result: an
	// early return of a fallback further down is not what was tried.
	for _, m := range pyResultCall.FindAllSubmatchIndex(guarded, 64) {
		c := last(string(guarded[m[4]:m[5]]))
		if atTopLevel(guarded, m[0]) && !notARecall[strings.ToLower(c)] && !isTypeName(c) {
			seen[key{string(guarded[max(m[2], 0):max(m[3], 0)]), c}] = true
			break
		}
	}
	for _, m := range pyResultCall.FindAllSubmatchIndex(handler, 64) {
		if c := last(string(handler[m[4]:m[5]])); atTopLevel(handler, m[0]) && seen[key{string(handler[max(m[2], 0):max(m[3], 0)]), c}] {
			return c, true
		}
	}
	return "", false
}
