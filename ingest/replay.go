package ingest

import (
	"context"
	"sync"
	"time"
)

// Replay plays a finished log through the engine on the log's own clock,
// Speed times faster. Its controls are safe to call from the UI goroutine.
type Replay struct {
	events  []Event
	sources []Status

	mu      sync.Mutex
	speed   float64 // 0 means as fast as possible
	paused  bool
	pos     int
	steps   int  // single steps requested while paused
	toEnd   bool // jump to the end
	wake    chan struct{}
	rebased bool
}

// ReplayStatus is the replay's position for the progress bar.
type ReplayStatus struct {
	Pos, Total int
	Speed      float64 // 0: max
	Paused     bool
	LogTS      int64
}

// NewReplay reads every iterator to the end into memory and returns a
// replay of the merged events. status describes the inputs.
func NewReplay(it EventIter, status []Status, speed float64) *Replay {
	r := &Replay{sources: status, speed: speed, wake: make(chan struct{}, 1)}
	var ev Event
	for it.Next(&ev) {
		r.events = append(r.events, ev)
	}
	return r
}

// SetSources records the inputs' status once they have been read.
func (r *Replay) SetSources(st []Status) { r.sources = st }

// Status reports the inputs that were read.
func (r *Replay) Status() []Status { return r.sources }

// Progress is the current position.
func (r *Replay) Progress() ReplayStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := ReplayStatus{Pos: r.pos, Total: len(r.events), Speed: r.speed, Paused: r.paused}
	if r.pos > 0 {
		st.LogTS = r.events[r.pos-1].TS
	}
	return st
}

func (r *Replay) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// TogglePause pauses or resumes.
func (r *Replay) TogglePause() {
	r.mu.Lock()
	r.paused = !r.paused
	r.rebased = false
	r.mu.Unlock()
	r.poke()
}

// Step plays one more event while paused (and pauses if playing).
func (r *Replay) Step() { r.mu.Lock(); r.paused = true; r.steps++; r.mu.Unlock(); r.poke() }

// Faster doubles the speed; Slower halves it. Speed 0 (max) stays max
// until Slower brings it back to a finite rate.
func (r *Replay) Faster() {
	r.mu.Lock()
	if r.speed > 0 {
		r.speed = min(r.speed*2, 1<<20)
	}
	r.rebased = false
	r.mu.Unlock()
	r.poke()
}

func (r *Replay) Slower() {
	r.mu.Lock()
	if r.speed == 0 {
		r.speed = 1 << 10
	} else {
		r.speed = max(r.speed/2, 0.25)
	}
	r.rebased = false
	r.mu.Unlock()
	r.poke()
}

// JumpToEnd plays the rest at once.
func (r *Replay) JumpToEnd() { r.mu.Lock(); r.toEnd, r.paused = true, false; r.mu.Unlock(); r.poke() }

// Run plays the events. Between events it sleeps in log time ÷ speed.
func (r *Replay) Run(ctx context.Context, out chan<- Batch) error {
	var wallBase time.Time
	var logBase int64
	for {
		r.mu.Lock()
		if r.pos >= len(r.events) {
			r.mu.Unlock()
			return nil
		}
		if r.paused && r.steps == 0 {
			r.mu.Unlock()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-r.wake:
			}
			continue
		}
		// Take every event that is due now, up to a batch.
		if !r.rebased {
			wallBase, logBase, r.rebased = time.Now(), r.events[r.pos].TS, true
		}
		end := r.pos
		var wait time.Duration
		for end < len(r.events) && end-r.pos < BatchSize {
			if r.steps > 0 {
				end++
				r.steps--
				r.rebased = false
				break
			}
			if r.toEnd || r.speed == 0 {
				end++
				continue
			}
			due := wallBase.Add(time.Duration(float64(r.events[end].TS-logBase) / r.speed))
			if d := time.Until(due); d > 0 {
				wait = d
				break
			}
			end++
		}
		batch := make(Batch, end-r.pos)
		copy(batch, r.events[r.pos:end])
		r.pos = end
		r.mu.Unlock()
		if len(batch) > 0 {
			select {
			case out <- batch:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if wait > 0 {
			timer := time.NewTimer(min(wait, time.Second))
			select {
			case <-ctx.Done():
				timer.Stop()
				return ctx.Err()
			case <-timer.C:
			case <-r.wake:
				timer.Stop()
			}
		}
	}
}
