package spool

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/burnrate-dev/burnrate/ingest"
)

// An event is written as the ingest.Event contract holds it, field by
// field, so that a replay hands correlate the very event a live run
// applied: varints for the numbers, a length and the bytes for each
// string (log-derived strings keep their exact bytes), the float's bits,
// and one byte of flags.

// maxString bounds one string field read back: ingest keeps identifiers
// to ingest.MaxIDBytes (a capped one a little longer) and no decoder
// gives a field near this.
const maxString = 1 << 20

const (
	flagHasCost = 1 << iota
	flagStreamDropped
	flagBatch
	flagTSCarried
	flagAgentSession
	flagUsageUnseen
	// flagBill: a byte of ingest.Bill follows the flags' four bytes (issue
	// 35). Spools written before it never set it, so they read as they
	// did; an older burnrate refuses such an event as corrupt.
	flagBill
	// flagMore: a byte of more flags (more*) follows the bill's byte —
	// the flags' byte is full. Spools written before it never set it.
	flagMore
)

// The second byte of flags (flagMore).
const (
	// moreQueue: the queue's attempt (ingest.Event.QueueAttempt, issue
	// 39) follows, a uvarint after this byte.
	moreQueue = 1 << iota
	// moreForkCopy: ingest.Event.ForkCopy, a fork's copy of its parent's
	// line (issue 35).
	moreForkCopy
	// moreHeld: ingest.Event.Held, an announced call in flight at a stop.
	moreHeld
	// maxMore is past every bit of the second byte.
	maxMore
)

// maxBill is past every ingest.Bill bit.
const maxBill = ingest.BillCompaction << 1

// numKinds is how many kinds ingest has (KindSpanLink is the last;
// TestEventFields fails when one is added).
const numKinds = int(ingest.KindSpanLink) + 1

// A KindSpanLink (a source's memory, spooled beside its events) is
// written in a form every burnrate reads: kind unknown at time linkTS,
// which an older build's decoder takes whole and then refuses as an event
// out of range — skipped and counted, the events after it replayed (a
// kind byte it does not know cut the rest of the segment: R8-18). Its own
// time is kept in RetryAfterMs; this decoder gives it back.
const linkTS = -1

// appendEvent encodes ev at the end of b.
func appendEvent(b []byte, ev *ingest.Event) []byte {
	if ev.Kind == ingest.KindSpanLink {
		link := *ev
		link.Kind, link.TS, link.RetryAfterMs = ingest.KindUnknown, linkTS, ev.TS
		ev = &link
	}
	b = binary.AppendVarint(b, ev.TS)
	for _, s := range [...]string{ev.JobID, ev.JobType, ev.RunID, ev.CorrelationID, ev.IdempotencyKey, ev.ResponseID, ev.Provider, ev.Model, ev.ErrorType, ev.Tool} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ev.CostUSD))
	for _, n := range [...]int64{ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens, ev.CacheCreate1hTokens, ev.PromptTokens,
		ev.RetryAfterMs, ev.RateLimitTokens, ev.RateLimitRequests, int64(ev.LatencyMs), int64(ev.Status), int64(ev.Attempt)} {
		b = binary.AppendVarint(b, n)
	}
	var flags byte
	var more byte
	if ev.QueueAttempt > 0 {
		more |= moreQueue
	}
	if ev.ForkCopy {
		more |= moreForkCopy
	}
	if ev.Held {
		more |= moreHeld
	}
	for i, f := range [...]bool{ev.HasCost, ev.StreamDropped, ev.Batch, ev.TSCarried, ev.AgentSession, ev.UsageUnseen, ev.Bill != 0, more != 0} {
		if f {
			flags |= 1 << i
		}
	}
	b = append(b, byte(ev.Kind), byte(ev.AttemptBy), flags, byte(ev.Dropped))
	if ev.Bill != 0 {
		b = append(b, byte(ev.Bill))
	}
	if more != 0 {
		b = append(b, more)
	}
	if ev.QueueAttempt > 0 {
		b = binary.AppendUvarint(b, uint64(ev.QueueAttempt))
	}
	return binary.AppendUvarint(b, uint64(ev.Source))
}

var (
	errCorrupt     = errors.New("not an event")
	errImplausible = errors.New("an event ingest refuses")
)

// decoder reads events back; prev keeps each string field's last value,
// so a run of events of one job, model and run shares their strings.
type decoder struct {
	prev [10]string
}

