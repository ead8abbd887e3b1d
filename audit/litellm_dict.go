package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// LiteLLM's num_retries put in the keyword dictionary a completion is
// called with (issue 37, round 9): `args.setdefault("num_retries",
// self.max_retries)` or `args["num_retries"] = 3`, then
// `litellm.acompletion(**args)`. The layer is where the dictionary gets its
// count, with the value resolved as any bound is (values.go); a count of 0
// is none.

// pyDictNumRetries: a dictionary given num_retries by item assignment or
// setdefault, read raw (the key is a string the lexer blanks). Groups: the
// dictionary, the value.
var pyDictNumRetries = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*(?:\[\s*["']num_retries["']\s*\]\s*=\s*|\.setdefault\(\s*["']num_retries["']\s*,\s*)([0-9][0-9_]*|[A-Za-z_][\w.]*)`)

func litellmDictRetries(f *file) []Layer {
	if !bytes.Contains(f.raw, []byte("num_retries")) {
		return nil
	}
	code := f.blanked()
	spread := map[string]bool{}
	for _, o := range pyCallsOf(f, "litellm", "completion", "acompletion", "text_completion", "responses", "aresponses") {
		a, b := args(code, o)
		for _, p := range splitTop(code[a:b]) {
			if t := bytes.TrimSpace(p); bytes.HasPrefix(t, []byte("**")) && isName(string(t[2:])) {
				spread[string(t[2:])] = true
			}
		}
	}
	if len(spread) == 0 || len(code) != len(f.raw) {
		return nil
	}
	var out []Layer
	for _, m := range around(f.raw, "num_retries", pyDictNumRetries, 120, 120) {
		if code[m[0]] == ' ' || !spread[string(f.raw[m[2]:m[3]])] {
			continue // in a string or a comment, or a dictionary no completion spreads
		}
		line := f.lines().at(m[0])
		expr := string(f.raw[m[4]:m[5]])
		written := strings.TrimSpace(string(f.raw[m[0]:m[1]])) + ")"
		if !strings.Contains(written, "setdefault") {
			written = strings.TrimSuffix(written, ")")
		}
		l := newLayer("litellm", f.rel, line, "python", ConfidenceMedium)
		l.Note = "the dictionary a litellm completion is called with (**" + string(f.raw[m[2]:m[3]]) + "): the first call also passes num_retries to the provider client as max_retries"
		if n, ok := atoiBounded(expr); ok {
			if n == 0 {
				continue // no retries
			}
			l.set(n, written)
		} else if r, ok := f.resolveAt(expr, line); ok {
			if r.n == 0 {
				continue
			}
			l.set(r.n, written+" ("+r.text(f.rel)+")")
		} else {
			continue // a count no line gives: not reported on a guess
		}
		out = append(out, l)
	}
	return out
}
