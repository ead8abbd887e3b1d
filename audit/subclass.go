package audit

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// A repository's own subclass of a modelled client class — class
// ChatLMStudio(ChatOpenAI) in lmstudio.py, ChatLMStudio(…) in graph.py —
// builds the base's SDK client with the base's retries: a layer at each
// place it is constructed. The per-file detectors know the library's names
// only, so the classes are indexed while the files are read (pyClassDefs)
// and their constructions found in a second pass over the files that name
// one (followSubclasses), as resolveValues does for values.

// pyClassDef is one "class Name(Base, …):" of a Python file: the bases as
// the file's imports spell them in full ("langchain_openai.ChatOpenAI",
// ".lmstudio.ChatLMStudio"), and the modelled base when one is.
type pyClassDef struct {
	name, file string
	line       int
	bases      []string
	base       *pyModelled // the modelled class it extends, directly or not
	// attempts: the class body's own max_retries default (max_retries: int
	// = 5), 0 when not written; written is how.
	attempts int
	written  string
}

// pyModelled is a client class a detector models: its row, the name the
// layer's note gives it and the base's own note.
type pyModelled struct {
	id, name, note string
	unset          int
}

var (
	pyClassLine = regexp.MustCompile(`(?m)^[ \t]*class[ \t]+([A-Za-z_]\w*)[ \t]*\(([^()]{1,400})\)[ \t]*:`)
	// pyClassRetries is a class-level max_retries default (a pydantic
	// field: max_retries: int = 5, or max_retries = 5).
	pyClassRetries = regexp.MustCompile(`(?m)^[ \t]+max_retries[ \t]*(?::[^=\n]{0,40})?=[ \t]*(\d{1,6})[ \t]*(?:#.*)?$`)
)

// maxClassDefs bounds the classes one root indexes: a tree built of
// millions of one-line classes costs a bounded index.
const maxClassDefs = 20000

// maxClassHead is how much of a class body is read for its max_retries.
const maxClassHead = 16 << 10

// pyModelledClasses is every class a subclass can extend to inherit a row:
// the LangChain chat models and the SDK clients.
func pyModelledClasses() map[string]pyModelled {
	m := map[string]pyModelled{}
	for _, c := range pyChatModels {
		m[c.module+"."+c.name] = pyModelled{id: c.id, name: c.name, note: c.note, unset: c.unset}
	}
	for _, c := range pySDKClasses {
		for _, n := range c.names {
			m[c.module+"."+n] = pyModelled{id: c.id, name: n, note: n + " is the SDK's client"}
		}
	}
	return m
}

var pyModelledByName = pyModelledClasses()

// pyClassDefs are the classes a Python file defines with bases, each base
// spelled in full through the file's imports (a base the file defines
// itself stays a bare name).
func pyClassDefs(f *file) []pyClassDef {
	if !f.contains("class") {
		return nil
	}
	code := f.blanked()
	imports := f.pyImports()
	var out []pyClassDef
	for _, m := range pyClassLine.FindAllSubmatchIndex(code, maxCandidates) {
		d := pyClassDef{name: string(code[m[2]:m[3]]), file: f.rel, line: f.lines().at(m[2])}
		for _, b := range strings.Split(string(code[m[4]:m[5]]), ",") {
			b = strings.TrimSpace(b)
			if b == "" || strings.Contains(b, "=") { // metaclass=…
				continue
			}
			head, rest, dotted := strings.Cut(b, ".")
			if full, ok := imports[head]; ok {
				if dotted {
					b = full + "." + rest // import langchain_openai as lo; lo.ChatOpenAI
				} else {
					b = full
				}
			}
			d.bases = append(d.bases, b)
			if mc, ok := pyModelledByName[b]; ok && d.base == nil {
				d.base = &mc
			} else if mod, n, ok := cutLast(b); ok && d.base == nil {
				// from openai.lib.azure import AzureOpenAI: a submodule
				// re-exporting the class.
				for full, mc := range pyModelledByName {
					if fm, fn, _ := cutLast(full); fn == n && dottedPrefix(mod, fm) {
						d.base = &mc
						break
					}
				}
			}
		}
		if len(d.bases) == 0 {
			continue
		}
		// The class body: from the header to the next line at the class's
		// own indentation or less.
		body := classBody(code, m[1], m[2]-lineStartOf(code, m[2])-len("class "))
		if r := pyClassRetries.FindSubmatchIndex(body); r != nil {
			if n, ok := atoiBounded(string(body[r[2]:r[3]])); ok {
				d.attempts, d.written = n, strings.TrimSpace(string(body[r[0]:r[1]]))
			}
		}
		out = append(out, d)
	}
	return out
}

