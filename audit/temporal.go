package audit

import (
	"go/ast"
	"regexp"
	"strings"
)

// Temporal activities (Python, TypeScript, Go): the retry policy's
// maximum attempts, where 0 or no policy is Temporal's default, no maximum.

var (
	pyTemporalCall = regexp.MustCompile(`\.(?:execute|start)_(?:local_)?activity(?:_method)?\s*\(`)
	pyMaxAttempts  = knobRe("maximum_attempts")
	jsMaxAttempts  = knobRe("maximumAttempts")
)

// pyTemporal: workflow.execute_activity(…, retry_policy=RetryPolicy(maximum_attempts=N)).
func pyTemporal(f *file) []Layer {
	if !importsPrefix(f.pyImports(), "temporalio") {
		return nil
	}
	code := f.blanked()
	var out []Layer
	seen := map[string]policyAt{}
	for _, m := range pyTemporalCall.FindAllIndex(code, maxCandidates) {
		o := m[1] - 1
		l := newLayer("temporal-activity", f.rel, f.lines().at(o), "python", ConfidenceMedium)
		a, b := args(code, o)
		if _, ok, _, _ := intKnob(pyMaxAttempts, code[a:b]); !ok {
			// retry_policy=POLICY, bound at module level to a
			// RetryPolicy(…): its maximum_attempts, not the default's none.
			if _, pa, pb, ok := policyCall(code, a, b, seen); ok {
				a, b = pa, pb
			}
		}
		if v, ok, num, k := intKnob(pyMaxAttempts, code[a:b]); ok {
			switch {
			case num && v == 0:
				l.setUnbounded(snippet(code[a:b], k) + " (0: no maximum)")
			case num:
				l.setAttempts(v, snippet(code[a:b], k))
			default:
				l.setUnknown(snippet(code[a:b], k))
			}
		}
		out = append(out, l)
	}
	return out
}

// jsTemporal: proxyActivities({ retry: { maximumAttempts } }).
func jsTemporal(f *file) []Layer {
	var out []Layer
	for name, b := range f.jsImports() {
		if b.module != "@temporalio/workflow" || (b.imported != "proxyActivities" && b.imported != "proxyLocalActivities") {
			continue
		}
		for _, o := range jsCalls(f.blanked(), name, false) {
			out = append(out, jsCallLayer(f, "temporal-activity", o, nil, jsTemporalAttempts))
		}
	}
	return out
}

func jsTemporalAttempts(l *Layer, r []byte) {
	if v, ok, num, at := intKnob(jsMaxAttempts, r); ok {
		switch {
		case num && v > 0:
			l.setAttempts(v, snippet(r, at))
		case !num && strings.Contains(snippet(r, at), "Infinity"):
			l.setUnbounded(snippet(r, at))
		default:
			l.setUnknown(snippet(r, at))
		}
	}
}

// goTemporal: a workflow.ActivityOptions or LocalActivityOptions literal.
func goTemporal(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []Layer
	for _, cl := range g.lits {
		if p, typ := g.pkgOf(cl.Type); p == "go.temporal.io/sdk/workflow" && (typ == "ActivityOptions" || typ == "LocalActivityOptions") {
			out = append(out, temporalGo(f.rel, g, cl))
		}
	}
	return out
}

// temporalGo reads an ActivityOptions literal's RetryPolicy: MaximumAttempts
// N is N attempts; 0 or no policy is Temporal's default, no maximum.
func temporalGo(rel string, g *goFile, cl *ast.CompositeLit) Layer {
	l := newLayer("temporal-activity", rel, g.line(cl), "go", ConfidenceHigh)
	for _, e := range cl.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); !ok || k.Name != "RetryPolicy" {
			continue
		}
		v := kv.Value
		if u, ok := v.(*ast.UnaryExpr); ok {
			v = u.X
		}
		rp, ok := v.(*ast.CompositeLit)
		if !ok {
			l.setUnknown(g.text(kv))
			return l
		}
		for _, f := range rp.Elts {
			if fkv, ok := f.(*ast.KeyValueExpr); ok {
				if k, ok := fkv.Key.(*ast.Ident); ok && k.Name == "MaximumAttempts" {
					l.Line = g.line(fkv)
					if n, ok := g.intArg(fkv.Value); ok && n > 0 {
						l.setAttempts(n, g.text(fkv))
					} else if ok {
						l.setUnbounded(g.text(fkv) + " (0: no maximum)")
					} else {
						l.setUnknown(g.text(fkv))
					}
				}
			}
		}
	}
	return l
}
