package audit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Values, not literals: a bound written as a name (`attempt <= attempts`,
// `maxRetries: MAX_RETRIES`, `rc.RetryMax = cfg.RetryMax`) is resolved to
// the integer the file gives that name — a constant of any case, a
// parameter's or an option's default, a class or config field's default, an
// environment variable's default — and the resolution is shown beside the
// setting ("attempts = 3, default of the parameter at src/x.ts:12"). A
// name defined more than once with different values resolves to the largest
// (the worst case), and says so.

// valueDef is one definition of a name: its value, where, and what it is.
type valueDef struct {
	n    int
	line int
	how  string // "constant", "default of the parameter", …
}

// resolution is a name resolved in a file.
type resolution struct {
	name string
	valueDef
	defs int // how many definitions the name has in the file
	// inForce: the name is bound this many times at module level and the
	// one the site reads was taken (resolveAt); late: the site is in a
	// function, which sees the module's last binding once it has loaded.
	inForce int
	late    bool
}

// text is the resolution as the report shows it.
func (r resolution) text(rel string) string {
	s := fmt.Sprintf("%s = %d, %s at %s:%d", r.name, r.n, r.how, rel, r.line)
	if r.defs > 1 {
		s += fmt.Sprintf("; the largest of %d definitions", r.defs)
	}
	switch {
	case r.inForce > 1 && r.late:
		s += fmt.Sprintf("; the last of %d module-level bindings, in force once the module has loaded (a call made while it loads may see another)", r.inForce)
	case r.inForce > 1:
		s += fmt.Sprintf("; the binding in force there, of %d at module level", r.inForce)
	}
	return s
}

// maxValueDefs bounds the definitions indexed per file.
const maxValueDefs = 16 * maxCandidates

var (
	// NAME = N, NAME: number = N, NAME: int = N; what precedes the name
	// says what it is. Numbers survive blanking; strings do not.
	// A value chosen by a condition: the larger branch is the worst case
	// (max_attempts = 1 if streaming else 10; const tries = fast ? 1 : 5).
	pyCondNum    = regexp.MustCompile(`([A-Za-z_]\w*)\s*(?::\s*int\s*)?=\s*([0-9][0-9_]*)\s+if\s+[^\n]{1,160}?\s+else\s+([0-9][0-9_]*)\s*(?:#[^\n]*)?(?:\n|$)`)
	jsTernaryNum = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*(?::\s*number\s*)?=\s*[^;\n?=]{1,160}\?\s*([0-9][0-9_]*)\s*:\s*([0-9][0-9_]*)\s*(?:[;\n]|$)`)
	// An environment schema's default (zod, t3-env):
	// LANGFUSE_X_ATTEMPTS: z.coerce.number().positive().default(2),
	jsZodDefault  = regexp.MustCompile(`([A-Z][A-Z0-9_]*)\s*:\s*z\s*\.[^,;]{0,300}?\.default\(\s*([0-9][0-9_]*)\s*\)`)
	jsAssignNum   = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*(?::\s*number\s*)?=\s*([0-9][0-9_]*|[A-Za-z_$][\w$.]*)\s*(?:[,;)}\n]|$)`)
	jsFallbackNum = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*(?::\s*number\s*)?=\s*[A-Za-z_$][\w$.?]*\s*(?:\?\?|\|\|)\s*([0-9][0-9_]*)\s*(?:[;,)\n]|$)`)
	jsPropNum     = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*:\s*([0-9][0-9_]*)\s*(?:[,}\n]|$)`)
	pyAssignNum   = regexp.MustCompile(`([A-Za-z_]\w*)[ \t]*(?::[ \t]*[\w.\[\]| ]{1,40}?)?[ \t]*=\s*([0-9][0-9_]*|[A-Za-z_][\w.]*)\s*(?:[,)\n#]|$)`)
	pyDictNum     = regexp.MustCompile(`['"]([A-Za-z_]\w*)['"]\s*:\s*([0-9][0-9_]*)\s*(?:[,}\n]|$)`)
	// Environment-variable defaults, read on the raw text (the default is
	// often a string): int(os.getenv("X", "5")), Number(process.env.X ?? 5).
	pyEnvNum = regexp.MustCompile(`([A-Za-z_]\w*)\s*(?::\s*int\s*)?=\s*int\(\s*os\.(?:environ\.get|getenv)\(\s*['"]([A-Za-z0-9_]+)['"]\s*,\s*['"]?([0-9]+)['"]?\s*\)\s*\)`)
	jsEnvNum = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*=\s*(?:Number|parseInt)\(\s*process\.env\.([A-Za-z0-9_]+)\s*(?:\?\?|\|\|)\s*['"]?([0-9]+)['"]?`)
	// A pydantic or dataclass field: NAME: int = Field(default=3).
	pyFieldNum = regexp.MustCompile(`([A-Za-z_]\w*)\s*:\s*[\w.]+\s*=\s*(?:Field|field)\(\s*(?:default\s*=\s*)?([0-9]+)\b`)
)

// valueIndex maps each name to its definitions in one file.
type valueIndex map[string][]valueDef

func (vi valueIndex) add(name string, d valueDef) {
	if len(vi) < maxValueDefs && len(vi[name]) < 64 {
		vi[name] = append(vi[name], d)
	}
}

// values is the file's index of integer definitions, built once.
func (f *file) values() valueIndex {
	if f.vals != nil {
		return f.vals
	}
	f.vals = valueIndex{}
	f.aliases = aliasIndex{}
	switch f.kind {
	case fkJS:
		jsValues(f, f.vals)
	case fkPython:
		pyValues(f, f.vals)
	case fkCSharp:
		csValues(f, f.vals)
	case fkGo:
		if g := f.goSource(); g != nil {
			goValues(g, f.vals)
		}
	}
	return f.vals
}

func atoiBounded(s string) (int, bool) {
	n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	return n, err == nil && n >= 0 && n <= 1_000_000
}

// before is the last byte before off that is not a space, and the word
// ending there.
func before(code []byte, off int) (byte, string) {
	i := off - 1
	for i >= 0 && (code[i] == ' ' || code[i] == '\t' || code[i] == '\n' || code[i] == '\r') {
		i--
	}
	if i < 0 {
		return '\n', ""
	}
	j := i + 1
	for i >= 0 && isWord(code[i]) {
		i--
	}
	return code[j-1], string(code[i+1 : j])
}

func jsValues(f *file, vi valueIndex) {
	code, ln := f.blanked(), f.lines()
	for _, m := range around(code, "=", jsAssignNum, 96, 80) {
		val := string(code[m[4]:m[5]])
		n, ok := atoiBounded(val)
		if !ok && !isAlias(val) {
			continue
		}
		how := "value assigned"
		switch c, w := before(code, m[2]); {
		case w == "const" || w == "let" || w == "var":
			how = "constant"
			if w != "const" {
				how = "initial value"
			}
		case c == '(' || c == ',':
			how = "default of the parameter"
		case c == '{':
			how = "default of the option"
		case w == "readonly" || w == "static" || w == "private" || w == "public" || w == "protected":
			how = "field default"
		}
		if !ok {
			f.aliases.add(string(code[m[2]:m[3]]), aliasDef{val, ln.at(m[2]), how})
			continue
		}
		vi.add(string(code[m[2]:m[3]]), valueDef{n, ln.at(m[2]), how})
	}
	for _, m := range around(code, ".default(", jsZodDefault, 400, 40) {
		if n, ok := atoiBounded(string(code[m[4]:m[5]])); ok {
			name := string(code[m[2]:m[3]])
			vi.add(name, valueDef{n, ln.at(m[2]), "default of the environment variable " + name + " (its schema)"})
		}
	}
	// const maxAttempts = options.maxAttempts ?? 3: the count a caller
	// that passes none gets.
	for _, op := range []string{"??", "||"} {
		for _, m := range around(code, op, jsFallbackNum, 160, 40) {
			if n, ok := atoiBounded(string(code[m[4]:m[5]])); ok {
				vi.add(string(code[m[2]:m[3]]), valueDef{n, ln.at(m[2]), "fallback when none is passed"})
			}
		}
	}
	for _, m := range around(code, "?", jsTernaryNum, 240, 60) {
		condValue(vi, code, ln, m)
	}
	for _, m := range around(code, ":", jsPropNum, 64, 40) {
		if n, ok := atoiBounded(string(code[m[4]:m[5]])); ok {
			vi.add("."+string(code[m[2]:m[3]]), valueDef{n, ln.at(m[2]), "value in the object"})
		}
	}
	for _, m := range around(f.raw, "process.env", jsEnvNum, 96, 120) {
		if f.code[m[0]] == ' ' {
			continue // in a comment or a string
		}
		if n, ok := atoiBounded(string(f.raw[m[6]:m[7]])); ok {
			vi.add(string(f.raw[m[2]:m[3]]), valueDef{n, ln.at(m[2]), "default of the environment variable " + string(f.raw[m[4]:m[5]])})
		}
	}
}

func pyValues(f *file, vi valueIndex) {
	code, ln := f.blanked(), f.lines()
	for _, m := range around(code, "=", pyAssignNum, 96, 80) {
		val := string(code[m[4]:m[5]])
		n, ok := atoiBounded(val)
		if !ok && !isAlias(val) {
			continue
		}
		name := string(code[m[2]:m[3]])
		how := "value assigned"
		switch c, _ := before(code, m[2]); {
		case c == '(' || c == ',':
			if !pyInDef(code, m[2]) {
				continue // a keyword argument of a call, not a definition
			}
			how = "default of the parameter"
		case atLineStart(code, m[2]) && (m[2] == 0 || code[m[2]-1] == '\n'):
			how = "constant"
		case atLineStart(code, m[2]):
			how = "attribute default"
		case c == '.' && m[2] >= 5 && string(code[m[2]-5:m[2]]) == "self." && atLineStart(code, m[2]-5):
			// self.x = x in a method: the object's own attribute takes
			// the parameter's value, its default followed (issue 37,
			// round 6: tries=self._num_max_retries).
			how = "attribute set from"
		case c == '.':
			continue
		}
		if !ok {
			f.aliases.add(name, aliasDef{val, ln.at(m[2]), how})
			continue
		}
		vi.add(name, valueDef{n, ln.at(m[2]), how})
	}
	for _, m := range around(code, "else", pyCondNum, 240, 40) {
		condValue(vi, code, ln, m)
	}
	for _, m := range around(code, "=", pyFieldNum, 96, 80) {
		if n, ok := atoiBounded(string(code[m[4]:m[5]])); ok {
			vi.add(string(code[m[2]:m[3]]), valueDef{n, ln.at(m[2]), "field default"})
		}
	}
	// Dictionary keys are strings, blanked in code: read them raw, kept
	// only where the value's digits survived blanking (not in a string).
	for _, m := range around(f.raw, ":", pyDictNum, 64, 40) {
		if code[m[4]] == ' ' {
			continue
		}
		if n, ok := atoiBounded(string(f.raw[m[4]:m[5]])); ok {
			vi.add("."+string(f.raw[m[2]:m[3]]), valueDef{n, ln.at(m[2]), "value in the dictionary"})
		}
	}
	for _, m := range around(f.raw, "os.", pyEnvNum, 96, 120) {
		if code[m[0]] == ' ' {
			continue
		}
		if n, ok := atoiBounded(string(f.raw[m[6]:m[7]])); ok {
			vi.add(string(f.raw[m[2]:m[3]]), valueDef{n, ln.at(m[2]), "default of the environment variable " + string(f.raw[m[4]:m[5]])})
		}
	}
	pyGetterValues(f, vi) // turnretry.go
	pyExprValues(f, vi)   // pydefaults.go
}

// pyInDef: the parenthesis enclosing off opens a def's (or a lambda's)
// parameters rather than a call's arguments.
func pyInDef(code []byte, off int) bool {
	depth := 0
	for i := off - 1; i >= 0 && off-i < maxArgBytes; i-- {
		switch code[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			depth--
		case '(':
			if depth == 0 {
				_, w := before(code, i)
				c, w2 := before(code, i-len(w))
				_ = c
				return w2 == "def" || w == "lambda"
			}
			depth--
		}
	}
	return false
}

// goValues: constants and variables with an integer value, and struct
// fields with a default tag (envconfig, env, koanf and friends:
// `envconfig:"RETRY_MAX" default:"10"`).
func goValues(g *goFile, vi valueIndex) {
	ast.Inspect(g.ast, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ValueSpec:
			for i, name := range x.Names {
				if i < len(x.Values) {
					if v, ok := g.literal(x.Values[i]); ok {
						how := "constant"
						if gd, ok := goDeclOf(g.ast, x); ok && gd.Tok == token.VAR {
							how = "initial value"
						}
						vi.add(name.Name, valueDef{v, g.line(name), how})
					}
				}
			}
		case *ast.Field:
			if x.Tag == nil || len(x.Names) == 0 {
				return true
			}
			tag, err := strconv.Unquote(x.Tag.Value)
			if err != nil {
				return true
			}
			st := reflect.StructTag(tag)
			def, ok := st.Lookup("default")
			if !ok {
				def, ok = st.Lookup("envDefault")
			}
			v, okn := atoiBounded(def)
			if !ok || !okn {
				return true
			}
			how := "default of the field"
			for _, k := range []string{"envconfig", "env", "split_words"} {
				if e, ok := st.Lookup(k); ok && e != "" && k != "split_words" {
					how = "default of the environment variable " + strings.Split(e, ",")[0]
					break
				}
			}
			for _, name := range x.Names {
				vi.add("."+name.Name, valueDef{v, g.line(name), how})
			}
		}
		return true
	})
}

