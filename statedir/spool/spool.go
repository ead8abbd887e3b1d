// Package spool is the event spool: a segmented write-ahead log, in the
// state directory beside the journal, of every event from an input that
// cannot be read again (OTLP over gRPC or HTTP, stdin, files followed from
// their end). An event is appended before it is applied, and a start
// replays the spool through the engine before going on live, so a
// restart at any point rebuilds the state an uninterrupted run would have:
// correlate's state is a function of its events, and the spool keeps the
// events, not the state.
//
// The layout follows Prometheus's tsdb/wlog: numbered segment files
// (00000001, 00000002, …) of at most SegmentBytes, each record framed by
// its length and a CRC-32C, a new segment at every start, a torn tail cut
// at start. A record is one batch as the engine received it (a batch
// larger than a record continues in the next), so a replay applies the
// same batches, in the same order, as the live run did.
//
// Durability: each batch is written with one write(2) before it is
// handed on, so a process killed (SIGKILL included) loses nothing the
// kernel took; the segment is fsynced at most SyncEvery after a write, at
// every cut and at Close, so a power loss loses at most SyncEvery.
package spool

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/statedir/flock"
)

// Defaults.
const (
	// SegmentBytes is the size past which a segment is cut.
	SegmentBytes = 16 << 20
	// DefaultMaxBytes caps the spool (see Options.MaxBytes).
	DefaultMaxBytes = 2 << 30
	// SyncEvery bounds how long a written batch waits for its fsync.
	SyncEvery = time.Second
	// recordBytes is where a batch's record is cut (the rest continues
	// in the next record); maxRecord bounds one record read back.
	recordBytes = 1 << 20
	maxRecord   = 8 << 20
	headerBytes = 8 // length, CRC-32C
)

// magic begins every segment: the format and its version.
var magic = []byte("burnrate-spool 2\n")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrFull refuses a batch the cap has no room for.
var ErrFull = errors.New("the spool is full")

// Options configure a spool.
type Options struct {
	// MaxBytes caps the segments' bytes in all (0: DefaultMaxBytes).
	// Past it a batch is refused (ErrFull, counted in Status.Refused):
	// it is still applied live, but a restart would not have it, and
	// Status.Problem says so.
	MaxBytes int64
	// SegmentBytes overrides SegmentBytes (tests).
	SegmentBytes int64
	// KeepFree is the free space on the spool's file system that the
	// spool never writes into: the journal beside it needs room for its
	// kill records and the reserve it keeps for their outcomes
	// (alerts.JournalNeedsFree), and a kill the journal cannot record is
	// held. While less than KeepFree would be left, a batch is refused as
	// past the cap is (ErrFull, counted in Status.Refused), and spooled
	// again once space is back (red team R7-4: the spool took the last
	// megabyte of a nearly full disk and every kill was held). 0: no
	// floor.
	KeepFree int64
}

// statfs is the file-system query Append makes for KeepFree; tests
// replace it to play a disk of any size.
var statfs = syscall.Statfs

// ErrKeepFree refuses a batch that would leave less than Options.KeepFree
// free on the spool's file system; it wraps ErrFull.
var ErrKeepFree = fmt.Errorf("%w: its file system is nearly full, and the room left is the journal's", ErrFull)

// segment is one file of the spool and what a retention needs of it.
type segment struct {
	n      int
	bytes  int64
	events int64
	maxTS  int64
	// foreign: a segment of another spool format, left in place.
	foreign bool
}

// Spool is an open event spool. Replay, then Append; Close at the end.
type Spool struct {
	dir string
	opt Options

	mu       sync.Mutex
	segs     []segment // oldest first; the last is the head being written
	head     *os.File
	dirty    bool
	replayed bool
	total    int64
	refused  int64
	corrupt  []string
	// implausible counts events read back whole that ingest refuses
	// (never handed on).
	implausible int64
	failures    int64
	lastErr     string
	// lowSpace is set while batches are refused for Options.KeepFree.
	lowSpace bool
	// lastCut is when a failed cut was last tried again (a full disk):
	// at most once a second, so a write per batch does not hammer it.
	lastCut time.Time
	buf     []byte
	stop    chan struct{}
	stopped chan struct{}
}

// Status is what the dashboard header, /metrics and stderr say of a spool.
type Status struct {
	Dir      string
	Bytes    int64
	Segments int
	// Refused counts events not spooled (the cap, a failed write): applied
	// live, they are not in the state a restart rebuilds.
	Refused int64
	// Problem is "" while every batch is spooled, else what went wrong.
	Problem string
}

