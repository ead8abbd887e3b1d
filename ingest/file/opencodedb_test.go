package file

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// The OpenCode storage fixture (decode's testdata), written into a
// database the way OpenCode's migration writes it.
const opencodeStorage = "../decode/testdata/agents/opencode/storage"

type dbRead struct {
	events                  []ingest.Event
	stats                   ingest.Stats
	err                     string
	in, out, read, write, n int64
}

func readDB(t *testing.T, path string, opts decode.Options) dbRead {
	t.Helper()
	it, err := OpenFile(path, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var r dbRead
	var ev ingest.Event
	for it.Next(&ev) {
		r.events = append(r.events, ev)
		if ev.Kind == ingest.KindLLMCall {
			r.n++
			r.in += ev.InputTokens
			r.out += ev.OutputTokens
			r.read += ev.CacheReadTokens
			r.write += ev.CacheCreateTokens
		}
	}
	r.stats, r.err = it.Stats, it.ErrText()
	return r
}

func readStorage(t *testing.T) dbRead {
	t.Helper()
	paths, err := ExpandInputs([]string{opencodeStorage}, false)
	if err != nil {
		t.Fatal(err)
	}
	var all dbRead
	for _, p := range paths {
		r := readDB(t, p, decode.Options{})
		all.events = append(all.events, r.events...)
		all.in, all.out, all.read, all.write, all.n = all.in+r.in, all.out+r.out, all.read+r.read, all.write+r.write, all.n+r.n
	}
	return all
}

// TestOpenCodeDBReadsTheStorageShapes: a database holding the storage
// fixture's sessions, messages and parts gives the same events, field for
// field, as the storage files — the same decoder reads each row's JSON.
func TestOpenCodeDBReadsTheStorageShapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := testutil.OpenCodeDB(t, path)
	testutil.OpenCodeImport(t, db, opencodeStorage)
	// A user's message and an assistant's still streaming: no call.
	if err := testutil.OpenCodeMessage(db, "msg_user1", "ses_5a1f3c2d7ffeYq4mK0aT9xWb2R", 1767225600000, `{"role":"user","time":{"created":1767225600000}}`); err != nil {
		t.Fatal(err)
	}
	got, want := readDB(t, path, decode.Options{}), readStorage(t)
	if got.err != "" {
		t.Fatalf("error %s", got.err)
	}
	if got.n == 0 || got.n != want.n || got.in != want.in || got.out != want.out || got.read != want.read || got.write != want.write {
		t.Errorf("db: %d calls %d/%d/%d/%d, storage: %d calls %d/%d/%d/%d", got.n, got.in, got.out, got.read, got.write, want.n, want.in, want.out, want.read, want.write)
	}
	key := func(e ingest.Event) string {
		return fmt.Sprintf("%v %s %s %s %d %d %d %d %d %d", e.Kind, e.JobID, e.CorrelationID, e.IdempotencyKey, e.InputTokens, e.OutputTokens, e.CacheReadTokens, e.CacheCreateTokens, e.Status, e.Attempt)
	}
	seen := map[string]int{}
	for _, e := range want.events {
		seen[key(e)]++
	}
	for _, e := range got.events {
		seen[key(e)]--
	}
	for k, n := range seen {
		if n != 0 {
			t.Errorf("%+d of %s (storage minus db)", n, k)
		}
	}
	// Forced as another format, a database is refused by name.
	if r := readDB(t, path, decode.Options{Format: decode.FormatJSONL}); !strings.Contains(r.err, "only as OpenCode's") || len(r.events) != 0 {
		t.Errorf("forced jsonl: %d events, error %q", len(r.events), r.err)
	}
}

