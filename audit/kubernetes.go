package audit

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Kubernetes: a Job's or CronJob's backoffLimit, and the retries of the
// ingress controllers and meshes its manifests configure (ingress-nginx,
// Istio).

// kubernetesJobs: a Job's or CronJob's backoffLimit (6 unset).
func kubernetesJobs(f *file) []Layer { return perDocument(f, atMostOne(jobLayer)) }

func jobLayer(rel string, top *yaml.Node) (Layer, bool) {
	kind := mapValue(top, "kind")
	if kind == nil {
		return Layer{}, false
	}
	var spec *yaml.Node
	switch kind.Value {
	case "Job":
		spec = mapValue(top, "spec")
	case "CronJob":
		spec = mapValue(mapValue(mapValue(top, "spec"), "jobTemplate"), "spec")
	}
	if spec == nil {
		return Layer{}, false
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
	return l, true
}

// ingressNginx: each mapping of ingress-nginx annotations in every
// document (ingressAnnotations).
func ingressNginx(f *file) []Layer {
	return perDocument(f, func(rel string, top *yaml.Node) []Layer { return ingressAnnotations(rel, top, 0) })
}

// ingressNginxDefault: each Ingress of the nginx class without the
// annotations (nginxIngressDefault).
func ingressNginxDefault(f *file) []Layer {
	return perDocument(f, ofKind("Ingress", nginxIngressDefault))
}

// istio: each VirtualService's worst route (istioLayer).
func istio(f *file) []Layer {
	return perDocument(f, ofKind("VirtualService", func(rel string, top, _ *yaml.Node) (Layer, bool) { return istioLayer(rel, top) }))
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
		retries := mapValue(r, "retries")
		if at := mapValue(retries, "attempts"); at != nil {
			l.Line = at.Line
			if n, err := strconv.Atoi(at.Value); err == nil && n >= 0 && n <= 1_000_000 {
				l.set(n, "retries.attempts: "+at.Value)
			} else {
				l.setUnknown("retries.attempts: " + at.Value)
			}
		}
		// retryOn replaces the default conditions: retriable-4xx is
		// Envoy's 409, and a 4xx code listed (400) is the same bad request
		// sent again — both retry a client error, as Envoy's own
		// retry_on does (envoyLayer).
		if on := mapValue(retries, "retryOn"); on != nil && on.Kind == yaml.ScalarNode && l.Attempts > 1 {
			if istio4xx(on.Value) {
				l.Retries4xx = true
				l.Note = "retryOn " + on.Value + " retries a client error (retriable-4xx is a 409; a code listed is retried as is)"
			}
			if l.Configured {
				l.Setting += "; retryOn: " + on.Value
			} else {
				l.Setting = "retryOn: " + on.Value + " (attempts not set: the default)"
				l.Line = on.Line
			}
		}
		if !found || worse(l, worst) {
			worst, found = l, true
		}
	}
	return worst, found
}

// istio4xx: an Istio retryOn list (comma-separated Envoy conditions and
// HTTP status codes) names retriable-4xx or a client error other than 408
// and 429.
func istio4xx(on string) bool {
	for _, c := range strings.Split(on, ",") {
		c = strings.TrimSpace(c)
		if c == "retriable-4xx" {
			return true
		}
		if n, err := strconv.Atoi(c); err == nil && n >= 400 && n < 500 && n != 408 && n != 429 {
			return true
		}
	}
	return false
}
