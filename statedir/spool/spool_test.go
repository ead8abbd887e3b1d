package spool

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/statedir/flock"
)

// stateDir makes a state directory whose journal lock this process holds.
func stateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	f, err := flock.Lock(journal + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flock.Unlock(f) })
	return journal
}

func sampleEvent(i int) ingest.Event {
	var ev ingest.Event
	ev.Reset()
	ev.TS = 1796180270000000000 + int64(i)*1e9
	ev.JobID, ev.JobType, ev.RunID = "job-"+strings.Repeat("x", i%3), "nightly", "run-1"
	ev.Provider, ev.Model, ev.Kind, ev.Status = "anthropic", "claude-sonnet-4-5", ingest.KindLLMCall, 200
	ev.InputTokens, ev.OutputTokens, ev.Attempt, ev.LatencyMs = 10000+int64(i), 10000, 1, 1200
	ev.CostUSD, ev.HasCost, ev.TSCarried, ev.Source = 0.18, i%2 == 0, i%5 == 0, uint16(i%3)
	ev.JobID += "\xff\x00" // log-derived bytes, not UTF-8: kept exactly
	return ev
}

func openReplay(t *testing.T, journal string, opt Options) (*Spool, []ingest.Batch, []string) {
	t.Helper()
	s, err := Open(journal, opt)
	if err != nil {
		t.Fatal(err)
	}
	var got []ingest.Batch
	w, err := s.Replay(context.Background(), func(b ingest.Batch) { got = append(got, b) })
	if err != nil {
		t.Fatal(err)
	}
	return s, got, w
}

// TestRoundTrip: batches come back as they went in — the same events, the
// same batch boundaries — across starts, a batch larger than a record
// included.
func TestRoundTrip(t *testing.T) {
	journal := stateDir(t)
	var want []ingest.Batch
	s, got, _ := openReplay(t, journal, Options{})
	if len(got) != 0 {
		t.Fatalf("a new spool replayed %d batches", len(got))
	}
	for n := range 3 {
		var b ingest.Batch
		for i := range 5 + n*100 {
			b = append(b, sampleEvent(i))
		}
		if err := s.Append(b); err != nil {
			t.Fatal(err)
		}
		want = append(want, b)
	}
	big := make(ingest.Batch, 0, 9000)
	for i := range 9000 { // > recordBytes: continued over records
		ev := sampleEvent(i)
		ev.Tool = strings.Repeat("t", 200)
		big = append(big, ev)
	}
	if err := s.Append(big); err != nil {
		t.Fatal(err)
	}
	want = append(want, big)
	s.Close()
	s2, got, w := openReplay(t, journal, Options{})
	defer s2.Close()
	if len(w) != 0 {
		t.Fatalf("warnings: %v", w)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("replayed %d batches, want %d (or events differ)", len(got), len(want))
	}
}

// TestEventFields: every field of ingest.Event is written; a field added
// to the contract fails here until the codec writes it.
func TestEventFields(t *testing.T) {
	if n := reflect.TypeOf(ingest.Event{}).NumField(); n != 38 {
		t.Fatalf("ingest.Event has %d fields, the spool writes 38: add the new one to appendEvent and decoder.event", n)
	}
	if ingest.Kind(numKinds).String() != ingest.Kind(0).String() {
		t.Fatalf("ingest has a kind after %s: raise numKinds", ingest.Kind(numKinds-1))
	}
	ev := ingest.Event{TS: 1, JobID: "a", JobType: "b", RunID: "c", CorrelationID: "d", IdempotencyKey: "e", ResponseID: "f", Provider: "g", Model: "h", ErrorType: "i", Tool: "j",
		CostUSD: 1.5, InputTokens: 2, OutputTokens: 3, CacheReadTokens: 4, CacheCreateTokens: 5, CacheCreate1hTokens: 6, PromptTokens: 7, RetryAfterMs: 8, RateLimitTokens: 9, RateLimitRequests: 10,
		LatencyMs: 11, Status: 12, Attempt: 13, QueueAttempt: 7, Kind: ingest.KindTraceJob, AttemptBy: ingest.AttemptByLineAmbiguous, Dropped: ingest.DropWrongType | ingest.DropTimeNoZone, HasCost: true, StreamDropped: true, Batch: true, TSCarried: true, AgentSession: true, UsageUnseen: true, ForkCopy: true, Held: true, Source: 14,
		Bill: ingest.BillFast | ingest.BillGeoUS | ingest.BillFlex | ingest.BillPriority | ingest.BillCompaction}
	var d decoder
	var back ingest.Event
	rest, err := d.event(appendEvent(nil, &ev), &back)
	if err != nil || len(rest) != 0 || back != ev {
		t.Fatalf("%v %d\n%+v\n%+v", err, len(rest), back, ev)
	}
	// A queue attempt without a bill (issue 39) reads back too.
	ev.Bill, ev.QueueAttempt = 0, 32767
	if rest, err := d.event(appendEvent(nil, &ev), &back); err != nil || len(rest) != 0 || back != ev {
		t.Fatalf("%v %d\n%+v\n%+v", err, len(rest), back, ev)
	}
	// Without a bill or a queue attempt, the bytes are those spools were
	// written in before them (issues 35, 39): an old spool reads as it did.
	ev.Bill, ev.QueueAttempt = 0, 0
	enc := appendEvent(nil, &ev)
	if enc[len(enc)-3]&flagBill != 0 { // kind, by, flags, dropped, source
		t.Fatalf("an event without a bill sets the bill flag")
	}
	if rest, err := d.event(enc, &back); err != nil || len(rest) != 0 || back != ev {
		t.Fatalf("%v %d\n%+v\n%+v", err, len(rest), back, ev)
	}
}

