package decode

import (
	"bytes"

	"github.com/burnrate-dev/burnrate/ingest"
)

// An app logs its jobs' lives in its own words (issue 39): pino's
// {"msg":"job finished","jobId":"job-7","durationMs":5000}, winston's
// {"message":"job failed","jobId":…}, or an outcome field. Without an
// event field such lines were skipped as no_event, and a job that failed
// with every call a 200 read "succeeded". A line that names a job, is no
// call (no model, tool or tokens) and whose outcome or message says how
// the job went is that lifecycle event.

// maxLifecycleBytes bounds the words looked at: a lifecycle message is
// short, and a long one is no reason to scan.
const maxLifecycleBytes = 256

// lifecycleKind reads the outcome field first, then the message, to a
// lifecycle kind, or KindUnknown.
func lifecycleKind(msg, outcome []byte) ingest.Kind {
	if k := outcomeKind(outcome); k != ingest.KindUnknown {
		return k
	}
	return messageKind(msg)
}

// outcomeKind maps an outcome word ("succeeded", "failed", …).
func outcomeKind(w []byte) ingest.Kind {
	if len(w) == 0 || len(w) > 32 {
		return ingest.KindUnknown
	}
	var buf [32]byte
	low := lowerASCII(buf[:0], bytes.TrimSpace(w))
	switch string(low) {
	case "succeeded", "success", "successful", "ok", "completed", "complete", "done", "finished":
		return ingest.KindJobSucceeded
	case "failed", "failure", "fail", "error", "errored", "killed", "canceled", "cancelled", "timeout", "timed_out":
		return ingest.KindJobFailed
	case "dead_lettered", "dead-lettered", "deadlettered", "dlq", "dead_letter":
		return ingest.KindJobDeadLettered
	}
	return ingest.KindUnknown
}

// messageKind reads a message that speaks of a job: "job finished", "Job
// job-7 failed after 3 attempts", "job moved to the dead letter queue",
// "job started". A failure word wins over a success word ("job finished
// with error"), dead letter over both.
func messageKind(msg []byte) ingest.Kind {
	if len(msg) == 0 {
		return ingest.KindUnknown
	}
	var buf [maxLifecycleBytes]byte
	low := lowerASCII(buf[:0], msg[:min(len(msg), maxLifecycleBytes)])
	job, dead, failed, ok, started, queued, retry := false, false, false, false, false, false, false
	for _, w := range bytes.FieldsFunc(low, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '_' || r == '-') }) {
		switch string(w) {
		case "job", "jobs":
			job = true
		case "dead-lettered", "dead_lettered", "deadlettered", "dlq", "dead-letter", "dead_letter", "dead":
			dead = true
		case "failed", "errored", "killed", "canceled", "cancelled", "aborted":
			failed = true
		case "retry", "retrying", "retried", "retries":
			retry = true
		case "finished", "completed", "complete", "succeeded", "success", "successful", "done":
			ok = true
		case "started", "starting", "start", "processing":
			started = true
		case "enqueued", "queued":
			queued = true
		}
	}
	switch {
	case !job || retry:
		// Not about a job, or about a retry inside one ("job 7:
		// retrying after a failed call"): no end of the job.
		return ingest.KindUnknown
	case dead:
		return ingest.KindJobDeadLettered
	case failed && ok:
		return ingest.KindUnknown
	case failed:
		return ingest.KindJobFailed
	case ok:
		return ingest.KindJobSucceeded
	case started:
		return ingest.KindJobStarted
	case queued:
		return ingest.KindJobEnqueued
	}
	return ingest.KindUnknown
}

// lowerASCII appends b lowered (ASCII letters only) to dst.
func lowerASCII(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
