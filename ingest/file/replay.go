package file

import (
	"context"
	"sync"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Replay plays a finished log through the engine on the log's own clock,
// Speed times faster. It streams: events are read a bounded window ahead
// (replayWindow), never the whole log, so its memory does not grow with
// the log's length. Its controls are safe to call from the UI goroutine.
type Replay struct {
	it     EventIter
	status func() []ingest.Status // the inputs' counters, read on the Run goroutine
	// fraction says how much of the input has been read, 0..1, or nil.
	fraction func() float64
	close    func() // when the replay has played everything

	mu      sync.Mutex
	buf     []ingest.Event // the window: buf[bi:] are read and not yet played
	bi      int
	done    bool // the iterator is exhausted
	sources []ingest.Status
	read    float64 // fraction of the input read, as of the last refill
	speed   float64 // 0 means as fast as possible
	paused  bool
	// compressed counts the gaps of log time played shorter (maxReplayGap).
	compressed int
	pos        int // events played
	lastTS     int64
	steps      int  // single steps requested while paused
	toEnd      bool // jump to the end
	wake       chan struct{}
	rebased    bool
}

// maxReplayGap is the longest a replay waits, in wall time, for its next
// event: a longer gap of log time is compressed to it (ReplayStatus
// .Compressed says how many were). Rules see event time, not wall time,
// so compressing changes only the pace.
const maxReplayGap = 5 * time.Second

// replayWindow is how many events a replay reads ahead.
const replayWindow = 8192

// NewReplay plays it; status describes the inputs (nil for none).
func NewReplay(it EventIter, status []ingest.Status, speed float64) *Replay {
	r := &Replay{it: it, sources: status, speed: speed, wake: make(chan struct{}, 1)}
	return r
}

// NewFileReplay plays a set of files, streaming them; the set is closed
// when the replay ends.
func NewFileReplay(fs *FileSet, speed float64) *Replay {
	r := NewReplay(fs.Merged(), nil, speed)
	r.close = fs.Close
	r.status = fs.Status
	r.fraction = fs.Fraction
	r.sources = fs.Status()
	return r
}

// SetSources records the inputs' status.
func (r *Replay) SetSources(st []ingest.Status) {
	r.mu.Lock()
	r.sources = st
	r.mu.Unlock()
}

// Status reports the inputs, as of the last read.
func (r *Replay) Status() []ingest.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sources
}

// Progress is the current position.
func (r *Replay) Progress() ingest.ReplayStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := ingest.ReplayStatus{Pos: r.pos, Speed: r.speed, Paused: r.paused, LogTS: r.lastTS, Fraction: r.read, Compressed: r.compressed}
	if r.done {
		st.Total, st.Fraction = r.pos+len(r.buf)-r.bi, 1
	}
	return st
}

// replayAhead is how many batches a replay keeps queued for its consumer:
// two windows' worth, so the consumer has work while the next window is
// parsed (a few MB, where the live queue's capacity would be tens).
const replayAhead = 2 * replayWindow / ingest.BatchSize

// fill reads the next window when the current one is played; it runs on
// the Run goroutine (the only one that reads the iterator), with r.mu
// held.
func (r *Replay) fill() {
	if r.bi < len(r.buf) || r.done {
		return
	}
	if cap(r.buf) == 0 {
		r.buf = make([]ingest.Event, replayWindow)
	}
	r.buf, r.bi = r.buf[:cap(r.buf)], 0
	n := 0
	for n < len(r.buf) && r.it.Next(&r.buf[n]) {
		n++
	}
	r.buf = r.buf[:n]
	if n < cap(r.buf) {
		r.done = true
	}
	if r.status != nil {
		r.sources = r.status()
	}
	if r.fraction != nil {
		r.read = r.fraction()
	}
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
func (r *Replay) Run(ctx context.Context, out chan<- ingest.Batch) error {
	if r.close != nil {
		defer r.close()
	}
	var wallBase time.Time
	var logBase int64
	for {
		r.mu.Lock()
		r.fill()
		if r.bi >= len(r.buf) {
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
		// Take every event that is due now, up to a batch, from the window.
		if !r.rebased {
			wallBase, logBase, r.rebased = time.Now(), r.buf[r.bi].TS, true
		}
		end := r.bi
		var wait time.Duration
		for end < len(r.buf) && end-r.bi < ingest.BatchSize {
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
			due := wallBase.Add(time.Duration(float64(r.buf[end].TS-logBase) / r.speed))
			if d := time.Until(due); d > maxReplayGap {
				// A gap of log time longer than this at the replay's speed
				// (one line of 1973 before the 2026 ones waited 324 days
				// at 60×) is played as maxReplayGap, and counted.
				wallBase = wallBase.Add(-(d - maxReplayGap))
				r.compressed++
				wait = maxReplayGap
				break
			} else if d > 0 {
				wait = d
				break
			}
			end++
		}
		batch := ingest.NewBatch()[:end-r.bi] // end-r.bi ≤ BatchSize; the consumer recycles it
		copy(batch, r.buf[r.bi:end])
		r.pos += end - r.bi
		r.bi = end
		if len(batch) > 0 {
			r.lastTS = batch[len(batch)-1].TS
		}
		r.mu.Unlock()
		// Ahead of the consumer by a few batches at most: at --speed max
		// the queue would otherwise fill with a quarter million events
		// (tens of MB) that only wait. Live sources need that queue for
		// bursts; a replay can always wait.
		for len(out) >= replayAhead {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
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
