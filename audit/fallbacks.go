package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Fallbacks to another model, generator or engine (issue 37, round 9's
// misses): the call is sent again, to the next entry, when one fails —
// a layer whose bound is the number of entries:
//
//   - a list walked on error: `for gen in self.chat_generators: try:
//     return gen.run(…) except Exception: failed.append(…)`, `for (const
//     model of models) { try { return await generateText({ model, … }) }
//     catch (e) { last = e } }`, Go's `for _, ref := range f.Models { …
//     if err == nil { return resp, nil } }`, and a waterfall that shifts
//     the next engine off a list while it is not empty (haystack's
//     FallbackChatGenerator, genkit's Fallback middleware, firecrawl's
//     engine waterfall);
//   - a handler that sends the guarded call again with another model
//     (`catch (e) { if quota … currentModel = retryModel; await
//     generateText({ model: currentModel, … }) }`): 2 tries.
//
// The list's length is the bound when the list is written in the file;
// otherwise the layer says so and counts 2 (the first and one fallback)
// at low confidence. A fallback does not send a 400 again as it was: the
// next entry is another model or engine, so it is never a retries_4xx
// finding.

// fallbackLayer is the layer of a fallback of attempts tries.
func fallbackLayer(rel string, line, attempts int, setting, group, note string) Layer {
	l := handRolled(rel, line, attempts, setting, group, note)
	l.DefaultID, l.Library = "fallback", "fallback to another model, generator or engine"
	l.Retries4xx = false
	return l
}

// fallbackList: a list's name that holds models, generators, providers
// or engines to fall back on (models_to_try, remainingEngines).
var fallbackList = regexp.MustCompile(`(?i)fallback|generators|models|llms|providers|engines|backends|deployments`)

var (
	pyForEach   = regexp.MustCompile(`^for\s+(?:\w+\s*,\s*)?(\w+)\s+in\s+(?:enumerate\(\s*)?([A-Za-z_][\w.]*|\[[^\]\n]{1,120}\])\s*\)?\s*:`)
	jsForOf     = regexp.MustCompile(`\bfor\s*\(\s*(?:const|let|var)\s+(?:\[\s*\w+\s*,\s*)?([A-Za-z_$][\w$]*)\s*\]?\s+of\s+([A-Za-z_$][\w$.]*?|\[[^\]\n]{1,120}\])(?:\.entries\(\s*\))?\s*\)\s*\{`)
	jsShiftLoop = regexp.MustCompile(`\bwhile\s*\(\s*([A-Za-z_$][\w$.]*)\.length\s*(?:>\s*0|!==?\s*0)?\s*\)\s*\{`)
	goRangeLoop = regexp.MustCompile(`\bfor\s+_\s*,\s*(\w+)\s*:=\s*range\s+([A-Za-z_][\w.]*)\s*\{`)
	succeedsRe  = regexp.MustCompile(`\breturn\b|\bbreak\b`)
	goErrNilRet = regexp.MustCompile(`if\s+err\s*==\s*nil\s*\{\s*return\b`)
	sendsWord   = regexp.MustCompile(`(?i)generat|invoke|scrape|\bsend|\bcomplete`)
)

// sendsSomething: code asks a model or sends a request — a call named
// for one, an HTTP call, chat messages or a prompt handed on. A walk over
// providers that looks an action up in a registry (genkit's dynamic
// action providers), or over model names loading weights from disk
// (`AutoModel.from_pretrained(model)`), is no fallback of a call.
func sendsSomething(code []byte) bool {
	return reachesAPI(code) || callsModelNamed(code) || sendsWord.Match(code) || chatArgs.Match(code)
}

var chatArgs = regexp.MustCompile(`\b(?:messages|prompt)\b`)

// listLength: name is assigned a list literal in code (NAME = [a, b, c],
// const NAME = [a, b]): its number of entries, the line of the
// assignment; ok false when none is written.
func listLength(f *file, name string) (int, int, bool) {
	name = name[strings.LastIndexByte(name, '.')+1:]
	re, err := regexp.Compile(`(?m)^[ \t]*(?:(?:export\s+)?(?:const|let|var)\s+)?(?:self\.|this\.)?` + regexp.QuoteMeta(name) + `\s*(?::[^=\n]*)?=\s*\[`)
	if err != nil {
		return 0, 0, false
	}
	code := f.blanked()
	var m []int
	for _, c := range assignmentsOf(code, name, re) {
		// A keyword argument (to_dict(chat_generators=[…])) is no
		// assignment: the line before ends in an open parenthesis or a
		// comma (a brace opens a JavaScript block).
		prev := bytes.TrimRight(code[:c[0]], " \t\r\n")
		if len(prev) > 0 && (prev[len(prev)-1] == '(' || prev[len(prev)-1] == ',') {
			continue
		}
		m = c
		break
	}
	if m == nil {
		return 0, 0, false
	}
	a, b := args(code, m[1]-1)
	if b >= len(code) {
		return 0, 0, false
	}
	// The literal is the whole value: `[primary] + fallbacks` is longer.
	if rest := bytes.TrimLeft(code[b+1:], " \t\r"); len(rest) > 0 && rest[0] != '\n' && rest[0] != ';' {
		return 0, 0, false
	}
	n := 0
	for _, p := range topLevelArgs(code[a:b]) {
		p = bytes.TrimSpace(p)
		if bytes.HasPrefix(p, []byte("...")) || bytes.HasPrefix(p, []byte("*")) || wordIn(p, "for") {
			return 0, 0, false // a spread or a comprehension: its length is not written
		}
		if len(p) > 0 {
			n++
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	return n, f.lines().at(m[0]), true
}

// temperatureName: a loop over temperatures, asking the same model again
// hotter each time an answer fails (firecrawl's `for (const temp of
// temperatures)`): a re-ask, bounded by the list.
var temperatureName = regexp.MustCompile(`(?i)^temp(?:erature)?s?$|temperatures`)

// walksFallbacks: the loop `for v in list` walks models, generators,
// engines or temperatures — by the list's name, or for a written list by
// the entry's.
func walksFallbacks(v, list string) bool {
	if strings.HasPrefix(list, "[") {
		return temperatureName.MatchString(v) || fallbackList.MatchString(v)
	}
	return fallbackList.MatchString(list) || temperatureName.MatchString(list)
}

// walkLayer is a fallback's layer, or a re-ask's when the list is of
// temperatures.
func walkLayer(rel string, line, n int, setting, group, v, list string) Layer {
	l := fallbackLayer(rel, line, n, setting, group, fallbackNote)
	if temperatureName.MatchString(v) || temperatureName.MatchString(list) {
		l.Library = "re-ask at the next temperature (a list walked on error)"
		l.Note = "the model asked again, at another temperature, when an answer fails: read it to confirm"
	}
	return l
}

// fallbackBound sets l's bound from the list it walks, when written.
func fallbackBound(f *file, list string) (int, string) {
	if strings.HasPrefix(list, "[") {
		if n := len(topLevelArgs([]byte(list[1 : len(list)-1]))); n > 0 {
			return n, "; " + strconv.Itoa(n) + " entries"
		}
	}
	if n, line, ok := listLength(f, list); ok {
		return n, "; " + list + " has " + strconv.Itoa(n) + " entries (line " + strconv.Itoa(line) + ")"
	}
	return 2, "; the list's length is the bound, not known here: 2 assumed (the first and one fallback)"
}

const fallbackNote = "a list walked on error: the next entry is tried when one fails — read it to confirm each entry sends the call"

// pyFallbackLists: `for gen in self.chat_generators:` whose try uses the
// entry and leaves on success, and whose handler goes on to the next —
// always, or by a continue under a condition (`if is_retryable(e):
// continue` before a raise: the next model on a retryable error).
func pyFallbackLists(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("try")) {
		return nil
	}
	hs, _ := f.handlers()
	var out []Layer
	for _, m := range scanAt(code, "for", pyForEach, 200) {
		if !atLineStart(code, m[0]) {
			continue
		}
		v, list := string(code[m[2]:m[3]]), string(code[m[4]:m[5]])
		if !walksFallbacks(v, list) {
			continue
		}
		// A loop over temperatures asks again even when the entry goes
		// unused (`// temperature: temp,` commented out): the same
		// question, once per entry.
		temps := temperatureName.MatchString(v) || temperatureName.MatchString(list)
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		ok := false
		for _, h := range hs {
			if h.tryAt < m[1] || h.at >= end {
				continue
			}
			try := code[h.tryAt:h.at]
			if (wordIn(try, v) || temps) && succeedsRe.Match(try) && sendsSomething(try) && (!pyHandlerExits(code, h, "") || wordIn(h.body, "continue")) {
				ok = true
				break
			}
		}
		if !ok {
			continue
		}
		n, more := fallbackBound(f, list)
		out = append(out, walkLayer(f.rel, f.lines().at(m[0]), n, strings.TrimSpace(string(code[m[0]:m[1]]))+more, "python", v, list))
	}
	return out
}

// jsFallbackLists: `for (const model of models)` whose try uses the
// entry and leaves on success while its catch goes on, and `while
// (engines.length > 0) { … engines.shift() … try … }`.
func jsFallbackLists(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("catch")) {
		return nil
	}
	cs, _ := f.catches()
	var out []Layer
	walk := func(m []int, v, list string, shift bool) {
		if !walksFallbacks(v, list) {
			return
		}
		temps := temperatureName.MatchString(v) || temperatureName.MatchString(list)
		b := closeOf(code, m[1]-1, maxLoopBodyBytes)
		if b < 0 {
			return
		}
		a := m[1]
		body := code[a:b]
		if shift && !bytes.Contains(body, []byte(list+".shift()")) {
			return
		}
		ok := false
		for _, c := range cs {
			if c.tryA < a || c.bodyB > b {
				continue
			}
			try := code[c.tryA:c.tryB]
			if (shift || temps || wordIn(try, v)) && succeedsRe.Match(try) && sendsSomething(body) && (shift || !jsExits(code[c.bodyA:c.bodyB]) || wordIn(code[c.bodyA:c.bodyB], "continue")) {
				ok = true
				break
			}
		}
		if !ok {
			return
		}
		n, more := fallbackBound(f, list)
		head := strings.TrimSpace(string(code[m[0] : m[1]-1]))
		out = append(out, walkLayer(f.rel, f.lines().at(m[0]), n, head+more, "javascript", v, list))
	}
	for _, m := range scanAt(code, "for", jsForOf, 200) {
		walk(m, string(code[m[2]:m[3]]), string(code[m[4]:m[5]]), false)
	}
	for _, m := range scanAt(code, "while", jsShiftLoop, 200) {
		walk(m, "", string(code[m[2]:m[3]]), true)
	}
	return out
}

// goFallbackLists: `for _, ref := range f.Models {` whose body returns
// when err == nil: the next entry is tried on an error.
func goFallbackLists(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("range")) || !bytes.Contains(code, []byte("err == nil")) {
		return nil // no walk that returns on success
	}
	var out []Layer
	for _, m := range scanAt(code, "for", goRangeLoop, 200) {
		v, list := string(code[m[2]:m[3]]), string(code[m[4]:m[5]])
		if !fallbackList.MatchString(list) {
			continue
		}
		b := closeOf(code, m[1]-1, maxLoopBodyBytes)
		if b < 0 {
			continue
		}
		body := code[m[1]:b]
		if !wordIn(body, v) || !goErrNilRet.Match(body) || !sendsSomething(body) {
			continue
		}
		n, more := fallbackBound(f, list)
		out = append(out, fallbackLayer(f.rel, f.lines().at(m[0]), n, strings.TrimSpace(string(code[m[0]:m[1]-1]))+more, "go", fallbackNote))
	}
	return out
}

