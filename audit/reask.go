package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// Re-asking by recursion: a function that answers a reply it cannot use by
// calling itself again, the complaint appended to the conversation —
//
//	if (result.retryWithError)
//	  return this.complete([...messages, result.retryWithError], functions);
//
//	if not parsed:
//	    return self.ask(messages + [{"role": "user", "content": "JSON only"}])
//
// — is a layer that regenerates until the model answers well: no loop, no
// counter, so nothing but a good answer stops it (unbounded, as a `while
// True:` that re-asks on a parse error is). Found by shape: a return of a
// call to the function it is in, as the whole consequent of an if whose
// condition names a retry, a parse or an invalid answer or whose call sends
// the conversation back with something appended (`[...messages, x]`,
// `messages + [...]`), in a function that talks to a model (its arguments
// or body name messages, a prompt, a model or a completion). Not layers:
// a recursion that passes a count on (`attempt + 1`, `retries - 1`) or
// counts its retries in its state (`this.retries++`) — bounded by a guard
// this file does not read —, a walk of a tree or of pages (`if
// (page.next) return this.list(page.next)`: the condition names no
// retry), a call of another function of the same name on another object.

const maxReaskFuncBytes = 64 << 10

var (
	jsSelfReturn = regexp.MustCompile(`^return\s+(?:await\s+)?(?:this\s*\.\s*)?([A-Za-z_$][\w$]*)\s*\(`)
	pySelfReturn = regexp.MustCompile(`^return\s+(?:await\s+)?(?:self\s*\.\s*)?([A-Za-z_]\w*)\s*\(`)
	// reaskCond: a condition about an answer to send back — a retry, a
	// parse, an invalid or malformed reply, a refusal.
	reaskCond = regexp.MustCompile(`(?i)retr(?:y|ies)|again|re_?ask|invalid|malformed|unparsable|pars(?:e|ed|ing)|refus`)
	// extendsConversation: the call's arguments are the conversation with
	// something appended — the complaint sent back.
	extendsConversation = regexp.MustCompile(`\.\.\.\s*[\w$.]*(?i:messages|history|conversation|convo|prompt)|(?i:messages|history|conversation|convo)\s*\+|(?i:messages|history|conversation)\s*\.\s*concat\s*\(`)
	// passesCount: the recursive call carries a count on.
	passesCount = regexp.MustCompile(`[\w$\])]\s*[-+]\s*1\b|\+\+|--`)
	// talksToModel: the function's arguments or body are a conversation.
	talksToModel = regexp.MustCompile(`(?i)messages|prompt|completion|\bchat|model|\bllm`)
)

// jsReasks finds the functions of a JS or TS file that call themselves
// again on an answer they cannot use.
func jsReasks(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("return")) {
		return nil
	}
	var out []Layer
	for _, m := range scanAt(code, "return", jsSelfReturn, 200) {
		name := string(code[m[2]:m[3]])
		if notARecall[strings.ToLower(name)] || len(out) >= maxCandidates {
			continue
		}
		d := jsDefsOf(f, name)
		fnOpen, fnClose, ok := jsEnclosingFunc(code, d, m[0])
		if !ok {
			continue
		}
		cond, ok := jsIfConsequent(code, fnOpen, m[0])
		a, b := args(code, m[1]-1)
		if !ok || !reaskCond.Match(cond) && !extendsConversation.Match(code[a:b]) {
			continue
		}
		if passesCount.Match(code[a:b]) || countsRetries(code[fnOpen:fnClose]) || !talksToModel.Match(code[fnOpen:fnClose]) {
			continue
		}
		out = append(out, reaskLayer(f, m[0], "javascript", "return "+name+"(…) again when "+oneLine(cond), cond))
	}
	return out
}

// jsFuncDefs are the offsets of the opening braces of the definitions of
// the function or method name in code: `name(…) {`, `async name(…) {`,
// `function name(…) {`, `name = (…) => {`, each with a TypeScript return
// type or not (`name(…): Promise<R> {`) (at most maxCandidates).
func jsFuncDefs(code []byte, name string) [][]int {
	def := regexp.MustCompile(`(?:^|[^\w$.])(?:function\s*\*?\s*)?` + regexp.QuoteMeta(name) +
		`\s*(?:=\s*(?:async\s*)?(?:function\s*)?)?\([^()]*(?:\([^()]*\)[^()]*)*\)(?:\s*:\s*[^{};=()]{1,200}?)?\s*(?:=>\s*)?\{`)
	return def.FindAllIndex(code, maxCandidates)
}

