package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Loops that call again while the result is empty — no exception, no
// try: the answer came back, it was just nothing —
//
//	snippets = search(query)
//	attempts = 0
//	while snippets == [] and attempts < 2:
//	    attempts += 1
//	    snippets = search(query)
//
//	let text = "", i = 0;
//	do {
//	  const r = await client.chat.completions.create(req);
//	  text = r.choices[0].message.content ?? "";
//	} while (!text && ++i < n);
//
// — bounded by the count in the condition (the first call above the loop
// one more), and unbounded when the condition tests the result alone
// (`while not answer: answer = llm(…)`): nothing stops it but an answer.
// Found in Python (`while …:`) and JavaScript/TypeScript (`while (…) {…}`
// and `do {…} while (…)`): a condition that is an emptiness test of a name
// (not x, x == [], x is None, len(x) == 0; !x, x === "", x == null,
// !x.length) joined by `and`/`&&` with at most one count (i < n, ++i < n, n
// > i), never an `or`; a block that assigns the name and counts the count.
// A count makes a layer when the block asks a model or the count is named
// for tries; no count makes one only when the block asks a model and has no
// way out (break, return, raise) — an unbounded layer, critical. Not
// layers: a poll for a state (`while not ready and i < 30: ready =
// is_ready()`), a read of a file or a socket until it gives data, a loop
// whose count the block never moves.

var (
	pyWhileHead = regexp.MustCompile(`^while\s+([^\n:#]+):`)
	jsWhileHead = regexp.MustCompile(`^while\s*\(`)
	jsDoHead    = regexp.MustCompile(`^do\s*\{`)

	pyEmptyTest = regexp.MustCompile(`^(?:not\s+(?:len\(\s*)?([A-Za-z_][\w.]*)\s*\)?|([A-Za-z_][\w.]*)\s*(?:==\s*(?:\[\s*\]|""|''|\{\s*\}|None|0)|is\s+None)|len\(\s*([A-Za-z_][\w.]*)\s*\)\s*(?:==\s*0|<\s*1))$`)
	jsEmptyTest = regexp.MustCompile("^(?:!\\s*([A-Za-z_$][\\w$.]*?)(?:\\.length)?|([A-Za-z_$][\\w$.]*?)(?:\\.length\\s*===?\\s*0|\\.length\\s*<\\s*1|\\s*===?\\s*(?:\"\"|''|``|null|undefined)))$")
	// A count: the name (group 1, with ++ before it in group 2 or after
	// in group 3), the comparison (<, <=) and the bound; or the bound
	// first (n > i).
	countTest   = regexp.MustCompile(`^(\+\+)?\s*([A-Za-z_$][\w$.]*)\s*(\+\+)?\s*(<=?)\s*(` + numExprPat + `|[A-Za-z_$][\w$.]*)$`)
	countTestGt = regexp.MustCompile(`^(` + numExprPat + `|[A-Za-z_$][\w$.]*)\s*(>=?)\s*([A-Za-z_$][\w$.]*)$`)

	// jsLLMCall: a model call in JavaScript — the SDKs' create and stream,
	// the AI SDK's generate and stream functions, Gemini's
	// generateContent, a LangChain invoke.
	jsLLMCall     = regexp.MustCompile(`\.(?:chat\.)?completions\.create\s*\(|\.messages\.(?:create|stream)\s*\(|\.responses\.create\s*\(|\bgenerate(?:Text|Object)\s*\(|\bstream(?:Text|Object)\s*\(|\.generateContent\s*\(|\.invoke\s*\(`)
	jsModelHelper = regexp.MustCompile(`(?i)\b[a-z_$]*(?:gpt|llm|openai|claude|anthropic|chat_?complet)[a-z_$0-9]*\s*\(`)

	// pollWord: a name or a call that waits for a state, not a result.
	pollWord = regexp.MustCompile(`(?i)ready|done|status|alive|exists|running|finished|healthy|available|connected|started|state\b|complete(?:d)?\b`)
	// localRead: a read of a file, a socket, a queue or the terminal.
	localRead   = regexp.MustCompile(`\b(?:read|readline|readlines|readLine|recv|recvfrom|input|pop|popleft|shift|get_nowait|next|listdir|readdir|readdirSync|readFile|readFileSync|glob|open|stat|exists|existsSync)\s*\(`)
	pyLeaveWord = regexp.MustCompile(`\b(?:break|return|raise)\b|\b(?:sys\.exit|os\._exit|exit|quit)\s*\(`)
	jsLeaveWord = regexp.MustCompile(`\b(?:break|return|throw)\b|\bprocess\.exit\s*\(`)
	// pollRead: a read of local state — a file's text, a cache's or a
	// queue's get, a row — set while empty with no model call in the
	// block: a poll, whatever its count is named (R6-4). httpGet, a get
	// of an HTTP client, is a request sent again.
	pollRead = regexp.MustCompile(`\.(?:read_text|read_bytes|get|hget|hgetall|lpop|rpop|blpop|brpop|fetchone|fetchall|find_one|findOne|getItem|loads?)\s*\(|\bjson\.loads?\s*\(`)
	httpGet  = regexp.MustCompile(`(?i)\b(?:requests|httpx|session|client|axios|https?|api|fetch)\.get\s*\(`)
)

