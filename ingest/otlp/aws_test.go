package otlp

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestAmzSdkRequest: the header's real shapes, and hostile ones that
// must read as nothing rather than as a huge attempt.
func TestAmzSdkRequest(t *testing.T) {
	for _, c := range []struct {
		header        string
		attempt, max_ int64
	}{
		{"attempt=1", 1, 0}, // botocore before 1.43.66: no max on the first
		{"attempt=1; max=3", 1, 3},
		{"ttl=20260701T010102Z; attempt=2; max=5", 2, 5},
		{"attempt=0; max=-3", 0, 0},
		{"attempt=99999999999999999999; max=3", 0, 3},
		{"attempt=2;max=4", 2, 4},
		{"attempt=x; max=", 0, 0},
		{strings.Repeat("attempt=2; ", 100), 0, 0}, // past 256 bytes: not read at all
	} {
		m := pcommon.NewMap()
		m.PutEmptySlice("http.request.header.amz-sdk-request").AppendEmpty().SetStr(c.header)
		if a, mx := amzRequest(m); a != c.attempt || mx != c.max_ {
			t.Errorf("%.40q: attempt %d max %d, want %d %d", c.header, a, mx, c.attempt, c.max_)
		}
	}
}

// TestAWSLayerByAgent: botocore's agent names its layer and version; an
// AWS SDK for JavaScript's agent (aws-sdk-js/3.x) is the aws-sdk layer,
// with no botocore keys invented for it.
func TestAWSLayerByAgent(t *testing.T) {
	facts := func(ua string) (ingest.AttemptBy, map[string]string) {
		m := pcommon.NewMap()
		m.PutEmptySlice("http.request.header.amz-sdk-request").AppendEmpty().SetStr("ttl=20260701T010102Z; attempt=2; max=3")
		m.PutStr("user_agent.original", ua)
		_, by, _ := stainlessRetries(m)
		out := map[string]string{}
		awsFacts(m, func(k, v, _ string) { out[k] = v })
		return by, out
	}
	by, f := facts("Boto3/1.43.3 md/Botocore#1.43.3 ua/2.1 os/linux#6.8.0 md/arch#x86_64 lang/python#3.12.3 md/pyimpl#CPython cfg/retry-mode#standard Botocore/1.43.3")
	if by != ingest.AttemptByBotocore || f["botocore.maxAttempts"] != "3" || f["botocore.version"] != "1.43.3" || f["botocore.retryMode"] != "standard" {
		t.Errorf("botocore: %v %v", by, f)
	}
	by, f = facts("Boto3/1.35.0 Python/3.12.3 Linux/6.1.0 Botocore/1.35.0") // the legacy agent
	if by != ingest.AttemptByBotocore || f["botocore.version"] != "1.35.0" || f["botocore.retryMode"] != "" {
		t.Errorf("legacy botocore agent: %v %v", by, f)
	}
	by, f = facts("aws-sdk-js/3.600.0 ua/2.1 os/linux#6.8.0 lang/js md/nodejs#20.15.0 api/bedrock-runtime#3.600.0 m/E")
	if by != ingest.AttemptByAWSSDK || f["aws-sdk.maxAttempts"] != "3" || len(f) != 1 {
		t.Errorf("aws-sdk-js: %v %v", by, f)
	}
}