// event decodes one event from b and returns the rest. Whatever is out of
// bounds (a length past the record, a kind ingest does not have, an event
// ingest.Event.Check refuses) is errCorrupt: a record passed its CRC, so
// only a writer other than burnrate, or a bug, makes one.
func (d *decoder) event(b []byte, ev *ingest.Event) ([]byte, error) {
	varint := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			b = nil
			return math.MinInt64
		}
		b = b[n:]
		return v
	}
	ts := varint()
	if ts == math.MinInt64 {
		return nil, errCorrupt
	}
	ev.TS = ts
	fields := [...]*string{&ev.JobID, &ev.JobType, &ev.RunID, &ev.CorrelationID, &ev.IdempotencyKey, &ev.ResponseID, &ev.Provider, &ev.Model, &ev.ErrorType, &ev.Tool}
	for i, f := range fields {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > maxString || n > uint64(len(b)-k) {
			return nil, errCorrupt
		}
		raw := b[k : k+int(n)]
		b = b[k+int(n):]
		if string(raw) == d.prev[i] { // no allocation
			*f = d.prev[i]
			continue
		}
		*f = string(raw)
		d.prev[i] = *f
	}
	if len(b) < 8 {
		return nil, errCorrupt
	}
	ev.CostUSD = math.Float64frombits(binary.LittleEndian.Uint64(b))
	b = b[8:]
	var nums [12]int64
	for i := range nums {
		if nums[i] = varint(); b == nil {
			return nil, errCorrupt
		}
	}
	ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens, ev.CacheCreate1hTokens, ev.PromptTokens = nums[0], nums[1], nums[2], nums[3], nums[4], nums[5]
	ev.RetryAfterMs, ev.RateLimitTokens, ev.RateLimitRequests = nums[6], nums[7], nums[8]
	if nums[9] < math.MinInt32 || nums[9] > math.MaxInt32 || nums[10] < math.MinInt16 || nums[10] > math.MaxInt16 || nums[11] < math.MinInt16 || nums[11] > math.MaxInt16 {
		return nil, errCorrupt
	}
	ev.LatencyMs, ev.Status, ev.Attempt = int32(nums[9]), int16(nums[10]), int16(nums[11])
	if len(b) < 4 {
		return nil, errCorrupt
	}
	kind, by, flags, dropped := b[0], b[1], b[2], b[3]
	b = b[4:]
	if int(kind) >= numKinds || by > byte(ingest.AttemptByLineAmbiguous) || dropped >= 1<<ingest.NumFieldDrops {
		return nil, errCorrupt
	}
	ev.Bill = 0
	if flags&flagBill != 0 {
		if len(b) < 1 || ingest.Bill(b[0]) >= maxBill || b[0] == 0 {
			return nil, errCorrupt
		}
		ev.Bill = ingest.Bill(b[0])
		b = b[1:]
	}
	var more byte
	if flags&flagMore != 0 {
		if len(b) < 1 || b[0] == 0 || b[0] >= maxMore {
			return nil, errCorrupt
		}
		more = b[0]
		b = b[1:]
	}
	ev.QueueAttempt = 0
	if more&moreQueue != 0 {
		q, k := binary.Uvarint(b)
		if k <= 0 || q == 0 || q > math.MaxInt16 {
			return nil, errCorrupt
		}
		ev.QueueAttempt = int16(q)
		b = b[k:]
	}
	ev.Kind, ev.AttemptBy, ev.Dropped = ingest.Kind(kind), ingest.AttemptBy(by), ingest.FieldDrop(dropped)
	ev.HasCost, ev.StreamDropped, ev.Batch = flags&flagHasCost != 0, flags&flagStreamDropped != 0, flags&flagBatch != 0
	ev.TSCarried, ev.AgentSession, ev.UsageUnseen = flags&flagTSCarried != 0, flags&flagAgentSession != 0, flags&flagUsageUnseen != 0
	ev.ForkCopy, ev.Held = more&moreForkCopy != 0, more&moreHeld != 0
	src, k := binary.Uvarint(b)
	if k <= 0 || src > math.MaxUint16 {
		return nil, errCorrupt
	}
	ev.Source = uint16(src)
	if ev.Kind == ingest.KindUnknown && ev.TS == linkTS {
		ev.Kind, ev.TS, ev.RetryAfterMs = ingest.KindSpanLink, ev.RetryAfterMs, ingest.NoRetryAfter
	} else if ev.Kind == ingest.KindSpanLink {
		return b[k:], errCorrupt // never written as such
	}
	if ev.Check() != ingest.Accepted {
		return b[k:], errImplausible
	}
	return b[k:], nil
}
