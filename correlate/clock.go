package correlate

import (
	"slices"
	"time"
)

// clockAhead is how far ahead of the running median of recent events an
// event may be and still move the log clock: one line dated 2199 must not
// hold the burn window and the projection for the rest of the run, and
// one line from a skewed clock (10 h ahead: local time written as UTC)
// must not make every job in flight idle (issue 34: a day let it).
const clockAhead = int64(time.Hour)

// logClock is a clock read from event times that one line cannot move
// (see advance).
type logClock struct {
	now int64
	// wallAt is the wall time (State.SetWall) when the source last
	// logged, 0 when none was given then.
	wallAt int64
	// recent holds the last events' times for the median; outOfOrder
	// counts the events it kept from moving the clock.
	recent  [64]int64
	recentN int
	sorted  []int64 // scratch for the median of recent
	// aheadRun counts the events in a row held out of the clock as far
	// ahead: a confirmed jump takes them back.
	aheadRun   int64
	outOfOrder int64
	// lanes are the source's places on the burn clock (stepBurn): its
	// events near its clock, and those far behind it.
	lanes [2]burnLane
}

// advance moves the clock to ts, unless ts is far ahead of the events
// around it: then the event is billed and kept at its own time, counted
// out of order, and the clock stays. The median is taken only when an
// event is an hour past the clock (rare), over the last len(recent)
// events' times; a real jump (a night after a weekend) moves the clock
// once half of those events are past it.
func (c *logClock) advance(ts int64) {
	c.recent[c.recentN%len(c.recent)] = ts
	c.recentN++
	n := min(c.recentN, len(c.recent))
	// quantile is the time q eighths of the recent events are before.
	// The clock jumps forward when half of them are near or past the
	// event (the median), and comes back only when 5/8 of them are
	// behind it (the 5/8 quantile): between the two it stays. On the
	// median both ways, a file two loggers 10 h apart wrote line by line
	// flipped it 10 h forward and back at every pair of lines until the
	// ring was full, and for ever at a share near half (issue 34's red
	// team: the burn window stepped 10 h at each flip).
	quantile := func(q int) int64 {
		w := c.sorted[:0]
		w = append(w, c.recent[:n]...)
		slices.Sort(w)
		c.sorted = w
		return w[n*q/8]
	}
	if c.now != 0 && ts > c.now+clockAhead && n > 2 && ts > quantile(4)+clockAhead {
		c.outOfOrder++
		c.aheadRun++
		return
	}
	if c.now != 0 && ts > c.now+clockAhead {
		// A jump confirmed (the next night, after a gap): the events that
		// waited for it were its first, not lines out of order.
		c.outOfOrder -= min(c.aheadRun, c.outOfOrder)
	}
	c.aheadRun = 0
	if c.now > ts+clockAhead && n >= 8 {
		// The clock is an hour ahead of this event: an early line (before
		// there was a median to judge it by) may have set it. When most
		// recent events are behind it, it comes back to the latest of
		// them that is not itself far ahead. Checked on every such event,
		// so no share of far-ahead lines can hold it there.
		if med := quantile(5); c.now > med+clockAhead {
			latest := med
			for _, t := range c.sorted {
				if t <= med+clockAhead {
					latest = max(latest, t)
				}
			}
			c.now = latest
			c.outOfOrder++
		}
	}
	c.now = max(c.now, ts)
}

// maxSourceClocks bounds the clocks of one State (about 600 bytes each):
// an OTLP sender that names a new service in every request must not grow
// every run without end. A source past the bound is judged on the log
// clock, as every source was before each had its own.
const maxSourceClocks = 1024

// advanceClock moves the log clock, and the clock of the event's source,
// to ts (see logClock.advance). The source's clock is kept apart only
// once a second source logs: a report of one file, or one stream, has one
// clock, and reads as it did.
func (s *State) advanceClock(ts int64, src uint16) {
	s.clock.advance(ts)
	s.lastTS = s.clock.now
	if s.srcClocks == nil {
		if !s.clockSrcSet || s.clockSrc == src {
			s.clockSrc, s.clockSrcSet = src, true
			s.stepBurn(&s.clock, ts)
			return
		}
		// A second source: the first's clock so far is the log clock
		// (every event was its own).
		first := s.clock
		first.sorted = nil
		// A map, not a slice by number: OTLP senders are numbered from
		// 32,768, and every run has its State.
		s.srcClocks = map[uint16]*logClock{s.clockSrc: &first}
	}
	c := s.lastSrc
	if c == nil || s.lastSrcID != src {
		if c = s.srcClocks[src]; c == nil {
			if len(s.srcClocks) >= maxSourceClocks {
				s.overClock.now = s.clock.now // one burn source, on the log clock
				s.stepBurn(&s.overClock, ts)
				return // judged on the log clock (clockOf)
			}
			c = &logClock{}
			s.srcClocks[src] = c
		}
		s.lastSrc, s.lastSrcID = c, src
	}
	c.advance(ts)
	c.wallAt = s.wall
	s.stepBurn(c, ts)
}