// TestTornTailIsCut: a process killed mid-write leaves part of a record;
// the start cuts it and replays every whole batch before it, and what is
// appended next is read after them.
func TestTornTailIsCut(t *testing.T) {
	var size int64
	ev1 := sampleEvent(1)
	first := int64(len(magic) + headerBytes + 1 + len(appendEvent(nil, &ev1)))
	for cut := int64(-1); cut == -1 || cut > first; cut -= 5 {
		journal := stateDir(t)
		s, _, _ := openReplay(t, journal, Options{})
		s.Append(ingest.Batch{sampleEvent(1)})
		s.Append(ingest.Batch{sampleEvent(2), sampleEvent(3)})
		s.Close()
		seg := filepath.Join(Dir(journal), "00000001")
		if cut == -1 {
			st, _ := os.Stat(seg)
			size, cut = st.Size(), st.Size()-1
		}
		os.Truncate(seg, cut)
		s, got, w := openReplay(t, journal, Options{})
		if len(got) != 1 || got[0][0] != sampleEvent(1) || len(w) != 1 {
			t.Fatalf("cut at %d of %d: %d batches, warnings %v", cut, size, len(got), w)
		}
		s.Append(ingest.Batch{sampleEvent(4)})
		s.Close()
		s, got, w = openReplay(t, journal, Options{})
		s.Close()
		if len(got) != 2 || got[1][0] != sampleEvent(4) || len(w) != 0 {
			t.Fatalf("after the cut at %d: %d batches, warnings %v", cut, len(got), w)
		}
	}
}

// TestCorruptRecordIsSaid: a record whose CRC fails is never read as
// events, and the start says so.
func TestCorruptRecordIsSaid(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{})
	s.Append(ingest.Batch{sampleEvent(1)})
	s.Append(ingest.Batch{sampleEvent(2)})
	s.Close()
	seg := filepath.Join(Dir(journal), "00000001")
	b, _ := os.ReadFile(seg)
	b[len(b)-5] ^= 0x40 // inside the second record
	os.WriteFile(seg, b, 0o600)
	s, got, w := openReplay(t, journal, Options{})
	defer s.Close()
	if len(got) != 1 || len(w) != 1 || !strings.Contains(w[0], "CRC") || !strings.Contains(s.Status().Problem, "CRC") {
		t.Fatalf("%d batches, warnings %v, problem %q", len(got), w, s.Status().Problem)
	}
}

// TestCapRefusesLoudly: past the cap a batch is refused with ErrFull and
// counted; the status says so.
func TestCapRefusesLoudly(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{MaxBytes: 400})
	defer s.Close()
	var err error
	n := 0
	for ; n < 100 && err == nil; n++ {
		err = s.Append(ingest.Batch{sampleEvent(n)})
	}
	st := s.Status()
	if err == nil || !strings.Contains(err.Error(), "full") || st.Refused != 1 || !strings.Contains(st.Problem, "not spooled") || st.Bytes > 400 {
		t.Fatalf("after %d appends: %v, %+v", n, err, st)
	}
}

// TestRetain: a segment goes once all its events are older than the
// horizon given; the head stays.
func TestRetain(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{SegmentBytes: 300})
	defer s.Close()
	for i := range 10 {
		s.Append(ingest.Batch{sampleEvent(i)})
	}
	before := s.Status().Segments
	if before < 5 {
		t.Fatalf("%d segments", before)
	}
	if n := s.Retain(sampleEvent(4).TS); n < 2 || s.Status().Segments != before-n {
		t.Fatalf("removed %d of %d", n, before)
	}
	s.Retain(1 << 62)
	if s.Status().Segments != 1 {
		t.Fatalf("the head went: %d", s.Status().Segments)
	}
}

