package audit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// A loop bounded by its own function's parameter — `withRetries(fn,
// retries = 3)` looping `i < retries + 1`, `def with_retry(fn,
// attempts=3)`, a Go `func extract(…, maxAttempts int)` — runs as many
// times as its callers ask. The bound is the largest of the parameter's
// default and the literal or constant arguments the file's calls of the
// function pass at its position (a call passing none gets the default), and
// the setting says which ("retries = 4, passed by the call at x.ts:12").
// A Go bound is also resolved by scope: a constant or variable of the loop's
// own function before the loop, else the parameter, else a package-level
// one of the file — never the first same-named constant of another
// function.

// paramSite is one value a parameter takes: a default or a call's argument.
type paramSite struct {
	n    int
	line int
	how  string
}

// maxParamSites bounds the calls read per function.
const maxParamSites = 64

// paramCache holds, per file, what resolving parameters costs once: the
// Go file's calls by callee name, and each function parameter's result.
// A file of thousands of loops bounded by parameters reads its calls
// once, and resolves at most maxCandidates bounds.
type paramCache struct {
	goCalls  map[string][]*ast.CallExpr
	results  map[string]paramResult
	resolved int
	// depth is how many forwarded parameters are being followed
	// (forwardedParam).
	depth, forwarded int
	// last is the function whose parameter the last paramBound read (nil
	// when the bound named none): loopLayer keeps it on the layer.
	last *paramFn
}

// paramFn is a function whose parameter bounds a loop: its name, the
// parameter's position among the call's arguments and its keyword (Python),
// and whether it is a method (Go: called as x.name).
type paramFn struct {
	bound  string // the parameter's name
	name   string
	k      int
	kw     string
	method bool
	dflt   string // the default as written, when the parameter has one
}

type paramResult struct {
	n   int
	how string
	ok  bool
}

func (f *file) paramCache() *paramCache {
	if f.params == nil {
		f.params = &paramCache{results: map[string]paramResult{}}
	}
	return f.params
}

// paramBound resolves bound, written in a loop whose head starts at at,
// when it names a parameter of the function enclosing the loop (or, in
// Go, a name in the loop's scope). ok is false when it names neither, or
// nothing gives it a value here: the caller's own resolution then applies.
func paramBound(f *file, at int, bound string) (int, string, bool) {
	pc := f.paramCache()
	pc.last = nil // whatever returns, no earlier loop's function is this one's
	if !isName(bound) || strings.ContainsAny(bound, ".?") || pc.resolved >= maxCandidates {
		return 0, "", false
	}
	pc.resolved++
	switch f.kind {
	case fkJS:
		return jsParamBound(f, at, bound)
	case fkPython:
		return pyParamBound(f, at, bound)
	case fkGo:
		return goScopedBound(f, at, bound)
	}
	return 0, "", false
}

// worstSite is the largest of sites, shown with how many there were.
// A site over maxSiteBound is the worst whatever the others give (rt5 F4):
// loopLayer reports the layer unbounded.
func worstSite(bound string, rel string, sites []paramSite, calls int) (int, string, bool) {
	if len(sites) == 0 {
		return 0, "", false
	}
	w := sites[0]
	for _, s := range sites[1:] {
		if s.n > w.n {
			w = s
		}
	}
	how := fmt.Sprintf(" (%s = %s, %s at %s:%d", bound, boundText(w.n), w.how, rel, w.line)
	if calls > 0 && len(sites) > 1 {
		how += fmt.Sprintf("; the largest of %d values its calls in this file give it", len(sites))
	}
	return w.n, how + ")", true
}

// splitTop splits code at the commas of its own level.
func splitTop(code []byte) [][]byte {
	var out [][]byte
	depth, start := 0, 0
	for i, c := range code {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '<':
			// TypeScript generics in a parameter's type hold commas:
			// Record<string, number>. A comparison in an argument is
			// read the same way; it costs that argument only.
			if i > 0 && isWord(code[i-1]) {
				depth++
			}
		case '>':
			if i > 0 && code[i-1] != '=' && depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, code[start:i])
				start = i + 1
			}
		}
	}
	if t := bytes.TrimSpace(code[start:]); len(t) > 0 {
		out = append(out, code[start:])
	}
	return out
}

