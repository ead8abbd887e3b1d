package audit

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Python: the imports say which local name is which library's class or
// function (pyNames); a detector finds the calls of those names in the
// blanked source (pyCalls) and reads its knob from the call's arguments.

var (
	pyFromImport = regexp.MustCompile(`^from\s+([\w.]+)\s+import\s+(?:\(([^)]{0,1000})\)|([^\n(]+))`)
	pyImport     = regexp.MustCompile(`^import\s+([\w.]+)(?:\s+as\s+(\w+))?`)

	// The knobs several libraries share.
	pyMaxRetries = knobRe("max_retries")
	pyRetries    = knobRe("retries")
)

// pyImports maps local names to "module.Name" (or "module" for a module).
func pyImports(code []byte) map[string]string {
	bs := map[string]string{}
	sub := func(m []int, k int) string {
		if m[2*k] < 0 {
			return ""
		}
		return string(code[m[2*k]:m[2*k+1]])
	}
	for _, m := range scanAt(code, "from", pyFromImport, 1200) {
		if !atLineStart(code, m[0]) {
			continue
		}
		mod := sub(m, 1)
		list := sub(m, 2) + sub(m, 3)
		for _, part := range strings.Split(strings.ReplaceAll(list, "\\\n", " "), ",") {
			part = strings.TrimSpace(strings.Trim(strings.TrimSpace(part), "()"))
			if part == "" || part == "\\" {
				continue
			}
			name, local, ok := strings.Cut(part, " as ")
			name = strings.TrimSpace(name)
			if !ok {
				local = name
			}
			bs[strings.TrimSpace(local)] = mod + "." + name
		}
	}
	for _, m := range scanAt(code, "import", pyImport, 300) {
		if !atLineStart(code, m[0]) {
			continue
		}
		mod := sub(m, 1)
		local := mod
		if s := sub(m, 2); s != "" {
			local = s
		}
		bs[local] = mod
	}
	// A name that is not UTF-8 names nothing a detector can match, and
	// the matchers built from names (regexp.QuoteMeta keeps the bad
	// bytes) would panic on it: FuzzDetectors found `import 0RetrY\xa8`.
	for k, v := range bs {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			delete(bs, k)
		}
	}
	return bs
}

// pyCalls finds calls of NAME( or ALIAS.NAME( and returns the offsets of
// each opening parenthesis.
func pyCalls(code []byte, qualified string) []int { return callsOf(code, qualified, false) }

// pyNames returns every way this file can write module.Name: the local
// names bound to it and alias.Name for each import of the module.
func pyNames(bs map[string]string, module string, names ...string) []string {
	var out []string
	for local, full := range bs {
		// from openai import OpenAI, and from openai.lib.azure import
		// AzureOpenAI: a submodule re-exporting the class.
		if dottedPrefix(full, module) {
			for _, n := range names {
				if dottedSuffix(full, n) {
					out = append(out, local)
				}
			}
		}
		if full == module {
			for _, n := range names {
				out = append(out, local+"."+n)
			}
		}
	}
	return out
}

func importsPrefix(bs map[string]string, prefix string) bool {
	for _, full := range bs {
		if full == prefix || dottedPrefix(full, prefix) {
			return true
		}
	}
	return false
}

// pyCallLayer is a layer of the call whose parenthesis is at open, its
// knob read from the call's arguments when knob is given.
func pyCallLayer(f *file, id string, open int, knob *regexp.Regexp) Layer {
	code := f.blanked()
	a, b := args(code, open)
	l := newLayer(id, f.rel, f.lines().at(open), "python", ConfidenceMedium)
	if knob != nil {
		setKnob(&l, knob, code[a:b])
	}
	if knob == pyMaxRetries {
		if !pySplatInto(f, &l, a, b) { // Anthropic(**client_kwargs) (kwargs.go)
			pySplatReturnInto(f, &l, a, b) // OpenAI(**self._client_kwargs()) (pyspread.go)
		}
	}
	return l
}

// cutLast splits "a.b.C" into "a.b" and "C".
func cutLast(full string) (string, string, bool) {
	i := strings.LastIndexByte(full, '.')
	if i < 0 {
		return "", "", false
	}
	return full[:i], full[i+1:], true
}

// pyCallsOf are the offsets of the opening parentheses of the calls of
// module's names in the file, name by name.
func pyCallsOf(f *file, module string, names ...string) []int {
	sc := f.pyScopes()
	if len(sc.locals) == 0 {
		var out []int
		for _, n := range pyNames(f.pyImports(), module, names...) {
			out = append(out, pyCalls(f.blanked(), n)...)
		}
		return out
	}
	return sc.callsOf(f.blanked(), module, names...)
}

// dottedPrefix: name is prefix.something (strings.HasPrefix(name,
// prefix+".") without building the string: it runs per import per name).
func dottedPrefix(name, prefix string) bool {
	return len(name) > len(prefix) && name[len(prefix)] == '.' && strings.HasPrefix(name, prefix)
}

// dottedSuffix: name is something.suffix.
func dottedSuffix(name, suffix string) bool {
	return len(name) > len(suffix) && name[len(name)-len(suffix)-1] == '.' && strings.HasSuffix(name, suffix)
}
