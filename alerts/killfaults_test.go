package alerts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// resultLog collects a dispatcher's reports.
type resultLog struct {
	mu  sync.Mutex
	all []Result
}

func (l *resultLog) add(r Result) { l.mu.Lock(); l.all = append(l.all, r); l.mu.Unlock() }
func (l *resultLog) states() []ActionState {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []ActionState
	for _, r := range l.all {
		out = append(out, r.State)
	}
	return out
}
func (l *resultLog) last() Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return Result{}
	}
	return l.all[len(l.all)-1]
}

// killOnce runs one kill through a fresh dispatcher on journal and returns
// its results once it finished.
func killOnce(t *testing.T, journal, url string, a Alert) *resultLog {
	t.Helper()
	j, err := OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	var log resultLog
	d := NewDispatcher(Hooks{KillWebhook: url}, NewPoster(time.Second, 3*time.Second, nil), j, log.add)
	d.Start(context.Background())
	if a.Rule != "" {
		d.Kill(a)
	}
	d.Wait()
	d.Shutdown(context.Background())
	return &log
}

// TestRedirectIsNeverTakenForAKill: issue 21 — Go's client followed a
// 301/302 as a body-less GET whose 200 was journaled acknowledged, and a
// 307/308 re-sent the signed body to whatever Location named. Now no
// redirect is followed: the kill is "misconfigured", names the Location,
// reaches no other host, and is sent again once the URL is fixed.
func TestRedirectIsNeverTakenForAKill(t *testing.T) {
	for _, code := range []int{301, 302, 307, 308} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			var elsewhere atomic.Int32
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
			defer other.Close()
			redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/kill?token=s3cret", code)
			}))
			defer redirector.Close()
			journal := filepath.Join(t.TempDir(), "journal.jsonl")
			a := Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "n1", JobID: "job-1"}

			log := killOnce(t, journal, redirector.URL, a)
			last := log.last()
			if last.State != StateMisconfigured || !strings.Contains(last.Detail, "redirects to "+other.URL+"/…?…") {
				t.Fatalf("a %d was reported %s: %s", code, last.State, last.Detail)
			}
			if strings.Contains(last.Detail, "s3cret") {
				t.Errorf("the Location's query reached the report: %s", last.Detail)
			}
			if n := elsewhere.Load(); n != 0 {
				t.Fatalf("the redirect was followed: the other host got %d request(s)", n)
			}
			b, _ := os.ReadFile(journal)
			if strings.Contains(string(b), `"state":"acknowledged"`) || !strings.Contains(string(b), `"state":"misconfigured"`) {
				t.Fatalf("journal after a %d:\n%s", code, b)
			}

			// The operator points the hook at the real receiver and restarts.
			ks := newKillServer(t, nil)
			log = killOnce(t, journal, ks.URL, Alert{})
			if got := ks.kills(); len(got) != 1 || got[0].JobID != "job-1" || log.last().State != StateAcknowledged {
				t.Fatalf("after the fix: %d kill(s) delivered, results %v", len(got), log.states())
			}
			// And it is finished: a third start sends nothing.
			killOnce(t, journal, ks.URL, a)
			if n := len(ks.kills()); n != 1 {
				t.Errorf("an acknowledged kill was sent again: %d deliveries", n)
			}
		})
	}
}

// TestWrongURLOrTokenIsSentAgainButARefusalIsNot: issue 21 — a 401 or 404
// was final for ever, so fixing the receiver's token and restarting never
// sent the kill. 401/403/404/405 are misconfigured (sent again at the next
// start); 400/409/422 are the receiver's verdict and stay final.
func TestWrongURLOrTokenIsSentAgainButARefusalIsNot(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   ActionState
		again  bool
	}{{401, StateMisconfigured, true}, {403, StateMisconfigured, true}, {404, StateMisconfigured, true}, {405, StateMisconfigured, true},
		{400, StateRejected, false}, {409, StateRejected, false}, {422, StateRejected, false}} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			var calls atomic.Int32
			status := atomic.Int32{}
			status.Store(int32(tc.status))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				io.Copy(io.Discard, r.Body)
				w.WriteHeader(int(status.Load()))
			}))
			defer srv.Close()
			journal := filepath.Join(t.TempDir(), "journal.jsonl")
			log := killOnce(t, journal, srv.URL, Alert{Rule: RuleRunCeiling, Scope: "run", RunID: "n1"})
			if got := log.last().State; got != tc.want || calls.Load() != 1 {
				t.Fatalf("HTTP %d: state %s after %d call(s), want %s after 1", tc.status, got, calls.Load(), tc.want)
			}
			status.Store(200) // the receiver is fixed
			killOnce(t, journal, srv.URL, Alert{})
			if sent := calls.Load() == 2; sent != tc.again {
				t.Errorf("HTTP %d then a restart: sent again = %v, want %v", tc.status, sent, tc.again)
			}
		})
	}
}

