package audit

import (
	"bytes"
	"errors"
	"io"

	yaml "go.yaml.in/yaml/v3"
)

// file is one source or config file as every detector of its kind sees
// it. The lexed and parsed forms are built on first use and shared, so a
// file is blanked, split into lines and its imports read once however many
// detectors look at it.
type file struct {
	rel  string
	raw  []byte
	kind fileKind
	vs   versionSet // packages the root's manifests name: a shape some libraries share is trusted only when one is a dependency
	// wanted: a row with needs matched this file, so its parsed form is
	// worth building (see yamlDocs).
	wanted bool
	err    error // the first parse failure: reported as not parsed (or a template)

	code    []byte // raw with comments and string contents blanked
	visible []byte // raw with only comments blanked (noComments)
	// The catch and except blocks, and whether each handles a stall
	// (watchdog.go), found once per file.
	jsc      []jsCatch
	jscStall []bool
	jsl      []jsLoop // the JS loops (watchdog.go's jsLoops), found once: round 9's handler rules ask too
	jslDone  bool
	pyh      []pyHandler
	pyhStall []bool
	ln       lines
	has      map[string]bool
	py       map[string]string
	pyScope  *pyScopes // imports by scope: the module's and each function's (pyscope.go)
	js       map[string]binding
	gof      *goFile
	docs     []*yaml.Node
	vals     valueIndex         // integer definitions (values.go)
	aliases  aliasIndex         // names defined as other names (values.go)
	params   *paramCache        // loop bounds from parameters, per function (params.go)
	jsDefs   map[string][][]int // JS/TS function definitions by name (reask.go), indexed once
	// apiHelpers: the file's functions, by name, whose own body reaches
	// an API (offpath.go's callsAPIHelper), judged once per file.
	apiHelpers map[string]bool
	// parsed: the Go or YAML form was built (nil is a result: no parse).
	parsedGo, parsedYAML bool
}

func newFile(kind fileKind, rel string, raw []byte, vs versionSet) *file {
	return &file{rel: rel, raw: raw, kind: kind, vs: vs}
}

// blanked is the source with comments and strings blanked in its kind's
// syntax (lex.go): matching runs on it, offsets stay those of raw.
func (f *file) blanked() []byte {
	if f.code == nil {
		f.code = blank(f.raw, syntaxOf[f.kind])
	}
	return f.code
}

// readable is the source with only comments blanked: strings can be read
// (err.name === "AbortError"), comments cannot.
func (f *file) readable() []byte {
	if f.visible == nil {
		f.visible = noComments(f.raw, syntaxOf[f.kind])
	}
	return f.visible
}

func (f *file) lines() lines {
	if f.ln == nil {
		f.ln = newLines(f.raw)
	}
	return f.ln
}

// contains is bytes.Contains on the raw text, remembered: a prefilter
// asked once per document of a many-document file costs one search.
func (f *file) contains(s string) bool {
	v, ok := f.has[s]
	if !ok {
		v = bytes.Contains(f.raw, []byte(s))
		if f.has == nil {
			f.has = map[string]bool{}
		}
		f.has[s] = v
	}
	return v
}

func (f *file) containsAll(needs []string) bool {
	for _, s := range needs {
		if !f.contains(s) {
			return false
		}
	}
	return true
}

// fail records why the file could not be read; the first reason is the one
// reported.
func (f *file) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// pyImports are the Python file's import bindings (python.go).
func (f *file) pyImports() map[string]string {
	if f.py == nil {
		f.py = pyImports(f.blanked())
	}
	return f.py
}

// jsImports are the JS or TS file's import bindings (js.go).
func (f *file) jsImports() map[string]binding {
	if f.js == nil {
		f.js = jsImports(f.raw, f.blanked())
	}
	return f.js
}

// goSource is the parsed Go file, or nil when it does not parse.
func (f *file) goSource() *goFile {
	if !f.parsedGo {
		f.parsedGo = true
		g, err := parseGo(f.rel, f.raw)
		if err != nil {
			f.fail(err)
		}
		f.gof = g
	}
	return f.gof
}

// errTemplate: a Helm or other template, YAML only once rendered.
var errTemplate = errors.New("a template: render it first (helm template) and audit the output")

// maxYAMLDocs bounds a file of many documents.
const maxYAMLDocs = 1000

