package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// A request sent again after a 401 with a refreshed token (issue 37,
// round 9's "if time remains"; round 8 missed three): the status is
// tested (`res.status === 401`, `isHTTPUnauthorized(err)`,
// `http.StatusUnauthorized`), the token refreshed, and the call made
// before the test made again — one more call, 2 tries. It re-sends on an
// expired credential only: never a retries-a-400 finding.

var (
	unauthorizedRe = regexp.MustCompile(`\b401\b|(?i:unauthori[sz]ed)`)
	refreshRe      = regexp.MustCompile(`(?i)refresh\w*`)
	// requestName: a call's last name that sends a request (fetch, doGet,
	// execute_request, post) — not a getter (getItem, getTokens).
	requestName = regexp.MustCompile(`^(?i:fetch\w*|get|post|put|patch|delete|head|request\w*|send\w*|call|invoke|query|execute\w*|\w*_request|\w*_fetch)$|^do(?:[A-Z_]\w*)?$|^\w*(?:Request|Fetch)$`)
	// localReceiver: a get of a local store, not a request.
	localReceiver = regexp.MustCompile(`(?i)(?:^|\.)\s*(?:localStorage|sessionStorage|headers|params|searchParams|environ|cache|config|map|store|dict|kwargs|options|opts)\s*\.\s*\w+$`)
)

const authWindow = 1500 // bytes read before the test (the call) and after it (refresh, call again)

func authRefreshResends(f *file) []Layer {
	if !bytes.Contains(f.raw, []byte("401")) && !bytes.Contains(f.raw, []byte("nauthori")) && !bytes.Contains(f.raw, []byte("NAUTHORI")) {
		return nil // no 401 named anywhere: a cheap refusal before the regular expressions
	}
	code := f.blanked()
	if !refreshRe.Match(code) {
		return nil
	}
	group := map[fileKind]string{fkJS: "javascript", fkGo: "go", fkPython: "python"}[f.kind]
	seen := map[int]bool{}
	var out []Layer
	for _, m := range unauthorizedRe.FindAllIndex(code, maxCandidates) {
		after := code[m[1]:min(len(code), m[1]+authWindow)]
		r := refreshRe.FindIndex(after)
		if r == nil {
			continue
		}
		// The request whose answer is tested: the last request-named call
		// before the test (not a token read on the way to it).
		sent := ""
		for _, c := range calleeRe.FindAllSubmatch(code[max(0, m[0]-authWindow):m[0]], 256) {
			if name, ok := requestCall(string(c[1])); ok {
				sent = name
			}
		}
		if sent == "" {
			continue
		}
		rest := after[r[1]:]
		for _, c := range calleeRe.FindAllSubmatchIndex(rest, 64) {
			if name, ok := requestCall(string(rest[c[2]:c[3]])); !ok || name != sent {
				continue
			}
			name := sent
			line := f.lines().at(m[1] + r[1] + c[0])
			if !seen[line] {
				seen[line] = true
				l := handRolled(f.rel, line, 2, name+"(…) sent again after a 401 and a token refresh", group,
					"a request sent again once its token is refreshed: one more call, on an expired credential only")
				l.DefaultID, l.Library, l.Retries4xx = "auth-refresh", "request sent again after a token refresh", false
				out = append(out, l)
			}
			break
		}
	}
	return out
}

// requestCall: the callee's last name, when it names a request (fetch,
// doGet, post) and is no refresh, log line or plumbing.
func requestCall(full string) (string, bool) {
	name := strings.TrimSpace(full[strings.LastIndexByte(full, '.')+1:])
	if refreshRe.MatchString(name) || loggerCall(full) || notARecall[strings.ToLower(name)] || !requestName.MatchString(name) ||
		strings.Contains(strings.ToLower(name), "token") || localReceiver.MatchString(strings.TrimSpace(full)) {
		return "", false
	}
	return name, true
}
