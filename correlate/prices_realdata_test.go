//go:build realdata

package correlate

import (
	"os"
	"testing"
)

// TestTheRealTableIsPlausible: LiteLLM's own table passes the check that
// refuses blinding ones (its free entries were free before too).
func TestTheRealTableIsPlausible(t *testing.T) {
	b, err := os.ReadFile("../../shared/pricing/model_prices_and_context_window.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := PlausiblePrices(b, EmbeddedPrices()); err != nil {
		t.Error(err)
	}
}
