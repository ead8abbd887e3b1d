package correlate

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestLongContextTier: past 200k input tokens the _above_200k_tokens rates
// price the whole call.
func TestLongContextTier(t *testing.T) {
	p, ok := EmbeddedPrices().Lookup("claude-sonnet-4-5")
	if !ok || len(p.Tiers) == 0 {
		t.Fatalf("claude-sonnet-4-5 has no long-context tier: %+v", p)
	}
	short := p.Cost(100_000, 1000, 0, 0)
	long := p.Cost(150_000, 1000, 60_000, 0) // 210k in all
	if short != 100_000*perMillion(3)+1000*perMillion(15) {
		t.Errorf("under 200k: %d", short)
	}
	if long != 150_000*perMillion(6)+1000*perMillion(22.5)+60_000*perMillion(0.6) {
		t.Errorf("over 200k: %d, want the above_200k rates", long)
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
	cfg.Prices = table.WithBase(EmbeddedPrices())
	st := New(cfg)
	p := decode.NewParser()
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
	// $2 + $1 from the file, $1 for the file's private model, $2.50 for gpt-4o from the embedded table.
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

// BenchmarkLoadEmbeddedTable is what every start pays for prices: reading
// the generated table (it was 14 ms to split LiteLLM's JSON).
func BenchmarkLoadEmbeddedTable(b *testing.B) {
	for range b.N {
		if _, err := ParsePriceTSV(embeddedPrices); err != nil {
			b.Fatal(err)
		}
	}
}