// modelSwitch: an assignment of a name of a model (currentModel =
// retryModel, model = "gpt-4o-mini") or a model argument (model:
// getModel(…), model=fallback_model).
var modelSwitch = regexp.MustCompile(`(?i)\b\w*model\w*\s*(?:=[^=]|:\s*[^\s,}])`)

// modelArgOf is the text of the model argument or assignment in code
// (spacing dropped), "" when there is none.
func modelArgOf(raw []byte) string {
	m := modelSwitch.FindIndex(raw)
	if m == nil {
		return ""
	}
	end := m[1]
	for end < len(raw) && raw[end] != ',' && raw[end] != '\n' && raw[end] != '}' && raw[end] != ';' {
		end++
	}
	return strings.Join(strings.Fields(string(raw[m[0]:end])), "")
}

// jsModelSwitches: a catch, not in a loop, that calls the model call its
// try made again after switching the model.
func jsModelSwitches(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("catch")) || !bytes.Contains(f.raw, []byte("odel")) {
		return nil
	}
	cs, _ := f.catches()
	var out []Layer
	for _, c := range cs {
		name, ok := recalls(code[c.tryA:c.tryB], code[c.bodyA:c.bodyB])
		if !ok || !modelCallJS.Match(code[c.bodyA:c.bodyB]) && !modelCallName.MatchString(name) {
			continue
		}
		if _, in := innermost(f.loops(), c.tryA, c.bodyB); in {
			continue // a loop's handler is the loop's
		}
		if l, ok := switchLayer(f, c.tryA, c.tryB, c.bodyA, c.bodyB, name, "javascript"); ok {
			out = append(out, l)
		}
	}
	return out
}

