// Package metrics serves burnrate's state to Prometheus. It reads the
// engine's newest frame at scrape time and never computes spend itself.
package metrics

import (
	"cmp"
	"crypto/subtle"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/engine"
)

// callsPerJobBuckets fit retry stacks: 3 is one SDK, 63 is seed 000.
var callsPerJobBuckets = []float64{1, 2, 3, 5, 10, 20, 63, 100, 250}

// Every gauge and counter of the run carries run_id and replica, so a fleet
// of replicas sharded by job can be summed in Prometheus (sum by (run_id));
// both have one value per scrape (the run shown, this process), so they add
// no cardinality. Job IDs are never labels.
var runLabels = []string{"run_id", "replica"}

func withRun(labels ...string) []string { return append(labels, runLabels...) }

var (
	descCallsPerJob = prometheus.NewDesc("burnrate_api_calls_per_job", "Model calls per job: above your configured attempt count means a retry layer you do not know about.", withRun("job_type"), nil)
	descSpendType   = prometheus.NewDesc("burnrate_spend_usd_by_job_type", "Spend so far by job type, USD.", withRun("job_type"), nil)
	descSpendModel  = prometheus.NewDesc("burnrate_spend_usd_by_model", "Spend so far by model, USD.", withRun("model"), nil)
	descAttempts    = prometheus.NewDesc("burnrate_attempts_total", "Model-call attempts so far by HTTP status.", withRun("status"), nil)
	descWasted      = prometheus.NewDesc("burnrate_wasted_usd", "Wasted spend so far, USD.", runLabels, nil)
	descBreaker     = prometheus.NewDesc("burnrate_breaker_state", "Shadow breaker state: 0 closed, 1 half-open, 2 open.", withRun("key"), nil)
	descTrips       = prometheus.NewDesc("burnrate_breaker_trips_total", "Times the shadow breaker opened.", withRun("key"), nil)
	descAlerts      = prometheus.NewDesc("burnrate_alerts_total", "Alerts fired by rule.", []string{"rule", "replica"}, nil)
	descActions     = prometheus.NewDesc("burnrate_actions_total", "Action results by action and state.", []string{"action", "result", "replica"}, nil)
	descRun         = prometheus.NewDesc("burnrate_run_spend_usd", "Spend of the current run (the one with the latest event), USD; every other gauge here is of this run too.", runLabels, nil)
	descRunCalls    = prometheus.NewDesc("burnrate_run_calls_total", "Model-call attempts of the current run.", runLabels, nil)
	descRunJobs     = prometheus.NewDesc("burnrate_run_jobs", "Jobs of the current run this replica has seen.", runLabels, nil)
	descRuns        = prometheus.NewDesc("burnrate_runs_seen", "Runs this process has seen (a daemon sees one per night).", []string{"replica"}, nil)
	// descBurn is the dashboard's burn rate, the same figure: over the
	// part of the window the log covers while the log is younger than it.
	descBurn = prometheus.NewDesc("burnrate_burn_usd_per_minute", "Spend rate of the current run over the last 1 or 5 minutes of log time (over the part of the window the log covers, at least 10 s, while it is younger), USD per minute.", withRun("window"), nil)
	// The assumptions log (seed 003): one series per key, its values as
	// labels (an info metric: the value is always 1), and the open
	// findings it shows by kind, for an alert on a premise that broke.
	descAssumption         = prometheus.NewDesc("burnrate_assumption_info", "One key of the current run's assumptions log: what the run declared, what burnrate audit derived, what the traffic showed (empty when unknown). Always 1.", withRun("key", "job_type", "declared", "derived", "observed"), nil)
	descAssumptionFindings = prometheus.NewDesc("burnrate_assumption_findings", "Open findings of the current run's assumptions log by kind (assumption_violated, assumption_changed, assumption_missing, default_changed_upstream).", withRun("kind"), nil)
	descKillsHeld          = prometheus.NewDesc("burnrate_kills_held", "Kills held now: not fired because the action journal could not record them first (a full disk).", []string{"replica"}, nil)
	descJournalErrs        = prometheus.NewDesc("burnrate_journal_write_errors_total", "Action journal writes that failed (a full disk, say): kills are held, not fired, until it writes.", []string{"replica"}, nil)
	descRunChurn           = prometheus.NewDesc("burnrate_run_id_churn", "1 once the logs' run IDs churn (a run ID per call, or many at once): events are routed by the run window instead of their run_id.", []string{"replica"}, nil)
	descSpoolBytes         = prometheus.NewDesc("burnrate_spool_bytes", "Bytes in the event spool beside the journal (inputs that cannot be read again: OTLP, stdin, --from-end).", []string{"replica"}, nil)
	descSpoolRefused       = prometheus.NewDesc("burnrate_spool_refused_events_total", "Events applied but not spooled (the spool's cap, a failed write): a restart will not have them.", []string{"replica"}, nil)
)