// Dir is the spool directory of a journal: "journal.jsonl" →
// "journal.spool" beside it.
func Dir(journal string) string {
	base := filepath.Base(journal)
	return filepath.Join(filepath.Dir(journal), strings.TrimSuffix(base, filepath.Ext(base))+".spool")
}

// Open opens (creating it) the spool of journal. The caller must hold the
// state directory's lock — the journal's, journal+".lock", taken by
// alerts.OpenJournal — and Open checks that it does: two processes on one
// spool would each replay the other's events. The directory and every
// segment are refused when another user owns them, every user may write
// them, a segment has another name (a hard link) or is not a regular
// file; temporary files a killed process left behind are removed.
func Open(journal string, opt Options) (*Spool, error) {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.SegmentBytes <= 0 {
		opt.SegmentBytes = SegmentBytes
	}
	if err := heldByUs(journal + ".lock"); err != nil {
		return nil, err
	}
	state := filepath.Dir(journal)
	if err := checkDir(state, "the state directory"); err != nil {
		return nil, err
	}
	dir := Dir(journal)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("spool %s: %w", dir, err)
	}
	if err := checkDir(dir, "the spool"); err != nil {
		return nil, err
	}
	removeTemporaries(journal)
	s := &Spool{dir: dir, opt: opt}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("spool %s: %w", dir, err)
	}
	for _, e := range ents {
		n, ok := segmentNumber(e.Name())
		if !ok {
			continue // not ours: left alone
		}
		st, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("spool %s: %w", dir, err)
		}
		if err := checkFile(filepath.Join(dir, e.Name()), st); err != nil {
			return nil, err
		}
		s.segs = append(s.segs, segment{n: n, bytes: st.Size()})
		s.total += st.Size()
	}
	slices.SortFunc(s.segs, func(a, b segment) int { return a.n - b.n })
	return s, nil
}

// heldByUs checks that this process holds the flock on path: a lock taken
// through another descriptor is refused, and the refusal names this PID.
func heldByUs(path string) error {
	f, err := flock.Lock(path)
	var held *flock.HeldError
	switch {
	case err == nil:
		flock.Unlock(f) // the file stays: removing a lock file races its next taker
		return fmt.Errorf("spool: the state directory's lock %s is not held by this process: open the journal first", path)
	case errors.As(err, &held) && held.Holder == "burnrate PID "+strconv.Itoa(os.Getpid()):
		return nil
	case errors.As(err, &held):
		return fmt.Errorf("spool: the state directory's lock %s is held by %s: two processes on one spool would each replay the other's events", path, held.Holder)
	}
	return fmt.Errorf("spool: the state directory's lock %s: %w", path, err)
}

// checkDir refuses a directory another user owns, or any user may write:
// its owner, or anyone, could put events in the spool — a forged $99 call
// that kills an innocent job at the next start.
func checkDir(dir, what string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s is not a directory (a symbolic link or a file): give the journal a directory of its own", what, dir)
	}
	if st.Mode().Perm()&0o002 != 0 {
		return fmt.Errorf("%s %s is writable by every user (mode %04o): anyone could put events in the spool and so cause or block a kill; chmod o-w it, or give --journal a directory of its own", what, dir, st.Mode().Perm())
	}
	if err := owned(dir, st, what); err != nil {
		return err
	}
	return nil
}

func owned(path string, st os.FileInfo, what string) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("%s %s is owned by user %d, not this user (%d): its owner could put events in it and so cause or block a kill; give --journal a directory of this user's own", what, path, sys.Uid, os.Geteuid())
	}
	return nil
}

// checkFile refuses a segment that is not a regular file of this user's
// with one name that only its owner may write.
func checkFile(path string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("spool segment %s is not a regular file: remove it", path)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("spool segment %s may be written by other users (mode %04o): anyone could put events in it; chmod go-w it", path, st.Mode().Perm())
	}
	if err := owned(path, st, "spool segment"); err != nil {
		return err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Nlink > 1 {
		return fmt.Errorf("spool segment %s has %d names (hard links): another path could change it under this process; remove the other names", path, sys.Nlink)
	}
	return nil
}