// emptyLoop is a loop's condition read: the name tested for emptiness,
// and the count if there is one.
type emptyLoop struct {
	name    string // the result tested
	counter string // "" when the condition has no count
	bound   string
	offset  int  // tries beyond bound − start, from the comparison and where the count moves
	down    bool // n > 0 with n -= 1: a budget spent
}

// readEmptyCond reads a loop condition as one emptiness test and at most
// one count. doWhile: the block runs before the test (JavaScript's do).
func readEmptyCond(cond string, py, doWhile bool) (emptyLoop, bool) {
	var e emptyLoop
	var parts []string
	if py {
		if pyOrWord.MatchString(cond) {
			return e, false
		}
		parts = pyAndWord.Split(strings.TrimSpace(cond), 4)
	} else {
		if strings.Contains(cond, "||") || strings.Contains(cond, "?") {
			return e, false
		}
		parts = strings.Split(cond, "&&")
	}
	if len(parts) > 2 {
		return e, false
	}
	empty := pyEmptyTest
	if !py {
		empty = jsEmptyTest
	}
	for _, p := range parts {
		p = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(p), "("), ")"))
		if m := empty.FindStringSubmatch(p); m != nil && e.name == "" {
			for _, g := range m[1:] {
				if g != "" {
					e.name = g
				}
			}
			continue
		}
		if e.counter != "" {
			return e, false
		}
		if m := countTest.FindStringSubmatch(p); m != nil {
			e.counter, e.bound = m[2], m[5]
			if m[4] == "<=" {
				e.offset++
			}
			switch {
			case m[1] != "" && !doWhile:
				e.offset-- // while (++i < n): the first test already counts one
			case m[3] != "" && doWhile:
				e.offset++ // do … while (i++ < n): the test of 0 lets one more through
			}
			continue
		}
		if m := countTestGt.FindStringSubmatch(p); m != nil {
			if m[1] == "0" && m[2] == ">" || m[1] == "1" && m[2] == ">=" {
				return e, false // 0 > n is no count
			}
			e.counter, e.bound = m[3], m[1]
			if m[2] == ">=" {
				e.offset++
			}
			continue
		}
		// n > 0: tries left, spent in the block.
		if m := countLeft.FindStringSubmatch(p); m != nil {
			e.counter, e.down = m[1], true
			continue
		}
		return e, false
	}
	return e, e.name != "" && e.name != e.counter
}

// assigns: code sets name (alone or in a tuple), not compares it; rhs is
// the text after the first such `=` on its line.
func assigns(code []byte, name string, py bool) (rhs []byte, ok bool) {
	q := regexp.QuoteMeta(name)
	var re *regexp.Regexp
	if py {
		re = regexp.MustCompile(`(?m)^[ \t]*(?:[A-Za-z_][\w.]*\s*,\s*)*` + q + `(?:\s*,\s*[A-Za-z_][\w.]*)*\s*(?::\s*[\w\[\], ]+)?=([^=\n][^\n]*)$`)
	} else {
		re = regexp.MustCompile(`(?:^|[;{}\s(,])(?:(?:const|let|var)\s+)?` + q + `\s*=([^=>][^\n;]*)`)
	}
	// Only the lines that hold the name are matched (at most 64): the
	// pattern read over a whole 16 KiB block at each line start was the
	// cost of a hostile file of nested loops.
	for i, n := 0, 0; i < len(code) && n < 64; n++ {
		j := bytes.Index(code[i:], []byte(name))
		if j < 0 {
			break
		}
		at := i + j
		ls, le := lineStartBefore(code, at), at
		for le < len(code) && code[le] != '\n' {
			le++
		}
		if m := re.FindSubmatch(code[ls:le]); m != nil {
			return m[1], true
		}
		i = le + 1
	}
	return nil, false
}