// TestKillCommandLeavingABackgroundChildDoesNotHang: issue 21 — the worker
// waited for the inherited stderr of a child the command left behind:
// never acknowledged, and the stop hung past its drain window.
func TestKillCommandLeavingABackgroundChildDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	tmpl, err := ParseExec(`sh -c 'sleep 30 & echo $! > `+pidFile+`; echo killed {job_id}'`, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := tmpl.Run(context.Background(), Alert{JobID: "job-7", Scope: "job", Rule: RuleJobCeiling}, nil)
	took := time.Since(start)
	if res.Err != nil || res.ExitCode != 0 || res.Stdout != "killed job-7" {
		t.Fatalf("result %+v", res)
	}
	if took > execWaitDelay+5*time.Second {
		t.Errorf("the kill took %s: the lingering child held it", took)
	}
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestHungScriptIsEndedAsAGroupAtItsTimeout: issue 21 — at exec_timeout
// only the shell was killed; its child held the pipes for 40 s with a 3 s
// timeout. The command runs in its own process group, killed whole.
func TestHungScriptIsEndedAsAGroupAtItsTimeout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	tmpl, err := ParseExec(`sh -c 'sleep 40 & echo $! > `+pidFile+`; wait'`, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := tmpl.Run(context.Background(), Alert{JobID: "job-7", Scope: "job", Rule: RuleJobCeiling}, nil)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "timed out") {
		t.Fatalf("a hung script was not reported timed out: %+v", res)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("ended after %s with a 1s timeout", took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	gone := false
	for range 50 {
		if !processRuns(pid) {
			gone = true
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !gone {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the script's child %d outlived the timeout", pid)
	}
}

// TestOneJournalOneOwner: issue 21 — two processes on one journal both ran
// every kill, and one's compaction renamed the file away from the other.
// The second opener is refused with the holder's PID; after Close (or the
// holder's death: the kernel drops a flock) the journal opens again.
func TestOneJournalOneOwner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenJournal(path)
	if !errors.Is(err, ErrJournalLocked) || !strings.Contains(err.Error(), "burnrate PID "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("a second opener got %v", err)
	}
	// A reader without hooks may look, and never writes.
	ro, err := OpenJournalReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ro.Append(Record{Key: "k", State: StateRequested}); err == nil {
		t.Error("a read-only journal accepted a write")
	}
	j.Close()
	j2, err := OpenJournal(path)
	if err != nil {
		t.Fatalf("after Close the journal could not be opened: %v", err)
	}
	j2.Close()
}

// TestCompactionPrunesWhatCanNeverActAgain: issue 21 — a journal past
// 16 MiB of records that compaction kept (dry runs, refusals, month-old
// failures) was rewritten and fsync'd on every append: 629 ms per kill.
// Those are dropped, so the first compaction leaves a small file and
// appends stay O(record).
func TestCompactionPrunesWhatCanNeverActAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	old := time.Now().Add(-40 * 24 * time.Hour).UTC().Format(time.RFC3339Nano)
	yesterday := time.Now().Add(-2 * ResendWithin).UTC().Format(time.RFC3339Nano)
	recent := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	f, _ := os.Create(path)
	pad := strings.Repeat("p", 2000)
	for i := 0; ; i++ {
		var line string
		switch i % 4 {
		case 0:
			line = fmt.Sprintf(`{"time":%q,"key":"dry-%d","action":"kill_webhook","state":"would_fire","stderr":%q}`, recent, i, pad)
		case 1:
			line = fmt.Sprintf(`{"time":%q,"key":"ref-%d","action":"kill_webhook","state":"refused","stderr":%q}`, recent, i, pad)
		case 2:
			line = fmt.Sprintf(`{"time":%q,"key":"old-%d","action":"kill_webhook","state":"acknowledged","stderr":%q}`, old, i, pad)
		case 3:
			line = fmt.Sprintf(`{"time":%q,"key":"stale-%d","action":"kill_webhook","state":"failed","stderr":%q}`, yesterday, i, pad)
		}
		f.WriteString(line + "\n")
		if fi, _ := f.Stat(); fi.Size() > 17<<20 {
			break
		}
	}
	fmt.Fprintf(f, `{"time":%q,"key":"keep-done","action":"kill_webhook","state":"acknowledged"}`+"\n", recent)
	fmt.Fprintf(f, `{"time":%q,"key":"keep-pending","action":"kill_webhook","state":"requested","alert":{"rule":"job_ceiling","scope":"job","job_id":"pending","run_id":"r"}}`+"\n", recent)
	f.Close()

	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Size() > 4096 {
		t.Fatalf("after compaction the journal is %d bytes", fi.Size())
	}
	for i := range 300 {
		if err := j.Append(Record{Key: "new-" + strconv.Itoa(i), Action: actionKillWebhook, State: StateAcknowledged}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	j2, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if r, ok := j2.Last("keep-done"); !ok || r.State != StateAcknowledged {
		t.Error("a recent acknowledged kill was pruned: it would be sent again")
	}
	if u := j2.Unfinished(); len(u) != 1 || u[0].Key != "keep-pending" {
		t.Errorf("unfinished after pruning: %+v", u)
	}
	for i := range 300 {
		if _, ok := j2.Last("new-" + strconv.Itoa(i)); !ok {
			t.Fatalf("record new-%d was lost", i)
		}
	}
	if _, ok := j2.Last("dry-0"); ok {
		t.Error("a dry run's record survived compaction")
	}
}

// TestAppendsDuringCompactionAreKept holds the compactor to its promise:
// records appended while it writes the new file are in the new file.
func TestAppendsDuringCompactionAreKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("q", 8192)
	n := 0
	for ; j.sizeNow() < 3*compactAbove; n++ {
		if err := j.Append(Record{Key: "k" + strconv.Itoa(n), Action: actionKillWebhook, State: StateAcknowledged, Stderr: pad}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	j2, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	for i := range n {
		if _, ok := j2.Last("k" + strconv.Itoa(i)); !ok {
			t.Fatalf("record k%d of %d was lost across compactions", i, n)
		}
	}
	if w := j2.Warnings(); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
}

// TestResendAndTheLogRaisingItRunOnce: issue 21 — after a crash, the
// resend of an unfinished kill and the log raising it again raced between
// the journal check and the in-flight set: 5 of 200 ran twice.
func TestResendAndTheLogRaisingItRunOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	var alertsList []Alert
	for i := range 200 {
		a := Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "n1", JobID: "job-" + strconv.Itoa(i)}
		alertsList = append(alertsList, a)
		j.Append(Record{Key: IdempotencyKey(actionKillWebhook, a), Action: actionKillWebhook, State: StateRequested, Alert: &a})
	}
	j.Close() // as a crash would leave it: 200 requested

	ks := newKillServer(t, nil)
	j, err = OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDispatcher(Hooks{KillWebhook: ks.URL}, NewPoster(time.Second, 5*time.Second, nil), j, nil)
	started := make(chan struct{})
	go func() { d.Start(context.Background()); close(started) }()
	time.Sleep(time.Millisecond)   // the resend under way as the log re-raises
	for _, a := range alertsList { // the log re-raises every one at once
		d.Kill(a)
	}
	<-started
	d.Wait()
	d.Shutdown(context.Background())
	per := map[string]int{}
	for _, k := range ks.kills() {
		per[k.JobID]++
	}
	twice := 0
	for _, n := range per {
		if n > 1 {
			twice++
		}
	}
	if twice != 0 || len(per) != 200 {
		t.Errorf("%d of 200 kills ran twice; %d delivered", twice, len(per))
	}
}

// TestLostCommandOutcomeIsRunAgainOnlyOnce: a kill command whose outcome
// the journal never got (a crash mid-run, a full disk) is run once more at
// the next start, and said; lost a second time, it is not run blind again.
func TestLostCommandOutcomeIsRunAgainOnlyOnce(t *testing.T) {
	a := Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "n1", JobID: "job-1"}
	key := IdempotencyKey(actionKillExec, a)
	for _, tc := range []struct {
		resent  int
		wantRun int
		want    ActionState
	}{{0, 1, StateAcknowledged}, {1, 0, StateGaveUp}} {
		dir := t.TempDir()
		path, ran := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "ran")
		j, _ := OpenJournal(path)
		// "sent": the command had started (a requested record with no
		// "sent" after it is a command that never started).
		j.Append(Record{Key: key, Action: actionKillExec, State: StateSent, Alert: &a, Resent: tc.resent})
		j.Close()
		tmpl, _ := ParseExec(`sh -c 'echo x >> `+ran+`'`, 5*time.Second)
		j, err := OpenJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		var log resultLog
		d := NewDispatcher(Hooks{KillExec: tmpl}, nil, j, log.add)
		d.Start(context.Background())
		d.Wait()
		// The log, read again from the start, raises the same kill: it
		// must not run the command a time more either (red team: it did).
		d.Kill(a)
		d.Wait()
		d.Shutdown(context.Background())
		b, _ := os.ReadFile(ran)
		if n := strings.Count(string(b), "x"); n != tc.wantRun || !slices.Contains(log.states(), tc.want) {
			t.Errorf("outcome lost %d time(s) before: ran %d time(s), state %s (%s); want %d, %s", tc.resent+1, n, log.last().State, log.last().Detail, tc.wantRun, tc.want)
		}
		j, _ = OpenJournal(path)
		if r, _ := j.Last(key); r.State != tc.want {
			t.Errorf("journal holds %s, want %s", r.State, tc.want)
		}
		j.Close()
	}
}

// processRuns is false for a PID that is gone or a zombie (dead, waiting
// for a parent that, in a container, may never reap it).
func processRuns(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name's closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// TestReceiverSecretsNeverWritten: issue 29 — a failed delivery wrote the
// whole webhook URL (a Slack-style path secret, a ?token=) to the journal
// and stdout; only user:password was masked.
func TestReceiverSecretsNeverWritten(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	// Nothing listens on port 9: a connection error, whose text quotes
	// the URL it was given.
	for _, u := range []string{"http://user:hunter2@127.0.0.1:9/services/T000/B000/SECRETPATH?token=SECRETQUERY"} {
		var log resultLog
		j, err := OpenJournal(journal)
		if err != nil {
			t.Fatal(err)
		}
		d := NewDispatcher(Hooks{KillWebhook: u}, NewPoster(200*time.Millisecond, 500*time.Millisecond, nil), j, log.add)
		d.Start(context.Background())
		d.Kill(Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "n1", JobID: "job-1"})
		d.Wait()
		d.Shutdown(context.Background())
		b, _ := os.ReadFile(journal)
		var said strings.Builder
		for _, r := range log.all {
			said.WriteString(r.Detail + string(r.JSON()))
		}
		said.WriteString(NewManual(NewRules(Config{}, d, nil)).Describe("job-1", ""))
		for _, secret := range []string{"SECRETPATH", "SECRETQUERY", "hunter2", "T000"} {
			if strings.Contains(string(b), secret) || strings.Contains(said.String(), secret) {
				t.Errorf("%q was written:\njournal: %s\nreported: %s", secret, b, said.String())
			}
		}
		if !strings.Contains(said.String(), "http://127.0.0.1:9/…?…") {
			t.Errorf("the redacted URL does not say where the kill went: %s", said.String())
		}
	}
}

// TestWorldWritableJournalIsRefused: issue 29 — a journal others may write
// lets anyone block a kill (an "acknowledged" record) or forge one.
func TestWorldWritableJournalIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	os.WriteFile(path, nil, 0o600)
	os.Chmod(path, 0o666)
	if _, err := OpenJournal(path); err == nil || !strings.Contains(err.Error(), "writable by every user") {
		t.Errorf("a world-writable journal: %v", err)
	}
}

