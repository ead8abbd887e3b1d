package e2e

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestADeadReceiverHoldsNoWorkers: issue 34 — with the kill receiver
// down, every delivery held a worker for its whole deadline, and fifty
// kills took their turns against a receiver known dead. Its circuit
// breaker opens after three failures in a row: the kills queued while it
// is open are held (journaled, none dropped), a probe at a time tries the
// receiver, and once it answers all fifty are delivered, each once.
func TestADeadReceiverHoldsNoWorkers(t *testing.T) {
	const outage = 5 * time.Second
	rc := newFlaky(t, func(_ int, since time.Duration) reply {
		if since < outage {
			return reply{status: 200, delay: 10 * time.Second} // hung: the client's timeout ends it
		}
		return reply{status: 200}
	})
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
	night(t, logPath, "2026-03-10", 50)
	cfg := actionsConfig(t, dir, "timeout = \"400ms\"\ndeadline = \"400ms\"\nretry_for = \"2m\"\n")
	d := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", journal, logPath)
	defer d.stop(syscall.SIGTERM)
	acked := func() map[string]int {
		keys, at := rc.requests()
		n := map[string]int{}
		for i, k := range keys {
			if at[i] >= outage {
				n[k]++
			}
		}
		return n
	}
	waitUntil(t, "fifty kills delivered after the outage", outage+30*time.Second, func() bool { return len(acked()) == 50 })
	time.Sleep(time.Second)
	keys, at := rc.requests()
	during := 0
	for _, a := range at {
		if a < outage {
			during++
		}
	}
	t.Logf("%d requests to the dead receiver in %s, %d in all, the last at %s", during, outage, len(keys), at[len(at)-1].Round(time.Millisecond))
	if during > 15 {
		t.Errorf("%d requests to a receiver down for %s: the breaker did not hold the kills", during, outage)
	}
	for k, n := range acked() {
		if n != 1 {
			t.Errorf("key %s delivered %d times after the outage, want once", k, n)
		}
	}
	if !strings.Contains(d.out(), "circuit breaker is open") {
		t.Errorf("the held kills are not said:\n%s", d.out())
	}
}

// TestACleanStopLosesNoKillTheBreakerHolds: the kills a receiver's open
// breaker holds are left requested by a clean stop, and the next start
// (following from the end: only the journal can send them) delivers
// each once, under its key.
func TestACleanStopLosesNoKillTheBreakerHolds(t *testing.T) {
	down := newFlaky(t, func(int, time.Duration) reply { return reply{status: 503} })
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
	night(t, logPath, "2026-03-10", 50)
	cfg := actionsConfig(t, dir, "timeout = \"200ms\"\ndeadline = \"200ms\"\nretry_for = \"2m\"\n")
	d := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", down.URL, "--journal", journal, logPath)
	waitUntil(t, "the breaker open", 20*time.Second, func() bool { return strings.Contains(d.out(), "circuit breaker is open") })
	d.stop(syscall.SIGTERM)
	downKeys, _ := down.requests()
	up := newReceiver(t, false)
	d2 := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", up.URL, "--journal", journal, "--from-end", logPath)
	waitUntil(t, "fifty kills sent by the next start", 20*time.Second, func() bool { k, _ := up.snapshot(); return len(k) == 50 })
	time.Sleep(500 * time.Millisecond)
	d2.stop(syscall.SIGTERM)
	keys, _ := up.snapshot()
	t.Logf("%d requests to the dead receiver before the stop; %d keys after the restart", len(downKeys), len(keys))
	for k, n := range keys {
		if n != 1 {
			t.Errorf("key %s sent %d times after the restart, want once", k, n)
		}
	}
}