// removeTemporaries removes what a burnrate killed mid-write left beside
// journal: this user's regular files of the journal's compaction
// (.journal-*.tmp) and of the carry this spool replaced (its temporaries,
// its file and its lock). Other programs' files are never touched (the
// journal's directory may be shared). The state directory's lock is held,
// so no other burnrate is writing one.
func removeTemporaries(journal string) {
	dir := filepath.Dir(journal)
	carry := strings.TrimSuffix(filepath.Base(journal), filepath.Ext(journal)) + ".carry.jsonl"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		ours := strings.HasPrefix(name, ".journal-") && strings.HasSuffix(name, ".tmp") ||
			strings.HasPrefix(name, "."+carry+".") && strings.HasSuffix(name, ".tmp") ||
			name == carry || name == carry+".lock"
		if !ours {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && owned(p, st, "") == nil {
			os.Remove(p)
		}
	}
}

func (s *Spool) segPath(n int) string { return filepath.Join(s.dir, fmt.Sprintf("%08d", n)) }

// Replay hands every spooled batch to apply, oldest first, and then opens
// a new segment for Append. A torn tail (the process stopped mid-write) is
// cut off its segment; a record that fails its CRC in the middle of a
// segment (a disk's fault, or a hand) ends that segment's replay and is
// said in Status.Problem and the returned warnings, never read as events.
//
// A ctx that ends stops the replay where it is (a stop asked for during
// a long replay): nothing is cut and no segment is opened, and the error
// is ctx's.
func (s *Spool) Replay(ctx context.Context, apply func(ingest.Batch)) (warnings []string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replayed {
		return nil, errors.New("spool: replayed twice")
	}
	s.replayed = true
	var dec decoder
	var batch ingest.Batch
	for i := range s.segs {
		sg := &s.segs[i]
		good, w, err := s.replaySegment(ctx, sg, &dec, &batch, apply)
		if err != nil {
			return warnings, err
		}
		if w != "" {
			warnings = append(warnings, w)
			s.corrupt = append(s.corrupt, w)
			if good == 0 && sg.bytes > 0 {
				// Not a segment at all (no header): not ours to
				// destroy. Moved aside under a name the spool does not
				// read, kept for whoever looks.
				if err := os.Rename(s.segPath(sg.n), s.segPath(sg.n)+".not-a-segment"); err == nil {
					s.total -= sg.bytes
					sg.bytes = 0
				}
			} else if good < sg.bytes {
				// Cut what cannot be read, so it is not read again and
				// new segments follow a clean one.
				if err := os.Truncate(s.segPath(sg.n), good); err == nil {
					s.total -= sg.bytes - good
					sg.bytes = good
				}
			}
		}
	}
	if s.implausible > 0 {
		w := fmt.Sprintf("spool %s: %d event(s) read back whole that ingest refuses (out of range or implausible): not replayed", s.dir, s.implausible)
		warnings = append(warnings, w)
		s.corrupt = append(s.corrupt, w)
	}
	// A batch whose last record never came was never handed on: the
	// process stopped while writing it.
	batch = nil
	next := 1
	if len(s.segs) > 0 {
		next = s.segs[len(s.segs)-1].n + 1
	}
	// Another format's segments are left where they are, for the build
	// that wrote them: not this spool's to count, to cap or to retain —
	// retention took their unread times for old and removed them a
	// minute later (red team R8b-7).
	kept := s.segs[:0]
	for _, sg := range s.segs {
		if sg.foreign {
			s.total -= sg.bytes
			continue
		}
		kept = append(kept, sg)
	}
	s.segs = kept
	if err := s.cut(next); err != nil {
		return warnings, err
	}
	s.stop, s.stopped = make(chan struct{}), make(chan struct{})
	go s.syncer()
	return warnings, nil
}

