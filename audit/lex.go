package audit

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
)

// Matching runs on a blanked copy of the source: comments and the contents
// of string literals become spaces (newlines kept), so a call written in a
// comment or a string is not a layer, and every offset still points at the
// same line of the original. One pass, linear in the file; Go's regexp is
// linear too (RE2), so no input makes matching slow.
//
// Each language has its own lexer, because each grammar has a trap that
// blinds a generic one to the rest of the file: JavaScript's regex literals
// (`/\/*$/` is not a comment, /^```/ not a template), nested template
// literals, Go's raw strings (a backslash escapes nothing), Python's triple
// quotes and f-strings. Two rules hold for every lexer, and
// FuzzLexersNeverBlankWhatFollows holds them to it:
//   - a single- or double-quoted string ends at its line, so a misread quote
//     costs one line;
//   - a construct that may span lines (block comment, template, raw or
//     triple-quoted string) and is never closed blanks only the line it
//     opens on: the file is invalid or misread there, and the code after it
//     is still code. Once one kind has run to the end unclosed, later
//     openers of that kind are read as one-line, so the cost stays linear.

type lang uint8

const (
	langHash lang = iota // `#` comments, one-line strings: Ruby, nginx, HAProxy, INI
	langJS
	langGo
	langPython
	langCSharp
)

type syntax struct{ lang lang }

var (
	jsSyntax     = syntax{langJS}
	goSyntax     = syntax{langGo}
	pySyntax     = syntax{langPython}
	csSyntax     = syntax{langCSharp}
	rubySyntax   = syntax{langHash}
	configSyntax = syntax{langHash}
)

// blank returns src with comments and string contents replaced by spaces.
// Quotes stay, so `"report"` becomes `"      "`.
func blank(src []byte, sy syntax) []byte {
	out := bytes.Clone(src)
	lx := lexer{src: src, out: out}
	lx.run(sy)
	return out
}

func (lx *lexer) run(sy syntax) {
	switch sy.lang {
	case langJS:
		lx.js()
	case langGo:
		lx.goLang()
	case langPython:
		lx.python()
	case langCSharp:
		lx.csharp()
	default:
		lx.hash()
	}
}

// noComments returns src with only its comments blanked: code and the
// contents of strings stay, for a test that reads a string
// (err.name === "AbortError") but must not read a comment.
func noComments(src []byte, sy syntax) []byte {
	lx := lexer{src: src, out: bytes.Clone(src), cm: bytes.Clone(src)}
	lx.run(sy)
	return lx.cm
}

type lexer struct {
	src, out []byte
	// cm, when not nil, is a copy of src in which only comments are
	// blanked (noComments): string contents stay readable.
	cm []byte
	// unclosed: a multi-line construct of this kind ran to the end of the
	// file; later ones of the kind are read as one-line.
	unclosed [5]bool
}

const (
	kBlock = iota
	kTemplate
	kTriple
	kRaw
	kVerbatim
)

// space blanks one byte, keeping newlines so offsets keep their lines.
func space(out []byte, i int) {
	if out[i] != '\n' {
		out[i] = ' '
	}
}

func (lx *lexer) blankRange(a, b int) {
	for i := a; i < b; i++ {
		space(lx.out, i)
	}
}

// comment blanks [a, b) in cm, the comments-only copy, when one is made.
func (lx *lexer) comment(a, b int) {
	if lx.cm != nil {
		for i := a; i < b; i++ {
			space(lx.cm, i)
		}
	}
}

