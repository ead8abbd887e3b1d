package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditTOMLRoundTripsThroughBudgetLayers: the stack audit writes is
// read by `budget layers --file` unchanged, and gives the same product.
func TestAuditTOMLRoundTripsThroughBudgetLayers(t *testing.T) {
	out, err := run(t, "audit", "--format", "toml", "../audit/testdata/seed000")
	if !errors.Is(err, errCritical) {
		t.Fatalf("seed 000 has critical findings: exit 1 expected, got %v", err)
	}
	path := filepath.Join(t.TempDir(), "stack.toml")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	sf := stackFlags{file: path}
	st, err := sf.stack()
	if err != nil {
		t.Fatalf("budget layers --file cannot read audit's TOML: %v\n%s", err, out)
	}
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
	if st.WorstCaseAttempts() != 63 || len(st) != 3 || st[0].Name != "bullmq" || st[2].Name != "anthropic-ts" {
		t.Fatalf("round trip %+v", st)
	}
	got, err := run(t, "budget", "layers", "--file", path)
	if err != nil || !strings.Contains(got, "worst-case attempts: 63") {
		t.Fatalf("budget layers --file: %v\n%s", err, got)
	}
}

func TestAuditExitCodesAndFormats(t *testing.T) {
	if _, err := run(t, "audit", "../audit/testdata/none"); err != nil {
		t.Errorf("no retry layers: exit 0, got %v", err)
	}
	if _, err := run(t, "audit", "../audit/testdata/seed000-fixed"); err != nil {
		t.Errorf("seed 000's fix has no critical finding: exit 0, got %v", err)
	}
	if _, err := run(t, "audit", "--format", "yaml", "."); err == nil || errors.Is(err, errCritical) {
		t.Errorf("a bad --format is a usage error, got %v", err)
	}
	if _, err := run(t, "audit", "../audit/testdata/does-not-exist"); err == nil || errors.Is(err, errCritical) {
		t.Errorf("a missing path is a usage error, got %v", err)
	}
	out, err := run(t, "audit", "--format", "sarif", "../audit/testdata/seed000")
	if !errors.Is(err, errCritical) || !strings.Contains(out, `"version": "2.1.0"`) {
		t.Errorf("sarif: %v\n%.300s", err, out)
	}
}

func TestDefaultsCommand(t *testing.T) {
	out, err := run(t, "defaults", "p-retry")
	if err != nil || !strings.Contains(out, "sindresorhus/p-retry") || !strings.Contains(out, "11") {
		t.Errorf("defaults p-retry: %v\n%s", err, out)
	}
	if _, err := run(t, "defaults", "no-such-library"); err == nil {
		t.Error("an unknown library is an error")
	}
}

// TestAuditMeetsTheLogs: static meets dynamic through the existing
// `budget --from-log --file`. Seed 000's incident log against the stack
// audit reads from seed 000's code agrees (63 = 63); against the stack of
// the fixed code (4) it shows a retry layer the code does not configure.
func TestAuditMeetsTheLogs(t *testing.T) {
	const log = "../sample-logs/seed000-incident.jsonl"
	if _, err := os.Stat(log); err != nil {
		t.Fatalf("sample log: %v", err)
	}
	for _, c := range []struct {
		code   string
		hidden bool
	}{{"../audit/testdata/seed000", false}, {"../audit/testdata/seed000-fixed", true}} {
		stack, _ := run(t, "audit", "--format", "toml", c.code)
		path := filepath.Join(t.TempDir(), "stack.toml")
		if err := os.WriteFile(path, []byte(stack), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := run(t, "budget", "--from-log", log, "--file", path)
		if err != nil {
			t.Fatalf("budget --from-log --file: %v", err)
		}
		if got := strings.Contains(out, "a retry layer you did not configure"); got != c.hidden {
			t.Errorf("%s against the incident: hidden layer %v, want %v\n%s", c.code, got, c.hidden, out)
		}
	}
}
