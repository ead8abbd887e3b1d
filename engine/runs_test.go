package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// oneByOne sends each event as a batch of its own, as a live tail of a
// quiet log does.
type oneByOne struct{ events []ingest.Event }

func (s *oneByOne) Run(ctx context.Context, out chan<- ingest.Batch) error {
	for _, ev := range s.events {
		select {
		case out <- ingest.Batch{ev}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
func (s *oneByOne) Status() []ingest.Status { return nil }

// killWiring is rules and a started dispatcher over a kill receiver;
// kills returns what the receiver was sent so far.
func killWiring(t *testing.T, cfg alerts.Config) (kills func() []alerts.KillBody, rules *alerts.Rules, disp *alerts.Dispatcher) {
	t.Helper()
	var mu sync.Mutex
	var got []alerts.KillBody
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var k alerts.KillBody
		json.Unmarshal(b, &k)
		mu.Lock()
		got = append(got, k)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	j, err := alerts.OpenJournal(filepath.Join(t.TempDir(), "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	disp = alerts.NewDispatcher(alerts.Hooks{KillWebhook: srv.URL}, alerts.NewPoster(time.Second, 5*time.Second, nil), j, func(r alerts.Result) { rules.Result(r) })
	rules = alerts.NewRules(cfg, disp, nil)
	disp.Start(context.Background())
	return func() []alerts.KillBody {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}, rules, disp
}

func call(run, job string, day int, cost float64) ingest.Event {
	ts := time.Date(2026, 3, day, 22, 0, 0, 0, time.UTC).UnixNano()
	return ingest.Event{TS: ts, Kind: ingest.KindLLMCall, RunID: run, JobID: job, Model: "claude-sonnet-4-6", Status: 200, CostUSD: cost, HasCost: true,
		RetryAfterMs: ingest.NoRetryAfter, RateLimitTokens: ingest.NoValue, RateLimitRequests: ingest.NoValue}
}

// TestARunBehindTheOthersIsNotClosedAtEveryBatch: red team of issue 21 —
// with four nights open, a fifth dated before them (a host clock reset, a
// backfill) was the "oldest" run and was closed after every batch, begun
// again empty at the next event: 0 of 2 kills, runs_seen 16. Runs are
// closed by arrival, so the live one stays whole.
func TestARunBehindTheOthersIsNotClosedAtEveryBatch(t *testing.T) {
	kills, rules, disp := killWiring(t, alerts.Config{JobCeilingUSD: 0.1, KillOn: alerts.DefaultKillOn})
	var evs []ingest.Event
	for n, run := range []string{"n1", "n2", "n3", "n4"} {
		evs = append(evs, call(run, "warm-"+run, 10+n, 0.01))
	}
	for range 6 { // two jobs of the back-dated night, $0.05 a call
		evs = append(evs, call("n5", "late-a", 1, 0.05), call("n5", "late-b", 1, 0.05))
	}
	e := New(Options{Config: correlate.DefaultConfig(), Observer: rules}, &oneByOne{evs})
	e.Run(context.Background())
	disp.Wait()
	disp.Shutdown(context.Background())
	killed := map[string][]string{}
	for _, k := range kills() {
		killed[k.RunID] = append(killed[k.RunID], k.JobID)
	}
	if len(killed["n5"]) != 2 {
		t.Errorf("kills in the back-dated run: %v, want late-a and late-b", killed["n5"])
	}
	f := e.Latest()
	if f.RunID != "n5" || f.Runs != 5 {
		t.Errorf("frame shows run %q of %d, want n5 of 5", f.RunID, f.Runs)
	}
	rep := e.Report()
	if rep.RunID != "n5" || rep.Totals.SpendUSD != 0.6 || len(rep.PreviousRuns) != 4 {
		t.Errorf("report: run %q spend %v, %d previous runs; want n5, $0.60, 4", rep.RunID, rep.Totals.SpendUSD, len(rep.PreviousRuns))
	}
}

// TestManyInterleavedRunsKeepTheirCeilings: red team of issue 22 — five
// run_ids interleaved in one log (five pipelines, one file) were closed at
// the four-run bound and begun again empty at every batch: no run ever
// reached its ceiling ($80 each against $20: no alert), and with eight the
// "fired once" state was lost at each close (125 alerts a run).
func TestManyInterleavedRunsKeepTheirCeilings(t *testing.T) {
	var mu sync.Mutex
	fired := map[string]int{}
	rules := alerts.NewRules(alerts.Config{RunCeilingUSD: 1, KillOn: alerts.DefaultKillOn}, nil, func(a alerts.Alert) {
		if a.Rule == alerts.RuleRunCeiling {
			mu.Lock()
			fired[a.RunID]++
			mu.Unlock()
		}
	})
	var evs []ingest.Event
	for i := range 800 { // eight runs, round robin, $0.05 a call: $5 each
		run := "r" + strconv.Itoa(i%8)
		evs = append(evs, call(run, run+"-job-"+strconv.Itoa(i), 10, 0.05))
	}
	e := New(Options{Config: correlate.DefaultConfig(), Observer: rules}, &oneByOne{evs})
	e.Run(context.Background())
	mu.Lock()
	defer mu.Unlock()
	for r := range 8 {
		if n := fired["r"+strconv.Itoa(r)]; n != 1 {
			t.Errorf("run r%d: the run ceiling fired %d times, want once", r, n)
		}
	}
	if rep := e.Report(); len(rep.PreviousRuns) != 7 {
		t.Errorf("%d previous runs, want 7 (eight runs, none split)", len(rep.PreviousRuns))
	}
}

// TestALoneFarAheadLineOpensNoRun: red team of issue 22 — with a run
// window ("idle 2h"), one line dated 2199 began a new run: the job over
// its ceiling was killed again under it (the journal keys kills by run),
// and the run's spend started over from $0, so the run ceiling was never
// reached. A lone far-ahead line stays in the run, billed; a real jump (a
// weekend, confirmed by a second event) still begins one.
func TestALoneFarAheadLineOpensNoRun(t *testing.T) {
	killsOf, rules, disp := killWiring(t, alerts.Config{JobCeilingUSD: 0.1, RunCeilingUSD: 0.5, KillOn: alerts.DefaultKillOn})
	var evs []ingest.Event
	at := func(ev ingest.Event, d time.Duration) ingest.Event { ev.TS += int64(d); return ev }
	for i := range 3 {
		evs = append(evs, at(call("", "a", 10, 0.05), time.Duration(i)*time.Minute))
	}
	far := call("", "x", 10, 0.05)
	far.TS = time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	evs = append(evs, far)
	for i := range 8 {
		evs = append(evs, at(call("", "a", 10, 0.05), time.Duration(4+i)*time.Minute))
	}
	// A weekend later: the next night is a run of its own.
	evs = append(evs, call("", "b", 13, 0.01), at(call("", "b", 13, 0.01), time.Minute))
	e := New(Options{Config: correlate.DefaultConfig(), Observer: rules, RunWindow: correlate.RunWindow{Kind: correlate.RunWindowIdle, Idle: 2 * time.Hour}}, &oneByOne{evs})
	e.Run(context.Background())
	disp.Wait()
	disp.Shutdown(context.Background())
	kills := killsOf()
	byRun := map[string][]string{}
	for _, k := range kills {
		byRun[k.Scope] = append(byRun[k.Scope], k.JobID)
	}
	if len(byRun["job"]) != 1 || byRun["job"][0] != "a" || len(byRun["run"]) != 1 {
		t.Errorf("kills %+v: want job a once and the run once", kills)
	}
	if f := e.Latest(); f.Runs != 2 {
		t.Errorf("%d runs, want the night and the next one after the weekend", f.Runs)
	}
}

// TestALifecycleLineBeforeTheFirstRunIDOpensNoRun: issue 36 — a log whose
// job_started lines name no run and whose calls do showed a phantom run
// ("2 runs; before: derived-… spent $0") and kept job a's start in it.
// The run the first named event finds empty of calls is that run; one
// that saw a call is not taken over.
func TestALifecycleLineBeforeTheFirstRunIDOpensNoRun(t *testing.T) {
	start := call("", "a", 10, 0)
	start.Kind = ingest.KindJobStarted
	evs := []ingest.Event{start, call("n1", "a", 10, 0.05), call("n1", "b", 10, 0.05)}
	_, rules, disp := killWiring(t, alerts.Config{JobCeilingUSD: 1, KillOn: alerts.DefaultKillOn})
	e := New(Options{Config: correlate.DefaultConfig(), Observer: rules}, &oneByOne{evs})
	e.Run(context.Background())
	disp.Wait()
	disp.Shutdown(context.Background())
	if f := e.Latest(); f.Runs != 1 || f.RunID != "n1" || f.PreviousRun != nil {
		t.Errorf("runs %d, shown %q, previous %+v: want the one run n1", f.Runs, f.RunID, f.PreviousRun)
	}
	// A run that saw a call is a run: the named one begins beside it.
	evs = []ingest.Event{call("", "x", 10, 0.05), call("n1", "a", 10, 0.05)}
	e = New(Options{Config: correlate.DefaultConfig()}, &oneByOne{evs})
	e.Run(context.Background())
	if f := e.Latest(); f.Runs != 2 || f.RunID != "n1" {
		t.Errorf("runs %d, shown %q: want a derived run and n1", f.Runs, f.RunID)
	}
}

// TestAJobAcrossADailyResetIsOneJob: issue 34 — a job running at a daily
// window's reset became two, one per run, each under its ceiling: $0.18 +
// $0.18 over a $0.20 job ceiling, no kill. A job belongs to the run of its
// first event while it runs (its calls no further apart than the job idle
// time); a job that begins after the reset is the new day's, and so is a
// recurring job ID the next day.
func TestAJobAcrossADailyResetIsOneJob(t *testing.T) {
	kills, rules, disp := killWiring(t, alerts.Config{JobCeilingUSD: 0.2, KillOn: alerts.DefaultKillOn})
	at := func(job string, h, m int) ingest.Event {
		ev := call("", job, 10, 0.18)
		ev.TS = time.Date(2026, 3, 10, h, m, 0, 0, time.UTC).UnixNano()
		return ev
	}
	nextDay := at("recurring", 5, 58)
	nextDay.TS += int64(24 * time.Hour)
	evs := []ingest.Event{at("straddle", 5, 58), at("recurring", 5, 57), at("straddle", 6, 1), at("fresh", 6, 2), nextDay}
	w := correlate.RunWindow{Kind: correlate.RunWindowDaily, Hour: 6, Zone: time.UTC}
	e := New(Options{Config: correlate.DefaultConfig(), Observer: rules, RunWindow: w}, &oneByOne{evs})
	e.Run(context.Background())
	disp.Wait()
	disp.Shutdown(context.Background())
	got := kills()
	if len(got) != 1 || got[0].JobID != "straddle" || got[0].SpendUSD != 0.36 {
		t.Fatalf("kills %+v: want straddle once, at $0.36", got)
	}
	// recurring's call the next day is the next day's (not $0.36, no kill).
	if f := e.Latest(); f.Runs != 2 {
		t.Errorf("%d runs, want two days' (the first with straddle whole)", f.Runs)
	}
}

// TestPerCallRunIDsDoNotBlindTheCeilings: issue 34 — a run_id per call
// (LangChain/LangSmith style) made each call a run of its own: $18 spent,
// no kill against $0.20 a job and $1 a run. The churn is said and the
// calls are routed by the run window, where the job's and the run's
// ceilings hold; the runs opened stay few.
func TestPerCallRunIDsDoNotBlindTheCeilings(t *testing.T) {
	kills, rules, disp := killWiring(t, alerts.Config{JobCeilingUSD: 0.2, RunCeilingUSD: 1, KillOn: alerts.DefaultKillOn})
	var evs []ingest.Event
	for i := range 100 {
		ev := call(fmt.Sprintf("call-%d", i), "job-lc", 10, 0.18)
		ev.TS += int64(i) * int64(time.Second)
		evs = append(evs, ev)
	}
	e := New(Options{Config: correlate.DefaultConfig(), Observer: rules}, &oneByOne{evs})
	e.Run(context.Background())
	disp.Wait()
	disp.Shutdown(context.Background())
	scopes := map[string]int{}
	for _, k := range kills() {
		scopes[k.Scope]++
	}
	if scopes["job"] != 1 || scopes["run"] != 1 {
		t.Errorf("kills by scope %v: want the job and the run once each", scopes)
	}
	f := e.Latest()
	if !strings.Contains(f.RunChurn, "run IDs churn") || f.Runs > churnBegins+2 {
		t.Errorf("%d runs, churn %q", f.Runs, f.RunChurn)
	}
}
