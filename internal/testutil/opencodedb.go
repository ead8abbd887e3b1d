package testutil

import (
	"database/sql"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// OpenCodeSchema is OpenCode's session, message and part tables as its
// first SQLite migration creates them (anomalyco/opencode v1.2.0,
// packages/opencode/migration/20260127222353_familiar_lady_ursula; the
// same columns in src/session/session.sql.ts @063e8306d989, which adds
// the session's cost and token totals, not read). The project table the
// session references is left out: foreign keys are not enforced by a
// reader.
const OpenCodeSchema = "CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `revert` text, `permission` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer);\n" +
	"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);\n" +
	"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);\n" +
	"CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);\n" +
	"CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);\n" +
	"CREATE INDEX `part_session_idx` ON `part` (`session_id`);\n"

// OpenCodeDB creates an OpenCode database at path, in WAL mode as
// OpenCode opens it, and returns it open for writing (closed with the
// test).
func OpenCodeDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(OpenCodeSchema); err != nil {
		t.Fatal(err)
	}
	return db
}

// OpenCodeImport writes OpenCode's storage files under storage into db
// as OpenCode's JSON-to-SQLite migration does: each file's id (and
// sessionID, messageID) into its columns, the rest as data.
func OpenCodeImport(t testing.TB, db *sql.DB, storage string) {
	t.Helper()
	err := filepath.WalkDir(storage, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		str := func(k string) string { s, _ := m[k].(string); delete(m, k); return s }
		created, updated := int64(0), int64(0)
		if tm, ok := m["time"].(map[string]any); ok {
			if c, ok := tm["created"].(float64); ok {
				created = int64(c)
			}
			if u, ok := tm["updated"].(float64); ok {
				updated = int64(u)
			}
		}
		updated = max(updated, created)
		name := filepath.Base(path)
		switch {
		case strings.HasPrefix(name, "ses_"):
			_, err = db.Exec("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, NULLIF(?, ''), 'slug', '/', ?, ?, ?, ?)",
				str("id"), str("projectID"), str("parentID"), str("title"), str("version"), created, updated)
		case strings.HasPrefix(name, "msg_"):
			id, ses := str("id"), str("sessionID")
			data, _ := json.Marshal(m)
			err = OpenCodeMessage(db, id, ses, created, string(data))
		case strings.HasPrefix(name, "prt_"):
			id, ses, msg := str("id"), str("sessionID"), str("messageID")
			data, _ := json.Marshal(m)
			_, err = db.Exec("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)", id, msg, ses, created, created, string(data))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// OpenCodeMessage inserts one message row.
func OpenCodeMessage(db *sql.DB, id, session string, created int64, data string) error {
	_, err := db.Exec("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)", id, session, created, created, data)
	return err
}