// goDeclOf finds the declaration holding spec (const or var).
func goDeclOf(f *ast.File, spec *ast.ValueSpec) (*ast.GenDecl, bool) {
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok {
			for _, s := range gd.Specs {
				if s == spec {
					return gd, true
				}
			}
		}
	}
	return nil, false
}

// resolve gives the value of expr — a name, or a dotted path whose last
// segment is looked up as a field, option or key (cfg.RetryMax,
// this.maxAttempts, settings.max_retries) — as the file defines it.
func (f *file) resolve(expr string) (resolution, bool) {
	return f.resolveDepth(expr, 0, 0)
}

// resolveAt resolves expr as the code at line site sees it: a name bound
// more than once at module level (MAX = 3 … MAX = 10) is in force at the
// binding the site reads — the last before it for a statement at module
// level, the last in the file for code in a function (which runs after
// the module is loaded) — not the largest (issue 37's leftovers). Other
// definitions (a parameter's default beside a constant) keep the worst.
func (f *file) resolveAt(expr string, site int) (resolution, bool) {
	return f.resolveDepth(expr, 0, site)
}

// maxAliasDepth bounds a chain of names (attempts = MAX_ATTEMPTS, MAX_ATTEMPTS = 3).
const maxAliasDepth = 4

func (f *file) resolveDepth(expr string, depth, site int) (resolution, bool) {
	expr = strings.TrimSpace(expr)
	if expr == "" || len(expr) > 120 {
		return resolution{}, false
	}
	for _, c := range []byte(expr) {
		if !isWord(c) && c != '.' && c != '?' {
			return resolution{}, false // an expression, not a name
		}
	}
	vi := f.values()
	keys := []string{expr}
	if i := strings.LastIndexByte(expr, '.'); i >= 0 {
		last := expr[i+1:]
		keys = []string{last, "." + last}
	}
	var defs []valueDef
	for _, k := range keys {
		defs = append(defs, vi[k]...)
	}
	if len(defs) == 0 && depth < maxAliasDepth {
		// A name defined as another name: follow it, and say so.
		// At most 4 definitions followed per name: a chain of 4 costs
		// 4^4 lookups, whatever a hostile file defines.
		as := f.aliases[keys[0]]
		for _, a := range as[:min(len(as), 4)] {
			if a.to == expr {
				continue
			}
			if r, ok := f.resolveDepth(a.to, depth+1, 0); ok {
				defs = append(defs, valueDef{r.n, a.line, fmt.Sprintf("%s, %s = %d (%s at %s:%d)", a.how, a.to, r.n, r.how, f.rel, r.line)})
			}
		}
	}
	if len(defs) == 0 {
		return resolution{}, false
	}
	worst := defs[0]
	distinct := map[int]bool{}
	for _, d := range defs {
		distinct[d.n] = true
		if d.n > worst.n {
			worst = d
		}
	}
	r := resolution{name: expr, valueDef: worst, defs: 1}
	if len(distinct) > 1 {
		r.defs = len(defs)
		if d, ok := f.bindingAt(defs, site); ok {
			r.valueDef, r.defs, r.inForce, r.late = d, 1, len(defs), !f.atModuleLevel(site)
		}
	}
	return r, true
}

