package audit

import (
	"bytes"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// The JavaScript and TypeScript form of subclass.go: class LocalChat
// extends ChatOpenAI in one module, new LocalChat(…) in another that
// imports it from there.

// jsClassDef is one "class Name extends Base" of a JS or TS file.
type jsClassDef struct {
	name, file string
	line       int
	isDefault  bool   // export default class …
	base       string // the base as written (a local name)
	id, note   string // the modelled base's row, or "" when the base is not one (yet)
	baseName   string // the modelled class's name, for the note
	// from is the module the base is imported from when it is the
	// repository's own class ("./local-chat"), for chains.
	from string
}

var jsClassExtends = regexp.MustCompile(`(?m)^[ \t]*(export[ \t]+)?(default[ \t]+)?(?:abstract[ \t]+)?class[ \t]+([A-Za-z_$][\w$]*)(?:[ \t]*<[^>{\n]{0,200}>)?[ \t]+extends[ \t]+([A-Za-z_$][\w$.]*)`)

// jsModelledBase is the row of a base class a file imports: an SDK client
// or a LangChain.js model, else "".
func jsModelledBase(b binding) (id, name, note string) {
	mod := jsPackage(b.module)
	switch {
	case mod == "@anthropic-ai/sdk" && (b.imported == "default" || b.imported == "Anthropic"):
		return "anthropic-ts", "Anthropic", "Anthropic is the SDK's client"
	case mod == "openai" && (b.imported == "default" || b.imported == "OpenAI" || b.imported == "AzureOpenAI"):
		return "openai-node", "OpenAI", "OpenAI is the SDK's client"
	case isLangChainJSModel(b):
		return "langchainjs-asynccaller", b.imported, langChainJSNote(b.module)
	}
	return "", "", ""
}

// jsClassDefs are the classes a JS or TS file defines with an extends.
func jsClassDefs(f *file) []jsClassDef {
	if !f.contains("extends") {
		return nil
	}
	code := f.blanked()
	imports := f.jsImports()
	var out []jsClassDef
	for _, m := range jsClassExtends.FindAllSubmatchIndex(code, maxCandidates) {
		d := jsClassDef{name: string(code[m[6]:m[7]]), file: f.rel, line: f.lines().at(m[6]), isDefault: m[4] >= 0, base: string(code[m[8]:m[9]])}
		if b, ok := imports[d.base]; ok {
			d.id, d.baseName, d.note = jsModelledBase(b)
			if d.id == "" && isRelativeModule(b.module) {
				d.from, d.base = b.module, b.imported
			}
		}
		out = append(out, d)
	}
	return out
}

func isRelativeModule(m string) bool {
	return strings.HasPrefix(m, "./") || strings.HasPrefix(m, "../") || strings.HasPrefix(m, "@/") || strings.HasPrefix(m, "~/")
}

// jsModuleIsFile: an import's module ("./local-chat", "@/lib/llm",
// "../models" for models/index.ts) can be the file rel: its last segment
// is the file's name without extension, or the directory of an index.
func jsModuleIsFile(mod, rel string) bool {
	if !isRelativeModule(mod) {
		return false
	}
	last := path.Base(mod)
	for _, ext := range []string{".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts"} {
		last = strings.TrimSuffix(last, ext)
	}
	return last != "" && last != "." && jsModuleName(rel) == last
}

// jsModuleName is the name an import path ends in for the file rel (its
// name without extensions, or its directory's for an index).
func jsModuleName(rel string) string {
	stem := path.Base(rel)
	if i := strings.IndexByte(stem, '.'); i > 0 {
		stem = stem[:i]
	}
	if stem == "index" {
		stem = path.Base(path.Dir(rel))
	}
	return stem
}

// inheritJS gives each class the row its chain of the repository's own
// classes leads to, and returns those with one (the caller cuts them to
// maxSubclasses and says so).
func inheritJS(defs []jsClassDef) []jsClassDef {
	const perName = 16
	byName := map[string][]int{}
	for i, d := range defs {
		if len(byName[d.name]) < perName {
			byName[d.name] = append(byName[d.name], i)
		}
	}
	for range 8 {
		changed := false
		for i := range defs {
			if defs[i].id != "" {
				continue
			}
			for _, j := range byName[defs[i].base] {
				src := defs[j]
				if src.id == "" || j == i {
					continue
				}
				if defs[i].from == "" && src.file != defs[i].file || defs[i].from != "" && !jsModuleIsFile(defs[i].from, src.file) {
					continue
				}
				defs[i].id, defs[i].note, defs[i].baseName = src.id, src.note, src.baseName
				changed = true
				break
			}
		}
		if !changed {
			break
		}
	}
	var out []jsClassDef
	for _, d := range defs {
		if d.id != "" {
			out = append(out, d)
		}
	}
	return out
}

// followJSSubclasses adds a layer at each new of a subclass of a modelled
// JS client class, in its own file or one that imports it from there.
func (s *rootScan) followJSSubclasses(src []pendingFile) {
	subs := inheritJS(s.jsClasses)
	s.jsClasses = nil
	for _, d := range subs[min(len(subs), maxSubclasses):] {
		s.skip(subclassesCut, d.file) // said, not silent (R6-7)
	}
	subs = subs[:min(len(subs), maxSubclasses)]
	if len(subs) == 0 {
		return
	}
	for _, p := range src {
		if p.kind != fkJS {
			continue
		}
		b, err := read(p.abs, s.opt.MaxFileBytes)
		if err != nil || isBinary(b) {
			continue
		}
		var named []jsClassDef
		for _, d := range subs {
			// A default export is imported under any name, but by a path
			// that ends in its module's name.
			if bytes.Contains(b, []byte(d.name)) || d.isDefault && bytes.Contains(b, []byte(jsModuleName(d.file))) {
				named = append(named, d)
			}
		}
		if len(named) == 0 {
			continue
		}
		f := newFile(fkJS, p.rel, b, nil)
		var out []Layer
		var notes []string
		seen := map[int]bool{}
		for _, d := range named {
			var locals []string
			if f.rel == d.file {
				locals = append(locals, d.name)
			} else {
				for local, bd := range f.jsImports() {
					if jsModuleIsFile(bd.module, d.file) && (bd.imported == d.name || bd.imported == "default" && d.isDefault) {
						locals = append(locals, local)
					}
				}
			}
			for _, local := range locals {
				for _, o := range jsCalls(f.blanked(), local, true) {
					if seen[o] {
						continue
					}
					seen[o] = true
					out = append(out, jsCallLayer(f, d.id, o, jsMaxRetries, nil))
					where := d.file + ":" + strconv.Itoa(d.line)
					if d.file == f.rel {
						where = "line " + strconv.Itoa(d.line)
					}
					notes = append(notes, d.name+" is this repository's subclass of "+d.baseName+" ("+where+"): "+d.note)
				}
			}
		}
		resolvePending(f, out)
		for i := range out {
			out[i].Note = strings.TrimSuffix(notes[i]+"; "+out[i].Note, "; ")
		}
		s.add(out)
	}
}
