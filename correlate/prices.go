package correlate

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The embedded table holds the figures burnrate prices from, per model, in
// burnrate's own format (pricedata/prices.tsv), generated from LiteLLM's
// public price table — the one ccusage, tokencost and Langfuse price from
// — by `go generate ./correlate` (internal/pricegen). The repository keeps
// only what its authors wrote: the generated figures and their provenance,
// never the third-party file.
//
//go:generate go run ./internal/pricegen -in ../../shared/pricing/model_prices_and_context_window.json -out pricedata/prices.tsv
//go:embed pricedata/prices.tsv
var embeddedPrices []byte

// Provenance of the embedded table's source; TestEmbeddedTable holds the
// generated file to them and to a fresh generation from ../shared/pricing.
const (
	EmbeddedPricesSource = "LiteLLM model_prices_and_context_window.json"
	EmbeddedPricesDate   = "2026-07-24T18:23:43.215560+00:00"
	EmbeddedPricesSHA256 = "d367a97d5e53cdea0ea68853afba06c8429afa51cfc3fe834a9a1d8eb8e8d68f"
)

// Tier is a price that applies when a call's input (fresh, cache read and
// cache write together) is above Above tokens: Anthropic's and Gemini's
// long-context rates (_above_200k_tokens), OpenAI's _above_272k_tokens.
type Tier struct {
	Above                                int64
	Input, Output, CacheRead, CacheWrite Pico
}

// Price is what one token costs, per kind of token, in picodollars.
type Price struct {
	Input, Output, CacheRead, CacheWrite Pico
	// CacheWrite1h is Anthropic's one-hour cache write, 0 when unknown.
	CacheWrite1h Pico
	// BatchInput and BatchOutput are batch-API rates, zero when unknown.
	BatchInput, BatchOutput Pico
	// Tiers are the long-context rates, lowest threshold first.
	Tiers []Tier
	// NoCacheRead: the entry has no cache-read rate, so cached input is
	// priced at the input rate (never as free) — an approximation the
	// report names when a model read from its cache.
	NoCacheRead bool
	// NoCacheWrite: the entry has no cache-write rate, so written cache
	// is priced at the input rate (OpenAI's older models, where a write
	// cost nothing more) — an assumption the report counts.
	NoCacheWrite bool
	// Flex and Priority are the service tiers' own rates (LiteLLM's
	// _flex and _priority keys, OpenAI's tiers as the response reports
	// them); a zero Input is a tier the table does not price.
	Flex, Priority Rates
	// FastX and USX are the multiples of the standard price a fast-mode
	// call and a US-only inference cost (LiteLLM's provider_specific_entry
	// "fast" and "us"), in thousandths; 0 when the table does not say.
	FastX, USX int64
}

// Rates are one service tier's rates, with its long-context tiers.
type Rates struct {
	Input, Output, CacheRead, CacheWrite Pico
	Tiers                                []Tier
}

// known reports whether the table priced the tier.
func (r Rates) known() bool { return r.Input > 0 || r.Output > 0 }

// inTier returns p with the service tier's rates in place of the
// standard ones: a rate the tier lacks is the standard one, and its
// long-context tiers are its own (the table gives OpenAI's _priority
// tiers above 272k; no flex tiers).
func (p Price) inTier(r Rates) Price {
	q := p
	q.Input, q.Output = r.Input, cmp.Or(r.Output, p.Output)
	q.CacheRead, q.CacheWrite = cmp.Or(r.CacheRead, p.CacheRead), cmp.Or(r.CacheWrite, p.CacheWrite)
	// A rate the entry lacks stands at the input rate: the tier's.
	if p.NoCacheRead && r.CacheRead == 0 {
		q.CacheRead = r.Input
	}
	if p.NoCacheWrite && r.CacheWrite == 0 {
		q.CacheWrite = r.Input
	}
	q.Tiers = r.Tiers
	return q
}

// mulX multiplies an amount by x thousandths, saturating; the result is
// rounded down to the picodollar.
func mulX(c Pico, x int64) Pico {
	if c <= 0 || x <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(c), uint64(x))
	if hi >= 1000 {
		return MaxPico
	}
	q, _ := bits.Div64(hi, lo, 1000)
	if q > uint64(MaxPico) {
		return MaxPico
	}
	return Pico(q)
}