// paramIndex is the position of the parameter named bound among params
// (each "name", "name = 3", "name: number = 3", "...rest"), and the text
// of its default after `=`, "" when it has none.
func paramIndex(params [][]byte, bound string) (int, string) {
	for k, p := range params {
		p = bytes.TrimSpace(p)
		p = bytes.TrimLeft(p, "*.")
		name := p
		if i := bytes.IndexAny(p, ":=?"); i >= 0 {
			name = p[:i]
		}
		if string(bytes.TrimSpace(name)) != bound {
			continue
		}
		if i := bytes.IndexByte(p, '='); i >= 0 {
			return k, string(bytes.TrimSpace(p[i+1:]))
		}
		return k, ""
	}
	return -1, ""
}

// siteValue is an argument's or a default's value: a literal, or a name
// the file gives a value.
func siteValue(f *file, expr string) (int, string, bool) {
	expr = strings.TrimSpace(expr)
	if n, ok := atoiBounded(expr); ok {
		return n, "", true
	}
	if n, ok := bigLiteral(expr); ok {
		return n, "", true
	}
	if r, ok := f.resolve(expr); ok {
		return r.n, fmt.Sprintf(" (%s = %d, %s at %s:%d)", r.name, r.n, r.how, f.rel, r.line), true
	}
	return 0, "", false
}

// callSites are the values the calls of name in f (other than the
// definition whose parenthesis is at def) give its parameter k, or its
// keyword kw (Python), the default dflt standing in where a call passes
// none. calls is how many calls were read.
func callSites(f *file, name string, def, k int, kw string, dflt *paramSite) (sites []paramSite, calls int) {
	code := f.blanked()
	for _, o := range callsOf(code, name, false) {
		if o == def || calls >= maxParamSites || isDefinition(code, o-len(name)) {
			continue
		}
		if w := wordBefore(code, o-len(name)); w == "function" || w == "def" {
			continue
		}
		a, b := args(code, o)
		calls++
		as := splitTop(code[a:b])
		var arg []byte
		for _, x := range as {
			if kw == "" {
				break
			}
			t := bytes.TrimSpace(x)
			if eq := bytes.IndexByte(t, '='); eq > 0 && string(bytes.TrimSpace(t[:eq])) == kw && (eq+1 >= len(t) || t[eq+1] != '=') {
				arg = t[eq+1:]
			}
			if v := objectKey(t, kw); v != nil {
				arg = v // a JavaScript object argument: fn({ url, tryCount: 3 }) (resends9.go)
			}
		}
		if arg == nil && k < len(as) && !bytes.Contains(as[k], []byte("=")) {
			arg = as[k]
		}
		line := f.lines().at(o)
		if arg == nil {
			if dflt != nil {
				sites = append(sites, paramSite{dflt.n, dflt.line, dflt.how})
			}
			continue
		}
		if n, how, ok := siteValueAt(f, string(arg), o); ok {
			sites = append(sites, paramSite{n, line, "passed by the call" + how})
		}
	}
	return sites, calls
}

// siteValueAt is an argument's value read in the scope of the call at at
// (rt5 F1): a name the caller's own function assigns before the call
// (Python `attempts = 2`, JavaScript `const n = 1`) is the value passed,
// whatever a module-level name of the same spelling holds. A name that is
// the caller's own parameter is forwarded (rt5 F6): its value is the
// caller's default and what the caller's callers pass, followed up to
// maxForwardDepth functions. Only a name the function does not define
// falls back to the file's (siteValue).
func siteValueAt(f *file, expr string, at int) (int, string, bool) {
	expr = strings.TrimSpace(expr)
	if isName(expr) && !strings.ContainsRune(expr, '.') {
		switch f.kind {
		case fkPython:
			n, how, ok := pyLocalBound(f, at, expr)
			if ok && !strings.Contains(how, "default of the parameter") {
				return n, how, true
			}
			if fn, fhow, fok := forwardedParam(f, at, expr); fok {
				return fn, fhow, true
			}
			if ok {
				return n, how, true
			}
		case fkJS:
			if n, how, ok := forwardedParam(f, at, expr); ok {
				return n, how, true
			}
		}
	}
	return siteValue(f, expr)
}