// counts: code moves the counter one step (up, or down for a budget).
func counts(code []byte, name string, down, py bool) bool {
	q := regexp.QuoteMeta(name)
	op := `\+`
	if down {
		op = `-`
	}
	if py {
		return regexp.MustCompile(`(?m)^[ \t]*` + q + `\s*(?:` + op + `=\s*1|=\s*` + q + `\s*` + op + `\s*1)\s*$`).Match(code)
	}
	return regexp.MustCompile(`(?:` + op + op + `\s*` + q + `\b|\b` + q + `\s*(?:` + op + op + `|` + op + `=\s*1\b|=\s*` + q + `\s*` + op + `\s*1\b))`).Match(code)
}

// emptyLoopLayer decides and builds the layer of a loop whose condition
// reads as e and whose block is body (cond and body in blanked code; the
// count's moves in the condition counted already). before: the result
// was asked for just above the loop by the same call.
func emptyLoopLayer(f *file, at int, e emptyLoop, head string, body []byte, condMoves bool, before int, py bool) (Layer, bool) {
	// The cheap refusals first: a block that never sets the result costs
	// one search, not the model matchers over 16 KiB.
	rhs, ok := assigns(body, e.name, py)
	if !ok || localRead.Match(rhs) || literalValue.Match(rhs) {
		return Layer{}, false // the block never sets the result, reads a file, or sets a flag (done = True: flag loops, handloops.go)
	}
	if e.counter != "" && !condMoves && !counts(body, e.counter, e.down, py) {
		return Layer{}, false // the count never moves: not a count of tries
	}
	group, asks, exits := "python", pyAsksModel(body), pyLeaveWord
	if !py {
		group, asks, exits = "javascript", jsLLMCall.Match(body) || jsModelHelper.Match(body), jsLeaveWord
	}
	if !asks && (pollWord.MatchString(lastSegment(e.name)) || pollWord.Match(rhs) || pollRead.Match(rhs) && !httpGet.Match(rhs)) {
		return Layer{}, false // a wait for a state, or a poll of a file, a cache, a queue
	}
	if e.counter == "" {
		if !asks || exits.Match(body) || pyAnyIncrement.Match(body) || !py && passesCount.Match(body) {
			return Layer{}, false // no model, or a way out the condition does not show
		}
		l := handRolled(f.rel, f.lines().at(at), 0, "", group,
			"a loop that asks the model again while its answer is empty, with no count: nothing stops it but an answer")
		l.setUnbounded(head + " (no count: asks again until the answer is not empty)")
		return regenLayer(l), true
	}
	if !asks && !retryCounterName(e.counter) && !countdownName(e.counter) {
		return Layer{}, false
	}
	bound, offset := e.bound, e.offset+before
	if n, ok := numExpr(bound); ok {
		// 10**9, 1_000_000, float("inf"): read, never silence (R6-12).
		bound = strconv.Itoa(n)
	}
	if e.down {
		// The budget's start above the loop (tries = 3, tries = max_tries).
		m := regexp.MustCompile(`(?m)^[ \t]*(?:(?:let|var|const)\s+)?`+regexp.QuoteMeta(e.counter)+`\s*(?::\s*\w+\s*)?=\s*([0-9]+|[A-Za-z_$][\w$.]*)\s*;?\s*$`).FindAllSubmatch(f.blanked()[max(0, at-2000):at], -1)
		if len(m) == 0 {
			return Layer{}, false
		}
		bound = string(m[len(m)-1][1])
	} else {
		offset -= counterStart(f.blanked(), at, e.counter)
	}
	l, ok := loopLayer(f, at, bound, offset, head, group,
		"a loop that calls again while the result is empty, up to a count: read it to confirm it re-sends the call")
	if !ok {
		return Layer{}, false
	}
	return regenLayer(l), true
}

// askedAbove: the line setting name nearest above at (in the same
// function, at most 40 lines up) calls what rhs calls — the first try,
// made before the loop.
func askedAbove(code []byte, at int, name string, rhs []byte, py bool) int {
	callees := func(b []byte) string {
		var s []string
		for _, m := range calleeRe.FindAllSubmatch(b, 8) {
			s = append(s, string(bytes.Join(bytes.Fields(m[1]), nil)))
		}
		return strings.Join(s, ",")
	}
	want := callees(rhs)
	if want == "" {
		return 0
	}
	from := max(0, at-4000)
	for end, n := lineStartBefore(code, at), 0; end > from && n < 40; n++ {
		start := lineStartBefore(code, end-1)
		line := code[start:end]
		end = start
		t := bytes.TrimSpace(line)
		if py && (bytes.HasPrefix(t, []byte("def ")) || bytes.HasPrefix(t, []byte("async def "))) || !py && bytes.Contains(t, []byte("function")) {
			return 0
		}
		if r, ok := assigns(line, name, py); ok {
			if selfRef(r, name) {
				continue // x = x[:n], x = x.strip(): the same answer, shaped
			}
			if callees(r) == want {
				return 1
			}
			return 0
		}
	}
	return 0
}