// TestRefusedStateDirectories: a spool another user could write (its
// directory or the state directory world-writable), a segment with two
// names, and a spool whose lock this process does not hold are refused.
func TestRefusedStateDirectories(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "journal.jsonl"), Options{}); err == nil || !strings.Contains(err.Error(), "not held") {
		t.Fatalf("no lock: %v", err)
	}
	journal := stateDir(t)
	os.Chmod(filepath.Dir(journal), 0o777)
	if _, err := Open(journal, Options{}); err == nil || !strings.Contains(err.Error(), "writable by every user") {
		t.Fatalf("world-writable: %v", err)
	}
	os.Chmod(filepath.Dir(journal), 0o700)
	s, _, _ := openReplay(t, journal, Options{})
	s.Append(ingest.Batch{sampleEvent(1)})
	s.Close()
	os.Link(filepath.Join(Dir(journal), "00000001"), filepath.Join(filepath.Dir(journal), "other"))
	if _, err := Open(journal, Options{}); err == nil || !strings.Contains(err.Error(), "hard links") {
		t.Fatalf("linked: %v", err)
	}
	os.Remove(filepath.Join(filepath.Dir(journal), "other"))
	tmp := filepath.Join(filepath.Dir(journal), ".journal-123.tmp")
	os.WriteFile(tmp, []byte("x"), 0o600)
	other := filepath.Join(filepath.Dir(journal), ".an-editor's.tmp")
	os.WriteFile(other, []byte("x"), 0o600)
	if s, err := Open(journal, Options{}); err != nil {
		t.Fatal(err)
	} else {
		s.Close()
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Fatal("a leftover temporary file was not removed at start")
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatal("another program's temporary file was removed")
	}
}

// FuzzReplay: whatever bytes a segment holds, a replay neither panics
// nor hangs nor hands on an event ingest would refuse.
func FuzzReplay(f *testing.F) {
	rec := func(flags byte, evs ...ingest.Event) []byte {
		p := []byte{flags}
		for i := range evs {
			p = appendEvent(p, &evs[i])
		}
		h := binary.LittleEndian.AppendUint32(nil, uint32(len(p)))
		h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(p, castagnoli))
		return append(h, p...)
	}
	f.Add(append(append([]byte{}, magic...), rec(0, sampleEvent(1))...))
	f.Add(append(append(append([]byte{}, magic...), rec(1, sampleEvent(1))...), rec(0, sampleEvent(2))...))
	f.Add(append(append([]byte{}, magic...), 0xff, 0xff, 0xff, 0xff))
	f.Add([]byte("burnrate-spool 1\n\xff\xff\xff\xff")) // an older format's: moved aside
	f.Fuzz(func(t *testing.T, data []byte) {
		journal := stateDir(t)
		if err := os.Mkdir(Dir(journal), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(Dir(journal), "00000001"), data, 0o600)
		s, err := Open(journal, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.Replay(context.Background(), func(b ingest.Batch) {
			for i := range b {
				if b[i].Check() != ingest.Accepted {
					t.Fatalf("an event ingest refuses: %+v", b[i])
				}
			}
		})
		st, err := os.Stat(filepath.Join(Dir(journal), "00000001"))
		if err != nil { // not a segment: moved aside whole
			st, err = os.Stat(filepath.Join(Dir(journal), "00000001.not-a-segment"))
			if err != nil || st.Size() != int64(len(data)) {
				t.Fatalf("the file is neither a segment nor kept aside whole: %v", err)
			}
		}
		if st.Size() > int64(len(data)) || !bytes.HasPrefix(data, make([]byte, 0)) {
			t.Fatal("the segment grew")
		}
	})
}

// TestAnImplausibleEventIsNotHandedOn: a whole record (its CRC matches)
// holding an event ingest refuses — a clock in 2300 — is not replayed,
// and said; the events beside it are.
func TestAnImplausibleEventIsNotHandedOn(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{})
	bad := sampleEvent(2)
	bad.TS = ingest.MaxTS + 1
	s.Append(ingest.Batch{sampleEvent(1), bad, sampleEvent(3)})
	s.Close()
	s, got, w := openReplay(t, journal, Options{})
	defer s.Close()
	if len(got) != 1 || len(got[0]) != 2 || got[0][1] != sampleEvent(3) || len(w) != 1 || !strings.Contains(w[0], "refuses") {
		t.Fatalf("%v, warnings %v", got, w)
	}
}