// maxForwardDepth bounds how many functions a forwarded parameter is
// followed through (top → draft → with_retry is 2); recursion between
// functions stops there.
const maxForwardDepth = 3

// maxForwarded bounds the forwarded parameters resolved a file: each reads
// the file's calls of one more function, so a file of thousands of
// functions forwarding to each other costs at most this many more reads.
const maxForwarded = 64

// forwardedParam resolves name at at by the loop rules (paramBound's),
// one function further up the chain; the loop's own function recorded in
// the cache (last) is kept.
func forwardedParam(f *file, at int, name string) (int, string, bool) {
	pc := f.paramCache()
	if pc.depth >= maxForwardDepth || pc.forwarded >= maxForwarded {
		return 0, "", false
	}
	pc.depth++
	pc.forwarded++
	last := pc.last
	defer func() { pc.depth--; pc.last = last }()
	var n int
	var how string
	var ok bool
	switch f.kind {
	case fkPython:
		n, how, ok = pyParamBound(f, at, name)
	case fkJS:
		n, how, ok = jsParamBound(f, at, name)
	case fkGo:
		n, how, ok = goScopedBound(f, at, name)
	}
	if len(how) > maxForwardHow {
		// A chain's settings nest one in another (each function's result
		// is cached with its own): said short, so a setting stays bounded
		// however long the chain.
		how = fmt.Sprintf(" (%s = %s, forwarded from its callers in %s)", name, boundText(n), f.rel)
	}
	return n, how, ok
}

// maxForwardHow bounds how a forwarded value's resolution is shown.
const maxForwardHow = 240

// goSiteIdent is the value of the name a Go call c passes: a definition in
// the caller's own function before the call (`n := 2`), else the file's
// (a package constant): the name in scope at the call (rt5 F1).
func goSiteIdent(f *file, g *goFile, c *ast.CallExpr, name string) (int, string, bool) {
	// goScopedBound: a definition in the caller's function before the
	// call, else the caller's parameter forwarded (its callers, rt5 F6),
	// else the package's.
	if n, how, ok := forwardedParam(f, g.offset(c), name); ok {
		return n, how, true
	}
	return siteValue(f, name)
}

// wordBefore is the word ending just before off, past spaces.
func wordBefore(code []byte, off int) string {
	_, w := before(code, off)
	return w
}

var jsNotFunc = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true, "return": true}

// jsParamBound: the function enclosing at — `function name(…) {`, `name =
// (async) (…) => {`, a method `name(…) {` — with a parameter named bound.
func jsParamBound(f *file, at int, bound string) (int, string, bool) {
	code := f.blanked()
	var n int
	var how string
	found, decided := false, false
	jsOpenBlocks(code, at, func(i int) bool {
		name, open, params, ok := jsFuncHead(code, i)
		if !ok {
			return false
		}
		k, dtext := paramIndex(splitTop(params), bound)
		if k < 0 {
			// A constant of the function's own body before the loop is
			// the one in scope, whatever another function names so.
			n, how, found = jsLocalConst(f, i+1, at, bound)
			return found
		}
		n, how, found = paramSitesBound(f, bound, name, open, k, "", dtext)
		decided = true // the parameter is the name in scope, bound or not
		return true
	})
	if found || decided {
		return n, how, found
	}
	// The module's own constant (at column 0), not a same-named one of a
	// function; looked up once per name a file.
	pc := f.paramCache()
	key := "module\x00" + bound
	if r, ok := pc.results[key]; ok {
		return r.n, r.how, r.ok
	}
	r := paramResult{}
	re := regexp.MustCompile(`(?m)^(?:export[ \t]+)?(?:const|let|var)[ \t]+` + regexp.QuoteMeta(bound) + `[ \t]*(?::[ \t]*number[ \t]*)?=[ \t]*([0-9][0-9_]*)[ \t]*;?[ \t]*$`)
	if m := re.FindSubmatchIndex(code); m != nil {
		if n, ok := atoiBounded(string(code[m[2]:m[3]])); ok {
			r = paramResult{n, fmt.Sprintf(" (%s = %d, module constant at %s:%d)", bound, n, f.rel, f.lines().at(m[0])), true}
		}
	}
	pc.results[key] = r
	return r.n, r.how, r.ok
}