// selfRef: rhs is computed from name itself.
func selfRef(rhs []byte, name string) bool {
	for i := 0; i < len(rhs); {
		j := bytes.Index(rhs[i:], []byte(name))
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(name)
		if (at == 0 || !isIdentByte(rhs[at-1]) && rhs[at-1] != '.') && (end == len(rhs) || !isIdentByte(rhs[end])) {
			return true
		}
		i = end
	}
	return false
}

// pyEmptyLoops finds Python's while loops that call again on an empty
// result.
func pyEmptyLoops(f *file) []Layer {
	if !f.contains("while") {
		return nil
	}
	code, text := f.blanked(), f.readable()
	var out []Layer
	for _, m := range scanAt(code, "while", pyWhileHead, 400) {
		if !atLineStart(code, m[0]) || len(out) >= maxCandidates {
			continue
		}
		// The condition from the text with strings kept: "" is empty, a
		// blanked "abc" is not.
		e, ok := readEmptyCond(string(text[m[2]:m[3]]), true, false)
		if !ok {
			continue
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		body := code[m[1]:end]
		before := 0
		if e.counter != "" {
			if rhs, ok := assigns(body, e.name, true); ok {
				before = askedAbove(code, m[0], e.name, rhs, true)
			}
		}
		if l, ok := emptyLoopLayer(f, m[0], e, strings.TrimSpace(string(text[m[0]:m[1]])), body, false, before, true); ok {
			out = append(out, l)
		}
	}
	return out
}

// jsEmptyLoops finds JavaScript's while and do-while loops that call
// again on an empty result.
func jsEmptyLoops(f *file) []Layer {
	if !f.contains("while") {
		return nil
	}
	code, text := f.blanked(), f.readable()
	var out []Layer
	add := func(at int, cond string, condMoves bool, body []byte, head string, doWhile bool) {
		e, ok := readEmptyCond(cond, false, doWhile)
		if !ok {
			return
		}
		before := 0
		if e.counter != "" && !doWhile {
			if rhs, ok := assigns(body, e.name, false); ok {
				before = askedAbove(code, at, e.name, rhs, false)
			}
		}
		if l, ok := emptyLoopLayer(f, at, e, head, body, condMoves, before, false); ok {
			out = append(out, l)
		}
	}
	for _, m := range scanAt(code, "while", jsWhileHead, 16) {
		if len(out) >= maxCandidates {
			break
		}
		ca, cb := args(code, m[1]-1)
		if cb >= len(code) || cb-ca > 400 {
			continue
		}
		rest := bytes.TrimLeft(code[cb+1:min(len(code), cb+64)], " \t\r\n")
		if len(rest) == 0 || rest[0] != '{' {
			continue // a do's tail, or a one-statement loop
		}
		open := cb + 1 + bytes.IndexByte(code[cb+1:], '{')
		ba, bb := args(code, open)
		cond := string(text[ca:cb])
		add(m[0], cond, strings.Contains(cond, "++"), code[ba:bb], "while ("+strings.TrimSpace(cond)+")", false)
	}
	for _, m := range scanAt(code, "do", jsDoHead, 16) {
		if len(out) >= maxCandidates {
			break
		}
		ba, bb := args(code, m[1]-1)
		if bb >= len(code) {
			continue
		}
		tail := code[bb+1 : min(len(code), bb+1+400)]
		w := jsDoTail.FindSubmatchIndex(tail)
		if w == nil {
			continue
		}
		ca, cb := args(code, bb+1+w[1]-1)
		if cb >= len(code) {
			continue
		}
		cond := string(text[ca:cb])
		add(m[0], cond, strings.Contains(cond, "++"), code[ba:bb], "do { … } while ("+strings.TrimSpace(cond)+")", true)
	}
	return out
}

var (
	jsDoTail     = regexp.MustCompile(`^\s*while\s*\(`)
	pyOrWord     = regexp.MustCompile(`\bor\b`)
	pyAndWord    = regexp.MustCompile(`\s+and\s+`)
	literalValue = regexp.MustCompile(`^\s*(?:True|False|None|true|false|null|undefined|-?[0-9]+|"[^"]*"|'[^']*')\s*;?\s*$`)
	countLeft    = regexp.MustCompile(`^([A-Za-z_$][\w$.]*)\s*(?:>\s*0|>=\s*1)$`)
)