// maxBurnStep bounds one step of the burn clock (alerts' window clock
// takes the same: a day).
const maxBurnStep = 24 * int64(time.Hour)

// stepBurn moves the burn clock (State.burnNow), which the dashboard's
// burn figures are timed by, by the rule the burn_rate alert's window
// runs on (alerts' runRules.tick): an event steps it by the forward step
// of its time since the last event of its source and lane (State.Lane;
// never one far ahead of its source's clock c), each lane on its own, and
// the burn clock is as far as the furthest lane has taken it; every
// event's spend is counted at the burn clock's now. A second logger 10 h
// ahead (in the same file or another), or a line dated 2199, neither
// hides the burn nor inflates it (issue 34's red team: the figures ran on
// the one log clock and showed only the minutes near it). A single
// source logging in order steps it to its own times.
func (s *State) stepBurn(c *logClock, ts int64) {
	if s.burnNow == 0 {
		s.burnNow, s.burnFirst = ts, ts
	}
	lane := laneOf(c.now, ts)
	if lane < 0 {
		return
	}
	l := &c.lanes[lane]
	if l.prev == 0 {
		l.pos = s.burnNow // a lane first seen starts where the clock is
	} else if d := ts - l.prev; d > 0 && d <= maxBurnStep {
		l.pos += d
		s.burnNow = max(s.burnNow, l.pos)
	} else if d < 0 {
		// Its times went back (its clock came back to it): it goes on
		// from where the clock is, not from where it was, or the clock
		// would wait for it to catch up while the spend piles up.
		l.pos = max(l.pos, s.burnNow)
	}
	l.prev = ts
}

// burnLane is a lane's place on the burn clock (see State.Lane): the
// time of its last event, and how far its steps since have taken it.
type burnLane struct{ prev, pos int64 }

// SetWall gives the State the wall time the events it applies next arrive
// at, as a monotonic reading in ns (any origin, never 0); 0 (a replay, a
// report) for none. Live, a source that
// has gone quiet has its clock run on with wall time since it last
// logged, so its jobs still go idle and retire when no event of its own
// moves its clock — as they did on the one log clock, which another
// source kept moving. The engine calls it, never correlate: the State
// reads no clock.
func (s *State) SetWall(ns int64) {
	s.wall = ns
	if s.wallFirst == 0 {
		s.wallFirst = ns
	}
}

// clockOf is the clock job is judged idle and retired by: its source's
// own, so a source whose times run ahead (a skewed clock) or a line far
// ahead of its neighbours makes no job of another source idle.
func (s *State) clockOf(j *Job) int64 {
	if s.srcClocks == nil {
		return s.lastTS
	}
	if c := s.srcClocks[j.src]; c != nil {
		return c.now + s.quietFor(c)
	}
	return s.lastTS
}

// quietFor is the wall time since c's source last logged, 0 without a
// wall time (a replay, a report).
func (s *State) quietFor(c *logClock) int64 {
	if s.wall == 0 {
		return 0
	}
	at := c.wallAt
	if at == 0 {
		at = s.wallFirst // it last logged before wall time was given (the spool's replay)
	}
	return max(0, s.wall-at)
}

// FarAhead reports whether ts, of an event of source src just applied,
// is far ahead of that source's clock: the clock did not follow it (see
// logClock.advance), and neither should anything timed by it.
func (s *State) FarAhead(ts int64, src uint16) bool {
	now := s.lastTS
	if c := s.srcClocks[src]; c != nil {
		now = c.now
	}
	return now != 0 && ts > now+clockAhead
}

// Lane says where ts, of an event of source src just applied, is
// against that source's clock: 0 within clockAhead of it either way, 1
// more than that behind, -1 more than that ahead. A burn window steps by
// the forward steps between a source's events of one lane, each lane on
// its own, never by a line far ahead (2199, a jump not yet confirmed):
// issue 34's red team — stepping by each line's own time, a file two
// loggers 10 h apart wrote line by line stepped the window 10 h at every
// pair, and $0.60/min over a $0.50/min limit raised nothing. Lines far
// behind step a lane of their own: a host clock set back two hours still
// moves the window while the source's clock waits to come back.
func (s *State) Lane(ts int64, src uint16) int {
	now := s.lastTS
	if c := s.srcClocks[src]; c != nil {
		now = c.now
	}
	return laneOf(now, ts)
}

func laneOf(now, ts int64) int {
	switch {
	case now == 0 || ts > now+clockAhead:
		return -1
	case ts < now-clockAhead:
		return 1
	}
	return 0
}