// bindingAt is the module-level binding of defs in force at line site
// (resolveAt), when every definition is one.
func (f *file) bindingAt(defs []valueDef, site int) (valueDef, bool) {
	if site <= 0 {
		return valueDef{}, false
	}
	for _, d := range defs {
		if d.how != "constant" && d.how != "value assigned" || !f.atModuleLevel(d.line) {
			return valueDef{}, false
		}
	}
	inFunction := !f.atModuleLevel(site)
	var last valueDef
	found := false
	for _, d := range defs {
		if (inFunction || d.line <= site) && (!found || d.line > last.line) {
			last, found = d, true
		}
	}
	return last, found
}

// atModuleLevel: line (1-based) starts at column 0 — a module's own
// statement, not one in a function or class body.
func (f *file) atModuleLevel(line int) bool {
	ln := f.lines()
	if line < 1 || line > len(ln) {
		return false
	}
	off := ln[line-1]
	return off < len(f.raw) && f.raw[off] != ' ' && f.raw[off] != '\t'
}

// literal is an integer literal within the audit's bounds.
func (g *goFile) literal(e ast.Expr) (int, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(lit.Value, "_", ""), 0, 64)
	return int(v), err == nil && v >= 0 && v <= 1_000_000
}

// knobExpr splits a setting as written ("maxRetries: MAX_RETRIES",
// "max_retries=settings.retries") into its key and its value expression.
func knobExpr(written string) (string, string, bool) {
	i := strings.IndexAny(written, ":=")
	if i <= 0 {
		return "", "", false
	}
	key := strings.TrimSpace(written[:i])
	val := strings.TrimSpace(written[i+1:])
	val = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(val, ";")), ",")
	return key, val, key != "" && val != ""
}