// TestShortTimeoutAndALingeringChild: red team of issue 21 — with
// exec_timeout ≤ 2 s, a command that exited 0 at once but left a child
// holding its output was reported "timed out … group killed" and run
// again at the next start.
func TestShortTimeoutAndALingeringChild(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	tmpl, err := ParseExec(`sh -c 'sleep 30 & echo $! > `+pidFile+`; echo done'`, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res := tmpl.Run(context.Background(), Alert{JobID: "job-1", Scope: "job", Rule: RuleJobCeiling}, nil)
	if res.Err != nil || res.ExitCode != 0 {
		t.Errorf("a command that exited 0 was reported %+v", res)
	}
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestDerivedRunFoundAgainWhenAnEarlierFileAppears: red team of issue 21 —
// a restart that read first a file of the same night that appeared later
// with lines two hours earlier derived another run ID (the match was 1 h),
// and every kill went out again under new keys.
func TestDerivedRunFoundAgainWhenAnEarlierFileAppears(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	night := time.Date(2026, 3, 10, 3, 0, 0, 0, time.UTC).UnixNano()
	start := func(firstTS int64, job string) string {
		j, err := OpenJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		d := NewDispatcher(Hooks{KillWebhook: "http://127.0.0.1:9/"}, NewPoster(100*time.Millisecond, 200*time.Millisecond, nil), j, nil)
		r := NewRules(Config{JobCeilingUSD: 0.01, KillOn: DefaultKillOn, RunSources: []string{"*.jsonl"}}, d, nil)
		st := correlate.New(correlate.DefaultConfig())
		ev := ingest.Event{TS: firstTS, Kind: ingest.KindLLMCall, JobID: job, Model: "claude-sonnet-4-6", Status: 200, CostUSD: 1, HasCost: true,
			RetryAfterMs: ingest.NoRetryAfter, RateLimitTokens: ingest.NoValue, RateLimitRequests: ingest.NoValue}
		id := r.BeginRun(st, RunStart{First: &ev})
		r.Observe(st, st.Apply(&ev), &ev) // fires a kill: the name is journaled
		d.Start(context.Background())
		d.Shutdown(context.Background())
		return id
	}
	first := start(night, "b-job-0")
	if again := start(night-2*int64(time.Hour), "a-job-0"); again != first {
		t.Errorf("a restart reading a file of the same night 2 h earlier named the run %s, not %s", again, first)
	}
	if next := start(night+24*int64(time.Hour), "b-job-0"); next == first {
		t.Errorf("the next night was taken for the same run %s", next)
	}
}

// TestClosedRunsLetTheirKillStatesGo: red team of issue 21 — a daemon's
// dispatcher kept every run's kill states for ever (113 MB after 800
// nights). A run the engine closes takes its states with it.
func TestClosedRunsLetTheirKillStatesGo(t *testing.T) {
	j, _ := OpenJournal(filepath.Join(t.TempDir(), "journal.jsonl"))
	d := NewDispatcher(Hooks{KillWebhook: "http://127.0.0.1:9/", DryRun: true}, NewPoster(time.Second, time.Second, nil), j, nil)
	r := NewRules(Config{JobCeilingUSD: 0.01, KillOn: DefaultKillOn}, d, nil)
	d.Start(context.Background())
	defer d.Shutdown(context.Background())
	for night := range 50 {
		st := correlate.New(correlate.DefaultConfig())
		for k := range 20 {
			ev := ingest.Event{TS: int64(night)*int64(24*time.Hour) + int64(k), Kind: ingest.KindLLMCall, RunID: "n" + strconv.Itoa(night), JobID: "job-" + strconv.Itoa(k),
				Model: "claude-sonnet-4-6", Status: 200, CostUSD: 1, HasCost: true, RetryAfterMs: ingest.NoRetryAfter, RateLimitTokens: ingest.NoValue, RateLimitRequests: ingest.NoValue}
			if k == 0 {
				r.BeginRun(st, RunStart{LogRunID: ev.RunID, First: &ev})
			}
			r.Observe(st, st.Apply(&ev), &ev)
		}
		r.EndRun(st)
	}
	d.mu.Lock()
	n := len(d.states)
	d.mu.Unlock()
	if n != 0 {
		t.Errorf("%d kill states kept after every run ended, want 0", n)
	}
}

// TestHooklessDashboardSaysWhatTheDaemonDid: red team of issue 21 — a
// dashboard without hooks said "kill refused: no kill hook" for a job the
// daemon beside it had killed.
func TestHooklessDashboardSaysWhatTheDaemonDid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	a := Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "n1", JobID: "job-1"}
	j, _ := OpenJournal(path)
	j.Append(Record{Key: IdempotencyKey(actionKillWebhook, a), Action: actionKillWebhook, State: StateAcknowledged, JobID: "job-1", RunID: "n1"})
	j.Close()
	ro, err := OpenJournalReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	var log resultLog
	d := NewDispatcher(Hooks{}, nil, ro, log.add)
	d.Kill(a)
	if got := log.last(); got.State != StateAcknowledged || !strings.Contains(got.Detail, "another burnrate") {
		t.Errorf("reported %s: %s", got.State, got.Detail)
	}
}

