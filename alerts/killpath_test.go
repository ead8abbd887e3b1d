package alerts

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// TestJournalSurvivesGarbageAndTornLines: issue 11 — a line over 1 MiB
// silently ended the read-back (so every acknowledged kill was sent again)
// and a torn line glued onto the next record. Now both are skipped with a
// warning naming the file and line, and every whole record is kept.
func TestJournalSurvivesGarbageAndTornLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	var b bytes.Buffer
	b.WriteString(`{"time":"2026-12-01T00:00:00Z","key":"a","action":"kill_webhook","state":"acknowledged"}` + "\n")
	b.WriteString(strings.Repeat("x", 2<<20) + "\n") // 2 MiB of garbage
	b.WriteString(`{"time":"2026-12-01T00:00:01Z","key":"b","action":"kill_webhook","state":"acknowledged"}` + "\n")
	b.WriteString(`{"time":"2026-12-01T00:00:02Z","key":"c","action":"kill_webhook","state":"ackno`) // torn by a crash
	os.WriteFile(path, b.Bytes(), 0o600)

	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if r, ok := j.Last(k); !ok || !r.State.Blocks() {
			t.Errorf("record %s after the garbage was lost: %+v %v", k, r, ok)
		}
	}
	w := strings.Join(j.Warnings(), "\n")
	if !strings.Contains(w, path+" line 2: longer than 1 MiB") || !strings.Contains(w, path+" line 4: torn") {
		t.Errorf("warnings must name the file and line:\n%s", w)
	}
	// The next record must not glue onto the torn one.
	if err := j.Append(Record{Key: "d", Action: actionKillWebhook, State: StateAcknowledged}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j2, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if r, ok := j2.Last("d"); !ok || r.State != StateAcknowledged {
		t.Errorf("the record after a torn line was swallowed: %+v %v; warnings %v", r, ok, j2.Warnings())
	}
	if _, ok := j2.Last("c"); ok {
		t.Error("the torn record was taken as whole")
	}
}

// TestJournalRecoversARecordGluedOntoATornOne: a journal written before
// the torn-line fix may hold "torn…{whole record}" on one line.
func TestJournalRecoversARecordGluedOntoATornOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	os.WriteFile(path, []byte(`{"time":"2026-12-01T00:00:02Z","key":"c","sta`+`{"time":"2026-12-01T00:00:03Z","key":"e","action":"kill_exec","state":"acknowledged"}`+"\n"), 0o600)
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if r, ok := j.Last("e"); !ok || r.State != StateAcknowledged {
		t.Errorf("glued record lost: %+v; %v", r, j.Warnings())
	}
}

// TestJournalCompactsToItsLiveState: past compactAbove the journal is
// rewritten to the last record of each action, keeping what a restart
// needs (unfinished requests with their alert).
func TestJournalCompactsToItsLiveState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("p", 4096)
	alert := Alert{Rule: RuleJobCeiling, Scope: "job", JobID: "pending-job", RunID: "r"}
	j.Append(Record{Key: "pending", Action: actionKillWebhook, State: StateRequested, Alert: &alert})
	for i := 0; j.sizeNow() <= compactAbove-8192; i++ {
		j.Append(Record{Key: "k" + string(rune('a'+i%20)), Action: actionKillWebhook, State: StateAcknowledged, Stderr: pad})
	}
	j.Append(Record{Key: "last", Action: actionKillWebhook, State: StateAcknowledged, Stderr: pad})
	j.Append(Record{Key: "last2", Action: actionKillWebhook, State: StateAcknowledged, Stderr: pad})
	j.Close()
	fi, _ := os.Stat(path)
	if fi.Size() > 1<<20 {
		t.Fatalf("journal is %d bytes after compaction", fi.Size())
	}
	j2, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if u := j2.Unfinished(); len(u) != 1 || u[0].Alert == nil || u[0].Alert.JobID != "pending-job" {
		t.Errorf("unfinished after compaction: %+v", u)
	}
	if r, ok := j2.Last("last2"); !ok || r.State != StateAcknowledged {
		t.Error("a finished record was lost by compaction")
	}
	if len(j2.Warnings()) != 0 {
		t.Errorf("a compacted journal reads with warnings: %v", j2.Warnings())
	}
}

