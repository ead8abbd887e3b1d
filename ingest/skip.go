package ingest

// SkipReason says why a line produced no event. The zero value means the line
// was accepted.
type SkipReason uint8

const (
	Accepted SkipReason = iota
	// SkipBlank is an empty or whitespace-only line. It is counted apart
	// from the other reasons: it is not an error.
	SkipBlank
	// SkipInfo is a recognized line that describes no attempt by itself
	// (an SDK's "Retrying request…"): not an error either.
	SkipInfo
	SkipInvalidJSON
	SkipTruncated
	SkipTooLong
	SkipBinary
	SkipNotObject
	SkipWrongType
	SkipUnknownEvent
	SkipNoEvent
	// SkipImplausible is an attempt whose token counts or cost no real
	// call has (see MaxTokensPerCall, MaxCostPerCallUSD).
	SkipImplausible
	// SkipOutOfRange is a timestamp outside 1970–2200.
	SkipOutOfRange
	// SkipTooDeep is JSON nested deeper than 512 levels: refused before it
	// can exhaust a stack, but not called invalid.
	SkipTooDeep
	// SkipText is a plain text line in a file of SDK lines: the
	// application's own logging, not broken JSON.
	SkipText
	// SkipUnmatched is a text line that none of the user's patterns
	// (--pattern, [[format]]) matched, nor a built-in text format.
	SkipUnmatched
	// NumSkipReasons is how many reasons there are, for arrays indexed by them.
	NumSkipReasons
)

var skipNames = [NumSkipReasons]string{
	"", "blank", "info", "invalid_json", "truncated", "too_long", "binary",
	"not_object", "wrong_type", "unknown_event", "no_event", "implausible", "out_of_range", "too_deep", "text", "unmatched",
}

func (r SkipReason) String() string {
	if r < NumSkipReasons {
		return skipNames[r]
	}
	return "unknown"
}

// Stats counts what a source read. All counters only grow.
type Stats struct {
	Lines   int64
	Events  int64
	Skipped [NumSkipReasons]int64
	// NoTimestamp counts accepted lines that carried no time of their own
	// (they took the time of the line before, or live the time read).
	NoTimestamp int64
	// FieldsDropped counts, by reason, accepted lines that lost a field
	// (or read one by an assumption) rather than the whole line.
	FieldsDropped [NumFieldDrops]int64
}

// FieldDrop is why one field of a kept record was not read as written:
// a bit on Event.Dropped, counted once per line by the source. A field
// that cannot be read costs that field, never the record.
type FieldDrop uint8

const (
	// DropTimeNoZone is a time written without a zone (Python's
	// isoformat()): read in the configured zone (--timezone, default UTC).
	// The field is kept; the assumption is counted.
	DropTimeNoZone FieldDrop = 1 << iota
	// DropTimeUnread is a time that does not read: the record takes the
	// time of the line before it, as one without a time does.
	DropTimeUnread
	// DropStatusUnread is a status that is neither a number nor a word
	// burnrate knows (an object, "maybe"): the record keeps an unknown
	// status.
	DropStatusUnread
	// DropWrongType is another field of the wrong type (an object where a
	// string or a number was expected): that field is dropped.
	DropWrongType
	// DropImplausible is a value no real call has: a producer's logged
	// cost far above what its own tokens could cost (PlausibleCost).
	DropImplausible
)

// NumFieldDrops is how many FieldDrop reasons there are.
const NumFieldDrops = 5

var fieldDropNames = [NumFieldDrops]string{"time_no_zone", "time_unreadable", "status_unreadable", "wrong_type_field", "implausible_field"}

// FieldDropName names reason i (0 ≤ i < NumFieldDrops), as the report does.
func FieldDropName(i int) string { return fieldDropNames[i] }

// Fields counts the field drops of one line (the union of its events').
func (s *Stats) Fields(d FieldDrop) {
	for i := range NumFieldDrops {
		if d&(1<<i) != 0 {
			s.FieldsDropped[i]++
		}
	}
}

// FieldsDroppedByReason returns the non-zero field-drop counters by name.
func (s *Stats) FieldsDroppedByReason() map[string]int64 {
	m := map[string]int64{}
	for i, n := range s.FieldsDropped {
		if n > 0 {
			m[fieldDropNames[i]] = n
		}
	}
	return m
}

// Count records the outcome of one line.
func (s *Stats) Count(r SkipReason) {
	s.Lines++
	if r == Accepted {
		s.Events++
		return
	}
	s.Skipped[r]++
}

// Line is the one rule for counting a decoded line, for every reader: a
// last line that never got its newline and does not parse was cut short
// (truncated, not invalid JSON); a blank line is not counted; a line
// counts once, and an accepted line that gave events events counts each.
// It reports whether the line gave events.
func (s *Stats) Line(r SkipReason, events int, final bool) bool {
	if final && r == SkipInvalidJSON {
		r = SkipTruncated
	}
	if r != SkipBlank {
		s.Count(r)
	}
	switch {
	case events == 0:
		return false
	case r == Accepted:
		s.Events += int64(events - 1)
	default:
		// Events a decoder held back from an earlier line and gave with
		// this one, which is itself skipped (decode.Flusher).
		s.Events += int64(events)
	}
	return true
}

// SkippedTotal is the number of lines dropped for an error (blank lines are
// not errors and are not included).
func (s *Stats) SkippedTotal() int64 {
	var n int64
	for r := SkipInvalidJSON; r < NumSkipReasons; r++ {
		n += s.Skipped[r]
	}
	return n
}

// SkippedByReason returns the non-zero error counters by name.
func (s *Stats) SkippedByReason() map[string]int64 {
	m := map[string]int64{}
	for r := SkipInvalidJSON; r < NumSkipReasons; r++ {
		if s.Skipped[r] > 0 {
			m[r.String()] = s.Skipped[r]
		}
	}
	return m
}

// Add folds o into s.
func (s *Stats) Add(o Stats) {
	s.Lines += o.Lines
	s.Events += o.Events
	s.NoTimestamp += o.NoTimestamp
	for i := range s.FieldsDropped {
		s.FieldsDropped[i] += o.FieldsDropped[i]
	}
	for i := range s.Skipped {
		s.Skipped[i] += o.Skipped[i]
	}
}
