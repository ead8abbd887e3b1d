package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	yaml "go.yaml.in/yaml/v3"
)

// Ruby: Sidekiq job classes.
var (
	rbInclude = regexp.MustCompile(`\binclude\s+Sidekiq::(?:Job|Worker)\b`)
	rbOptions = regexp.MustCompile(`\bsidekiq_options\b[^\n]*`)
	rbRetry   = regexp.MustCompile(`\bretry:\s*(\d+|true|false|nil)`)
)

func scanRuby(rel string, raw []byte) []Layer {
	code := blank(raw, rubySyntax)
	ln := newLines(raw)
	var out []Layer
	incs := rbInclude.FindAllIndex(code, maxCandidates)
	for i, m := range incs {
		end := len(code)
		if i+1 < len(incs) {
			end = incs[i+1][0]
		}
		l := newLayer("sidekiq", rel, ln.at(m[0]), "ruby", ConfidenceMedium)
		if om := rbOptions.FindIndex(code[m[1]:end]); om != nil {
			opts := code[m[1]+om[0] : m[1]+om[1]]
			if rm := rbRetry.FindSubmatch(opts); rm != nil {
				l.Line = ln.at(m[1] + om[0])
				switch v := string(rm[1]); v {
				case "false", "nil":
					l.setAttempts(1, string(rm[0]))
				case "true":
					l.Configured, l.Setting = true, string(rm[0])
				default:
					n, _ := strconv.Atoi(v)
					l.set(n, string(rm[0]))
				}
			}
		}
		if l.Attempts == 1 && !l.Unbounded {
			continue // retry: false is no layer
		}
		out = append(out, l)
	}
	return out
}

// errTemplate: a Helm or other template, YAML only once rendered.
var errTemplate = errors.New("a template: render it first (helm template) and audit the output")

// maxYAMLDocs bounds a file of many documents.
const maxYAMLDocs = 1000

