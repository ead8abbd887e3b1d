package e2e

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// hostilePeer is a raw TCP listener that reads each request and writes
// the given bytes back, whatever HTTP says: what a broken proxy or a
// hostile receiver sends. It counts the requests.
func hostilePeer(t *testing.T, answer string) (url string, posts *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	posts = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					req.Body.Close()
					posts.Add(1)
					if _, err := c.Write([]byte(answer)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/hook", posts
}

// TestAHostileWebhookAnswerIsNotRetried (red team R7-3): a 307 whose
// Location Go cannot parse, or an answer with a control byte in a header,
// came back from http.Client as a connection error and was retried for
// the whole retry_for (22 POSTs in 70 s). The receiver did answer: a 3xx
// is misconfigured whatever its Location, and an answer that is not valid
// HTTP is a protocol error; neither is sent again in this run.
func TestAHostileWebhookAnswerIsNotRetried(t *testing.T) {
	for name, answer := range map[string]string{
		"307 with an unparseable Location": "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://evil.example/a b%zz\r\nContent-Length: 0\r\n\r\n",
		"302 with a relative bad escape":   "HTTP/1.1 302 Found\r\nLocation: %zz\r\nContent-Length: 0\r\n\r\n",
		"302 with ESC in its Location":     "HTTP/1.1 302 Found\r\nLocation: http://user:pw@evil.example/\x1b[31m?token=abc\r\nContent-Length: 0\r\n\r\n",
		"400 with ESC in a header":         "HTTP/1.1 400 Bad\x1b[31m\r\nContent-Length: 3\r\nX-E: \x1b[31m\r\n\r\nabc",
		"not HTTP at all":                  "\x15\x03\x01\x00\x02\x02\x0a\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			url, posts := hostilePeer(t, answer)
			logPath := oneJob(t, dir)
			cfg := actionsConfig(t, dir, "timeout = \"500ms\"\ndeadline = \"2s\"\n")
			d := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", url, "--journal", filepath.Join(dir, "journal.jsonl"), logPath)
			waitUntil(t, "the kill misconfigured", 20*time.Second, func() bool {
				return strings.Contains(d.out(), `"state":"misconfigured"`) || strings.Contains(d.out(), `"state":"retrying"`)
			})
			time.Sleep(3 * time.Second) // room for the retries a connection error gets
			d.stop(syscall.SIGTERM)
			t.Logf("stderr:\n%s", d.err())
			if n := posts.Load(); n != 1 {
				t.Errorf("%d POSTs, want 1: the answer was retried as a connection error\nstdout:\n%s\nstderr:\n%s", n, d.out(), d.err())
			}
			if !strings.Contains(d.out(), `"state":"misconfigured"`) || strings.Contains(d.out(), `"state":"retrying"`) {
				t.Errorf("the kill is not misconfigured (sent again at the next start, not retried now):\n%s", d.out())
			}
			if strings.Contains(d.out()+d.err(), "\x1b") || strings.Contains(d.out()+d.err(), "pw@") {
				t.Errorf("the peer's bytes reach the output raw or unredacted:\n%s\n%s", d.out(), d.err())
			}
		})
	}
}

// TestAHungNotifyReceiverNeverHoldsAKill (red team R7-24): a notify
// webhook that accepts and never answers held all four action workers
// (a delivery holds its worker up to its 60 s deadline), and the kill of
// a job over its ceiling waited 59 s behind them — or never left a run
// stopped meanwhile. One worker is kept for kills: the kill goes at once.
func TestAHungNotifyReceiverNeverHoldsAKill(t *testing.T) {
	dir := t.TempDir()
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		hung.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	var notified atomic.Int32
	go func() {
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
			notified.Add(1)
		}
	}()
	// 60 jobs of their own type retrying a 400 (a finding of each type:
	// notifications), then one job over its ceiling.
	var b strings.Builder
	ts := 0
	for j := range 60 {
		for a := 1; a <= 11; a++ {
			fmt.Fprintf(&b, `{"ts":%d,"event":"llm_call","job_id":"noisy-%02d","job_type":"ty%02d","run_id":"r","idempotency_key":"n%d","attempt":%d,"model":"gpt-4o-mini","status":400,"input_tokens":10,"output_tokens":1}`+"\n", 1780358400+ts, j, j, j, a)
			ts++
		}
	}
	for i := range 10 {
		fmt.Fprintf(&b, `{"ts":%d,"event":"llm_call","job_id":"hot","job_type":"hot","run_id":"r","idempotency_key":"h%d","model":"gpt-4o","status":200,"input_tokens":20000,"output_tokens":2000}`+"\n", 1780358400+ts, i)
		ts++
	}
	logPath := filepath.Join(dir, "noisy.jsonl")
	testutil.WriteFile(t, logPath, b.String())
	rc := newReceiver(t, false)
	start := time.Now()
	d := startDaemon(t, "--job-ceiling", "0.5", "--notify-webhook", "http://"+hung.Addr().String()+"/n", "--kill-webhook", rc.URL,
		"--journal", filepath.Join(dir, "journal.jsonl"), logPath)
	waitUntil(t, "the kill delivered", 30*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) > 0 })
	took := time.Since(start)
	d.stop(syscall.SIGTERM)
	t.Logf("kill delivered %s after start; %d notify connection(s) held open", took, notified.Load())
	if notified.Load() < 3 {
		t.Fatalf("only %d notifications reached the hung receiver: the test did not hold the workers", notified.Load())
	}
	if took > 10*time.Second {
		t.Errorf("the kill came %s after start, behind hung notifications", took)
	}
}
