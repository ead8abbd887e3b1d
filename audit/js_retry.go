package audit

import "regexp"

// JavaScript's retry wrappers: p-retry and async-retry.

var jsInfinity = regexp.MustCompile(`\bretries\s*:\s*(?:Infinity|Number\.POSITIVE_INFINITY)`)

// jsRetryWrappers: pRetry(fn, { retries }) and retry(fn, { retries }).
func jsRetryWrappers(f *file) []Layer {
	var out []Layer
	for name, b := range f.jsImports() {
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
