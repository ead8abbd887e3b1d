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
}

// Source is anything that feeds the live engine: a followed file, stdin, a
// replay, an OTLP receiver. Run sends batches on out (each then belongs to
// the receiver: see Batch) until the source is exhausted or ctx is done;
// Status is safe to call from any goroutine at any time.
type Source interface {
	Run(ctx context.Context, out chan<- Batch) error
	Status() []Status
}