// at returns the rates for a call with this much input: the highest tier
// it passes, with any rate the tier lacks taken from the base price.
func (p Price) at(input, cacheRead, cacheWrite int64) Price {
	total := satAdd(satAdd(max(input, 0), max(cacheRead, 0)), max(cacheWrite, 0))
	for i := len(p.Tiers) - 1; i >= 0; i-- {
		t := p.Tiers[i]
		if total > t.Above {
			q := p
			q.Input, q.Output = cmp.Or(t.Input, p.Input), cmp.Or(t.Output, p.Output)
			q.CacheRead, q.CacheWrite = cmp.Or(t.CacheRead, p.CacheRead), cmp.Or(t.CacheWrite, p.CacheWrite)
			return q
		}
	}
	return p
}

// Cost prices a call's tokens; input excludes cache reads and writes.
func (p Price) Cost(input, output, cacheRead, cacheWrite int64) Pico {
	return p.cost(input, output, cacheRead, cacheWrite)
}

// cost is Cost without copying the Price: the correlator prices every call.
func (p *Price) cost(input, output, cacheRead, cacheWrite int64) Pico {
	in, out, read, write := p.rates(input, cacheRead, cacheWrite)
	return mulTokens(input, in).Add(mulTokens(output, out)).Add(mulTokens(cacheRead, read)).Add(mulTokens(cacheWrite, write))
}

// rates are the four rates of the Price at builds, without building it.
func (p *Price) rates(input, cacheRead, cacheWrite int64) (in, out, read, write Pico) {
	total := satAdd(satAdd(max(input, 0), max(cacheRead, 0)), max(cacheWrite, 0))
	for i := len(p.Tiers) - 1; i >= 0; i-- {
		if t := &p.Tiers[i]; total > t.Above {
			return cmp.Or(t.Input, p.Input), cmp.Or(t.Output, p.Output), cmp.Or(t.CacheRead, p.CacheRead), cmp.Or(t.CacheWrite, p.CacheWrite)
		}
	}
	return p.Input, p.Output, p.CacheRead, p.CacheWrite
}

// write1h is the one-hour cache write rate: the table's, else twice the
// input rate (Anthropic's published multiplier), never less than the
// five-minute rate.
func (p Price) write1h() Pico {
	if p.CacheWrite1h > 0 {
		return p.CacheWrite1h
	}
	return max(2*p.Input, p.CacheWrite)
}

// BatchCost prices a batch-API call: the table's batch rates where it has
// them, else half the synchronous rate (the providers' batch discount).
func (p Price) BatchCost(input, output, cacheRead, cacheWrite int64) Pico {
	q := p.at(input, cacheRead, cacheWrite)
	in, out := p.BatchInput, p.BatchOutput
	if in == 0 {
		in = q.Input / 2
	}
	if out == 0 {
		out = q.Output / 2
	}
	return mulTokens(input, in).Add(mulTokens(output, out)).Add(mulTokens(cacheRead, q.CacheRead/2)).Add(mulTokens(cacheWrite, q.CacheWrite/2))
}

// BatchPricingNote says how batch calls were priced.
const BatchPricingNote = "batch calls are priced at the table's input/output_cost_per_token_batches where present, else at half the synchronous rate"

// perMillion converts "USD per million tokens" to picodollars per token.
func perMillion(usd float64) Pico { return Pico(math.Round(usd * 1e6)) }

// overrides are hand-checked prices for model IDs the LiteLLM table lacks
// or gets wrong, in USD per million tokens: input, output, cache read,
// cache write. Each says why; remove one once LiteLLM has it right.
var overrides = map[string][4]float64{
	// Anthropic's moving aliases: LiteLLM lists only the dated IDs they
	// point at (claude-sonnet-4-20250514 and so on), same prices.
	"claude-sonnet-4-0":        {3, 15, 0.30, 3.75},
	"claude-opus-4-0":          {15, 75, 1.50, 18.75},
	"claude-3-7-sonnet-latest": {3, 15, 0.30, 3.75},
	"claude-3-5-sonnet-latest": {3, 15, 0.30, 3.75},
	"claude-3-5-haiku-latest":  {0.80, 4, 0.08, 1},
}

