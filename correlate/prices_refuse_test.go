package correlate

import (
	"fmt"
	"strings"
	"testing"
)

// TestImplausibleEntriesRefused: an entry past $1 per token, negative, not
// a number or not finite is refused at load with its model and field named;
// the rest of the table still prices, and the refused model falls to the
// base table or is unpriced, never billed at the absurd rate or at $0.
func TestImplausibleEntriesRefused(t *testing.T) {
	body := `{"evil-model":{"input_cost_per_token":1e-6,"output_cost_per_token":3.0},
	"claude-haiku-4-5":{"input_cost_per_token":-1,"output_cost_per_token":1e-6},
	"nan-model":{"input_cost_per_token":"NaN","output_cost_per_token":1e-6},
	"inf-model":{"input_cost_per_token":1e400,"output_cost_per_token":1e-6},
	"huge-model":{"input_cost_per_token":1e300,"output_cost_per_token":1e-6},
	"tier-model":{"input_cost_per_token":1e-6,"output_cost_per_token":1e-6,"input_cost_per_token_above_200k_tokens":2},
	"ok-model":{"input_cost_per_token":1e-6,"output_cost_per_token":2e-6,"output_cost_per_image":5},
	"free-model":{"input_cost_per_token":0,"output_cost_per_token":0}}`
	tab, err := LoadLiteLLMPrices(strings.NewReader(body), "hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	tab.WithBase(EmbeddedPrices())
	want := []string{
		"claude-haiku-4-5 input_cost_per_token is -1, below zero",
		"evil-model output_cost_per_token is 3, past $1 per token",
		"huge-model input_cost_per_token is 1e+300, past $1 per token",
		"inf-model input_cost_per_token is 1e400, not a finite number",
		`nan-model input_cost_per_token is "NaN", not a number`,
		"tier-model input_cost_per_token_above_200k_tokens is 2, past $1 per token",
	}
	if strings.Join(tab.Refused, "\n") != strings.Join(want, "\n") {
		t.Fatalf("refused:\n%s\nwant:\n%s", strings.Join(tab.Refused, "\n"), strings.Join(want, "\n"))
	}
	if tab.Models != 2 {
		t.Errorf("models = %d, want 2 (ok-model, free-model)", tab.Models)
	}
	if !strings.Contains(tab.Describe(), "6 rate(s) refused") {
		t.Errorf("Describe does not count the refused rates: %s", tab.Describe())
	}
	for _, m := range []string{"evil-model", "nan-model", "inf-model", "huge-model", "tier-model"} {
		if _, ok := tab.Lookup(m); ok {
			t.Errorf("%s is priced by a refused entry", m)
		}
	}
	// The refused override falls to the embedded table's price.
	r := tab.Resolve("claude-haiku-4-5")
	emb := EmbeddedPrices().Resolve("claude-haiku-4-5")
	if r.Key == "" || r.Price.Input != emb.Price.Input || r.Price.Input <= 0 {
		t.Errorf("claude-haiku-4-5 = %+v, want the embedded price %+v", r, emb)
	}
	if p, ok := tab.Lookup("ok-model"); !ok || p.Output != 2_000_000 {
		t.Errorf("ok-model = %+v %v", p, ok)
	}
}

// TestAllRefusedRefusesTheTable: a table none of whose entries survive is
// refused whole, its entries named.
func TestAllRefusedRefusesTheTable(t *testing.T) {
	_, err := LoadLiteLLMPrices(strings.NewReader(`{"m":{"input_cost_per_token":1e300,"output_cost_per_token":1e300}}`), "h.json")
	if err == nil || !strings.Contains(err.Error(), "m input_cost_per_token is 1e+300, past $1 per token") {
		t.Fatalf("err = %v", err)
	}
}

// TestEmbeddedTableRefusesNothing: every rate of the embedded table is
// plausible, and a TSV rate past the limit is refused as a JSON one is.
func TestEmbeddedTableRefusesNothing(t *testing.T) {
	if r := EmbeddedPrices().Refused; len(r) > 0 {
		t.Fatalf("the embedded table refused %v", r)
	}
	tab, err := ParsePriceTSV([]byte("a\t1\t2\t3\t4\t0\t0\t0\t-\nb\t1\t2000000000000\t3\t4\t0\t0\t0\t-\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Refused) != 1 || !strings.HasPrefix(tab.Refused[0], "b output is 2000000000000 picodollars") {
		t.Fatalf("refused = %v", tab.Refused)
	}
	if _, ok := tab.Lookup("b"); ok {
		t.Error("b is priced")
	}
}

// TestUpdateRefusesWhatTheLoaderWould: prices update refuses a table with
// a rate the loader would refuse (a string "NaN" slipped past its check,
// which read only numbers).
func TestUpdateRefusesWhatTheLoaderWould(t *testing.T) {
	body := []byte(`{"ok":{"input_cost_per_token":1e-6,"output_cost_per_token":1e-6},"bad":{"input_cost_per_token":"NaN","output_cost_per_token":1e-6}}`)
	if err := PlausiblePrices(body, EmbeddedPrices()); err == nil || !strings.Contains(err.Error(), `bad input_cost_per_token is "NaN", not a number`) {
		t.Fatalf("err = %v", err)
	}
}

// TestEscapedRateKeyIsChecked: a rate whose key is written with an escape
// is the same rate to encoding/json, which prices the entry: it is
// checked as that rate.
func TestEscapedRateKeyIsChecked(t *testing.T) {
	body := `{"m":{"input_cost_per_token":1e-6,"output_cost_per_token":1e-6,"cache_read_input_token_\u0063ost":1e300},"ok":{"input_cost_per_token":1e-6,"output_cost_per_token":1e-6}}`
	tab, err := LoadLiteLLMPrices(strings.NewReader(body), "h.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Refused) != 1 || tab.Refused[0] != "m cache_read_input_token_cost is 1e+300, past $1 per token" {
		t.Fatalf("refused = %q", tab.Refused)
	}
	if _, ok := tab.Lookup("m"); ok {
		t.Error("m is priced")
	}
}

// TestFreeEntryOverAPricedModelRefused: a --prices entry at $0 for a model
// the embedded table prices (or one that shadows it under a prefix) is
// refused, the embedded price standing; a free model the embedded table
// does not price stays free.
func TestFreeEntryOverAPricedModelRefused(t *testing.T) {
	body := `{"claude-sonnet-4-6":{"input_cost_per_token":0,"output_cost_per_token":0},
	"anthropic/claude-opus-4-6":{"input_cost_per_token":1e-30,"output_cost_per_token":0},
	"my-local-llama":{"input_cost_per_token":0,"output_cost_per_token":0}}`
	tab, err := LoadLiteLLMPrices(strings.NewReader(body), "free.json")
	if err != nil {
		t.Fatal(err)
	}
	tab.WithBase(EmbeddedPrices())
	if len(tab.Refused) != 2 || !strings.HasPrefix(tab.Refused[0], "anthropic/claude-opus-4-6 input and output_cost_per_token are 0, where") ||
		!strings.HasPrefix(tab.Refused[1], "claude-sonnet-4-6 input and output_cost_per_token are 0") {
		t.Fatalf("refused = %q", tab.Refused)
	}
	for _, m := range []string{"claude-sonnet-4-6", "claude-opus-4-6", "anthropic/claude-opus-4-6"} {
		if p, ok := tab.Lookup(m); !ok || p.Input == 0 {
			t.Errorf("%s = %+v %v, want the embedded price", m, p, ok)
		}
	}
	if p, ok := tab.Lookup("my-local-llama"); !ok || p.Input != 0 {
		t.Errorf("my-local-llama = %+v %v, want free", p, ok)
	}
}

// TestNearlyFreeEntryOverAPricedModelRefused: red team — 1e-12 per token
// for a model the embedded table prices at 3e-6 got past the $0 rule and
// blinded the ceilings as $0 does (a $11.25 job read $0.000003). Under
// 1/100 of the embedded rate, the entry is refused when first used and the
// embedded price stands; a cheap model the embedded table does not know
// keeps its price, and an entry merely cheaper (a 10% cut) is kept.
func TestNearlyFreeEntryOverAPricedModelRefused(t *testing.T) {
	emb, _ := EmbeddedPrices().Lookup("claude-sonnet-4-6")
	opus, _ := EmbeddedPrices().Lookup("claude-opus-4-6")
	body := fmt.Sprintf(`{"claude-sonnet-4-6":{"input_cost_per_token":1e-12,"output_cost_per_token":1e-12},
	"claude-opus-4-6":{"input_cost_per_token":%g,"output_cost_per_token":%g},
	"my-local-llama":{"input_cost_per_token":1e-12,"output_cost_per_token":1e-12}}`, 0.9*opus.Input.USD(), 0.9*opus.Output.USD())
	tab, err := LoadLiteLLMPrices(strings.NewReader(body), "cheap.json")
	if err != nil {
		t.Fatal(err)
	}
	tab.WithBase(EmbeddedPrices())
	if p, ok := tab.Lookup("claude-sonnet-4-6"); !ok || p.Input != emb.Input || p.Output != emb.Output {
		t.Errorf("claude-sonnet-4-6 = %+v %v, want the embedded %+v", p, ok, emb)
	}
	if len(tab.Refused) != 1 || !strings.Contains(tab.Refused[0], "claude-sonnet-4-6 input_cost_per_token is $1e-12 per token, under 1/100") {
		t.Errorf("refused = %q", tab.Refused)
	}
	if p, ok := tab.Lookup("my-local-llama"); !ok || p.Input != 1 {
		t.Errorf("my-local-llama = %+v %v, want its own price", p, ok)
	}
	if r := tab.Resolve("claude-opus-4-6"); r.Key != "claude-opus-4-6" || r.Price.Input == 0 || r.Price.Input >= opus.Input {
		t.Errorf("a plausible cut is refused: %+v", r)
	}
}
