package audit

import (
	"regexp"
	"strings"
)

// Durable function platforms: Inngest (Python and JS) and Trigger.dev,
// whose functions retry where they are defined.

var (
	pyCreateFn      = regexp.MustCompile(`\.create_function\s*\(`)
	jsCreateFn      = regexp.MustCompile(`\.createFunction\s*\(`)
	jsRetryObj      = regexp.MustCompile(`\bretry\s*:\s*\{`)
	jsRetriesObj    = regexp.MustCompile(`\bretries\s*:\s*\{`)
	jsDefaultObj    = regexp.MustCompile(`\bdefault\s*:\s*\{`)
	jsMaxAttemptsTD = knobRe("maxAttempts")
)

// pyInngest: @client.create_function(fn_id=…, retries=N); without retries
// it registers none and the server's default applies.
func pyInngest(f *file) []Layer {
	if !importsPrefix(f.pyImports(), "inngest") {
		return nil
	}
	code := f.blanked()
	var out []Layer
	for _, m := range pyCreateFn.FindAllIndex(code, maxCandidates) {
		a, b := args(code, m[1]-1)
		l := newLayer("inngest", f.rel, f.lines().at(m[0]), "python", ConfidenceMedium)
		setKnob(&l, pyRetries, code[a:b])
		out = append(out, l)
	}
	return out
}

// jsInngest: functions are created on a client often built in another
// file; trust .createFunction( when the file or a manifest names inngest.
func jsInngest(f *file) []Layer {
	usesInngest := f.vs.declares("npm", "inngest")
	for _, b := range f.jsImports() {
		usesInngest = usesInngest || b.module == "inngest" || strings.HasPrefix(b.module, "inngest/")
	}
	if !usesInngest {
		return nil
	}
	code, ln := f.blanked(), f.lines()
	var out []Layer
	for _, m := range jsCreateFn.FindAllIndex(code, maxCandidates) {
		a, e, ok := firstObject(code, m[1]-1)
		if !ok {
			continue
		}
		l := newLayer("inngest", f.rel, ln.at(m[0]), "javascript", ConfidenceMedium)
		if km := topLevel(jsRetries, code[a:e]); km != nil {
			setKnob(&l, jsRetries, code[a+km[0]:e])
			l.Line = ln.at(a + km[0])
		}
		out = append(out, l)
	}
	return out
}

// triggerDev: task({ retry }), schedules.task({ retry }) and
// defineConfig({ retries: { default } }) of @trigger.dev/sdk.
func triggerDev(f *file) []Layer {
	code, ln := f.blanked(), f.lines()
	var out []Layer
	for name, b := range f.jsImports() {
		if strings.TrimSuffix(b.module, "/v3") != "@trigger.dev/sdk" {
			continue
		}
		switch b.imported {
		case "task", "schemaTask", "schedules":
			if b.imported == "schedules" {
				name += ".task"
			}
			for _, o := range jsCalls(code, name, false) {
				if l, ok := triggerTask(f.rel, code, ln, o); ok {
					out = append(out, l)
				}
			}
		case "defineConfig":
			for _, o := range jsCalls(code, name, false) {
				if l, ok := triggerConfig(f.rel, code, ln, o); ok {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// triggerConfig is defineConfig's retries.default: the retry of every task
// without its own.
func triggerConfig(rel string, code []byte, ln lines, o int) (Layer, bool) {
	a, e, ok := firstObject(code, o)
	if !ok {
		return Layer{}, false
	}
	rm := topLevel(jsRetriesObj, code[a:e])
	if rm == nil {
		return Layer{}, false
	}
	ra, re := args(code, a+rm[1]-1)
	dm := topLevel(jsDefaultObj, code[ra:re])
	if dm == nil {
		return Layer{}, false
	}
	da, de := args(code, ra+dm[1]-1)
	l := triggerLayer(rel, ln.at(a+rm[0]), "retries.default", code[da:de])
	l.Note = "the default of every task without its own retry"
	return l, true
}

// triggerTask is a task({ retry: { maxAttempts } }) layer; a task without
// retry takes trigger.config's default, reported there.
func triggerTask(rel string, code []byte, ln lines, open int) (Layer, bool) {
	a, e, ok := firstObject(code, open)
	if !ok {
		return Layer{}, false
	}
	rm := topLevel(jsRetryObj, code[a:e])
	if rm == nil {
		return Layer{}, false
	}
	ra, re := args(code, a+rm[1]-1)
	return triggerLayer(rel, ln.at(a+rm[0]), "retry", code[ra:re]), true
}

// triggerLayer is a Trigger.dev retry object's layer, written at where:
// its maxAttempts, else Trigger.dev's defaultRetryOptions (3).
func triggerLayer(rel string, line int, where string, obj []byte) Layer {
	l := newLayer("trigger-dev", rel, line, "javascript", ConfidenceMedium)
	l.Attempts, l.Setting = 3, where+" without maxAttempts (defaultRetryOptions: 3)"
	if v, ok, num, at := intKnob(jsMaxAttemptsTD, obj); ok && num {
		l.setAttempts(v, where+"."+snippet(obj, at))
	} else if ok {
		l.setUnknown(snippet(obj, at))
	}
	return l
}