// replaySegment reads one segment; good is the offset after its last
// whole batch.
func (s *Spool) replaySegment(ctx context.Context, sg *segment, dec *decoder, batch *ingest.Batch, apply func(ingest.Batch)) (good int64, warning string, err error) {
	path := s.segPath(sg.n)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, "", fmt.Errorf("spool segment %s: %w", path, err)
	}
	defer f.Close()
	// A segment is at most SegmentBytes and one batch past it: what lies
	// beyond maxSegment was never written by this spool, and is not read.
	maxSegment := max(s.opt.SegmentBytes, SegmentBytes) + 4*maxRecord
	data, err := io.ReadAll(io.LimitReader(f, min(sg.bytes, maxSegment)))
	if err != nil {
		return 0, "", fmt.Errorf("spool segment %s: %w", path, err)
	}
	if len(data) < len(magic) || string(data[:len(magic)]) != string(magic) {
		if len(data) < len(magic) && string(data) == string(magic[:len(data)]) {
			return 0, "", nil // created, then stopped before its header
		}
		if i := bytes.IndexByte(data, '\n'); i > 0 && i < 64 && bytes.HasPrefix(data, magic[:len(magic)-2]) {
			// Another format of ours (a rollback after an upgrade that
			// changed the spool): not this build's to read or to move
			// aside — the build that wrote it reads it (red team R8-15:
			// renamed away, the night's spooled events were lost for
			// good, even to the newer build).
			sg.foreign = true
			return sg.bytes, fmt.Sprintf("spool segment %s was written by another burnrate (%s; this build reads %s): not replayed, left in place for it — this run's totals leave its events out",
				path, display.Text(string(data[:i])), strings.TrimSpace(string(magic))), nil
		}
		return 0, fmt.Sprintf("spool segment %s is not a burnrate spool segment: not replayed", path), nil
	}
	off := int64(len(magic))
	good = off
	rest := data[len(magic):]
	skipped, skippedAt := 0, int64(-1)
	defer func() {
		if skipped > 0 && warning == "" && err == nil {
			warning = fmt.Sprintf("spool segment %s has %d record(s) whose CRC does not match, the first at byte %d: their events are not replayed, the rest of the segment is", path, skipped, skippedAt)
		} else if skipped > 0 && err == nil {
			warning += fmt.Sprintf("; before that, %d record(s) whose CRC does not match were skipped, the first at byte %d", skipped, skippedAt)
		}
	}()
	for len(rest) > 0 {
		if err := ctx.Err(); err != nil {
			return 0, "", err
		}
		if len(rest) < headerBytes {
			return good, fmt.Sprintf("spool segment %s ends in a torn record at byte %d (the process stopped while writing it): cut there", path, off), nil
		}
		n := binary.LittleEndian.Uint32(rest)
		sum := binary.LittleEndian.Uint32(rest[4:])
		if n == 0 || n > maxRecord || int64(n) > int64(len(rest)-headerBytes) {
			return good, fmt.Sprintf("spool segment %s ends in a torn or corrupt record at byte %d: cut there", path, off), nil
		}
		payload := rest[headerBytes : headerBytes+int(n)]
		if crc32.Checksum(payload, castagnoli) != sum {
			// Its length read and fits: the record alone is skipped and
			// the segment read on — one bad sector cost every later event
			// before (red team R8-8). The events of its batch before and
			// after it are kept: each stands alone. A wrong length reads
			// on into records whose CRC cannot match, and the segment is
			// cut at the torn end as before.
			skipped++
			if skippedAt < 0 {
				skippedAt = off
			}
			rest = rest[headerBytes+int(n):]
			off += int64(headerBytes) + int64(n)
			continue
		}
		flags, body := payload[0], payload[1:]
		for len(body) > 0 {
			var ev ingest.Event
			if body, err = dec.event(body, &ev); err == errImplausible {
				// Whole, but an event ingest refuses: not handed on.
				s.implausible++
				continue
			} else if err != nil {
				return good, fmt.Sprintf("spool segment %s has a record at byte %d that is not events (its CRC matches: written by something other than burnrate): the segment is cut there", path, off), nil
			}
			*batch = append(*batch, ev)
			sg.events++
			if ev.TS > sg.maxTS {
				sg.maxTS = ev.TS
			}
		}
		rest = rest[headerBytes+int(n):]
		off += int64(headerBytes) + int64(n)
		if flags&1 == 0 {
			if len(*batch) > 0 {
				apply(*batch)
			}
			*batch = nil
			good = off
		}
	}
	if int64(len(data)) < sg.bytes {
		*batch = nil
		return good, fmt.Sprintf("spool segment %s is %d bytes, more than this spool ever writes: read to byte %d, cut there", path, sg.bytes, good), nil
	}
	if len(*batch) > 0 {
		// A batch never spans segments: its last record never came.
		*batch = nil
		return good, fmt.Sprintf("spool segment %s ends in a torn batch at byte %d (the process stopped while writing it): cut there", path, good), nil
	}
	return good, "", nil
}

// segmentNumber reads a segment's name: exactly eight digits, above 0
// (strconv.Atoi alone took "+0000001" for segment 1, so a copy named so
// was replayed twice).
func segmentNumber(name string) (int, bool) {
	if len(name) != 8 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(name) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	return n, n > 0
}