// jsAnyFuncDef is jsFuncDefs' pattern for any name (group 1), the byte
// before the name checked by hand (RE2 has no look-behind).
var jsAnyFuncDef = regexp.MustCompile(`(?:function\s*\*?\s*)?([A-Za-z_$][\w$]*)\s*(?:=\s*(?:async\s*)?(?:function\s*)?)?\([^()]*(?:\([^()]*\)[^()]*)*\)(?:\s*:\s*[^{};=()]{1,200}?)?\s*(?:=>\s*)?\{`)

// maxJSDefs bounds the definitions a file's index holds (a 1 MB file of
// 4,500 functions holds some 20,000 such heads, each an if or a call).
const maxJSDefs = 1 << 16

// jsDefsOf is the definitions of name in f, as jsFuncDefs finds them, from
// an index of every name's built in one pass over the file: a pass per
// callee name was O(names × file size), 20 s on a 1 MB file of 4,500
// self-calling functions (R6-2).
func jsDefsOf(f *file, name string) [][]int {
	if f.jsDefs == nil {
		code := f.blanked()
		f.jsDefs = map[string][][]int{}
		for _, m := range jsAnyFuncDef.FindAllSubmatchIndex(code, maxJSDefs) {
			if m[0] > 0 && (isWord(code[m[0]-1]) || code[m[0]-1] == '$' || code[m[0]-1] == '.') {
				continue
			}
			n := string(code[m[2]:m[3]])
			if len(f.jsDefs[n]) < maxCandidates {
				f.jsDefs[n] = append(f.jsDefs[n], []int{m[0], m[1]})
			}
		}
	}
	return f.jsDefs[name]
}

// jsEnclosingFunc is the body ({ to }) of the definition among defs whose
// body holds at: the nearest before at whose braces close after it.
func jsEnclosingFunc(code []byte, defs [][]int, at int) (int, int, bool) {
	for k := len(defs) - 1; k >= 0; k-- {
		open := defs[k][1] - 1
		if open >= at {
			continue
		}
		if at-open > maxReaskFuncBytes {
			break
		}
		if end := closeOf(code, open, maxReaskFuncBytes); end > at {
			return open, end, true
		}
	}
	return 0, 0, false
}

