package ingest

import "context"

// Status describes one input for the dashboard, headless output and the
// report: what was read, what was skipped, and what went wrong.
type Status struct {
	Name  string
	Stats Stats
	Err   string
	// Warn is a possible loss the source could not rule out, e.g. a file
	// truncated with no rotated copy to finish from.
	Warn        string
	Truncations int64 // truncations with no copy found
	Active      bool
	Missing     bool   // the file does not exist yet; it is waited for
	Detail      string // source-specific counters, e.g. OTLP requests
	// Hint is what the report's source.hints says of this input live
	// (a follower: the bound of announced calls in flight passed).
	Hint string
	// SameFileAs is the path read instead of this one when both name the
	// same file (a symlink, a hard link, a glob and the file's own name):
	// this path is not read, so a report lists only the other.
	SameFileAs string
}

// Source is anything that feeds the live engine: a followed file, stdin, a
// replay, an OTLP receiver. Run sends batches on out (each then belongs to
// the receiver: see Batch) until the source is exhausted or ctx is done;
// Status is safe to call from any goroutine at any time.
type Source interface {
	Run(ctx context.Context, out chan<- Batch) error
	Status() []Status
}

// Handing is implemented by a source that answers its sender (an OTLP
// receiver): HandWith gives it the function that takes each batch in
// place of the send on out — it returns once the batch is spooled and
// queued (nil) or refused (the process is stopping) — so the sender is
// answered only after its events are on disk (engine.Options.Spool).
type Handing interface {
	HandWith(hand func(ctx context.Context, b Batch) error)
}

// Holding is implemented by a source whose decoders hold an app's
// announced calls until their answer line (a follower): Hold gives it,
// before Run, the calls that were in flight at the last stop — events
// marked Held, which the spool kept — to hold again, so the answer read
// after the restart is that call, not a second one.
type Holding interface {
	Hold(held []Event)
}

// Remembering is implemented by a source whose memory across its inputs
// decides what later events are (the OTLP mapper: a span's job comes from
// the spans above it, which came in earlier requests). With a spool the
// engine calls SpoolMemory before Run: every change of that memory is
// then sent as a KindSpanLink event, spooled with the events it explains
// and never applied. At the next start the replay gives them back, in
// order, to Remember: the memory is rebuilt from the spool itself, so an
// event mapped after a restart is the one an uninterrupted run maps.
type Remembering interface {
	SpoolMemory()
	Remember(links []Event)
}

// BatchSize is how many events a source hands over at once.
const BatchSize = 512

// BOM is the UTF-8 byte order mark some Windows tools write at the start
// of a file; it is dropped there, so the first line parses.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// ReplayStatus is the replay's position for the progress bar.
type ReplayStatus struct {
	// Pos events were played; Total is the count of all once the input
	// has been read to its end, 0 before (Fraction says how far then).
	Pos, Total int
	Fraction   float64 // of the input read, 0..1
	Speed      float64 // 0: max
	Paused     bool
	LogTS      int64
	// Compressed counts gaps of log time played shorter than they were
	// (a replay waits at most a few seconds for its next event).
	Compressed int
}

// ReplayControl is a source that plays a finished log on its own clock:
// the engine reports its progress, the dashboard's keys drive it. The
// engine asks a source for it (an optional interface) rather than knowing
// the file replay's type.
type ReplayControl interface {
	Source
	Progress() ReplayStatus
	TogglePause()
	Step()
	Faster()
	Slower()
	JumpToEnd()
}
