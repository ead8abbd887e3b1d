package correlate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
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
		if msg := entries[name]; len(msg) > 0 && msg[0] == '{' && name != "sample_spec" {
			// What the loader would refuse entry by entry (implausibleRates)
			// refuses an update whole: the table in use stays.
			for _, b := range implausibleRates(msg) {
				problems = append(problems, name+" "+b)
			}
		}
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

// MaxPlausibleUSDPerToken is the dearest rate a price table may give any
// kind of token: $1 per token, a million dollars per million tokens. Real
// rates are below $0.001 (the dearest models list about $600 per million);
// the dearest entry of LiteLLM's own table is $0.54 (a per-million figure
// entered per token), which still loads. Past $1 a rate is a typo ("3.0"
// for "3e-6") or hostility, and one call at it can cost more than a
// night's budget: a table that says so is not believed.
const MaxPlausibleUSDPerToken = 1.0

// maxPlausiblePico is MaxPlausibleUSDPerToken in picodollars, for the
// embedded table's integer rates.
const maxPlausiblePico = Pico(MaxPlausibleUSDPerToken * PicoPerUSD)

// pricingKeys are the rates an entry prices tokens with (liteLLMEntry and
// the long-context tiers): the ones held to MaxPlausibleUSDPerToken. Other
// costs (per image, per second of audio) price nothing here.
var pricingKeys = map[string]bool{
	"input_cost_per_token": true, "output_cost_per_token": true,
	"cache_read_input_token_cost": true, "cache_creation_input_token_cost": true,
	"cache_creation_input_token_cost_above_1hr": true,
	"input_cost_per_token_batches":              true, "output_cost_per_token_batches": true,
	"input_cost_per_token_flex": true, "output_cost_per_token_flex": true,
	"cache_read_input_token_cost_flex": true, "cache_creation_input_token_cost_flex": true,
	"input_cost_per_token_priority": true, "output_cost_per_token_priority": true,
	"cache_read_input_token_cost_priority": true, "cache_creation_input_token_cost_priority": true,
}

// implausibleRates checks every rate of one LiteLLM entry at load and says
// what is wrong with each bad one ("input_cost_per_token is 3 (past $1 per
// token)"); null is a rate not given.
//
// The entry is refused, not the table. Refusing the table stops the
// watcher (or the report) over one line of 2,500, and a watcher that does
// not run blinds every ceiling at once; believing the entry lets one typo
// bill $150,000 for 50 calls, or a negative rate read as $0 hide a model's
// spend. A refused entry prices nothing: the model falls to the next table
// (the embedded one under a --prices file) when that prices it, else it is
// unpriced, and the report names it (unpriced_models) with its tokens,
// never as $0. Describe counts and names the refused entries, so the report's
// price line and watch's start-up line say which were refused and why. A
// table none of whose entries survive is refused whole.
func implausibleRates(msg []byte) []string {
	// One pass over the entry's members, no map and no regular expression
	// for a key that is not a rate: the check runs over every entry of a
	// 2,500-entry table at each start.
	var bad []string
	err := eachMember(msg, func(kb, v []byte) {
		if !pricingKeys[string(kb)] && !(bytes.Contains(kb, []byte("_above_")) && tierKey.Match(kb)) {
			return
		}
		if p := rateProblem(string(kb), v); p != "" {
			bad = append(bad, p)
		}
	})
	if err != nil {
		return []string{"does not parse: " + err.Error()}
	}
	slices.Sort(bad) // by field, whatever order the entry wrote them in
	return bad
}

// rateProblem says what is wrong with one rate's raw value, "" if nothing.
func rateProblem(k string, v []byte) string {
	if string(v) == "null" {
		return "" // a rate not given
	}
	f, err := strconv.ParseFloat(string(v), 64)
	switch {
	case len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') || err != nil && !math.IsInf(f, 0):
		return fmt.Sprintf("%s is %.40s, not a number", k, v)
	case math.IsInf(f, 0) || math.IsNaN(f):
		return fmt.Sprintf("%s is %.40s, not a finite number", k, v)
	case f < 0:
		return fmt.Sprintf("%s is %g, below zero", k, f)
	case f > MaxPlausibleUSDPerToken:
		return fmt.Sprintf("%s is %g, past $%g per token", k, f, MaxPlausibleUSDPerToken)
	}
	return ""
}

// RefusedSummary says how many rates the table refused, and the first few.
func (t *PriceTable) RefusedSummary() string {
	if len(t.Refused) == 0 {
		return ""
	}
	shown := t.Refused[:min(len(t.Refused), 3)]
	more := ""
	if len(t.Refused) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(t.Refused)-len(shown))
	}
	return fmt.Sprintf("%d rate(s) refused, their entries price nothing: %s%s", len(t.Refused), strings.Join(shown, "; "), more)
}

// eachMember calls f with the key (unquoted; one with an escape decoded,
// as encoding/json reads it) and raw value of each member of the JSON object
// msg, in order, without decoding or allocating. It assumes valid JSON
// (the table was checked with json.Valid) but never reads past msg.
func eachMember(msg []byte, f func(k, v []byte)) error {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return errors.New("not an object")
	}
	i = skipSpace(msg, i+1)
	for i < len(msg) && msg[i] != '}' {
		if msg[i] != '"' {
			return fmt.Errorf("a key expected at byte %d", i)
		}
		kEnd := skipString(msg, i)
		key := msg[i+1 : max(i+1, kEnd-1)]
		if bytes.IndexByte(key, '\\') >= 0 {
			// "\u0069nput_cost_per_token" is input_cost_per_token to
			// encoding/json, which prices the entry: read it as that.
			var s string
			if err := json.Unmarshal(msg[i:kEnd], &s); err != nil {
				return fmt.Errorf("key at byte %d: %w", i, err)
			}
			key = []byte(s)
		}
		i = skipSpace(msg, kEnd)
		if i >= len(msg) || msg[i] != ':' {
			return fmt.Errorf("':' expected at byte %d", i)
		}
		vStart := skipSpace(msg, i+1)
		vEnd := skipValue(msg, vStart)
		f(key, msg[vStart:vEnd])
		i = skipSpace(msg, vEnd)
		if i < len(msg) && msg[i] == ',' {
			i = skipSpace(msg, i+1)
		}
	}
	return nil
}

// freeEntry reports whether an entry prices both input and output at $0
// (less than a picodollar per token, as PicoFromUSD reads it).
func freeEntry(msg []byte) bool {
	in, out := false, false
	_ = eachMember(msg, func(k, v []byte) {
		zero := false
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			zero = PicoFromUSD(f) == 0
		}
		switch string(k) {
		case "input_cost_per_token":
			in = zero
		case "output_cost_per_token":
			out = zero
		}
	})
	return in && out
}