// PriceTable maps model IDs to prices.
type PriceTable struct {
	// Source names the table: the embedded LiteLLM table, or a file's path.
	Source string
	Date   string // the table's last_updated, when it says
	SHA256 string // of the table's bytes
	Models int    // entries priced per token

	// Refused names every rate the table gave that no bill could hold
	// ("model field: why"), sorted; its entry prices nothing (see
	// implausibleRates). Describe says how many, and which.
	Refused []string

	// Base prices what this table lacks (a user's file over the embedded
	// table), nil for none.
	Base *PriceTable

	// raw holds every entry priced per token, lower-cased, undecoded:
	// entries are decoded on first use (a run meets a handful of models
	// of 2,500), so start-up costs a scan of the table, not a parse.
	raw    map[string]json.RawMessage
	prices map[string]Price // decoded entries and the overrides
	// free lists the entries that price input and output at $0, checked
	// against the base table by WithBase.
	free []string
	bare map[string]string
	// own maps a provider's own model path — an entry's name less its
	// provider prefix, of three parts or more: "accounts/fireworks/
	// models/gpt-oss-20b" — to the entry. No other provider lists such a
	// path, so a log that names it names the provider that billed it.
	own   map[string]string
	mu    sync.Mutex
	cache map[string]Resolution
}

var (
	embeddedOnce  sync.Once
	embeddedTable *PriceTable
)

// EmbeddedPrices returns the table compiled into burnrate, parsed once.
func EmbeddedPrices() *PriceTable {
	embeddedOnce.Do(func() {
		t, err := ParsePriceTSV(embeddedPrices)
		if err != nil {
			panic("the embedded price table does not parse: " + err.Error()) // a build defect, caught by go test
		}
		embeddedTable = t
	})
	return embeddedTable
}

// liteLLMEntry is the part of a LiteLLM entry that prices tokens.
type liteLLMEntry struct {
	Input       *float64 `json:"input_cost_per_token"`
	Output      *float64 `json:"output_cost_per_token"`
	CacheRead   *float64 `json:"cache_read_input_token_cost"`
	CacheWrite  *float64 `json:"cache_creation_input_token_cost"`
	CacheWrite1 *float64 `json:"cache_creation_input_token_cost_above_1hr"`
	BatchInput  *float64 `json:"input_cost_per_token_batches"`
	BatchOutput *float64 `json:"output_cost_per_token_batches"`

	FlexInput      *float64 `json:"input_cost_per_token_flex"`
	FlexOutput     *float64 `json:"output_cost_per_token_flex"`
	FlexRead       *float64 `json:"cache_read_input_token_cost_flex"`
	FlexWrite      *float64 `json:"cache_creation_input_token_cost_flex"`
	PriorityInput  *float64 `json:"input_cost_per_token_priority"`
	PriorityOutput *float64 `json:"output_cost_per_token_priority"`
	PriorityRead   *float64 `json:"cache_read_input_token_cost_priority"`
	PriorityWrite  *float64 `json:"cache_creation_input_token_cost_priority"`
	// Provider is LiteLLM's provider_specific_entry: Anthropic's
	// multipliers for fast mode ("fast": 6.0) and US-only inference
	// ("us": 1.1).
	// Read leniently: a multiplier that is not a number costs that
	// multiplier (priced as the table not saying), never the entry.
	Provider json.RawMessage `json:"provider_specific_entry"`
}

// multipliers reads provider_specific_entry's "fast" and "us".
func multipliers(raw json.RawMessage) (fast, us int64) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return 0, 0
	}
	read := func(k string) int64 {
		var f float64
		if json.Unmarshal(m[k], &f) != nil {
			return 0
		}
		return thousandths(&f)
	}
	return read("fast"), read("us")
}

// thousandths reads a multiplier (6.0, 1.1) as thousandths, 0 for none
// or one no bill has (below 1×, or past 100×).
func thousandths(x *float64) int64 {
	if x == nil || !(*x >= 1 && *x <= 100) {
		return 0
	}
	return int64(math.Round(*x * 1000))
}

