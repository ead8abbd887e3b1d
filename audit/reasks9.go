package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Re-asks of an unusable answer (issue 37, round 9's misses): the model
// asked again because what it answered could not be used — a layer that
// re-sends the call on a good HTTP response, invisible to a reader who
// looks for retries of errors:
//
//   - the AI SDK's `experimental_repairText`: a generateObject whose
//     answer does not parse hands it to a function that, when it asks a
//     model to fix the JSON, sends one more call (firecrawl's two);
//   - a counted loop that asks the model, parses in a try, and feeds the
//     parse error back into the next question (`err += str(e)` in the
//     except, `err` read before the next ask: ragflow's gen_json).
//
// Neither sends a 400 again: the question changes with the error.

// reaskLayer9 is the layer of a re-ask of attempts tries.
func reaskLayer9(rel string, line, attempts int, setting, group, note string) Layer {
	l := handRolled(rel, line, attempts, setting, group, note)
	l.DefaultID, l.Library = "reask", "re-ask of an unusable answer"
	l.Retries4xx = false
	return l
}

var jsRepairText = regexp.MustCompile(`\b(?:experimental_)?repairText\s*:`)

// jsRepairTexts: an `experimental_repairText:` function that asks a
// model: one more call when the answer does not parse.
func jsRepairTexts(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range jsRepairText.FindAllIndex(code, maxCandidates) {
		// The function's body: the first brace after the property, within
		// its head (`async ({ text, error }) => {` or `function (…) {`).
		head := code[m[1]:min(len(code), m[1]+maxArgBytes)]
		arrow := bytes.Index(head, []byte("=>"))
		fn := bytes.Index(head, []byte("function"))
		at := -1
		switch {
		case arrow >= 0 && (fn < 0 || arrow < fn):
			at = m[1] + arrow + 2
		case fn >= 0:
			at = m[1] + fn
		default:
			continue // a name (experimental_repairText: repair): its function is elsewhere
		}
		open := bytes.IndexByte(code[at:min(len(code), at+maxArgBytes)], '{')
		if open < 0 {
			continue
		}
		end := closeOf(code, at+open, maxLoopBodyBytes)
		if end < 0 {
			continue
		}
		if !modelCallJS.Match(code[at+open : end]) {
			continue // a repair by string surgery asks nothing
		}
		out = append(out, reaskLayer9(f.rel, f.lines().at(m[0]), 2, strings.TrimSpace(string(code[m[0]:m[1]]))+" asks a model to fix the answer (one more call)", "javascript",
			"the model asked once more when its answer does not parse: read it to confirm the repair asks a model"))
	}
	return out
}

var pyErrFeed = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)\s*\+?=\s*[^\n]*`)

// pyErrorReasks: `for _ in range(N):` that asks a model, parses in a
// try that returns, and whose except stores the error (err += str(e)) in
// a name the loop reads again before its next ask.
func pyErrorReasks(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("except")) {
		return nil
	}
	hs, _ := f.handlers()
	var out []Layer
	for _, m := range scanAt(code, "for", pyRangeLoop, 200) {
		if !atLineStart(code, m[0]) {
			continue
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		body := code[m[1]:end]
		if !pyAsksModel(body) && !callsModelNamed(body) {
			continue
		}
		for _, h := range hs {
			if h.tryAt < m[1] || h.at >= end || pyHandlerExits(code, h, "") {
				continue
			}
			ex := pyExceptVar(h.clause)
			if ex == "" || !succeedsRe.Match(code[h.tryAt:h.at]) {
				continue
			}
			fed := ""
			for _, a := range pyErrFeed.FindAllSubmatchIndex(h.body, 8) {
				if wordIn(h.body[a[0]:a[1]], ex) {
					fed = string(h.body[a[2]:a[3]])
					break
				}
			}
			// The stored error is read before the model is asked again:
			// in the loop, ahead of the try.
			// Read with its strings: the error goes back in an f-string.
			if fed == "" || fed == ex || !wordIn(f.readable()[m[1]:h.tryAt], fed) || !pyAsksModel(code[m[1]:h.tryAt]) && !callsModelNamed(code[m[1]:h.tryAt]) {
				continue
			}
			start := 0
			if m[4] >= 0 {
				start, _ = strconv.Atoi(string(code[m[4]:m[5]]))
			}
			offset := -start
			if m[8] >= 0 {
				offset++
			}
			if l, ok := loopLayer(f, m[0], string(code[m[6]:m[7]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), "python",
				"the model asked again with its parse error: read it to confirm"); ok {
				l.DefaultID, l.Library, l.Retries4xx = "reask", "re-ask of an unusable answer", false
				l.Setting += " (the error fed back in " + fed + ")"
				out = append(out, l)
			}
			break
		}
	}
	return out
}