// sizeNow reads the journal's size under its lock: the compactor changes it.
func (j *Journal) sizeNow() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.size
}

// TestAJournalOfAnotherUserIsRefused: red team of issue 29 — a journal
// owned by another user (mode 0644) was read: its owner could plant an
// "acknowledged" record and so block a kill.
func TestAJournalOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("giving a file to another user needs root here; CI runs as root")
	}
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	os.WriteFile(path, []byte(`{"time":"2026-12-01T00:00:00Z","key":"k","action":"kill_webhook","state":"acknowledged"}`+"\n"), 0o644)
	os.Chown(path, 65534, 65534)
	if _, err := OpenJournal(path); err == nil || !strings.Contains(err.Error(), "owned by user 65534") {
		t.Errorf("a journal of user 65534: %v", err)
	}
}

// TestTheReceiversAnswerCannotLeakItsSecret: red team of issue 29 — an
// Express-style 404 body ("Cannot POST /hooks/SECRET?token=…") carried the
// URL's secret into the journal and stdout.
func TestTheReceiversAnswerCannotLeakItsSecret(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		fmt.Fprintf(w, "Cannot POST %s\x1b[2J\u202e", r.URL.RequestURI())
	}))
	defer srv.Close()
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	log := killOnce(t, journal, srv.URL+"/hooks/SECRETPATH?token=SECRETQUERY", Alert{Rule: RuleRunCeiling, Scope: "run", RunID: "n1"})
	b, _ := os.ReadFile(journal)
	said := log.last().Detail + string(b)
	for _, secret := range []string{"SECRETPATH", "SECRETQUERY", "\x1b", "\u202e"} {
		if strings.Contains(said, secret) {
			t.Errorf("%q reached the report or journal: %s", secret, said)
		}
	}
	if !strings.Contains(log.last().Detail, "Cannot POST /…") {
		t.Errorf("the answer should still say what the receiver said: %s", log.last().Detail)
	}
}

