package audit

import (
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// LiteLLM: completion() retries only when num_retries is given, as N
// retries after the first failed call (which hands N to the provider
// client too); completion_with_retries is N attempts (3 unset); a Router
// retries twice unless told, and so does the proxy built from a config.

var (
	pyNumRetries    = knobRe("num_retries")
	pyFallbacks     = regexp.MustCompile(`\bfallbacks\s*=`)
	pyGlobalRetries = regexp.MustCompile(`(?m)^([A-Za-z_]\w*)\.num_retries\s*=\s*([0-9]+)\b`)
)

func litellm(f *file) []Layer {
	out := litellmCompletions(f)
	out = append(out, litellmWithRetries(f)...)
	out = append(out, litellmGlobals(f)...)
	return append(out, litellmRouters(f)...)
}

func litellmCompletions(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, o := range pyCallsOf(f, "litellm", "completion", "acompletion", "text_completion", "responses", "aresponses") {
		a, b := args(code, o)
		if _, ok, _, _ := intKnob(pyNumRetries, code[a:b]); !ok {
			continue
		}
		l := pyCallLayer(f, "litellm", o, pyNumRetries)
		l.Note = "the first call also passes num_retries to the provider client as max_retries: an OpenAI-backed call can make 2N+1 requests"
		out = append(out, l)
	}
	return out
}

func litellmWithRetries(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, o := range pyCallsOf(f, "litellm", "completion_with_retries", "acompletion_with_retries") {
		a, b := args(code, o)
		l := newLayer("litellm", f.rel, f.lines().at(o), "python", ConfidenceMedium)
		l.Attempts, l.Setting = 3, "completion_with_retries (num_retries not set: stop_after_attempt(3))"
		if v, ok, num, k := intKnob(pyNumRetries, code[a:b]); ok && num {
			l.setAttempts(v, snippet(code[a:b], k)+" (stop_after_attempt: attempts)")
		} else if ok {
			l.setUnknown(snippet(code[a:b], k))
		}
		out = append(out, l)
	}
	return out
}

// litellmGlobals: litellm.num_retries = N, every completion() of the
// process.
func litellmGlobals(f *file) []Layer {
	bs := f.pyImports()
	if !importsPrefix(bs, "litellm") {
		return nil
	}
	code := f.blanked()
	var out []Layer
	for _, m := range pyGlobalRetries.FindAllSubmatchIndex(code, maxCandidates) {
		if bs[string(code[m[2]:m[3]])] != "litellm" {
			continue
		}
		l := newLayer("litellm", f.rel, f.lines().at(m[0]), "python", ConfidenceMedium)
		v, _ := strconv.Atoi(string(code[m[4]:m[5]]))
		l.set(min(v, 1_000_000), strings.TrimSpace(string(code[m[0]:m[1]])))
		l.Note = "a global: every completion() of the process retries this many times"
		out = append(out, l)
	}
	return out
}

func litellmRouters(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, o := range pyCallsOf(f, "litellm", "Router") {
		a, b := args(code, o)
		l := pyCallLayer(f, "litellm-router", o, pyNumRetries)
		if pyFallbacks.Match(code[a:b]) {
			l.Note = "fallbacks: each fallback model group gets another round of these retries"
		}
		out = append(out, l)
	}
	return out
}

// litellmProxy: a LiteLLM proxy config.yaml: a top-level model_list and
// the Router the proxy builds from it, whose num_retries comes from
// router_settings, else litellm_settings, else 2.
func litellmProxy(f *file) []Layer { return perDocument(f, atMostOne(litellmProxyLayer)) }

// litellmProxyLayer is a LiteLLM proxy config.yaml: a top-level model_list
// and the Router the proxy builds from it, whose num_retries comes from
// router_settings, else litellm_settings, else 2.
func litellmProxyLayer(rel string, top *yaml.Node) (Layer, bool) {
	ml := mapValue(top, "model_list")
	if ml == nil || ml.Kind != yaml.SequenceNode {
		return Layer{}, false
	}
	l := newLayer("litellm-proxy", rel, ml.Line, "config", ConfidenceHigh)
	for _, section := range []string{"router_settings", "litellm_settings"} {
		nr := mapValue(mapValue(top, section), "num_retries")
		if nr == nil {
			continue
		}
		l.Line = nr.Line
		if n, err := strconv.Atoi(nr.Value); err == nil && n >= 0 && n <= 1_000_000 {
			l.set(n, section+".num_retries: "+nr.Value)
		} else {
			l.setUnknown(section + ".num_retries: " + nr.Value)
		}
		break
	}
	for _, section := range []string{"router_settings", "litellm_settings"} {
		if fb := mapValue(mapValue(top, section), "fallbacks"); fb != nil && len(fb.Content) > 0 {
			l.Note = "fallbacks in " + section + ": each fallback group gets another round of these retries"
		}
	}
	return l, true
}
