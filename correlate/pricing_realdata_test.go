//go:build realdata

package correlate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// sharedPrices is LiteLLM's table as handed to the team, beside the
// repository: the source the embedded table is generated from. CI has it;
// a test that needs it fails without it, never skips.
const sharedPrices = "../../shared/pricing/model_prices_and_context_window.json"

func readSharedPrices(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(sharedPrices)
	if err != nil {
		t.Fatalf("%v: the price table's source must be in ../shared/pricing (CI has it beside the repository)", err)
	}
	return b
}

// TestEmbeddedTable holds the embedded table to its provenance, and to a
// fresh generation from its source: the committed file is what
// `go generate ./correlate` writes.
func TestEmbeddedTable(t *testing.T) {
	src := readSharedPrices(t)
	sum := sha256.Sum256(src)
	if hex.EncodeToString(sum[:]) != EmbeddedPricesSHA256 {
		t.Errorf("../shared/pricing SHA-256 %x, want %s (update pricedata/SOURCE.md and the constants together)", sum, EmbeddedPricesSHA256)
	}
	tb := EmbeddedPrices()
	if tb.Date != EmbeddedPricesDate || tb.Models != 2497 || tb.SHA256 != EmbeddedPricesSHA256 {
		t.Errorf("embedded table: date %q, %d models, sha %s", tb.Date, tb.Models, tb.SHA256)
	}
	if d := tb.Describe(); !strings.Contains(d, "LiteLLM") || !strings.Contains(d, EmbeddedPricesSHA256) || !strings.Contains(d, "2026-07-24") {
		t.Errorf("a report must state the table: %s", d)
	}
	lite, err := LoadLiteLLMPrices(bytes.NewReader(src), EmbeddedPricesSource)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WritePriceTSV(&again, lite, "correlate/internal/pricegen"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), embeddedPrices) {
		t.Error("pricedata/prices.tsv is not what go generate ./correlate writes from ../shared/pricing: run it")
	}
}

// TestEmbeddedTablePricesAsTheSource: issue 20 — the generated table must
// price every model exactly as LiteLLM's file did: every entry's ID, in
// upper case, with a provider prefix, without one, dated, and in the lossy
// forms resolution tries, resolves to the same entry, approximation and
// rates through both.
func TestEmbeddedTablePricesAsTheSource(t *testing.T) {
	src := readSharedPrices(t)
	lite, err := LoadLiteLLMPrices(bytes.NewReader(src), EmbeddedPricesSource)
	if err != nil {
		t.Fatal(err)
	}
	gen := EmbeddedPrices()
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(src, &entries); err != nil {
		t.Fatal(err)
	}
	checked, differ := 0, 0
	for name := range entries {
		bare := name
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			bare = name[i+1:]
		}
		for _, id := range []string{name, strings.ToUpper(name), "openrouter/" + name, "anthropic/" + bare, bare, bare + "-20250101", bare + "@20250929",
			bare + "[1m]", strings.ReplaceAll(bare, "-", "."), "us." + bare + "-v1:0", bare + "-latest"} {
			a, b := lite.Resolve(id), gen.Resolve(id)
			checked++
			if a.Key != b.Key || a.Approximate != b.Approximate || !reflect.DeepEqual(a.Price, b.Price) {
				differ++
				if differ <= 5 {
					t.Errorf("%q: LiteLLM's file prices it as %q %+v, the generated table as %q %+v", id, a.Key, a.Price, b.Key, b.Price)
				}
			}
		}
	}
	if differ > 0 || checked < 30000 {
		t.Errorf("%d of %d model IDs priced differently", differ, checked)
	}
}

