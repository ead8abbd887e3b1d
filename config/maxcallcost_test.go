package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// TestMaxCallCost: max_call_cost_usd sets the per-call cap, the flag beats
// it, the default is ingest's cap on a logged cost, and NaN, an infinity or
// a negative amount is refused with the key or flag named.
func TestMaxCallCost(t *testing.T) {
	dir := t.TempDir()
	load := func(body string, flags Analysis) (correlate.Config, error) {
		p := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		flags.MaxCallsPerJob = -1
		return f.Correlate(flags)
	}
	if c, err := load("", Analysis{}); err != nil || c.MaxCallCost != correlate.PicoFromUSD(100_000) {
		t.Errorf("default: %v %v", c.MaxCallCost, err)
	}
	if c, err := load("max_call_cost_usd = 250\n", Analysis{}); err != nil || c.MaxCallCost != correlate.PicoFromUSD(250) {
		t.Errorf("key: %v %v", c.MaxCallCost, err)
	}
	if c, err := load("max_call_cost_usd = 250\n", Analysis{MaxCallCostUSD: 0, MaxCallCostSet: true}); err != nil || c.MaxCallCost != 0 {
		t.Errorf("flag 0 over the key: %v %v", c.MaxCallCost, err)
	}
	for body, want := range map[string]string{"max_call_cost_usd = nan\n": "max_call_cost_usd: NaN is not a cap", "max_call_cost_usd = -1.0\n": "max_call_cost_usd: -1 is not a cap",
		"max_call_cost_usd = inf\n": "max_call_cost_usd: +Inf is not a cap", "max_call_cost_usd = 1e300\n": "max_call_cost_usd: 1e+300 is not a cap"} {
		if _, err := load(body, Analysis{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", body, err)
		}
	}
	if _, err := load("", Analysis{MaxCallCostUSD: -5, MaxCallCostSet: true}); err == nil || !strings.Contains(err.Error(), "--max-call-cost: -5 is not a cap") {
		t.Errorf("flag -5: %v", err)
	}
}
