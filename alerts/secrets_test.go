package alerts

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillCommandSeesNoSecretsAndLeaksNone: issue 34's red team — a
// failing "curl -v" kill command's "Authorization: Bearer …" was
// journaled as printed, and the HMAC key and the OTLP token were in
// every kill command's environment. A real command, through the
// dispatcher, into the journal: it prints a bearer token and its whole
// environment (and a literal copy of the HMAC key), and exits 1.
func TestKillCommandSeesNoSecretsAndLeaksNone(t *testing.T) {
	const (
		bearer  = "sk-ant-abc123def456ghi789"
		hmacKey = "whsec-hmac-0123456789"
		custom  = "custom-hmac-key-4242"
		otlp    = "otlp-token-abcdef987"
		metrics = "metrics-token-5551212"
	)
	t.Setenv("BURNRATE_WEBHOOK_SECRET", hmacKey)
	t.Setenv("BURNRATE_OTLP_TOKEN", otlp)
	t.Setenv("BURNRATE_METRICS_TOKEN", metrics)
	t.Setenv("BURNRATE_TEST_CUSTOM_HMAC", custom)
	t.Setenv("BURNRATE_TEST_KEEP", "visible-to-the-command")
	AddSecretEnv("BURNRATE_TEST_CUSTOM_HMAC") // as [actions] secret_env does

	dir := t.TempDir()
	path := filepath.Join(dir, "journal.jsonl")
	seen := filepath.Join(dir, "seen-env")
	script := filepath.Join(dir, "kill.sh")
	body := "#!/bin/sh\n" +
		"env > " + seen + "\n" +
		"env\n" +
		"echo '> POST /kill?api_key=qwerty12345 HTTP/1.1' >&2\n" +
		"echo '> Authorization: Bearer " + bearer + "' >&2\n" +
		"echo 'signed with " + hmacKey + " and " + custom + "' >&2\n" +
		"echo 'curl: (22) https://ops:pa55w0rd@kill.example.com returned 401; Bearer " + bearer + "' >&2\n" +
		"exit 1\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	tmpl, err := ParseExec(script+" {job_id}", 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	var log resultLog
	d := NewDispatcher(Hooks{KillExec: tmpl}, nil, j, log.add)
	d.Start(context.Background())
	a := Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "r1", JobID: "job-1"}
	d.Kill(a)
	d.Wait()
	d.Shutdown(context.Background())
	j.Close()

	env, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	journal, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := log.last()
	if last.State != StateFailed {
		t.Errorf("result %s %q: want failed", last.State, last.Detail)
	}
	secrets := []string{bearer, "abc123def456", hmacKey, custom, otlp, metrics, "qwerty12345", "pa55w0rd"}
	for what, text := range map[string]string{"journal": string(journal), "result": last.Detail, "headless line": string(last.JSON())} {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("the %s holds the secret %q:\n%s", what, s, text)
			}
		}
	}
	for _, name := range []string{"BURNRATE_WEBHOOK_SECRET", "BURNRATE_OTLP_TOKEN", "BURNRATE_METRICS_TOKEN", "BURNRATE_TEST_CUSTOM_HMAC"} {
		if strings.Contains(string(env), name+"=") {
			t.Errorf("the kill command's environment holds %s", name)
		}
	}
	for _, s := range secrets {
		if strings.Contains(string(env), s) {
			t.Errorf("the kill command's environment holds the secret %q", s)
		}
	}
	// Not everything is taken: the command still gets the rest of
	// burnrate's environment, and the journal keeps what it said.
	if !strings.Contains(string(env), "BURNRATE_TEST_KEEP=visible-to-the-command") || !strings.Contains(string(env), "PATH=") {
		t.Errorf("the kill command lost ordinary variables:\n%s", env)
	}
	if !strings.Contains(string(journal), "BURNRATE_TEST_KEEP=visible-to-the-command") || !strings.Contains(string(journal), "Authorization: [redacted]") {
		t.Errorf("the journal lost the command's ordinary output:\n%s", journal)
	}
	if !strings.Contains(last.Detail, "stderr ends: curl: (22) https://") {
		t.Errorf("the result does not give the command's last line: %q", last.Detail)
	}
}

// TestWebhookAnswerEchoingHeadersRedacted: a receiver whose error page
// echoes the request's headers must not put a credential in the error.
func TestWebhookAnswerEchoingHeadersRedacted(t *testing.T) {
	t.Setenv("BURNRATE_WEBHOOK_SECRET", "whsec-echoed-777777")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte("bad request; headers: Authorization: Bearer sk-live-secret0001\nkey whsec-echoed-777777"))
	}))
	defer srv.Close()
	del := NewPoster(5*time.Second, 5*time.Second, []byte("whsec-echoed-777777")).Post(context.Background(), srv.URL, "k1", []byte("{}"))
	if del.Err == nil {
		t.Fatal("a 400 was taken as delivered")
	}
	got := del.Err.Error()
	if !strings.Contains(got, "Authorization: [redacted]") {
		t.Errorf("the error no longer says what the receiver answered: %q", got)
	}
	for _, s := range []string{"sk-live-secret0001", "whsec-echoed-777777"} {
		if strings.Contains(got, s) {
			t.Errorf("scrubbed answer holds %q: %q", s, got)
		}
	}
}
