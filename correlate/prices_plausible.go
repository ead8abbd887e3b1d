package correlate

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// maxPlausiblePerToken is a price no model has come near: $10,000 per
// million tokens (the dearest today are about $600).
const maxPlausiblePerToken = 0.01

// PlausiblePrices refuses a table that would blind the ceilings, against
// each table it would replace (the embedded one, and the one in use): a
// model ID those priced that the new table prices at nothing (0, or less
// than a picodollar; a new key that shadows a priced ID counts, as
// resolution would take it), any negative price of any kind (read as 0),
// or a price more than 100× the previous one or past maxPlausiblePerToken
// where the previous table was not already there.
func PlausiblePrices(body []byte, prevs ...*PriceTable) error {
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(body, &entries); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	rates := []struct {
		key string
		was func(Price) Pico
	}{
		{"input_cost_per_token", func(p Price) Pico { return p.Input }},
		{"output_cost_per_token", func(p Price) Pico { return p.Output }},
		{"cache_read_input_token_cost", func(p Price) Pico { return p.CacheRead }},
		{"cache_creation_input_token_cost", func(p Price) Pico { return p.CacheWrite }},
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		var e map[string]any
		if json.Unmarshal(entries[name], &e) != nil {
			continue // not an entry (last_updated)
		}
		if _, ok := e["input_cost_per_token"].(float64); !ok {
			continue // not priced per token (sample_spec, images, …)
		}
		for _, k := range slices.Sorted(maps.Keys(e)) {
			if v, ok := e[k].(float64); ok && strings.Contains(k, "cost") && (v < 0 || math.IsNaN(v)) {
				problems = append(problems, fmt.Sprintf("%s %s is %g", name, k, v))
			}
		}
		for _, rate := range rates {
			v, ok := e[rate.key].(float64)
			if !ok || v < 0 {
				continue
			}
			for _, prev := range prevs {
				r := prev.Resolve(name)
				was := 0.0
				if r.Key != "" {
					was = rate.was(r.Price).USD()
				}
				switch {
				case was > 0 && PicoFromUSD(v) == 0:
					problems = append(problems, fmt.Sprintf("%s becomes free: %s %g (was $%g per million tokens)", name, rate.key, v, was*1e6))
				case (v > maxPlausiblePerToken && v > was) || (was > 0 && v > 100*was):
					problems = append(problems, fmt.Sprintf("%s %s is $%g per token (was $%g)", name, rate.key, v, was))
				default:
					continue
				}
				break // one problem per rate is enough
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	shown := problems[:min(len(problems), 5)]
	more := ""
	if len(problems) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(problems)-len(shown))
	}
	return fmt.Errorf("the table would blind the ceilings: %s%s", strings.Join(shown, "; "), more)
}
