package audit

import (
	"bytes"
	"strings"
)

// Python values read through the expressions real code writes them with
// (issue 37, round 9): a setting assigned from a getter whose default is
// itself an environment variable's default, a conditional expression that
// falls back to one, a pydantic or dataclass field whose default is one —
//
//	self.max_retries = kwargs.get("max_retries", int(os.environ.get("LLM_MAX_RETRIES", 5)))
//	max_retries = p if p is not None else int(os.environ.get("OPENAI_MAX_RETRIES", "5"))
//	retries: int = Field(default_factory=lambda: int(os.getenv("RETRIES", "4")))
//
// each is the value the code runs with when nobody sets anything, indexed
// under the name assigned (self.x under x, as the other definitions are)
// with how it was reached. One pass over the file's lines; each
// right-hand side read once, bounded, with a bounded depth of nesting.

// maxPyDefaultBytes bounds the right-hand side read per assignment.
const maxPyDefaultBytes = 400

// maxPyDefaultDepth bounds the nesting followed in one expression.
const maxPyDefaultDepth = 6

// pyExprValues adds to vi the values of assignments whose right-hand side
// is an expression pyDefaultOf reads (a getter, a conditional, `or`, a
// field) rather than a literal, which pyValues already indexes.
func pyExprValues(f *file, vi valueIndex) {
	raw, code, ln := f.raw, f.blanked(), f.lines()
	if len(code) != len(raw) {
		return
	}
	added := 0
	for ls := 0; ls < len(code) && added < maxValueDefs; {
		le := bytes.IndexByte(code[ls:], '\n')
		if le < 0 {
			le = len(code)
		} else {
			le += ls
		}
		line := code[ls:le]
		next := le + 1
		name, rhs, ok := pyAssignHead(line)
		if !ok {
			// a, retry_max = …, 5: each name its literal.
			for _, d := range pyTupleAssign(line) {
				if at := ln.at(ls); !hasDef(vi[d.name], d.n, at) {
					vi.add(d.name, valueDef{d.n, at, "value assigned in a tuple"})
					added++
				}
			}
			ls = next
			continue
		}
		start := ls + rhs
		end := le
		// A right-hand side that opens a bracket it does not close on
		// its line runs on to the closing one (a parenthesised
		// conditional over three lines), bounded.
		if a, b := pyBalancedEnd(code, start, min(len(code), start+maxPyDefaultBytes)); b > end {
			end, next = b, a
		}
		expr := pyCutComment(raw[start:end], code[start:end])
		if n, how, ok := pyDefaultOf(expr, 0); ok && !isPlainLiteral(expr) {
			if how == "" {
				how = "the value when nothing is set"
			}
			at := ln.at(ls)
			if !hasDef(vi[name], n, at) {
				vi.add(name, valueDef{n, at, how})
				added++
			}
		}
		ls = max(next, ls+1)
	}
}

// pyAssignHead reads `name =`, `self.name =` or `name: type =` at the
// start of a line of blanked code: the name and the offset of what is
// assigned. Augmented assignments and comparisons are not assignments.
func pyAssignHead(line []byte) (string, int, bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if bytes.HasPrefix(line[i:], []byte("self.")) {
		i += len("self.")
	}
	s := i
	for i < len(line) && isWord(line[i]) {
		i++
	}
	if i == s || line[s] >= '0' && line[s] <= '9' {
		return "", 0, false
	}
	name := string(line[s:i])
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i < len(line) && line[i] == ':' {
		// An annotation: up to the `=` on the same line, no call in it.
		j := bytes.IndexByte(line[i:], '=')
		if j < 0 || bytes.IndexByte(line[i:i+j], '(') >= 0 {
			return "", 0, false
		}
		i += j
	}
	if i >= len(line) || line[i] != '=' || i+1 < len(line) && line[i+1] == '=' {
		return "", 0, false
	}
	return name, i + 1, true
}

type pyTupleDef struct {
	name string
	n    int
}