// TestQueuePastCapacityDeliversEveryKill: issue 11 — 72 of 1,100 kills were
// journaled "action queue full: not sent" and never delivered. A burst now
// waits for a worker, and every kill is delivered once.
func TestQueuePastCapacityDeliversEveryKill(t *testing.T) {
	ks := newKillServer(t, nil)
	dir := t.TempDir()
	j, err := OpenJournal(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var queued atomic.Int64
	d := NewDispatcher(Hooks{KillWebhook: ks.URL}, NewPoster(5*time.Second, 30*time.Second, nil), j, func(r Result) {
		if r.State == StateRequested && strings.HasPrefix(r.Detail, "queued") {
			queued.Add(1)
		}
	})
	d.Start(context.Background())
	for i := range 1100 {
		d.Kill(Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "night", JobID: "job-" + itoa(i), At: int64(i)})
	}
	d.Wait()
	d.Shutdown(context.Background())
	seen := map[string]int{}
	for _, k := range ks.kills() {
		seen[k.JobID]++
	}
	if len(seen) != 1100 {
		t.Errorf("%d distinct jobs killed, want 1,100", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s killed %d times", id, n)
		}
	}
	if queued.Load() == 0 {
		t.Error("a burst past the workers must say that kills are queued")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if n := bytes.Count(b, []byte(`"state":"acknowledged"`)); n != 1100 || bytes.Contains(b, []byte(`"state":"failed"`)) {
		t.Errorf("journal: %d acknowledged, failed present: %v", n, bytes.Contains(b, []byte(`"state":"failed"`)))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestShutdownLeavesPendingKillsRequested: a stop with the receiver hung
// must not journal the kills as failed (a restart sent 0 of 50); they stay
// requested and the next start delivers each once, under the same key.
func TestShutdownLeavesPendingKillsRequested(t *testing.T) {
	release := make(chan struct{})
	var hung atomic.Int64
	hang := newKillServer(t, nil)
	hang.Config.Handler = handlerFunc(func() { hung.Add(1); <-release })
	defer close(release)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _ := OpenJournal(path)
	d := NewDispatcher(Hooks{KillWebhook: hang.URL}, NewPoster(time.Minute, time.Minute, nil), j, nil)
	d.Start(context.Background())
	for i := range 50 {
		d.Kill(Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "night", JobID: "job-" + itoa(i)})
	}
	waitFor(t, "the network workers to be stuck", 5*time.Second, func() bool { return hung.Load() >= maxNetWorkers })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	start := time.Now()
	d.Shutdown(ctx)
	cancel()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("shutdown took %s with a 200ms drain window", took)
	}
	b, _ := os.ReadFile(path)
	if bytes.Contains(b, []byte(`"state":"failed"`)) {
		t.Fatalf("a stop journaled kills as failed:\n%s", b)
	}

	ok := newKillServer(t, nil)
	j2, _ := OpenJournal(path)
	d2 := NewDispatcher(Hooks{KillWebhook: ok.URL}, NewPoster(time.Second, 5*time.Second, nil), j2, nil)
	d2.Start(context.Background())
	d2.Wait()
	d2.Shutdown(context.Background())
	got := ok.kills()
	keys := map[string]int{}
	ok.mu.Lock()
	for _, k := range ok.keys {
		keys[k]++
	}
	ok.mu.Unlock()
	if len(got) != 50 || len(keys) != 50 {
		t.Errorf("after restart %d kills delivered with %d distinct keys, want 50 each", len(got), len(keys))
	}
	for _, k := range got {
		if want := IdempotencyKey(actionKillWebhook, Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "night", JobID: k.JobID}); ok.keys[k.JobID] != want {
			t.Errorf("%s re-sent under key %s, want the original %s", k.JobID, ok.keys[k.JobID], want)
		}
	}
	// A third start has nothing left to send.
	third := newKillServer(t, nil)
	j3, _ := OpenJournal(path)
	d3 := NewDispatcher(Hooks{KillWebhook: third.URL}, NewPoster(time.Second, 5*time.Second, nil), j3, nil)
	d3.Start(context.Background())
	d3.Wait()
	d3.Shutdown(context.Background())
	if n := len(third.kills()); n != 0 {
		t.Errorf("a third start re-sent %d acknowledged kills", n)
	}
}

