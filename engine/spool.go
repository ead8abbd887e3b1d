package engine

import (
	"context"
	"sync"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/statedir/spool"
)

// Spool is the event spool of inputs that cannot be read again
// (statedir/spool): every batch is appended before the engine applies it,
// and a start replays it through the same path as a live batch, so a
// restart at any point rebuilds the state an uninterrupted run would have.
type Spool interface {
	Replay(ctx context.Context, apply func(ingest.Batch)) (warnings []string, err error)
	Append(ingest.Batch) error
	Retain(keepFrom int64) int
	Status() spool.Status
}

// ResendHorizon is how long (log time) after a run's last event its
// events are kept in the spool once a later run has begun: a sender's
// retry of a batch (a Collector's, within minutes) is told from a new one
// by the events the replay rebuilds, so they must outlive it.
const ResendHorizon = int64(time.Hour)

// retainEvery is how often (wall time) spent segments are looked for.
const retainEvery = time.Minute

// ReplaySpool applies the spooled events, oldest first, as the live run
// applied them; call it once, before Run. It returns the events replayed
// and what was wrong with the spool (a torn tail cut, a corrupt record).
//
// A ctx that ends stops it (a stop asked for during a long replay).
func (e *Engine) ReplaySpool(ctx context.Context) (events int64, warnings []string, err error) {
	if e.spool == nil {
		return 0, nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.replaying = true
	defer func() { e.replaying = false }()
	warnings, err = e.spool.Replay(ctx, func(b ingest.Batch) {
		b = e.memory(b) // a source's memory is no event of the night
		events += int64(len(b))
		e.applyBatch(e.inFlight.sift(b))
	})
	e.replayed = events
	if held := e.inFlight.calls(); len(held) > 0 {
		for _, s := range e.sources {
			if h, ok := s.(ingest.Holding); ok {
				h.Hold(held)
			}
		}
	}
	return events, warnings, err
}

// memory returns b without its KindSpanLink events (a source's memory,
// spooled with its events: ingest.Remembering), which are never applied.
// While the spool is replayed they go back to the sources that remember,
// in the order they were spooled, so that memory is the one the last run
// had when it stopped. b is filtered in place.
func (e *Engine) memory(b ingest.Batch) ingest.Batch {
	n := 0
	for i := range b {
		if b[i].Kind == ingest.KindSpanLink {
			n++
		}
	}
	if n == 0 {
		return b
	}
	if e.replaying {
		links := make([]ingest.Event, 0, n)
		for i := range b {
			if b[i].Kind == ingest.KindSpanLink {
				links = append(links, b[i])
			}
		}
		for _, s := range e.sources {
			if m, ok := s.(ingest.Remembering); ok {
				m.Remember(links)
			}
		}
	}
	out := b[:0]
	for i := range b {
		if b[i].Kind != ingest.KindSpanLink {
			out = append(out, b[i])
		}
	}
	return out
}

// heldCalls are an app's announced calls in flight (ingest.Event.Held):
// each is spooled when its announcement is read, so a start — after a
// SIGKILL too — knows it, but not applied while it waits for its answer,
// which is the call (the decoder pairs the two). Any other event of its
// job and input settles it, as in the decoder (the answer, the
// announcement let go as a call, the job's end), except those the
// decoder lets pass (assumptions, usage growth). At a stop those still
// waiting are applied, calls of unknown outcome in the report written
// then; a replay applies none of them and gives them back to their
// input's decoder, so the answer read after the restart is that call.
type heldCalls struct {
	order []heldKey
	by    map[heldKey]ingest.Event
}

type heldKey struct {
	src uint16
	job string
}

// sift returns b without its held calls, which it keeps, and settles the
// held calls b's other events answer. b is the caller's (a Batch belongs
// to its receiver): it is filtered in place.
func (h *heldCalls) sift(b ingest.Batch) ingest.Batch {
	found := false
	for i := range b {
		if b[i].Held {
			found = true
			break
		}
	}
	if !found {
		// The common batch: nothing to take out, only calls to settle.
		for i := 0; i < len(b) && len(h.by) > 0; i++ {
			if ev := &b[i]; ev.JobID != "" && ev.Kind != ingest.KindAssumption && ev.Kind != ingest.KindUsageGrowth {
				delete(h.by, heldKey{ev.Source, ev.JobID})
			}
		}
		return b
	}
	if h.by == nil {
		h.by = map[heldKey]ingest.Event{}
	}
	out := b[:0]
	for i := range b {
		ev := &b[i]
		k := heldKey{ev.Source, ev.JobID}
		if ev.Held {
			if _, ok := h.by[k]; !ok {
				h.order = append(h.order, k)
			}
			h.by[k] = *ev
			continue
		}
		if ev.JobID != "" && ev.Kind != ingest.KindAssumption && ev.Kind != ingest.KindUsageGrowth {
			delete(h.by, k)
		}
		out = append(out, *ev)
	}
	if len(h.order) > 2*len(h.by)+64 {
		// Settled keys are dropped from the order now and then: it stays
		// within twice the calls in flight.
		kept := h.order[:0]
		seen := make(map[heldKey]bool, len(h.by))
		for _, k := range h.order {
			if _, ok := h.by[k]; ok && !seen[k] {
				seen[k] = true
				kept = append(kept, k)
			}
		}
		h.order = kept
	}
	return out
}

// calls are the held calls still waiting, in the order they were held;
// they stay held.
func (h *heldCalls) calls() []ingest.Event {
	var out []ingest.Event
	seen := make(map[heldKey]bool, len(h.by))
	for _, k := range h.order {
		if ev, ok := h.by[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, ev)
		}
	}
	return out
}