// TestOpenCodeDBHostile: a file that is not OpenCode's database, or not a
// whole one, ends with a clear error and nothing invented; a row too big
// or not JSON costs that row, counted, never the rest.
func TestOpenCodeDBHostile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "opencode.db")
	db := testutil.OpenCodeDB(t, good)
	testutil.OpenCodeImport(t, db, opencodeStorage)
	big := `{"role":"assistant","modelID":"x","tokens":{"input":1,"output":1},"pad":"` + strings.Repeat("a", decode.MaxLineBytes) + `"}`
	for i, data := range []string{big, "not json at all", "[1,2]", `{"role":"assistant"`} {
		if err := testutil.OpenCodeMessage(db, fmt.Sprintf("msg_bad%d", i), "ses_x", 1767225600000, data); err != nil {
			t.Fatal(err)
		}
	}
	// A value of the wrong type where data is: that row, never the rest.
	if _, err := db.Exec("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_blob', 'ses_x', 'soon', 0, x'00ff')"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	r := readDB(t, good, decode.Options{})
	if r.err != "" || r.n != readStorage(t).n {
		t.Errorf("hostile rows: %d calls, error %q", r.n, r.err)
	}
	if r.stats.Skipped[ingest.SkipTooLong] != 1 || r.stats.Skipped[ingest.SkipInvalidJSON]+r.stats.Skipped[ingest.SkipTruncated]+r.stats.Skipped[ingest.SkipNotObject]+r.stats.Skipped[ingest.SkipBinary] < 4 {
		t.Errorf("skips %v: want the big row too long and the broken ones malformed", r.stats.Skipped)
	}

	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	wrong := filepath.Join(dir, "wrong.db")
	w, err := sql.Open("sqlite", "file:"+wrong)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("CREATE TABLE message (id text, body text); INSERT INTO message VALUES ('a', 'b')"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	cases := map[string]struct {
		bytes []byte
		want  string
	}{
		"truncated-header": {whole[:100], "truncated"},
		"truncated":        {whole[:len(whole)/3], ""},
		"garbage-after":    {append([]byte(sqliteMagic), make([]byte, 8192)...), "not a readable SQLite database"},
	}
	for name, c := range cases {
		p := filepath.Join(dir, name+".db")
		if err := os.WriteFile(p, c.bytes, 0o600); err != nil {
			t.Fatal(err)
		}
		r := readDB(t, p, decode.Options{})
		if c.want != "" && !strings.Contains(r.err, c.want) {
			t.Errorf("%s: error %q, want %q", name, r.err, c.want)
		}
		if name == "truncated" && r.err == "" && r.n > readStorage(t).n {
			t.Errorf("%s: %d calls from a third of the file", name, r.n)
		}
	}
	if r := readDB(t, wrong, decode.Options{}); !strings.Contains(r.err, "not OpenCode's") || len(r.events) != 0 {
		t.Errorf("wrong schema: %d events, error %q", len(r.events), r.err)
	}
	// A database held locked by its writer (a rollback journal, mid-
	// write): an error that says so after the busy timeout, no hang.
	locked := filepath.Join(dir, "locked.db")
	l, err := sql.Open("sqlite", "file:"+locked+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Exec(testutil.OpenCodeSchema); err != nil {
		t.Fatal(err)
	}
	conn, err := l.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if r := readDB(t, locked, decode.Options{}); !strings.Contains(r.err, "locked by the process writing it") || time.Since(start) > 10*time.Second {
		t.Errorf("a locked database: error %q after %v", r.err, time.Since(start))
	}
	conn.ExecContext(t.Context(), "ROLLBACK")
	conn.Close()
	// A link to /dev/zero is no database: refused, not read forever.
	zero := filepath.Join(dir, "opencode-zero.db")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if IsOpenCodeDB(zero) {
		t.Error("/dev/zero taken for a database")
	}
	t.Setenv("OPENCODE_DATA_DIR", dir)
	for _, p := range HomeDBs(decode.FormatOpenCode) {
		if p == zero {
			t.Error("HomeDBs lists a link to /dev/zero")
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := OpenFile(zero, 0, decode.Options{}); err == nil {
			t.Error("a link to /dev/zero opened")
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a link to /dev/zero: still reading after 10s")
	}
}

// TestOpenCodeDBWhileWritten: OpenCode's database in WAL mode, written
// all along by another connection (OpenCode), is read while it is
// written: every message committed before the read is seen (the WAL
// included), and the writer is never blocked nor fails.
func TestOpenCodeDBWhileWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := testutil.OpenCodeDB(t, path)
	msg := `{"role":"assistant","modelID":"claude-sonnet-4-5","providerID":"anthropic","time":{"created":%d},"tokens":{"input":10,"output":5,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0.0001}`
	var committed atomic.Int64
	write := func(i int64) error {
		err := testutil.OpenCodeMessage(db, fmt.Sprintf("msg_%08d", i), "ses_w", 1767225600000+i, fmt.Sprintf(msg, 1767225600000+i))
		if err == nil {
			committed.Store(i + 1)
		}
		return err
	}
	for i := range int64(50) {
		if err := write(i); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := int64(50); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := write(i); err != nil {
				writeErr = err
				return
			}
		}
	}()
	for range 5 {
		before := committed.Load()
		r := readDB(t, path, decode.Options{})
		if r.err != "" || r.n < before {
			t.Errorf("read while written: %d calls of at least %d, error %q", r.n, before, r.err)
		}
	}
	close(stop)
	wg.Wait()
	if writeErr != nil {
		t.Errorf("the writer failed while read: %v", writeErr)
	}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Errorf("no WAL written (%v): the test did not test a WAL database", err)
	}
	// OpenCode closed (its WAL checkpointed and removed): read, the
	// database leaves no -wal or -shm behind, nor changes.
	db.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r := readDB(t, path, decode.Options{}); r.err != "" || r.n != committed.Load() {
		t.Errorf("at rest: %d calls of %d, error %q", r.n, committed.Load(), r.err)
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("reading left %s beside the database", side)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("reading changed the database")
	}
}