// TestRefusalsNeverBlockALaterRun: issue 11 — a --readonly or --dry-run run
// journaled refused / would_fire and a later real run refused to kill.
func TestRefusalsNeverBlockALaterRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	a := Alert{Rule: RuleRunCeiling, Scope: "run", RunID: "night-1"}
	for _, h := range []Hooks{{KillWebhook: "http://127.0.0.1:9/x", ReadOnly: true}, {KillWebhook: "http://127.0.0.1:9/x", DryRun: true}} {
		j, _ := OpenJournal(path)
		d := NewDispatcher(h, NewPoster(time.Second, time.Second, nil), j, nil)
		d.Start(context.Background())
		d.Kill(a)
		d.Shutdown(context.Background())
	}
	ks := newKillServer(t, nil)
	j, _ := OpenJournal(path)
	d := NewDispatcher(Hooks{KillWebhook: ks.URL}, NewPoster(time.Second, 5*time.Second, nil), j, nil)
	d.Start(context.Background())
	d.Kill(a)
	d.Wait()
	d.Shutdown(context.Background())
	if n := len(ks.kills()); n != 1 {
		t.Errorf("the real run sent %d kills after read-only and dry runs, want 1", n)
	}
}

// TestKeysCarryTheRun: the same rule and subject on another night is
// another kill; on the same night it is the same one.
func TestKeysCarryTheRun(t *testing.T) {
	a := Alert{Rule: RuleRunCeiling, Scope: "run", RunID: "night-a"}
	b := a
	b.RunID = "night-b"
	if IdempotencyKey(actionKillWebhook, a) == IdempotencyKey(actionKillWebhook, b) {
		t.Error("two nights' run ceilings share a key")
	}
	if IdempotencyKey(actionKillWebhook, a) != IdempotencyKey(actionKillWebhook, a) {
		t.Error("a key is not stable")
	}
}

// TestHostileIDsNeverBecomeOptionsOrPaths: issue 11 — job ID "--all" made
// "kubectl delete job --all", and "../victim" with rm -f /srv/jobs/{job_id}
// deleted a file outside that directory.
func TestHostileIDsNeverBecomeOptionsOrPaths(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs")
	os.Mkdir(jobs, 0o755)
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me"), 0o600)
	etc := filepath.Join(dir, "etc")
	os.WriteFile(etc, []byte("keep me"), 0o600)
	rm, err := ParseExec("rm -f "+jobs+"/{job_id}", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	touch, _ := ParseExec("touch "+dir+"/{job_id}", 5*time.Second)
	for _, id := range []string{"--all", "-rf", "../victim", "a/../../etc", "..", ".", "-", "x/./y", "/etc/passwd", "//x"} {
		for _, tmpl := range []*ExecTemplate{rm, touch} {
			res := tmpl.Run(context.Background(), Alert{JobID: id, Scope: "job", Rule: RuleJobCeiling}, nil)
			if res.Err == nil || res.Argv != nil || !strings.Contains(res.Err.Error(), "was not run") {
				t.Errorf("job ID %q was not refused: %+v", id, res)
			}
		}

	}
	typed, _ := ParseExec("echo {job_type}", time.Second)
	if res := typed.Run(context.Background(), Alert{JobID: "j", JobType: "--all"}, nil); res.Err == nil {
		t.Error("a hostile {job_type} was substituted")
	}
	for _, f := range []string{victim, etc} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "keep me" {
			t.Errorf("%s was touched: %v", f, err)
		}
	}
	// A plain ID still runs.
	if res := rm.Run(context.Background(), Alert{JobID: "rec-42", Scope: "job"}, nil); res.Err != nil {
		t.Errorf("a plain ID was refused: %v", res.Err)
	}
}

