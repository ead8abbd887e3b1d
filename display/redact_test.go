package display

import (
	"strings"
	"testing"
)

func TestRedactShapes(t *testing.T) {
	cases := []struct{ in, secret, keep string }{
		{"> Authorization: Bearer sk-ant-abc123XYZ456", "sk-ant-abc123XYZ456", "> Authorization: "},
		{"authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz", "authorization: "},
		{"Proxy-Authorization: Digest username=\"u\", response=\"abcd\"", "response", "Proxy-Authorization: "},
		{`{"error":"bad header Bearer eyJhbGciOi.payload.sig"}`, "eyJhbGciOi", `{"error":"bad header Bearer `},
		{"using key sk-proj-AbCdEfGh12345678 now", "AbCdEfGh12345678", "using key "},
		{"key sk-ant-api03-QWERTYUIOP0987 done", "QWERTYUIOP", " done"},
		{"< x-api-key: k_live_12345", "k_live_12345", "< x-api-key: "},
		{"GET /v1?api_key=abc123&model=x", "abc123", "&model=x"},
		{"GET /v1?model=x&token=t0k3n", "t0k3n", "GET /v1?model=x&token="},
		{"secret=hunter22 user=bob", "hunter22", " user=bob"},
		{"password=hunter22", "hunter22", "password="},
		{"GITHUB_TOKEN=abcd1234efgh", "abcd1234efgh", "GITHUB_TOKEN="},
		{"token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_x", "eyJzdWIiOiIxIn0", "token: "},
		{`{"client_secret": "zzzzyyyy"}`, "zzzzyyyy", `{"client_secret": "`},
		{"curl: (7) https://admin:pa55w0rd@api.example.com/kill failed", "pa55w0rd", "https://"},
		{"curl: (7) https://admin:pa55w0rd@api.example.com/kill failed", "admin", "@api.example.com/kill failed"},
	}
	for _, c := range cases {
		got := Redact(c.in)
		if strings.Contains(got, c.secret) || !strings.Contains(got, Redacted) || !strings.Contains(got, c.keep) {
			t.Errorf("Redact(%q) = %q: want %q gone and %q kept", c.in, got, c.secret, c.keep)
		}
	}
}

func TestRedactLiteralSecrets(t *testing.T) {
	got := Redact("hmac key is plainvalue42 and again plainvalue42", "plainvalue42", "", "ab")
	if strings.Contains(got, "plainvalue42") || strings.Count(got, Redacted) != 2 {
		t.Errorf("literal secret kept: %q", got)
	}
	// A secret shorter than 4 bytes would blank ordinary words: ignored.
	if got := Redact("a b c", "b"); got != "a b c" {
		t.Errorf("short secret redacted: %q", got)
	}
}

func TestRedactLeavesBenignText(t *testing.T) {
	for _, s := range []string{
		"job.batch \"job-42\" deleted",
		"Error from server (NotFound): jobs.batch \"ingest-7\" not found",
		"max_tokens=4096 input tokens: 1200",
		"https://api.example.com/v1/jobs/42?force=true",
		"exit status 1",
		"HTTP/1.1 401 Unauthorized",
		"PWD=/srv/jobs OLDPWD=/root",
		"error: invalid token: expired",
		"/etc/passwd: no such file",
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q: benign text changed", s, got)
		}
	}
}

// TestRedactRedTeamShapes: red team of issue 34 — shapes that passed, and
// a job ID that was blanked.
func TestRedactRedTeamShapes(t *testing.T) {
	for _, tc := range []struct{ in, secret string }{
		{"cookie: session=abcdef123456", "abcdef123456"},
		{"< Set-Cookie: sid=zz9911aa; Path=/", "zz9911aa"},
		{"password: hunter2hunter2", "hunter2hunter2"},
		{"  aws_secret_access_key: wJalrXUtnFEMIK7MDENG", "wJalrXUtnFEMIK7MDENG"},
		{"GET /blob?sv=2024&sig=AbCdEf%2B123 HTTP/1.1", "AbCdEf%2B123"},
		{"token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz01", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz01"},
	} {
		if got := Redact(tc.in); strings.Contains(got, tc.secret) {
			t.Errorf("Redact(%q) = %q: the secret is still there", tc.in, got)
		}
	}
	for _, keep := range []string{
		"could not delete sk-learn-nightly-0001: not found",
		"error: invalid token: expired",
		"config: /etc/burnrate/burnrate.toml",
	} {
		if got := Redact(keep); got != keep {
			t.Errorf("Redact(%q) = %q, want it unchanged", keep, got)
		}
	}
}
