package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/lab/mockprovider"
)

// The command as a user runs it: it prints where it listens, answers the
// storm, and on SIGTERM exits 0 with every request in its ledger.
func TestCommandWritesLedgerAndStops(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "mockprovider")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ledger := filepath.Join(dir, "ledger.jsonl")
	cmd := exec.Command(bin, "-seed", "0", "-ledger", ledger)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequest("POST", url+"/v1/messages", strings.NewReader(`{"model":"claude-sonnet-4-5","metadata":{"user_id":"job-7"}}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 529 {
			t.Fatalf("status %d, want 529", resp.StatusCode)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit within 10 s of SIGTERM")
	}
	f, err := os.Open(ledger)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	es, err := mockprovider.ReadLedger(f)
	if err != nil || len(es) != 3 || es[2].Job != "job-7" || es[2].Status != 529 {
		t.Fatalf("ledger %v %+v", err, es)
	}
}
