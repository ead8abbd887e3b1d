package decode

import (
	"bytes"
	"cmp"
	"regexp"

	"github.com/burnrate-dev/burnrate/ingest"
)

// pyException is an attempt of the Python SDK that got no response:
// _base_client.py logs "Encountered httpx.TimeoutException" or
// "Encountered Exception" (a reset, a refused connection), and then, with
// no await between, "Retrying request to … in N seconds" when it retries —
// else "Raising timeout error" / "Raising connection error" and the app's
// own line. The retried ones were always counted (at the "Retrying" line:
// a retry with no failed response before it); the last of a chain was
// not, so a job whose final attempt timed out was a call short of the
// wire (the lab: 14 of 711 calls over seeds 0–7).
type pyException struct {
	set, timeout, carried bool
	ts                    int64
	key                   string // the endpoint of the last request line
	job                   string // the job context then
	fresh                 bool
}

// pySending: _base_client.py's "Sending HTTP Request: POST url", logged
// before each attempt (host and path in groups 2 and 3).
var pySending = regexp.MustCompile(`_base_client[^\]]*\] Sending HTTP Request: (POST|GET|PUT|DELETE|PATCH) https?://([^/\s"]+)(/[^\s"]*)?`)

// pyEncountered reads an "Encountered …" line of the SDK: the attempt is
// held until the next SDK line says whether it was retried.
func (t *sdkText) pyEncountered(line []byte) bool {
	i := bytes.Index(line, []byte("] Encountered "))
	rest := line[i+len("] Encountered "):]
	timeout := bytes.HasPrefix(rest, []byte("httpx.TimeoutException"))
	if !timeout && !bytes.HasPrefix(rest, []byte("Exception")) {
		return false
	}
	t.sawSDK = true
	ts, carried := t.lineTime(line)
	key := cmp.Or(t.pySending, t.pyLast)
	t.pyExc = pyException{set: true, timeout: timeout, carried: carried, ts: ts, key: key, job: t.lastJob.JobID, fresh: t.pyFresh()}
	return true
}

// pyEndsException: a line after which a held exception was not retried —
// the SDK's "Raising … error", or its next request or response, or
// another exception.
func pyEndsException(line []byte) bool {
	if !bytes.Contains(line, []byte("_base_client")) {
		return false
	}
	return bytes.Contains(line, []byte("] Raising ")) || bytes.Contains(line, []byte("] Request options: ")) ||
		bytes.Contains(line, []byte("] Sending HTTP Request: ")) || bytes.Contains(line, []byte("] HTTP Response: ")) ||
		bytes.Contains(line, []byte("] Encountered "))
}

// pyRaised counts a held exception that was not retried: the chain's last
// attempt, of no status — placed, like every Python attempt, by timing.
func (t *sdkText) pyRaised(emit func(*ingest.Event)) int {
	x := t.pyExc
	if !x.set {
		return 0
	}
	t.pyExc = pyException{}
	timed := !x.carried && x.ts > 0
	e := t.endpointState(x.key)
	e.expire(x.ts, timed)
	ch, ok := e.answer(x.ts, timed, x.job, x.fresh)
	if !ok {
		ch = t.newPyChain(ch.ambiguous)
	}
	if t.concurrent(x.ts, timed) {
		ch.ambiguous = true
	}
	ev := t.attemptAt(x.ts, x.carried, ch.ctx)
	ev.Status, ev.Attempt, ev.ErrorType = 0, ch.attempt, "connection_error"
	if x.timeout {
		ev.ErrorType = "timeout"
	}
	ev.IdempotencyKey = t.pyKey(ch, x.key)
	if ch.ambiguous || positional(ev) {
		ev.AttemptBy = ingest.AttemptByLineAmbiguous
	}
	emit(ev)
	return 1
}
