package audit

import (
	"go/ast"
	"regexp"
	"strings"
)

// The AWS SDK for Go v1 (github.com/aws/aws-sdk-go, in maintenance): every
// service client built with New(sess, cfgs…) — sagemakerruntime.New(sess),
// bedrockruntime.New(sess) — gets client.DefaultRetryer with
// DefaultRetryerMaxNumRetries (3 retries: 4 attempts) unless its
// aws.Config sets MaxRetries (aws.Int(N), WithMaxRetries(N); -1 is the
// service's default) or a Retryer (client.DefaultRetryer{NumMaxRetries: N}).

var (
	awsV1Opener     = regexp.MustCompile(`\.(New|NewSession|NewSessionWithOptions)\s*\(`)
	awsV1MaxRetries = regexp.MustCompile(`\bMaxRetries\s*:\s*aws\.Int\(\s*(-?[0-9]+|[A-Za-z_][\w.]*)\s*\)|\bWithMaxRetries\(\s*(-?[0-9]+|[A-Za-z_][\w.]*)\s*\)|\bNumMaxRetries\s*:\s*(-?[0-9]+|[A-Za-z_][\w.]*)`)
)

// awsV1Service: the call is the New of a v1 runtime service package — the
// data plane a model is invoked through (sagemakerruntime,
// bedrockruntime, bedrockagentruntime). A storage or control-plane client
// (s3, eks) retries too, but calls no model: left out, so it does not
// stand in a path for the LLM call.
func awsV1Service(path, fn string) bool {
	svc, ok := strings.CutPrefix(path, "github.com/aws/aws-sdk-go/service/")
	return fn == "New" && ok && strings.Contains(svc, "runtime")
}

// awsV1Client is the layer of one v1 service client: the retries its call
// sets, else the ones the file's session or config sets (low confidence:
// the config may be another client's), else the default.
func awsV1Client(f *file, g *goFile, call *ast.CallExpr) Layer {
	l := newLayer("aws-sdk-go-v1", f.rel, g.line(call), "go", ConfidenceMedium)
	a, b := g.fset.Position(call.Pos()).Offset, g.fset.Position(call.End()).Offset
	var callSrc []byte
	if a >= 0 && a <= b && b <= len(g.src) {
		callSrc = g.src[a:min(b, a+maxArgBytes)]
	}
	m := awsV1MaxRetries.FindSubmatch(callSrc)
	if m == nil {
		// The session's config: a MaxRetries written in a NewSession
		// call's aws.Config is every client's built from it (another
		// client's own config is not).
		code := f.blanked()
		for _, k := range awsV1MaxRetries.FindAllSubmatchIndex(code, maxCandidates) {
			if o := awsV1Opener.FindAllSubmatch(code[max(0, k[0]-600):k[0]], -1); len(o) > 0 && string(o[len(o)-1][1]) != "New" {
				m = awsV1MaxRetries.FindSubmatch(code[k[0]:k[1]])
				l.Confidence = ConfidenceLow
				break
			}
		}
	}
	if m == nil {
		return l
	}
	v := ""
	for _, s := range m[1:] {
		if len(s) > 0 {
			v = string(s)
		}
	}
	conf := l.Confidence
	switch n, ok := atoiBounded(v); {
	case v == "-1":
		l.Setting = string(m[0]) + " (-1: the service's default)"
		l.Configured = true
	case ok:
		l.set(n, string(m[0]))
		l.Confidence = conf
	default:
		l.setUnknown(string(m[0]))
	}
	return l
}
