package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOTLPTokenFromTheEnvironment: the token comes from the environment
// when no file names it, and from both is refused (the process-level half,
// a receiver answering 401 and 200, is internal/e2e's
// TestOTLPTokenFromAFileOrTheEnvironment).
func TestOTLPTokenFromTheEnvironment(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "otlp.token")
	if err := os.WriteFile(tokenFile, []byte("s3cret-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envOTLPToken, "from-env")
	if _, err := otlpToken("", tokenFile); err == nil || !strings.Contains(err.Error(), "more than once") {
		t.Errorf("env and file together: %v", err)
	}
	if tok, err := otlpToken("", ""); err != nil || tok != "from-env" {
		t.Errorf("from the environment: %q %v", tok, err)
	}
}