// tierKey reads "input_cost_per_token_above_200k_tokens" and friends.
var tierKey = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)_above_(\d+)k_tokens(_priority)?$`)

// EntryPrices decodes every entry the table read (not the overrides),
// keyed by lower-cased model ID: what the generator writes out. An entry
// whose rates do not decode is left out, as pricing leaves it out.
func (t *PriceTable) EntryPrices() map[string]Price {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]Price, len(t.raw))
	for key := range t.raw {
		if p, ok := t.price(key); ok {
			out[key] = p
		}
	}
	return out
}

// LoadLiteLLMPrices reads a price table in LiteLLM's format (named path in
// errors and in the report). The hand-checked overrides fill what it
// lacks. The caller opens and closes it: correlate does no I/O of its own.
func LoadLiteLLMPrices(f io.Reader, path string) (*PriceTable, error) {
	h := sha256.New()
	b, err := io.ReadAll(io.TeeReader(io.LimitReader(f, 64<<20), h))
	if err != nil {
		return nil, fmt.Errorf("prices %s: %w", path, err)
	}
	_, _ = io.Copy(h, f) // hash the whole file, even bytes past the limit
	raw, end, err := splitObject(b)
	if err == nil && !json.Valid(b[:end]) {
		err = errors.New("invalid JSON")
	}
	if err != nil {
		return nil, fmt.Errorf("prices %s: not a JSON object of models: %w", path, err)
	}
	t := &PriceTable{Source: path, SHA256: hex.EncodeToString(h.Sum(nil)), raw: make(map[string]json.RawMessage, len(raw)),
		prices: map[string]Price{}, bare: map[string]string{}, cache: map[string]Resolution{}}
	var updated string
	if json.Unmarshal(raw["last_updated"], &updated) == nil {
		t.Date = updated
	}
	for name, msg := range raw {
		if len(msg) == 0 || msg[0] != '{' {
			continue // last_updated
		}
		// Priced per token: both rates are numbers. Cheap to check without
		// decoding; an entry that names a rate is checked in full
		// (implausibleRates) before it may price anything.
		perTok := hasNumber(msg, `"input_cost_per_token"`) && hasNumber(msg, `"output_cost_per_token"`)
		if !perTok && !bytes.Contains(msg, []byte(`"input_cost_per_token"`)) && !bytes.Contains(msg, []byte(`"output_cost_per_token"`)) {
			continue // entries not priced per token (images, audio seconds)
		}
		if bad := implausibleRates(msg); len(bad) > 0 {
			for _, b := range bad {
				t.Refused = append(t.Refused, name+" "+b)
			}
			continue
		}
		if !perTok {
			continue // a rate given as null: not priced per token
		}
		t.raw[strings.ToLower(name)] = msg
		t.Models++
		if freeEntry(msg) {
			t.free = append(t.free, strings.ToLower(name))
		}
	}
	slices.Sort(t.Refused)
	if t.Models == 0 {
		if len(t.Refused) > 0 {
			return nil, fmt.Errorf("prices %s: no entry is usable: %s", path, t.RefusedSummary())
		}
		return nil, fmt.Errorf("prices %s: no entry has input_cost_per_token and output_cost_per_token", path)
	}
	t.addOverrides()
	t.indexBare()
	return t, nil
}

// addOverrides fills, from the hand-checked overrides, what the table lacks.
func (t *PriceTable) addOverrides() {
	for name, usd := range overrides {
		_, inRaw := t.raw[name]
		_, inPrices := t.prices[name]
		if !inRaw && !inPrices {
			t.prices[name] = Price{Input: perMillion(usd[0]), Output: perMillion(usd[1]), CacheRead: perMillion(usd[2]), CacheWrite: perMillion(usd[3])}
		}
	}
}

// splitObject finds the members of the JSON object b begins with, in one
// pass and without decoding them (encoding/json took 30 ms to do it for
// LiteLLM's table at every start): each value is a slice of b, decoded when
// first used. end is where the object ends. It assumes the object is valid
// JSON (the caller checks that with json.Valid) but never reads past b.
func splitObject(b []byte) (members map[string]json.RawMessage, end int, err error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, 0, errors.New("does not begin with {")
	}
	members = map[string]json.RawMessage{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return members, i + 1, nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, 0, fmt.Errorf("a key expected at byte %d", i)
		}
		kEnd := skipString(b, i)
		key := string(b[i+1 : max(i+1, kEnd-1)])
		if bytes.IndexByte(b[i:kEnd], '\\') >= 0 || !utf8.Valid(b[i:kEnd]) { // as encoding/json reads it
			if err := json.Unmarshal(b[i:kEnd], &key); err != nil {
				return nil, 0, fmt.Errorf("key at byte %d: %w", i, err)
			}
		}
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return nil, 0, fmt.Errorf("':' expected at byte %d", i)
		}
		vStart := skipSpace(b, i+1)
		vEnd := skipValue(b, vStart)
		members[key] = b[vStart:vEnd]
		i = skipSpace(b, vEnd)
		if i >= len(b) {
			break
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return members, i + 1, nil
		default:
			return nil, 0, fmt.Errorf("',' or '}' expected at byte %d", i)
		}
	}
	return nil, 0, errors.New("the object does not end")
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\r' && b[i] != '\t' {
		i++
	}
	return i
}

// hasNumber reports whether the object text has the top-level key key
// (quoted) with a number for its value: a scan of the bytes that tracks
// depth and strings, so a rate nested in a sub-object does not count.
func hasNumber(msg []byte, key string) bool {
	depth, inStr, esc := 0, false, false
	start := -1
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if depth == 1 && start >= 0 && string(msg[start:i+1]) == key {
					rest := bytes.TrimLeft(msg[i+1:], " \t\r\n")
					if len(rest) > 0 && rest[0] == ':' {
						rest = bytes.TrimLeft(rest[1:], " \t\r\n")
						return len(rest) > 0 && (rest[0] == '-' || rest[0] >= '0' && rest[0] <= '9')
					}
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr, start = true, i
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return false
}

// price decodes an entry on first use; ok is false for none (or one whose
// rates do not decode).
func (t *PriceTable) price(key string) (Price, bool) {
	if p, ok := t.prices[key]; ok {
		return p, true
	}
	msg, ok := t.raw[key]
	if !ok {
		return Price{}, false
	}
	var e liteLLMEntry
	if json.Unmarshal(msg, &e) != nil || e.Input == nil || e.Output == nil {
		delete(t.raw, key)
		return Price{}, false
	}
	p := Price{Input: perToken(e.Input), Output: perToken(e.Output), CacheRead: perToken(e.CacheRead), CacheWrite: perToken(e.CacheWrite),
		CacheWrite1h: perToken(e.CacheWrite1), BatchInput: perToken(e.BatchInput), BatchOutput: perToken(e.BatchOutput)}
	if e.CacheRead == nil {
		p.CacheRead = p.Input // unknown: never price cached tokens as free
		p.NoCacheRead = true
	}
	if e.CacheWrite == nil {
		p.CacheWrite = p.Input
		p.NoCacheWrite = true
	}
	p.Tiers, p.Priority.Tiers = tiers(msg, ""), tiers(msg, "_priority")
	p.Flex = Rates{Input: perToken(e.FlexInput), Output: perToken(e.FlexOutput), CacheRead: perToken(e.FlexRead), CacheWrite: perToken(e.FlexWrite)}
	p.Priority.Input, p.Priority.Output = perToken(e.PriorityInput), perToken(e.PriorityOutput)
	p.Priority.CacheRead, p.Priority.CacheWrite = perToken(e.PriorityRead), perToken(e.PriorityWrite)
	if !p.Priority.known() {
		p.Priority.Tiers = nil
	}
	p.FastX, p.USX = multipliers(e.Provider)
	if why := t.tooCheapForBase(key, p); why != "" {
		t.refuse(key, why)
		return Price{}, false
	}
	t.prices[key] = p
	return p, true
}

// tooCheapForBase says why an entry that is not free, only nearly, is
// refused: 1e-12 per token for a model base prices at 3e-6 blinds its
// ceilings as $0 does (red team). Checked when the entry is first used,
// as entries are decoded (checking all 2,500 of LiteLLM's at load cost
// 0.28 s a start); base's price then stands, and the report's Prices
// line names the entry.
func (t *PriceTable) tooCheapForBase(key string, p Price) string {
	if t.Base == nil {
		return ""
	}
	r := t.Base.Resolve(key)
	if r.Key == "" || r.Approximate {
		return "" // a model base does not know by this name may be cheap
	}
	if why := tooCheap(p, r.Price); why != "" {
		return fmt.Sprintf("%s %s, under 1/%d of %s's price for it (as %s)", key, why, cheaperLimit, t.Base.Source, r.Key)
	}
	return ""
}

// tiers reads the long-context tiers of the service tier whose keys end
// in suffix ("" for the standard one, "_priority").
func tiers(msg json.RawMessage, suffix string) []Tier {
	var all map[string]json.RawMessage
	if json.Unmarshal(msg, &all) != nil {
		return nil
	}
	byAbove := map[int64]*Tier{}
	for k, v := range all {
		m := tierKey.FindStringSubmatch(k)
		if m == nil || m[3] != suffix {
			continue
		}
		var usd float64
		if json.Unmarshal(v, &usd) != nil {
			continue
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		tr := byAbove[n*1000]
		if tr == nil {
			tr = &Tier{Above: n * 1000}
			byAbove[n*1000] = tr
		}
		switch m[1] {
		case "input_cost_per_token":
			tr.Input = PicoFromUSD(usd)
		case "output_cost_per_token":
			tr.Output = PicoFromUSD(usd)
		case "cache_read_input_token_cost":
			tr.CacheRead = PicoFromUSD(usd)
		case "cache_creation_input_token_cost":
			tr.CacheWrite = PicoFromUSD(usd)
		}
	}
	var out []Tier
	for _, tr := range byAbove {
		out = append(out, *tr)
	}
	slices.SortFunc(out, func(a, b Tier) int { return cmp.Compare(a.Above, b.Above) })
	return out
}

// providerPreference orders which provider's entry prices a bare model ID
// that only appears with a prefix ("mistral-large-latest" is listed as
// "mistral/mistral-large-latest"): the model's maker first, then the rest
// in name order so the choice is stable.
var providerPreference = []string{"anthropic", "openai", "gemini", "mistral", "deepseek", "xai", "groq", "vertex_ai", "bedrock", "azure"}

// providerRank is prefix's place in providerPreference; a reseller (a
// prefix not listed: replicate, snowflake, a gateway) ranks after all.
func providerRank(prefix string) int {
	for i, p := range providerPreference {
		if prefix == p {
			return i
		}
	}
	return len(providerPreference)
}

// reseller is true for an entry listed under a provider that resells the
// model rather than making or hosting it for its maker.
func reseller(key string) bool {
	i := strings.IndexByte(key, '/')
	return i >= 0 && providerRank(key[:i]) == len(providerPreference)
}

func (t *PriceTable) indexBare() {
	rank := providerRank
	best := map[string]string{}
	names := make([]string, 0, len(t.raw)+len(t.prices))
	for name := range t.raw {
		names = append(names, name)
	}
	for name := range t.prices {
		names = append(names, name)
	}
	own := map[string]string{}
	for _, name := range names {
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			continue
		}
		if first := strings.IndexByte(name, '/'); strings.Count(name[first+1:], "/") >= 2 {
			if tail := name[first+1:]; own[tail] == "" || name < own[tail] {
				own[tail] = name
			}
		}
		bare := name[i+1:]
		if _, plain := t.raw[bare]; plain {
			continue
		}
		if _, plain := t.prices[bare]; plain {
			continue
		}
		prefix := name[:strings.IndexByte(name, '/')]
		if cur, ok := best[bare]; !ok || rank(prefix) < rank(cur[:strings.IndexByte(cur, '/')]) ||
			(rank(prefix) == rank(cur[:strings.IndexByte(cur, '/')]) && name < cur) {
			best[bare] = name
		}
	}
	t.bare, t.own = best, own
}

func perToken(usd *float64) Pico {
	if usd == nil {
		return 0
	}
	return PicoFromUSD(*usd)
}

// Resolution is how a logged model ID was priced.
type Resolution struct {
	Model string // as logged
	Key   string // the table entry that priced it, "" when none did
	// Approximate is set when the key drops part of the ID that may change
	// the price (a date or a preview tag), so the report can say so.
	Approximate bool
	Price       Price
}

var (
	bracketSuffix = regexp.MustCompile(`\[[^\]]*\]$`)                                  // Claude Code's claude-opus-4-6[1m]
	atDate        = regexp.MustCompile(`@(?:\d{8}|\d{4}-\d{2}-\d{2}|latest|default)$`) // Vertex's claude-sonnet-4-5@20250929
	regionPrefix  = regexp.MustCompile(`^(?:us|eu|apac|au|jp|ca|us-gov|global)\.`)     // Bedrock cross-region inference profiles
	vendorPrefix  = regexp.MustCompile(`^(?:anthropic|openai|google|meta|amazon|mistral|cohere|deepseek|ai21|writer|qwen)\.`)
	bedrockVer    = regexp.MustCompile(`-v\d+(?::\d+)?$`)
	dateSuffix    = regexp.MustCompile(`-(?:20\d{2}-?\d{2}-?\d{2}|\d{4})$`) // -20250514, -2024-08-06, -0125
	previewSuffix = regexp.MustCompile(`-preview(?:-\d{2}-\d{2}(?:-\d{4})?|-\d{2}-\d{4})?$`)
	dottedVersion = regexp.MustCompile(`(\d)\.(\d)`)
	// dashedVersion is a proxy's spelling of a dotted version right after
	// the family name: gpt-5-1-codex for gpt-5.1-codex.
	dashedVersion = regexp.MustCompile(`^([a-z]+-\d+)-(\d)(-|$)`)
)

// candidates lists the keys to try for a model ID, best first, each with
// whether reaching it was lossy.
func candidates(model string) []struct {
	key   string
	lossy bool
} {
	type cand = struct {
		key   string
		lossy bool
	}
	m := strings.ToLower(strings.TrimSpace(model))
	m = bracketSuffix.ReplaceAllString(m, "")
	var out []cand
	seen := map[string]bool{}
	add := func(k string, lossy bool) {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, cand{k, lossy})
		}
	}
	// Every provider prefix depth: openrouter/anthropic/claude-sonnet-4.5,
	// anthropic/claude-sonnet-4.5, claude-sonnet-4.5.
	var levels []string
	for s := m; ; {
		levels = append(levels, s)
		i := strings.IndexByte(s, '/')
		if i < 0 {
			break
		}
		s = s[i+1:]
	}
	exact := func(s string) []string {
		forms := []string{s, atDate.ReplaceAllString(s, "")}
		b := regionPrefix.ReplaceAllString(s, "")
		forms = append(forms, b)
		v := vendorPrefix.ReplaceAllString(b, "")
		forms = append(forms, v, bedrockVer.ReplaceAllString(v, ""), strings.TrimSuffix(v, "-latest"))
		var all []string
		for _, f := range forms {
			all = append(all, f, dottedVersion.ReplaceAllString(f, "$1-$2"))
		}
		return all
	}
	for _, l := range levels {
		for _, f := range exact(l) {
			add(f, false)
		}
	}
	// A dated Claude ID the table lists only as Bedrock's model ID (the
	// maker's model at Anthropic's list price, cache rates included) —
	// before any lossy form, which can reach a reseller's entry without
	// them (claude-3-5-sonnet-20240620 was priced as Vertex's, cached
	// input at the full input rate).
	if l := levels[len(levels)-1]; strings.HasPrefix(l, "claude-") && dateSuffix.MatchString(l) {
		add("anthropic."+l+"-v1:0", false)
		add("anthropic."+l+"-v2:0", false)
	}
	// Lossy: a dated or preview ID priced as its family.
	for _, l := range levels {
		for _, f := range exact(l) {
			d := dateSuffix.ReplaceAllString(bedrockVer.ReplaceAllString(f, ""), "")
			add(d, d != f)
			p := previewSuffix.ReplaceAllString(d, "")
			add(p, p != f)
			// A proxy's respelling of the version (gpt-5-1-codex): the
			// maker's model, said to be approximate.
			add(dashedVersion.ReplaceAllString(f, "$1.$2$3"), true)
			add(dashedVersion.ReplaceAllString(d, "$1.$2$3"), true)
			// The maker's preview of a model logged without the tag
			// (gemini-3-pro, listed only as gemini-3-pro-preview).
			if p == d && !strings.HasSuffix(d, "-preview") {
				add(d+"-preview", true)
			}
		}
	}
	return out
}

// Resolve says which entry prices a logged model ID, if any.
func (t *PriceTable) Resolve(model string) Resolution {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.cache[model]; ok {
		return r
	}
	r := t.resolve(model)
	if r.Key == "" && t.Base != nil {
		r = t.Base.Resolve(model)
	}
	if len(t.cache) < 100_000 {
		t.cache[model] = r
	}
	return r
}

func (t *PriceTable) resolve(model string) Resolution {
	r := Resolution{Model: model}
	cands := candidates(model)
	// Exact entries before a bare ID's prefixed entry, and both before a
	// lossy form: "claude-haiku-4.5" is claude-haiku-4-5 itself before it
	// is openrouter's listing of it. A reseller's listing (replicate,
	// snowflake…) comes last of all, approximate: it may lack the maker's
	// cache rates (gemini-3-pro resolved to replicate's entry and priced
	// cached input at 10×).
	// A provider's own path ("accounts/fireworks/models/gpt-oss-20b") is
	// that provider's entry, reseller or not: Fireworks billed it, not the
	// best-ranked other host of gpt-oss-20b (Groq, $0.075/M for $0.07/M).
	for _, c := range cands {
		if _, exact := t.price(c.key); exact {
			break // the table lists the path itself: the passes below take it
		}
		if full, ok := t.own[c.key]; ok && !c.lossy {
			if p, ok := t.price(full); ok {
				r.Key, r.Price = full, p
				return r
			}
		}
	}
	for _, pass := range []struct{ lossy, resellers bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		if !pass.resellers {
			for _, c := range cands {
				if c.lossy == pass.lossy {
					if p, ok := t.price(c.key); ok {
						r.Key, r.Approximate, r.Price = c.key, c.lossy, p
						return r
					}
				}
			}
		}
		for _, c := range cands {
			if c.lossy == pass.lossy {
				if full, ok := t.bare[c.key]; ok && reseller(full) == pass.resellers {
					if p, ok := t.price(full); ok {
						r.Key, r.Approximate, r.Price = full, c.lossy || pass.resellers, p
						return r
					}
				}
			}
		}
	}
	return r
}

// WithBase layers t over base: t's entries win, base prices the rest —
// except an entry that prices input and output at $0 for a model base
// prices: it is refused (PriceTable.Refused) and base's price stands, as
// prices update refuses a table in which a priced model "becomes free". A
// $0 entry would make that model's spend, and every ceiling over it,
// read nothing; a model base does not price may be free (local models).
func (t *PriceTable) WithBase(base *PriceTable) *PriceTable {
	t.Base = base
	t.cache = map[string]Resolution{}
	if base == nil {
		return t
	}
	for _, name := range t.free {
		if _, ok := t.raw[name]; !ok {
			continue
		}
		r := base.Resolve(name)
		if r.Key == "" || r.Price.Input == 0 && r.Price.Output == 0 {
			continue
		}
		t.refuse(name, fmt.Sprintf("%s input and output_cost_per_token are 0, where %s prices it (as %s)", name, base.Source, r.Key))
	}
	t.free = nil
	slices.Sort(t.Refused)
	t.indexBare()
	return t
}

// cheaperLimit is how many times cheaper than the embedded (base) table a
// price table may price one model before the entry is refused: no
// provider has cut a price 100× at once; a typo in the exponent has.
const cheaperLimit = 100

// tooCheap names the rate of p under 1/cheaperLimit of was's, or "".
// Cache rates count only where p gives them (an absent cache read rate is
// priced as input, never as free).
func tooCheap(p, was Price) string {
	rates := []struct {
		name     string
		now, was Pico
	}{
		{"input_cost_per_token", p.Input, was.Input},
		{"output_cost_per_token", p.Output, was.Output},
		{"cache_creation_input_token_cost", p.CacheWrite, was.CacheWrite},
	}
	if !p.NoCacheRead {
		rates = append(rates, struct {
			name     string
			now, was Pico
		}{"cache_read_input_token_cost", p.CacheRead, was.CacheRead})
	}
	// A service tier's rates, where both tables give them: a priority
	// rate of 1e-12 blinds the ceilings of every priority call.
	for _, t := range []struct {
		name     string
		now, was Rates
	}{{"_flex", p.Flex, was.Flex}, {"_priority", p.Priority, was.Priority}} {
		if t.now.known() && t.was.known() {
			rates = append(rates, struct {
				name     string
				now, was Pico
			}{"input_cost_per_token" + t.name, t.now.Input, t.was.Input}, struct {
				name     string
				now, was Pico
			}{"output_cost_per_token" + t.name, t.now.Output, t.was.Output})
		}
	}
	for _, r := range rates {
		if r.was > 0 && r.now < r.was/cheaperLimit {
			return fmt.Sprintf("%s is $%g per token", r.name, r.now.USD())
		}
	}
	return ""
}

// refuse drops an entry of t, saying why in t.Refused.
func (t *PriceTable) refuse(name, why string) {
	delete(t.raw, name)
	delete(t.prices, name)
	t.Models--
	t.Refused = append(t.Refused, why)
}

// Lookup finds the price of a logged model ID.
func (t *PriceTable) Lookup(model string) (Price, bool) {
	r := t.Resolve(model)
	return r.Price, r.Key != ""
}

// Describe says which table priced a run, for the report.
func (t *PriceTable) Describe() string {
	date := ""
	if t.Date != "" {
		date = ", updated " + t.Date
	}
	refused := ""
	if len(t.Refused) > 0 {
		refused = ", " + t.RefusedSummary()
	}
	d := fmt.Sprintf("%s (%d models%s%s, sha256 %s)", t.Source, t.Models, date, refused, t.SHA256)
	if t.Base != nil {
		d += ", over " + t.Base.Describe()
	}
	return d
}
