package alerts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

func findingAlertsOn() (fa [correlate.NumFindingKinds]correlate.Severity) {
	for k := range correlate.NumFindingKinds {
		fa[k] = correlate.DefaultSeverity[k]
	}
	return fa
}

// TestKillOnFindingValidates: finding:assumption_violated is a kill_on
// entry; a finding that names no job, or is an inference, is refused with
// the killable list; an unknown one with every choice; one whose alert is
// off, with why.
func TestKillOnFindingValidates(t *testing.T) {
	ok := Config{KillOn: []string{RuleJobCeiling, "finding:assumption_violated"}, FindingAlerts: findingAlertsOn()}
	if err := ok.Validate(); err != nil {
		t.Fatalf("finding:assumption_violated refused: %v", err)
	}
	for _, c := range []struct{ entry, want string }{
		{"finding:assumption_changed", "killable findings: [finding:assumption_violated]"},
		{"finding:terminal_error_retried", "is no kill rule"},
		{"finding:nope", "use one of [job_ceiling"},
		{"assumption_violated", "finding:assumption_violated]"},
	} {
		err := Config{KillOn: []string{c.entry}, FindingAlerts: findingAlertsOn()}.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("kill_on %q: %v, want %q", c.entry, err, c.want)
		}
	}
	off := findingAlertsOn()
	off[correlate.AssumptionViolated] = correlate.SeverityOff
	if err := (Config{KillOn: []string{"finding:assumption_violated"}, FindingAlerts: off}).Validate(); err == nil || !strings.Contains(err.Error(), "is off") {
		t.Errorf("kill_on of a finding whose alert is off: %v", err)
	}
}

// sdkAttempts is the default config with the records' attempt field the
// SDK's ([layers] attempt = "sdk"): violatingNight's records number the
// SDK's attempts (by default a record's attempt is the application's).
func sdkAttempts() correlate.Config {
	cfg := correlate.DefaultConfig()
	cfg.AttemptLayer = "sdk"
	return cfg
}

// jsonlFeeder decodes JSON lines as a file read does (an assumptions
// record is several events) and feeds each event.
func jsonlFeeder(t *testing.T, feed func(*ingest.Event)) func(string) {
	dec := decode.NewDecoder(decode.FormatJSONL, nil, decode.Options{})
	return func(l string) {
		t.Helper()
		if r := dec.Decode([]byte(l), func(ev *ingest.Event) { e := *ev; feed(&e) }); r != ingest.Accepted {
			t.Fatalf("not accepted (%v): %s", r, l)
		}
	}
}

// operatorDeclares feeds declarations as --assumptions FILE gives them
// (config.LoadAssumptions): the operator's, which arm a kill.
func operatorDeclares(feed func(*ingest.Event), kv ...string) {
	for i := 0; i+1 < len(kv); i += 2 {
		var ev ingest.Event
		ev.Reset()
		ev.Kind, ev.TSCarried = ingest.KindAssumption, true
		ev.SetAssumption(ingest.AssumptionFromOperator, kv[i], kv[i+1])
		feed(&ev)
	}
}

// violatingNight: a run declaring anthropic-sdk.maxRetries 0 whose jobs
// each retry twice (attempts 1..3), then go on calling. The operator
// declares it (the assumptions file), or with operator false the log does
// (an assumptions record).
func violatingNight(t *testing.T, jobs int, operator bool, feed func(*ingest.Event)) {
	t.Helper()
	line := jsonlFeeder(t, feed)
	if operator {
		operatorDeclares(feed, "anthropic-sdk.maxRetries", "0")
	} else {
		line(`{"ts":"2026-07-01T01:00:00Z","event":"assumptions","assumptions":{"anthropic-sdk.maxRetries":0}}`)
	}
	for j := range jobs {
		for a := 1; a <= 5; a++ {
			line(fmt.Sprintf(`{"ts":"2026-07-01T01:%02d:%02dZ","event":"llm_call","job_id":"job-%d","job_type":"nightly","idempotency_key":"k-%d-%d","attempt":%d,"provider":"anthropic","model":"claude-sonnet-4-5","status":529}`,
				j, a, j, j, (a-1)%3, (a-1)%3+1))
		}
	}
}

