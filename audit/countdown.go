package audit

import (
	"regexp"
	"strings"
)

// Retries counted down: a loop whose tries are a budget spent one at a
// time, the loop left when it is gone —
//
//	remaining_retries = max_retries
//	while True:
//	    if remaining_retries == 0:
//	        raise APIError(last_error)
//	    remaining_retries -= 1
//	    try:
//	        return await self._make_request(convo)
//	    except (openai.APIConnectionError, anthropic.APIConnectionError):
//	        continue
//
// — max_retries tries (its parameter's default, 3), one more when the test
// is `< 0` (the budget spent before it is tested). The counted loops count
// up (`attempt += 1`, handloops.go); this one counts down. Found in Python:
// a while loop whose block takes 1 from a name that counts retries,
// attempts or tries (`try_times`, `remaining_retries`) and leaves when it
// reaches nothing (`if n <= 0:`, `== 0`, `< 1`, `not n`), that name given a
// start above the loop (a literal, or a name resolved as any bound), the
// block trying a model call or catching an SDK's errors. Not layers: a
// countdown of items or of pages (no retry in its name), one with no model
// call and no SDK error in sight.

var (
	pyAnyWhile  = regexp.MustCompile(`^while\b[^\n]*:`)
	pyDecrement = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_][\w.]*)\s*(?:-=\s*1|=\s*([A-Za-z_][\w.]*)\s*-\s*1)\s*$`)
	// pySDKError: an exception of a model SDK, caught by name.
	pySDKError = regexp.MustCompile(`\b(?:openai|anthropic|groq|litellm|mistralai|cohere)\.\w*(?:Error|Exception)\b|\b(?:RateLimitError|APIConnectionError|APITimeoutError|APIStatusError|InternalServerError|ServiceUnavailableError)\b`)
)

// countdownName: a name that counts tries left — retries, attempts or
// tries in any spelling (try_times, tries_left, remaining_retries).
func countdownName(name string) bool {
	n := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
	return retryCounterName(n) || strings.Contains(n, "tries") || strings.HasPrefix(n, "try_") || strings.HasSuffix(n, "_try")
}

// pyCountdownLoops finds the while loops that spend a budget of tries.
func pyCountdownLoops(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	const note = "a loop that spends a budget of tries one at a time and stops when none is left: read it to confirm it retries the call"
	for _, m := range scanAt(code, "while", pyAnyWhile, 200) {
		if !atLineStart(code, m[0]) || len(out) >= maxCandidates {
			continue
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		body := code[m[1]:end]
		if !pyTry.Match(body) && !pyAsksModel(body) || !pyAsksModel(body) && !pySDKError.Match(body) && !(pyTry.Match(body) && apiCall.Match(body)) {
			continue // neither a model call nor an SDK's error; nor an HTTP call tried (issue 37, round 8)
		}
		for _, d := range pyDecrement.FindAllSubmatch(body, 8) {
			name := string(d[1])
			if len(d[2]) > 0 && string(d[2]) != name || !countdownName(name) {
				continue
			}
			q := regexp.QuoteMeta(name)
			ti := regexp.MustCompile(`\bif\s+(?:not\s+` + q + `\s*:|` + q + `\s*(<=\s*0|==\s*0|<\s*1|<\s*0)\s*:)`).FindSubmatchIndex(body)
			if ti == nil {
				// The test in the loop's head (`while retry > 0:`, issue
				// 37 round 8): tested before each try, start tries.
				if l, ok := pyWhileHeadCountdown(f, m[0], m[1], name, note); ok {
					if pyOnlyRetryableHandlers(f, m[1], end) {
						l.Retries4xx = false
					}
					out = append(out, l)
					break
				}
				continue
			}
			test := [][]byte{body[ti[0]:ti[1]], nil}
			if ti[2] >= 0 {
				test[1] = body[ti[2]:ti[3]]
			}
			start, ok := pyCountdownStart(code, m[0], name)
			if !ok {
				continue
			}
			offset := 0
			if strings.HasPrefix(strings.ReplaceAll(string(test[1]), " ", ""), "<0") {
				offset = 1 // spent, then tested: one try more than the start
			}
			if triedBefore(body, ti[0]) {
				// Tested in the handler, after the call was tried (rt5 F5):
				// the try that finds the budget gone is one more — start 3,
				// `if remaining_retries <= 0: raise` in the except, 4 tries.
				offset++
			}
			head := strings.TrimSpace(string(code[m[0]:m[1]]))
			if l, ok := loopLayer(f, m[0], start, offset, head+" ("+name+" counted down from "+start+")", "python", note); ok {
				if pyOnlyRetryableHandlers(f, m[1], end) {
					l.Retries4xx = false // it goes on only after a connection error, a timeout, a rate limit or a 5xx
				}
				out = append(out, l)
			}
			break
		}
	}
	return out
}

// triedBefore: the loop's block tries the model call (or, with none in
// sight, enters its except) before the test at at.
func triedBefore(body []byte, at int) bool {
	call := -1
	for _, re := range []*regexp.Regexp{pyLLMCall, pyModelHelper} {
		if m := re.FindIndex(body); m != nil && (call < 0 || m[0] < call) {
			call = m[0]
		}
	}
	if call < 0 {
		if m := pyExceptWord.FindIndex(body); m != nil {
			call = m[0] // no call in sight: the except stands in
		}
	}
	return call >= 0 && call < at
}

var pyExceptWord = regexp.MustCompile(`\bexcept\b`)

// pyCountdownStart is the expression name is given on the nearest line
// above the loop at at, within its function: a literal or a name.
func pyCountdownStart(code []byte, at int, name string) (string, bool) {
	assign := regexp.MustCompile(`^[ \t]*` + regexp.QuoteMeta(name) + `\s*(?::\s*int\s*)?=\s*([0-9][0-9_]*(?:\s*\*\*\s*[0-9]+)?|[A-Za-z_][\w.]*)\s*$`)
	m, _, ok := pyAssignAbove(code, at, assign)
	if !ok {
		return "", false
	}
	return string(m[1]), true
}

// pyAssignAbove walks up from the loop at at to the nearest line assign
// matches, within the loop's function (a line less indented that is the
// function's or class's head, or at column 0, ends the walk; 200 lines at
// most): its submatches and the line's offset.
func pyAssignAbove(code []byte, at int, assign *regexp.Regexp) ([][]byte, int, bool) {
	ind := indentAt(code, at)
	for ls, n := lineStartBefore(code, at), 0; ls > 0 && n < 200; n++ {
		ls = lineStartBefore(code, ls-1)
		le := ls
		for le < len(code) && code[le] != '\n' {
			le++
		}
		line := code[ls:le]
		t := strings.TrimSpace(string(line))
		if t == "" {
			continue
		}
		if li := lineIndent(code, ls); li < ind && (li == 0 || strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") || strings.HasPrefix(t, "class ")) {
			return nil, 0, false // the loop's function starts above
		}
		if m := assign.FindSubmatch(line); m != nil {
			return m, ls, true
		}
	}
	return nil, 0, false
}

// countsDown: a block takes 1 from a name that counts tries (its loop is
// bounded by the budget, pyCountdownLoops's, not a loop with no count).
func countsDown(body []byte) bool {
	for _, d := range pyDecrement.FindAllSubmatch(body, 8) {
		if name := string(d[1]); (len(d[2]) == 0 || string(d[2]) == name) && countdownName(name) {
			return true
		}
	}
	return false
}

// pyRetryableError: an exception that names a failure worth another try —
// a connection error, a timeout, a rate limit, a server's 5xx — never a
// status error in general (openai.APIStatusError holds a 400).
var pyRetryableError = regexp.MustCompile(`^(?:[A-Za-z_]\w*\.)*(?:RateLimit|APIConnection|APITimeout|Timeout|Connection|InternalServer|ServiceUnavailable|Overloaded)\w*(?:Error|Exception)$`)

// pyOnlyRetryableHandlers: the block [a, b) has handlers and every one of
// them names only retryable errors (no bare except, no Exception).
func pyOnlyRetryableHandlers(f *file, a, b int) bool {
	hs, _ := f.handlers()
	seen := false
	for _, h := range hs {
		if h.at < a || h.at >= b {
			continue
		}
		seen = true
		c := strings.TrimSpace(string(h.clause))
		if i := strings.Index(c, " as "); i >= 0 {
			c = c[:i]
		}
		c = strings.Trim(strings.TrimSpace(c), "():")
		if c == "" {
			return false
		}
		for _, n := range strings.Split(c, ",") {
			if !pyRetryableError.MatchString(strings.TrimSpace(n)) {
				return false
			}
		}
	}
	return seen
}

// pyWhileHeadCount: a while head that tests a count against nothing left
// (`while retry > 0:`, `while tries >= 1:`, `while remaining:`;
// `>= 0` runs once more).
var pyWhileHeadCount = regexp.MustCompile(`^while\s+([A-Za-z_][\w.]*)\s*(?:(>\s*0|>=\s*1|!=\s*0|>=\s*0)\s*)?:`)

// pyWhileHeadCountdown is the layer of the while loop at [at, headEnd)
// whose head tests name, the count its block takes 1 from: its start
// above the loop, or the parameter of that name.
func pyWhileHeadCountdown(f *file, at, headEnd int, name, note string) (Layer, bool) {
	code := f.blanked()
	m := pyWhileHeadCount.FindSubmatch(code[at:headEnd])
	if m == nil || string(m[1]) != name {
		return Layer{}, false
	}
	offset := 0
	if strings.ReplaceAll(string(m[2]), " ", "") == ">=0" {
		offset = 1
	}
	start, ok := pyCountdownStart(code, at, name)
	if !ok {
		start = name // a parameter's default, resolved as any bound
	}
	head := strings.TrimSpace(string(code[at:headEnd]))
	return loopLayer(f, at, start, offset, head+" ("+name+" counted down from "+start+")", "python", note)
}
