package audit

import (
	"bytes"
	"sort"
	"strings"
)

// Python imports by scope (issue 37, round 9): an import inside a function
// binds its name in that function only, and there it wins over the
// module's import of the same name —
//
//	from ollama import Client            # the module's Client
//	…
//	def __init__(self, key):
//	    from cohere import Client        # this function's Client
//	    self.client = Client(api_key=key)
//
// The file-wide map (pyImports) keeps the last binding of a name; a call
// is matched here against the binding its own function sees: its
// function's import when it has one, else the module's.

// pyLocalImport is a binding made by an import inside a function.
type pyLocalImport struct {
	local, full string
	at          int // the import statement's offset
	fn, end     int // its function's head and the end of that function's block
}

type pyScopes struct {
	top    map[string]string // the module's bindings (imports outside any function)
	locals []pyLocalImport
	// splat: what pySplatReturnInto found for a method's name, read once
	// per file however many calls spread it (pyspread.go).
	splat map[string]splatFound
}

// maxScopedImports bounds the function-level imports read per file.
const maxScopedImports = 256

func (f *file) pyScopes() *pyScopes {
	if f.pyScope != nil {
		return f.pyScope
	}
	code := f.blanked()
	if !pyIndentedImport(code) {
		// Every import at the module's level (most files): the file-wide
		// map is the module's, and there is nothing to scope.
		f.pyScope = &pyScopes{top: f.pyImports()}
		return f.pyScope
	}
	sc := &pyScopes{top: map[string]string{}}
	f.pyScope = sc
	var stmts [][]int
	for _, m := range scanAt(code, "from", pyFromImport, 1200) {
		if atLineStart(code, m[0]) {
			stmts = append(stmts, m[:2])
		}
	}
	for _, m := range scanAt(code, "import", pyImport, 300) {
		if atLineStart(code, m[0]) {
			stmts = append(stmts, m[:2])
		}
	}
	sort.Slice(stmts, func(i, j int) bool { return stmts[i][0] < stmts[j][0] })
	// A function's block is measured once, however many imports it holds:
	// a function of a megabyte with hundreds of imports is read once.
	ends := map[int]int{}
	for _, m := range stmts {
		bs := pyImports(code[m[0]:m[1]])
		fn, end, ok := pyImportDefCached(code, m[0], ends)
		if !ok || len(sc.locals) >= maxScopedImports {
			for k, v := range bs {
				sc.top[k] = v
			}
			continue
		}
		for k, v := range bs {
			sc.locals = append(sc.locals, pyLocalImport{local: k, full: v, at: m[0], fn: fn, end: end})
		}
	}
	return sc
}

// pyImportDefCached is pyImportDef with the block ends already measured,
// by the offset of the line its walk back starts from: imports in a row
// in one function share it.
func pyImportDefCached(code []byte, at int, ends map[int]int) (int, int, bool) {
	fn, ok := pyFuncHeadOf(code, at)
	if !ok {
		return 0, 0, false
	}
	if end, seen := ends[fn]; seen {
		return fn, end, end > 0
	}
	_, end, ok := pyImportDef(code, at)
	if !ok {
		end = 0
	}
	ends[fn] = end
	return fn, end, ok
}

// pyFuncHeadOf: the offset of the def whose block holds at (pyImportDef's
// walk back, without measuring the block).
func pyFuncHeadOf(code []byte, at int) (int, bool) {
	ind := indentAt(code, at)
	if ind == 0 {
		return 0, false
	}
	for ls, n := lineStartBefore(code, at), 0; ls > 0 && n < 4000; n++ {
		ls = lineStartBefore(code, ls-1)
		i := ls
		for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
			i++
		}
		if i >= len(code) || code[i] == '\n' || i-ls >= ind {
			continue
		}
		ind = i - ls
		if bytes.HasPrefix(code[i:], []byte("def ")) || bytes.HasPrefix(code[i:], []byte("async def ")) {
			return i, true
		}
		if ind == 0 {
			return 0, false
		}
	}
	return 0, false
}

// pyImportDef: the def (or async def) whose block holds the statement
// at at, its head's offset and the end of its block; ok false at module
// level or in a class body, or under a try or if of the module.
func pyImportDef(code []byte, at int) (int, int, bool) {
	ind := indentAt(code, at)
	if ind == 0 {
		return 0, 0, false
	}
	for ls, n := lineStartBefore(code, at), 0; ls > 0 && n < 4000; n++ {
		ls = lineStartBefore(code, ls-1)
		i := ls
		for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
			i++
		}
		if i >= len(code) || code[i] == '\n' || i-ls >= ind {
			continue
		}
		ind = i - ls
		t := code[i:]
		if bytes.HasPrefix(t, []byte("def ")) || bytes.HasPrefix(t, []byte("async def ")) {
			// The head may run over lines: its block starts after the
			// colon that closes its parameters.
			open := bytes.IndexByte(t, '(')
			if open < 0 {
				return 0, 0, false
			}
			_, b := args(code, i+open)
			colon := bytes.IndexByte(code[b:], ':')
			if colon < 0 {
				return 0, 0, false
			}
			return i, pyBlockEndWithin(code, i, b+colon+1, 1<<22), true
		}
		if ind == 0 {
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// callsOf: the calls of module's names, each matched against the binding
// its function sees.
func (sc *pyScopes) callsOf(code []byte, module string, names ...string) []int {
	seen := map[int]bool{}
	var out []int
	add := func(o int) {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	for _, n := range pyNames(sc.top, module, names...) {
		first, _, _ := strings.Cut(n, ".")
		for _, o := range pyCalls(code, n) {
			if !sc.rebound(first, o) {
				add(o)
			}
		}
	}
	for _, li := range sc.locals {
		for _, n := range pyNames(map[string]string{li.local: li.full}, module, names...) {
			for _, o := range pyCalls(code, n) {
				if li.at < o && o < li.end {
					add(o)
				}
			}
		}
	}
	sort.Ints(out)
	return out
}

// rebound: a function holding offset o imports name itself.
func (sc *pyScopes) rebound(name string, o int) bool {
	for _, li := range sc.locals {
		if li.local == name && li.fn <= o && o < li.end {
			return true
		}
	}
	return false
}

// pyIndentedImport: some line of code starts, after indentation, with
// `import ` or `from ` — a literal search, no regexp.
func pyIndentedImport(code []byte) bool {
	for _, w := range [][]byte{[]byte("import "), []byte("from ")} {
		for i := 0; i < len(code); {
			j := bytes.Index(code[i:], w)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(w)
			if at > 0 && (code[at-1] == ' ' || code[at-1] == '\t') && atLineStart(code, at) {
				return true
			}
		}
	}
	return false
}
