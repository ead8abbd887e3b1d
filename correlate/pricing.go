package correlate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strings"
)

// Pico is an amount of US dollars in units of 1e-12. Spend is summed as
// integers so the total does not depend on float rounding or on order, and
// a cost logged as 0.00022500000000000002 sums exactly. Sums saturate at
// MaxPico (about $9.2M) instead of wrapping: a hostile line can make spend
// read "at least $9.2M", never negative, so a ceiling always still fires.
type Pico int64

// PicoPerUSD is one dollar.
const PicoPerUSD = 1e12

// MaxPico is the largest amount a Pico holds; sums stop there.
const MaxPico = Pico(math.MaxInt64)

// Add returns p+q, saturating at MaxPico. A negative q adds nothing:
// spend never decreases when an event is added.
func (p Pico) Add(q Pico) Pico {
	if q <= 0 {
		return p
	}
	if p > MaxPico-q {
		return MaxPico
	}
	return p + q
}

// mulTokens prices n tokens at price each, saturating at MaxPico.
func mulTokens(n int64, price Pico) Pico {
	if n <= 0 || price <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(price))
	if hi != 0 || lo > uint64(MaxPico) {
		return MaxPico
	}
	return Pico(lo)
}

// USD converts to dollars for display and JSON.
func (p Pico) USD() float64 { return float64(p) / PicoPerUSD }

// PicoFromUSD rounds a dollar amount to the nearest picodollar.
func PicoFromUSD(usd float64) Pico {
	if usd <= 0 || math.IsNaN(usd) {
		return 0
	}
	if usd > 9e6 {
		usd = 9e6 // int64 picodollars hold about $9.2M per amount
	}
	return Pico(math.Round(usd * PicoPerUSD))
}

// Price is what one token costs, per kind of token, in picodollars.
type Price struct {
	Input, Output, CacheRead, CacheWrite Pico
	// BatchInput and BatchOutput are batch-API rates, zero when unknown.
	BatchInput, BatchOutput Pico
}

// Cost prices a call's tokens; input excludes cache reads and writes.
func (p Price) Cost(input, output, cacheRead, cacheWrite int64) Pico {
	return mulTokens(input, p.Input).Add(mulTokens(output, p.Output)).Add(mulTokens(cacheRead, p.CacheRead)).Add(mulTokens(cacheWrite, p.CacheWrite))
}

// BatchCost prices a batch-API call: the table's batch rates where it has
// them, else half the synchronous rate (the providers' batch discount).
func (p Price) BatchCost(input, output, cacheRead, cacheWrite int64) Pico {
	in, out := p.BatchInput, p.BatchOutput
	if in == 0 {
		in = p.Input / 2
	}
	if out == 0 {
		out = p.Output / 2
	}
	return mulTokens(input, in).Add(mulTokens(output, out)).Add(mulTokens(cacheRead, p.CacheRead/2)).Add(mulTokens(cacheWrite, p.CacheWrite/2))
}

// BatchPricingNote says how batch calls were priced.
const BatchPricingNote = "batch calls are priced at the price file's input/output_cost_per_token_batches where present, else at half the synchronous rate"

// perMillion converts "USD per million tokens" to picodollars per token.
func perMillion(usd float64) Pico { return Pico(math.Round(usd * 1e6)) }

// BuiltinPricesVersion names the built-in table; a report states it so a
// postmortem can be re-priced and compared.
const BuiltinPricesVersion = "builtin-2026-11"

// builtinPrices are list prices in USD per million tokens:
// input, output, cache read, cache write.
var builtinPrices = map[string][4]float64{
	// Anthropic
	"claude-opus-4-6":   {5, 25, 0.50, 6.25},
	"claude-opus-4-5":   {5, 25, 0.50, 6.25},
	"claude-opus-4-1":   {15, 75, 1.50, 18.75},
	"claude-opus-4":     {15, 75, 1.50, 18.75},
	"claude-sonnet-4-6": {3, 15, 0.30, 3.75},
	"claude-sonnet-4-5": {3, 15, 0.30, 3.75},
	"claude-sonnet-4":   {3, 15, 0.30, 3.75},
	"claude-3-7-sonnet": {3, 15, 0.30, 3.75},
	"claude-3-5-sonnet": {3, 15, 0.30, 3.75},
	"claude-haiku-4-5":  {1, 5, 0.10, 1.25},
	"claude-3-5-haiku":  {0.80, 4, 0.08, 1},
	"claude-3-haiku":    {0.25, 1.25, 0.03, 0.30},
	// OpenAI (no separate cache-write charge)
	"gpt-5":        {1.25, 10, 0.125, 0},
	"gpt-5-mini":   {0.25, 2, 0.025, 0},
	"gpt-5-nano":   {0.05, 0.40, 0.005, 0},
	"gpt-4.1":      {2, 8, 0.50, 0},
	"gpt-4.1-mini": {0.40, 1.60, 0.10, 0},
	"gpt-4.1-nano": {0.10, 0.40, 0.025, 0},
	"gpt-4o":       {2.50, 10, 1.25, 0},
	"gpt-4o-mini":  {0.15, 0.60, 0.075, 0},
	"o3":           {2, 8, 0.50, 0},
	"o4-mini":      {1.10, 4.40, 0.275, 0},
	"o1":           {15, 60, 7.50, 0},
	// Google
	"gemini-2.5-pro":        {1.25, 10, 0.31, 0},
	"gemini-2.5-flash":      {0.30, 2.50, 0.075, 0},
	"gemini-2.5-flash-lite": {0.10, 0.40, 0.025, 0},
	"gemini-2.0-flash":      {0.10, 0.40, 0.025, 0},
}