// TestWritesAgainAfterAFullDisk: the red team filled the disk — one
// ENOSPC at a new segment left the spool without one for the rest of the
// process, so nothing after it was spooled even once space was back, and
// the restart replayed none of it. A segment that cannot be made is tried
// again (at most once a second), and what comes after is spooled.
func TestWritesAgainAfterAFullDisk(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{SegmentBytes: 64})
	if err := s.Append(ingest.Batch{sampleEvent(1)}); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	openSegment = func(string) (*os.File, error) { return nil, full }
	if err := s.Append(ingest.Batch{sampleEvent(2)}); err == nil {
		t.Fatal("a segment was made on a full disk")
	}
	if err := s.Append(ingest.Batch{sampleEvent(3)}); err == nil {
		t.Fatal("a segment was made on a full disk")
	}
	openSegment = func(p string) (*os.File, error) {
		return os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	t.Cleanup(func() {
		openSegment = func(p string) (*os.File, error) {
			return os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
		}
	})
	s.mu.Lock()
	s.lastCut = time.Time{} // a second has passed
	s.mu.Unlock()
	if err := s.Append(ingest.Batch{sampleEvent(4)}); err != nil {
		t.Fatalf("space is back, and the spool still refuses: %v", err)
	}
	if err := s.Append(ingest.Batch{sampleEvent(5)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, got, _ := openReplay(t, journal, Options{SegmentBytes: 64})
	defer s2.Close()
	var ids []int64
	for _, b := range got {
		for _, ev := range b {
			ids = append(ids, ev.InputTokens-10000)
		}
	}
	if !reflect.DeepEqual(ids, []int64{1, 4, 5}) {
		t.Fatalf("replayed events %v, want 1, 4, 5 (2 and 3 refused on the full disk, said)", ids)
	}
}

// TestOnlyEightDigitNamesAreSegments: "+0000001" is no segment (Atoi took
// it for segment 1, and the copy was replayed twice); a file with a
// segment's name and no header is moved aside, not truncated.
func TestOnlyEightDigitNamesAreSegments(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{})
	s.Append(ingest.Batch{sampleEvent(1)})
	s.Close()
	dir := Dir(journal)
	b, err := os.ReadFile(filepath.Join(dir, "00000001"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "+0000001"), b, 0o600)
	os.WriteFile(filepath.Join(dir, "00000009"), []byte("someone else's file"), 0o600)
	s2, got, w := openReplay(t, journal, Options{})
	defer s2.Close()
	if len(got) != 1 {
		t.Errorf("replayed %d batches, want 1: a file named +0000001 was read as a segment", len(got))
	}
	if len(w) != 1 || !strings.Contains(w[0], "not a burnrate spool segment") {
		t.Errorf("warnings %q", w)
	}
	if kept, err := os.ReadFile(filepath.Join(dir, "00000009.not-a-segment")); err != nil || string(kept) != "someone else's file" {
		t.Errorf("the foreign file was not kept aside whole: %q, %v", kept, err)
	}
}

// TestABatchOverTheCapFitsAnEmptySpool: issue 34 — a batch larger than
// the cap was refused even by an empty spool, so a restart lost it though
// nothing else was kept. An empty spool takes it whole (a batch replays
// whole or not at all); the next batch is refused, loudly, and the one
// taken comes back at the next start.
func TestABatchOverTheCapFitsAnEmptySpool(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{MaxBytes: 400})
	big := make(ingest.Batch, 40)
	for i := range big {
		big[i] = sampleEvent(i)
	}
	if err := s.Append(big); err != nil {
		t.Fatalf("a batch over the cap into an empty spool: %v", err)
	}
	err := s.Append(ingest.Batch{sampleEvent(41)})
	if st := s.Status(); !errors.Is(err, ErrFull) || st.Refused != 1 {
		t.Fatalf("the next batch: %v, %+v (want it refused as full)", err, st)
	}
	s.Close()
	s2, got, _ := openReplay(t, journal, Options{MaxBytes: 400})
	defer s2.Close()
	if len(got) != 1 || !reflect.DeepEqual(got[0], big) {
		t.Fatalf("replayed %d batches, want the one batch taken whole", len(got))
	}
	// Not empty now: a second start refuses the next batch too.
	if err := s2.Append(big); !errors.Is(err, ErrFull) {
		t.Fatalf("a spool holding a batch took another over the cap: %v", err)
	}
}