// take is calls, which are then no longer held: each is a call.
func (h *heldCalls) take() ingest.Batch {
	out := h.calls()
	for i := range out {
		out[i].Held = false
	}
	clear(h.by)
	h.order = h.order[:0]
	return out
}

// applyInFlight applies, at a stop, the calls still waiting for their
// answer: the call was made and billed whatever its answer, so the
// report written at the stop counts it, an attempt of unknown outcome.
func (e *Engine) applyInFlight() {
	if b := e.inFlight.take(); len(b) > 0 {
		e.apply(b)
	}
}

// spooled hands each source a channel of its own whose batches are
// appended to the spool and then queued for the engine, one batch at a
// time under one lock, so the spool holds the batches in the order the
// engine applies them. A batch the spool refuses (the cap, a failed
// write) is still applied: never dropped, it is counted in the spool's
// status. A batch spooled and then not queued (the process is stopping)
// is applied at the next start.
func (e *Engine) spooled(ctx context.Context, s ingest.Source, wg *sync.WaitGroup, mu *sync.Mutex) {
	if h, ok := s.(ingest.Handing); ok {
		// It answers its sender: only once the batch is spooled.
		h.HandWith(func(hctx context.Context, b ingest.Batch) error {
			mu.Lock()
			defer mu.Unlock()
			_ = e.spool.Append(b) // counted and said by the spool
			select {
			case e.in <- b:
				return nil
			case <-hctx.Done():
				return hctx.Err()
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.Run(ctx, e.in)
		}()
		return
	}
	mid := make(chan ingest.Batch) // unbuffered: handed on, then spooled at once
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(mid)
		_ = s.Run(ctx, mid)
	}()
	go func() {
		defer wg.Done()
		for b := range mid {
			mu.Lock()
			_ = e.spool.Append(b) // counted and said by the spool
			// Handed on even at a stop: Run takes batches until every
			// source has returned (this one included), and what a stopping
			// follower hands over — a call in flight — belongs in the
			// report written at the stop, not only in the spool.
			e.in <- b
			mu.Unlock()
		}
	}()
}

// retain lets the spool drop the segments no open run needs: a run is
// done with when a later run's clock has passed its last event by the
// resend horizon; the spool keeps every event from the first of the runs
// that are not, less the horizon.
func (e *Engine) retain() {
	if e.spool == nil {
		return
	}
	cur := e.runs.current()
	if cur == nil {
		return
	}
	keepFrom := int64(-1)
	for _, r := range e.runs.open {
		if r != cur && cur.lastTS-r.lastTS >= ResendHorizon {
			continue
		}
		first := r.firstTS
		if st := r.st.FirstTS(); st > 0 && (first == 0 || st < first) {
			first = st
		}
		if first <= 0 {
			return // a run with no time: keep everything
		}
		if keepFrom < 0 || first < keepFrom {
			keepFrom = first
		}
	}
	if keepFrom > ResendHorizon {
		e.spool.Retain(keepFrom - ResendHorizon)
	}
}