// yamlDocs are the top nodes of a YAML file's documents, through the first
// that does not parse. A file is parsed only when a row's needs matched it
// or it names a Kubernetes kind (the kind rows read every document parsed,
// as a JSON document writes "kind": without "kind:"). A Helm template
// ({{ }}) is not YAML until rendered: it is reported, not guessed at.
func (f *file) yamlDocs() []*yaml.Node {
	if f.parsedYAML {
		return f.docs
	}
	f.parsedYAML = true
	if !f.wanted && !f.contains("kind:") {
		return nil
	}
	if f.contains("{{") {
		f.fail(errTemplate)
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(f.raw))
	for range maxYAMLDocs {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			f.fail(err)
			break
		}
		if len(doc.Content) > 0 {
			f.docs = append(f.docs, doc.Content[0])
		}
	}
	return f.docs
}

// detectFile runs the registry's rows for kind over one file, in the
// registry's order, and returns their layers in that order with the
// file's parse failure, if any.
func detectFile(kind fileKind, rel string, raw []byte, vs versionSet) ([]Layer, error) {
	return detectIn(newFile(kind, rel, raw, vs))
}

// detectIn runs f's kind's detectors over f; the caller may read more of
// f after (its blanked source and imports are built once).
func detectIn(f *file) ([]Layer, error) {
	kind := f.kind
	rows := detectorsOf[kind]
	for _, d := range rows {
		if len(d.needs) > 0 && f.containsAll(d.needs) {
			f.wanted = true
		}
	}
	var out []Layer
	for _, d := range rows {
		if f.containsAll(d.needs) {
			out = append(out, d.detect(f)...)
		}
	}
	out = dropOffPath(f, out)
	out = dropNotLayers(f, out) // a store's retries (notlayers.go)
	resolvePending(f, out)
	return out, f.err
}

// detectorsOf is the registry by file kind, order kept.
var detectorsOf = func() map[fileKind][]detector {
	m := map[fileKind][]detector{}
	for _, d := range detectors {
		m[d.kind] = append(m[d.kind], d)
	}
	return m
}()

// The per-language entry points, as the fuzz test drives the detectors:
// one kind's rows over one file.

func scanPython(rel string, raw []byte) []Layer {
	return layersOnly(detectFile(fkPython, rel, raw, nil))
}
func scanJS(rel string, raw []byte, vs versionSet) []Layer {
	return layersOnly(detectFile(fkJS, rel, raw, vs))
}
func scanGo(rel string, raw []byte) ([]Layer, error) { return detectFile(fkGo, rel, raw, nil) }
func scanRuby(rel string, raw []byte) []Layer        { return layersOnly(detectFile(fkRuby, rel, raw, nil)) }
func scanYAML(rel string, raw []byte) ([]Layer, error) {
	k := fkYAML
	if isWorkflow(rel) {
		k = fkWorkflow
	}
	return detectFile(k, rel, raw, nil)
}
func scanNginx(rel string, raw []byte) []Layer { return layersOnly(detectFile(fkNginx, rel, raw, nil)) }
func scanClaudeSettings(rel string, raw []byte) ([]Layer, error) {
	return detectFile(fkClaudeSettings, rel, raw, nil)
}
func scanHAProxy(rel string, raw []byte) []Layer {
	return layersOnly(detectFile(fkHAProxy, rel, raw, nil))
}
func scanCodexConfig(rel string, raw []byte) ([]Layer, error) {
	return detectFile(fkCodexConfig, rel, raw, nil)
}

func layersOnly(ls []Layer, _ error) []Layer { return ls }

// perDocument runs a detector of one YAML document over each document of
// the file, in order.
func perDocument(f *file, detect func(rel string, top *yaml.Node) []Layer) []Layer {
	var out []Layer
	for _, top := range f.yamlDocs() {
		out = append(out, detect(f.rel, top)...)
	}
	return out
}

// atMostOne adapts a document detector that finds one layer or none.
func atMostOne(detect func(rel string, top *yaml.Node) (Layer, bool)) func(string, *yaml.Node) []Layer {
	return func(rel string, top *yaml.Node) []Layer {
		if l, ok := detect(rel, top); ok {
			return []Layer{l}
		}
		return nil
	}
}

// ofKind restricts a document detector to the documents of one
// Kubernetes kind.
func ofKind(kind string, detect func(rel string, top, kind *yaml.Node) (Layer, bool)) func(string, *yaml.Node) []Layer {
	return func(rel string, top *yaml.Node) []Layer {
		if k := mapValue(top, "kind"); k != nil && k.Value == kind {
			if l, ok := detect(rel, top, k); ok {
				return []Layer{l}
			}
		}
		return nil
	}
}
