package audit

import (
	"go/ast"
	"strings"
)

// Go's retrying HTTP clients and retry libraries: hashicorp's
// go-retryablehttp, cenkalti/backoff, failsafe-go.

// retryableHTTP: retryablehttp.NewClient(), configured by a RetryMax
// assignment in the file (the first, for every client of the file).
func retryableHTTP(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []Layer
	for _, call := range g.calls {
		if path, fn := g.pkgOf(call.Fun); path == "github.com/hashicorp/go-retryablehttp" && fn == "NewClient" {
			out = append(out, newLayer("go-retryablehttp", f.rel, g.line(call), "go", ConfidenceHigh))
		}
	}
	for _, as := range g.assigns {
		sel, ok := as.Lhs[0].(*ast.SelectorExpr)
		if len(as.Lhs) != 1 || !ok || sel.Sel.Name != "RetryMax" {
			continue
		}
		for i := range out {
			if v, ok := g.intArg(as.Rhs[0]); ok {
				out[i].set(v, g.text(as))
			} else {
				out[i].setUnknown(g.text(as))
			}
		}
		break
	}
	return out
}

func isCenkaltiRetry(path, fn string) bool {
	return strings.HasPrefix(path, "github.com/cenkalti/backoff") && (fn == "Retry" || fn == "RetryNotify" || fn == "RetryWithData" || fn == "RetryNotifyWithData")
}

// cenkaltiBackoff: backoff.Retry(op, policy), bounded by a
// WithMaxRetries or WithMaxTries anywhere in the call.
func cenkaltiBackoff(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []Layer
	for _, call := range g.calls {
		if path, fn := g.pkgOf(call.Fun); !isCenkaltiRetry(path, fn) {
			continue
		}
		l := newLayer("cenkalti-backoff", f.rel, g.line(call), "go", ConfidenceHigh)
		ast.Inspect(call, func(m ast.Node) bool {
			c, ok := m.(*ast.CallExpr)
			if !ok || c == call {
				return true
			}
			_, opt := g.pkgOf(c.Fun)
			switch {
			case opt == "WithMaxRetries" && len(c.Args) == 2:
				if v, ok := g.intArg(c.Args[1]); ok {
					l.set(v, g.text(c))
				}
			case opt == "WithMaxTries" && len(c.Args) == 1:
				if v, ok := g.intArg(c.Args[0]); ok {
					l.setAttempts(v, g.text(c))
				}
			}
			return true
		})
		if l.Unbounded {
			l.Note = "no WithMaxRetries: bounded only by MaxElapsedTime (15 min by default)"
		}
		out = append(out, l)
	}
	return out
}

const failsafePolicy = "github.com/failsafe-go/failsafe-go/retrypolicy"

// failsafeChain is the selector of X.WithMaxRetries(N) or
// X.WithMaxAttempts(N) on a retrypolicy builder chain, or nil.
func (g *goFile) failsafeChain(call *ast.CallExpr) *ast.SelectorExpr {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if ok && (sel.Sel.Name == "WithMaxRetries" || sel.Sel.Name == "WithMaxAttempts") && len(call.Args) == 1 && chainFrom(sel.X, g.local, failsafePolicy) {
		return sel
	}
	return nil
}

// failsafe: a retrypolicy builder, at its default unless the chain sets
// WithMaxRetries or WithMaxAttempts.
func failsafe(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []Layer
	for _, call := range g.calls {
		if sel := g.failsafeChain(call); sel != nil {
			if v, ok := g.intArg(call.Args[0]); ok {
				l := newLayer("failsafe-go", f.rel, g.line(call), "go", ConfidenceHigh)
				if sel.Sel.Name == "WithMaxRetries" {
					l.set(v, g.text(call))
				} else {
					l.setAttempts(v, g.text(call))
				}
				out = append(out, l)
			}
			continue
		}
		if path, fn := g.pkgOf(call.Fun); path == failsafePolicy && (fn == "Builder" || fn == "NewBuilder" || fn == "WithDefaults") {
			out = append(out, newLayer("failsafe-go", f.rel, g.line(call), "go", ConfidenceHigh))
		}
	}
	return dedupeFailsafe(out)
}

// chainFrom reports whether a method chain starts at a call into pkg
// (retrypolicy.Builder[T]().WithDelay(...).WithMaxRetries(3)).
func chainFrom(e ast.Expr, local map[string]string, pkg string) bool {
	for range 64 {
		switch x := e.(type) {
		case *ast.CallExpr:
			e = x.Fun
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				return local[id.Name] == pkg
			}
			e = x.X
		default:
			return false
		}
	}
	return false
}

// dedupeFailsafe: a builder with WithMaxRetries is found twice (the chain
// and its root Builder call on the same line); keep the configured one.
func dedupeFailsafe(ls []Layer) []Layer {
	configured := map[int]bool{}
	for _, l := range ls {
		if l.DefaultID == "failsafe-go" && l.Configured {
			configured[l.Line] = true
		}
	}
	out := ls[:0]
	for _, l := range ls {
		if l.DefaultID == "failsafe-go" && !l.Configured && configured[l.Line] {
			continue
		}
		out = append(out, l)
	}
	return out
}

// avastRetry: avast/retry-go's retry.Do(fn, opts…) (and DoWithData),
// Attempts(N) total tries, 10 when no Attempts option is given and
// Attempts(0) "until the retried function succeeds".
func avastRetry(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []Layer
	for _, call := range g.calls {
		path, fn := g.pkgOf(call.Fun)
		if !strings.HasPrefix(path, "github.com/avast/retry-go") || (fn != "Do" && fn != "DoWithData") {
			continue
		}
		l := newLayer("avast-retry-go", f.rel, g.line(call), "go", ConfidenceHigh)
		for _, a := range call.Args {
			c, ok := a.(*ast.CallExpr)
			if !ok {
				continue
			}
			if _, opt := g.pkgOf(c.Fun); opt != "Attempts" && opt != "UntilSucceeded" {
				continue
			} else if opt == "UntilSucceeded" {
				l.setUnbounded(g.text(c))
				continue
			}
			if len(c.Args) != 1 {
				continue
			}
			switch v, ok := g.intArg(c.Args[0]); {
			case ok && v == 0:
				l.setUnbounded(g.text(c))
			case ok:
				l.setAttempts(v, g.text(c))
			default:
				l.setUnknown(g.text(c))
			}
		}
		out = append(out, l)
	}
	return out
}
