package alerts

import (
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/burnrate-dev/burnrate/display"
)

// SecretEnvNames are the environment variables burnrate reads its own
// secrets from: the default webhook HMAC key, the OTLP and the /metrics
// bearer tokens. A kill command never sees them (nor the variable
// [actions] secret_env names), and their values are redacted from
// whatever a command prints or a receiver answers.
var SecretEnvNames = []string{"BURNRATE_WEBHOOK_SECRET", "BURNRATE_OTLP_TOKEN", "BURNRATE_METRICS_TOKEN"}

var (
	secretMu   sync.Mutex
	secretEnv  []string // names added to SecretEnvNames (secret_env)
	secretVals []string // values read from flags or files
)

// AddSecretEnv names one more variable holding a secret of burnrate's
// (the configured secret_env): it is kept from kill commands and its
// value redacted like the built-in ones.
func AddSecretEnv(names ...string) {
	secretMu.Lock()
	defer secretMu.Unlock()
	for _, n := range names {
		if n != "" && !slices.Contains(secretEnv, n) && !slices.Contains(SecretEnvNames, n) {
			secretEnv = append(secretEnv, n)
		}
	}
}

// AddSecretValue registers a secret burnrate read from a flag or a file
// (a --otlp-token-file token): its literal value is redacted from what
// commands print and receivers answer.
func AddSecretValue(vals ...string) {
	secretMu.Lock()
	defer secretMu.Unlock()
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(secretVals, v) {
			secretVals = append(secretVals, v)
		}
	}
}

// secretNames is every variable kept from kill commands.
func secretNames() []string {
	secretMu.Lock()
	defer secretMu.Unlock()
	return append(slices.Clone(SecretEnvNames), secretEnv...)
}

// secretValues is every secret value known now: the registered ones and
// the current values of the secret variables.
func secretValues() []string {
	out := secretNames()
	for i, n := range out {
		out[i] = os.Getenv(n)
	}
	secretMu.Lock()
	defer secretMu.Unlock()
	return append(out, secretVals...)
}

// Redact is display.Redact with burnrate's own secrets as literals: the
// one filter for command output, command errors and receivers' answers
// before they reach the journal, stdout or an alert.
func Redact(s string) string { return display.Redact(s, secretValues()...) }

// commandEnv is burnrate's environment without its secrets: what a kill
// command runs with.
func commandEnv() []string {
	names := secretNames()
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}

// redactedError shows a redacted message and still unwraps to the error
// it replaces, so errors.Is keeps working.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