// resolvePending resolves, in f, each layer of f a detector left set from
// an expression (setUnknown) whose key is its library's knob: the value
// then counts in the library's units as a literal would, and the setting
// shows how it was resolved.
func resolvePending(f *file, ls []Layer) {
	for i := range ls {
		l := &ls[i]
		if !l.pending || l.File != f.rel {
			continue
		}
		key, expr, ok := knobExpr(l.Setting)
		d, found := Lookup(l.DefaultID)
		if !ok || !found || !knobNamed(d.Knob, key) {
			continue
		}
		if n, ok := fallbackOf(expr); ok {
			conf := l.confBefore
			l.set(n, fmt.Sprintf("%s (%d when the caller passes none)", l.Setting, n))
			l.Confidence = conf
			if conf == ConfidenceHigh {
				l.Confidence = ConfidenceMedium
			}
			l.Note = ""
			continue
		}
		r, ok := f.resolveAt(expr, l.Line)
		if !ok {
			if isName(expr) {
				l.valueName, l.valueExpr = lastSegment(expr), expr
			}
			continue
		}
		conf := l.confBefore
		l.set(r.n, l.Setting+" ("+r.text(f.rel)+")")
		// A resolved name is as sure as the match was, at most medium:
		// another caller may pass another value; low when the file gives
		// the name several values (the largest is shown).
		l.Confidence = conf
		if conf == ConfidenceHigh {
			l.Confidence = ConfidenceMedium
		}
		if r.defs > 1 {
			l.Confidence = ConfidenceLow
		}
		l.Note = ""
		l.pending = false
	}
}

