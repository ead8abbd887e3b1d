package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// A function that calls itself again from its error handler, passing on
// a count of tries left (issue 37, round 8: skyvern's two Bitwarden
// lookups, missed) —
//
//	async def get_identity(…, remaining_retries: int = 3):
//	    try:
//	        …
//	    except Exception as e:
//	        if remaining_retries <= 0:
//	            raise LookupFailed(…)
//	        remaining_retries -= 1
//	        await asyncio.sleep(backoff)
//	        return await Service.get_identity(…, remaining_retries=remaining_retries)
//
// — is a layer of the count's start + 1 tries (the start is the
// parameter's default, or what the file's calls pass, resolved as any
// bound). The count is named for tries (retries, attempts, tries), taken
// down by one in the handler or in the call (`remaining_retries - 1`), and
// tested against nothing left in the handler before the call (`<= 0`,
// `< 1`, `== 0`, `not n`) by a guard that raises or returns. A handler of
// a rate limit is the rate-limit rule's (ratelimitself.go). Python.

// pySelfCallReturn: `return [await] [self.|cls.|Class.]name(` on a line of
// its own.
var pySelfCallReturn = regexp.MustCompile(`(?m)^[ \t]*(return\s+(?:await\s+)?(?:(?:self|cls|[A-Z]\w*)\s*\.\s*)?([A-Za-z_]\w*)\s*\()`)

var pyCountLeftGuard = `\bif\s+(?:not\s+%[1]s\s*:|%[1]s\s*(?:<=\s*0|<\s*1|==\s*0)\s*:)`

func pySelfCountdowns(f *file) []Layer {
	if !f.contains("return") || !f.contains("except") {
		return nil
	}
	code := f.blanked()
	hs, _ := f.handlers()
	var out []Layer
	const note = "a function that calls itself again from its error handler, counting down the tries left: read it to confirm it re-sends the call"
	for _, h := range hs {
		if len(out) >= maxCandidates {
			break
		}
		if rateLimitWord.Match(h.clause) {
			continue
		}
		bodyA := h.end - len(h.body)
		for _, m := range pySelfCallReturn.FindAllSubmatchIndex(h.body, 4) {
			at := bodyA + m[2]
			name := string(h.body[m[4]:m[5]])
			ind := indentAt(code, at)
			if _, ok := pyEnclosingDef(code, at, ind, name); !ok {
				continue
			}
			a, b := args(code, bodyA+m[1]-1)
			if b <= a {
				continue
			}
			callArgs := code[a:b]
			counter := ""
			for _, w := range condName.FindAll(callArgs, 64) {
				if countdownName(string(w)) && !bytes.Contains(callArgs, append(append([]byte{}, w...), '(')) {
					counter = string(w)
					break
				}
			}
			if counter == "" {
				continue
			}
			q := regexp.QuoteMeta(counter)
			before := code[bodyA:at]
			takenDown := regexp.MustCompile(`\b`+q+`\s*(?:-=\s*1\b|=\s*`+q+`\s*-\s*1\b)`).Match(before) ||
				regexp.MustCompile(`\b`+q+`\s*-\s*1\b`).Match(callArgs)
			guard := regexp.MustCompile(strings.ReplaceAll(pyCountLeftGuard, "%[1]s", q)).FindIndex(before)
			if !takenDown || guard == nil || !pyGuardLeaves(before[guard[1]:]) {
				continue
			}
			l, ok := loopLayer(f, at, counter, 1, "return "+name+"(…) again from the handler ("+counter+" counted down, tested <= 0) ", "python", note)
			if !ok {
				continue
			}
			l.Line = f.lines().at(h.at)
			l.Retries4xx = pyBroadExcept.Match(h.clause)
			out = append(out, l)
			break
		}
	}
	return out
}

// pyGuardLeaves: the guard's block (code after its colon) raises or
// returns first.
func pyGuardLeaves(after []byte) bool {
	t := bytes.TrimLeft(after, " \t\r\n")
	return bytes.HasPrefix(t, []byte("raise")) || bytes.HasPrefix(t, []byte("return"))
}