// TestKillOnAssumptionViolatedKillsEachJobOnce: with kill_on naming the
// finding, every job flagged with it gets one job-scope kill alert, at
// the attempt that broke the operator's declaration, and no more for its
// later attempts; without it, the finding alerts once per run and kills
// nothing.
func TestKillOnAssumptionViolatedKillsEachJobOnce(t *testing.T) {
	for _, kill := range []bool{true, false} {
		cfg := Config{FindingAlerts: findingAlertsOn()}
		if kill {
			cfg.KillOn = []string{"finding:assumption_violated"}
		}
		var fired []Alert
		r := NewRules(cfg, nil, func(a Alert) { fired = append(fired, a) })
		st := correlate.New(sdkAttempts())
		violatingNight(t, 3, true, func(ev *ingest.Event) { r.Observe(st, st.Apply(ev), ev) })
		var got []string
		for _, a := range fired {
			if a.Rule == "finding:assumption_violated" {
				got = append(got, fmt.Sprintf("%s %s %v %d", a.Scope, a.JobID, a.Kill, a.Attempts))
			}
		}
		want := "job job-0 true 2,job job-1 true 2,job job-2 true 2"
		if !kill {
			want = "run job-0 false 2"
		}
		if strings.Join(got, ",") != want {
			t.Errorf("kill_on=%v: alerts %q, want %q", kill, got, want)
		}
	}
}

// TestFindingKillSkipsAJobAlreadyKilled: a job its ceiling killed is not
// killed again by the finding; the alert still says what happened.
func TestFindingKillSkipsAJobAlreadyKilled(t *testing.T) {
	var fired []Alert
	r := NewRules(Config{KillOn: []string{RuleJobCeiling, "finding:assumption_violated"}, FindingAlerts: findingAlertsOn(), JobCeilingUSD: 0.000001}, nil,
		func(a Alert) { fired = append(fired, a) })
	st := correlate.New(correlate.DefaultConfig())
	feed := func(ev *ingest.Event) { r.Observe(st, st.Apply(ev), ev) }
	line := jsonlFeeder(t, feed)
	operatorDeclares(feed, "anthropic-sdk.maxRetries", "0")
	for _, l := range []string{
		`{"ts":"2026-07-01T01:00:01Z","event":"llm_call","job_id":"j","idempotency_key":"k","attempt":1,"provider":"anthropic","model":"claude-sonnet-4-5","status":529,"cost_usd":0.01}`,
		`{"ts":"2026-07-01T01:00:02Z","event":"llm_call","job_id":"j","idempotency_key":"k","attempt":2,"provider":"anthropic","model":"claude-sonnet-4-5","status":200,"cost_usd":0.01}`,
	} {
		line(l)
	}
	kills := 0
	for _, a := range fired {
		if a.Kill {
			kills++
		}
		if a.Rule == "finding:assumption_violated" && (a.Kill || !strings.Contains(a.Reason, "already killed")) {
			t.Errorf("finding alert on a killed job: %+v", a)
		}
	}
	if kills != 1 || len(fired) != 2 {
		t.Errorf("%d kills in %d alerts, want 1 kill (the ceiling's) and 2 alerts: %+v", kills, len(fired), fired)
	}
}

// TestKillOnCallsAboveTheDeclaredProduct: a run whose declared layers
// multiply to 4 kills each job at its fifth call, once.
func TestKillOnCallsAboveTheDeclaredProduct(t *testing.T) {
	var fired []Alert
	r := NewRules(Config{KillOn: []string{"finding:assumption_violated"}, FindingAlerts: findingAlertsOn()}, nil, func(a Alert) { fired = append(fired, a) })
	st := correlate.New(correlate.DefaultConfig())
	feed := func(ev *ingest.Event) { r.Observe(st, st.Apply(ev), ev) }
	line := jsonlFeeder(t, feed)
	operatorDeclares(feed, "anthropic-sdk.maxRetries", "0", "scheduler.rerunsOnFailure", "1", "wrapper.maxAttempts", "2")
	for j := range 2 {
		for c := range 7 {
			line(fmt.Sprintf(`{"ts":"2026-03-10T02:%02d:%02dZ","event":"llm_call","job_id":"job-%d","idempotency_key":"k-%d","provider":"anthropic","model":"claude-sonnet-4-5","status":529}`, j, c+1, j, j))
		}
	}
	var got []string
	for _, a := range fired {
		got = append(got, fmt.Sprintf("%s %s %s %v %d", a.Rule, a.Scope, a.JobID, a.Kill, a.Attempts))
	}
	want := "finding:assumption_violated job job-0 true 5,finding:assumption_violated job job-1 true 5"
	if strings.Join(got, ",") != want {
		t.Errorf("alerts %q, want %q", got, want)
	}
}