// scanYAML reads Kubernetes Jobs and CronJobs through a YAML parser. A
// Helm template ({{ }}) is not YAML until rendered: it is reported as not
// parsed rather than guessed at.
func scanYAML(rel string, raw []byte) ([]Layer, error) {
	if strings.HasPrefix(rel, ".github/workflows/") || strings.Contains(rel, "/.github/workflows/") {
		if !bytes.Contains(raw, []byte("nick-fields/retry")) {
			return nil, nil
		}
		return scanWorkflow(rel, raw)
	}
	sfn := bytes.Contains(raw, []byte("StartAt")) && bytes.Contains(raw, []byte("Retry"))
	envoy := bytes.Contains(raw, []byte("retry_policy"))
	litellmProxy := bytes.Contains(raw, []byte("model_list"))
	airflowEnv := bytes.Contains(raw, []byte(airflowRetriesEnv))
	// ingress-nginx annotations: in Ingress manifests and in Helm values
	// (ingress.annotations of a chart), which have no kind.
	ingress := bytes.Contains(raw, []byte(ingressNextUpstream))
	if !sfn && !envoy && !litellmProxy && !airflowEnv && !ingress && !bytes.Contains(raw, []byte("kind:")) {
		return nil, nil
	}
	if bytes.Contains(raw, []byte("{{")) {
		return nil, errTemplate
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var out []Layer
	for range maxYAMLDocs {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		if len(doc.Content) == 0 {
			continue
		}
		top := doc.Content[0]
		if sfn {
			out = append(out, stateMachines(rel, top, 0)...)
		}
		if envoy {
			if l, ok := envoyLayer(rel, top); ok {
				out = append(out, l)
			}
		}
		if litellmProxy {
			if l, ok := litellmProxyLayer(rel, top); ok {
				out = append(out, l)
			}
		}
		if airflowEnv {
			out = append(out, airflowEnvLayers(rel, top, 0)...)
		}
		if ingress {
			out = append(out, ingressAnnotations(rel, top, 0)...)
		}
		kind := mapValue(top, "kind")
		if kind == nil {
			continue
		}
		if kind.Value == "Ingress" {
			if l, ok := nginxIngressDefault(rel, top, kind); ok {
				out = append(out, l)
			}
			continue
		}
		if kind.Value == "VirtualService" {
			if l, ok := istioLayer(rel, top); ok {
				out = append(out, l)
			}
			continue
		}
		var spec *yaml.Node
		switch kind.Value {
		case "Job":
			spec = mapValue(top, "spec")
		case "CronJob":
			spec = mapValue(mapValue(mapValue(top, "spec"), "jobTemplate"), "spec")
		default:
			continue
		}
		if spec == nil {
			continue
		}
		l := newLayer("kubernetes-job", rel, kind.Line, "config", ConfidenceHigh)
		if bl := mapValue(spec, "backoffLimit"); bl != nil {
			l.Line = bl.Line
			if n, err := strconv.Atoi(bl.Value); err == nil && n >= 0 && n <= 1_000_000 {
				l.set(n, "backoffLimit: "+bl.Value)
			} else {
				l.setUnknown("backoffLimit: " + bl.Value)
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// scanWorkflow reads a GitHub Actions workflow's nick-fields/retry steps.
func scanWorkflow(rel string, raw []byte) ([]Layer, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	jobs := mapValue(doc.Content[0], "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return nil, nil
	}
	var out []Layer
	for i := 1; i < len(jobs.Content); i += 2 {
		steps := mapValue(jobs.Content[i], "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			continue
		}
		for _, st := range steps.Content {
			uses := mapValue(st, "uses")
			if uses == nil || !strings.HasPrefix(uses.Value, "nick-fields/retry@") {
				continue
			}
			l := newLayer("gha-retry", rel, uses.Line, "config", ConfidenceHigh)
			if ma := mapValue(mapValue(st, "with"), "max_attempts"); ma != nil {
				l.Line = ma.Line
				if n, err := strconv.Atoi(ma.Value); err == nil && n > 0 && n <= 1_000_000 {
					l.setAttempts(n, "max_attempts: "+ma.Value)
				} else {
					l.setUnknown("max_attempts: " + ma.Value)
				}
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// stateMachines finds Amazon States Language definitions anywhere in a
// document (a .asl.json file, a serverless.yml or SAM template) and makes a
// layer of each state with retriers: its worst retrier, MaxAttempts
// retries (3 when unset).
func stateMachines(rel string, n *yaml.Node, depth int) []Layer {
	if n == nil || depth > 64 {
		return nil
	}
	var out []Layer
	if n.Kind == yaml.MappingNode && mapValue(n, "StartAt") != nil {
		if states := mapValue(n, "States"); states != nil && states.Kind == yaml.MappingNode {
			for i := 1; i < len(states.Content); i += 2 {
				st := states.Content[i]
				retry := mapValue(st, "Retry")
				if retry == nil || retry.Kind != yaml.SequenceNode {
					continue
				}
				var worst Layer
				for j, r := range retry.Content {
					l := newLayer("step-functions", rel, r.Line, "config", ConfidenceHigh)
					l.Setting = "MaxAttempts not set (3 retries)"
					if ma := mapValue(r, "MaxAttempts"); ma != nil {
						if v, err := strconv.Atoi(ma.Value); err == nil && v >= 0 && v <= 1_000_000 {
							l.set(v, "MaxAttempts: "+ma.Value)
						} else {
							l.setUnknown("MaxAttempts: " + ma.Value)
						}
					}
					all := false
					if eq := mapValue(r, "ErrorEquals"); eq != nil {
						for _, e := range eq.Content {
							all = all || e.Value == "States.ALL" || e.Value == "States.TaskFailed"
						}
					}
					l.Retries4xx = all
					l.Note = "state " + states.Content[i-1].Value
					if j == 0 || worse(l, worst) {
						worst = l
					}
				}
				if len(retry.Content) > 0 {
					out = append(out, worst)
				}
			}
		}
	}
	for _, c := range n.Content {
		out = append(out, stateMachines(rel, c, depth+1)...)
	}
	return out
}

// ingressNextUpstream prefixes the ingress-nginx annotations that make it
// retry: proxy-next-upstream, -tries and -timeout.
const ingressNextUpstream = "nginx.ingress.kubernetes.io/proxy-next-upstream"

// ingressAnnotations finds each mapping holding ingress-nginx
// proxy-next-upstream annotations — an Ingress's metadata.annotations or
// a chart's ingress.annotations in values.yaml — anywhere in a document,
// and makes a layer of each: the tries annotation's attempts, the
// controller's default 3 when only the conditions are set, none when they
// are "off".
func ingressAnnotations(rel string, n *yaml.Node, depth int) []Layer {
	if n == nil || depth > 64 {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		conds := mapValue(n, ingressNextUpstream)
		tries := mapValue(n, ingressNextUpstream+"-tries")
		if conds != nil || tries != nil {
			return ingressLayer(rel, conds, tries)
		}
	}
	var out []Layer
	for _, c := range n.Content {
		if len(out) >= maxCandidates {
			break
		}
		out = append(out, ingressAnnotations(rel, c, depth+1)...)
	}
	return out
}

func ingressLayer(rel string, conds, tries *yaml.Node) []Layer {
	at := conds
	if tries != nil {
		at = tries
	}
	l := newLayer("ingress-nginx", rel, at.Line, "config", ConfidenceHigh)
	if conds != nil {
		v := strings.TrimSpace(conds.Value)
		if v == "off" {
			return nil // no next upstream: no retry
		}
		l.Configured = true
		l.Setting = "proxy-next-upstream: " + v
		l.Retries4xx = ngx4xx.MatchString(v)
	}
	if tries != nil {
		n, err := strconv.Atoi(strings.TrimSpace(tries.Value))
		switch {
		case err == nil && n > 0 && n <= 1_000_000:
			l.setAttempts(n, "proxy-next-upstream-tries: "+tries.Value)
		case err == nil && n == 0:
			// 0 is nginx's "no limit": one try per endpoint.
			l.setUnknown("proxy-next-upstream-tries: 0 (no limit: one try per pod)")
		default:
			l.setUnknown("proxy-next-upstream-tries: " + tries.Value)
		}
	}
	if conds != nil && tries != nil {
		l.Setting = "proxy-next-upstream: " + strings.TrimSpace(conds.Value) + "; " + l.Setting
	}
	if conds != nil && tries == nil {
		l.Note = "the tries are the controller's default (3) unless its ConfigMap sets proxy-next-upstream-tries"
	}
	return []Layer{l}
}

// nginxIngressDefault: an Ingress of the nginx class with no
// proxy-next-upstream annotation still retries, at the controller's
// defaults (the one nobody set); its ConfigMap may change them, so the
// confidence is low.
func nginxIngressDefault(rel string, top, kind *yaml.Node) (Layer, bool) {
	class := ""
	if c := mapValue(mapValue(top, "spec"), "ingressClassName"); c != nil {
		class = c.Value
	}
	if c := mapValue(mapValue(mapValue(top, "metadata"), "annotations"), "kubernetes.io/ingress.class"); c != nil {
		class = c.Value
	}
	annotations := mapValue(mapValue(top, "metadata"), "annotations")
	if class != "nginx" || mapValue(annotations, ingressNextUpstream) != nil || mapValue(annotations, ingressNextUpstream+"-tries") != nil {
		return Layer{}, false // another controller's, or annotated (read by ingressAnnotations)
	}
	l := newLayer("ingress-nginx", rel, kind.Line, "config", ConfidenceLow)
	l.Note = "an Ingress of the nginx class: the controller's defaults, unless its ConfigMap sets proxy-next-upstream-tries"
	return l, true
}

// istioLayer is a VirtualService's worst HTTP route: retries.attempts
// (retries, 0 disabling them) or Istio's default when a route sets none.
func istioLayer(rel string, top *yaml.Node) (Layer, bool) {
	if av := mapValue(top, "apiVersion"); av == nil || !strings.HasPrefix(av.Value, "networking.istio.io/") {
		return Layer{}, false
	}
	routes := mapValue(mapValue(top, "spec"), "http")
	if routes == nil || routes.Kind != yaml.SequenceNode {
		return Layer{}, false
	}
	var worst Layer
	found := false
	for _, r := range routes.Content {
		l := newLayer("istio", rel, r.Line, "config", ConfidenceHigh)
		if at := mapValue(mapValue(r, "retries"), "attempts"); at != nil {
			l.Line = at.Line
			if n, err := strconv.Atoi(at.Value); err == nil && n >= 0 && n <= 1_000_000 {
				l.set(n, "retries.attempts: "+at.Value)
			} else {
				l.setUnknown("retries.attempts: " + at.Value)
			}
		}
		if !found || worse(l, worst) {
			worst, found = l, true
		}
	}
	return worst, found
}

// mapValue is the value of key in a YAML mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

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

func scanNginx(rel string, raw []byte) []Layer {
	code := blank(raw, configSyntax)
	pp := ngxProxyPass.FindIndex(code)
	if pp == nil || ngxNextOff.Match(code) {
		return nil
	}
	ln := newLines(raw)
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

// scanClaudeSettings reads .claude/settings.json's env block for
// CLAUDE_CODE_MAX_RETRIES; without it, Claude Code's own default applies
// to the sessions this repository configures.
func scanClaudeSettings(rel string, raw []byte) ([]Layer, error) {
	var s struct {
		Env map[string]any `json:"env"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	l := newLayer("claude-code", rel, 1, "agent", ConfidenceLow)
	if v, ok := s.Env["CLAUDE_CODE_MAX_RETRIES"]; ok {
		l.Confidence = ConfidenceHigh
		if i := bytes.Index(raw, []byte("CLAUDE_CODE_MAX_RETRIES")); i >= 0 {
			l.Line = newLines(raw).at(i)
		}
		written := "CLAUDE_CODE_MAX_RETRIES=" + strings.Trim(strings.TrimSpace(toString(v)), `"`)
		if n, err := strconv.Atoi(strings.Trim(toString(v), `"`)); err == nil && n >= 0 && n <= 1_000_000 {
			l.set(n, written)
		} else {
			l.setUnknown(written)
		}
	} else {
		l.Note = "a settings file without CLAUDE_CODE_MAX_RETRIES: Claude Code's default applies (unless the environment sets it)"
	}
	return []Layer{l}, nil
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
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

func scanHAProxy(rel string, raw []byte) []Layer {
	code := blank(raw, configSyntax)
	ln := newLines(raw)
	secs := hapSection.FindAllSubmatchIndex(code, maxCandidates)
	type setting struct {
		value string
		line  int
	}
	var defRetries, defRetryOn setting
	defRedispatch := false
	var worst Layer
	found := false
	for i, m := range secs {
		end := len(code)
		if i+1 < len(secs) {
			end = secs[i+1][0]
		}
		body := code[m[1]:end]
		kind := string(code[m[2]:m[3]])
		retries, retryOn, redispatch := defRetries, defRetryOn, defRedispatch
		if rm := hapRetries.FindSubmatchIndex(body); rm != nil {
			retries = setting{string(body[rm[2]:rm[3]]), ln.at(m[1] + rm[0])}
		}
		if om := hapRetryOn.FindSubmatchIndex(body); om != nil {
			retryOn = setting{strings.TrimSpace(string(body[om[2]:om[3]])), ln.at(m[1] + om[0])}
		}
		redispatch = redispatch || hapRedisp.Match(body)
		switch kind {
		case "defaults":
			defRetries, defRetryOn, defRedispatch = retries, retryOn, redispatch
			continue
		case "backend", "listen":
		default:
			continue
		}
		if !hapServer.Match(body) {
			continue
		}
		l := newLayer("haproxy", rel, ln.at(m[0]), "config", ConfidenceMedium)
		if retries.value != "" {
			l.Line = retries.line
			if n, err := strconv.Atoi(retries.value); err == nil && n >= 0 && n <= 1_000_000 {
				l.set(n, "retries "+retries.value)
			} else {
				l.setUnknown("retries " + retries.value)
			}
		}
		on := retryOn.value
		switch {
		case on == "none":
			l.setAttempts(1, "retry-on none")
		case on == "" || on == "conn-failure":
			l.Note = "connection failures only: a request a server received is not re-sent"
		default:
			l.Configured = true
			l.Setting += "; retry-on " + on
			l.Retries4xx = hap4xx.MatchString(on)
			if retries.value == "" {
				l.Line = retryOn.line
			}
		}
		if redispatch {
			l.Note = strings.TrimPrefix(l.Note+"; option redispatch: the last retry goes to another server", "; ")
		}
		l.Note = strings.TrimPrefix(l.Note+"; "+kind+" "+strings.TrimSpace(string(code[m[3]:m[1]])), "; ")
		if l.Attempts < 2 {
			continue
		}
		if !found || worse(l, worst) {
			worst, found = l, true
		}
	}
	if !found {
		return nil
	}
	return []Layer{worst}
}

// scanCodexConfig reads a .codex/config.toml's model providers:
// request_max_retries (4 unset) retries each request; the provider named
// by model_provider is the one in use, else the worst is shown.
func scanCodexConfig(rel string, raw []byte) ([]Layer, error) {
	var c struct {
		ModelProvider  string `toml:"model_provider"`
		ModelProviders map[string]struct {
			RequestMaxRetries *int64 `toml:"request_max_retries"`
			StreamMaxRetries  *int64 `toml:"stream_max_retries"`
		} `toml:"model_providers"`
	}
	if _, err := toml.Decode(string(raw), &c); err != nil {
		return nil, err
	}
	ln := newLines(raw)
	l := newLayer("codex", rel, 1, "agent", ConfidenceLow)
	l.Note = "no request_max_retries here: Codex's default applies (unless ~/.codex/config.toml sets it)"
	best := int64(-1)
	name := ""
	for id, p := range c.ModelProviders {
		if p.RequestMaxRetries == nil || (c.ModelProvider != "" && id != c.ModelProvider && c.ModelProviders[c.ModelProvider].RequestMaxRetries != nil) {
			continue
		}
		if v := min(max(*p.RequestMaxRetries, 0), 100); v > best || (v == best && id < name) {
			best, name = v, id
		}
	}
	if best >= 0 {
		l.Confidence = ConfidenceHigh
		l.set(int(best), "model_providers."+name+".request_max_retries = "+strconv.FormatInt(best, 10))
		l.Note = "capped at 100 by Codex"
		from := bytes.Index(raw, []byte("[model_providers."+name+"]"))
		if i := bytes.Index(raw[max(from, 0):], []byte("request_max_retries")); i >= 0 {
			l.Line = ln.at(max(from, 0) + i)
		}
	}
	return []Layer{l}, nil
}

// airflowRetriesEnv is [core] default_task_retries as an environment
// variable: the default of every task that sets no retries, often in a
// docker-compose file or a Helm values file nobody on the DAG team wrote.
const airflowRetriesEnv = "AIRFLOW__CORE__DEFAULT_TASK_RETRIES"

// airflowEnvLayers finds the variable as a mapping key (docker-compose
// environment:), a KEY=VALUE list item, or a Kubernetes env entry
// {name, value}.
func airflowEnvLayers(rel string, n *yaml.Node, depth int) []Layer {
	if n == nil || depth > 64 {
		return nil
	}
	var out []Layer
	add := func(line int, val string) {
		l := newLayer("airflow", rel, line, "config", ConfidenceHigh)
		val = strings.Trim(strings.TrimSpace(val), `"'`)
		if v, err := strconv.Atoi(val); err == nil && v >= 0 && v <= 1_000_000 {
			if v == 0 {
				return
			}
			l.set(v, airflowRetriesEnv+"="+val)
		} else {
			l.setUnknown(airflowRetriesEnv + "=" + val)
		}
		l.Note = "the default of every task that sets no retries of its own"
		out = append(out, l)
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == airflowRetriesEnv && n.Content[i+1].Kind == yaml.ScalarNode {
				add(n.Content[i].Line, n.Content[i+1].Value)
			}
		}
		if name := mapValue(n, "name"); name != nil && name.Value == airflowRetriesEnv {
			if v := mapValue(n, "value"); v != nil && v.Kind == yaml.ScalarNode {
				add(v.Line, v.Value)
			}
		}
	case yaml.ScalarNode:
		if k, v, ok := strings.Cut(n.Value, "="); ok && k == airflowRetriesEnv {
			add(n.Line, v)
		}
	}
	for _, c := range n.Content {
		out = append(out, airflowEnvLayers(rel, c, depth+1)...)
	}
	return out
}

// scanAirflowCfg reads airflow.cfg's [core] default_task_retries.
var airflowCfgRetries = regexp.MustCompile(`(?m)^[ \t]*default_task_retries[ \t]*=[ \t]*(\S+)`)

func scanAirflowCfg(rel string, raw []byte) []Layer {
	code := blank(raw, configSyntax)
	ln := newLines(raw)
	core := regexp.MustCompile(`(?m)^[ \t]*\[core\][ \t]*$`).FindIndex(code)
	if core == nil {
		return nil
	}
	end := len(code)
	if nx := regexp.MustCompile(`(?m)^[ \t]*\[`).FindIndex(code[core[1]:]); nx != nil {
		end = core[1] + nx[0]
	}
	m := airflowCfgRetries.FindSubmatchIndex(code[core[1]:end])
	if m == nil {
		return nil
	}
	l := newLayer("airflow", rel, ln.at(core[1]+m[0]), "config", ConfidenceHigh)
	val := string(code[core[1]+m[2] : core[1]+m[3]])
	if v, err := strconv.Atoi(val); err == nil && v >= 0 && v <= 1_000_000 {
		if v == 0 {
			return nil
		}
		l.set(v, "[core] default_task_retries = "+val)
	} else {
		l.setUnknown("[core] default_task_retries = " + val)
	}
	l.Note = "the default of every task that sets no retries of its own"
	return []Layer{l}
}
