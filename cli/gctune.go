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
// million jobs. Past 256 MiB live the headroom is 50%, past 1 GiB 25% —
// more collections of a heap that barely changes, for a peak RSS about a
// quarter lower. A GOGC the user set wins. The returned stop ends it.
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

// gcPercentFor is the GOGC for a live heap of live bytes.
func gcPercentFor(live uint64) int {
	switch {
	case live >= 1<<30:
		return 25
	case live >= 256<<20:
		return 50
	}
	return 100
}
