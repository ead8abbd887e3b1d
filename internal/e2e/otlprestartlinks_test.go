package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// linkSpan is one span of an export request: its trace, its ID, its
// parent's (0: a root), the job it names ("" none), and whether it is a
// model call (10,000 input and 1,000 output tokens of claude-sonnet-4-5).
type linkSpan struct {
	trace, id, parent int
	job               string
	call              bool
}

func (p *spoolProc) postSpans(spans ...linkSpan) {
	p.t.Helper()
	var b strings.Builder
	for i, s := range spans {
		if i > 0 {
			b.WriteByte(',')
		}
		start := int64(1796180270000000000) + int64(s.id)*int64(time.Second)
		attrs := []string{}
		name := "batch item"
		if s.job != "" {
			attrs = append(attrs, fmt.Sprintf(`{"key":"job.id","value":{"stringValue":%q}},{"key":"job.type","value":{"stringValue":"t"}}`, s.job))
		}
		if s.call {
			name = "chat claude-sonnet-4-5"
			attrs = append(attrs, `{"key":"gen_ai.system","value":{"stringValue":"anthropic"}},{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"10000"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"1000"}}`)
		}
		parent := ""
		if s.parent != 0 {
			parent = fmt.Sprintf(`"parentSpanId":"%016x",`, s.parent)
		}
		fmt.Fprintf(&b, `{"traceId":"%032x","spanId":"%016x",%s"name":%q,"kind":1,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[%s]}`,
			s.trace, s.id, parent, name, start, start+int64(time.Second), strings.Join(attrs, ","))
	}
	body := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"worker"}}]},"scopeSpans":[{"scope":{"name":"manual"},"spans":[` + b.String() + `]}]}]}`
	resp, err := http.Post("http://"+p.addr+"/v1/traces", "application/json", strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		p.t.Fatalf("OTLP post: %s", resp.Status)
	}
}

// TestOTLPJobLinksSurviveARestart: the job of a span comes from spans
// that came in earlier export requests — the job a span above it named
// (which names only the spans under it), the trace's root, the calls
// filed under the trace ID until such a span came. That memory was the
// process's own: a watch restarted between two requests replayed the
// events it spooled, not the parents, and a child's job differed from an
// uninterrupted run's (filed under the trace ID, never moved). Every
// change of that memory is now spooled with the events (KindSpanLink)
// and rebuilt by the replay: the same requests sent to one watch, and to
// one restarted before each request (by SIGTERM and by SIGKILL), give
// the same report, byte for byte.
func TestOTLPJobLinksSurviveARestart(t *testing.T) {
	requests := [][]linkSpan{
		{{trace: 1, id: 11, parent: 2, call: true}},                                  // a call under span 2, not seen yet: filed under trace 1
		{{trace: 1, id: 2, parent: 1, job: "job-P"}},                                 // span 2 names job-P: the filed call moves there
		{{trace: 1, id: 12, parent: 2, call: true}},                                  // another call under span 2: job-P, from memory
		{{trace: 1, id: 13, parent: 3, call: true}},                                  // a call under span 3, not seen yet: filed under trace 1
		{{trace: 1, id: 3, parent: 1, job: "job-Q"}},                                 // span 3 names job-Q: the filed call moves there
		{{trace: 1, id: 14, parent: 4, call: true}},                                  // a call under a span that never names a job
		{{trace: 1, id: 1}},                                                          // the root, naming nothing
		{{trace: 2, id: 21, job: "job-R"}},                                           // trace 2's root names job-R first
		{{trace: 2, id: 22, parent: 21, call: true}},                                 // its call: job-R, from memory
		{{trace: 2, id: 23, parent: 22}, {trace: 2, id: 24, parent: 23, call: true}}, // deeper: job-R
	}
	run := func(t *testing.T, restart bool, sig syscall.Signal) string {
		dir := t.TempDir()
		journal, rep := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "r.json")
		rc := newReceiver(t, false) // a daemon with a hook: it spools
		args := []string{"--run-id", "night-l", "--report-out", rep, "--kill-webhook", rc.URL, "--job-ceiling", "100"}
		p := startSpoolProc(t, journal, args...)
		for i, r := range requests {
			if restart && i > 0 {
				p.stop(sig)
				p = startSpoolProc(t, journal, args...)
			}
			p.postSpans(r...)
		}
		p.settle()
		p.stop(syscall.SIGTERM)
		return reportOf(t, rep)
	}
	want := run(t, false, 0)
	for _, job := range []string{`"job_id": "job-P"`, `"job_id": "job-Q"`, `"job_id": "job-R"`} {
		if !strings.Contains(strings.ReplaceAll(want, `":"`, `": "`), job) {
			t.Fatalf("the uninterrupted night has no %s:\n%s", job, want)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		if got := run(t, true, sig); got != want {
			t.Fatalf("a restart (%v) before each request changed the report:\n%s\nwant\n%s", sig, got, want)
		}
	}
}