// jsLocalConst: the last `const|let|var bound = N` at the top level of the
// block code[a:b] (a function's body before the loop).
func jsLocalConst(f *file, a, b int, bound string) (int, string, bool) {
	code := f.blanked()
	re := regexp.MustCompile(`\b(?:const|let|var)[ \t]+` + regexp.QuoteMeta(bound) + `[ \t]*(?::[ \t]*number[ \t]*)?=[ \t]*([0-9][0-9_]*)\b`)
	n, line, found := 0, 0, false
	for _, m := range re.FindAllSubmatchIndex(code[a:b], maxCandidates) {
		if !atTopLevel(code[a:b], m[0]) {
			continue // a nested block's: not in the loop's scope
		}
		if v, ok := atoiBounded(string(code[a+m[2] : a+m[3]])); ok {
			n, line, found = v, f.lines().at(a+m[0]), true
		}
	}
	if !found {
		return 0, "", false
	}
	return n, fmt.Sprintf(" (%s = %d, constant in the loop's function at %s:%d)", bound, n, f.rel, line), true
}

// paramSitesBound gathers the default and the call sites of parameter k
// (or kw) of the function name defined with its parenthesis at open.
func paramSitesBound(f *file, bound, name string, open, k int, kw, dtext string) (int, string, bool) {
	if name != "" {
		f.paramCache().last = &paramFn{bound: bound, name: name, k: k, kw: kw, dflt: strings.TrimSpace(dtext)}
	}
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%s", name, open, k, kw)
	if r, ok := f.paramCache().results[key]; ok {
		return r.n, r.how, r.ok
	}
	n, how, ok := paramSitesBoundUncached(f, bound, name, open, k, kw, dtext)
	f.paramCache().results[key] = paramResult{n, how, ok}
	return n, how, ok
}

func paramSitesBoundUncached(f *file, bound, name string, open, k int, kw, dtext string) (int, string, bool) {
	var dflt *paramSite
	if dtext != "" {
		if n, how, ok := siteValue(f, dtext); ok {
			line := f.lines().at(open)
			a, b := args(f.blanked(), open)
			if m := regexp.MustCompile(`\b` + regexp.QuoteMeta(bound) + `\s*(?::[^=,]{0,80})?=`).FindIndex(f.blanked()[a:b]); m != nil {
				line = f.lines().at(a + m[0])
			}
			dflt = &paramSite{n, line, "default of the parameter" + how}
		}
	}
	var sites []paramSite
	calls := 0
	if name != "" {
		sites, calls = callSites(f, name, open, k, kw, dflt)
	}
	if dflt != nil && (calls == 0 || dflt.n > maxSiteBound) {
		// A default over the plausible cap stands whatever the calls
		// pass: a caller that passes none (in another file, a test, a
		// dynamic call) runs it (rt5 F4).
		sites = append(sites, *dflt)
	}
	return worstSite(bound, f.rel, sites, calls)
}