// pyModelSwitches is jsModelSwitches for an except.
func pyModelSwitches(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("except")) || !bytes.Contains(f.raw, []byte("model")) {
		return nil
	}
	hs, _ := f.handlers()
	var out []Layer
	for _, h := range hs {
		if h.end > len(f.raw) || !bytes.Contains(f.raw[h.at:h.end], []byte("odel")) {
			continue // no model named in the handler: no switch (a cheap refusal)
		}
		if _, in := pyLoopAround(code, h.tryAt, indentAt(code, h.tryAt)); in {
			continue
		}
		tryA := h.tryAt + len("try:")
		if tryA > h.at {
			continue
		}
		name, ok := recalls(code[tryA:h.at], code[h.at:h.end])
		if !ok || !pyAsksModel(code[h.at:h.end]) && !modelCallName.MatchString(name) {
			continue
		}
		if l, ok := switchLayer(f, tryA, h.at, h.at, h.end, name, "python"); ok {
			out = append(out, l)
		}
	}
	return out
}

// switchLayer: the handler code[ha:hb] names a model its try code[ta:tb]
// did not (read with strings: the model's name is one); the layer is at
// the handler's first model switch.
func switchLayer(f *file, ta, tb, ha, hb int, name, group string) (Layer, bool) {
	vis := f.readable()
	if hb > len(vis) || tb > len(vis) {
		return Layer{}, false
	}
	hm := modelSwitch.FindIndex(vis[ha:hb])
	if hm == nil {
		return Layer{}, false
	}
	hArg := modelArgOf(vis[ha+hm[0] : hb])
	if hArg == "" || hArg == modelArgOf(vis[ta:tb]) {
		return Layer{}, false // the same model asked again: a retry-once's (retry_once.go), not a fallback
	}
	line := f.lines().at(ha + hm[0])
	return fallbackLayer(f.rel, line, 2, "handler: "+name+"(…) sent again with "+display1(hArg), group,
		"a handler that sends the call again to another model: read it to confirm which errors switch"), true
}