// TestRealModelIDsPriceFromTheTable: issue 13 — model IDs seen in real
// data were unpriced or missed normalization. Each is priced from the
// embedded LiteLLM table, and equals tokens × that entry's prices, read
// here from the JSON independently of the code under test.
func TestRealModelIDsPriceFromTheTable(t *testing.T) {
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(readSharedPrices(t), &entries); err != nil {
		t.Fatal(err)
	}
	raw := map[string]map[string]any{}
	for k, v := range entries {
		var e map[string]any
		if json.Unmarshal(v, &e) == nil {
			raw[k] = e
		}
	}
	tb := EmbeddedPrices()
	for model, key := range map[string]string{
		"gpt-5-codex":                                         "gpt-5-codex",
		"gpt-4-turbo":                                         "gpt-4-turbo",
		"gpt-3.5-turbo-0125":                                  "gpt-3.5-turbo-0125",
		"o3-mini-2025-01-31":                                  "o3-mini-2025-01-31",
		"claude-3-opus-20240229":                              "claude-3-opus-20240229",
		"text-embedding-3-small":                              "text-embedding-3-small",
		"anthropic/claude-haiku-4.5":                          "claude-haiku-4-5",
		"openrouter/anthropic/claude-sonnet-4.5":              "openrouter/anthropic/claude-sonnet-4.5",
		"claude-opus-4-6[1m]":                                 "claude-opus-4-6",
		"vertex_ai/claude-sonnet-4-5@20250929":                "vertex_ai/claude-sonnet-4-5@20250929",
		"claude-sonnet-4-5@20250929":                          "claude-sonnet-4-5",
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		"bedrock/eu.anthropic.claude-haiku-4-5-20251001-v1:0": "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
		"Claude-Sonnet-4-6":                                   "claude-sonnet-4-6",
		"claude-sonnet-4-6":                                   "claude-sonnet-4-6",
		"claude-opus-4-1":                                     "claude-opus-4-1",
		"gpt-5":                                               "gpt-5",
		"gpt-5.1":                                             "gpt-5.1",
		"gpt-4.1-mini":                                        "gpt-4.1-mini",
		"gpt-4o-2024-08-06":                                   "gpt-4o-2024-08-06",
		"o3":                                                  "o3",
		"gemini-2.5-pro":                                      "gemini-2.5-pro",
		"gemini/gemini-2.5-flash":                             "gemini/gemini-2.5-flash",
		"models/gemini-2.5-flash-lite":                        "gemini-2.5-flash-lite",
		"deepseek-chat":                                       "deepseek-chat",
		"deepseek/deepseek-reasoner":                          "deepseek/deepseek-reasoner",
		"mistral-large-latest":                                "mistral/mistral-large-latest",
		"mistral/mistral-small-latest":                        "mistral/mistral-small-latest",
	} {
		r := tb.Resolve(model)
		if r.Key != key {
			t.Errorf("%s resolved to %q, want %q", model, r.Key, key)
			continue
		}
		e := raw[key]
		if e == nil {
			t.Errorf("%s: the test's key %q is not in the table", model, key)
			continue
		}
		rate := func(field, fallback string) Pico {
			if v, ok := e[field].(float64); ok {
				return PicoFromUSD(v)
			}
			if fallback != "" {
				if v, ok := e[fallback].(float64); ok {
					return PicoFromUSD(v)
				}
			}
			return 0
		}
		const in, out, cr, cw = 12_345, 6_789, 1_000, 500
		want := Pico(in)*rate("input_cost_per_token", "") + Pico(out)*rate("output_cost_per_token", "") +
			Pico(cr)*rate("cache_read_input_token_cost", "input_cost_per_token") + Pico(cw)*rate("cache_creation_input_token_cost", "input_cost_per_token")
		if got := r.Price.Cost(in, out, cr, cw); got != want || want == 0 && !strings.HasPrefix(key, "text-embedding") {
			t.Errorf("%s: cost %d, want %d (tokens × the %s entry)", model, got, want, key)
		}
	}
	if r := tb.Resolve("gemini-2.5-flash-preview-05-20"); r.Key != "gemini-2.5-flash" || !r.Approximate {
		t.Errorf("a retired preview is priced as its family, said to be approximate: %+v", r)
	}
	if _, ok := tb.Lookup("mystery-model-9"); ok {
		t.Error("an unknown model must stay unpriced")
	}
}

// BenchmarkLoadLiteLLMTable is the same table read from LiteLLM's JSON, as
// --prices FILE and prices update read it.
func BenchmarkLoadLiteLLMTable(b *testing.B) {
	src := readSharedPrices(b)
	for range b.N {
		if _, err := LoadLiteLLMPrices(bytes.NewReader(src), "x"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSplitterOnTheRealTable: the one-pass splitter finds every member of
// LiteLLM's real table that encoding/json finds.
func TestSplitterOnTheRealTable(t *testing.T) {
	src := readSharedPrices(t)
	if !json.Valid(src) {
		t.Fatal("LiteLLM's price table is not valid JSON")
	}
	raw, end, err := splitObject(src)
	var want map[string]json.RawMessage
	if err != nil || json.Unmarshal(src, &want) != nil || len(raw) != len(want) || len(bytes.TrimSpace(src[end:])) != 0 {
		t.Fatalf("split %d members (err %v), encoding/json %d", len(raw), err, len(want))
	}
}