// pyTupleAssign reads `a, self.b = 5, 10` on one line of blanked code:
// the names given an integer literal, position by position, when both
// sides have as many items (a starred or unpacked side is not read).
func pyTupleAssign(line []byte) []pyTupleDef {
	eq := bytes.IndexByte(line, '=')
	if eq <= 0 || eq+1 >= len(line) || line[eq+1] == '=' || bytes.IndexByte(line[:eq], ',') < 0 {
		return nil
	}
	switch line[eq-1] {
	case '!', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', ':':
		return nil
	}
	lhs := bytes.Split(line[:eq], []byte(","))
	rhs := splitTop(line[eq+1:])
	if len(lhs) != len(rhs) || len(lhs) > 8 {
		return nil
	}
	var out []pyTupleDef
	for i, l := range lhs {
		name := string(bytes.TrimPrefix(bytes.TrimSpace(l), []byte("self.")))
		if name == "" || !isName(name) || strings.ContainsRune(name, '.') || name[0] >= '0' && name[0] <= '9' {
			return nil
		}
		if n, ok := atoiBounded(string(bytes.TrimSpace(rhs[i]))); ok {
			out = append(out, pyTupleDef{name, n})
		}
	}
	return out
}

// pyBalancedEnd: when code[start:limit] opens more brackets than it closes
// before its line ends, the offset just after the bracket that closes them
// and the end of that line; otherwise (0, 0).
func pyBalancedEnd(code []byte, start, limit int) (int, int) {
	depth, sawNewline := 0, false
	for i := start; i < limit; i++ {
		switch code[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 && sawNewline {
				le := bytes.IndexByte(code[i:], '\n')
				if le < 0 {
					return len(code), len(code)
				}
				return i + le + 1, i + 1
			}
			if depth < 0 {
				return 0, 0
			}
		case '\n':
			if depth == 0 {
				return 0, 0
			}
			sawNewline = true
		}
	}
	return 0, 0
}

// pyCutComment is raw up to a `#` that starts a comment in the blanked
// code (a `#` in a string is blanked there).
func pyCutComment(raw, code []byte) []byte {
	if i := bytes.IndexByte(code, '#'); i >= 0 {
		return raw[:i]
	}
	return raw
}

func isPlainLiteral(expr []byte) bool {
	_, ok := atoiBounded(string(bytes.TrimSpace(expr)))
	return ok
}

func hasDef(defs []valueDef, n, line int) bool {
	for _, d := range defs {
		if d.n == n && d.line == line {
			return true
		}
	}
	return false
}

// pyDefaultOf is the integer expr runs with when nothing is set: a
// literal; int(…) of one (a quoted "5" too); an environment variable's
// default (os.environ.get, os.getenv); a getter's default (kwargs.get,
// config.getint, getattr); the branch of a conditional or an `or` that
// resolves (the larger when both do); a Field's default or default
// factory. Names are not followed here: the resolver does (values.go).
func pyDefaultOf(expr []byte, depth int) (int, string, bool) {
	return pyDefaultIn(strings.TrimSpace(string(expr)), depth, false)
}

