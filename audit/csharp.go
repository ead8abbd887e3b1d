package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// .NET: Polly 8 resilience pipelines (AddRetry with RetryStrategyOptions),
// the HttpClient standard resilience handler, Polly 7 policies (Retry,
// WaitAndRetry, their Forever forms) and hand-rolled loops that catch and
// delay. C# is matched on the blanked source (csharp in lex.go), like
// JavaScript; a name as a bound resolves through values.go.

var (
	csStandardHandler = regexp.MustCompile(`\.AddStandardResilienceHandler\s*\(`)
	csAddRetry        = regexp.MustCompile(`\.AddRetry\s*\(`)
	csMaxRetry        = regexp.MustCompile(`\bMaxRetryAttempts\s*=\s*([0-9_]+|[A-Za-z_][\w.]*)`)
	csPolly7          = regexp.MustCompile(`\.(WaitAndRetryForever|RetryForever|WaitAndRetry|Retry)(?:Async)?\s*\(`)
	csHandLoop        = regexp.MustCompile(`^for\s*\(\s*(?:int|var)\s+(\w+)\s*=\s*([01])\s*;\s*(\w+)\s*(<=?)\s*([0-9]+|[A-Za-z_][\w.]*)\s*;`)
	csLoopCatch       = regexp.MustCompile(`\bcatch\b`)
	csLoopWait        = regexp.MustCompile(`\bTask\.Delay\s*\(|\bThread\.Sleep\s*\(|\bDelay\s*\(`)
	csFirstArg        = regexp.MustCompile(`^\s*(?:retryCount\s*:\s*)?([0-9]+|[A-Za-z_][\w.]*)\s*[,)]`)
)

// csPolly: the standard resilience handler, AddRetry, and Polly 7
// policies, in a file that names Polly or the resilience package.
func csPolly(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range csStandardHandler.FindAllIndex(code, maxCandidates) {
		l := newLayer("dotnet-http-resilience", f.rel, f.lines().at(m[0]), "csharp", ConfidenceMedium)
		// .AddStandardResilienceHandler(o => …) or .Configure(o => …)
		// right after it: o.Retry.MaxRetryAttempts = N.
		a, b := args(code, m[1]-1)
		csKnob(f, &l, code[a:b])
		k := min(b+1, len(code)) // b is the end of the file when the call never closes
		for k < len(code) && (code[k] == ' ' || code[k] == '\t' || code[k] == '\n' || code[k] == '\r') {
			k++
		}
		if rest := code[k:]; bytes.HasPrefix(rest, []byte(".Configure")) {
			if p := bytes.IndexByte(rest, '('); p > 0 && p < 64 {
				ca, cb := args(code, k+p)
				csKnob(f, &l, code[ca:cb])
			}
		}
		out = append(out, l)
	}
	for _, m := range csAddRetry.FindAllIndex(code, maxCandidates) {
		a, b := args(code, m[1]-1)
		region := code[a:b]
		id := "polly"
		if strings.Contains(string(region), "HttpRetryStrategyOptions") {
			id = "dotnet-http-resilience"
		}
		l := newLayer(id, f.rel, f.lines().at(m[0]), "csharp", ConfidenceMedium)
		csKnob(f, &l, region)
		out = append(out, l)
	}
	if !f.contains("Polly") {
		return out // .Retry( alone is too common a name to trust
	}
	for _, m := range csPolly7.FindAllSubmatchIndex(code, maxCandidates) {
		method := string(code[m[2]:m[3]])
		written := strings.TrimSpace(strings.TrimSuffix(string(code[m[0]+1:m[1]]), "("))
		l := newLayer("polly-v7", f.rel, f.lines().at(m[0]), "csharp", ConfidenceMedium)
		a, b := args(code, m[1]-1)
		region := code[a:b]
		switch {
		case strings.HasSuffix(method, "Forever"):
			l.setUnbounded(written + "()")
		case strings.TrimSpace(string(region)) == "":
			// Retry() is one retry: the row's default.
		default:
			am := csFirstArg.FindSubmatchIndex(region)
			if am == nil {
				if method == "WaitAndRetry" {
					// WaitAndRetry(new[] { … }): one retry per duration.
					if n := strings.Count(string(region), "TimeSpan."); n > 0 {
						l.set(n, "sleepDurations: "+strconv.Itoa(n)+" durations")
					}
				}
				break
			}
			tok := string(region[am[2]:am[3]])
			if n, ok := atoiBounded(tok); ok {
				l.set(n, written+"("+tok+", …)")
			} else if r, ok := f.resolve(tok); ok {
				l.set(r.n, written+"("+tok+", …) ("+r.text(f.rel)+")")
			} else {
				l.setUnknown("retryCount = " + tok)
			}
		}
		out = append(out, l)
	}
	return out
}

// csKnob reads MaxRetryAttempts = N (or a name) in region.
func csKnob(f *file, l *Layer, region []byte) {
	m := csMaxRetry.FindSubmatch(region)
	if m == nil {
		return
	}
	tok := string(m[1])
	if n, ok := atoiBounded(tok); ok {
		l.set(n, "MaxRetryAttempts = "+tok)
		return
	}
	l.setUnknown("MaxRetryAttempts = " + tok) // resolvePending: the file's value of the name
}

// csHandLoops: `for (int attempt = 0; attempt < N; attempt++)` whose body
// catches and delays.
func csHandLoops(f *file) []Layer {
	return cLoops(f, csHandLoop, csLoopCatch, csLoopWait, "csharp", "a loop that catches and delays: read it to confirm it retries the call")
}
