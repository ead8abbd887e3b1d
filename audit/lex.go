package audit

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Matching runs on a blanked copy of the source: comments and the contents
// of string literals become spaces (newlines kept), so a call written in a
// comment or a string is not a layer, and every offset still points at the
// same line of the original. One pass, linear in the file; Go's regexp is
// linear too (RE2), so no input makes matching slow.

type syntax struct {
	lineComment  string // "//" or "#"
	blockComment bool   // /* */
	tripleQuotes bool   // Python's ''' and """
	backticks    bool   // JS template literals, multi-line
}

var (
	jsSyntax     = syntax{lineComment: "//", blockComment: true, backticks: true}
	pySyntax     = syntax{lineComment: "#", tripleQuotes: true}
	rubySyntax   = syntax{lineComment: "#"}
	configSyntax = syntax{lineComment: "#"}
)

// blank returns src with comments and string contents replaced by spaces.
// Quotes stay, so `"report"` becomes `"      "`.
func blank(src []byte, sy syntax) []byte {
	out := bytes.Clone(src)
	n := len(out)
	lc := []byte(sy.lineComment)
	for i := 0; i < n; {
		c := out[i]
		switch {
		case len(lc) > 0 && bytes.HasPrefix(out[i:], lc):
			i = blankLineComment(out, i)
		case sy.blockComment && c == '/' && i+1 < n && out[i+1] == '*':
			i = blankBlockComment(out, i)
		case sy.tripleQuotes && (c == '"' || c == '\'') && i+2 < n && out[i+1] == c && out[i+2] == c:
			i = blankTripleQuoted(out, i, c)
		case c == '"' || c == '\'' || (sy.backticks && c == '`'):
			i = blankQuoted(out, i, c)
		default:
			i++
		}
	}
	return out
}

// space blanks one byte, keeping newlines so offsets keep their lines.
func space(out []byte, i int) {
	if out[i] != '\n' {
		out[i] = ' '
	}
}

// blankLineComment blanks from i to the end of the line. Each blank*
// returns the offset just past what it blanked.
func blankLineComment(out []byte, i int) int {
	for i < len(out) && out[i] != '\n' {
		space(out, i)
		i++
	}
	return i
}

func blankBlockComment(out []byte, i int) int {
	n := len(out)
	space(out, i)
	space(out, i+1)
	i += 2
	for i < n && !(out[i] == '*' && i+1 < n && out[i+1] == '/') {
		space(out, i)
		i++
	}
	if i < n {
		space(out, i)
		space(out, i+1)
		i += 2
	}
	return i
}

// blankChar blanks the byte at i of a string, and the next with it when it
// is a backslash escaping it.
func blankChar(out []byte, i int) int {
	if out[i] == '\\' && i+1 < len(out) {
		space(out, i)
		i++
	}
	space(out, i)
	return i + 1
}

// blankTripleQuoted blanks the inside of a Python triple-quoted string.
func blankTripleQuoted(out []byte, i int, c byte) int {
	n := len(out)
	i += 3
	for i < n && !(out[i] == c && i+2 < n && out[i+1] == c && out[i+2] == c) {
		i = blankChar(out, i)
	}
	return i + 3
}

// blankQuoted blanks the inside of a string quoted by c; only a backtick
// string goes on past its line.
func blankQuoted(out []byte, i int, c byte) int {
	n := len(out)
	i++
	for i < n && out[i] != c {
		if out[i] == '\n' && c != '`' {
			break // an unterminated string ends at its line
		}
		i = blankChar(out, i)
	}
	return i + 1
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
	raw := strings.ReplaceAll(string(code[m[2]:m[3]]), "_", "")
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 || n > 1_000_000 {
		return 0, true, false, m[0]
	}
	return n, true, true, m[0]
}

// knobRe builds the matcher for one knob name in JS (`name: N`) and Python
// (`name=N`) call arguments; the value group is a literal integer or any
// other token.
func knobRe(name string) *regexp.Regexp {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*[:=]\s*([0-9_]+|[A-Za-z_][\w.]*)`)
}

// snippet is a setting as written, for the report: one line, bounded.
func snippet(code []byte, at int) string {
	end := at
	for end < len(code) && end-at < 60 && code[end] != '\n' && code[end] != ',' && code[end] != ')' && code[end] != '}' {
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
