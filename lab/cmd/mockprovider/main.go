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
	night := flag.Bool("night", false, "seed 000's night: a 529 storm that closes part-way (1,043 requests for the lab's 22 report jobs)")
	flag.Parse()
	sched := mockprovider.Schedule{Seed: *seed}
	if *night {
		sched.Window = &mockprovider.SeedNight
	}
	if err := run(*addr, sched, *ledger, *retryAfter); err != nil {
		fmt.Fprintln(os.Stderr, "mockprovider:", err)
		os.Exit(1)
	}
}

func run(addr string, sched mockprovider.Schedule, ledgerPath string, retryAfter int) error {
	l, err := mockprovider.CreateLedger(ledgerPath)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: &mockprovider.Server{Schedule: sched, Ledger: l, RetryAfterMs: retryAfter},
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
