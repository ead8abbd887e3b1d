package audit

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
)

// Settings passed as a dict: `kwargs = {"max_retries": 5, …}` (or
// `dict(max_retries=5)`, or `kwargs["max_retries"] = 5` after it) then
// `ChatOpenAI(**kwargs)` — the constructor gets max_retries as surely as
// if it were written in the call. And a class bound to a name before it is
// built (`model: Type[Chat] = WrappedChatOpenAI` … `model(**kwargs)`) is
// built where the name is called.

var (
	pySplat = regexp.MustCompile(`(?:^|[(,\s])\*\*([A-Za-z_]\w*)\s*(?:,|$)`)
	// pyDictKnob: "max_retries": N in a dict literal, read on the raw text
	// (the key is a string, blanked in code).
	pyDictKnob = regexp.MustCompile(`['"]max_retries['"]\s*:\s*([0-9][0-9_]*)\b`)
	pyDictCall = regexp.MustCompile(`\bmax_retries\s*=\s*([0-9][0-9_]*)\b`)
	pyDefLine  = regexp.MustCompile(`(?m)^([ \t]*)(?:async[ \t]+)?def[ \t]`)
)

// maxSplatBack is how far before a call its dict's assignment is looked for.
const maxSplatBack = 16 << 10

// pySplatInto sets l from the max_retries of the dict the call's arguments
// code[a:b] pass as **name, when one is built in the file before the call
// (the last assignment of name before it, plus any name["max_retries"] = N
// between). It says whether it did.
func pySplatInto(f *file, l *Layer, a, b int) bool {
	if l.Configured {
		return false
	}
	code := f.blanked()
	m := pySplat.FindSubmatch(code[a:b])
	if m == nil {
		return false
	}
	name := string(m[1])
	if v, at, shadow := pyLambdaParam(f, a, name); shadow {
		// A lambda's own parameter of that name (`lambda kw={…}: OpenAI(**kw)`)
		// is the dict passed, never the outer function's (rt5 F2).
		if v < 0 {
			return false
		}
		l.set(v, fmt.Sprintf("max_retries: %d (in the default of the lambda's parameter %s at %s:%d, passed as **%s)", v, name, f.rel, f.lines().at(at), name))
		return true
	}
	from := max(0, a-maxSplatBack)
	assign := regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(name) + `[ \t]*(?::[^=\n]{0,80})?=[ \t]*(\{|dict\s*\()`)
	ms := assign.FindAllSubmatchIndex(code[from:a], -1)
	if len(ms) == 0 {
		return false
	}
	last := ms[len(ms)-1]
	open := from + last[3] - 1
	// The dict of the call's own function: a def between the assignment
	// and the call, less indented than the call, starts another function.
	ls := lineStartBefore(code, a)
	callInd := 0
	for ls+callInd < a && (code[ls+callInd] == ' ' || code[ls+callInd] == '\t') {
		callInd++
	}
	for _, d := range pyDefLine.FindAllSubmatchIndex(code[from+last[0]:a], -1) {
		if d[3]-d[2] < callInd {
			return false
		}
	}
	da, db := args(code, open)
	if db >= a {
		return false // the dict is not closed before the call: not one built there
	}
	v, at := -1, 0
	if code[open] == '{' {
		for _, k := range pyDictKnob.FindAllSubmatchIndex(f.raw[da:db], -1) {
			if code[da+k[2]] == ' ' {
				continue // the number is inside a string
			}
			if n, ok := atoiBounded(string(f.raw[da+k[2] : da+k[3]])); ok {
				v, at = n, da+k[0]
			}
		}
	} else if k := pyDictCall.FindSubmatchIndex(code[da:db]); k != nil {
		if n, ok := atoiBounded(string(code[da+k[2] : da+k[3]])); ok {
			v, at = n, da+k[0]
		}
	}
	// name["max_retries"] = N, later and before the call; and the key taken
	// out again (`name.pop("max_retries")`, `del name["max_retries"]`,
	// `name.clear()`): the last of these before the call decides (rt5 F2).
	q := regexp.QuoteMeta(name)
	item := regexp.MustCompile(q + `\[\s*['"]max_retries['"]\s*\]\s*=\s*([0-9][0-9_]*)\b|` +
		`\bdel\s+` + q + `\[\s*['"]max_retries['"]\s*\]|\b` + q + `\s*\.\s*(?:pop\s*\(\s*['"]max_retries['"]|clear\s*\(\s*\))`)
	for _, k := range item.FindAllSubmatchIndex(f.raw[db:a], -1) {
		if code[db+k[0]] == ' ' {
			continue // inside a string or a comment
		}
		if k[2] < 0 {
			v, at = -1, 0 // removed: the constructor's default applies
			continue
		}
		if code[db+k[2]] == ' ' {
			continue
		}
		if n, ok := atoiBounded(string(f.raw[db+k[2] : db+k[3]])); ok {
			v, at = n, db+k[0]
		}
	}
	if v < 0 {
		return false
	}
	l.set(v, fmt.Sprintf("max_retries: %d (in the dict %s at %s:%d, passed as **%s)", v, name, f.rel, f.lines().at(at), name))
	return true
}

// pyLambdaParam: the call whose arguments start at a is the body of a
// lambda on its line with a parameter called name: shadow is true, and v is
// the max_retries of that parameter's default dict literal (-1 when it has
// none the audit can read, or no default).
func pyLambdaParam(f *file, a int, name string) (v, at int, shadow bool) {
	code := f.blanked()
	// The call's own line, at most maxArgBytes of it: a minified line of
	// thousands of calls is not read again whole for each.
	ls := max(lineStartBefore(code, a), a-maxArgBytes)
	for _, lm := range pyLambda.FindAllIndex(code[ls:a], 8) {
		p := ls + lm[1]
		// The parameters end at the first ':' outside brackets.
		depth, end := 0, -1
		for i := p; i < a && end < 0; i++ {
			switch code[i] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case ':':
				if depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			continue
		}
		for _, prm := range splitTop(code[p:end]) {
			t := bytes.TrimSpace(prm)
			t = bytes.TrimLeft(t, "*")
			nm := t
			if i := bytes.IndexByte(t, '='); i >= 0 {
				nm = bytes.TrimSpace(t[:i])
			}
			if string(nm) != name {
				continue
			}
			shadow, v = true, -1
			// The default's text, read raw (its keys are strings).
			start := bytes.Index(code[p:end], prm)
			if start < 0 {
				continue
			}
			raw := f.raw[p+start : p+start+len(prm)]
			for _, k := range pyDictKnob.FindAllSubmatchIndex(raw, -1) {
				if code[p+start+k[2]] == ' ' {
					continue
				}
				if n, ok := atoiBounded(string(raw[k[2]:k[3]])); ok {
					v, at = n, p+start+k[0]
				}
			}
		}
	}
	return v, at, shadow
}

var pyLambda = regexp.MustCompile(`\blambda\b`)

// pyClassAliases are the plain names f binds to one of classes (`model =
// WrappedChatOpenAI`, `model: Type[Chat] = WrappedAzureChatOpenAI`): a
// call of such a name builds that class.
func pyClassAliases(f *file, classes []string) []string {
	code := f.blanked()
	var out []string
	for _, c := range classes {
		if !bytes.Contains(code, []byte(c)) {
			continue
		}
		re := regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]{0,80})?=[ \t]*` + regexp.QuoteMeta(c) + `[ \t]*(?:#.*)?$`)
		for _, m := range re.FindAllSubmatch(code, maxCandidates) {
			if a := string(m[1]); a != c && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}
