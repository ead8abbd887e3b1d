package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestACurlVerboseKillLeaksNoToken: issue 34 — a failing "curl -v" kill
// command printed its request's "Authorization: Bearer …" to stderr, and
// the journal kept it word for word. A real curl, verbose, against a
// receiver that answers 500: its bearer token, the password in its URL
// and the token in its query reach neither the journal nor stdout, and
// the failure itself is still said.
func TestACurlVerboseKillLeaksNoToken(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl on this machine")
	}
	const bearer, password, query = "sk-live-bearer-0451xyz", "hunter2pass0452", "qtoken0453secret"
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	t.Cleanup(rc.Close)
	dir := t.TempDir()
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	url := strings.Replace(rc.URL, "http://", "http://ops:"+password+"@", 1) + "/kill?job={job_id}&token=" + query
	kill := curl + " -v -f -sS -H 'Authorization: Bearer " + bearer + "' " + url
	out, err := run(t, "replay", "--headless", "--speed", "max", "--job-ceiling", "0.1", "--kill-exec", kill, "--journal", journal, logPath)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(journal)
	if !strings.Contains(string(b), `"state":"failed"`) || !strings.Contains(string(b), "500") {
		t.Fatalf("the failing command is not journaled failed with its reason:\n%s", b)
	}
	for _, secret := range []string{bearer, password, query} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the journal holds %q:\n%s", secret, b)
		}
		if strings.Contains(out, secret) {
			t.Errorf("stdout holds %q:\n%s", secret, out)
		}
	}
}
