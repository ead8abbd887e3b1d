package audit

import (
	"bytes"
	"fmt"
	"go/ast"
	"path"
	"strings"
)

// resolveCallSites: a loop bounded by its function's parameter runs as many
// times as the largest bound any caller passes, and callers are often in
// other files — a Go package's other files, a JavaScript module importing
// the helper by a relative path, a Python module importing it from the
// helper's module or package. Each such call's literal or constant argument
// at the parameter's position (or keyword) raises the bound; a loop whose
// parameter nothing in its own file gave a value takes it from them, or
// stays pending (resolveValues, then dropped). Only files naming the
// function are read again, at most maxConfigFiles per function.
func (s *rootScan) resolveCallSites(src []pendingFile) {
	type want struct {
		fn   paramFn
		kind fileKind
		file string // the loop's file
	}
	var ws []want
	idx := map[want][]int{}
	for i := range s.layers {
		l := &s.layers[i]
		if l.calledAs == nil || len(idx) >= maxValueNames && idx[want{*l.calledAs, classify(l.File), l.File}] == nil {
			continue
		}
		w := want{*l.calledAs, classify(l.File), l.File}
		if _, ok := idx[w]; !ok {
			ws = append(ws, w)
		}
		idx[w] = append(idx[w], i)
	}
	if len(ws) == 0 {
		return
	}
	// Each file of the root is read at most once, for every function it
	// names (as resolveValues reads for values): a tree of 100,000 files
	// costs one pass, however many helpers are pending.
	sitesOf := make([][]paramSite, len(ws))
	filesOf := make([][]string, len(ws))
	readN := make([]int, len(ws))
	for _, p := range src {
		if isTestPath(p.rel) {
			continue
		}
		var mine []int
		for wi, w := range ws {
			if p.kind == w.kind && p.rel != w.file && (w.kind != fkGo || path.Dir(p.rel) == path.Dir(w.file)) {
				mine = append(mine, wi)
			}
		}
		if len(mine) == 0 {
			continue
		}
		b, err := read(p.abs, s.opt.MaxFileBytes)
		if err != nil || isBinary(b) {
			continue
		}
		var f *file
		for _, wi := range mine {
			w := ws[wi]
			if !bytes.Contains(b, []byte(w.fn.name)) {
				continue
			}
			if f == nil {
				f = newFile(p.kind, p.rel, b, nil)
			}
			// Only a file whose calls resolve to this helper (it imports
			// it from its file or its package) counts against the cap: a
			// same-named helper of another package, called in the first 64
			// files, once pushed the real caller out (R6-11). Past the cap,
			// the report says so.
			var locals []string
			if w.kind != fkGo {
				if locals = importedAs(f, w.fn.name, w.file); len(locals) == 0 {
					continue
				}
			}
			if readN[wi] >= maxConfigFiles {
				s.skip(callersCut, p.rel)
				continue
			}
			readN[wi]++
			var got []paramSite
			switch w.kind {
			case fkGo:
				got = goCallerSites(f, w.fn)
			case fkJS, fkPython:
				for _, local := range locals {
					ss, _ := callSites(f, local, -1, w.fn.k, w.fn.kw, nil)
					got = append(got, ss...)
				}
			}
			for _, g := range got {
				sitesOf[wi] = append(sitesOf[wi], g)
				filesOf[wi] = append(filesOf[wi], p.rel)
			}
		}
	}
	for wi, w := range ws {
		sites, siteFile := sitesOf[wi], filesOf[wi]
		if len(sites) == 0 {
			continue
		}
		best := 0
		for i, st := range sites {
			if st.n > sites[best].n || st.n == sites[best].n && siteFile[i] < siteFile[best] {
				best = i
			}
		}
		for _, i := range idx[w] {
			l := &s.layers[i]
			if sites[best].n <= l.callBase {
				continue
			}
			attempts := sites[best].n + l.loopOffset
			if attempts > maxSiteBound {
				// A call over the plausible cap: unbounded, never skipped
				// for the smaller values (rt5 F4).
				l.Setting = fmt.Sprintf("%s (%s = %s, %s at %s:%d)", l.Setting, w.fn.bound, boundText(sites[best].n), sites[best].how, siteFile[best], sites[best].line)
				markUnbounded(l, attempts)
				continue
			}
			if attempts < 2 {
				continue
			}
			more := ""
			if len(sites) > 1 {
				more = fmt.Sprintf("; the largest of %d values its calls in other files give it", len(sites))
			}
			l.setAttempts(attempts, fmt.Sprintf("%s (%s = %d, %s at %s:%d%s)",
				l.Setting, w.fn.bound, sites[best].n, sites[best].how, siteFile[best], sites[best].line, more))
			l.Confidence = ConfidenceLow
			l.loopPending, l.valueName = false, ""
		}
	}
}

// callersCut is the reason "Not read" gives for a file calling a helper
// past the first maxConfigFiles that do (R6-11).
const callersCut = "files calling a helper whose bound is its parameter, past the first 64 (their calls not read)"

