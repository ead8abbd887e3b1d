package audit

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// BullMQ: a job's attempts, where it is added or in its queue's
// defaultJobOptions, often a constant defined in another file
// (jsConstants, resolved by resolveConstants once every file is read).

var (
	jsQueueAdd = regexp.MustCompile(`\.add(?:Bulk)?\s*\(`)
	// TypeScript's type arguments allowed: new Queue<Jobs[Name.X]>(…).
	jsNewQueue = regexp.MustCompile(`\bnew\s+Queue\s*(?:<[^;()]{0,200}?>\s*)?\(`)
	jsBackoff  = regexp.MustCompile(`\bbackoff\s*:\s*\{([^}]*)\}`)
	jsDelay    = regexp.MustCompile(`\bdelay\s*:\s*([0-9_]+)`)
	jsExpType  = regexp.MustCompile(`\btype\s*:\s*['"]exponential['"]`)
)

// bullmq: a job's attempts are set where it is added, often in a file that
// never imports bullmq; trust the shape when the file or a manifest of the
// repository names bullmq.
func bullmq(f *file) []Layer {
	usesBull := f.vs.declares("npm", "bullmq")
	for _, b := range f.jsImports() {
		usesBull = usesBull || b.module == "bullmq"
	}
	if !usesBull {
		return nil
	}
	var out []Layer
	for _, re := range []*regexp.Regexp{jsQueueAdd, jsNewQueue} {
		for _, m := range re.FindAllIndex(f.blanked(), maxCandidates) {
			if l, ok := bullOptions(f, m[1]-1, re == jsNewQueue); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

// bullOptions is the layer of a queue's or a job's options, the call's
// parenthesis at open.
func bullOptions(f *file, open int, queue bool) (Layer, bool) {
	code, ln := f.blanked(), f.lines()
	a, e := args(code, open)
	region := code[a:e]
	v, ok, num, at := intKnob(jsAttempts, region)
	if !ok {
		// The options are a constant: defaultJobOptions: NAME, a spread
		// ...NAME, or .add(name, data, NAME). It is resolved once every
		// file is read (resolveConstants); only defaultJobOptions is a
		// layer when it cannot be.
		name, at, sure := bullOptionsConst(region, queue)
		if name == "" {
			return Layer{}, false
		}
		l := newLayer("bullmq", f.rel, ln.at(a+at), "javascript", ConfidenceLow)
		l.setUnknown(snippet(region, at))
		l.fromConst, l.constRequired = name, sure
		l.Backoff = bullBackoff(f.raw[a:e])
		return l, true
	}
	l := newLayer("bullmq", f.rel, ln.at(a+at), "javascript", ConfidenceMedium)
	switch {
	case num:
		l.setAttempts(v, snippet(region, at))
	default:
		if fb, ok := fallbackLiteral(region[at:]); ok {
			// attempts: opts?.attempts || 3 — the literal is what a
			// caller that passes nothing gets.
			l.setAttempts(fb, snippet(region, at))
			l.Note = fmt.Sprintf("an expression with a fallback: %d attempts when the caller passes none", fb)
		} else {
			l.setUnknown(snippet(region, at))
		}
	}
	l.Backoff = bullBackoff(f.raw[a:e])
	return l, true
}

// bullBackoff reads a job's backoff option: { type: "exponential" | "fixed", delay: ms }.
func bullBackoff(raw []byte) string {
	bm := jsBackoff.FindSubmatch(raw)
	if bm == nil {
		return "none"
	}
	dm := jsDelay.FindSubmatch(bm[1])
	if dm == nil {
		return "none"
	}
	d, err := strconv.Atoi(strings.ReplaceAll(string(dm[1]), "_", ""))
	if err != nil {
		return "none"
	}
	if jsExpType.Match(bm[1]) {
		return "exp:" + strconv.Itoa(d) + "ms"
	}
	return "fixed:" + strconv.Itoa(d) + "ms"
}

var (
	jsFallback    = regexp.MustCompile(`^attempts\s*:\s*[^,}\n]{0,120}?(?:\|\||\?\?)\s*([0-9_]+)\s*(?:[,}\n]|$)`)
	jsDefaultOpts = regexp.MustCompile(`\bdefaultJobOptions\s*:\s*([A-Za-z_$][\w$]*)\s*(?:[,}]|$)`)
	jsSpread      = regexp.MustCompile(`\.\.\.\s*([A-Za-z_$][\w$]*)`)
	jsLastArg     = regexp.MustCompile(`,\s*([A-Za-z_$][\w$]*)\s*$`)
	jsObjConst    = regexp.MustCompile(`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;]{0,200})?=\s*\{`)
)

// fallbackLiteral reads the literal after || or ?? in an attempts value
// ("attempts: opts?.attempts || 3" → 3).
func fallbackLiteral(code []byte) (int, bool) {
	m := jsFallback.FindSubmatch(code)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.ReplaceAll(string(m[1]), "_", ""))
	return n, err == nil && n > 0 && n <= 1_000_000
}

// bullOptionsConst names the constant a queue's or job's options come
// from, where in region it is written, and whether the shape is BullMQ's
// beyond doubt (defaultJobOptions: NAME) rather than any .add(…, NAME).
func bullOptionsConst(region []byte, queue bool) (string, int, bool) {
	if m := jsDefaultOpts.FindSubmatchIndex(region); m != nil {
		return string(region[m[2]:m[3]]), m[0], true
	}
	if m := jsSpread.FindSubmatchIndex(region); m != nil {
		return string(region[m[2]:m[3]]), m[0], queue && jsDefaultOpts.Match(region)
	}
	if !queue {
		if m := jsLastArg.FindSubmatchIndex(region); m != nil {
			return string(region[m[2]:m[3]]), m[2], false
		}
	}
	return "", 0, false
}

// jsConst is an object constant with attempts: a job-options constant
// another file's queue may use.
type jsConst struct {
	file     string
	line     int
	attempts int
	written  string
	backoff  string // the constant's own backoff option, budget-layers syntax
}

// jsConstants finds `const NAME = { … attempts: N … }` in a file.
func jsConstants(rel string, raw []byte) map[string]jsConst {
	if !bytes.Contains(raw, []byte("attempts")) {
		return nil
	}
	code := blank(raw, jsSyntax)
	ln := newLines(raw)
	out := map[string]jsConst{}
	for _, m := range jsObjConst.FindAllSubmatchIndex(code, maxCandidates) {
		a, b := args(code, m[1]-1)
		v, ok, num, at := intKnob(jsAttempts, code[a:b])
		if ok && num {
			out[string(code[m[2]:m[3]])] = jsConst{file: rel, line: ln.at(a + at), attempts: v, written: snippet(code[a:b], at), backoff: bullBackoff(raw[a:b])}
		}
	}
	return out
}
