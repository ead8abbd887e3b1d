//go:build realdata

package otlp

import (
	"os"
	"testing"
)

// TestOfficialExamples posts the OpenTelemetry project's example payloads
// (opentelemetry-proto's examples/, in ../shared/otlp-examples beside the
// repository, as CI has them; the repository keeps no copy): current and
// older revisions are accepted, the malformed one (kvlistValue as a bare
// array) is a 400.
func TestOfficialExamples(t *testing.T) {
	dir := "../../../shared/otlp-examples/"
	if _, err := os.Stat(dir + "trace.json"); err != nil {
		t.Fatalf("%v: the official OTLP examples must be in ../shared/otlp-examples (CI has them beside the repository)", err)
	}
	tr := startReceiver(t, Config{}, 64)
	_, h := tr.r.Addrs()
	for _, c := range []struct {
		file, path, ctype string
		want              int
	}{
		{"trace.json", "traces", "application/json", 200},
		{"trace.protobuf-bin", "traces", "application/x-protobuf", 200},
		{"logs.json", "logs", "application/json", 200},
		{"logs.old-36ea555.json", "logs", "application/json", 200},
		{"events.json", "logs", "application/json", 200},
		{"events.old-80bfb32.json", "logs", "application/json", 400},
	} {
		body, err := os.ReadFile(dir + c.file)
		if err != nil {
			t.Fatal(err)
		}
		if resp := post(t, "http://"+h+"/v1/"+c.path, c.ctype, "", "", body); resp.StatusCode != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.file, resp.StatusCode, c.want)
		}
	}
}