// TestLogTimeTravelRaisesNoFalseBurn: issue 22 — one line dated 2199 sat at
// the head of the burn-rate window for ever (a false burn_rate alert, and
// no projected_ceiling for the rest of the run); a host clock stepping
// back 10 minutes widened the window into a false rate too. Windows run on
// the state's clock, which moves only forward and which an event far ahead
// of the rest does not move.
func TestLogTimeTravelRaisesNoFalseBurn(t *testing.T) {
	base := time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC).UnixNano()
	for _, tc := range []struct {
		name string
		at   func(i int) int64 // the i-th call's time; one every 10 s
	}{
		{"a line dated 2199", func(i int) int64 {
			if i == 30 {
				return time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
			}
			return base + int64(i)*10e9
		}},
		{"a clock stepping back 10 minutes", func(i int) int64 {
			if i >= 60 {
				return base + int64(i-60)*10e9 // the host clock went back
			}
			return base + int64(i)*10e9
		}},
		// Issue 34's red team round: lines more than an hour behind their
		// source's clock step a lane of their own, or the window would
		// stand still while the clock waits to come back.
		{"a clock stepping back 2 hours", func(i int) int64 {
			if i >= 60 {
				return base + int64(i)*10e9 - int64(2*time.Hour)
			}
			return base + int64(i)*10e9
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fired []string
			r := NewRules(Config{BurnRateUSDPerMin: 0.5, BurnWindow: 5 * time.Minute}, nil, func(a Alert) { fired = append(fired, a.Rule) })
			st := correlate.New(correlate.DefaultConfig())
			for i := range 180 { // 30 minutes at $0.30/min
				ev := ingest.Event{TS: tc.at(i), Kind: ingest.KindLLMCall, JobID: "job-" + strconv.Itoa(i), Model: "m", Status: 200, CostUSD: 0.05, HasCost: true,
					RetryAfterMs: ingest.NoRetryAfter, RateLimitTokens: ingest.NoValue, RateLimitRequests: ingest.NoValue}
				r.Observe(st, st.Apply(&ev), &ev)
			}
			if slices.Contains(fired, RuleBurnRate) {
				t.Errorf("a steady $0.30/min against a $0.50/min limit raised burn_rate (%s)", tc.name)
			}
		})
	}
}

