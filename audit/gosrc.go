package audit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// Go is parsed, not matched: go/parser gives the imports and the calls, so
// a comment or a string can never be a layer.

func scanGo(rel string, src []byte) ([]Layer, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := map[string]string{} // local package name → import path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if strings.HasPrefix(name, "v") && len(name) <= 3 { // .../backoff/v5
			q := strings.TrimSuffix(p, "/"+name)
			name = q[strings.LastIndex(q, "/")+1:]
		}
		name = strings.TrimSuffix(strings.TrimPrefix(name, "go-"), "-go")
		if name == "anthropic-sdk" {
			name = "anthropic"
		}
		if im.Name != nil {
			name = im.Name.Name
		}
		local[name] = p
	}
	pkgOf := func(e ast.Expr) (string, string) { // (import path, selector)
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", ""
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return "", ""
		}
		return local[id.Name], sel.Sel.Name
	}
	line := func(n ast.Node) int { return fset.Position(n.Pos()).Line }
	intArg := func(e ast.Expr) (int, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.ReplaceAll(lit.Value, "_", ""), 0, 64)
		return int(v), err == nil && v >= 0 && v <= 1_000_000
	}
	text := func(n ast.Node) string {
		a, b := fset.Position(n.Pos()).Offset, fset.Position(n.End()).Offset
		if a < 0 || b > len(src) || a > b {
			return ""
		}
		return strings.Join(strings.Fields(string(src[a:min(b, a+80)])), " ")
	}
	var out []Layer
	var retryMax *ast.AssignStmt
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 {
			if sel, ok := as.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "RetryMax" && retryMax == nil {
				retryMax = as
			}
		}
		if cl, ok := n.(*ast.CompositeLit); ok {
			if p, typ := pkgOf(cl.Type); p == "go.temporal.io/sdk/workflow" && (typ == "ActivityOptions" || typ == "LocalActivityOptions") {
				out = append(out, temporalGo(rel, cl, line, intArg, text))
			}
			return true
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		path, fn := pkgOf(call.Fun)
		// failsafe-go's builder chains: X.WithMaxRetries(N) on a
		// retrypolicy builder.
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "WithMaxRetries" || sel.Sel.Name == "WithMaxAttempts") && len(call.Args) == 1 && chainFrom(sel.X, local, "github.com/failsafe-go/failsafe-go/retrypolicy") {
			if v, ok := intArg(call.Args[0]); ok {
				l := newLayer("failsafe-go", rel, line(call), "go", ConfidenceHigh)
				if sel.Sel.Name == "WithMaxRetries" {
					l.set(v, text(call))
				} else {
					l.setAttempts(v, text(call))
				}
				out = append(out, l)
			}
			return false
		}
		switch {
		case (path == "github.com/anthropics/anthropic-sdk-go" || path == "github.com/openai/openai-go" || strings.HasPrefix(path, "github.com/openai/openai-go/v")) && fn == "NewClient":
			id := "anthropic-go"
			if strings.Contains(path, "openai") {
				id = "openai-go"
			}
			l := newLayer(id, rel, line(call), "go", ConfidenceHigh)
			for _, a := range call.Args {
				if c, ok := a.(*ast.CallExpr); ok {
					if _, opt := pkgOf(c.Fun); opt == "WithMaxRetries" && len(c.Args) == 1 {
						if v, ok := intArg(c.Args[0]); ok {
							l.set(v, text(c))
						} else {
							l.setUnknown(text(c))
						}
					}
				}
			}
			out = append(out, l)
		case path == "github.com/hashicorp/go-retryablehttp" && fn == "NewClient":
			out = append(out, newLayer("go-retryablehttp", rel, line(call), "go", ConfidenceHigh))
		case strings.HasPrefix(path, "github.com/cenkalti/backoff") && (fn == "Retry" || fn == "RetryNotify" || fn == "RetryWithData" || fn == "RetryNotifyWithData"):
			l := newLayer("cenkalti-backoff", rel, line(call), "go", ConfidenceHigh)
			ast.Inspect(call, func(m ast.Node) bool {
				c, ok := m.(*ast.CallExpr)
				if !ok || c == call {
					return true
				}
				_, opt := pkgOf(c.Fun)
				switch {
				case opt == "WithMaxRetries" && len(c.Args) == 2:
					if v, ok := intArg(c.Args[1]); ok {
						l.set(v, text(c))
					}
				case opt == "WithMaxTries" && len(c.Args) == 1:
					if v, ok := intArg(c.Args[0]); ok {
						l.setAttempts(v, text(c))
					}
				}
				return true
			})
			if l.Unbounded {
				l.Note = "no WithMaxRetries: bounded only by MaxElapsedTime (15 min by default)"
			}
			out = append(out, l)
			return false
		case path == "github.com/failsafe-go/failsafe-go/retrypolicy" && (fn == "Builder" || fn == "NewBuilder" || fn == "WithDefaults"):
			out = append(out, newLayer("failsafe-go", rel, line(call), "go", ConfidenceHigh))
		}
		return true
	})
	// A RetryMax assignment configures the retryablehttp client of the file.
	if retryMax != nil {
		for i := range out {
			if out[i].DefaultID == "go-retryablehttp" {
				if v, ok := intArg(retryMax.Rhs[0]); ok {
					out[i].set(v, text(retryMax))
				} else {
					out[i].setUnknown(text(retryMax))
				}
			}
		}
	}
	out = dedupeFailsafe(out)
	out = append(out, goHandLoops(rel, f, fset, local)...)
	return out, nil
}