// TestManualKillWarnsWhenTheJobKeepsLogging: issue 11 — a job killed from
// the dashboard that kept logging raised no "still logging" warning.
func TestManualKillWarnsWhenTheJobKeepsLogging(t *testing.T) {
	ks := newKillServer(t, nil)
	d := NewDispatcher(Hooks{KillWebhook: ks.URL}, NewPoster(time.Second, 5*time.Second, nil), nil, nil)
	d.Start(context.Background())
	defer d.Shutdown(context.Background())
	rules := NewRules(Config{}, d, nil)
	st := correlate.New(correlate.DefaultConfig())
	apply := func(ms int64) {
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.JobID, ev.Model, ev.Status = 1773104400000000000+ms*1e6, ingest.KindLLMCall, "j", "claude-sonnet-4-6", 200
		rules.Observe(st, st.Apply(&ev), &ev)
	}
	apply(0)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the dashboard's goroutine
		defer wg.Done()
		NewManual(rules).Kill(correlate.JobRow{ID: "j"}, 1773104400000000000)
	}()
	wg.Wait()
	d.Wait()
	apply(1000)
	if ks := rules.KillStates()["j"]; ks.State != StateAcknowledged || !ks.StillLogging {
		t.Errorf("kill state %+v, want acknowledged and still logging", ks)
	}
	found := false
	for _, l := range rules.Lines() {
		found = found || strings.Contains(l.Text, "still logging attempts after its kill")
	}
	if !found {
		t.Error("no still-logging warning after a manual kill")
	}
	if k := ks.kills(); len(k) != 1 || k[0].RunID == "" {
		t.Errorf("manual kill: %+v (a kill must carry its run)", k)
	}
}

type handlerFunc func()

func (h handlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) { h() }

// TestAKillCommandNeverWaitsForAReceiver: R7b-7 — with the kill webhook
// and the notify webhook both hung (one outage takes both), the kill
// command waited 52 s for the webhook's retries to give up: the one
// worker kept for kills was held by a network delivery. One worker is
// kept for kill commands, which wait for no receiver.
func TestAKillCommandNeverWaitsForAReceiver(t *testing.T) {
	release := make(chan struct{})
	var hung atomic.Int64
	hang := newKillServer(t, nil)
	hang.Config.Handler = handlerFunc(func() { hung.Add(1); <-release })
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	tmpl, err := ParseExec("/bin/sh -c 'echo {job_id} >> "+ran+"'", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := OpenJournal(filepath.Join(dir, "journal.jsonl"))
	d := NewDispatcher(Hooks{KillWebhook: hang.URL, NotifyWebhook: hang.URL, KillExec: tmpl}, NewPoster(time.Minute, time.Minute, nil), j, nil)
	d.Start(context.Background())
	defer func() {
		close(release)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		d.Shutdown(ctx)
	}()
	for i := range 6 {
		d.Notify(Alert{Rule: "finding:x" + itoa(i), Scope: "run", RunID: "night"})
	}
	for i := range 3 {
		d.Kill(Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "night", JobID: "job-" + itoa(i)})
	}
	waitFor(t, "three kill commands run while the receivers hang", 10*time.Second, func() bool {
		b, _ := os.ReadFile(ran)
		return bytes.Count(b, []byte("job-")) == 3
	})
	// Every network delivery a worker may make is now hung; a later
	// kill's command still runs at once.
	waitFor(t, "the network deliveries to hang", 10*time.Second, func() bool { return hung.Load() >= maxNetWorkers })
	d.Kill(Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "night", JobID: "job-9"})
	waitFor(t, "a later kill's command", 10*time.Second, func() bool {
		b, _ := os.ReadFile(ran)
		return bytes.Contains(b, []byte("job-9"))
	})
}
