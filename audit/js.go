package audit

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"
)

// JavaScript and TypeScript: imports say which binding is which library
// (jsImports), then a detector matches its library's call shape in the
// blanked source and reads the knob from the call's arguments.

var (
	jsImportDefault = regexp.MustCompile(`^import\s+(?:type\s+)?([A-Za-z_$][\w$]*)\s*(?:,\s*\{([^}]*)\})?\s*from\s*['"]([^'"\n]+)['"]`)
	jsImportNamed   = regexp.MustCompile(`^import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"\n]+)['"]`)
	jsImportStar    = regexp.MustCompile(`^import\s+\*\s+as\s+([A-Za-z_$][\w$]*)\s+from\s*['"]([^'"\n]+)['"]`)
	jsRequire       = regexp.MustCompile(`^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(\s*['"]([^'"\n]+)['"]\s*\)`)
	// jsRequireNamed: `const { A, B: b } = require("m")`, and the same
	// destructuring of a dynamic import (`= await import("m")`: round 7,
	// Flowise's BedrockClient loaded on first use).
	jsRequireNamed = regexp.MustCompile(`^(?:const|let|var)\s*\{([^}]*)\}\s*=\s*(?:require|(?:await\s+)?import)\(\s*['"]([^'"\n]+)['"]\s*\)`)

	// The knobs several libraries share.
	jsMaxRetries = knobRe("maxRetries")
	jsRetries    = knobRe("retries")
	jsAttempts   = knobRe("attempts")
)

// binding is a local name bound to an import.
type binding struct {
	module   string
	imported string // "default", "*", or the exported name
}

func jsImports(raw, code []byte) map[string]binding {
	bs := map[string]binding{}
	live := func(at int) bool { return code[at] != ' ' } // the keyword survived blanking: not in a comment
	named := func(list, module string) {
		for _, part := range strings.Split(list, ",") {
			part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "type "))
			if part == "" {
				continue
			}
			name, local, ok := strings.Cut(part, " as ")
			if !ok {
				local = name
			}
			if name == "default" {
				name = "default"
			}
			bs[strings.TrimSpace(local)] = binding{module, strings.TrimSpace(name)}
		}
	}
	const window = 2048
	for _, m := range scanAt(raw, "import", jsImportDefault, window) {
		if !live(m[0]) {
			continue
		}
		mod := string(raw[m[6]:m[7]])
		bs[string(raw[m[2]:m[3]])] = binding{mod, "default"}
		if m[4] >= 0 {
			named(string(raw[m[4]:m[5]]), mod)
		}
	}
	for _, m := range scanAt(raw, "import", jsImportNamed, window) {
		if live(m[0]) {
			named(string(raw[m[2]:m[3]]), string(raw[m[4]:m[5]]))
		}
	}
	for _, m := range scanAt(raw, "import", jsImportStar, window) {
		if live(m[0]) {
			bs[string(raw[m[2]:m[3]])] = binding{string(raw[m[4]:m[5]]), "*"}
		}
	}
	if bytes.Contains(code, []byte("require")) || bytes.Contains(code, []byte("import(")) || bytes.Contains(code, []byte("import (")) {
		for _, kw := range []string{"const", "let", "var"} {
			for _, m := range scanAt(raw, kw, jsRequire, window) {
				if live(m[0]) {
					bs[string(raw[m[2]:m[3]])] = binding{string(raw[m[4]:m[5]]), "default"}
				}
			}
			for _, m := range scanAt(raw, kw, jsRequireNamed, window) {
				if live(m[0]) {
					list := strings.ReplaceAll(string(raw[m[2]:m[3]]), ":", " as ")
					named(list, string(raw[m[4]:m[5]]))
				}
			}
		}
	}
	for k, b := range bs {
		if !utf8.ValidString(k) || !utf8.ValidString(b.module) || !utf8.ValidString(b.imported) {
			delete(bs, k) // as pyImports: no matcher is built from a name that is not UTF-8
		}
	}
	return bs
}

// jsCalls finds `new NAME(` (ctor) or `NAME(` calls of a binding in code,
// and returns the offset of each opening parenthesis.
func jsCalls(code []byte, name string, ctor bool) []int { return callsOf(code, name, ctor) }

// jsCallLayer is a layer of the call whose parenthesis is at open: its knob
// read from the arguments when knob is given, then tune (when given)
// reads what a knob alone cannot say.
func jsCallLayer(f *file, id string, open int, knob *regexp.Regexp, tune func(*Layer, []byte)) Layer {
	code := f.blanked()
	a, b := args(code, open)
	l := newLayer(id, f.rel, f.lines().at(open), "javascript", ConfidenceMedium)
	region := code[a:b]
	if knob != nil && !setKnob(&l, knob, region) {
		jsShorthandKnob(&l, knob, region)
	}
	if tune != nil {
		tune(&l, region)
	}
	return l
}

// jsPackage is the package a module path belongs to for the packages
// imported by subpath ('@anthropic-ai/sdk/index' is '@anthropic-ai/sdk').
func jsPackage(module string) string {
	if strings.IndexByte(module, '/') < 0 {
		return module
	}
	for _, pkg := range []string{"@anthropic-ai/sdk", "openai", "together-ai", "stripe", "p-retry", "async-retry", "ai", "bullmq", "swr", "ofetch"} {
		if len(module) > len(pkg) && module[len(pkg)] == '/' && strings.HasPrefix(module, pkg) {
			module = pkg
		}
	}
	return module
}

// firstObject is the inside of the { … } a call's first argument opens.
func firstObject(code []byte, open int) (int, int, bool) {
	k := open + 1
	for k < len(code) && (code[k] == ' ' || code[k] == '\t' || code[k] == '\n' || code[k] == '\r') {
		k++
	}
	if k >= len(code) || code[k] != '{' {
		return 0, 0, false
	}
	a, b := args(code, k)
	return a, b, true
}

// topLevel is the first match of re at the object's own level, not in a
// nested object, array or call: { concurrency: { retries: 1 } } is not
// the function's retries.
func topLevel(re *regexp.Regexp, obj []byte) []int {
	for _, m := range re.FindAllIndex(obj, maxCandidates) {
		depth := 0
		for _, c := range obj[:m[0]] {
			switch c {
			case '{', '[', '(':
				depth++
			case '}', ']', ')':
				depth--
			}
		}
		if depth == 0 {
			return m
		}
	}
	return nil
}

// jsShorthandKnob: `{ apiKey, maxRetries }` sets the knob from the local
// of that name — not the default. It is left to resolvePending, which
// gives it the file's value of the name, or keeps it unknown.
func jsShorthandKnob(l *Layer, knob *regexp.Regexp, region []byte) {
	name := knobNames[knob]
	if name == "" {
		return
	}
	for i := 0; i < len(region); {
		j := bytes.Index(region[i:], []byte(name))
		if j < 0 {
			return
		}
		at := i + j
		i = at + len(name)
		if c, _ := before(region, at); c != '{' && c != ',' {
			continue
		}
		k := i
		for k < len(region) && (region[k] == ' ' || region[k] == '\t' || region[k] == '\n' || region[k] == '\r') {
			k++
		}
		if k < len(region) && (region[k] == ',' || region[k] == '}') {
			l.setUnknown(name + ": " + name)
			return
		}
	}
}
