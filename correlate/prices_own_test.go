package correlate

import "testing"

// TestAProvidersOwnPathIsItsEntry: Fireworks logs its model as
// "accounts/fireworks/models/gpt-oss-20b", its own path, and bills it at
// its own price; it was priced as the best-ranked other host of
// gpt-oss-20b (Groq's $0.075/M for Fireworks' $0.07/M) because Fireworks
// ranks as a reseller. A bare ID still goes by rank.
func TestAProvidersOwnPathIsItsEntry(t *testing.T) {
	p := EmbeddedPrices()
	if r := p.Resolve("accounts/fireworks/models/gpt-oss-20b"); r.Key != "fireworks_ai/accounts/fireworks/models/gpt-oss-20b" {
		t.Errorf("Fireworks' own path priced as %q", r.Key)
	}
	if r := p.Resolve("claude-sonnet-4-5"); r.Key != "claude-sonnet-4-5" {
		t.Errorf("an exact entry priced as %q", r.Key)
	}
}
