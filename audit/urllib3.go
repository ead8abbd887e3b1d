package audit

import (
	"regexp"
	"strconv"
)

// urllib3's Retry, under requests: Retry(total=N) or Retry(N), and an
// HTTPAdapter(max_retries=N) that builds one.

var (
	pyTotal    = knobRe("total")
	pyFirstInt = regexp.MustCompile(`^\s*([0-9]+)\s*[,)]?`)
)

func urllib3(f *file) []Layer {
	code, bs := f.blanked(), f.pyImports()
	var out []Layer
	for _, n := range append(pyNames(bs, "urllib3", "Retry"), pyNames(bs, "requests.packages.urllib3", "Retry")...) {
		for _, o := range pyCalls(code, n) {
			l := newLayer("urllib3-retry", f.rel, f.lines().at(o), "python", ConfidenceMedium)
			a, b := args(code, o)
			region := code[a:b]
			if written := setKnob(&l, pyTotal, region); !written {
				if pm := pyFirstInt.FindSubmatch(region); pm != nil {
					v, _ := strconv.Atoi(string(pm[1]))
					l.set(v, "Retry("+string(pm[1])+")")
				}
			}
			out = append(out, l)
		}
	}
	for _, o := range pyCallsOf(f, "requests.adapters", "HTTPAdapter") {
		a, b := args(code, o)
		// HTTPAdapter(max_retries=-1) is Retry.from_int(-1): Retry(total=-1),
		// exhausted at the first failure — no retry, no layer.
		if v, ok, num, k := intKnob(pyMaxRetries, code[a:b]); ok && num && v > 0 && !negativeKnob(pyMaxRetries, code[a+k:b]) {
			l := newLayer("urllib3-retry", f.rel, f.lines().at(o), "python", ConfidenceMedium)
			l.set(v, snippet(code[a:b], k))
			out = append(out, l)
		}
	}
	return out
}
