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
	sp := func(i int) {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	for i := 0; i < n; {
		c := out[i]
		switch {
		case sy.lineComment != "" && bytes.HasPrefix(out[i:], []byte(sy.lineComment)):
			for i < n && out[i] != '\n' {
				sp(i)
				i++
			}
		case sy.blockComment && c == '/' && i+1 < n && out[i+1] == '*':
			sp(i)
			sp(i + 1)
			i += 2
			for i < n && !(out[i] == '*' && i+1 < n && out[i+1] == '/') {
				sp(i)
				i++
			}
			if i < n {
				sp(i)
				sp(i + 1)
				i += 2
			}
		case sy.tripleQuotes && (c == '"' || c == '\'') && i+2 < n && out[i+1] == c && out[i+2] == c:
			i += 3
			for i < n && !(out[i] == c && i+2 < n && out[i+1] == c && out[i+2] == c) {
				if out[i] == '\\' && i+1 < n {
					sp(i)
					i++
				}
				sp(i)
				i++
			}
			i += 3
		case c == '"' || c == '\'' || (sy.backticks && c == '`'):
			i++
			for i < n && out[i] != c {
				if out[i] == '\n' && c != '`' {
					break // an unterminated string ends at its line
				}
				if out[i] == '\\' && i+1 < n {
					sp(i)
					i++
				}
				sp(i)
				i++
			}
			i++
		default:
			i++
		}
	}
	return out
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