// TestOnlyTheOperatorArmsAFindingKill: issue 34 — a declaration read
// from the log (an assumptions record, an [assumptions] line: a model's
// output echoed into the app log reads as one) gives the finding and its
// alert, naming where it was declared, but never a kill; nor does a log
// line that declares a count lower than the operator's. A log line that
// raises the operator's count does not disarm the operator's kill.
func TestOnlyTheOperatorArmsAFindingKill(t *testing.T) {
	run := func(feedDecl func(feed func(*ingest.Event), line func(string))) []Alert {
		var fired []Alert
		r := NewRules(Config{KillOn: []string{"finding:assumption_violated"}, FindingAlerts: findingAlertsOn()}, nil, func(a Alert) { fired = append(fired, a) })
		st := correlate.New(correlate.DefaultConfig())
		feed := func(ev *ingest.Event) { r.Observe(st, st.Apply(ev), ev) }
		line := jsonlFeeder(t, feed)
		feedDecl(feed, line)
		for a := 1; a <= 2; a++ {
			line(fmt.Sprintf(`{"ts":"2026-07-01T01:00:%02dZ","event":"llm_call","job_id":"j","idempotency_key":"k","attempt":%d,"provider":"anthropic","model":"claude-sonnet-4-5","status":529}`, a, a))
		}
		return fired
	}
	logged := `{"ts":"2026-07-01T01:00:00Z","event":"assumptions","assumptions":{"anthropic-sdk.maxRetries":0}}`
	for _, c := range []struct {
		name     string
		decl     func(feed func(*ingest.Event), line func(string))
		kill     bool
		inReason string
	}{
		{"log record", func(_ func(*ingest.Event), line func(string)) { line(logged) }, false, "declared in the log (assumptions record): not a kill (only the operator's --assumptions FILE arms a kill)"},
		{"log lowers the operator's", func(feed func(*ingest.Event), line func(string)) {
			operatorDeclares(feed, "anthropic-sdk.maxRetries", "3")
			line(logged)
		}, false, "not a kill"},
		{"operator", func(feed func(*ingest.Event), _ func(string)) {
			operatorDeclares(feed, "anthropic-sdk.maxRetries", "0")
		}, true, "assumption_violated in job j"},
		{"log raises the operator's", func(feed func(*ingest.Event), line func(string)) {
			operatorDeclares(feed, "anthropic-sdk.maxRetries", "0")
			line(`{"ts":"2026-07-01T01:00:00Z","event":"assumptions","assumptions":{"anthropic-sdk.maxRetries":5}}`)
		}, true, "assumption_violated in job j"},
	} {
		fired := run(c.decl)
		if len(fired) != 1 {
			t.Errorf("%s: %d alerts, want 1: %+v", c.name, len(fired), fired)
			continue
		}
		a := fired[0]
		if a.Rule != "finding:assumption_violated" || a.Kill != c.kill || !strings.Contains(a.Reason, c.inReason) {
			t.Errorf("%s: %+v, want kill %v and %q in the reason", c.name, a, c.kill, c.inReason)
		}
		if !c.kill && a.Scope != "run" {
			t.Errorf("%s: scope %q, want run (an alert, no job's kill)", c.name, a.Scope)
		}
	}
}

// TestDeclaredProductFromTheLogKillsNothing: the declared product's kill
// (TestKillOnCallsAboveTheDeclaredProduct) when the log declares the
// layers: one run alert, no kill.
func TestDeclaredProductFromTheLogKillsNothing(t *testing.T) {
	var fired []Alert
	r := NewRules(Config{KillOn: []string{"finding:assumption_violated"}, FindingAlerts: findingAlertsOn()}, nil, func(a Alert) { fired = append(fired, a) })
	st := correlate.New(correlate.DefaultConfig())
	line := jsonlFeeder(t, func(ev *ingest.Event) { r.Observe(st, st.Apply(ev), ev) })
	line(`{"ts":"2026-03-10T02:00:00Z","event":"assumptions","assumptions":{"anthropic-sdk.maxRetries":0,"scheduler.rerunsOnFailure":1,"wrapper.maxAttempts":2}}`)
	for j := range 2 {
		for c := range 7 {
			line(fmt.Sprintf(`{"ts":"2026-03-10T02:%02d:%02dZ","event":"llm_call","job_id":"job-%d","idempotency_key":"k-%d","provider":"anthropic","model":"claude-sonnet-4-5","status":529}`, j, c+1, j, j))
		}
	}
	if len(fired) != 1 || fired[0].Kill || fired[0].Scope != "run" || !strings.Contains(fired[0].Reason, "not a kill") {
		t.Errorf("alerts %+v, want one run alert, no kill", fired)
	}
}

