package audit

import (
	"go/ast"
	"go/token"
)

// charm.land/fantasy: an agent library whose Generate and Stream wrap each
// step's model call in its own retry (DefaultRetryOptions: MaxRetries 3),
// while the provider SDKs it builds are set to 0 retries — so the agent
// call is the layer, not the SDK (charmbracelet/fantasy retry.go, agent.go,
// providers/openai/openai.go @f6d4d1e30222; issue 37, round 8: crush's
// three agent.Stream calls, no row).

// fantasyPaths are the module paths fantasy is imported by.
var fantasyPaths = map[string]bool{"charm.land/fantasy": true, "github.com/charmbracelet/fantasy": true}

// goFantasy: X.Stream(ctx, fantasy.AgentStreamCall{…}) and
// X.Generate(ctx, fantasy.AgentCall{…}), the call literal written in
// place or bound to a name earlier in the file. MaxRetries in the literal
// sets the count; fantasy.WithMaxRetries(N) on the file's agent, when it
// is the only one, sets it for the file's calls that do not.
func goFantasy(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	imported := false
	for _, p := range g.local {
		if fantasyPaths[p] {
			imported = true
		}
	}
	if !imported {
		return nil
	}
	// The literals bound to a name (streamCall := fantasy.AgentStreamCall{…}),
	// by name, the last binding before a call taken at the call.
	type bound struct {
		pos token.Pos
		lit *ast.CompositeLit
	}
	named := map[string][]bound{}
	for _, as := range g.assigns {
		if len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			continue
		}
		id, ok := as.Lhs[0].(*ast.Ident)
		if !ok {
			continue
		}
		if lit := g.fantasyCall(as.Rhs[0]); lit != nil {
			named[id.Name] = append(named[id.Name], bound{as.Pos(), lit})
		}
	}
	// fantasy.WithMaxRetries(N): the agent's own default for its calls.
	var agentOpt []*ast.CallExpr
	for _, call := range g.calls {
		if path, fn := g.pkgOf(call.Fun); fantasyPaths[path] && fn == "WithMaxRetries" && len(call.Args) == 1 {
			agentOpt = append(agentOpt, call)
		}
	}
	var out []Layer
	for _, call := range g.calls {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Stream" && sel.Sel.Name != "Generate") || len(call.Args) != 2 {
			continue
		}
		lit := g.fantasyCall(call.Args[1])
		if id, ok := call.Args[1].(*ast.Ident); ok && lit == nil {
			// The binding in the call's own function, before it: a name
			// another function binds is another variable.
			fn := g.enclosingFunc(call.Pos())
			for _, b := range named[id.Name] {
				if b.pos < call.Pos() && fn != nil && g.enclosingFunc(b.pos) == fn {
					lit = b.lit
				}
			}
		}
		if lit == nil {
			continue
		}
		l := newLayer("fantasy", f.rel, g.line(call), "go", ConfidenceHigh)
		if kv := fantasyMaxRetries(lit); kv != nil {
			if v, ok := g.fantasyInt(kv.Value); ok {
				l.set(v, g.text(kv))
			} else {
				l.setUnknown(g.text(kv))
			}
		} else if len(agentOpt) == 1 {
			if v, ok := g.intArg(agentOpt[0].Args[0]); ok {
				l.set(v, g.text(agentOpt[0])+" (the agent's option)")
			} else {
				l.setUnknown(g.text(agentOpt[0]))
			}
		} else if len(agentOpt) > 1 {
			l.setUnknown(g.text(agentOpt[0]) + " (one of several agents' options)")
		}
		out = append(out, l)
	}
	return out
}

// fantasyCall is the fantasy.AgentStreamCall{…} or fantasy.AgentCall{…}
// literal e is (or points to), or nil.
func (g *goFile) fantasyCall(e ast.Expr) *ast.CompositeLit {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	lit, ok := e.(*ast.CompositeLit)
	if !ok || lit.Type == nil {
		return nil
	}
	if path, name := g.pkgOf(lit.Type); fantasyPaths[path] && (name == "AgentStreamCall" || name == "AgentCall") {
		return lit
	}
	return nil
}

// fantasyMaxRetries is the literal's MaxRetries field, or nil.
func fantasyMaxRetries(lit *ast.CompositeLit) *ast.KeyValueExpr {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "MaxRetries" {
				return kv
			}
		}
	}
	return nil
}

// fantasyInt reads MaxRetries' value: a *int, written as a call of one
// literal (fantasy.Opt(2), ptr(2)) or as the literal itself.
func (g *goFile) fantasyInt(e ast.Expr) (int, bool) {
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
		e = c.Args[0]
	}
	return g.intArg(e)
}

// enclosingFunc is the function declaration whose body holds pos, or nil.
func (g *goFile) enclosingFunc(pos token.Pos) *ast.FuncDecl {
	for _, d := range g.ast.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fd.Body.Pos() <= pos && pos < fd.Body.End() {
			return fd
		}
	}
	return nil
}
