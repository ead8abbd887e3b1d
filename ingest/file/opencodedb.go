package file

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest/decode"

	_ "modernc.org/sqlite" // pure Go: no cgo, the one binary stays one
)

// OpenCode since v1.2.0 (2026-02-14) keeps its sessions in an SQLite
// database, opencode.db in its data directory (opencode-<channel>.db for
// a channel other than latest and beta), migrated there from the storage
// files on first start. Its tables (anomalyco/opencode
// packages/opencode/src/session/session.sql.ts, @063e8306; created by the
// migration 20260127222353_familiar_lady_ursula):
//
//	session (id, project_id, parent_id, slug, directory, title, version, …, time_created, time_updated)
//	message (id, session_id, time_created, time_updated, data)  data: MessageV2.Info without id, sessionID
//	part    (id, message_id, session_id, time_created, time_updated, data)  data: MessageV2.Part without id, sessionID, messageID
//
// data is the JSON a storage file held, less the keys the columns hold.
// Each row is given back those keys and handed to the storage files'
// decoder as one record (a message is billed once by its ID whether it
// is read here, from a storage file, or both).
//
// The database is OpenCode's, and OpenCode may be writing it: it is
// opened read-only with queries only (mode=ro, query_only), so a reader
// never writes it and, in WAL mode (OpenCode's), never blocks the writer
// nor waits on it; a WAL database no one is writing (no -wal file), or
// one that cannot be opened so (a read-only directory without its -shm
// file), is read as it stands on disk (immutable=1), so that a read
// leaves no -wal and -shm files beside it.

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// opencodeDBColumns are the columns read, per table: a database without
// them is not OpenCode's (or a version this reader does not know).
var opencodeDBColumns = map[string][]string{
	"session": {"id", "parent_id", "time_created", "time_updated"},
	"message": {"id", "session_id", "time_created", "data"},
	"part":    {"id", "message_id", "session_id", "time_created", "data"},
}

// dbRows yields an OpenCode database's rows as the storage decoder's
// records: messages, retry and step parts, then subagent sessions.
type dbRows struct {
	path  string
	db    *sql.DB
	rows  *sql.Rows
	stage int
	Err   error
}

// IsOpenCodeDB reports whether path names a regular file that is an
// SQLite database (an OpenCode opencode.db is one).
func IsOpenCodeDB(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	var head [len(sqliteMagic)]byte
	n, _ := f.Read(head[:])
	return string(head[:n]) == sqliteMagic
}

