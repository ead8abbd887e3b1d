package audit

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// gRPC's client retries, set by a service config (gRFC A6) written in code
// — a JSON string or a dict dumped to one, passed as the
// `grpc.service_config` channel option or to WithDefaultServiceConfig —
//
//	"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, …,
//	    "retryableStatusCodes": ["UNAVAILABLE"]}}]
//
// every RPC of the channel is sent up to maxAttempts times (attempts, the
// first included; over 5 is 5 unless the channel raises its cap), on the
// codes listed only (issue 37, round 9). Read raw, as the keys are
// strings: a file with a methodConfig, each retryPolicy of it followed
// within its braces by a maxAttempts.

// maxGRPCAttemptsCap is gRPC's client-side cap on maxAttempts by default.
const maxGRPCAttemptsCap = 5

var (
	grpcRetryPolicy = regexp.MustCompile(`["'\x60]?retryPolicy["'\x60]?\s*:\s*\{`)
	grpcMaxAttempts = regexp.MustCompile(`["'\x60]?maxAttempts["'\x60]?\s*:\s*([0-9]+)`)
)

func grpcServiceConfigRetries(f *file) []Layer {
	raw := f.raw
	if !bytes.Contains(raw, []byte("methodConfig")) {
		return nil
	}
	var out []Layer
	var triples []int // Python: where triple quotes open and close a docstring
	if f.kind == fkPython {
		for i := 0; i+3 <= len(raw) && len(triples) < 1<<16; i++ {
			if (raw[i] == '"' || raw[i] == '\'') && raw[i+1] == raw[i] && raw[i+2] == raw[i] {
				triples = append(triples, i)
				i += 2
			}
		}
	}
	for _, m := range scanAt(raw, "retryPolicy", grpcRetryPolicy, 200) {
		if k := sort.SearchInts(triples, m[0]); k%2 == 1 {
			continue // an example in a docstring, not a config the code builds
		}
		open := m[1] - 1
		end := min(len(raw), open+2048)
		depth, close := 0, -1
		for i := open; i < end && close < 0; i++ {
			switch raw[i] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					close = i
				}
			}
		}
		if close < 0 {
			continue
		}
		mm := grpcMaxAttempts.FindSubmatch(raw[open:close])
		if mm == nil {
			continue
		}
		n, ok := atoiBounded(string(mm[1]))
		if !ok || n < 2 {
			continue // below 2 is invalid: the policy is ignored
		}
		written := "retryPolicy.maxAttempts: " + string(mm[1])
		attempts := n
		if n > maxGRPCAttemptsCap {
			attempts = maxGRPCAttemptsCap
			written += fmt.Sprintf(" (gRPC treats more than %d as %d unless the channel raises its cap)", maxGRPCAttemptsCap, maxGRPCAttemptsCap)
		}
		l := newLayer("grpc-retry-policy", f.rel, f.lines().at(m[0]), grpcGroup(f), ConfidenceMedium)
		l.setAttempts(attempts, written)
		if codes := grpcRetryableCodes(raw[open:close]); codes != "" {
			l.Note = "retries the codes " + codes + " only"
		}
		out = append(out, l)
	}
	return out
}

var grpcCodes = regexp.MustCompile(`["'\x60]?retryableStatusCodes["'\x60]?\s*:\s*\[([^\]]{0,300})\]`)

// grpcRetryableCodes: the codes a policy lists, plain words only.
func grpcRetryableCodes(policy []byte) string {
	m := grpcCodes.FindSubmatch(policy)
	if m == nil {
		return ""
	}
	var codes []string
	for _, c := range bytes.Split(m[1], []byte(",")) {
		c = bytes.Trim(bytes.TrimSpace(c), `"'`+"`")
		ok := len(c) > 0 && len(c) <= 24
		for _, b := range c {
			if !(b >= 'A' && b <= 'Z' || b == '_' || b >= '0' && b <= '9') {
				ok = false
			}
		}
		if ok && len(codes) < 8 {
			codes = append(codes, string(c))
		}
	}
	return strings.Join(codes, ", ")
}

func grpcGroup(f *file) string {
	switch f.kind {
	case fkPython:
		return "python"
	case fkJS:
		return "javascript"
	case fkGo:
		return "go"
	}
	return "config"
}
