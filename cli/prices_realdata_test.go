//go:build realdata

package cli

import (
	"os"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// TestTheRealTableIsPlausible: LiteLLM's own table passes the check that
// refuses blinding ones (its free entries were free before too).
func TestTheRealTableIsPlausible(t *testing.T) {
	b, err := os.ReadFile("../../shared/pricing/model_prices_and_context_window.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := plausiblePrices(b, correlate.EmbeddedPrices()); err != nil {
		t.Error(err)
	}
}