// knobNamed: key, as written in code, is the knob of the row (the last
// segment of a dotted knob, any case of a separator).
func knobNamed(knob, key string) bool {
	norm := func(s string) string {
		if i := strings.LastIndexAny(s, ".["); i >= 0 {
			s = s[i+1:]
		}
		return strings.ToLower(strings.NewReplacer("_", "", "'", "", "\"", "", "]", "").Replace(s))
	}
	return knob != "" && norm(knob) == norm(key)
}

// isName: a name or a dotted path of names, nothing else.
func isName(expr string) bool {
	if expr == "" || len(expr) > 120 {
		return false
	}
	for _, c := range []byte(expr) {
		if !isWord(c) && c != '.' && c != '?' {
			return false
		}
	}
	return true
}

func lastSegment(expr string) string {
	return strings.TrimPrefix(expr[strings.LastIndexByte(expr, '.')+1:], "?")
}

// exported: a definition another file can name (a constant, a field's or
// an environment variable's default), not a parameter's default or a local
// assignment.
func exported(how string) bool {
	return how == "constant" || how == "property default" || how == "field default" || how == "attribute default" || how == "default of the field" ||
		strings.HasPrefix(how, "default of the environment variable") || how == "default of the config getter"
}

// maxValueNames bounds the names looked up across files per root.
const maxValueNames = 64