// display1 shortens a setting's text to one short line.
func display1(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// wordIn: name occurs in code as a whole word.
func wordIn(code []byte, name string) bool {
	if name == "" {
		return false
	}
	for i := 0; ; {
		j := bytes.Index(code[i:], []byte(name))
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(name)
		if (at == 0 || !isWord(code[at-1])) && (end >= len(code) || !isWord(code[end])) {
			return true
		}
		i = end
	}
}

// assignmentsOf finds where re (anchored at a line's start) matches the
// lines that hold name: the name is found by a literal search and only
// its line is matched, so a long file costs one search per name, not one
// regular expression over it (a hostile file of 4,000 fallback walks
// took 9 s). At most 16.
func assignmentsOf(code []byte, name string, re *regexp.Regexp) [][]int {
	var out [][]int
	n := []byte(name)
	tries := 0
	for i := 0; i < len(code) && len(out) < 16 && tries < 16*maxCandidates; {
		j := bytes.Index(code[i:], n)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(n)
		tries++
		ls := bytes.LastIndexByte(code[:at], '\n') + 1
		end := min(len(code), i+200)
		if k := bytes.IndexByte(code[i:end], '\n'); k >= 0 {
			end = i + k
		}
		if mm := re.FindIndex(code[ls:end]); mm != nil && mm[0] == 0 {
			out = append(out, []int{ls + mm[0], ls + mm[1]})
		}
	}
	return out
}
