package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// A count carried through a recursion in the keyword arguments (issue 37,
// round 8: agno's retry with guidance, four times, missed) —
//
//	def _invoke_with_retry(self, **kwargs):
//	    count = kwargs.pop("retries_with_guidance_count", 0)
//	    try:
//	        return self.invoke(**kwargs)
//	    except RetryableModelProviderError as e:
//	        if count >= self.retry_with_guidance_limit:
//	            raise
//	        kwargs["retries_with_guidance_count"] = count + 1
//	        kwargs["messages"].append(guidance)
//	        return self._invoke_with_retry(**kwargs)
//
// (a generator's `yield from self._invoke_stream_with_retry(**kwargs)` or
// `async for r in …` alike) and `return self.ask(prompt, retries=kwargs.get("retries", 0) + 1)`
// under `if kwargs.get("retries", 0) < 3:` — is a layer in the handler:
// the count starts at the default read from kwargs (0), the function calls
// itself while it is under the guard's limit, so the limit + 1 tries (one
// more for a `>` guard). The limit is a literal or a name resolved as any
// bound (a class attribute's default here: 1, so 2 tries). Found in
// Python; the handler (or the if) holding the self-call is the layer's
// line. Not a layer: a count with no guard in the function (bounded by
// what this rule cannot read), a call of another function.

var (
	// kwargsBump: kwargs["k"] = x + 1 (readable: the key is kept).
	kwargsBump = regexp.MustCompile(`\bkwargs\s*\[\s*["'](\w+)["']\s*\]\s*=\s*([A-Za-z_][\w.]*)\s*\+\s*1\b`)
	// kwargsGetBump: k=kwargs.get("k", 0) + 1, passed on in the call.
	kwargsGetBump = regexp.MustCompile(`\b(\w+)\s*=\s*kwargs\.get\(\s*["'](\w+)["']\s*(?:,\s*([0-9]+)\s*)?\)\s*\+\s*1\b`)
)

func pyKwargsCountRecursions(f *file) []Layer {
	if !f.contains("kwargs") {
		return nil
	}
	code, vis := f.blanked(), f.readable()
	var out []Layer
	const note = "a function that calls itself again, counting its tries in its keyword arguments: read it to confirm the guard"
	seen := map[int]bool{}
	type bump struct {
		at       int
		key, cnt string // the key, and the count's name ("" when read from kwargs in place)
		start    int
	}
	var bumps []bump
	for _, m := range kwargsBump.FindAllSubmatchIndex(vis, maxCandidates) {
		bumps = append(bumps, bump{at: m[0], key: string(vis[m[2]:m[3]]), cnt: string(vis[m[4]:m[5]]), start: -1})
	}
	for _, m := range kwargsGetBump.FindAllSubmatchIndex(vis, maxCandidates) {
		s := 0
		if m[6] >= 0 {
			s, _ = strconv.Atoi(string(vis[m[6]:m[7]]))
		}
		bumps = append(bumps, bump{at: m[0], key: string(vis[m[4]:m[5]]), start: s})
	}
	for _, b := range bumps {
		if len(out) >= maxCandidates {
			break
		}
		line := f.lines().at(b.at)
		fa, fb, ok := enclosingFunc(f, line)
		if !ok {
			continue
		}
		name := pyReaskDef.FindSubmatch(code[fa:min(len(code), fa+300)])
		if name == nil {
			continue
		}
		fn := string(name[1])
		// The self-call passing the keywords on, after the bump.
		from := b.at
		if b.cnt == "" {
			from = lineStartBefore(code, b.at) // the bump is in the call's own arguments
		}
		rest := code[from:min(fb, from+maxArgBytes)]
		// return f(…), or a generator's yield from f(…) / async for … in f(…).
		call := regexp.MustCompile(`(?:\breturn\s+(?:await\s+)?|\byield\s+from\s+|\basync\s+for\s+\w+\s+in\s+)(?:self\.|cls\.)?` + regexp.QuoteMeta(fn) + `\s*\(`).FindIndex(rest)
		if call == nil {
			continue
		}
		callArgs := rest[call[1]:min(len(rest), call[1]+maxArgBytes)]
		if b.cnt != "" && !bytes.Contains(callArgs, []byte("**kwargs")) {
			continue
		}
		// The names the count goes by: the bumped name, what it was
		// read from (count = kwargs.pop("k", 0), current = count).
		fnText, fnVis := code[fa:fb], vis[fa:fb]
		names := []string{}
		start := b.start
		if b.cnt != "" {
			names = append(names, b.cnt)
			cur := b.cnt
			for range 3 {
				q := regexp.QuoteMeta(cur)
				if m := regexp.MustCompile(`(?m)^[ \t]*` + q + `\s*(?::\s*int\s*)?=\s*kwargs\.(?:pop|get)\(\s*["']` + regexp.QuoteMeta(b.key) + `["']\s*(?:,\s*([0-9]+)\s*)?\)`).FindSubmatch(fnVis); m != nil {
					start = 0
					if len(m[1]) > 0 {
						start, _ = strconv.Atoi(string(m[1]))
					}
					break
				}
				m := regexp.MustCompile(`(?m)^[ \t]*` + q + `\s*=\s*([A-Za-z_]\w*)\s*$`).FindSubmatch(fnText)
				if m == nil {
					break
				}
				cur = string(m[1])
				names = append(names, cur)
			}
			if start < 0 {
				continue // not read from the keywords: another rule's count
			}
		}
		// The guard: the count against a limit.
		var limit string
		offset := 0
		for _, n := range names {
			q := regexp.QuoteMeta(n)
			if m := regexp.MustCompile(`\bif\s+` + q + `\s*(>=|>|<|<=)\s*([A-Za-z_][\w.]*|[0-9]+)\s*:`).FindSubmatch(fnText); m != nil {
				limit = string(m[2])
				switch string(m[1]) {
				case ">=", "<":
					offset = 1 - start
				default:
					offset = 2 - start
				}
				break
			}
		}
		if b.cnt == "" {
			q := regexp.QuoteMeta(b.key)
			if m := regexp.MustCompile(`\bif\s+kwargs\.get\(\s*["']` + q + `["'][^)]*\)\s*(>=|>|<|<=)\s*([A-Za-z_][\w.]*|[0-9]+)\s*:`).FindSubmatch(fnVis); m != nil {
				limit = string(m[2])
				offset = 1 - start
				if s := string(m[1]); s == ">" || s == "<=" {
					offset = 2 - start
				}
			}
		}
		if limit == "" {
			continue
		}
		// The layer's line: the handler holding the self-call, else the
		// self-call.
		at := from + call[0]
		broad := true // no handler: an if's count, read as any error's
		hs, _ := f.handlers()
		for _, h := range hs {
			if at > h.at && at < h.end && h.at > fa {
				at, broad = h.at, pyBroadExcept.Match(h.clause)
			}
		}
		if seen[at] {
			continue
		}
		seen[at] = true
		setting := "return " + fn + "(…) again, " + b.key + " counted in kwargs up to " + limit + " "
		var l Layer
		if n, err := strconv.Atoi(limit); err == nil {
			l, ok = handRolled(f.rel, f.lines().at(at), n+offset, strings.TrimSpace(setting), "python", note), n+offset >= 2
		} else {
			l, ok = loopLayer(f, at, limit, offset, setting, "python", note)
		}
		if ok {
			l.Retries4xx = broad // a handler of named errors goes on for those only
			out = append(out, l)
		}
	}
	return out
}
