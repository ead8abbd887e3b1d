package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Loops that ask the model again until its answer can be used, with no
// exception in sight: a loop over numbered tries whose block calls a model
// and leaves once the answer parses —
//
//	for attempt in [0, 1, 2]:
//	    reply = chat_llm(prompt)
//	    match = re.search(PATTERN, reply)
//	    if match is not None:
//	        break
//
//	reply = await llm(convo)
//	for i in range(MAX_REVIEW_RETRIES):
//	    if complete(reply):
//	        break
//	    convo.user(complaint)
//	    reply = await llm(convo)
//
// — one generation per try (one more when the first answer is asked for on
// the line above the loop). The counted loops of handloops.go want a try and
// an except; these have none: an answer that does not parse raises
// nothing. Found in Python: `for … in range(N)` or over a literal tuple or
// list, the counter or the bound named for retries or attempts, a block
// with no try that calls a model (an SDK's create, a completion, a helper
// named for one: chat_llm, ask_gpt) and has a way out (break or return).
// Not layers: a loop over tries that calls no model (a lock polled three
// times), a loop over items (its counter and bound name no retry).

// pyRegenLoops finds the loops over tries that ask the model again.
func pyRegenLoops(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("for")) {
		return nil
	}
	const note = "a loop over tries that asks the model again until its answer can be used: read it to confirm it regenerates"
	var out []Layer
	for _, re := range []struct {
		tuple bool
	}{{false}, {true}} {
		loop := pyRangeLoop
		if re.tuple {
			loop = pyTupleLoop
		}
		for _, m := range scanAt(code, "for", loop, 200) {
			if !atLineStart(code, m[0]) || len(out) >= maxCandidates {
				continue
			}
			counter := string(code[m[2]:m[3]])
			bound := ""
			if !re.tuple {
				bound = string(code[m[6]:m[7]])
			}
			end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
			body := code[m[1]:end]
			if !retryCounterName(counter) && !(bound != "" && retryCounterName(bound)) && !pyAcceptsAnswer(body) {
				continue
			}
			if pyTry.Match(body) || !pyAsksModel(body) || !pyLeaves(body) {
				continue
			}
			before := 0
			if pyAsksModel(prevLine(code, m[0])) {
				before = 1 // the first answer was asked for above the loop
			}
			head := strings.TrimSpace(string(code[m[0]:m[1]]))
			if re.tuple {
				n := len(bytes.Split(code[m[4]:m[5]], []byte(","))) + before
				if n < 2 || n > 1000 {
					continue
				}
				out = append(out, regenLayer(handRolled(f.rel, f.lines().at(m[0]), n, head, "python", note)))
				continue
			}
			start := 0
			if m[4] >= 0 {
				start, _ = strconv.Atoi(string(code[m[4]:m[5]]))
			}
			offset := before - start
			if m[8] >= 0 {
				offset++
			}
			if l, ok := loopLayer(f, m[0], bound, offset, head, "python", note); ok {
				out = append(out, regenLayer(l))
			}
		}
	}
	return out
}

// pyAcceptsAnswer: a block asks the model for an answer and leaves as soon
// as it has one — `r = llm(…)` then `if r:` (or `if r.text:`, `if r is
// not None:`, `if valid(r):`) followed by break or return — so the loop's
// other turns are tries again, whatever its counter is called (`for _ in
// range(3):`). A loop that keeps every answer (results.append(r)) and
// leaves on a count is a batch, not this.
func pyAcceptsAnswer(body []byte) bool {
	n := 0
	for _, m := range pyAnswerAssign.FindAllSubmatchIndex(body, 8) {
		if !pyAsksModel(body[m[4]:m[5]]) {
			continue
		}
		if n++; n > 4 {
			break
		}
		name := regexp.QuoteMeta(string(body[m[2]:m[3]]))
		accept := regexp.MustCompile(`(?m)^[ \t]*if\s+(?:[\w.]+\(\s*)?` + name + `\b[\w.\[\]]*\s*(?:is\s+not\s+None\s*)?\)?\s*:\s*(?:\n[ \t]*)?(?:break|return)\b`)
		if accept.Match(body[m[1]:]) {
			return true
		}
	}
	return false
}

// pyAnswerAssign: `name = …` on one line (groups: the name, the value).
var pyAnswerAssign = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)\s*=\s*([^=\n][^\n]*)$`)

// pyAsksModel: code calls a model — an SDK's create or stream, a
// completion, an invoke, or a helper named for one.
func pyAsksModel(code []byte) bool {
	return pyLLMCall.Match(code) || pyModelHelper.Match(code)
}

// pyLeaves: a block has a way out — a break, or a return.
func pyLeaves(body []byte) bool {
	for _, w := range [][]byte{[]byte("break"), []byte("return")} {
		for i := 0; i < len(body); {
			j := bytes.Index(body[i:], w)
			if j < 0 {
				break
			}
			at := i + j
			if (at == 0 || !isIdentByte(body[at-1])) && (at+len(w) == len(body) || !isIdentByte(body[at+len(w)])) {
				return true
			}
			i = at + len(w)
		}
	}
	return false
}

// prevLine is the nearest line above the one holding at that is not
// blank.
func prevLine(code []byte, at int) []byte {
	for end := lineStartBefore(code, at); end > 0; {
		start := lineStartBefore(code, end-1)
		line := code[start : end-1]
		end = start
		if len(bytes.TrimSpace(line)) > 0 {
			return line
		}
	}
	return nil
}

// regenLayer marks a loop layer as a regeneration: it asks again on an
// answer it cannot use, not on an error, so a 400 is not sent again.
func regenLayer(l Layer) Layer {
	l.Retries4xx = false
	return l
}
