package audit

import (
	"regexp"
	"strconv"
	"strings"
)

// Front-end data clients that retry a failed fetch: TanStack Query, SWR,
// Apollo's RetryLink.

var (
	jsRetryKnob  = knobRe("retry")
	jsRetryTrue  = regexp.MustCompile(`\bretry\s*:\s*true\b`)
	jsRetryFalse = regexp.MustCompile(`\bretry\s*:\s*false\b`)
	jsApolloMax  = regexp.MustCompile(`\battempts\s*:\s*\{[^}]*\bmax\s*:\s*([0-9_]+)`)
	jsErrorRetry = knobRe("errorRetryCount")
	jsNoRetryErr = regexp.MustCompile(`\bshouldRetryOnError\s*:\s*false`)
	jsUsesSWR    = regexp.MustCompile(`\buseSWR\w*\s*\(|\bSWRConfig\b`)
)

// tanstackQuery: new QueryClient({ defaultOptions: { queries: { retry } } }).
func tanstackQuery(f *file) []Layer {
	var out []Layer
	for name, b := range f.jsImports() {
		mod := jsPackage(b.module)
		if !(strings.HasPrefix(mod, "@tanstack/") && strings.HasSuffix(mod, "query") || strings.HasPrefix(mod, "@tanstack/query-core")) || b.imported != "QueryClient" {
			continue
		}
		for _, o := range jsCalls(f.blanked(), name, true) {
			out = append(out, jsCallLayer(f, "tanstack-query", o, jsRetryKnob, func(l *Layer, r []byte) {
				if m := jsRetryFalse.FindIndex(r); m != nil {
					l.setAttempts(1, snippet(r, m[0]))
				} else if m := jsRetryTrue.FindIndex(r); m != nil {
					l.setUnbounded(snippet(r, m[0]))
				}
			}))
		}
	}
	return out
}

// apolloRetryLink: new RetryLink({ attempts: { max } }).
func apolloRetryLink(f *file) []Layer {
	var out []Layer
	for name, b := range f.jsImports() {
		if !strings.HasPrefix(jsPackage(b.module), "@apollo/client") || b.imported != "RetryLink" {
			continue
		}
		for _, o := range jsCalls(f.blanked(), name, true) {
			out = append(out, jsCallLayer(f, "apollo-retrylink", o, nil, func(l *Layer, r []byte) {
				if v, ok, num, _ := intKnob(jsApolloMax, r); ok && num {
					l.setAttempts(v, "attempts: { max: "+strconv.Itoa(v)+" }")
				}
			}))
		}
	}
	return out
}

// swr: one layer per file that uses it, unless errorRetryCount or
// shouldRetryOnError bounds it.
func swr(f *file) []Layer {
	code := f.blanked()
	for _, b := range f.jsImports() {
		if b.module != "swr" {
			continue
		}
		if m := jsUsesSWR.FindIndex(code); m != nil && !jsNoRetryErr.Match(code) {
			l := newLayer("swr", f.rel, f.lines().at(m[0]), "javascript", ConfidenceMedium)
			setKnob(&l, jsErrorRetry, code)
			return []Layer{l}
		}
		break
	}
	return nil
}