// closeOf is the offset of the bracket closing the one at open, looking at
// most limit bytes ahead; -1 when none does.
func closeOf(code []byte, open, limit int) int {
	depth := 0
	for i := open; i < min(len(code), open+limit); i++ {
		switch code[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

var jsIfOpen = regexp.MustCompile(`\bif\s*\(`)

// jsIfConsequent is the condition of the if whose consequent is the
// statement at at — `if (c) return …` or `if (c) { return …` — the nearest
// if of the function body starting at from; "else" when the statement
// opens that if's else (`} else { return …`).
func jsIfConsequent(code []byte, from, at int) ([]byte, bool) {
	lo := max(from, at-2000)
	locs := jsIfOpen.FindAllIndex(code[lo:at], -1)
	if len(locs) == 0 {
		return nil, false
	}
	open := lo + locs[len(locs)-1][1] - 1
	end := closeOf(code, open, 2000)
	if end < 0 || end > at {
		return nil, false
	}
	between := bytes.TrimSpace(code[end+1 : at])
	if t := bytes.TrimSpace(bytes.TrimSuffix(between, []byte("{"))); bytes.HasSuffix(t, []byte("else")) && (len(t) == 4 || !isIdentByte(t[len(t)-5])) {
		return []byte("else"), true // the answer failed the if: asked again only when the call extends the conversation
	}
	if len(between) > 0 && !bytes.Equal(between, []byte("{")) {
		return nil, false
	}
	return code[open+1 : end], true
}

// pyReasks is jsReasks for Python: `return self.name(…)` inside `def
// name(…):`, the body of an `if`/`elif` whose condition names a retry or a
// parse.
func pyReasks(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("return")) {
		return nil
	}
	var out []Layer
	for _, m := range scanAt(code, "return", pySelfReturn, 200) {
		name := string(code[m[2]:m[3]])
		if notARecall[strings.ToLower(name)] || len(out) >= maxCandidates || !atLineStart(code, m[0]) {
			continue
		}
		ind := indentAt(code, m[0])
		cond, ok := pyIfAbove(code, m[0], ind)
		a, b := args(code, m[1]-1)
		if !ok || !reaskCond.Match(cond) && !extendsConversation.Match(code[a:b]) {
			continue
		}
		defAt, ok := pyEnclosingDef(code, m[0], ind, name)
		if !ok {
			continue
		}
		fn := code[defAt:min(len(code), pyBlockEndWithin(code, defAt, defAt, maxReaskFuncBytes))]
		if passesCount.Match(code[a:b]) || countsRetries(fn) || !talksToModel.Match(fn) {
			continue
		}
		out = append(out, reaskLayer(f, m[0], "python", "return "+name+"(…) again when "+oneLine(cond), cond))
	}
	return out
}

var (
	pyReaskIf  = regexp.MustCompile(`^\s*(?:el)?if\s+(.*?):\s*$`)
	pyReaskDef = regexp.MustCompile(`^\s*(?:async\s+)?def\s+(\w+)\s*\(`)
)

// pyIfAbove is the condition of the if or elif whose block holds the line
// at at (indented ind): the nearest line above indented less, when it is
// one; "else" for an else's block.
func pyIfAbove(code []byte, at, ind int) ([]byte, bool) {
	for end, n := lineStartBefore(code, at), 0; end > 0 && n < 40; n++ {
		start := lineStartBefore(code, end-1)
		line := code[start : end-1]
		end = start
		if len(bytes.TrimSpace(line)) == 0 || lineIndent(code, start) >= ind {
			continue
		}
		if t := bytes.TrimSpace(line); bytes.Equal(t, []byte("else:")) {
			return []byte("else"), true // the answer failed the if above: asked again only when the call extends the conversation
		}
		m := pyReaskIf.FindSubmatch(line)
		if m == nil {
			return nil, false
		}
		return m[1], true
	}
	return nil, false
}

// pyEnclosingDef is the offset of the def named name that holds the line
// at at: the nearest def above indented less than ind.
func pyEnclosingDef(code []byte, at, ind int, name string) (int, bool) {
	lo := max(0, at-maxReaskFuncBytes)
	for end := lineStartBefore(code, at); end > lo; {
		start := lineStartBefore(code, end-1)
		line := code[start : end-1]
		end = start
		if m := pyReaskDef.FindSubmatch(line); m != nil && lineIndent(code, start) < ind {
			return start, string(m[1]) == name
		}
	}
	return 0, false
}

// lineIndent is the indent of the line starting at start.
func lineIndent(code []byte, start int) int {
	n := 0
	for start+n < len(code) && (code[start+n] == ' ' || code[start+n] == '\t') {
		n++
	}
	return n
}

// oneLine is a condition as one short line, for the setting.
func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// stateCount: a name taken up or down by one (`this.retries++`, `self.attempts += 1`).
var stateCount = regexp.MustCompile(`([A-Za-z_$][\w$.]*)\s*(?:\+\+|--|[-+]=\s*1\b)|(?:\+\+|--)\s*([A-Za-z_$][\w$.]*)`)

// countsRetries: the function counts its retries in a name of its own or
// its object's (`this.retries++` beside a guard that throws): bounded by a
// test this rule does not read, so not its layer.
func countsRetries(fn []byte) bool {
	for _, m := range stateCount.FindAllSubmatch(fn, 64) {
		name := m[1]
		if len(name) == 0 {
			name = m[2]
		}
		if retryCounterName(string(name)) {
			return true
		}
	}
	return false
}

// reaskLayer is the layer of a recursion that asks again with no count.
func reaskLayer(f *file, at int, group, setting string, cond []byte) Layer {
	if l, ok := boundInMethod(f, at, cond, setting, group, "a function that calls itself again when the model's answer cannot be used"); ok {
		return l // a method of the object decides (boundelsewhere.go)
	}
	l := handRolled(f.rel, f.lines().at(at), 0, "", group,
		"a function that calls itself again when the model's answer cannot be used, with no count: nothing stops it but a good answer")
	l.Retries4xx = false // it asks again on an answer it cannot use, not on an error
	l.setUnbounded(setting + " (no count)")
	return l
}