// HomeDBs are OpenCode's databases in its data directories (f's Home
// roots): opencode.db and opencode-<channel>.db, those that exist.
func HomeDBs(f decode.Format) []string {
	row := decode.Row(f)
	if row == nil || row.Home == nil || len(row.Home.Databases) == 0 {
		return nil
	}
	var out []string
	for _, root := range homeRoots(row.Home) {
		for _, pat := range row.Home.Databases {
			m, _ := filepath.Glob(filepath.Join(root, pat))
			for _, p := range m {
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// openOpenCodeDB opens path read-only and checks it holds OpenCode's
// tables; the error says what the file is instead.
func openOpenCodeDB(path string) (*dbRows, error) {
	st, err := os.Stat(path) // a link is judged by what it names
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("open %s: not a regular file (%s): an OpenCode database is a file, opencode.db", path, Kind(st.Mode()))
	}
	if st.Size() < 512 {
		return nil, fmt.Errorf("read %s: an SQLite database of %d bytes: truncated (a database is at least one 512-byte page); nothing read", path, st.Size())
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	d := &dbRows{path: path}
	modes := []string{"mode=ro", "mode=ro&immutable=1"}
	if walAtRest(path) {
		// A WAL database no one is writing (no -wal beside it): read as
		// it stands, so that reading it leaves no -wal and -shm behind.
		modes = modes[1:]
	}
	for _, mode := range modes {
		db, err := sql.Open("sqlite", u+"?"+mode+"&_pragma=query_only(1)&_pragma=busy_timeout(2000)")
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
		db.SetMaxOpenConns(1)
		err = checkOpenCodeSchema(db)
		if err == nil {
			d.db = db
			return d, nil
		}
		db.Close()
		if !strings.Contains(err.Error(), "unable to open") || mode != "mode=ro" {
			return nil, fmt.Errorf("read %s: %w; nothing read", path, err)
		}
	}
	return nil, fmt.Errorf("open %s: cannot be opened read-only; nothing read", path)
}

// walAtRest reports a database in WAL mode (header bytes 18 and 19 are
// 2) without a -wal file beside it: everything it holds is in the file.
func walAtRest(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [20]byte
	if n, _ := f.Read(h[:]); n < len(h) || h[18] != 2 || h[19] != 2 {
		return false
	}
	_, err = os.Lstat(path + "-wal")
	return errors.Is(err, os.ErrNotExist)
}

func checkOpenCodeSchema(db *sql.DB) error {
	for _, table := range []string{"session", "message", "part"} {
		rows, err := db.Query("SELECT name FROM pragma_table_info(?)", table)
		if err != nil {
			return unreadable(err)
		}
		have := map[string]bool{}
		for rows.Next() {
			var name string
			if rows.Scan(&name) == nil {
				have[name] = true
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return unreadable(err)
		}
		for _, c := range opencodeDBColumns[table] {
			if !have[c] {
				return fmt.Errorf("an SQLite database without OpenCode's %s.%s column: not OpenCode's opencode.db (v1.2.0 on)", table, c)
			}
		}
	}
	return nil
}

// unreadable says why a database could not be read: held locked by its
// writer (a rollback-journal database mid-write; OpenCode's WAL never
// locks a reader out), or not a database.
func unreadable(err error) error {
	if strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked") {
		return fmt.Errorf("locked by the process writing it for more than 2 s (%w): run again once it is done writing", err)
	}
	return fmt.Errorf("not a readable SQLite database: %w", err)
}

// The queries, one per stage. A row's data over the record cap is not
// loaded (octet_length reads the record header, not the value): it is
// given back as too long and counted. Parts are many (text, tool output):
// only the two kinds that are calls are read, their kind taken from JSON
// that is valid and under the cap.
var opencodeDBQueries = []string{
	stageMessages: `SELECT id, session_id, '', time_created, octet_length(data), CASE WHEN octet_length(data) <= ?1 THEN data END FROM message`,
	stageParts: `SELECT id, session_id, message_id, time_created, octet_length(data), data FROM part
	  WHERE (CASE WHEN octet_length(data) > ?1 THEN NULL WHEN json_valid(data) THEN json_extract(data, '$.type') END) IN ('retry', 'step-finish')`,
	// Last: a subagent's session moves its calls to its parent's job,
	// and a move before the calls finds none to move.
	stageSessions: `SELECT id, parent_id, time_created, time_updated, 0, NULL FROM session WHERE parent_id IS NOT NULL AND parent_id <> '' AND parent_id <> id AND ?1 > 0`,
}

const (
	stageMessages = iota
	stageParts
	stageSessions
)

// next is the next record, tooLong for a row over the cap; ok false at
// the end or on an error (Err).
func (d *dbRows) next() (rec []byte, tooLong, ok bool) {
	for {
		if d.Err != nil || d.stage >= len(opencodeDBQueries) {
			return nil, false, false
		}
		if d.rows == nil {
			rows, err := d.db.Query(opencodeDBQueries[d.stage], decode.MaxLineBytes)
			if err != nil {
				d.Err = err
				return nil, false, false
			}
			d.rows = rows
		}
		if !d.rows.Next() {
			err := d.rows.Err()
			d.rows.Close()
			d.rows = nil
			if err != nil {
				d.Err = err
				return nil, false, false
			}
			d.stage++
			continue
		}
		var id, a, b sql.NullString
		var created, size sql.NullInt64
		var data []byte
		var err error
		switch d.stage {
		case stageSessions:
			var updated sql.NullInt64
			err = d.rows.Scan(&id, &a, &created, &updated, &size, &data)
			if err == nil {
				rec, err = json.Marshal(map[string]any{"id": id.String, "parentID": a.String, "title": "",
					"time": map[string]int64{"created": created.Int64, "updated": updated.Int64}})
			}
		default:
			err = d.rows.Scan(&id, &a, &b, &created, &size, &data)
			if err == nil && size.Int64 > decode.MaxLineBytes {
				return nil, true, true
			}
			if err == nil {
				rec = withKeys(data, d.stage, id.String, a.String, b.String, created.Int64)
			}
		}
		if err != nil {
			// A value of the wrong type in a column: that row, counted
			// as malformed by the decoder, never the rest.
			return []byte("{"), false, true
		}
		return rec, false, true
	}
}

// withKeys gives a row's data back the keys its columns hold: id and
// sessionID (and a part's messageID, with the row's time as its
// timestamp). Appended after data's own keys, so the columns win. Data
// that is not a JSON object is returned as it is, for the decoder to
// count as malformed.
func withKeys(data []byte, stage int, id, session, message string, created int64) []byte {
	data = bytes.TrimSpace(data)
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		return data
	}
	keys := map[string]any{"id": id, "sessionID": session}
	if stage == stageParts {
		keys["messageID"] = message
		keys["timestamp"] = created
	}
	extra, _ := json.Marshal(keys)
	out := make([]byte, 0, len(data)+len(extra))
	out = append(out, data[:len(data)-1]...)
	if len(bytes.TrimSpace(data[1:len(data)-1])) > 0 {
		out = append(out, ',')
	}
	return append(out, extra[1:]...)
}

func (d *dbRows) close() {
	if d.rows != nil {
		d.rows.Close()
		d.rows = nil
	}
	if d.db != nil {
		d.db.Close()
		d.db = nil
	}
}

var errNotOpenCodeFormat = errors.New("an SQLite database is read only as OpenCode's opencode.db: drop --input-format, or pass --input-format opencode")

// startDB reads the file as OpenCode's database: its rows are the
// records, decoded by the OpenCode decoder. A file that cannot be read as
// one ends with its error (counted with the file), never the run.
func (it *FileIter) startDB(forced decode.Format) {
	it.Detected = decode.Detection{Format: decode.FormatOpenCode, Document: true}
	if forced != decode.FormatAuto && forced != decode.FormatOpenCode {
		it.Err = fmt.Errorf("read %s: %w", it.Path, errNotOpenCodeFormat)
		it.lines = nil
		return
	}
	d, err := openOpenCodeDB(it.Path)
	if err != nil {
		it.Err = err
		it.lines = nil
		return
	}
	it.db = d
	o := it.opts
	o.SourceName = it.Path
	it.dec = decode.NewDecoder(decode.FormatOpenCode, nil, o)
	it.emitFn = it.emit
}