// jsFuncHead reads the head of the block opened at brace: the function's
// name ("" for an anonymous one), its parenthesis and its parameters.
func jsFuncHead(code []byte, brace int) (string, int, []byte, bool) {
	j := brace - 1
	for j >= 0 && isSpace(code[j]) {
		j--
	}
	if j >= 1 && code[j] == '>' && code[j-1] == '=' {
		j -= 2
	}
	// A return type (`): Promise<void> {`): back to the parameters' close.
	q := j
	for q >= 0 && j-q < 200 && code[q] != ')' {
		if code[q] == ';' || code[q] == '{' || code[q] == '}' {
			return "", 0, nil, false
		}
		q--
	}
	if q < 0 || code[q] != ')' {
		return "", 0, nil, false
	}
	open, d := -1, 0
	for r := q; r >= 0 && q-r < maxArgBytes; r-- {
		if code[r] == ')' {
			d++
		} else if code[r] == '(' {
			d--
			if d == 0 {
				open = r
				break
			}
		}
	}
	if open < 0 {
		return "", 0, nil, false
	}
	c, w := before(code, skipTypeParams(code, open))
	if jsNotFunc[w] {
		return "", 0, nil, false
	}
	name := w
	if w == "async" || w == "function" || c == '=' || c == '>' && w == "" {
		// const name = async (…) =>, name = function (…), (…) =>.
		k := open - 1
		for k >= 0 && (isSpace(code[k]) || isWord(code[k])) {
			k--
		}
		name = ""
		if k >= 0 && code[k] == '=' {
			_, name = before(code, k)
		}
	}
	if name == "async" || name == "function" {
		name = ""
	}
	return name, open, code[open+1 : q], true
}

