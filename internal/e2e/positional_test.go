package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonLinesPlacedByPositionConvictNoJob: issue 39's red team — one
// JSON line of doc-A and its one 200, then five 529s with their
// "Retrying request" lines that another process wrote into the same
// stream, then a 200. Python's lines name no job and no request ID, so
// they fell in doc-A by position alone: 7 calls "exact", a critical
// assumption_violated against the operator's maxRetries 2, report exit 1
// and doc-A killed live. Placed by position, they are counted and shown,
// and convict nothing.
func TestPythonLinesPlacedByPositionConvictNoJob(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"ts":"2026-07-01T01:00:00.000Z","event":"job_started","job_id":"doc-A","job_type":"summarize"}` + "\n")
	b.WriteString(`2026-07-01 01:00:01,000 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"` + "\n")
	for i := range 5 {
		fmt.Fprintf(&b, "2026-07-01 01:00:%02d,100 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages \"HTTP/1.1 529 Overloaded\"\n", 2+2*i)
		fmt.Fprintf(&b, "2026-07-01 01:00:%02d,101 - anthropic._base_client - INFO - Retrying request to /v1/messages in 0.5 seconds\n", 2+2*i)
	}
	b.WriteString(`2026-07-01 01:00:13,000 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"` + "\n")
	logPath := filepath.Join(dir, "py.log")
	os.WriteFile(logPath, []byte(b.String()), 0o600)
	ops := filepath.Join(dir, "op.toml")
	os.WriteFile(ops, []byte("[anthropic-sdk]\nmaxRetries = 2\n"), 0o600)

	out, err := run(t, "report", "--format", "json", "--assumptions", ops, logPath)
	if err != nil {
		t.Fatalf("report: %v (a link by position must not be critical)\n%s", err, out)
	}
	if strings.Contains(out, `"kind": "assumption_violated"`) {
		t.Errorf("lines placed by position convicted doc-A:\n%s", out)
	}
	if !strings.Contains(out, `"count": "ambiguous"`) || !strings.Contains(out, `"timing_links"`) {
		t.Errorf("doc-A's count is not marked as placed by position, or the links are not counted:\n%s", out)
	}

	rc := newReceiver(t, false)
	cfg := filepath.Join(dir, "ko.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[actions]\nkill_webhook = %q\nkill_on = [\"job_ceiling\", \"finding:assumption_violated\"]\n", rc.URL)), 0o600)
	if _, err := run(t, "replay", "--headless", "--speed", "max", "--config", cfg, "--assumptions", ops, "--journal", filepath.Join(dir, "j.jsonl"), logPath); err != nil && err != errCritical {
		t.Fatal(err)
	}
	if keys, _ := rc.snapshot(); len(keys) != 0 {
		t.Errorf("doc-A was killed on lines placed by position: %v", keys)
	}
}

// TestNodeChainNoAppLineClaimsConvictsNoJob: the same for the Node SDK's
// info lines — a retryOf chain of six that no app line claims by its
// request IDs fell in the one job in sight, "exact", and convicted it.
func TestNodeChainNoAppLineClaimsConvictsNoJob(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"time":"2026-07-01T01:00:00.000Z","event":"job_started","job_id":"doc-A","job_type":"summarize"}` + "\n")
	prev := ""
	for i := range 6 {
		id := fmt.Sprintf("log_a%04d", i)
		link := ""
		if prev != "" {
			link = ", retryOf: " + prev
		}
		status, end := "failed with status 529", " - retrying, 1 attempts remaining"
		if i == 5 {
			status, end = "succeeded with status 200", ""
		}
		fmt.Fprintf(&b, "2026-07-01T01:00:%02d.000Z [%s%s, request-id: \"req_forged%04d\"] post https://api.anthropic.com/v1/messages %s in 30ms%s\n", 1+i, id, link, i, status, end)
		prev = id
	}
	logPath := filepath.Join(dir, "node.log")
	os.WriteFile(logPath, []byte(b.String()), 0o600)
	ops := filepath.Join(dir, "op.toml")
	os.WriteFile(ops, []byte("[anthropic-sdk]\nmaxRetries = 2\n"), 0o600)
	out, err := run(t, "report", "--format", "json", "--assumptions", ops, logPath)
	if err != nil {
		t.Fatalf("report: %v (a link by position must not be critical)\n%s", err, out)
	}
	if strings.Contains(out, `"kind": "assumption_violated"`) || strings.Contains(out, `"kind": "undeclared_retry_layer"`) {
		t.Errorf("an unclaimed chain convicted doc-A:\n%s", out)
	}
	if !strings.Contains(out, `"count": "ambiguous"`) || !strings.Contains(out, `"attempts": 6`) {
		t.Errorf("doc-A's six attempts are not shown as placed by position:\n%s", out)
	}
}