// TestAKillNeverNamesAnotherJob: red team of issue 22 — a job ID with
// invalid UTF-8 ("victim\xff") went out as "victim\ufffd", which is the
// exact ID of another, real job. Such a kill is refused, never sent.
func TestAKillNeverNamesAnotherJob(t *testing.T) {
	ks := newKillServer(t, nil)
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	log := killOnce(t, journal, ks.URL, Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "n1", JobID: "victim\xff"})
	if n := len(ks.kills()); n != 0 || log.last().State != StateRefused {
		t.Errorf("%d kill(s) sent, last state %s: %s", n, log.last().State, log.last().Detail)
	}
	log = killOnce(t, journal, ks.URL, Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "n1", JobID: "victim\ufffd"})
	if got := ks.kills(); len(got) != 1 || got[0].JobID != "victim\ufffd" || log.last().State != StateAcknowledged {
		t.Errorf("the real job's kill: %v, %s", got, log.last().State)
	}
}

// TestASkewedSourceBlindsNoBurnRate: issue 34 — two logs interleaved, one
// 10 h ahead (local time written as UTC): every step from the honest
// log's line to the skewed log's moved the burn window's clock 10 h on,
// so the window never held more than a line or two and $0.60/min against
// a $0.50/min limit raised nothing. The window clock moves by each
// source's own steps.
func TestASkewedSourceBlindsNoBurnRate(t *testing.T) {
	base := time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC).UnixNano()
	var fired []string
	r := NewRules(Config{BurnRateUSDPerMin: 0.5, BurnWindow: 5 * time.Minute}, nil, func(a Alert) { fired = append(fired, a.Rule) })
	st := correlate.New(correlate.DefaultConfig())
	for i := range 180 { // 15 minutes, each log at $0.30/min
		for src := range uint16(2) {
			ts := base + int64(i)*5e9
			if src == 1 {
				ts += 10 * int64(time.Hour)
			}
			ev := ingest.Event{TS: ts, Kind: ingest.KindLLMCall, JobID: "job-" + strconv.Itoa(i) + "-" + strconv.Itoa(int(src)), Model: "m", Status: 200, CostUSD: 0.025, HasCost: true,
				RetryAfterMs: ingest.NoRetryAfter, RateLimitTokens: ingest.NoValue, RateLimitRequests: ingest.NoValue, Source: src}
			r.Observe(st, st.Apply(&ev), &ev)
		}
	}
	if !slices.Contains(fired, RuleBurnRate) {
		t.Errorf("$0.60/min from two logs, one skewed 10 h, against a $0.50/min limit raised no burn_rate")
	}
}
