package audit

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Retries bounded by their backoff: a loop with no count that grows its
// delay after each failure and stops once the delay passes a cap —
//
//	retry_delay = 0.125
//	while True:
//	    try:
//	        return send(messages)
//	    except RateLimitError:
//	        retry_delay *= 2
//	        if retry_delay > RETRY_TIMEOUT:
//	            raise
//	        time.sleep(retry_delay)
//
// — tries until 0.125 × 2^k passes 60: 8 retries, 9 attempts. Its bound
// is a clock, not a counter, so neither the counted loops nor the flag
// loops (handloops.go) read it: the first has no count, the second leaves
// a loop whose except has a way out. Found in Python: a `while True:` (or
// `while 1:`) whose block tries, sleeps, multiplies a delay by a literal
// factor over 1 and compares that delay with a cap (a literal or a name
// resolved as any bound, in another file too), the delay's start a literal
// assigned above the loop. A delay capped with min(…) never passes its cap:
// that loop is not read here (nothing bounds it).

var (
	pyDelayGrow = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)\s*(?:\*=\s*([0-9]+(?:\.[0-9]+)?)|=\s*([A-Za-z_]\w*)\s*\*\s*([0-9]+(?:\.[0-9]+)?))\s*$`)
)

// pyDelayLoops finds the `while True:` retries bounded by a growing delay.
func pyDelayLoops(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range scanAt(code, "while", pyWhile, 40) {
		if !atLineStart(code, m[0]) {
			continue
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		body := code[m[1]:end]
		if !bytes.Contains(body, []byte("*")) || !bytes.Contains(body, []byte("sleep")) || !pyTry.Match(body) || !pySleep.Match(body) {
			continue // cheap refusals first: a file holds up to maxCandidates loops
		}
		g := pyDelayGrow.FindSubmatch(body)
		if g == nil {
			continue
		}
		name, factor := string(g[1]), string(g[2])
		if len(g[3]) > 0 {
			if string(g[3]) != name {
				continue // d = other * 2: not this delay growing
			}
			factor = string(g[4])
		}
		fac, err := strconv.ParseFloat(factor, 64)
		if err != nil || fac <= 1 {
			continue
		}
		cmp := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*(>=?)\s*([0-9]+(?:\.[0-9]+)?|[A-Za-z_][\w.]*)`).FindSubmatch(body)
		if cmp == nil {
			continue
		}
		start, at, ok := pyDelayStart(code, m[0], name)
		if !ok {
			continue
		}
		strict := string(cmp[1]) == ">"
		capText := string(cmp[2])
		setting := fmt.Sprintf("%s (%s = %s at line %d, × %s until it %s %s)", strings.TrimSpace(string(code[m[0]:m[1]])),
			name, strconv.FormatFloat(start, 'f', -1, 64), f.lines().at(at), factor, map[bool]string{true: "passes", false: "reaches"}[strict], capText)
		const note = "a loop that grows its delay after each failure and stops when the delay passes a cap: its tries are the doublings that fit under the cap"
		if v, err := strconv.ParseFloat(capText, 64); err == nil {
			if n, ok := delayAttempts(start, fac, v, strict); ok {
				out = append(out, handRolled(f.rel, f.lines().at(m[0]), n, setting, "python", note))
			}
			continue
		}
		if n, how, ok := loopBound(f, capText); ok {
			if a, ok := delayAttempts(start, fac, float64(n), strict); ok {
				out = append(out, handRolled(f.rel, f.lines().at(m[0]), a, setting+how, "python", note))
			}
			continue
		}
		if !isName(capText) {
			continue
		}
		// The cap is defined in another file (imported): resolveValues
		// finds it, and the attempts follow from it as here.
		l := handRolled(f.rel, f.lines().at(m[0]), 0, setting, "python", note)
		l.valueName, l.valueExpr, l.pending, l.loopPending = lastSegment(capText), capText, true, true
		l.loopDelay, l.loopFactor, l.loopStrict = start, fac, strict
		out = append(out, l)
	}
	return out
}

// pyDelayStart is the literal the delay name is given on the nearest line
// above the loop at at, within its function, and that line's offset.
func pyDelayStart(code []byte, at int, name string) (float64, int, bool) {
	assign := regexp.MustCompile(`^[ \t]*` + regexp.QuoteMeta(name) + `\s*(?::\s*float\s*)?=\s*([0-9]+(?:\.[0-9]+)?)\s*$`)
	m, ls, ok := pyAssignAbove(code, at, assign)
	if !ok {
		return 0, 0, false
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	return v, ls, err == nil && v > 0
}

// delayAttempts is the number of tries of a loop whose delay starts at
// start, is multiplied by factor after each failure, and stops the loop
// once it passes limit (strict: >, else >=): the first try, and one more
// for each grown delay still under the cap.
func delayAttempts(start, factor, limit float64, strict bool) (int, bool) {
	if start <= 0 || factor <= 1 || math.IsInf(limit, 0) || math.IsNaN(limit) {
		return 0, false
	}
	d, n := start, 1
	for n <= 1000 {
		d *= factor
		if strict && d > limit || !strict && d >= limit {
			return n, n >= 2
		}
		n++
	}
	return 0, false
}