// maxLabelValues bounds the values of one label a scrape carries; otherLabel
// holds the sum of the rest.
const (
	maxLabelValues = 100
	otherLabel     = "other"
)

// topBySpend is the maxLabelValues costliest keys (ties by name).
func topBySpend(spend map[string]correlate.Pico) map[string]bool {
	keys := make([]string, 0, len(spend))
	for k := range spend {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(spend[b], spend[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	keep := make(map[string]bool, min(len(keys), maxLabelValues))
	for _, k := range keys[:min(len(keys), maxLabelValues)] {
		keep[k] = true
	}
	return keep
}

// metrics reads the engine's newest frame at scrape time: nothing is
// computed twice and nothing slows the engine.
type metrics struct {
	eng     *engine.Engine
	rules   *alerts.Rules
	replica string
}

func (m metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCallsPerJob, descSpendType, descSpendModel, descAttempts, descWasted, descBreaker, descTrips, descAlerts, descActions, descJournalErrs, descKillsHeld, descSpoolBytes, descSpoolRefused, descRunChurn, descRun, descRunCalls, descRunJobs, descRuns} {
		ch <- d
	}
	ch <- descBurn
	ch <- descAssumption
	ch <- descAssumptionFindings
}

// maxLabelBytes bounds a label value taken from a log's declaration: the
// key and its value are the log's words.
const maxLabelBytes = 128

// logLabel is a log-derived value made a label: escaped for the people
// who read it, cut at maxLabelBytes on a character boundary.
func logLabel(v string) string {
	v = display.Text(v)
	if len(v) <= maxLabelBytes {
		return v
	}
	cut := maxLabelBytes - len("…")
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
}

func (m metrics) Collect(ch chan<- prometheus.Metric) {
	f := m.eng.Latest()
	rep := m.replica
	if f != nil {
		s := f.Snap
		run := display.Text(f.RunID) // a label people read: escaped (the run ID itself is exact)
		type hist struct {
			count   uint64
			sum     float64
			buckets map[float64]uint64
		}
		byType := map[string]*hist{}
		// Spend is summed in picodollars and converted once, so a gauge
		// reads 1.296, not 1.2959999999999998.
		spend := map[string]correlate.Pico{}
		for _, j := range s.Jobs {
			spend[j.Type] = spend[j.Type].Add(j.Spend)
			if j.Calls == 0 {
				continue
			}
			h := byType[j.Type]
			if h == nil {
				// Every bucket, empty ones too: a histogram that lacks
				// le="3" cannot be compared across scrapes or job types.
				h = &hist{buckets: make(map[float64]uint64, len(callsPerJobBuckets))}
				for _, b := range callsPerJobBuckets {
					h.buckets[b] = 0
				}
				byType[j.Type] = h
			}
			h.count++
			h.sum += float64(j.Calls)
			for _, b := range callsPerJobBuckets {
				if float64(j.Calls) <= b {
					h.buckets[b]++
				}
			}
		}
		// Labels come from log text: at most maxLabelValues values per
		// label, the costliest, and the rest summed as "other" (100,000
		// job types made a 262 MB scrape).
		keepTypes := topBySpend(spend)
		other := &hist{buckets: make(map[float64]uint64, len(callsPerJobBuckets))}
		for _, b := range callsPerJobBuckets {
			other.buckets[b] = 0
		}
		for t, h := range byType {
			if keepTypes[t] {
				ch <- prometheus.MustNewConstHistogram(descCallsPerJob, h.count, h.sum, h.buckets, t, run, rep)
				continue
			}
			other.count, other.sum = other.count+h.count, other.sum+h.sum
			for b, n := range h.buckets {
				other.buckets[b] += n
			}
		}
		if other.count > 0 {
			ch <- prometheus.MustNewConstHistogram(descCallsPerJob, other.count, other.sum, other.buckets, otherLabel, run, rep)
		}
		var otherSpend correlate.Pico
		for t, v := range spend {
			if keepTypes[t] {
				ch <- prometheus.MustNewConstMetric(descSpendType, prometheus.GaugeValue, v.USD(), t, run, rep)
			} else {
				otherSpend = otherSpend.Add(v)
			}
		}
		if len(spend) > len(keepTypes) {
			ch <- prometheus.MustNewConstMetric(descSpendType, prometheus.GaugeValue, otherSpend.USD(), otherLabel, run, rep)
		}
		var otherModels float64
		for i, md := range s.Models { // costliest first
			if i < maxLabelValues {
				ch <- prometheus.MustNewConstMetric(descSpendModel, prometheus.GaugeValue, md.SpendUSD, md.Model, run, rep)
			} else {
				otherModels += md.SpendUSD
			}
		}
		if len(s.Models) > maxLabelValues {
			ch <- prometheus.MustNewConstMetric(descSpendModel, prometheus.GaugeValue, otherModels, otherLabel, run, rep)
		}
		statuses := 0
		var otherStatus int64
		for _, st := range slices.Sorted(maps.Keys(s.Status)) {
			if statuses++; statuses <= maxLabelValues {
				ch <- prometheus.MustNewConstMetric(descAttempts, prometheus.CounterValue, float64(s.Status[st]), st, run, rep)
			} else {
				otherStatus += s.Status[st]
			}
		}
		if otherStatus > 0 {
			ch <- prometheus.MustNewConstMetric(descAttempts, prometheus.CounterValue, float64(otherStatus), otherLabel, run, rep)
		}
		ch <- prometheus.MustNewConstMetric(descWasted, prometheus.GaugeValue, s.Wasted.USD(), run, rep)
		ch <- prometheus.MustNewConstMetric(descBurn, prometheus.GaugeValue, s.BurnPerMin1, "1m", run, rep)
		ch <- prometheus.MustNewConstMetric(descBurn, prometheus.GaugeValue, s.BurnPerMin5, "5m", run, rep)
		if run != "" {
			var calls int64
			for _, n := range s.Status {
				calls += n
			}
			ch <- prometheus.MustNewConstMetric(descRun, prometheus.GaugeValue, s.Spend.USD(), run, rep)
			ch <- prometheus.MustNewConstMetric(descRunCalls, prometheus.CounterValue, float64(calls), run, rep)
			ch <- prometheus.MustNewConstMetric(descRunJobs, prometheus.GaugeValue, float64(s.JobCount), run, rep)
		}
		ch <- prometheus.MustNewConstMetric(descRuns, prometheus.GaugeValue, float64(f.Runs), rep)
		// Two keys cut to one label would be one series twice, and a
		// scrape with a duplicate fails whole: the first is kept.
		seen := map[[2]string]bool{}
		for _, a := range s.Assumptions {
			if len(seen) >= maxLabelValues {
				break // in the report's order: job type, then key
			}
			key, jobType := logLabel(a.Key), logLabel(a.JobType)
			if seen[[2]string{key, jobType}] {
				continue
			}
			seen[[2]string{key, jobType}] = true
			ch <- prometheus.MustNewConstMetric(descAssumption, prometheus.GaugeValue, 1,
				key, jobType, logLabel(a.Declared), logLabel(a.Derived), logLabel(a.Observed), run, rep)
		}
		for _, k := range []correlate.FindingKind{correlate.AssumptionViolated, correlate.AssumptionChanged, correlate.AssumptionMissing, correlate.DefaultChangedUpstream} {
			var n int64
			for _, f := range s.Findings {
				// An ambiguous row (a finding withdrawn from a job whose
				// count is ambiguous) is not open: it convicts no one.
				if f.Kind == k.String() && !f.Ambiguous {
					n += f.Count
				}
			}
			ch <- prometheus.MustNewConstMetric(descAssumptionFindings, prometheus.GaugeValue, float64(n), k.String(), run, rep)
		}
		for i, b := range s.Breakers {
			if i >= maxLabelValues {
				break // the breakers most worth seeing come first
			}
			v := map[correlate.BreakerState]float64{correlate.BreakerStateClosed: 0, correlate.BreakerStateHalfOpen: 1, correlate.BreakerStateOpen: 2}[b.State]
			ch <- prometheus.MustNewConstMetric(descBreaker, prometheus.GaugeValue, v, b.Key, run, rep)
			ch <- prometheus.MustNewConstMetric(descTrips, prometheus.CounterValue, float64(b.Trips), b.Key, run, rep)
		}
	}
	al, ac := m.rules.Counts()
	for _, rule := range alerts.KnownRules {
		if _, ok := al[rule]; !ok {
			al[rule] = 0
		}
	}
	for rule, n := range al {
		ch <- prometheus.MustNewConstMetric(descAlerts, prometheus.CounterValue, float64(n), rule, rep)
	}
	for _, a := range alerts.KnownActions {
		for _, st := range alerts.KnownStates {
			if _, ok := ac[[2]string{a, string(st)}]; !ok {
				ac[[2]string{a, string(st)}] = 0
			}
		}
	}
	for k, n := range ac {
		ch <- prometheus.MustNewConstMetric(descActions, prometheus.CounterValue, float64(n), k[0], k[1], rep)
	}
	ch <- prometheus.MustNewConstMetric(descJournalErrs, prometheus.CounterValue, float64(m.rules.JournalFailures()), rep)
	ch <- prometheus.MustNewConstMetric(descKillsHeld, prometheus.GaugeValue, float64(m.rules.KillsHeld()), rep)
	if f != nil {
		churn := 0.0
		if f.RunChurn != "" {
			churn = 1
		}
		ch <- prometheus.MustNewConstMetric(descRunChurn, prometheus.GaugeValue, churn, rep)
	}
	if f != nil && f.Spool != nil {
		ch <- prometheus.MustNewConstMetric(descSpoolBytes, prometheus.GaugeValue, float64(f.Spool.Bytes), rep)
		ch <- prometheus.MustNewConstMetric(descSpoolRefused, prometheus.CounterValue, float64(f.Spool.Refused), rep)
	}
}

// Listen serves /metrics on addr until the server closes, and returns the
// bound address (addr may name port 0). Its replica label is the host
// name; ListenReplica names it.
func Listen(addr string, eng *engine.Engine, rules *alerts.Rules, token string, insecure bool) (*http.Server, string, error) {
	return ListenReplica(addr, DefaultReplica(), eng, rules, token, insecure)
}

// maxReplicaLen bounds the replica label: a name, not a document.
const maxReplicaLen = 64

// CheckReplica says why name cannot label a replica, or nil: 1 to 64
// letters, digits, '.', '_', '-' or ':' (a host name or host:port).
func CheckReplica(name string) error {
	if name == "" || len(name) > maxReplicaLen {
		return fmt.Errorf("--replica %q: give 1 to %d characters (a host name, e.g. burnrate-a)", name, maxReplicaLen)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == ':') {
			return fmt.Errorf("--replica %q: only letters, digits, '.', '_', '-' and ':' (a host name, e.g. burnrate-a)", name)
		}
	}
	return nil
}

// DefaultReplica is the host name, the replica label when none is given:
// its first 64 characters, others than those CheckReplica takes as '-'
// ("burnrate" when there is none), so a long or odd host name never stops
// a start.
func DefaultReplica() string {
	h, _ := os.Hostname()
	b := []byte(h[:min(len(h), maxReplicaLen)])
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == ':') {
			b[i] = '-'
		}
	}
	if len(b) == 0 {
		return "burnrate"
	}
	return string(b)
}

