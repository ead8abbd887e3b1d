package alerts

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
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
