package alerts

import (
	"fmt"
	"time"
)

// A receiver that is down held a worker for the whole delivery deadline
// per kill (60 s by default): four workers, fifty kills, and a backlog
// of retries each taking its turn against a receiver known dead. Each
// receiver (webhook URL) has a circuit breaker:
//
//   - closed: deliveries go; breakerTrips retryable failures in a row
//     (429, 5xx, a timeout, a reset) open it;
//   - open: no delivery goes to it. A kill taken off the queue then is
//     parked: its requested record is in the journal (pending), it holds
//     no worker, and it is never dropped; a stop leaves it for the next
//     start like any action waiting;
//   - half-open, once the cool-down has passed: one parked kill is the
//     probe. Delivered (or refused for good: the receiver answered), the
//     breaker closes and every parked kill is queued; failed, it opens
//     again for twice as long (up to breakerCoolCap).
//
// A parked kill's own retry_for runs from its first delivery, so an
// outage longer than retry_for still delivers it once the receiver is
// back.
const (
	breakerTrips     = 3
	breakerCoolFirst = time.Second
	breakerCoolCap   = 15 * time.Second
)

type breaker struct {
	fails     int
	openUntil time.Time
	cool      time.Duration
	probing   bool
	parked    []task
	timer     *time.Timer
}

// gate says whether t may be delivered to url now; when not, t is parked
// (the caller returns without finishing it). Under no lock.
func (d *Dispatcher) gate(url string, t task) bool {
	d.mu.Lock()
	b := d.breakers[url]
	if b == nil || (b.fails < breakerTrips && !b.probing) {
		d.mu.Unlock()
		return true
	}
	if !b.probing && !time.Now().Before(b.openUntil) {
		b.probing = true // half-open: this one is the probe
		d.mu.Unlock()
		return true
	}
	if d.stopped {
		d.mu.Unlock()
		d.leaveOne(t)
		return false
	}
	b.parked = append(b.parked, t)
	n, until := len(b.parked), b.openUntil
	d.mu.Unlock()
	if t.kill() {
		d.setState(t.alert, StateRequested)
	}
	d.report(Result{Alert: t.alert, Action: t.action, State: StateRequested,
		Detail: fmt.Sprintf("held: the receiver failed %d deliveries in a row, so its circuit breaker is open (%d kill(s) held, none dropped; the request is journaled); delivered once a probe gets through (the next probe after %s)",
			breakerTrips, n, until.UTC().Format(time.RFC3339))})
	return false
}

// delivered tells url's breaker how a delivery ended: retryable (the
// receiver did not answer usefully) or not (it answered: delivered, or
// refused for good).
func (d *Dispatcher) delivered(url string, retryable bool) {
	d.mu.Lock()
	if d.breakers == nil {
		d.breakers = map[string]*breaker{}
	}
	b := d.breakers[url]
	if b == nil {
		if !retryable {
			d.mu.Unlock()
			return
		}
		b = &breaker{}
		d.breakers[url] = b
	}
	if !retryable {
		// Closed: every parked kill goes now.
		parked := b.parked
		if b.timer != nil {
			b.timer.Stop()
		}
		delete(d.breakers, url)
		d.mu.Unlock()
		for _, t := range parked {
			d.enqueue(t, "", "")
		}
		return
	}
	b.fails++
	if (b.fails < breakerTrips && !b.probing) || (!b.probing && time.Now().Before(b.openUntil)) {
		// Not yet tripped, or already open (a delivery begun before it
		// opened failed too): the cool-down stands.
		d.mu.Unlock()
		return
	}
	// Open (again): for twice as long as the last time.
	b.probing = false
	b.cool = min(breakerCoolCap, max(breakerCoolFirst, b.cool*2))
	b.openUntil = time.Now().Add(b.cool)
	if b.timer != nil {
		b.timer.Stop()
	}
	b.timer = time.AfterFunc(b.cool, func() { d.halfOpen(url, b) })
	d.mu.Unlock()
}

// halfOpen queues one parked kill as the probe once the cool-down passed.
func (d *Dispatcher) halfOpen(url string, b *breaker) {
	d.mu.Lock()
	if d.breakers[url] != b || d.stopped || b.probing || len(b.parked) == 0 {
		d.mu.Unlock()
		return
	}
	t := b.parked[0]
	b.parked = b.parked[1:]
	d.mu.Unlock()
	d.enqueue(t, "", "")
}

// takeParked empties every breaker (Shutdown leaves what they held for
// the next start).
func (d *Dispatcher) takeParked() []task {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []task
	for url, b := range d.breakers {
		out = append(out, b.parked...)
		if b.timer != nil {
			b.timer.Stop()
		}
		delete(d.breakers, url)
	}
	return out
}

// parked counts the kills breakers hold (under d.mu).
func (d *Dispatcher) parkedLocked() int {
	n := 0
	for _, b := range d.breakers {
		n += len(b.parked)
	}
	return n
}