// ListenReplica is Listen with the replica label every series carries: one
// value per process, so summing replicas in Prometheus needs no join.
//
// A host left out (":9464") is loopback, not every interface; any other
// address than loopback needs token (a scrape then sends "Authorization:
// Bearer TOKEN"), or insecure: job and model names are business data.
func ListenReplica(addr, replica string, eng *engine.Engine, rules *alerts.Rules, token string, insecure bool) (*http.Server, string, error) {
	if err := CheckReplica(replica); err != nil {
		return nil, "", err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("--metrics-addr %s: %w (give HOST:PORT, e.g. 127.0.0.1:9464)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
		addr = net.JoinHostPort(host, port)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) && token == "" && !insecure {
		return nil, "", fmt.Errorf("--metrics-addr %s is not loopback: set a bearer token ($BURNRATE_METRICS_TOKEN or --metrics-token-file) for Prometheus to send, or --metrics-insecure-listen to serve it to anyone", addr)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics{eng, rules, replica})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	var h http.Handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	if token != "" {
		inner, want := h, "Bearer "+token
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := r.Header.Get("Authorization")
			if len(got) > 7 && strings.EqualFold(got[:7], "bearer ") {
				got = "Bearer " + got[7:] // the scheme is case-insensitive (RFC 9110)
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
				http.Error(w, "missing or wrong bearer token (authorization.credentials in the scrape config)", http.StatusUnauthorized)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	mux.Handle("/metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "burnrate: metrics server stopped:", err)
		}
	}()
	return srv, ln.Addr().String(), nil
}
