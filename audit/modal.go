package audit

import "regexp"

// Modal: a function's retries are the platform's — a failed input is run
// again, the whole function with every call inside it.

var (
	modalFn      = regexp.MustCompile(`(?m)^[ \t]*@[A-Za-z_]\w*\.(?:function|cls)\s*\(`)
	modalRetries = regexp.MustCompile(`\bRetries\s*\(`)
)

// modalFunctions: @app.function(retries=N) or
// @app.function(retries=modal.Retries(max_retries=N)) (stub.function in
// the older name) in a file importing modal, one layer at the retries
// line. A function with no retries is run once: no layer.
func modalFunctions(f *file) []Layer {
	if !importsPrefix(f.pyImports(), "modal") {
		return nil
	}
	code := f.blanked()
	var out []Layer
	for _, m := range modalFn.FindAllIndex(code, maxCandidates) {
		a, b := args(code, m[1]-1)
		region := code[a:b]
		k := pyRetries.FindSubmatchIndex(region)
		if k == nil {
			continue
		}
		l := newLayer("modal", f.rel, f.lines().at(a+k[0]), "python", ConfidenceHigh)
		if r := modalRetries.FindIndex(region[k[2]:]); r != nil && k[2]+r[1]-1 < len(region) && k[2]+r[0] < k[3] {
			// retries=modal.Retries(max_retries=N, …): the count is inside.
			ra, rb := args(region, k[2]+r[1]-1)
			if !setKnob(&l, pyMaxRetries, region[ra:rb]) {
				continue
			}
		} else {
			setKnob(&l, pyRetries, region[k[0]:])
		}
		out = append(out, l)
	}
	return out
}