// lineEnd is the offset of the newline ending i's line (or the end).
func (lx *lexer) lineEnd(i int) int {
	if j := bytes.IndexByte(lx.src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(lx.src)
}

// unclosedAt handles a multi-line construct of kind k opened at open that
// reached the end of the file: what it blanked after its line is restored,
// its line stays blank, and lexing resumes on the next line.
func (lx *lexer) unclosedAt(k, open int) int {
	lx.unclosed[k] = true
	e := lx.lineEnd(open)
	copy(lx.out[e:], lx.src[e:])
	lx.blankRange(open+1, e)
	return e
}

// lineComment blanks from i to the end of the line.
func (lx *lexer) lineComment(i int) int {
	e := lx.lineEnd(i)
	lx.blankRange(i, e)
	lx.comment(i, e)
	return e
}

// blockComment blanks /* … */ from i.
func (lx *lexer) blockComment(i int) int {
	if !lx.unclosed[kBlock] {
		if j := bytes.Index(lx.src[i+2:], []byte("*/")); j >= 0 {
			end := i + 2 + j + 2
			lx.blankRange(i, end)
			lx.comment(i, end)
			return end
		}
		lx.unclosed[kBlock] = true
	}
	return lx.lineComment(i)
}

// quoted blanks the inside of a one-line string opened by quote at i,
// backslash escapes honoured; it ends at its line, closed or not. The
// offset returned is just past it.
func (lx *lexer) quoted(i int, quote byte, escapes bool) int {
	out, n := lx.out, len(lx.out)
	for i++; i < n && out[i] != '\n'; i++ {
		c := out[i]
		if c == quote {
			return i + 1
		}
		if escapes && c == '\\' && i+1 < n && out[i+1] != '\n' {
			space(out, i)
			i++
		}
		space(out, i)
	}
	return i
}

// hash: `#` comments and one-line strings (Ruby, nginx, HAProxy, INI).
func (lx *lexer) hash() {
	out, n := lx.out, len(lx.out)
	for i := 0; i < n; {
		switch c := out[i]; c {
		case '#':
			i = lx.lineComment(i)
		case '"', '\'':
			i = lx.quoted(i, c, true)
		default:
			i++
		}
	}
}

// goLang: // and /* */ comments, "…" strings and '…' runes with escapes,
// and `…` raw strings, where a backslash is a character like any other.
func (lx *lexer) goLang() {
	out, n := lx.out, len(lx.out)
	for i := 0; i < n; {
		switch c := out[i]; {
		case c == '/' && i+1 < n && out[i+1] == '/':
			i = lx.lineComment(i)
		case c == '/' && i+1 < n && out[i+1] == '*':
			i = lx.blockComment(i)
		case c == '"' || c == '\'':
			i = lx.quoted(i, c, true)
		case c == '`':
			i = lx.raw(i)
		default:
			i++
		}
	}
}

// raw blanks a Go raw string from its opening backtick at i.
func (lx *lexer) raw(i int) int {
	if !lx.unclosed[kRaw] {
		if j := bytes.IndexByte(lx.src[i+1:], '`'); j >= 0 {
			lx.blankRange(i+1, i+1+j)
			return i + 2 + j
		}
		lx.unclosed[kRaw] = true
	}
	return lx.quoted(i, '`', false)
}

// jsRegexAfter are the keywords after which a slash starts a regex literal
// rather than dividing.
var jsRegexAfter = map[string]bool{"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true, "yield": true, "await": true}

// js: JavaScript and TypeScript. A slash starts a regex literal where an
// operand is expected (after an operator, an opening bracket, a comma, a
// keyword such as return, or the start), and divides after an operand (a
// name, a number, a closing parenthesis or bracket). After `}` it is read
// as a regex: a regex read wrongly costs the rest of its line, a division
// read wrongly could open a comment or a template that costs the file.
func (lx *lexer) js() {
	out, n := lx.out, len(lx.out)
	regexOK := true
	for i := 0; i < n; {
		c := out[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < n && out[i+1] == '/':
			i = lx.lineComment(i)
		case c == '/' && i+1 < n && out[i+1] == '*':
			i = lx.blockComment(i)
		case c == '/' && regexOK:
			if e, ok := lx.regex(i); ok {
				i, regexOK = e, false
			} else {
				i++
			}
		case c == '"' || c == '\'':
			i, regexOK = lx.quoted(i, c, true), false
		case c == '`':
			i, regexOK = lx.template(i), false
		case isWord(c):
			j := i
			for j < n && isWord(out[j]) {
				j++
			}
			regexOK = jsRegexAfter[string(out[i:j])]
			i = j
		case c == ')' || c == ']':
			i, regexOK = i+1, false
		default:
			i, regexOK = i+1, true
		}
	}
}

// maxRegexBytes bounds a regex literal; a longer one is read as a
// division (the cost of the rare regex that long: its line).
const maxRegexBytes = 512

// regex blanks the body of a regex literal whose opening slash is at i,
// classes ([/]) and escapes honoured. ok is false when no closing slash is
// on the line: then it was a division after all, and nothing is blanked.
func (lx *lexer) regex(i int) (int, bool) {
	out, n := lx.out, len(lx.out)
	class := false
	j := i + 1
	// A regex literal is one line, and bounded: a line of 350,000 "(/["
	// would otherwise cost each slash a scan to the line's end.
	end := min(n, i+maxRegexBytes)
	for ; j < end && out[j] != '\n'; j++ {
		switch out[j] {
		case '\\':
			if j+1 < n && out[j+1] != '\n' {
				j++
			}
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				lx.blankRange(i+1, j)
				return j + 1, true
			}
		}
	}
	return i, false
}

// template blanks a template literal from its opening backtick at i,
// nested ones in its ${…} included: inside an expression, braces nest,
// strings and comments are skipped and a backtick opens an inner template.
// All of it is blanked but the outer backticks.
func (lx *lexer) template(i int) int {
	if lx.unclosed[kTemplate] {
		return lx.quoted(i, '`', true)
	}
	out, n := lx.out, len(lx.out)
	// stack: one entry per open ${…}, its brace depth; text is true while
	// reading a template's text rather than an expression.
	var stack []int
	text := true
	for j := i + 1; j < n; {
		c := out[j]
		if text {
			switch {
			case c == '\\' && j+1 < n:
				space(out, j)
				space(out, j+1)
				j += 2
			case c == '`' && len(stack) == 0:
				return j + 1
			case c == '`':
				space(out, j)
				j, text = j+1, false
			case c == '$' && j+1 < n && out[j+1] == '{':
				space(out, j)
				space(out, j+1)
				j += 2
				stack, text = append(stack, 0), false
			default:
				space(out, j)
				j++
			}
			continue
		}
		switch {
		case c == '/' && j+1 < n && out[j+1] == '/':
			j = lx.lineComment(j)
		case c == '/' && j+1 < n && out[j+1] == '*':
			e := bytes.Index(lx.src[j+2:], []byte("*/"))
			if e < 0 {
				return lx.unclosedAt(kTemplate, i)
			}
			lx.blankRange(j, j+2+e+2)
			j += 2 + e + 2
		case c == '"' || c == '\'':
			e := lx.quoted(j, c, true)
			space(out, j)
			if e > j+1 && e <= n && out[e-1] == c {
				space(out, e-1)
			}
			j = e
		case c == '`':
			space(out, j)
			j, text = j+1, true
		case c == '{':
			stack[len(stack)-1]++
			space(out, j)
			j++
		case c == '}':
			space(out, j)
			j++
			if stack[len(stack)-1] == 0 {
				stack, text = stack[:len(stack)-1], true
			} else {
				stack[len(stack)-1]--
			}
		default:
			space(out, j)
			j++
		}
	}
	return lx.unclosedAt(kTemplate, i)
}

// lines maps offsets to 1-based line numbers.
type lines []int

func newLines(b []byte) lines {
	ls := lines{0}
	for i, c := range b {
		if c == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

func (ls lines) at(off int) int {
	return sort.Search(len(ls), func(i int) bool { return ls[i] > off })
}

// maxArgBytes bounds how far a call's arguments are followed.
const maxArgBytes = 4096

// maxCandidates bounds the candidates of one shape examined per file, so a
// file of 60,000 `new Anthropic(` costs 256 × maxArgBytes, not 60,000 ×:
// a file that reaches it is reported as partly read.
const maxCandidates = 256

// args returns the offsets of the argument text of the call whose opening
// parenthesis is at open, through its matching close (or maxArgBytes).
func args(code []byte, open int) (int, int) {
	depth := 0
	end := min(len(code), open+maxArgBytes)
	for i := open; i < end; i++ {
		switch code[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return open + 1, i
			}
		}
	}
	return open + 1, end
}

// intKnob finds `name: 12`, `name=12` or `name = 1_000` in code and returns
// the value. ok is false when the knob is absent; num is false when it is
// present but not a literal integer (a variable: the value is not known).
func intKnob(re *regexp.Regexp, code []byte) (v int, ok, num bool, at int) {
	m := re.FindSubmatchIndex(code)
	if m == nil {
		return 0, false, false, 0
	}
	// A number written any way (10**9, 1e9, 1e400, -1, a literal too big
	// for an int) is read, never cut to its first digits: one over 1,000
	// tries comes back as hugeBound, which the scan reports unbounded
	// (numExpr, rt5 F4; R6-9).
	n, isNum := numExpr(string(code[m[2]:m[3]]))
	if !isNum {
		return 0, true, false, m[0]
	}
	return n, true, true, m[0]
}

// knobRe builds the matcher for one knob name in JS (`name: N`) and Python
// (`name=N`) call arguments; the value group is a literal integer or any
// other token.
func knobRe(name string) *regexp.Regexp {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*[:=]\s*(` + numExprPat + `|[A-Za-z_][\w.]*)`)
	knobNames[re] = name
	return re
}

// knobNames is the knob each knobRe matcher reads, filled as the package's
// matchers are built (at init, before any scan).
var knobNames = map[*regexp.Regexp]string{}

// snippet is a setting as written, for the report: one line, bounded.
func snippet(code []byte, at int) string {
	end := at
	for end < len(code) && end-at < 60 && code[end] != '\n' && code[end] != ',' && code[end] != ')' && code[end] != '}' {
		end++
	}
	// A name is never cut: the setting's expression is resolved from it
	// (env.LANGFUSE_INGESTION_CLICKHOUSE_MAX_ATTEMPTS is 60 bytes in).
	for end < len(code) && end-at < 200 && (isWord(code[end]) || code[end] == '.') {
		end++
	}
	return strings.TrimSpace(string(code[at:end]))
}

// scanAt runs re, which must start with lit and be anchored (^), at each
// place lit occurs in hay that is not inside a longer word, looking at
// most window bytes ahead. A literal prefilter makes matching cost what the
// candidates cost rather than the file: extracting submatches over a whole
// file is the slow half of Go's regexp. Each match's indices are offsets
// into hay.
func scanAt(hay []byte, lit string, re *regexp.Regexp, window int) [][]int {
	var out [][]int
	l := []byte(lit)
	tries := 0
	for i := 0; i < len(hay) && len(out) < maxCandidates && tries < 16*maxCandidates; {
		j := bytes.Index(hay[i:], l)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(l)
		if at > 0 && isWord(hay[at-1]) {
			continue
		}
		tries++ // each costs up to window bytes of matching: bounded per file
		m := re.FindSubmatchIndex(hay[at:min(len(hay), at+window)])
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += at
			}
		}
		out = append(out, m)
		i = max(i, m[1])
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// atLineStart reports whether only spaces and tabs precede off on its line.
func atLineStart(b []byte, off int) bool {
	for i := off - 1; i >= 0 && b[i] != '\n'; i-- {
		if b[i] != ' ' && b[i] != '\t' {
			return false
		}
	}
	return true
}

// callsOf finds calls of name in blanked code — `name(` not preceded by a
// word character or a dot (ctor false), or `new name(` (ctor true) — and
// returns the offset of each opening parenthesis. Literal search, no
// regexp: it runs once per imported binding per file.
func callsOf(code []byte, name string, ctor bool) []int {
	var out []int
	n := []byte(name)
	for i := 0; i < len(code) && len(out) < maxCandidates; {
		j := bytes.Index(code[i:], n)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(n)
		if at > 0 && (isWord(code[at-1]) || code[at-1] == '.' && !strings.Contains(name, ".")) {
			continue
		}
		if i < len(code) && isWord(code[i]) {
			continue
		}
		k := i
		for k < len(code) && (code[k] == ' ' || code[k] == '\t' || code[k] == '\n' || code[k] == '\r') {
			k++
		}
		if k < len(code) && code[k] == '<' {
			k = skipBalanced(code, k, '<', '>') // TypeScript type arguments: proxyActivities<typeof a>(...)
		}
		if k < len(code) && code[k] == '[' {
			k = skipBalanced(code, k, '[', ']') // Python generics: Agent[Deps, Output](...)
			for k < len(code) && (code[k] == ' ' || code[k] == '\t') {
				k++
			}
		}
		if k >= len(code) || code[k] != '(' || ctor && !afterNew(code, at) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// skipBalanced is the offset just past the close that balances the open at
// k, looking at most 256 bytes ahead (where it stops if none does).
func skipBalanced(code []byte, k int, open, close byte) int {
	depth, end := 0, min(len(code), k+256)
	for ; k < end; k++ {
		if code[k] == open {
			depth++
		} else if code[k] == close {
			if depth--; depth == 0 {
				return k + 1
			}
		}
	}
	return k
}

// afterNew: the word at offset at follows the keyword new (new Anthropic).
func afterNew(code []byte, at int) bool {
	b := at
	for b > 0 && (code[b-1] == ' ' || code[b-1] == '\t' || code[b-1] == '\n') {
		b--
	}
	return b >= 3 && string(code[b-3:b]) == "new" && (b <= 3 || !isWord(code[b-4])) && b != at
}

// python: `#` comments; strings with their prefixes (r, b, u, f and
// pairs); triple quotes, which span lines; f-strings, whose {…} fields may
// hold strings of the same quote (Python 3.12) without ending the outer one.
func (lx *lexer) python() {
	out, n := lx.out, len(lx.out)
	for i := 0; i < n; {
		c := out[i]
		switch {
		case c == '#':
			i = lx.lineComment(i)
		case c == '"' || c == '\'':
			i = lx.pyTop(i, false)
		case isWord(c):
			j := i
			for j < n && isWord(out[j]) {
				j++
			}
			if j < n && (out[j] == '"' || out[j] == '\'') && pyPrefix(out[i:j]) {
				i = lx.pyTop(j, bytes.ContainsAny(out[i:j], "fF"))
			} else {
				i = j
			}
		default:
			i++
		}
	}
}

// pyPrefix: a string prefix (r, b, u, f, rb, br, fr, rf in any case).
func pyPrefix(w []byte) bool {
	if len(w) == 0 || len(w) > 2 {
		return false
	}
	for _, c := range w {
		switch c | 0x20 {
		case 'r', 'b', 'u', 'f':
		default:
			return false
		}
	}
	return true
}

// pyTop lexes the string opened at i; a triple-quoted one never closed is
// read as one line.
func (lx *lexer) pyTop(i int, f bool) int {
	out, n := lx.out, len(lx.out)
	q := out[i]
	triple := i+2 < n && out[i+1] == q && out[i+2] == q
	if triple && lx.unclosed[kTriple] {
		return lx.quoted(i, q, true)
	}
	e, ok := lx.pyString(i, q, triple, f, !triple, 0)
	if !ok && triple {
		return lx.unclosedAt(kTriple, i)
	}
	return e
}

// maxFieldDepth bounds f-strings nested in f-string fields.
const maxFieldDepth = 8

// pyString blanks the string opened at i by quote q; ok is false when a
// triple-quoted string (or one nested in its fields) reaches the end. line:
// it is, or is nested in, a one-line string, so it ends at the line.
func (lx *lexer) pyString(i int, q byte, triple, f, line bool, depth int) (int, bool) {
	out, n := lx.out, len(lx.out)
	j := i + 1
	if triple {
		j = i + 3
	}
	for j < n {
		c := out[j]
		switch {
		case c == '\n' && line:
			return j, true
		case c == '\\' && j+1 < n && (!line || out[j+1] != '\n'):
			space(out, j)
			space(out, j+1)
			j += 2
		case c == q && !triple:
			return j + 1, true
		case c == q && j+2 < n && out[j+1] == q && out[j+2] == q:
			return j + 3, true
		case f && c == '{' && j+1 < n && out[j+1] == '{':
			space(out, j)
			space(out, j+1)
			j += 2
		case f && c == '{' && depth < maxFieldDepth:
			var ok bool
			if j, ok = lx.pyField(j+1, line, depth+1); !ok {
				return j, false
			}
		default:
			space(out, j)
			j++
		}
	}
	return j, line
}

// pyField blanks an f-string's replacement field from j (just past its
// `{`) through its closing `}`, strings inside it included. In a one-line
// f-string it ends at the line.
func (lx *lexer) pyField(j int, line bool, depth int) (int, bool) {
	out, n := lx.out, len(lx.out)
	space(out, j-1)
	nest := 0
	for j < n {
		c := out[j]
		switch {
		case c == '\n' && line:
			return j, true
		case c == '"' || c == '\'':
			k := j
			for k > 0 && isWord(out[k-1]) {
				k--
			}
			inner := pyPrefix(lx.src[k:j]) && bytes.ContainsAny(lx.src[k:j], "fF")
			t := j+2 < n && out[j+1] == c && out[j+2] == c
			e, ok := lx.pyString(j, c, t, inner, line || !t, depth)
			space(out, j)
			lx.blankRange(j, min(e, n))
			if !ok {
				return e, false
			}
			j = e
		case c == '{' || c == '[' || c == '(':
			nest++
			space(out, j)
			j++
		case c == '}' && nest == 0:
			space(out, j)
			return j + 1, true
		case c == '}' || c == ']' || c == ')':
			nest--
			space(out, j)
			j++
		default:
			space(out, j)
			j++
		}
	}
	return j, line
}

// csharp: // and /* */ comments, "…" strings and '…' chars with escapes
// (one line, $"…" interpolated included), @"…" verbatim strings (lines
// allowed, "" a quote, no escapes; $@ and @$ too) and C# 11 raw strings,
// opened by three or more quotes and closed by as many.
func (lx *lexer) csharp() {
	out, n := lx.out, len(lx.out)
	for i := 0; i < n; {
		c := out[i]
		switch {
		case c == '/' && i+1 < n && out[i+1] == '/':
			i = lx.lineComment(i)
		case c == '/' && i+1 < n && out[i+1] == '*':
			i = lx.blockComment(i)
		case c == '"' && i+2 < n && out[i+1] == '"' && out[i+2] == '"':
			i = lx.csRaw(i)
		case c == '"' && i > 0 && (out[i-1] == '@' || (out[i-1] == '$' && i > 1 && out[i-2] == '@')):
			i = lx.csVerbatim(i)
		case c == '"' || c == '\'':
			i = lx.quoted(i, c, true)
		default:
			i++
		}
	}
}

// csVerbatim blanks a verbatim string from its opening quote at i.
func (lx *lexer) csVerbatim(i int) int {
	if lx.unclosed[kVerbatim] {
		return lx.quoted(i, '"', false)
	}
	out, n := lx.out, len(lx.out)
	for j := i + 1; j < n; j++ {
		if out[j] == '"' {
			if j+1 < n && out[j+1] == '"' {
				space(out, j)
				space(out, j+1)
				j++
				continue
			}
			return j + 1
		}
		space(out, j)
	}
	return lx.unclosedAt(kVerbatim, i)
}

// csRaw blanks a raw string literal: a run of k ≥ 3 quotes, closed by the
// next run of k.
func (lx *lexer) csRaw(i int) int {
	n := len(lx.out)
	k := 0
	for i+k < n && lx.out[i+k] == '"' {
		k++
	}
	if lx.unclosed[kTriple] {
		return lx.lineComment(i + k)
	}
	closer := bytes.Repeat([]byte{'"'}, k)
	if j := bytes.Index(lx.src[i+k:], closer); j >= 0 {
		lx.blankRange(i+k, i+k+j)
		return i + k + j + k
	}
	return lx.unclosedAt(kTriple, i+k-1)
}