// TestTheSpoolLeavesTheJournalItsRoom (red team R7-4): on a nearly full
// disk the spool took the last megabyte and the journal beside it could
// not record a kill, so every kill was held. With KeepFree the spool
// refuses (counted, as past the cap) every batch that would leave less
// free, and writes again once space is back. The disk is played by a
// fake statfs.
func TestTheSpoolLeavesTheJournalItsRoom(t *testing.T) {
	journal := stateDir(t)
	free := int64(10 << 20)
	real := statfs
	statfs = func(path string, st *syscall.Statfs_t) error {
		if err := real(path, st); err != nil {
			return err
		}
		st.Bsize, st.Bavail = 1, uint64(max(free, 0))
		return nil
	}
	t.Cleanup(func() { statfs = real })
	const keep = 1 << 20
	s, _, _ := openReplay(t, journal, Options{KeepFree: keep})
	defer s.Close()
	batch := ingest.Batch{sampleEvent(1), sampleEvent(2)}
	if err := s.Append(batch); err != nil {
		t.Fatalf("10 MiB free: %v", err)
	}
	free = keep + 10 // a batch would eat into the journal's room
	err := s.Append(batch)
	if !errors.Is(err, ErrKeepFree) || !errors.Is(err, ErrFull) {
		t.Fatalf("%d bytes free, %d kept: %v, want ErrKeepFree", free, keep, err)
	}
	if st := s.Status(); st.Refused != 2 || !strings.Contains(st.Problem, "the journal") {
		t.Errorf("status %+v: the refused batch is not counted and said", st)
	}
	free = 5 << 20
	if err := s.Append(batch); err != nil {
		t.Errorf("space back: %v", err)
	}
	// No floor: as before.
	s2, err := Open(stateDir(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	s2.Replay(context.Background(), func(ingest.Batch) {})
	free = 0
	if err := s2.Append(batch); err != nil {
		t.Errorf("KeepFree 0 refused a batch: %v", err)
	}
}

// TestACorruptRecordCostsItselfOnly: red team R8-8 — one record whose CRC
// failed cut the rest of its segment: every later, intact event was lost
// (a flipped byte at 200 of 2,719: 0 of 40 replayed). The record alone is
// skipped, said, and the segment read on.
func TestACorruptRecordCostsItselfOnly(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{})
	for i := range 40 {
		s.Append(ingest.Batch{sampleEvent(i)})
	}
	s.Close()
	seg := filepath.Join(Dir(journal), "00000001")
	b, _ := os.ReadFile(seg)
	size := len(b)
	b[len(magic)+headerBytes+3] ^= 0x40 // inside the first record's payload
	os.WriteFile(seg, b, 0o600)
	s, got, w := openReplay(t, journal, Options{})
	n := 0
	for _, bt := range got {
		n += len(bt)
	}
	if n != 39 || len(w) != 1 || !strings.Contains(w[0], "CRC") || !strings.Contains(s.Status().Problem, "CRC") {
		t.Fatalf("%d events replayed of 39 intact, warnings %v, problem %q", n, w, s.Status().Problem)
	}
	s.Close()
	if after, _ := os.ReadFile(seg); len(after) != size {
		t.Errorf("the segment was cut from %d to %d bytes: its intact records are lost to the next start", size, len(after))
	}
}

// TestANewerFormatIsLeftInPlace: red team R8-15 — a segment of a newer
// spool format (a rollback after an upgrade) was called "not a burnrate
// spool segment" and renamed away: lost even to the newer build. It is
// named as another burnrate's, not replayed, and left where it is.
func TestANewerFormatIsLeftInPlace(t *testing.T) {
	journal := stateDir(t)
	s, _, _ := openReplay(t, journal, Options{})
	s.Append(ingest.Batch{sampleEvent(1)})
	s.Close()
	seg := filepath.Join(Dir(journal), "00000001")
	b, _ := os.ReadFile(seg)
	newer := append([]byte("burnrate-spool 3\n"), b[len(magic):]...)
	os.WriteFile(seg, newer, 0o600)
	s, got, w := openReplay(t, journal, Options{})
	s.Append(ingest.Batch{sampleEvent(2)})
	s.Close()
	if len(got) != 0 || len(w) != 1 || !strings.Contains(w[0], "another burnrate") || !strings.Contains(w[0], "burnrate-spool 3") {
		t.Fatalf("%d batches, warnings %q", len(got), w)
	}
	if kept, err := os.ReadFile(seg); err != nil || string(kept) != string(newer) {
		t.Errorf("the newer segment was not left whole in place: %v", err)
	}
	// Nor is it retention's: its unread times are not old (R8b-7).
	s, _, _ = openReplay(t, journal, Options{})
	s.Retain(1 << 62)
	s.Close()
	if kept, err := os.ReadFile(seg); err != nil || string(kept) != string(newer) {
		t.Errorf("retention removed the newer segment: %v", err)
	}
}
