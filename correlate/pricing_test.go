package correlate

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

func TestNormalizeModel(t *testing.T) {
	for in, want := range map[string]string{
		"claude-sonnet-4-6":                                   "claude-sonnet-4-6",
		"anthropic/claude-sonnet-4-6":                         "claude-sonnet-4-6",
		"claude-sonnet-4-20250514":                            "claude-sonnet-4",
		"claude-3-5-sonnet-latest":                            "claude-3-5-sonnet",
		"bedrock/us.anthropic.claude-3-5-haiku-20241022-v1:0": "claude-3-5-haiku",
		"openai/gpt-4o-2024-08-06":                            "gpt-4o",
		"vertex_ai/claude-opus-4-1@20250805":                  "claude-opus-4-1",
		"GPT-4.1-Mini":                                        "gpt-4.1-mini",
	} {
		if got := NormalizeModel(in); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
	if p, ok := BuiltinPrices().Lookup("claude-sonnet-4-6"); !ok || p.Input != perMillion(3) || p.Output != perMillion(15) || p.CacheRead != perMillion(0.30) || p.CacheWrite != perMillion(3.75) {
		t.Errorf("claude-sonnet-4-6 must be $3 / $15 / $0.30 / $3.75 per million: %+v", p)
	}
}

// TestLiteLLMPriceFile: a LiteLLM price file wins over the built-in table,
// is named with its SHA-256 in the report, and unknown models are reported
// as unpriced with their tokens, never as $0.
func TestLiteLLMPriceFile(t *testing.T) {
	table, err := LoadLiteLLMPrices(strings.NewReader(`{
 "sample_spec": {"input_cost_per_token": "see docs"},
 "claude-sonnet-4-6": {"input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 2e-07,
   "cache_creation_input_token_cost": 2.5e-06, "input_cost_per_token_batches": 1e-06, "output_cost_per_token_batches": 5e-06, "litellm_provider": "anthropic"},
 "bedrock/my-private-model": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}
}`), "prices.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Prices = table
	st := New(cfg)
	p := ingest.NewParser()
	for _, l := range []string{
		`{"ts":1,"model":"anthropic/claude-sonnet-4-6","status":200,"input_tokens":1000000,"output_tokens":100000}`,
		`{"ts":2,"model":"my-private-model","status":200,"input_tokens":1000000}`,
		`{"ts":3,"model":"mystery-9","status":200,"input_tokens":500,"output_tokens":50}`,
		`{"ts":4,"model":"gpt-4o","status":200,"input_tokens":1000000}`,
	} {
		var ev ingest.Event
		if r := p.ParseLine([]byte(l), &ev); r != ingest.Accepted {
			t.Fatal(r)
		}
		st.Apply(&ev)
	}
	r := st.Report()
	// $2 + $1 from the file, $1 for the file's private model, $2.50 built-in gpt-4o.
	if r.Totals.SpendUSD != 2+1+1+2.5 {
		t.Errorf("spend %v", r.Totals.SpendUSD)
	}
	if r.Totals.UnpricedAttempts != 1 || len(r.Pricing.UnpricedModels) != 1 || r.Pricing.UnpricedModels[0] != "mystery-9" {
		t.Errorf("unpriced %d %v", r.Totals.UnpricedAttempts, r.Pricing.UnpricedModels)
	}
	if len(r.Pricing.SHA256) != 64 || !strings.Contains(r.Pricing.Table, "prices.json") {
		t.Errorf("pricing %+v", r.Pricing)
	}
	if price, _ := table.Lookup("claude-sonnet-4-6"); price.BatchCost(1_000_000, 0, 0, 0) != PicoFromUSD(1) {
		t.Errorf("batch rate from the file: %v", price.BatchCost(1_000_000, 0, 0, 0).USD())
	}
	if _, err := LoadLiteLLMPrices(strings.NewReader(`["not", "an", "object"]`), "bad.json"); err == nil {
		t.Error("a price file that is not an object of models must be an error")
	}
}