// resolveValues gives a layer whose setting names a value defined in
// another file (a config module's constant, a settings class, a Go
// package's config struct) that value. Only files that mention one of the
// names wanted are read again, so a root with nothing pending costs
// nothing; Go names are looked up in the layer's own package (directory),
// JavaScript and Python names in every file of the language. Several
// definitions: the largest, at low confidence.
func (s *rootScan) resolveValues(src []pendingFile) {
	type def struct {
		valueDef
		rel string
	}
	want := map[fileKind]map[string][]def{}
	wanted := 0
	for i := range s.layers {
		l := &s.layers[i]
		if l.valueName != "" && ownAttribute(l.valueExpr) {
			// self.max_retries is the loop's own object's: its class and
			// module, read in the file, are its scope — never another
			// file's unrelated class that happens to have a field of that
			// name (issue 37, round 6: a Qdrant upsert loop took its bound
			// from a PandasAI service's max_retries, critical).
			l.valueName = ""
		}
		if l.valueName == "" || !l.pending || wanted >= maxValueNames {
			continue
		}
		k := classify(l.File)
		if want[k] == nil {
			want[k] = map[string][]def{}
		}
		if _, ok := want[k][l.valueName]; !ok {
			want[k][l.valueName] = nil
			wanted++
		}
		if alt := lastSegment(l.valueAlt); l.valueAlt != "" && wanted < maxValueNames {
			if _, ok := want[k][alt]; !ok {
				want[k][alt] = nil
				wanted++
			}
		}
	}
	defer s.dropPendingLoops()
	if wanted == 0 {
		return
	}
	for _, p := range src {
		names := want[p.kind]
		if len(names) == 0 {
			continue
		}
		b, err := read(p.abs, s.opt.MaxFileBytes)
		if err != nil || isBinary(b) {
			continue
		}
		var hit bool
		for n := range names {
			hit = hit || bytes.Contains(b, []byte(n))
		}
		if !hit {
			continue
		}
		f := newFile(p.kind, p.rel, b, nil)
		vi := f.values()
		for n := range names {
			for _, key := range []string{n, "." + n} {
				for _, d := range vi[key] {
					if exported(d.how) {
						names[n] = append(names[n], def{d, p.rel})
					}
				}
			}
		}
	}
	// A Go struct field that no definition gives a value may be loaded
	// from a config file by its tag (`yaml:"max-retries"`): the value a
	// YAML or TOML file of the root writes under that key stands in.
	for n, defs := range want[fkGo] {
		if len(defs) == 0 {
			for _, d := range configKeyValues(src, n, s.opt.MaxFileBytes) {
				want[fkGo][n] = append(want[fkGo][n], def{d.valueDef, d.rel})
			}
		}
	}
	for i := range s.layers {
		l := &s.layers[i]
		if l.valueName == "" || !l.pending {
			continue
		}
		var defs []def
		for _, d := range want[classify(l.File)][l.valueName] {
			if l.group != "go" || path.Dir(d.rel) == path.Dir(l.File) || strings.HasPrefix(d.how, "value of the config key") {
				defs = append(defs, d)
			}
		}
		if len(defs) == 0 && l.valueAlt != "" {
			// The parameter's name is defined nowhere: its default, a
			// module's value (settings.MAX_RETRIES), stands in.
			defs = append(defs, want[classify(l.File)][lastSegment(l.valueAlt)]...)
			if len(defs) > 0 {
				l.valueExpr = l.valueAlt
			}
		}
		if len(defs) == 0 {
			continue
		}
		slices.SortFunc(defs, func(a, b def) int {
			if c := strings.Compare(a.rel, b.rel); c != 0 {
				return c
			}
			return a.line - b.line
		})
		worst, distinct := defs[0], map[int]bool{}
		for _, d := range defs {
			distinct[d.n] = true
			if d.n > worst.n {
				worst = d
			}
		}
		r := resolution{name: l.valueExpr, valueDef: worst.valueDef, defs: 1}
		conf := l.confBefore
		if conf == ConfidenceHigh {
			conf = ConfidenceMedium
		}
		if len(distinct) > 1 {
			r.defs = len(defs)
			conf = ConfidenceLow
		}
		if l.loopPending {
			attempts := r.n + l.loopOffset
			if l.loopFactor > 1 {
				attempts, _ = delayAttempts(l.loopDelay, l.loopFactor, float64(r.n), l.loopStrict)
			}
			if attempts > maxSiteBound {
				l.Setting += " (" + r.text(worst.rel) + ")"
				markUnbounded(l, attempts) // over the plausible cap (rt5 F4)
				l.Configured = true
			} else if attempts >= 2 {
				l.setAttempts(attempts, l.Setting+" ("+r.text(worst.rel)+")")
				l.loopPending = false
			}
			l.valueName = ""
			continue
		}
		l.set(r.n, l.Setting+" ("+r.text(worst.rel)+")")
		l.Confidence = conf
		l.Note = ""
		l.valueName = ""
	}
}