// openSegment creates a segment file; tests make it fail as a full disk
// does.
var openSegment = func(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
}

// cut closes the head segment (synced) and starts segment n.
func (s *Spool) cut(n int) error {
	if s.head != nil {
		s.head.Sync()
		s.head.Close()
		s.head = nil
	}
	f, err := openSegment(s.segPath(n))
	if err != nil {
		return fmt.Errorf("spool: a new segment: %w", err)
	}
	if _, err := f.Write(magic); err != nil {
		// Not left half-made: the next try creates it again (O_EXCL).
		f.Close()
		os.Remove(s.segPath(n))
		return fmt.Errorf("spool: a new segment: %w", err)
	}
	f.Sync()
	if d, err := os.Open(s.dir); err == nil {
		d.Sync() // the new name is durable too
		d.Close()
	}
	s.head = f
	s.segs = append(s.segs, segment{n: n, bytes: int64(len(magic))})
	s.total += int64(len(magic))
	return nil
}

// Append writes a batch before it is applied: one write(2) of its
// records. A batch the cap has no room for is refused with ErrFull; a
// write that fails returns its error. Either is counted in Status and
// said in Status.Problem: the caller applies the batch all the same (it
// is never dropped), but a restart will not have it.
func (s *Spool) Append(b ingest.Batch) error {
	if len(b) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head == nil {
		// Replay opens the head; a cut that failed (a full disk) left
		// none. It is tried again, at most once a second, so the spool
		// writes again once space is back (the red team's full disk:
		// one ENOSPC turned it off for the rest of the process).
		if s.stop == nil || time.Since(s.lastCut) < time.Second {
			return s.fail(records(b), errors.New("no segment open to write to (a new one could not be made; see the error before)"))
		}
		s.lastCut = time.Now()
		next := 1
		if len(s.segs) > 0 {
			next = s.segs[len(s.segs)-1].n + 1
		}
		if err := s.cut(next); err != nil {
			return s.fail(records(b), err)
		}
		fmt.Fprintf(os.Stderr, "burnrate: the spool %s writes again (segment %08d): the %d event(s) refused before are not in it — a restart will not have them\n", display.Text(s.dir), next, s.refused)
	}
	buf := s.buf[:0]
	start := 0
	var maxTS int64
	for i := range b {
		if len(buf)-start == 0 {
			buf = append(buf, make([]byte, headerBytes+1)...)
		}
		buf = appendEvent(buf, &b[i])
		maxTS = max(maxTS, b[i].TS)
		if len(buf)-start >= recordBytes || i == len(b)-1 {
			payload := buf[start+headerBytes:]
			if len(payload) > maxRecord {
				return s.fail(records(b), errors.New("an event too large for a spool record"))
			}
			if i < len(b)-1 {
				payload[0] = 1 // the batch continues in the next record
			}
			binary.LittleEndian.PutUint32(buf[start:], uint32(len(payload)))
			binary.LittleEndian.PutUint32(buf[start+4:], crc32.Checksum(payload, castagnoli))
			start = len(buf)
		}
	}
	s.buf = buf
	if s.opt.KeepFree > 0 {
		// One statfs per batch (a microsecond): the disk is shared, and
		// what another writer took since the last batch counts too. A
		// file system that cannot say is not held to the floor.
		var st syscall.Statfs_t
		if err := statfs(s.dir, &st); err == nil {
			if free := int64(st.Bavail) * int64(st.Bsize); free-int64(len(buf)) < s.opt.KeepFree {
				s.lowSpace = true
				return s.fail(records(b), fmt.Errorf("%w: %d bytes free on the file system of %s, and the spool leaves the last %d to the journal, so that a kill can always be recorded and fired", ErrKeepFree, max(free, 0), s.dir, s.opt.KeepFree))
			}
		}
		if s.lowSpace {
			s.lowSpace = false
			fmt.Fprintf(os.Stderr, "burnrate: the spool %s writes again: its file system has room beyond the journal's; the %d event(s) refused before are not in it — a restart will not have them\n", display.Text(s.dir), s.refused)
		}
	}
	if s.total+int64(len(buf)) > s.opt.MaxBytes {
		if !s.empty() {
			return s.fail(records(b), fmt.Errorf("%w: %d bytes in %s, the cap is %d (--spool-max-bytes)", ErrFull, s.total, s.dir, s.opt.MaxBytes))
		}
		// One batch larger than the cap, into a spool that holds no
		// event: taken whole (a batch is replayed whole or not at all, so
		// it is not split across the cap). Refusing it bounded nothing —
		// the spool was empty — and left a restart without it (issue 34).
		// The cap is passed by less than this one batch; the next is
		// refused until a retention frees room.
		fmt.Fprintf(os.Stderr, "burnrate: the spool %s took one batch of %d bytes, over its cap of %d (--spool-max-bytes), because it held nothing else; the next batch is refused until old segments go\n",
			display.Text(s.dir), len(buf), s.opt.MaxBytes)
	}
	head := &s.segs[len(s.segs)-1]
	if head.bytes > int64(len(magic)) && head.bytes+int64(len(buf)) > s.opt.SegmentBytes {
		if err := s.cut(head.n + 1); err != nil {
			return s.fail(records(b), err)
		}
		head = &s.segs[len(s.segs)-1]
	}
	if _, err := s.head.Write(buf); err != nil {
		// A short write leaves a torn record the next start cuts; what
		// follows goes to a new segment, so it is not behind the tear.
		s.head.Close()
		s.head = nil
		if cerr := s.cut(head.n + 1); cerr != nil {
			s.head, s.lastCut = nil, time.Now()
		}
		return s.fail(records(b), err)
	}
	head.bytes += int64(len(buf))
	head.events += int64(len(b))
	head.maxTS = max(head.maxTS, maxTS)
	s.total += int64(len(buf))
	s.dirty = true
	return nil
}

