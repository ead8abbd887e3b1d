package audit

import "strconv"

// httpx's transports (issue 37, round 9's "if time remains"):
// `httpx.HTTPTransport(retries=N)` and `AsyncHTTPTransport(retries=N)`
// try a connection N more times when it cannot be made (ConnectError,
// ConnectTimeout) — never a request that was sent, never a response: a
// layer of N + 1 attempts on connect errors only, never a retries-a-400
// finding. Unset, retries is 0: no layer.

var pyHTTPXRetries = knobRe("retries")

func httpxTransports(f *file) []Layer {
	imps := f.pyImports()
	if !importsPrefix(imps, "httpx") {
		return nil
	}
	code := f.blanked()
	var out []Layer
	for _, o := range append(pyCallsOf(f, "httpx", "HTTPTransport"), pyCallsOf(f, "httpx", "AsyncHTTPTransport")...) {
		a, b := args(code, o)
		v, ok, num, at := intKnob(pyHTTPXRetries, code[a:b])
		if !ok || num && v < 1 {
			continue // unset or 0: one connection attempt
		}
		const note = "httpx tries a connection again only when it cannot be made (ConnectError, ConnectTimeout): a request that was sent is never sent again"
		var l Layer
		if num {
			l = handRolled(f.rel, f.lines().at(o), v+1, snippet(code[a:b], at), "python", note)
		} else {
			// A name (retries=self.max_retries): its value where the file
			// sets it — an attribute's default, a parameter's, a constant.
			m := pyHTTPXRetries.FindSubmatch(code[a:b])
			var found bool
			if l, found = loopLayer(f, o, string(m[1]), 1, "retries="+string(m[1]), "python", note); !found || l.loopPending || l.Attempts < 2 {
				continue
			}
			v = l.Attempts - 1
		}
		l.DefaultID, l.Library, l.Confidence = "httpx-transport", "httpx transport retries (connect errors only)", ConfidenceMedium
		l.Retries4xx = false
		l.Note = "connect errors only: retries=" + strconv.Itoa(v) + " tries a connection " + strconv.Itoa(v) + " more times; a response, a 400 or a 500, is never retried"
		out = append(out, l)
	}
	return out
}
