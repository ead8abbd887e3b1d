package correlate_test

import (
	"fmt"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// BenchmarkProductCheckHostile: a log that declares 60 (the most a
// product is read from) or 1,000 layer keys, then changes one before
// every call, so every call recomputes the declared product; b.N calls.
func BenchmarkProductCheckHostile(b *testing.B) {
	for _, keys := range []int{60, 1000} {
		b.Run(fmt.Sprint(keys), func(b *testing.B) { benchProductCheck(b, keys) })
	}
}

func benchProductCheck(b *testing.B, keys int) {
	dec := decode.NewDecoder(decode.FormatJSONL, nil, decode.Options{})
	st := correlate.New(correlate.DefaultConfig())
	feed := func(l string) {
		dec.Decode([]byte(l), func(ev *ingest.Event) { e := *ev; st.Apply(&e) })
	}
	for i := range keys {
		feed(fmt.Sprintf(`{"ts":"2026-03-10T02:00:00Z","event":"assumptions","assumptions":{"layer%04d.maxAttempts":2}}`, i))
	}
	b.ResetTimer()
	for i := range b.N {
		feed(fmt.Sprintf(`{"ts":"2026-03-10T02:00:01Z","event":"assumptions","assumptions":{"layer0000.maxAttempts":%d}}`, 1+i%2))
		feed(fmt.Sprintf(`{"ts":"2026-03-10T02:00:01Z","event":"llm_call","job_id":"j%d","model":"claude-sonnet-4-5","status":200}`, i%100))
	}
}
