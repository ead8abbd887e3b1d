package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// TestStormAppLogNamesTheSDKBelow: the lab's OpenAI app in a 503 storm
// (issue 39) logs each job once, "job failed" with the status and the
// requestId of the SDK's last attempt — and no model, as the call never
// returned one. With no model anywhere, each job's one call read "exact"
// though the openai SDK's two retries were below it, unseen (the wire
// carried 3 per job). OpenAI's x-request-id ("req_" and 32 hex digits)
// names the family: each count is a lower bound with openai-sdk named.
// An ID of no provider's shape names nothing: exact, as before.
func TestStormAppLogNamesTheSDKBelow(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, ids ...string) string {
		var b strings.Builder
		for i, id := range ids {
			b.WriteString(`{"level":50,"time":17966478481` + string(rune('0'+i)) + `0,"pid":1,"jobId":"doc-00` + string(rune('0'+i)) +
				`","outcome":"failed","status":503,"requestId":"` + id + `","err":"503 The server is overloaded or not ready yet.","msg":"job failed"}` + "\n")
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, layer string
		ids         []string
	}{
		{"openai", "openai-sdk", []string{"req_5f0c2a8e9b1d4c7fa3e6b8d0c1f2a3b4", "req_00112233445566778899aabbccddeeff"}},
		{"anthropic", "anthropic-sdk", []string{"req_011CSHoEeqs5C35K2UUqR7Fy", "req_011CLab0123456789abcdef"}},
		{"no provider's shape", "", []string{"req_app-0001", "req_app-0002"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := declaredReport(t, write(c.name+".log", c.ids...))
			if err != nil && err != errCritical {
				t.Fatalf("report: %v", err)
			}
			want := correlate.CountLowerBound
			if c.layer == "" {
				want = correlate.CountExact
			}
			if len(r.Jobs) != len(c.ids) {
				t.Fatalf("%d jobs, want %d", len(r.Jobs), len(c.ids))
			}
			for _, j := range r.Jobs {
				if j.Attempts != 1 || j.Count != want {
					t.Errorf("%s: %d calls (%s), want 1 (%s)", j.JobID, j.Attempts, j.Count, want)
				}
			}
			switch {
			case c.layer == "" && len(r.UnseenLayers) != 0:
				t.Errorf("unseen layers %+v, want none", r.UnseenLayers)
			case c.layer != "" && (len(r.UnseenLayers) != 1 || r.UnseenLayers[0].Layer != c.layer || r.UnseenLayers[0].Jobs != len(c.ids)):
				t.Errorf("unseen layers %+v, want %s for %d jobs", r.UnseenLayers, c.layer, len(c.ids))
			}
		})
	}
}
