package audit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// Go is parsed, not matched: go/parser gives the imports and the calls, so
// a comment or a string can never be a layer. The file is walked once; a
// detector reads the nodes the walk kept.

// goFile is a parsed Go file as its detectors see it.
type goFile struct {
	src   []byte
	fset  *token.FileSet
	ast   *ast.File
	local map[string]string // local package name → import path
	// The calls, composite literals and assignments of the file in source
	// order, except those inside a call read as a whole (goOpaque).
	calls   []*ast.CallExpr
	lits    []*ast.CompositeLit
	assigns []*ast.AssignStmt
}

func parseGo(rel string, src []byte) (*goFile, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	g := &goFile{src: src, fset: fset, ast: f, local: goImports(f)}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			g.assigns = append(g.assigns, x)
		case *ast.CompositeLit:
			g.lits = append(g.lits, x)
		case *ast.CallExpr:
			g.calls = append(g.calls, x)
			return !g.opaque(x)
		}
		return true
	})
	return g, nil
}

// goImports maps each import's local name to its path: the package's own
// name as Go derives it (…/backoff/v5 is backoff, go-retryablehttp is
// retryablehttp), or the name the import gives it.
func goImports(f *ast.File) map[string]string {
	local := map[string]string{}
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
	return local
}

// opaque: a call the audit reads as a whole, so what it holds is its
// configuration and not another layer: backoff.Retry(op, policy) and a
// failsafe-go builder chain's WithMaxRetries(N).
func (g *goFile) opaque(call *ast.CallExpr) bool {
	if g.failsafeChain(call) != nil {
		return true
	}
	path, fn := g.pkgOf(call.Fun)
	return isCenkaltiRetry(path, fn)
}

// pkgOf is the import path and selector of pkg.Name, or "", "".
func (g *goFile) pkgOf(e ast.Expr) (string, string) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	return g.local[id.Name], sel.Sel.Name
}

func (g *goFile) line(n ast.Node) int { return g.fset.Position(n.Pos()).Line }

// offset is the byte offset of n in the source.
func (g *goFile) offset(n ast.Node) int { return g.fset.Position(n.Pos()).Offset }

// intArg is a literal integer argument, within the audit's bounds.
func (g *goFile) intArg(e ast.Expr) (int, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(lit.Value, "_", ""), 0, 64)
	return int(v), err == nil && v >= 0 && v <= 1_000_000
}

// text is a node as written, on one line, bounded.
func (g *goFile) text(n ast.Node) string {
	a, b := g.fset.Position(n.Pos()).Offset, g.fset.Position(n.End()).Offset
	if a < 0 || b > len(g.src) || a > b {
		return ""
	}
	return strings.Join(strings.Fields(string(g.src[a:min(b, a+80)])), " ")
}