// maxConfigFiles bounds the files configKeyValues opens per name and
// kind.
const maxConfigFiles = 64

// configDef is a value a config file gives a struct field's key.
type configDef struct {
	valueDef
	rel string
}

// configKeyValues: the config keys tagged on Go struct fields named field
// (`yaml:"max-retries"`, toml, json, mapstructure, koanf), and the integer
// each YAML or TOML file of src writes under one (`max-retries: 5`, at any
// depth: the file's nesting is not matched to the struct's).
//
// Bounded per call: at most maxConfigFiles Go files parsed and config
// files read, so a repository of thousands of files naming the field costs
// a bounded number of reads, not one per file per name.
func configKeyValues(src []pendingFile, field string, limit int64) []configDef {
	keys := map[string]string{} // key → the Go file that tags it
	parsed := 0
	for _, p := range src {
		if p.kind != fkGo || len(keys) >= 8 || parsed >= maxConfigFiles {
			continue
		}
		b, err := read(p.abs, limit)
		if err != nil || !bytes.Contains(b, []byte(field)) {
			continue
		}
		parsed++
		g, err := parseGo(p.rel, b)
		if err != nil {
			continue
		}
		ast.Inspect(g.ast, func(n ast.Node) bool {
			x, ok := n.(*ast.Field)
			if !ok || x.Tag == nil || len(x.Names) == 0 || x.Names[0].Name != field {
				return true
			}
			tag, err := strconv.Unquote(x.Tag.Value)
			if err != nil {
				return true
			}
			for _, k := range []string{"yaml", "toml", "mapstructure", "koanf", "json"} {
				if v, ok := reflect.StructTag(tag).Lookup(k); ok {
					if key := strings.Split(v, ",")[0]; key != "" && key != "-" {
						keys[key] = p.rel
					}
				}
			}
			return true
		})
	}
	var out []configDef
	for key, gofile := range keys {
		re := regexp.MustCompile(`(?m)^[ \t]*["']?` + regexp.QuoteMeta(key) + `["']?[ \t]*[:=][ \t]*([0-9_]+)[ \t]*(?:#.*)?\r?$`)
		readN := 0
		for _, p := range src {
			if !strings.HasSuffix(p.rel, ".yaml") && !strings.HasSuffix(p.rel, ".yml") && !strings.HasSuffix(p.rel, ".toml") || readN >= maxConfigFiles {
				continue
			}
			readN++
			b, err := read(p.abs, limit)
			if err != nil || !bytes.Contains(b, []byte(key)) {
				continue
			}
			for _, m := range re.FindAllSubmatchIndex(b, 16) {
				if n, ok := atoiBounded(string(b[m[2]:m[3]])); ok {
					line := bytes.Count(b[:m[0]], []byte("\n")) + 1
					out = append(out, configDef{valueDef{n, line, "value of the config key " + key + " (tagged on " + field + " in " + gofile + ")"}, p.rel})
				}
			}
		}
	}
	return out
}

// dropPendingLoops removes the hand-rolled loops whose bound no file
// defines: a loop of unknown count is not reported as a layer.
func (s *rootScan) dropPendingLoops() {
	kept := s.layers[:0]
	for _, l := range s.layers {
		if !l.loopPending {
			kept = append(kept, l)
		}
	}
	s.layers = kept
}

// csValues: C# constants, fields, properties with initializers and
// parameter defaults (`const int MaxRetries = 3;`, `public int Retries {
// get; set; } = 5;`, `int attempts = 3` in a parameter list).
var csAssignNum = regexp.MustCompile(`([A-Za-z_]\w*)\s*(?:\{\s*get;\s*(?:set;|init;)?\s*\}\s*)?=\s*([0-9][0-9_]*)\s*[;,)]`)

