package decode

import (
	"math"

	"github.com/burnrate-dev/burnrate/ingest"
)

// InFlight is a decoder that holds an app's announced calls ("calling
// model") across batches while they wait for their answer line, and so
// holds state a restart must not lose or count twice:
//
//   - Stopping, called before the last Flush of a stop (not the input's
//     end), marks each call still held then as ingest.Event.Held: the
//     report written at the stop counts it, and the spool keeps it as
//     one to hold again;
//   - Hold gives the next start's decoder of the same input what the
//     spool kept so: held again, as if read just now, so the answer read
//     after the restart is that call (a restart is a replay).
type InFlight interface {
	Stopping()
	Hold(announced []ingest.Event)
}

// Stopping: see InFlight.
func (d *jsonlDecoder) Stopping() { d.stopping = true }

// Hold: see InFlight. It holds them as if just read — past the bound of
// maxAnnounced in full the oldest packed, past the packed ones' bound
// dropped: the engine, which holds every call in flight too, counts those
// at the stop or settles them with their job's next event.
func (d *jsonlDecoder) Hold(announced []ingest.Event) {
	for _, a := range announced[max(0, len(announced)-(maxAnnounced+maxPacked)):] {
		a.Held = false
		d.dropAnnounced(a.JobID) // one per job: the later stands
		for d.announced.full(&a) {
			d.pack(d.announced.oldest(), false)
		}
		d.announced.push(a)
	}
}

func (c *checked) Stopping() {
	if f, ok := c.inner.(InFlight); ok {
		f.Stopping()
	}
}

func (c *checked) Hold(announced []ingest.Event) {
	if f, ok := c.inner.(InFlight); ok {
		f.Hold(announced)
	}
}

func (d *keyedDecoder) Stopping() {
	if f, ok := d.base.(InFlight); ok {
		f.Stopping()
	}
}

func (d *keyedDecoder) Hold(announced []ingest.Event) {
	if f, ok := d.base.(InFlight); ok {
		f.Hold(announced)
	}
}

// streamDecoder picks its format at the first line: what it is given to
// hold before that waits in held, and is handed on once the format is
// known (or, no line having come, goes at the stop as it came: held).
func (d *streamDecoder) Stopping() {
	d.stopping = true
	if f, ok := d.inner.(InFlight); ok {
		f.Stopping()
	}
}

func (d *streamDecoder) Hold(announced []ingest.Event) {
	if f, ok := d.inner.(InFlight); ok {
		f.Hold(announced)
		return
	}
	d.held = append(d.held, announced...)
}

// handHeld gives the decoder just made what was held for it; a decoder
// that holds no announcements (another format) lets them go at its first
// Flush, as calls of unknown outcome.
func (d *streamDecoder) handHeld() {
	if len(d.held) == 0 {
		return
	}
	if f, ok := d.inner.(InFlight); ok {
		f.Hold(d.held)
		d.held = nil
	}
}

// flushHeld lets go what is held with no decoder to hold it: at the input's
// end as calls, at a stop as calls still held.
func (d *streamDecoder) flushHeld(emit func(*ingest.Event)) int {
	if len(d.held) == 0 {
		return 0
	}
	if !d.stopping && (d.inner == nil && (d.opts.Now == nil || d.opts.Now() != math.MaxInt64)) {
		return 0 // no line yet: the answer may come
	}
	n := 0
	for i := range d.held {
		d.held[i].Held = d.stopping
		emit(&d.held[i])
		n++
	}
	d.held = nil
	return n
}

// HeldBound is a decoder that says what its bound of announcements in
// flight did (announced.go): "" while the bound was never reached. A
// live follower shows it as its input's warning and in --report-out.
type HeldBound interface {
	HeldBound() string
}

// HeldBound: see the interface.
func (d *jsonlDecoder) HeldBound() string { return d.heldHint() }

func (c *checked) HeldBound() string {
	if h, ok := c.inner.(HeldBound); ok {
		return h.HeldBound()
	}
	return ""
}

func (d *keyedDecoder) HeldBound() string {
	if h, ok := d.base.(HeldBound); ok {
		return h.HeldBound()
	}
	return ""
}

func (d *streamDecoder) HeldBound() string {
	if h, ok := d.inner.(HeldBound); ok {
		return h.HeldBound()
	}
	return ""
}
