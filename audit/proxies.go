package audit

import (
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Proxies and gateways that re-send a request to another server: nginx,
// HAProxy, Envoy.

// nginx: proxy_next_upstream re-sends a request to the next server of the
// upstream on error or timeout unless it is off; proxy_next_upstream_tries
// bounds it, 0 meaning one try per server.
var (
	ngxProxyPass = regexp.MustCompile(`\bproxy_pass\s+[^;]+;`)
	ngxNextOff   = regexp.MustCompile(`\bproxy_next_upstream\s+off\s*;`)
	ngxNext      = regexp.MustCompile(`\bproxy_next_upstream\s+[^;]+;`)
	ngxTries     = regexp.MustCompile(`\bproxy_next_upstream_tries\s+(\d+)\s*;`)
	ngxUpstream  = regexp.MustCompile(`\bupstream\s+[\w.-]+\s*\{`)
	// A directive starts a line or follows another's ; or a block's {:
	// "upstream up { server a:80; server b:80; }" is written on one line
	// as often as on three.
	ngxServer = regexp.MustCompile(`\bserver\s+[^;{]+;`) // within an upstream block
	// The 4xx conditions proxy_next_upstream takes are http_403,
	// http_404 and http_429 (nginx.org ngx_http_proxy_module docs); a 429
	// is worth sending elsewhere, a 403 or 404 fails on every server.
	ngx4xx = regexp.MustCompile(`\bhttp_40[34]\b`)
)

func nginx(f *file) []Layer {
	code, rel := f.blanked(), f.rel
	pp := ngxProxyPass.FindIndex(code)
	if pp == nil || ngxNextOff.Match(code) {
		return nil
	}
	ln := f.lines()
	servers := 0
	for _, m := range ngxUpstream.FindAllIndex(code, maxCandidates) {
		a, b := args(code, m[1]-1)
		servers = max(servers, len(ngxServer.FindAllIndex(code[a:b], -1)))
	}
	l := newLayer("nginx-proxy-next-upstream", rel, ln.at(pp[0]), "config", ConfidenceMedium)
	if nm := ngxNext.FindIndex(code); nm != nil {
		l.Line = ln.at(nm[0])
		l.Configured = true
		l.Setting = string(code[nm[0]:nm[1]])
		if ngx4xx.Match(code[nm[0]:nm[1]]) {
			l.Retries4xx = true // http_403 or http_404 named: a client error sent to the next server
		}
	}
	attempts := max(servers, 1)
	if tm := ngxTries.FindSubmatchIndex(code); tm != nil {
		n, _ := strconv.Atoi(string(code[tm[2]:tm[3]]))
		if n > 0 {
			attempts = n
			if servers > 0 {
				attempts = min(n, servers)
			}
			l.Configured = true
			l.Setting = string(code[tm[0]:tm[1]])
			l.Line = ln.at(tm[0])
		}
	}
	if attempts < 2 {
		return nil // one server: there is no next upstream to retry on
	}
	l.Attempts = attempts
	l.Note = strconv.Itoa(servers) + " servers in the upstream block: one try per server"
	return []Layer{l}
}

// HAProxy: `retries` (3 unless set, in defaults or the backend) counts
// retries; by default only a failed connection is retried, and retry-on
// adds conditions where a server already had the request.
var (
	hapSection = regexp.MustCompile(`(?m)^[ \t]*(global|defaults|frontend|backend|listen|resolvers|peers|userlist|cache|program|http-errors|ring|mailers)\b[^\n]*`)
	hapRetries = regexp.MustCompile(`(?m)^[ \t]*retries[ \t]+(\S+)`)
	hapRetryOn = regexp.MustCompile(`(?m)^[ \t]*retry-on[ \t]+([^\n]+)`)
	hapServer  = regexp.MustCompile(`(?m)^[ \t]*server[ \t]+\S+`)
	hapRedisp  = regexp.MustCompile(`(?m)^[ \t]*option[ \t]+redispatch\b`)
	hap4xx     = regexp.MustCompile(`\b(401|403|404|421|425)\b`)
)

// hapSettings are the retry settings in force in a section: its own, else
// those of the defaults section before it.
type hapSettings struct {
	retries, retryOn     string
	retriesAt, retryOnAt int // their lines
	redispatch           bool
}

// haproxy: the worst backend or listen section with a server.
func haproxy(f *file) []Layer {
	code, ln := f.blanked(), f.lines()
	secs := hapSection.FindAllSubmatchIndex(code, maxCandidates)
	var defaults hapSettings
	var worst Layer
	found := false
	for i, m := range secs {
		end := len(code)
		if i+1 < len(secs) {
			end = secs[i+1][0]
		}
		body := code[m[1]:end]
		kind := string(code[m[2]:m[3]])
		st := defaults
		if rm := hapRetries.FindSubmatchIndex(body); rm != nil {
			st.retries, st.retriesAt = string(body[rm[2]:rm[3]]), ln.at(m[1]+rm[0])
		}
		if om := hapRetryOn.FindSubmatchIndex(body); om != nil {
			st.retryOn, st.retryOnAt = strings.TrimSpace(string(body[om[2]:om[3]])), ln.at(m[1]+om[0])
		}
		st.redispatch = st.redispatch || hapRedisp.Match(body)
		if kind == "defaults" {
			defaults = st
		}
		if kind != "backend" && kind != "listen" || !hapServer.Match(body) {
			continue
		}
		l := hapLayer(f.rel, ln.at(m[0]), st)
		l.Note = strings.TrimPrefix(l.Note+"; "+kind+" "+strings.TrimSpace(string(code[m[3]:m[1]])), "; ")
		if l.Attempts >= 2 && (!found || worse(l, worst)) {
			worst, found = l, true
		}
	}
	if !found {
		return nil
	}
	return []Layer{worst}
}

// hapLayer is a backend's layer at line under the settings st: retries
// (3 unset) on retry-on's conditions, connection failures by default.
func hapLayer(rel string, line int, st hapSettings) Layer {
	l := newLayer("haproxy", rel, line, "config", ConfidenceMedium)
	if st.retries != "" {
		l.Line = st.retriesAt
		if n, err := strconv.Atoi(st.retries); err == nil && n >= 0 && n <= 1_000_000 {
			l.set(n, "retries "+st.retries)
		} else {
			l.setUnknown("retries " + st.retries)
		}
	}
	switch on := st.retryOn; {
	case on == "none":
		l.setAttempts(1, "retry-on none")
	case on == "" || on == "conn-failure":
		l.Note = "connection failures only: a request a server received is not re-sent"
	default:
		l.Configured = true
		l.Setting += "; retry-on " + on
		l.Retries4xx = hap4xx.MatchString(on)
		if st.retries == "" {
			l.Line = st.retryOnAt
		}
	}
	if st.redispatch {
		l.Note = strings.TrimPrefix(l.Note+"; option redispatch: the last retry goes to another server", "; ")
	}
	return l
}

// envoyLayer is a file's worst Envoy retry_policy (on a route or a virtual
// host): num_retries retries (1 unset) on the retry_on conditions. A
// policy without retry_on or retriable status codes retries nothing.
func envoyLayer(rel string, top *yaml.Node) (Layer, bool) {
	var worst Layer
	found := false
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 64 {
			return
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value != "retry_policy" || v.Kind != yaml.MappingNode {
					continue
				}
				on := mapValue(v, "retry_on")
				codes := mapValue(v, "retriable_status_codes")
				if (on == nil || on.Value == "") && codes == nil {
					continue
				}
				l := newLayer("envoy", rel, k.Line, "config", ConfidenceHigh)
				l.Attempts = 2
				l.Setting = "retry_on: " + onValue(on) + " (num_retries not set: 1 retry)"
				if nr := mapValue(v, "num_retries"); nr != nil {
					l.Line = nr.Line
					if n, err := strconv.Atoi(nr.Value); err == nil && n >= 0 && n <= 1_000_000 {
						l.set(n, "num_retries: "+nr.Value+", retry_on: "+onValue(on))
					} else {
						l.setUnknown("num_retries: " + nr.Value)
					}
				}
				l.Retries4xx = strings.Contains(onValue(on), "retriable-4xx") || has4xx(codes)
				if !found || worse(l, worst) {
					worst, found = l, true
				}
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(top, 0)
	return worst, found
}

func onValue(on *yaml.Node) string {
	if on == nil {
		return "(retriable_status_codes)"
	}
	return on.Value
}

// has4xx: retriable_status_codes names a client error other than 408 and
// 429, the same bad request sent again.
func has4xx(codes *yaml.Node) bool {
	if codes == nil {
		return false
	}
	for _, c := range codes.Content {
		if n, err := strconv.Atoi(c.Value); err == nil && n >= 400 && n < 500 && n != 408 && n != 429 {
			return true
		}
	}
	return false
}

// envoy: each document's worst retry_policy (envoyLayer).
func envoy(f *file) []Layer { return perDocument(f, atMostOne(envoyLayer)) }
