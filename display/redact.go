package display

import (
	"regexp"
	"slices"
	"strings"
)

// Redacted is what a secret is replaced with.
const Redacted = "[redacted]"

// redactions are the credential shapes Redact takes out, in order. Each
// keeps the name (group 1) so a reader still sees which header or key
// was there, and replaces only the value.
var redactions = []*regexp.Regexp{
	// Authorization / Proxy-Authorization headers, any scheme, to the end
	// of the line: "Authorization: Basic …", "> authorization: Bearer …".
	regexp.MustCompile(`(?i)((?:proxy-)?authorization\s*[:=]\s*)[^\r\n]+`),
	// API-key headers: "x-api-key: …", "api-key: …", "x-auth-token: …".
	regexp.MustCompile(`(?i)((?:x-)?(?:api[-_]?key|auth[-_]?token|access[-_]?token)\s*:\s*)[^\s,;"']+`),
	// A bearer token wherever it stands ("Bearer eyJ…" in a JSON body).
	regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]+`),
	// key=value in a query string, a form, an env dump or a log line
	// (not "key: value": "error: invalid token: expired" is prose).
	regexp.MustCompile(`(?i)(\b[a-z0-9_.-]*(?:api[-_]?key|apikey|token|secret|password|passwd|access[-_]?key)\s*=\s*["']?)[^\s&"',;]+`),
	// "key": "value" as JSON writes it.
	regexp.MustCompile(`(?i)("[a-z0-9_.-]*(?:api[-_]?key|apikey|token|secret|password|passwd|access[-_]?key)"\s*:\s*")[^"]+`),
	// URL user-info: https://user:pass@host keeps the scheme and host.
	regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s@:]*:[^/\s@]*@`),
	// Provider key shapes standing alone: sk-…, sk-ant-…, sk-proj-…
	// (20 characters on at least: a job ID sk-learn-nightly-0001 is no
	// key, and blanking it lost the one useful line of an error), GitHub
	// tokens, AWS access key IDs, Slack tokens, JWTs.
	regexp.MustCompile(`()\b(?:eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,})`),
	// Cookies: a session is a credential.
	regexp.MustCompile(`(?i)((?:set-)?cookie\s*:\s*)[^\r\n]+`),
	// YAML's "password: x": a key naming a secret at the start of a line,
	// one word after it (prose such as "error: invalid token: expired"
	// has no such key first).
	regexp.MustCompile(`(?im)(^\s*[a-z0-9_.-]*(?:api[-_]?key|apikey|token|secret|password|passwd|access[-_]?key)\s*:\s*["']?)[^\s"']+["']?\s*$`),
	// A signed URL's signature (Azure SAS sig=, S3 X-Amz-Signature=).
	regexp.MustCompile(`(?i)([?&](?:sig|x-amz-signature|signature)=)[^&\s"']+`),
}

// Redact returns s with credentials replaced by [redacted]: Authorization
// header values (any scheme), bearer tokens, API-key headers, key=value
// pairs whose key names a token, secret, password or API key, URL
// user-info (https://user:pass@host), provider key shapes (sk-…,
// sk-ant-…) and every literal value in secrets (of 4 bytes or more: a
// shorter one would blank ordinary words). Text that matches none of
// them is returned as is. It is meant for what a kill command printed or
// a receiver answered, before it is journaled, shown or alerted on.
func Redact(s string, secrets ...string) string {
	lits := make([]string, 0, len(secrets))
	for _, v := range secrets {
		if v = strings.TrimSpace(v); len(v) >= 4 {
			lits = append(lits, v)
		}
	}
	// Longest first, so a secret that contains another goes whole.
	slices.SortFunc(lits, func(a, b string) int { return len(b) - len(a) })
	for _, v := range lits {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	for i, re := range redactions {
		if i == 5 { // user-info: keep the scheme, drop user and password
			s = re.ReplaceAllString(s, "${1}"+Redacted+"@")
			continue
		}
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			sub := re.FindStringSubmatch(m)
			if strings.HasSuffix(m, Redacted) {
				return m // already redacted (a literal secret, or an earlier shape)
			}
			return sub[1] + Redacted
		})
	}
	return s
}
