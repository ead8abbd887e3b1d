package alerts

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPostKeepsTheURLsUserInfo: Post sends through the transport, not
// http.Client.Do (R7-3); a webhook URL with user info still sends it as
// Basic auth, as Do did.
func TestPostKeepsTheURLsUserInfo(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if ok {
			got = u + ":" + p
		}
	}))
	defer srv.Close()
	url := strings.Replace(srv.URL, "http://", "http://hook:s3cret@", 1)
	d := NewPoster(time.Second, 5*time.Second, nil).Post(context.Background(), url, "k", []byte("{}"))
	if d.Err != nil || got != "hook:s3cret" {
		t.Errorf("delivery %v, Basic auth %q; want hook:s3cret", d.Err, got)
	}
}

// TestProtocolErrorIsMisconfigured: an answer that is not HTTP is not
// retried in this run (ErrProtocol wraps ErrMisconfigured); a refused
// connection still is retried.
func TestProtocolErrorIsMisconfigured(t *testing.T) {
	if !errors.Is(ErrProtocol, ErrMisconfigured) {
		t.Fatal("ErrProtocol must wrap ErrMisconfigured")
	}
	p := NewPoster(200*time.Millisecond, 600*time.Millisecond, nil)
	d := p.Post(context.Background(), "http://127.0.0.1:1/hook", "k", []byte("{}"))
	if errors.Is(d.Err, ErrMisconfigured) || d.Attempts < 2 {
		t.Errorf("a refused connection: %d attempt(s), %v; want retried", d.Attempts, d.Err)
	}
}

// TestAJournalWithoutItsRoomSaysSoAtStart (R7-4): a journal that cannot
// keep the room for kills under way at start says so in its warnings and
// in RoomProblem (the header's journal status) before any kill, and says
// nothing once the room is kept. The room is refused by RLIMIT_FSIZE,
// which room checks first (Go ignores SIGXFSZ: a write past it fails).
func TestAJournalWithoutItsRoomSaysSoAtStart(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "j.jsonl")
	lim := old
	lim.Cur = 64 << 10 // under ReserveBytes
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	j, err := OpenJournal(path)
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if p := j.RoomProblem(); !strings.Contains(p, "kills are held") {
		t.Errorf("RoomProblem = %q, want the held kills said", p)
	}
	if w := strings.Join(j.Warnings(), "\n"); !strings.Contains(w, "kills are held") {
		t.Errorf("warnings %q do not say it", w)
	}
	if err := j.Reserve(); err != nil {
		t.Fatalf("the limit lifted, Reserve: %v", err)
	}
	if p := j.RoomProblem(); p != "" {
		t.Errorf("RoomProblem = %q once the room is kept, want none", p)
	}
}
