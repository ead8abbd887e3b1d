package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// demoKillNote is what the dashboard says of the demo's kill hook.
const demoKillNote = "demo: kills go to an in-process receiver"

// demoReceiver is the demo's kill hook: an HTTP receiver on loopback,
// inside this process, that acknowledges every kill. It lets the demo show
// x, its confirm dialog and the kill's states without sending anything
// anywhere; the dashboard says so (demoKillNote).
type demoReceiver struct {
	srv   *http.Server
	url   string
	kills atomic.Int64
}

func startDemoReceiver() (*demoReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: the in-process kill receiver could not listen: %w", err)
	}
	d := &demoReceiver{url: "http://" + ln.Addr().String() + "/demo-kill"}
	d.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		d.kills.Add(1)
		w.WriteHeader(http.StatusOK) // acknowledged: the demo's jobs are not real
	})}
	go func() {
		if err := d.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "burnrate: demo kill receiver:", err)
		}
	}()
	return d, nil
}

func (d *demoReceiver) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	d.srv.Shutdown(ctx)
}

// demoKills wires the demo's kill hook when none is given: the in-process
// receiver, and a journal in a temporary directory (never the operator's
// real journal: the demo's kills are not theirs). The returned func stops
// the receiver and removes the directory.
func demoKills(l *liveFlags) (func(), error) {
	if l.act.KillWebhook != "" || l.act.KillExec != "" {
		return func() {}, nil // the operator's own hook: shown as it is
	}
	recv, err := startDemoReceiver()
	if err != nil {
		return nil, err
	}
	cleanup := recv.Close
	if l.act.Journal == "" {
		dir, err := os.MkdirTemp("", "burnrate-demo-")
		if err != nil {
			recv.Close()
			return nil, fmt.Errorf("demo: a temporary journal directory: %w", err)
		}
		l.act.Journal = filepath.Join(dir, "journal.jsonl")
		cleanup = func() { recv.Close(); os.RemoveAll(dir) }
	}
	l.act.KillWebhook = recv.url
	l.killNote = demoKillNote
	fmt.Fprintf(os.Stderr, "burnrate: %s (%s), journal %s (removed on exit)\n", demoKillNote, recv.url, l.act.Journal)
	return cleanup, nil
}
