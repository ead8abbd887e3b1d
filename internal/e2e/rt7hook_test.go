package e2e

import (
	"bufio"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
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