// temporalGo reads an ActivityOptions literal's RetryPolicy: MaximumAttempts
// N is N attempts; 0 or no policy is Temporal's default, no maximum.
func temporalGo(rel string, cl *ast.CompositeLit, line func(ast.Node) int, intArg func(ast.Expr) (int, bool), text func(ast.Node) string) Layer {
	l := newLayer("temporal-activity", rel, line(cl), "go", ConfidenceHigh)
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
			l.setUnknown(text(kv))
			return l
		}
		for _, f := range rp.Elts {
			if fkv, ok := f.(*ast.KeyValueExpr); ok {
				if k, ok := fkv.Key.(*ast.Ident); ok && k.Name == "MaximumAttempts" {
					l.Line = line(fkv)
					if n, ok := intArg(fkv.Value); ok && n > 0 {
						l.setAttempts(n, text(fkv))
					} else if ok {
						l.setUnbounded(text(fkv) + " (0: no maximum)")
					} else {
						l.setUnknown(text(fkv))
					}
				}
			}
		}
	}
	return l
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

// goHandLoops: `for i := 0; i < 3; i++ { ... time.Sleep(...) }`.
func goHandLoops(rel string, f *ast.File, fset *token.FileSet, local map[string]string) []Layer {
	var out []Layer
	ast.Inspect(f, func(n ast.Node) bool {
		fs, ok := n.(*ast.ForStmt)
		if !ok || fs.Cond == nil {
			return true
		}
		be, ok := fs.Cond.(*ast.BinaryExpr)
		if !ok || (be.Op != token.LSS && be.Op != token.LEQ) {
			return true
		}
		lim, ok := be.Y.(*ast.BasicLit)
		if !ok || lim.Kind != token.INT {
			return true
		}
		n64, err := strconv.Atoi(lim.Value)
		if err != nil {
			return true
		}
		start := 0
		if as, ok := fs.Init.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
			if bl, ok := as.Rhs[0].(*ast.BasicLit); ok {
				start, _ = strconv.Atoi(bl.Value)
			}
		}
		attempts := n64 - start
		if be.Op == token.LEQ {
			attempts++
		}
		if attempts < 2 || attempts > 1000 {
			return true
		}
		sleeps, checksErr := false, false
		ast.Inspect(fs.Body, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok && id.Name == "err" {
				checksErr = true
			}
			if c, ok := m.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] == "time" && sel.Sel.Name == "Sleep" {
						sleeps = true
					}
				}
			}
			return true
		})
		if sleeps && checksErr {
			out = append(out, Layer{File: rel, Line: fset.Position(fs.Pos()).Line, DefaultID: "hand-rolled", Library: "hand-rolled retry loop",
				Kind: KindWrapper, Attempts: attempts, Configured: true, Setting: "for … < " + lim.Value, Retries4xx: true, Backoff: "none",
				Confidence: ConfidenceLow, group: "go", Note: "a loop that sleeps between tries: read it to confirm it retries the call"})
		}
		return true
	})
	return out
}
