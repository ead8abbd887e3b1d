package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// ofetch (unjs, and Nuxt's $fetch): every call retries by its retry
// option, and with none it retries a request once unless its method
// carries a payload (PATCH, POST, PUT, DELETE) — unjs/ofetch src/fetch.ts
// @dfbe3ca4ef8a (issue 37, round 8: chatbox's thirteen calls, no row).

var (
	jsOfetchRetry  = knobRe("retry")
	jsOfetchMethod = regexp.MustCompile(`\bmethod\s*([:,}])`)
	jsQuotedSixKey = regexp.MustCompile(`["'] {6}["']\s*:`)
	jsQuotedMethod = regexp.MustCompile(`^["']method["']\s*:`)
	jsMethodLit    = regexp.MustCompile(`^\s*['"` + "`" + `]([A-Za-z]+)['"` + "`" + `]`)
)

// ofetchPayloadMethods are the methods ofetch does not retry by default
// (isPayloadMethod).
var ofetchPayloadMethods = map[string]bool{"PATCH": true, "POST": true, "PUT": true, "DELETE": true}

// jsOfetch: ofetch(url, opts), $fetch(url, opts), ofetch.raw(url, opts)
// and $fetch.raw of a file importing them from ofetch. A call with
// retry: N is N + 1 attempts whatever its method; retry: false or 0 is
// none; with no retry a GET (the method when none is written) is 2 and a
// POST none. Options passed as a variable leave the method unread: the
// default is shown at low confidence.
func jsOfetch(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	locals := map[string]bool{}
	for name, b := range f.jsImports() {
		if jsPackage(b.module) != "ofetch" || b.imported != "ofetch" && b.imported != "$fetch" && b.imported != "default" {
			continue
		}
		locals[name] = true
		opens := callsOf(code, name, false)
		opens = append(opens, callsOf(code, name+".raw", false)...)
		for _, o := range opens {
			if l, ok := ofetchLayer(f, o, nil); ok {
				out = append(out, l)
			}
		}
	}
	if len(locals) == 0 || !bytes.Contains(code, []byte("create")) {
		return out
	}
	// const api = ofetch.create({ baseURL, retry: 2 }): the instance's
	// calls take its options' retry unless they set their own. One pass
	// over the file, however many names ofetch is imported by.
	for _, m := range jsOfetchCreate.FindAllSubmatchIndex(code, maxCandidates) {
		if !locals[string(code[m[4]:m[5]])] {
			continue
		}
		inst := string(code[m[2]:m[3]])
		open := m[1] - 1
		d := ofetchDefaults{}
		if ob, oe, ok := firstObject(code, open); ok {
			if t := topLevel(jsOfetchRetry, code[ob:oe]); t != nil {
				sub := jsOfetchRetry.FindSubmatchIndex(code[ob+t[0] : oe])
				d.set, d.written = true, snippet(code[ob:oe], t[0])
				v := strings.TrimSpace(string(code[ob+t[0]+sub[2] : ob+t[0]+sub[3]]))
				if n, ok := numExpr(v); ok && !strings.HasPrefix(v, "-") {
					d.n = n
				} else if v == "false" || strings.HasPrefix(v, "-") {
					d.n = 0
				} else {
					d.unknown = true
				}
			}
		}
		for _, o := range append(callsOf(code, inst, false), callsOf(code, inst+".raw", false)...) {
			if l, ok := ofetchLayer(f, o, &d); ok {
				out = append(out, l)
			}
		}
		if len(out) >= maxCandidates {
			break
		}
	}
	return out
}

var jsOfetchCreate = regexp.MustCompile(`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*([A-Za-z_$][\w$]*)\s*\.\s*create\s*\(`)

// ofetchDefaults are an ofetch.create instance's options: its retry, when
// written (set), as a count or unknown.
type ofetchDefaults struct {
	set, unknown bool
	n            int
	written      string
}

// ofetchLayer reads one call whose parenthesis is at open; inst, when
// given, holds the options of the instance it is a call of.
func ofetchLayer(f *file, open int, inst *ofetchDefaults) (Layer, bool) {
	code, text := f.blanked(), f.readable()
	a, b := args(code, open)
	l := newLayer("ofetch", f.rel, f.lines().at(open), "javascript", ConfidenceMedium)
	comma := topComma(code[a:b])
	if inst != nil && inst.set && !jsOfetchRetry.Match(code[a:b]) {
		// The instance's retry holds for every method.
		switch {
		case inst.unknown:
			l.setUnknown(inst.written + " (the instance's)")
		case inst.n <= 0:
			return Layer{}, false
		default:
			l.set(inst.n, inst.written+" (the instance's)")
		}
		return l, true
	}
	if comma < 0 {
		return l, true // ofetch(url): a GET, retried once
	}
	oa := a + comma + 1
	for oa < b && isSpace(code[oa]) {
		oa++
	}
	if oa >= b {
		return l, true
	}
	if code[oa] != '{' {
		// ofetch(url, options): what options holds is not read here.
		l.Confidence = ConfidenceLow
		l.Note = "the options are a variable: its method is not read (a GET retries once by default, a POST not at all)"
		return l, true
	}
	ob := oa + 1
	_, oe := args(code, oa)
	obj, objText := code[ob:oe], text[ob:oe]
	if t := topLevel(jsOfetchRetry, obj); t != nil {
		m := jsOfetchRetry.FindSubmatchIndex(obj[t[0]:])
		v := strings.TrimSpace(string(obj[t[0]+m[2] : t[0]+m[3]]))
		m[0] = t[0]
		switch v {
		case "false", "0":
			return Layer{}, false // retries off: no layer
		}
		if n, ok := numExpr(v); ok {
			if n <= 0 || strings.HasPrefix(v, "-") { // retries > 0 is ofetch's test: -1 is none
				return Layer{}, false
			}
			l.set(n, snippet(obj, m[0]))
			return l, true
		}
		l.setUnknown(snippet(obj, m[0]))
		return l, true
	}
	if bytes.Contains(obj, []byte("...")) {
		// { ...defaults, headers }: a spread may carry retry or method.
		l.Confidence = ConfidenceLow
		l.Note = "the options spread another object: its retry and method are not read"
	}
	// The method is found in the blanked object (a brace or a key
	// inside a string cannot move it) and read from the source text. A
	// quoted key, blanked with the strings, is found where the blanked
	// object holds a six-character string key that reads "method" (R7-8).
	m := topLevel(jsOfetchMethod, obj)
	if m == nil {
		if q := topLevel(jsQuotedSixKey, obj); q != nil && jsQuotedMethod.Match(objText[q[0]:]) {
			m = []int{q[0], q[1]}
		}
	}
	if m != nil {
		lit := jsMethodLit.FindSubmatch(objText[m[1]:])
		if obj[m[1]-1] != ':' || lit == nil {
			// method, or method: opts.method — not a literal.
			l.Confidence = ConfidenceLow
			l.Note = "the method is not a literal: a GET retries once by default, a POST not at all"
			return l, true
		}
		if ofetchPayloadMethods[strings.ToUpper(string(lit[1]))] {
			return Layer{}, false // a POST with no retry: ofetch sends it once
		}
	}
	return l, true
}

// topComma is the offset of the first comma of region at its own level
// (the end of a call's first argument), or -1.
func topComma(region []byte) int {
	depth := 0
	for i, c := range region {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