// empty reports whether no segment holds an event.
func (s *Spool) empty() bool {
	for _, g := range s.segs {
		if g.events > 0 {
			return false
		}
	}
	return true
}

func (s *Spool) fail(events int, err error) error {
	s.refused += int64(events)
	s.failures++
	s.lastErr = err.Error()
	if s.failures == 1 || s.failures%100 == 0 {
		// Loud, but not a line per batch on a full disk: the header and
		// /metrics count every one.
		fmt.Fprintf(os.Stderr, "burnrate: error: %d event(s) not spooled in all (%d batch(es)): %s; they are applied, but a restart will not have them — free space, raise --spool-max-bytes, or give the runs an end (run_id, --run-window) so old segments go\n",
			s.refused, s.failures, display.Text(err.Error()))
	}
	return err
}

// syncer fsyncs the head segment at most SyncEvery after a write.
func (s *Spool) syncer() {
	defer close(s.stopped)
	t := time.NewTicker(SyncEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			if s.dirty && s.head != nil {
				s.head.Sync()
				s.dirty = false
			}
			s.mu.Unlock()
		}
	}
}

// Retain removes the oldest segments whose every event is older (log
// time) than keepFrom: the caller passes the first event of its oldest
// open run less the resend horizon, so a segment goes once every run in
// it is closed and a re-sent copy of its events could no longer be told
// from a new one. The head is never removed. It returns the segments
// removed.
func (s *Spool) Retain(keepFrom int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := 0
	for len(s.segs) > 1 && s.segs[0].maxTS < keepFrom {
		if err := os.Remove(s.segPath(s.segs[0].n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			break
		}
		s.total -= s.segs[0].bytes
		s.segs = s.segs[1:]
		removed++
	}
	return removed
}

// Status says how the spool stands.
func (s *Spool) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Dir: s.dir, Bytes: s.total, Segments: len(s.segs), Refused: s.refused}
	switch {
	case s.refused > 0:
		st.Problem = fmt.Sprintf("%d event(s) not spooled (%s): applied, but a restart will not have them", s.refused, s.lastErr)
	case len(s.corrupt) > 0:
		st.Problem = s.corrupt[len(s.corrupt)-1]
	}
	return st
}

// Close syncs and closes the head segment.
func (s *Spool) Close() error {
	if s == nil {
		return nil
	}
	if s.stop != nil {
		close(s.stop)
		<-s.stopped
		s.stop = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head == nil {
		return nil
	}
	err := s.head.Sync()
	if cerr := s.head.Close(); err == nil {
		err = cerr
	}
	s.head = nil
	return err
}

// records counts the events of b a person counts: not a source's memory
// (ingest.KindSpanLink), spooled beside them.
func records(b ingest.Batch) int {
	n := len(b)
	for i := range b {
		if b[i].Kind == ingest.KindSpanLink {
			n--
		}
	}
	return n
}