// skipTypeParams: the offset before which a function's name is read —
// open itself, or the `<` of a TypeScript type parameter list right
// before it (`function withRetry<T>(…)`, `const f = async <T,>(…) =>`),
// whose `>` would read as an arrow (round 6's left-outs: a generic
// helper's name was lost, and its callers with it).
func skipTypeParams(code []byte, open int) int {
	k := open - 1
	for k >= 0 && isSpace(code[k]) {
		k--
	}
	if k < 1 || code[k] != '>' || code[k-1] == '=' {
		return open
	}
	d := 0
	for r := k; r >= 0 && k-r < 200; r-- {
		switch code[r] {
		case '>':
			d++
		case '<':
			if d--; d == 0 {
				if r > 0 && isWord(code[r-1]) {
					return r
				}
				return open
			}
		case '(', ')', '{', '}', ';', '=':
			if code[r] == '=' && r+1 <= k && code[r+1] == '>' {
				continue // => inside a type: () => Promise<T>
			}
			return open
		}
	}
	return open
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

var pyDefParen = regexp.MustCompile(`^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(`)

// pyParamBound: the def enclosing at with a parameter named bound.
func pyParamBound(f *file, at int, bound string) (int, string, bool) {
	code := f.blanked()
	ind := indentAt(code, at)
	for ls, n := lineStartBefore(code, at), 0; ls > 0 && n < 400; n++ {
		ls = lineStartBefore(code, ls-1)
		t := bytes.TrimLeft(code[ls:min(len(code), ls+200)], " \t")
		li := len(code[ls:min(len(code), ls+200)]) - len(t)
		if len(t) == 0 || t[0] == '\n' || li >= ind {
			continue
		}
		m := pyDefParen.FindSubmatchIndex(code[ls:min(len(code), ls+200)])
		if m == nil {
			if t[0] == ')' {
				continue // `) -> dict:` closing a signature written over lines, at the def's indent (issue 37, round 8)
			}
			if li == 0 {
				return 0, "", false // left the function
			}
			continue
		}
		open := ls + m[1] - 1
		a, b := args(code, open)
		params := splitTop(code[a:b])
		k, dtext := paramIndex(params, bound)
		if k < 0 {
			// Not this def's: a closure's, when an enclosing def has it (a
			// retry decorator written by hand: def retry(times=3): def
			// deco(fn): def wrapper(*a): for _ in range(times)).
			if li == 0 {
				return 0, "", false
			}
			ind = li
			continue
		}
		// A parameter after `self` is the call's k-1th argument.
		if len(params) > 0 {
			if p0 := string(bytes.TrimSpace(params[0])); p0 == "self" || p0 == "cls" {
				k--
			}
		}
		// After a bare * only keywords reach it.
		for _, p := range params[:k+1] {
			if string(bytes.TrimSpace(p)) == "*" {
				k = 1 << 20
			}
		}
		return paramSitesBound(f, bound, string(code[ls+m[2]:ls+m[3]]), open, k, bound, dtext)
	}
	return 0, "", false
}

// goScopedBound: a Go loop's bound by scope — a constant or variable of
// its own function before the loop, else its function's parameter (the
// calls of the function in the file), else a package-level one of this
// file.
func goScopedBound(f *file, at int, bound string) (int, string, bool) {
	g := f.goSource()
	if g == nil {
		return 0, "", false
	}
	var fd *ast.FuncDecl
	for _, d := range g.ast.Decls {
		if x, ok := d.(*ast.FuncDecl); ok && x.Body != nil && g.offset(x) <= at && at < g.fset.Position(x.End()).Offset {
			fd = x
		}
	}
	if fd != nil {
		if n, how, ok := goLocalDef(f, g, fd.Body, at, bound); ok {
			return n, how, true
		}
		k := -1
		i := 0
		for _, fl := range fd.Type.Params.List {
			if len(fl.Names) == 0 {
				i++
				continue
			}
			for _, nm := range fl.Names {
				if nm.Name == bound {
					k = i
				}
				i++
			}
		}
		if k >= 0 {
			f.paramCache().last = &paramFn{bound: bound, name: fd.Name.Name, k: k, method: fd.Recv != nil}
			return goCallSites(f, g, fd, k, bound)
		}
	}
	for _, d := range g.ast.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || (gd.Tok != token.CONST && gd.Tok != token.VAR) {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, nm := range vs.Names {
				if nm.Name == bound && i < len(vs.Values) {
					if v, ok := g.literal(vs.Values[i]); ok {
						how := "constant"
						if gd.Tok == token.VAR {
							how = "initial value"
						}
						return v, fmt.Sprintf(" (%s = %d, %s at %s:%d)", bound, v, how, f.rel, g.line(nm)), true
					}
				}
			}
		}
	}
	return 0, "", false
}

// goLocalDef: the last definition of bound in body before at — `const
// bound = 3`, `var bound = 3`, `bound := 3` — at any depth of the
// function, so a constant of another function is never taken.
func goLocalDef(f *file, g *goFile, body *ast.BlockStmt, at int, bound string) (int, string, bool) {
	best, bestAt, how := 0, -1, ""
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || g.offset(n) >= at {
			return false
		}
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ValueSpec:
			for i, nm := range x.Names {
				if nm.Name == bound && i < len(x.Values) {
					if v, ok := g.literal(x.Values[i]); ok && g.offset(nm) > bestAt {
						best, bestAt, how = v, g.offset(nm), fmt.Sprintf(" (%s = %d, defined in the loop's function at %s:%d)", bound, v, f.rel, g.line(nm))
					}
				}
			}
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == bound && i < len(x.Rhs) {
					if v, ok := g.literal(x.Rhs[i]); ok && g.offset(id) > bestAt {
						best, bestAt, how = v, g.offset(id), fmt.Sprintf(" (%s = %d, assigned in the loop's function at %s:%d)", bound, v, f.rel, g.line(id))
					} else if v, fn, line, ok := goReturnedDefault(g, x.Rhs[i]); ok && g.offset(id) > bestAt {
						best, bestAt, how = v, g.offset(id), fmt.Sprintf(" (%s = %d, returned by %s() when nothing sets it, at %s:%d)", bound, v, fn, f.rel, line)
					}
				}
			}
		}
		return true
	})
	return best, how, bestAt >= 0
}