func lineStartOf(code []byte, off int) int {
	return bytes.LastIndexByte(code[:off], '\n') + 1
}

// classBody is the indented block after a class header ending at end, whose
// own indentation is indent columns.
func classBody(code []byte, end, indent int) []byte {
	// Read at most maxClassHead bytes of it: a class's own defaults come
	// first, and nested classes would otherwise each walk the rest of the
	// file (quadratic in a file built of them).
	code = code[:min(len(code), end+maxClassHead)]
	i := end
	if nl := bytes.IndexByte(code[i:], '\n'); nl >= 0 {
		i += nl + 1
	} else {
		return nil
	}
	start := i
	for i < len(code) {
		nl := bytes.IndexByte(code[i:], '\n')
		line := code[i:]
		if nl >= 0 {
			line = code[i : i+nl]
		}
		t := bytes.TrimLeft(line, " \t")
		if len(t) > 0 && len(line)-len(t) <= indent {
			break
		}
		if nl < 0 {
			return code[start:]
		}
		i += nl + 1
	}
	return code[start:i]
}

// inheritModelled gives each class the modelled base its chain of the
// repository's own classes leads to (class B(A), class A(ChatOpenAI)),
// and returns the ones that have one. A base that is another class of the
// root is matched by name and the module it is imported from.
func inheritModelled(defs []pyClassDef) []pyClassDef {
	// A name defined by more classes than this is looked up in the first
	// few only: a tree of thousands of classes of one name costs a bounded
	// walk, not a product.
	const perName = 16
	byName := map[string][]int{}
	for i, d := range defs {
		if len(byName[d.name]) < perName {
			byName[d.name] = append(byName[d.name], i)
		}
	}
	for range 8 { // chains deeper than 8 classes are not followed
		changed := false
		for i := range defs {
			if defs[i].base != nil {
				continue
			}
			for _, b := range defs[i].bases {
				mod, n, dotted := cutLast(b)
				if !dotted {
					n = b
				}
				for _, j := range byName[n] {
					if defs[j].base == nil || j == i {
						continue
					}
					if dotted && !moduleHolds(mod, defs[j].file) || !dotted && defs[j].file != defs[i].file {
						continue
					}
					defs[i].base = defs[j].base
					if defs[i].attempts == 0 {
						defs[i].attempts, defs[i].written = defs[j].attempts, defs[j].written
					}
					changed = true
					break
				}
				if defs[i].base != nil {
					break
				}
			}
		}
		if !changed {
			break
		}
	}
	var out []pyClassDef
	for _, d := range defs {
		if d.base != nil {
			out = append(out, d)
		}
	}
	return out
}

// subclassesCut is the reason the report's "Not read" gives for the
// subclasses past maxSubclasses (R6-7): their uses are not followed.
const subclassesCut = "subclasses of a modelled client past the first 64 (their uses not followed; audit their directories alone)"

// maxSubclasses bounds the subclasses followed into other files, as
// maxValueNames bounds the values: each is a search of every Python file.
const maxSubclasses = 64

// moduleIsFile: the module an import names (".lmstudio",
// "ollama_deep_researcher.lmstudio", "pkg" for pkg/__init__.py) can be
// the file rel. Only the last segment is compared: a repository's import
// roots (src/, a package directory) are not known.
func moduleIsFile(mod, rel string) bool {
	last := mod
	if i := strings.LastIndexByte(mod, '.'); i >= 0 {
		last = mod[i+1:]
	}
	if last == "" {
		return false
	}
	stem := strings.TrimSuffix(path.Base(rel), ".py")
	if stem == "__init__" {
		stem = path.Base(path.Dir(rel))
	}
	return stem == last
}

