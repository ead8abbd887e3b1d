package audit

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// A task redelivered by a count kept in its own record (issue 37, round
// 9) — the worker that picks a task up reads the record, gives up past a
// bound, and writes the count back one higher:
//
//	if task["retry_count"] >= 3:
//	    fail(task)                      # abandoned after 3 deliveries
//	Task.update(retry_count=task["retry_count"] + 1).where(…).execute()
//
// Each delivery of the task (a queue's redelivery of a message never
// acknowledged, a sweep of unfinished tasks) runs it again, and only this
// count stops it: a layer of bound tries (one more with `>`). Found in
// Python: in one function, a keyword or attribute written as a field of a
// record plus one (the field named for retries or attempts) and a test of
// that same field against a bound. Not a layer: a count written with no
// test in its function, or tested with no write.

var (
	// pyRecordCountWrite: retry_count=task["retry_count"] + 1, or
	// retry_count=task.retry_count + 1 (groups: the keyword, the key or
	// attribute read).
	pyRecordCountWrite = regexp.MustCompile(`\b(\w*(?:retr|attempt)\w*)\s*=\s*[A-Za-z_][\w.]*(?:\[\s*["'](\w+)["']\s*\]|\.(\w+))\s*\+\s*1\b`)
)

func pyRecordCountRetries(f *file) []Layer {
	code, raw := f.blanked(), f.raw
	if len(code) != len(raw) || !bytes.Contains(raw, []byte("retr")) && !bytes.Contains(raw, []byte("attempt")) {
		return nil
	}
	var out []Layer
	done := map[int]bool{} // a function's head: one layer per function
	lastEnd := -1          // the end of the function last read: the writes in it are not walked back from again
	for _, m := range around(raw, "+", pyRecordCountWrite, 160, 8) {
		if m[0] < lastEnd {
			continue
		}
		if code[m[0]] == ' ' {
			continue // in a string or a comment
		}
		field := ""
		switch {
		case m[4] >= 0:
			field = string(raw[m[4]:m[5]])
		case m[6] >= 0:
			field = string(raw[m[6]:m[7]])
		}
		if field != string(raw[m[2]:m[3]]) {
			continue // another field read than written
		}
		fn, ok := pyFuncHeadOf(code, m[0])
		if !ok || done[fn] {
			continue
		}
		done[fn] = true // one reading per function, whatever it writes
		_, end, ok := pyImportDef(code, m[0])
		if !ok {
			continue
		}
		lastEnd = end
		q := regexp.QuoteMeta(field)
		test := regexp.MustCompile(`(?m)^[ \t]*if\s+[A-Za-z_][\w.]*(?:\[\s*["']` + q + `["']\s*\]|\.` + q + `)\s*(>=?)\s*([0-9]+|[A-Za-z_][\w.]*)\s*:`)
		t := test.FindSubmatchIndex(raw[fn:end])
		if t == nil || code[fn+t[0]+strings.Index(string(raw[fn+t[0]:fn+t[1]]), "if")] == ' ' {
			continue
		}
		at := fn + t[0] + strings.Index(string(raw[fn+t[0]:fn+t[1]]), "if")
		offset := 0
		if string(raw[fn+t[2]:fn+t[3]]) == ">" {
			offset = 1
		}
		bound := string(raw[fn+t[4] : fn+t[5]])
		setting := strings.TrimSpace(string(raw[at : fn+t[1]]))
		l, ok := loopLayer(f, at, bound, offset, setting, "python",
			fmt.Sprintf("a task's count of deliveries kept in its record (%s, written back one higher): each redelivery runs it again until the bound — read it to confirm the task re-sends the call", field))
		if ok {
			out = append(out, l)
		}
	}
	return out
}
