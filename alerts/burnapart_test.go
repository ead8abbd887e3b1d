package alerts

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// TestTwoHistoriesBurnApart: two files' history applied one after the
// other, each $0.60/min over a $0.50/min limit in its own hour: each
// fires where it fires alone, in either order. The second's window began
// at the first's end, full of its spend and never re-armed: the second's
// burn was never raised.
func TestTwoHistoriesBurnApart(t *testing.T) {
	history := func(src uint16, hour int) []ingest.Event {
		base := time.Date(2026, 12, 7, hour, 0, 0, 0, time.UTC).UnixNano()
		var evs []ingest.Event
		for i := range 120 {
			evs = append(evs, ingest.Event{TS: base + int64(i)*5e9, Kind: ingest.KindLLMCall, JobID: "job-" + strconv.Itoa(hour) + "-" + strconv.Itoa(i/12), Model: "m", Status: 200, CostUSD: 0.05, HasCost: true,
				RetryAfterMs: ingest.NoRetryAfter, RateLimitTokens: ingest.NoValue, RateLimitRequests: ingest.NoValue, Source: src})
		}
		return evs
	}
	fired := func(parts ...[]ingest.Event) []int64 {
		var at []int64
		r := NewRules(Config{BurnRateUSDPerMin: 0.5, BurnWindow: 5 * time.Minute}, nil, func(a Alert) {
			if a.Rule == RuleBurnRate {
				at = append(at, a.At)
			}
		})
		st := correlate.New(correlate.DefaultConfig())
		for _, p := range parts {
			for i := range p {
				r.Observe(st, st.Apply(&p[i]), &p[i])
			}
		}
		slices.Sort(at)
		return at
	}
	a, b := history(0, 1), history(1, 5)
	alone := append(fired(a), fired(b)...)
	slices.Sort(alone)
	if len(alone) != 2 {
		t.Fatalf("alone: %v, want one burn_rate each", alone)
	}
	for name, got := range map[string][]int64{"a then b": fired(a, b), "b then a": fired(b, a)} {
		if !slices.Equal(got, alone) {
			t.Errorf("%s: burn_rate at %v, want each as alone: %v", name, got, alone)
		}
	}
}