// goCallSites: the values the file's calls of fd give its parameter k.
func goCallSites(f *file, g *goFile, fd *ast.FuncDecl, k int, bound string) (int, string, bool) {
	pc := f.paramCache()
	if pc.goCalls == nil {
		// Every call of the file by its callee's name, once: a function's
		// (f(…)) under its name, a method's (x.f(…)) under "." and its name.
		pc.goCalls = map[string][]*ast.CallExpr{}
		ast.Inspect(g.ast, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				switch fn := c.Fun.(type) {
				case *ast.Ident:
					if len(pc.goCalls[fn.Name]) < maxParamSites {
						pc.goCalls[fn.Name] = append(pc.goCalls[fn.Name], c)
					}
				case *ast.SelectorExpr:
					if len(pc.goCalls["."+fn.Sel.Name]) < maxParamSites {
						pc.goCalls["."+fn.Sel.Name] = append(pc.goCalls["."+fn.Sel.Name], c)
					}
				}
			}
			return true
		})
	}
	key := fd.Name.Name
	if fd.Recv != nil {
		key = "." + key
	}
	var sites []paramSite
	calls := 0
	for _, c := range pc.goCalls[key] {
		if k >= len(c.Args) {
			continue
		}
		calls++
		arg := c.Args[k]
		if v, ok := g.literal(arg); ok {
			sites = append(sites, paramSite{v, g.line(c), "passed by the call"})
		} else if id, ok := arg.(*ast.Ident); ok {
			if v, how, ok := goSiteIdent(f, g, c, id.Name); ok {
				sites = append(sites, paramSite{v, g.line(c), "passed by the call" + how})
			}
		}
	}
	return worstSite(bound, f.rel, sites, calls)
}

// maxSiteBound: a bound over this many tries (99999, 10**12, a sentinel)
// is no limit a night notices: whichever way it is written — a default, a
// literal range, a countdown's start, a call's argument — the layer is
// reported unbounded (a critical unbounded_layer finding), never replaced
// by a smaller call's value nor dropped (rt5 F4).
const maxSiteBound = 1000

// hugeBound stands for a bound too large to hold (10**12, 2**64): far over
// maxSiteBound, small enough that adding an offset cannot overflow.
const hugeBound = 1 << 30

// bigLiteral reads an integer literal atoiBounded refuses as too large
// (1000000000000, 99999999999999999999) or a power (10**12), capped at
// hugeBound. A negative, a float or anything else is not one.
func bigLiteral(s string) (int, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	if b, e, ok := strings.Cut(s, "**"); ok {
		bn, ok1 := digitsCapped(strings.TrimSpace(b))
		en, ok2 := digitsCapped(strings.TrimSpace(e))
		if !ok1 || !ok2 {
			return 0, false
		}
		v := 1
		for i := 0; i < en && i < 64 && v < hugeBound; i++ {
			v *= bn
		}
		return min(v, hugeBound), true
	}
	return digitsCapped(s)
}

// digitsCapped: a run of decimal digits, its value capped at hugeBound.
func digitsCapped(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	if t := strings.TrimLeft(s, "0"); len(t) > 10 {
		return hugeBound, true
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return min(n, hugeBound), true
}

// boundText shows a bound, hugeBound as what it stands for.
func boundText(n int) string {
	if n >= hugeBound {
		return "over 1000000000"
	}
	return strconv.Itoa(n)
}

// markUnbounded turns a hand-rolled loop's layer whose bound is over the
// plausible cap into an unbounded one (stack.go's unbounded_layer).
func markUnbounded(l *Layer, n int) {
	l.Attempts, l.Unbounded = 0, true
	l.Setting += fmt.Sprintf(" — %s tries, more than %d: effectively unbounded", boundText(n), maxSiteBound)
	l.calledAs, l.loopPending, l.valueName, l.pending = nil, false, "", false
}
