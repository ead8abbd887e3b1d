package cli

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// tuneGC lowers the garbage collector's headroom as the live heap grows.
// burnrate's heap is nearly all long-lived correlation state, which only
// grows, and the default GOGC=100 lets the heap reach twice what is live
// before collecting: harmless at a few hundred MB, 1 GB of headroom at a
// million jobs. Past 128 MiB live the headroom is 128 MiB (gcPercentFor),
// and 25% past 512 MiB — more collections of a heap that barely changes,
// for a peak RSS about a quarter lower. A GOGC the user set wins. The returned stop ends it.
func tuneGC(getenv func(string) string) (stop func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		percent := 100
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			if p := gcPercentFor(sample[0].Value.Uint64()); p != percent {
				percent = p
				debug.SetGCPercent(p)
			}
		}
	}()
	return func() { close(done) }
}

// gcPercentFor is the GOGC for a live heap of live bytes: a headroom of
// at most gcHeadroom (100% up to 128 MiB live, 50% at 256 MiB, 32% at
// 400 MiB), never under 25%, in steps of 5 so that a growing heap does
// not reset it on every tick. A cap on the headroom rather than steps of
// a fraction: with 100% below 256 MiB, a million jobs' report collected
// at 250 MiB live and let the heap reach 500 MiB before the next
// collection (the peak of the whole run), where a 128 MiB cap stops it
// at 378.
func gcPercentFor(live uint64) int {
	if live <= gcHeadroom {
		return 100
	}
	p := int(gcHeadroom * 100 / live)
	return max(25, p-p%5)
}

// gcHeadroom is the most the heap may grow past what is live before the
// next collection, down to 25% of it.
const gcHeadroom = 128 << 20
