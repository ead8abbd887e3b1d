package audit

import (
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// Linkerd retries on the caller's outbound proxy, configured two ways:
//
//   - a ServiceProfile (linkerd.io/v1alpha2): a route marked isRetryable is
//     retried while the service's retry budget has tokens. There is no
//     per-request limit (linkerd2-proxy's RetryPolicy only withdraws from
//     the budget), so one failing call's worst case is the budget's
//     reserve: minRetriesPerSecond × ttl retries (10 × 10 s by default).
//   - since 2.16, annotations on a Service, HTTPRoute or GRPCRoute:
//     retry.linkerd.io/http (or /grpc) names the conditions and
//     retry.linkerd.io/limit the retries, 1 unless set — and "0" reads as
//     unset, so it is 1 too.
//
// Without either, Linkerd retries nothing: no layer. A ServiceProfile for
// a Service makes the proxy ignore its annotations; both are reported
// (a static audit does not match them by name) and the path takes the
// worse.

const linkerdAnnotation = "retry.linkerd.io/"

// linkerd: each ServiceProfile with a retryable route, and each resource
// annotated with retry conditions.
func linkerd(f *file) []Layer {
	return perDocument(f, func(rel string, top *yaml.Node) []Layer {
		if l, ok := linkerdProfile(rel, top); ok {
			return []Layer{l}
		}
		if l, ok := linkerdAnnotations(rel, top); ok {
			return []Layer{l}
		}
		return nil
	})
}

func linkerdProfile(rel string, top *yaml.Node) (Layer, bool) {
	kind, av := mapValue(top, "kind"), mapValue(top, "apiVersion")
	if kind == nil || kind.Value != "ServiceProfile" || av == nil || !strings.HasPrefix(av.Value, "linkerd.io/") {
		return Layer{}, false
	}
	spec := mapValue(top, "spec")
	routes := mapValue(spec, "routes")
	if routes == nil || routes.Kind != yaml.SequenceNode {
		return Layer{}, false
	}
	var retryable *yaml.Node
	for _, r := range routes.Content {
		if v := mapValue(r, "isRetryable"); v != nil && v.Value == "true" {
			retryable = v
			break
		}
	}
	if retryable == nil {
		return Layer{}, false // no route is retried
	}
	l := newLayer("linkerd-serviceprofile", rel, retryable.Line, "config", ConfidenceHigh)
	l.Setting = "isRetryable: true, the default budget (minRetriesPerSecond 10, ttl 10s)"
	budget := mapValue(spec, "retryBudget")
	if budget == nil {
		l.Note = "no per-request limit: one failing call is retried until the budget's reserve (minRetriesPerSecond × ttl) is spent"
		return l, true
	}
	min, ttl := mapValue(budget, "minRetriesPerSecond"), mapValue(budget, "ttl")
	ratio := mapValue(budget, "retryRatio")
	written := "retryBudget: minRetriesPerSecond " + scalar(min) + ", ttl " + scalar(ttl) + ", retryRatio " + scalar(ratio)
	perSec, err1 := strconv.Atoi(scalar(min))
	d, err2 := time.ParseDuration(scalar(ttl))
	switch {
	case err1 == nil && err2 == nil && perSec >= 0 && perSec <= 1_000_000 && d > 0:
		secs := int(min64(max(d, time.Second), 60*time.Second) / time.Second) // the proxy's budget holds ttl to 1–60 s
		l.Line = budget.Line
		l.setAttempts(1+perSec*secs, written)
	default:
		l.setUnknown(written)
	}
	l.Note = "no per-request limit: one failing call is retried until the budget's reserve (minRetriesPerSecond × ttl) is spent; retryRatio adds tokens only from calls that succeed"
	return l, true
}

func min64(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return strings.TrimSpace(n.Value)
}

// linkerdAnnotations: a Service, HTTPRoute or GRPCRoute whose annotations
// name retry conditions.
func linkerdAnnotations(rel string, top *yaml.Node) (Layer, bool) {
	kind := scalar(mapValue(top, "kind"))
	if kind != "Service" && kind != "HTTPRoute" && kind != "GRPCRoute" {
		return Layer{}, false
	}
	ann := mapValue(mapValue(top, "metadata"), "annotations")
	conds := mapValue(ann, linkerdAnnotation+"http")
	if g := mapValue(ann, linkerdAnnotation+"grpc"); g != nil && (conds == nil || kind == "GRPCRoute") {
		conds = g // retry.linkerd.io/http is not read on a GRPCRoute
	} else if kind == "GRPCRoute" {
		conds = nil
	}
	if conds == nil {
		return Layer{}, false // a limit alone names nothing to retry on
	}
	l := newLayer("linkerd-retry-annotations", rel, conds.Line, "config", ConfidenceHigh)
	on := linkerdAnnotation + keyOf(ann, conds) + ": " + scalar(conds)
	l.Setting = on + " (limit not set: 1 retry)"
	l.Retries4xx = linkerd4xx(scalar(conds))
	if lim := mapValue(ann, linkerdAnnotation+"limit"); lim != nil {
		l.Line = lim.Line
		n, err := strconv.Atoi(scalar(lim))
		switch {
		case err == nil && n == 0:
			l.set(1, on+", limit: 0 (read as unset: 1 retry)")
		case err == nil && n > 0 && n <= 65535:
			l.set(n, on+", limit: "+scalar(lim))
		default:
			l.setUnknown(on + ", limit: " + scalar(lim))
		}
	}
	return l, true
}

func keyOf(m, v *yaml.Node) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i+1] == v {
			return strings.TrimPrefix(m.Content[i].Value, linkerdAnnotation)
		}
	}
	return ""
}

// linkerd4xx: the conditions name a client error other than 408 and 429
// (a code or a range reaching into 400–499).
func linkerd4xx(conds string) bool {
	for _, c := range strings.Split(conds, ",") {
		c = strings.TrimSpace(c)
		lo, hi, ok := strings.Cut(c, "-")
		if !ok {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a > b {
			continue
		}
		for code := max(a, 400); code <= min(b, 499); code++ {
			if code != 408 && code != 429 {
				return true
			}
		}
	}
	return false
}
