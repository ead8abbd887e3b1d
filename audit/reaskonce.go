package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// A re-ask once on an answer that cannot be used (issue 37, round 8: two
// in browser-use, one in skyvern, missed) —
//
//	model_output = await self.get_model_output(input_messages)
//	if not model_output.action:
//	    retry_messages = input_messages + [clarification]
//	    model_output = await self.get_model_output(retry_messages)
//
//	let reply = await askModel(messages);
//	if (!reply.text) reply = await askModel([...messages, nudge]);
//
// — is a layer of 2 tries: the same name given again by the same model
// call, in the block of an if that finds the first answer empty (not x,
// x is None, len(x) == 0, !x, x.length === 0), in the same function, no
// loop or handler holding it (the loop and handler rules read those). The
// callee must be a model call or a helper named for one (get_model_output,
// ask_llm, chat): a value fetched again when empty (a cache, a queue) is
// a poll, no layer.

var (
	pyCallAssign = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_][\w.]*)[ \t]*(?::[ \t]*[\w.\[\], |]+)?=[ \t]*(?:await[ \t]+)?([A-Za-z_][\w.]*)[ \t]*\(`)
	jsCallAssign = regexp.MustCompile(`(?m)^[ \t]*(?:(?:const|let|var)[ \t]+)?([A-Za-z_$][\w$.]*)[ \t]*(?::[ \t]*[\w$.<>\[\], |]+)?=[ \t]*(?:await[ \t]+)?([A-Za-z_$][\w$.]*)[ \t]*\(`)
)

// emptyTest: cond finds the answer named t empty.
func emptyTest(cond []byte, t string) bool {
	q := regexp.QuoteMeta(t)
	re := regexp.MustCompile(`(?:\bnot\s+|!\s*\(?\s*)` + q + `\b|\b` + q + `\b[\w.$\[\]()]*\s*(?:is\s+None|===?\s*(?:null|undefined|None|""|''|\[\]|0)\b|===?\s*(?:""|''))|len\(\s*` + q + `\b[^)]*\)\s*(?:==\s*0|<\s*1)|\b` + q + `\b[\w.$\[\]]*\.length\s*===?\s*0|(?i:\b\w*(?:empty|blank|invalid|missing)\w*)\(\s*` + q + `\b|(?:\bnot\s+|!\s*)(?i:\w*valid\w*)\(\s*` + q + `\b`)
	return re.Match(cond)
}

// modelAskName: a helper's name that says it asks a model for an answer
// (get_model_output, ask_llm, call_gpt, generate_response, chat) — not one
// that merely names a model (model_copy, get_llm_caller, AnthropicConfig,
// litellm_completion_cost).
var modelAskName = regexp.MustCompile(`(?i)^_*a?(?:get_)?(?:model|llm|ai|chat|gpt)_?(?:output|response|answer|reply|completion|result)s?$|^_*a?(?:ask|query|call|invoke|prompt)_?(?:model|llm|gpt|ai|openai|claude|anthropic)\w*$|^_*a?(?:chat|complete|generate)(?:_?(?:completion|text|response|answer|reply|content))?$`)

// jsSDKAsk: a JavaScript SDK's or the AI SDK's request for an answer.
var jsSDKAsk = regexp.MustCompile(`\.(?:chat\.)?completions\.create\s*\(|\.messages\.create\s*\(|\.responses\.create\s*\(|^(?:generateText|generateObject)\s*\(|\.invoke\s*\(`)

// asksModelName: a callee that asks a model, by its call or its name.
func asksModelName(callee string) bool {
	last := callee[strings.LastIndexByte(callee, '.')+1:]
	return modelAskName.MatchString(last) || pyLLMCall.MatchString(callee+"(") || jsSDKAsk.MatchString(callee+"(")
}

// pyReaskOnce finds Python re-asks once.
func pyReaskOnce(f *file) []Layer { return reaskOnce(f, pyCallAssign, "python") }

// jsReaskOnce finds JavaScript and TypeScript re-asks once.
func jsReaskOnce(f *file) []Layer { return reaskOnce(f, jsCallAssign, "javascript") }

func reaskOnce(f *file, assign *regexp.Regexp, group string) []Layer {
	code := f.blanked()
	type key struct{ target, callee string }
	first := map[key]int{}
	var out []Layer
	const note = "the model asked once more when its first answer is empty or cannot be used: read it to confirm"
	for i, m := range assign.FindAllSubmatchIndex(code, 4*maxCandidates) {
		if len(out) >= maxCandidates || i >= 4*maxCandidates {
			break
		}
		target, callee := string(code[m[2]:m[3]]), string(code[m[4]:m[5]])
		if !asksModelName(callee) || notARecall[strings.ToLower(callee[strings.LastIndexByte(callee, '.')+1:])] {
			continue
		}
		k := key{target, callee[strings.LastIndexByte(callee, '.')+1:]}
		p1, seen := first[k]
		at := m[2] // the statement's first byte
		if !seen {
			first[k] = at
			continue
		}
		line := f.lines().at(at)
		fa, _, ok := enclosingFunc(f, line)
		fa1, _, ok1 := enclosingFunc(f, f.lines().at(p1))
		if !ok || !ok1 || fa != fa1 {
			first[k] = at // another function's first ask
			continue
		}
		var cond []byte
		root, _, _ := strings.Cut(target, ".")
		if f.kind == fkPython {
			ind := indentAt(code, at)
			c, okc := pyIfCondAbove(code, at, ind)
			if !okc || bytes.Equal(c, []byte("else")) {
				continue
			}
			if _, inLoop := pyLoopAround(code, at, ind); inLoop || pyInHandler(f, at) {
				continue
			}
			cond = c
		} else {
			c, okc := jsIfConsequent(code, fa, at)
			if !okc || bytes.Equal(c, []byte("else")) || jsInLoop(code, at) || jsInCatch(f, at) {
				continue
			}
			cond = c
		}
		if !emptyTest(cond, root) && !emptyTest(cond, target) {
			continue
		}
		l := regenLayer(handRolled(f.rel, line, 2, target+" = "+k.callee+"(…) asked again once when "+oneLine(cond), group, note))
		out = append(out, l)
	}
	return out
}

// pyInHandler: at is in an except block's body.
func pyInHandler(f *file, at int) bool {
	hs, _ := f.handlers()
	for _, h := range hs {
		if at > h.at && at < h.end {
			return true
		}
	}
	return false
}

// jsInCatch: at is in a catch block's body.
func jsInCatch(f *file, at int) bool {
	cs, _ := f.catches()
	for _, c := range cs {
		if at > c.bodyA && at < c.bodyB {
			return true
		}
	}
	return false
}

// pyIfCondAbove is pyIfAbove that also reads a condition written over
// lines (`if (\n    not x\n    or y\n):`).
func pyIfCondAbove(code []byte, at, ind int) ([]byte, bool) {
	if c, ok := pyIfAbove(code, at, ind); ok {
		return c, true
	}
	for end, n := lineStartBefore(code, at), 0; end > 0 && n < 40; n++ {
		start := lineStartBefore(code, end-1)
		line := code[start : end-1]
		end = start
		t := bytes.TrimSpace(line)
		if len(t) == 0 || lineIndent(code, start) >= ind {
			continue
		}
		if t[0] != ')' {
			return nil, false
		}
		li := lineIndent(code, start)
		for e2, k := start, 0; e2 > 0 && k < 40; k++ {
			s2 := lineStartBefore(code, e2-1)
			l2 := bytes.TrimSpace(code[s2 : e2-1])
			e2 = s2
			if len(l2) == 0 || lineIndent(code, s2) != li {
				continue
			}
			if bytes.HasPrefix(l2, []byte("if")) || bytes.HasPrefix(l2, []byte("elif")) {
				return code[s2 : start+len(line)], true
			}
			return nil, false
		}
		return nil, false
	}
	return nil, false
}