func pyDefaultIn(s string, depth int, quotedOK bool) (int, string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || depth > maxPyDefaultDepth || len(s) > maxPyDefaultBytes {
		return 0, "", false
	}
	for len(s) > 1 && s[0] == '(' && pyCloseOf(s, 0) == len(s)-1 {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if n, ok := atoiBounded(s); ok {
		return n, "", true
	}
	if quotedOK && len(s) >= 3 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		if n, ok := atoiBounded(s[1 : len(s)-1]); ok {
			return n, "", true
		}
	}
	// A conditional: `a if cond else b`.
	if i := pyTopSep(s, " if "); i > 0 {
		if j := pyTopSep(s[i:], " else "); j > 0 {
			a, ha, okA := pyDefaultIn(s[:i], depth+1, quotedOK)
			b, hb, okB := pyDefaultIn(s[i+j+len(" else "):], depth+1, quotedOK)
			switch {
			case okA && okB && b > a:
				return b, hb, true
			case okA:
				return a, ha, true
			case okB:
				return b, hb, true
			}
			return 0, "", false
		}
	}
	if i := pyTopSep(s, " or "); i > 0 {
		return pyDefaultIn(s[i+len(" or "):], depth+1, quotedOK)
	}
	// A call written whole: callee(args).
	open := strings.IndexByte(s, '(')
	if open <= 0 || pyCloseOf(s, open) != len(s)-1 {
		return 0, "", false
	}
	callee := s[:open]
	for _, c := range []byte(callee) {
		if !isWord(c) && c != '.' {
			return 0, "", false
		}
	}
	parts := splitTop([]byte(s[open+1 : len(s)-1]))
	arg := func(k int, kw string) (string, bool) {
		for _, p := range parts {
			t := strings.TrimSpace(string(p))
			if kw != "" && strings.HasPrefix(t, kw) {
				if r := strings.TrimSpace(t[len(kw):]); strings.HasPrefix(r, "=") && !strings.HasPrefix(r, "==") {
					return r[1:], true
				}
			}
		}
		if k >= 0 && k < len(parts) && !pyKeywordArg(string(parts[k])) {
			return string(parts[k]), true
		}
		return "", false
	}
	last := lastSegment(callee)
	switch {
	case last == "int" || last == "float" || last == "round":
		if a, ok := arg(0, ""); ok {
			return pyDefaultIn(a, depth+1, true)
		}
	case callee == "os.environ.get" || callee == "environ.get" || callee == "os.getenv" || callee == "getenv":
		key, _ := arg(0, "key")
		d, ok := arg(1, "default")
		if !ok {
			return 0, "", false
		}
		if n, how, ok := pyDefaultIn(d, depth+1, true); ok {
			if how == "" {
				how = "default of the environment variable " + pyUnquote(key)
			}
			return n, how, true
		}
	case last == "getattr":
		if d, ok := arg(2, ""); ok {
			return pyWithHow(pyDefaultIn(d, depth+1, false))("default of the config getter")
		}
	case last == "Field" || last == "field":
		if d, ok := arg(0, "default"); ok {
			return pyWithHow(pyDefaultIn(d, depth+1, false))("field default")
		}
		if d, ok := arg(-1, "default_factory"); ok {
			d = strings.TrimSpace(d)
			if strings.HasPrefix(d, "lambda") {
				if c := strings.IndexByte(d, ':'); c > 0 {
					return pyWithHow(pyDefaultIn(d[c+1:], depth+1, false))("field default")
				}
			}
		}
	case strings.HasPrefix(strings.TrimPrefix(last, "_"), "get") && strings.Contains(callee, "."):
		// kwargs.get("k", d), config.getint("k", d), self._get_int("k", d).
		key, ok := arg(0, "")
		if !ok || !strings.HasPrefix(strings.TrimSpace(key), "\"") && !strings.HasPrefix(strings.TrimSpace(key), "'") {
			return 0, "", false
		}
		if d, ok := arg(1, "default"); ok {
			return pyWithHow(pyDefaultIn(d, depth+1, false))("default of the config getter")
		}
	}
	return 0, "", false
}

// pyKeywordArg: an argument written `name=value`.
func pyKeywordArg(a string) bool {
	a = strings.TrimSpace(a)
	i := 0
	for i < len(a) && isWord(a[i]) {
		i++
	}
	r := strings.TrimSpace(a[i:])
	return i > 0 && strings.HasPrefix(r, "=") && !strings.HasPrefix(r, "==")
}

// pyWithHow keeps the innermost reason a value was reached (an
// environment variable's default inside a getter's), else how.
func pyWithHow(n int, inner string, ok bool) func(string) (int, string, bool) {
	return func(how string) (int, string, bool) {
		if inner != "" {
			how = inner
		}
		return n, how, ok
	}
}

func pyUnquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

// pyCloseOf is the index of the bracket closing s[open], -1 when none does.
func pyCloseOf(s string, open int) int {
	depth := 0
	quote := byte(0)
	for i := open; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// pyTopSep is the index of sep in s outside brackets and quotes, -1 when
// there is none.
func pyTopSep(s, sep string) int {
	depth := 0
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		default:
			if depth == 0 && strings.HasPrefix(s[i:], sep) {
				return i
			}
		}
	}
	return -1
}

// pyHandlerReraises: a raise at the handler's own level, after whatever it
// logs first (`except asyncio.TimeoutError: logging.warning(…); raise`):
// the timeout ends the loop, it is not tried again (issue 37, round 9: a
// loop whose other handler retries was taken for a stall watchdog's).
func pyHandlerReraises(h pyHandler) bool {
	bodyIndent := -1
	for _, line := range bytes.Split(h.body, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		ind := len(line) - len(t)
		if bodyIndent < 0 {
			bodyIndent = ind
		}
		if ind == bodyIndent && bytes.HasPrefix(t, []byte("raise")) && (len(t) == 5 || !isIdentByte(t[5])) {
			return true
		}
	}
	return false
}