// PriceTable maps model IDs to prices.
type PriceTable struct {
	// Source is "builtin" or the path of a loaded file.
	Source  string
	Version string // built-in version, or empty for a file
	SHA256  string // of the loaded file
	prices  map[string]Price
}

// BuiltinPrices returns the table compiled into burnrate.
func BuiltinPrices() *PriceTable {
	t := &PriceTable{Source: "builtin", Version: BuiltinPricesVersion, prices: make(map[string]Price, len(builtinPrices))}
	for model, p := range builtinPrices {
		t.prices[model] = Price{Input: perMillion(p[0]), Output: perMillion(p[1]), CacheRead: perMillion(p[2]), CacheWrite: perMillion(p[3])}
	}
	return t
}

// liteLLMEntry is one model in LiteLLM's model_prices_and_context_window.json.
type liteLLMEntry struct {
	Input       *float64 `json:"input_cost_per_token"`
	Output      *float64 `json:"output_cost_per_token"`
	CacheRead   *float64 `json:"cache_read_input_token_cost"`
	CacheWrite  *float64 `json:"cache_creation_input_token_cost"`
	BatchInput  *float64 `json:"input_cost_per_token_batches"`
	BatchOutput *float64 `json:"output_cost_per_token_batches"`
}

// LoadLiteLLMPrices reads a LiteLLM price file (named path in errors and
// in the report); its entries win over the built-in ones, which still
// price models the file does not list. The caller opens and closes it:
// correlate does no I/O of its own.
func LoadLiteLLMPrices(f io.Reader, path string) (*PriceTable, error) {
	h := sha256.New()
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(io.TeeReader(io.LimitReader(f, 64<<20), h)).Decode(&raw); err != nil {
		return nil, fmt.Errorf("prices %s: not a JSON object of models: %w", path, err)
	}
	_, _ = io.Copy(h, f) // hash the whole file, even bytes the decoder did not need
	t := BuiltinPrices()
	t.Source, t.Version, t.SHA256 = path, "", hex.EncodeToString(h.Sum(nil))
	// Entries with a provider prefix ("bedrock/...") are applied first so
	// that an unprefixed entry for the same model wins.
	var prefixed, plain []string
	for name := range raw {
		if strings.Contains(name, "/") {
			prefixed = append(prefixed, name)
		} else {
			plain = append(plain, name)
		}
	}
	slices.Sort(prefixed)
	slices.Sort(plain)
	loaded := 0
	for _, name := range append(prefixed, plain...) {
		var e liteLLMEntry
		if json.Unmarshal(raw[name], &e) != nil || e.Input == nil || e.Output == nil {
			continue // sample_spec and non-token-priced entries
		}
		p := Price{Input: perToken(e.Input), Output: perToken(e.Output), CacheRead: perToken(e.CacheRead), CacheWrite: perToken(e.CacheWrite),
			BatchInput: perToken(e.BatchInput), BatchOutput: perToken(e.BatchOutput)}
		if e.CacheRead == nil {
			p.CacheRead = p.Input
		}
		if e.CacheWrite == nil {
			p.CacheWrite = p.Input
		}
		t.prices[NormalizeModel(name)] = p
		loaded++
	}
	if loaded == 0 {
		return nil, fmt.Errorf("prices %s: no entry has input_cost_per_token and output_cost_per_token", path)
	}
	return t, nil
}

func perToken(usd *float64) Pico {
	if usd == nil {
		return 0
	}
	return PicoFromUSD(*usd)
}

var (
	dateSuffix    = regexp.MustCompile(`[-@](20\d{2}-?\d{2}-?\d{2})$`)
	versionSuffix = regexp.MustCompile(`(-v\d+)?(:\d+)?$`)
	bedrockVendor = regexp.MustCompile(`^((us|eu|apac|global)\.)?(anthropic|openai|google|meta|amazon)\.`)
)

// NormalizeModel reduces a logged model ID to the key of the price table:
// provider prefixes ("anthropic/", "bedrock/..."), Bedrock vendor prefixes
// and version tags, date suffixes and "-latest" are dropped.
func NormalizeModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = bedrockVendor.ReplaceAllString(m, "")
	m = versionSuffix.ReplaceAllString(m, "")
	m = strings.TrimSuffix(m, "-latest")
	m = dateSuffix.ReplaceAllString(m, "")
	return m
}

// Lookup finds the price of a logged model ID.
func (t *PriceTable) Lookup(model string) (Price, bool) {
	p, ok := t.prices[NormalizeModel(model)]
	return p, ok
}

// Describe says which table priced a run, for the report.
func (t *PriceTable) Describe() string {
	if t.SHA256 != "" {
		return fmt.Sprintf("%s (sha256 %s, built-in %s for models it lacks)", t.Source, t.SHA256, BuiltinPricesVersion)
	}
	return t.Version
}
