package audit

import "regexp"

// JavaScript's retry wrappers: p-retry, async-retry and exponential-backoff.

var (
	jsInfinity      = regexp.MustCompile(`\bretries\s*:\s*(?:Infinity|Number\.POSITIVE_INFINITY)`)
	jsNumOfAttempts = knobRe("numOfAttempts")
)

// jsRetryWrappers: pRetry(fn, { retries }) and retry(fn, { retries }).
func jsRetryWrappers(f *file) []Layer {
	var out []Layer
	for name, b := range f.jsImports() {
		if jsPackage(b.module) == "exponential-backoff" && b.imported == "backOff" {
			// backOff(fn, { numOfAttempts }): the options are the second
			// argument, read with the rest of the call.
			for _, o := range jsCalls(f.blanked(), name, false) {
				out = append(out, jsCallLayer(f, "exponential-backoff", o, jsNumOfAttempts, nil))
			}
			continue
		}
		if b.imported != "default" {
			continue
		}
		switch jsPackage(b.module) {
		case "p-retry":
			for _, o := range jsCalls(f.blanked(), name, false) {
				out = append(out, jsCallLayer(f, "p-retry", o, jsRetries, func(l *Layer, r []byte) {
					if m := jsInfinity.FindIndex(r); m != nil {
						l.setUnbounded(snippet(r, m[0]))
					}
				}))
			}
		case "async-retry":
			for _, o := range jsCalls(f.blanked(), name, false) {
				out = append(out, jsCallLayer(f, "async-retry", o, jsRetries, nil))
			}
		}
	}
	return out
}
