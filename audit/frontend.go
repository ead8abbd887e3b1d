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
	// The hooks that fetch (and so retry): useSWR, useSWRInfinite,
	// useSWRImmutable, TypeScript's type arguments allowed
	// (useSWR<Vote[]>(…)); useSWRConfig reads the cache and fetches
	// nothing, useSWRMutation does not retry. <SWRConfig value={…}> sets
	// the options every hook below it takes.
	jsUsesSWR = regexp.MustCompile(`\buseSWR(?:Infinite|Immutable)?\s*(?:<[^;()]{0,200}?>\s*)?\(|<SWRConfig\b`)
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
				l.qc = queryClientDefaultsOf(r) // its queries take these (queries.go)
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
		if b.module != "swr" && b.module != "swr/infinite" && b.module != "swr/immutable" {
			continue
		}
		if m := swrFetching(code); m != nil && !jsNoRetryErr.Match(code) {
			l := newLayer("swr", f.rel, f.lines().at(m[0]), "javascript", ConfidenceMedium)
			setKnob(&l, jsErrorRetry, code)
			return []Layer{l}
		}
		break
	}
	return nil
}

// swrFetching is the first SWR hook of code that fetches: a hook whose
// fetcher is null (useSWR(key, null, { fallbackData }): SWR as a local
// store) sends nothing and retries nothing.
func swrFetching(code []byte) []int {
	for _, m := range jsUsesSWR.FindAllIndex(code, maxCandidates) {
		if code[m[1]-1] != '(' {
			return m // <SWRConfig
		}
		a, b := args(code, m[1]-1)
		if parts := topLevelArgs(code[a:b]); len(parts) >= 2 && strings.TrimSpace(string(parts[1])) == "null" {
			continue
		}
		return m
	}
	return nil
}

// topLevelArgs splits a call's argument text at its top-level commas.
func topLevelArgs(a []byte) [][]byte {
	var out [][]byte
	depth, start := 0, 0
	for i, c := range a {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, a[start:i])
				start = i + 1
			}
		}
	}
	return append(out, a[start:])
}