func csValues(f *file, vi valueIndex) {
	code, ln := f.blanked(), f.lines()
	for _, m := range around(code, "=", csAssignNum, 96, 80) {
		n, ok := atoiBounded(string(code[m[4]:m[5]]))
		if !ok {
			continue
		}
		how := "value assigned"
		c, w := before(code, m[2])
		switch {
		case bytes.Contains(code[m[2]:m[4]], []byte("get;")):
			how = "property default"
		case w == "int" || w == "long" || w == "var" || w == "uint" || w == "short":
			// The type's own predecessor says what the name is.
			c2, w2 := before(code, m[2]-len(w)-1)
			switch {
			case c2 == '(' || c2 == ',':
				how = "default of the parameter"
			case w2 == "const" || w2 == "readonly":
				how = "constant"
			default:
				how = "initial value"
			}
		case c == '(' || c == ',':
			continue // a named argument or an assignment in a call
		}
		vi.add(string(code[m[2]:m[3]]), valueDef{n, ln.at(m[2]), how})
	}
}

// jsPyFallback: `opts.maxRetries ?? 2`, `options.retries || 3`,
// `max_retries or 3` — the literal a caller that passes nothing gets.
var jsPyFallback = regexp.MustCompile(`^[A-Za-z_$][\w$.?]*\s*(?:\?\?|\|\||\bor\b)\s*([0-9][0-9_]*)\s*$`)

func fallbackOf(expr string) (int, bool) {
	m := jsPyFallback.FindStringSubmatch(expr)
	if m == nil {
		return 0, false
	}
	return atoiBounded(m[1])
}

// aliasDef: a name defined as another name (a parameter's default that is
// a constant, a constant set from another).
type aliasDef struct {
	to   string
	line int
	how  string
}

type aliasIndex map[string][]aliasDef

func (ai aliasIndex) add(name string, d aliasDef) {
	if len(ai) < maxValueDefs && len(ai[name]) < 64 {
		ai[name] = append(ai[name], d)
	}
}

// isAlias: a value that is a name worth following (not a keyword).
func isAlias(v string) bool {
	switch v {
	case "None", "True", "False", "null", "undefined", "true", "false", "this", "self", "new":
		return false
	}
	return v != "" && !(v[0] >= '0' && v[0] <= '9')
}

// around runs re at each occurrence of anchor in hay, on a window of back
// bytes before it (never reaching back past the previous occurrence) and
// fwd after, and keeps the matches that hold that occurrence, offsets into
// hay. Matching windows rather than the whole file keeps submatch
// extraction — the slow half of Go's regexp, seconds on a hostile file of
// a megabyte — to the candidates; matches and tries are bounded per file
// like scanAt's.
// condValue indexes a value chosen by a condition (groups: the name and
// the two branches) at its larger branch.
func condValue(vi valueIndex, code []byte, ln lines, m []int) {
	a, okA := atoiBounded(string(code[m[4]:m[5]]))
	b, okB := atoiBounded(string(code[m[6]:m[7]]))
	if okA && okB {
		vi.add(string(code[m[2]:m[3]]), valueDef{max(a, b), ln.at(m[2]), fmt.Sprintf("the larger of a condition's values (%d or %d)", a, b)})
	}
}

func around(hay []byte, anchor string, re *regexp.Regexp, back, fwd int) [][]int {
	var out [][]int
	a := []byte(anchor)
	prev := 0
	for i, tries := 0, 0; i < len(hay) && len(out) < maxValueDefs && tries < 16*maxValueDefs; tries++ {
		j := bytes.Index(hay[i:], a)
		if j < 0 {
			break
		}
		p := i + j
		i = p + len(a)
		lo := max(p-back, prev)
		prev = p + len(a)
		m := re.FindSubmatchIndex(hay[lo:min(len(hay), p+len(a)+fwd)])
		if m == nil || lo+m[0] > p || lo+m[1] <= p {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += lo
			}
		}
		out = append(out, m)
	}
	return out
}

// ownAttribute: expr is an attribute of the code's own object (self.x,
// this.x, cls.x), resolved only where that object's class is written.
func ownAttribute(expr string) bool {
	for _, p := range []string{"self.", "this.", "cls.", "this?."} {
		if strings.HasPrefix(expr, p) && strings.Count(expr, ".") == 1 {
			return true
		}
	}
	return false
}
