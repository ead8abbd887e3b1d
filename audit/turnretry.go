package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// Retries counted across turns: an agent that, when its generated code
// fails, hands the turn back to itself to generate again, counting the
// tries in its own state —
//
//	if self.retry_count < self.config.max_retry_count:
//	    post.send_to(self.alias)      # generate again, next turn
//	    self.retry_count += 1
//	else:
//	    self.retry_count = 0          # give up: the next task starts afresh
//
// — no loop in sight: the framework's turn loop is the loop. A layer of
// bound + 1 generations. Found in Python: an if testing an attribute
// counter named for retries or attempts below a bound (`<` or `<=`, a
// literal or a name resolved as any bound), the counter incremented in
// that if's block and reset to 0 somewhere in the file (a per-task count,
// not a metric). Not layers: a counter only read, one never reset (a
// total), one named for something else.

var pyTurnIf = regexp.MustCompile(`^(?:el)?if\s+(self\.[A-Za-z_][\w.]*)\s*(<=?)\s*([0-9]+|[A-Za-z_][\w.]*)\s*:`)

// pyTurnRetries finds the retries an agent counts in its own state.
func pyTurnRetries(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("self.")) {
		return nil
	}
	const note = "a retry counted in the agent's state across turns: the turn is handed back to generate again until the bound; read it to confirm"
	var out []Layer
	seen := map[string]bool{} // one layer per counter: each test of it is the same budget
	for _, lit := range []string{"if", "elif"} {
		for _, m := range scanAt(code, lit, pyTurnIf, 200) {
			if !atLineStart(code, m[0]) || len(out) >= maxCandidates {
				continue
			}
			name := string(code[m[2]:m[3]])
			if !retryCounterName(name) || seen[name] {
				continue
			}
			q := regexp.QuoteMeta(name)
			end := min(pyBlockEnd(code, m[0], m[1]), len(code))
			if !regexp.MustCompile(`(?m)^[ \t]*`+q+`\s*\+=\s*1\s*$`).Match(code[m[1]:end]) || !pyResetOutsideInit(code, q) {
				continue
			}
			offset := 1 // < bound: bound retries, bound + 1 generations
			if string(code[m[4]:m[5]]) == "<=" {
				offset = 2
			}
			head := strings.TrimSpace(string(code[m[0]:m[1]]))
			if l, ok := loopLayer(f, m[0], string(code[m[6]:m[7]]), offset, head, "python", note); ok {
				l.Retries4xx = false // it generates again on failed code, not on an API error
				out = append(out, l)
				seen[name] = true
			}
		}
	}
	return out
}

// pyResetOutsideInit: the counter (quoted name) is set to 0 in a method
// other than __init__ — after a success or a give-up, not only at birth.
func pyResetOutsideInit(code []byte, q string) bool {
	for _, r := range regexp.MustCompile(`(?m)^[ \t]*`+q+`\s*=\s*0\s*$`).FindAllIndex(code, 16) {
		at := r[0]
		for at < len(code) && (code[at] == ' ' || code[at] == '\t') {
			at++
		}
		if name, ok := pyDefAbove(code, at); ok && name != "__init__" {
			return true
		}
	}
	return false
}

// pyDefAbove is the name of the def holding the line at at: the nearest
// def above indented less.
func pyDefAbove(code []byte, at int) (string, bool) {
	ind := indentAt(code, at)
	for end, n := lineStartBefore(code, at), 0; end > 0 && n < 2000; n++ {
		start := lineStartBefore(code, end-1)
		line := code[start : end-1]
		end = start
		if m := pyReaskDef.FindSubmatch(line); m != nil && lineIndent(code, start) < ind {
			return string(m[1]), true
		}
	}
	return "", false
}

// pyGetterDefault: a setting read through a config getter with a literal
// default — `self.max_retry_count = self._get_int("max_retry_count", 3)`,
// `retries = cfg.getint("retries", 4)`, `x = settings.get("x", 5)`: the
// default is the value when no configuration sets it (another file's
// loop may read it: exported, values.go). Groups: the name assigned, the
// default.
var pyGetterDefault = regexp.MustCompile(`(?m)^[ \t]*(?:self\.)?([A-Za-z_]\w*)\s*(?::\s*int\s*)?=\s*[A-Za-z_][\w.]*\.\s*_?get\w*\(\s*["'][\w.\-]*["']\s*,\s*(?:default\s*=\s*)?([0-9]+)\s*\)\s*$`)

// pyGetterValues adds the config getters' defaults of a Python file to
// vi (values.go): read raw, as the keys are strings the lexer blanks,
// kept where the default's digits survived blanking (not in a string).
func pyGetterValues(f *file, vi valueIndex) {
	code, ln := f.blanked(), f.lines()
	if !bytes.Contains(f.raw, []byte("get")) {
		return
	}
	for _, m := range pyGetterDefault.FindAllSubmatchIndex(f.raw, maxCandidates) {
		if m[4] >= len(code) || code[m[4]] == ' ' {
			continue
		}
		if n, ok := atoiBounded(string(f.raw[m[4]:m[5]])); ok {
			vi.add(string(f.raw[m[2]:m[3]]), valueDef{n, ln.at(m[2]), "default of the config getter"})
		}
	}
}
