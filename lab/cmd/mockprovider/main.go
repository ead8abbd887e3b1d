// Command mockprovider serves the lab's mock LLM provider (docs/lab.md) and
// writes its ledger: one JSON line per HTTP request received.
//
//	go run ./lab/cmd/mockprovider -addr 127.0.0.1:8788 -seed 0 -ledger ledger.jsonl
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/burnrate-dev/burnrate/lab/mockprovider"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (port 0: a free port, printed on stdout)")
	seed := flag.Uint64("seed", 0, "failure schedule: 0 is seed 000's 529 storm, any other value a mixed night")
	ledger := flag.String("ledger", "ledger.jsonl", "the ledger file (truncated)")
	retryAfter := flag.Int("retry-after-ms", 0, "add retry-after-ms to 5xx answers: the lab's clock (changes timing, never counts)")
	flag.Parse()
	if err := run(*addr, *seed, *ledger, *retryAfter); err != nil {
		fmt.Fprintln(os.Stderr, "mockprovider:", err)
		os.Exit(1)
	}
}

func run(addr string, seed uint64, ledgerPath string, retryAfter int) error {
	l, err := mockprovider.CreateLedger(ledgerPath)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: &mockprovider.Server{Schedule: mockprovider.Schedule{Seed: seed}, Ledger: l, RetryAfterMs: retryAfter},
		ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return l.Close()
}