// TestALogLineCannotDisarmTheOperatorsProduct: the operator declares a
// product of 2 (scheduler 1 rerun × wrapper 1 attempt × SDK 0 retries); a
// log line then re-declares the wrapper at 5 attempts (product 10). A job
// of 3 tries of one call is past the operator's 2: it is killed, whatever
// the log says now (the re-declared layer once disarmed the kill).
func TestALogLineCannotDisarmTheOperatorsProduct(t *testing.T) {
	var fired []Alert
	r := NewRules(Config{KillOn: []string{"finding:assumption_violated"}, FindingAlerts: findingAlertsOn()}, nil, func(a Alert) { fired = append(fired, a) })
	st := correlate.New(correlate.DefaultConfig())
	feed := func(ev *ingest.Event) { r.Observe(st, st.Apply(ev), ev) }
	operatorDeclares(feed, "anthropic-sdk.maxRetries", "0", "scheduler.rerunsOnFailure", "1", "wrapper.maxAttempts", "1")
	line := jsonlFeeder(t, feed)
	line(`{"ts":"2026-03-10T02:00:00Z","event":"assumptions","assumptions":{"wrapper.maxAttempts":5}}`)
	for c := range 3 {
		line(fmt.Sprintf(`{"ts":"2026-03-10T02:00:%02dZ","event":"llm_call","job_id":"job-1","idempotency_key":"k-1","provider":"anthropic","model":"claude-sonnet-4-5","status":529}`, c+1))
	}
	kills := 0
	for _, a := range fired {
		if a.Kill && a.JobID == "job-1" {
			kills++
		}
	}
	if kills != 1 {
		t.Errorf("alerts %+v: want job-1 killed once, at the operator's product", fired)
	}
}

// TestALogCannotResolveTheOperatorsCountAway: red team — a log line
// naming a retry.owner moved the records' attempts off the operator's
// anthropic-sdk.maxRetries, and 73 more layer keys (past the product's
// bound of 64) took the operator's product with them: no kill, no alert,
// no finding. The operator's owner and the operator's keys decide.
func TestALogCannotResolveTheOperatorsCountAway(t *testing.T) {
	var fired []Alert
	r := NewRules(Config{KillOn: []string{"finding:assumption_violated"}, FindingAlerts: findingAlertsOn()}, nil, func(a Alert) { fired = append(fired, a) })
	st := correlate.New(correlate.DefaultConfig())
	feed := func(ev *ingest.Event) { r.Observe(st, st.Apply(ev), ev) }
	operatorDeclares(feed, "anthropic-sdk.maxRetries", "0")
	line := jsonlFeeder(t, feed)
	// Two records: one record's keys are read up to a bound of its own.
	var keys, more []string
	for i := range 63 {
		keys = append(keys, fmt.Sprintf(`"l%02d.maxRetries":5`, i))
	}
	for i := range 10 {
		more = append(more, fmt.Sprintf(`"m%02d.maxRetries":5`, i))
	}
	line(`{"ts":"2026-03-10T02:00:00Z","event":"assumptions","assumptions":{"retry.owner":"wrapper",` + strings.Join(keys, ",") + `}}`)
	line(`{"ts":"2026-03-10T02:00:00Z","event":"assumptions","assumptions":{` + strings.Join(more, ",") + `}}`)
	for c := range 3 {
		line(fmt.Sprintf(`{"ts":"2026-03-10T02:00:%02dZ","event":"llm_call","job_id":"job-1","provider":"anthropic","model":"claude-sonnet-4-5","status":529,"attempt":%d}`, c+1, c+1))
	}
	kills := 0
	for _, a := range fired {
		if a.Kill && a.JobID == "job-1" {
			kills++
		}
	}
	if kills != 1 {
		t.Errorf("alerts %+v: want job-1 killed once, by the operator's count", fired)
	}
}