// importedAs are the names f calls the function name of the module file
// by: a JavaScript import from a relative or @/ path, a Python import from
// its module or package (from helpers.retry import with_retry as wr).
func importedAs(f *file, name, file string) []string {
	var out []string
	switch f.kind {
	case fkJS:
		for local, b := range f.jsImports() {
			if !strings.HasPrefix(b.module, ".") && !strings.HasPrefix(b.module, "@/") {
				continue
			}
			// '../utils/index' and '../utils/index.ts' name the directory's
			// index as '../utils' does (R6-14).
			mod := jsModuleDir(b.module)
			switch {
			case b.imported == "*" && jsImportResolves(f.rel, b.module, file):
				// import * as retry from "./retry": retry.withRetry(fn, 11),
				// the module's path resolved to the helper's file.
				out = append(out, local+"."+name)
			case b.imported == name && (jsImportResolves(f.rel, b.module, file) || strings.TrimSuffix(path.Base(b.module), path.Ext(b.module)) == strings.TrimSuffix(path.Base(file), path.Ext(file)) || importsDirOf(f.rel, mod, file)):
				out = append(out, local)
			}
		}
	case fkPython:
		for local, full := range f.pyImports() {
			if mod, n, ok := cutLast(full); ok && n == name && moduleHolds(mod, file) && pyRootAbove(mod, file, f.rel) {
				out = append(out, local)
			} else if pyModulePathIs(full, file) && pyRootAbove(full, file, f.rel) {
				// from helpers import retry; import helpers.retry as pkg:
				// the module's name qualifies the call, pkg.with_retry(fn, 11).
				out = append(out, local+"."+name)
			}
		}
	}
	return out
}

// jsModuleDir is an import path without an extension or a trailing
// /index: the name a directory's index is imported by.
func jsModuleDir(module string) string {
	for _, ext := range []string{".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts"} {
		module = strings.TrimSuffix(module, ext)
	}
	return strings.TrimSuffix(module, "/index")
}

// importsDirOf: a JavaScript import of module from the file at rel names
// the directory that holds file — its index.ts re-exporting the helper
// (`import { withRetry } from "./utils"` for utils/retry.ts; round 6's
// left-outs). A relative path must resolve to that directory; an @/ path
// must end in its name.
func importsDirOf(rel, module, file string) bool {
	dir := path.Dir(file)
	if dir == "." {
		return false
	}
	if strings.HasPrefix(module, ".") {
		return path.Clean(path.Join(path.Dir(rel), module)) == dir
	}
	return strings.HasPrefix(module, "@/") && path.Base(module) == path.Base(dir)
}

// goCallerSites: the values a Go file of the same package passes at fn's
// parameter: fn(…) for a function, x.fn(…) for a method.
func goCallerSites(f *file, fn paramFn) []paramSite {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []paramSite
	for _, c := range g.calls {
		if len(out) >= maxParamSites || fn.k >= len(c.Args) {
			continue
		}
		switch x := c.Fun.(type) {
		case *ast.Ident:
			if fn.method || x.Name != fn.name {
				continue
			}
		case *ast.SelectorExpr:
			if !fn.method || x.Sel.Name != fn.name {
				continue
			}
		default:
			continue
		}
		arg := c.Args[fn.k]
		if v, ok := g.literal(arg); ok {
			out = append(out, paramSite{v, g.line(c), "passed by the call"})
		} else if id, ok := arg.(*ast.Ident); ok {
			if v, how, ok := goSiteIdent(f, g, c, id.Name); ok {
				out = append(out, paramSite{v, g.line(c), "passed by the call" + how})
			}
		}
	}
	return out
}

// isTestPath: a test's file (a _test.go, test_x.py, x.test.ts, a tests/ or
// __tests__/ directory). A test calls a helper with whatever bound it
// checks, not one a night's run uses.
func isTestPath(rel string) bool {
	base := path.Base(rel)
	return strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.Contains("/"+rel, "/__tests__/") || strings.Contains("/"+rel, "/tests/") || strings.Contains("/"+rel, "/test/")
}

// pyModulePathIs: the dotted module full is the file rel by its whole
// path (helpers.retry is helpers/retry.py or helpers/retry/__init__.py,
// under any source root), not only by its last name.
// pyRootAbove: where module mod resolves to file by its path (file is
// ROOT/mod as a path), ROOT holds the importing file — the root it runs
// from, or a package above it. Two services' own pkg/retry.py each
// answer the imports of their own files (R7-15: one's call with 5000 made
// the other's LLM helper a false critical). A module found otherwise (by
// its last name) is not judged here.
func pyRootAbove(mod, file, importer string) bool {
	p := strings.ReplaceAll(mod, ".", "/")
	f := strings.TrimSuffix(strings.TrimSuffix(file, ".py"), "/__init__")
	if f == p || !strings.HasSuffix(f, "/"+p) {
		return true
	}
	root := strings.TrimSuffix(f, "/"+p)
	return strings.HasPrefix(importer, root+"/")
}

func pyModulePathIs(full, rel string) bool {
	p := strings.ReplaceAll(full, ".", "/")
	f := strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), "/__init__")
	return f == p || strings.HasSuffix(f, "/"+p)
}