// followSubclasses adds a layer at each construction of a subclass of a
// modelled class, in the file that defines it or any that imports it from
// there. Only the files that name one of the classes are read again.
func (s *rootScan) followSubclasses(src []pendingFile) {
	subs := inheritModelled(s.pyClasses)
	s.pyClasses = nil
	// The subclasses that have a modelled base first, then the cap, said
	// in the report (a cut was silent: R6-7).
	for _, d := range subs[min(len(subs), maxSubclasses):] {
		s.skip(subclassesCut, d.file)
	}
	subs = subs[:min(len(subs), maxSubclasses)]
	if len(subs) == 0 {
		return
	}
	for _, p := range src {
		if p.kind != fkPython {
			continue
		}
		b, err := read(p.abs, s.opt.MaxFileBytes)
		if err != nil || isBinary(b) {
			continue
		}
		var named []pyClassDef
		for _, d := range subs {
			if bytes.Contains(b, []byte(d.name)) {
				named = append(named, d)
			}
		}
		if len(named) == 0 {
			continue
		}
		f := newFile(fkPython, p.rel, b, nil)
		var out []Layer
		var notes []string
		seen := map[int]bool{} // one layer a call, however many classes of its name match
		for _, d := range named {
			for _, local := range subclassNames(f, d) {
				for _, o := range pyCalls(f.blanked(), local) {
					if seen[o] || isDefinition(f.blanked(), o-len(local)) {
						continue
					}
					seen[o] = true
					out = append(out, subclassLayer(f, d, o))
					notes = append(notes, subclassNote(f, d))
				}
			}
		}
		resolvePending(f, out)
		// The note says where the row comes from; a note of the value's
		// own (not resolved) follows it.
		for i := range out {
			out[i].Note = strings.TrimSuffix(notes[i]+"; "+out[i].Note, "; ")
		}
		s.add(out)
	}
}

// subclassNames are the ways file f can write the class d: its own name in
// the file that defines it, else the local names of an import of it from
// a module that can be d's file (from .lmstudio import ChatLMStudio as
// LM; import pkg.lmstudio as lm → lm.ChatLMStudio).
func subclassNames(f *file, d pyClassDef) []string {
	var out []string
	if f.rel == d.file {
		out = append(out, d.name)
	}
	for local, full := range f.pyImports() {
		mod, n, ok := cutLast(full)
		switch {
		case ok && n == d.name && moduleHolds(mod, d.file) && f.rel != d.file:
			out = append(out, local)
		case moduleHolds(full, d.file) && f.rel != d.file:
			out = append(out, local+"."+d.name)
		}
	}
	// model = WrappedChatOpenAI … model(**kwargs) (kwargs.go).
	return append(out, pyClassAliases(f, out)...)
}

var pyDefHead = regexp.MustCompile(`(?:^|[ \t])(?:class|def)[ \t]+$`)

// isDefinition: the name at off is the one a class or def line defines
// (class ChatLMStudio(ChatOpenAI): is no construction).
func isDefinition(code []byte, off int) bool {
	return off >= 0 && pyDefHead.Match(code[lineStartOf(code, off):off])
}

func subclassLayer(f *file, d pyClassDef, open int) Layer {
	code := f.blanked()
	a, b := args(code, open)
	l := newLayer(d.base.id, f.rel, f.lines().at(open), "python", ConfidenceMedium)
	switch v, ok, num, k := intKnob(pyMaxRetries, code[a:b]); {
	case ok && num:
		l.set(v, snippet(code[a:b], k))
	case ok:
		l.setUnknown(snippet(code[a:b], k))
	case d.attempts > 0 || d.written != "":
		l.set(d.attempts, fmt.Sprintf("%s (the class's default, %s:%d)", d.written, d.file, d.line))
	case d.base.unset > 0:
		l.Attempts = d.base.unset
		l.Setting = fmt.Sprintf("max_retries (not set: %s's default, %d attempts)", d.base.name, d.base.unset)
	}
	pySplatInto(f, &l, a, b) // model(**kwargs) (kwargs.go)
	l.Note = ""
	if l.pending {
		l.Note = fmt.Sprintf("set from an expression the audit cannot evaluate; the default (%s) is shown", attemptsText(l))
	}
	return l
}

// subclassNote says which class of the repository a layer's row comes from.
func subclassNote(f *file, d pyClassDef) string {
	where := fmt.Sprintf("%s:%d", d.file, d.line)
	if d.file == f.rel {
		where = fmt.Sprintf("line %d", d.line)
	}
	return fmt.Sprintf("%s is this repository's subclass of %s (%s): %s", d.name, d.base.name, where, d.base.note)
}

// moduleHolds: a name imported from module mod can be the class defined in
// rel — rel is mod's file, or a module of the package mod names (from
// agents import LocalChat, where agents/__init__.py re-exports it from
// agents/local_chat.py: importing it so from a package that did not would
// fail, so the package's own modules are where it is defined).
func moduleHolds(mod, rel string) bool {
	if moduleIsFile(mod, rel) {
		return true
	}
	last := mod[strings.LastIndexByte(mod, '.')+1:]
	dir := path.Dir(rel)
	return last != "" && dir != "." && path.Base(dir) == last && path.Base(rel) != "__init__.py"
}
