package budget

import (
	"math"
	"strconv"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/layers"
)

// Measured is what the logs say, set beside what the model predicts.
type Measured struct {
	Models   []ModelRate      `json:"models"`
	JobTypes []JobTypeStack   `json:"job_types"`
	Recovery RecoveryCompared `json:"recovery"`
	// Dispersion is the variance-to-mean ratio of failed calls per minute:
	// 1 for independent failures, far above 1 when they cluster.
	Dispersion float64 `json:"failure_dispersion"`
	Clustered  bool    `json:"failures_clustered"`
	P          float64 `json:"p_overall"`
	// LatencyS is the mean latency of the attempts that reported one;
	// null when none did (issue 36: it read "0.00 s").
	LatencyS *float64 `json:"latency_s"`
}

// ModelRate is one model's observed failure rate and latency.
type ModelRate struct {
	Model     string             `json:"model"`
	Attempts  int64              `json:"attempts"`
	P         float64            `json:"p"`
	LatencyMs float64            `json:"mean_latency_ms"` // 0: none reported
	ByClass   map[string]float64 `json:"p_by_class"`      // share of attempts: rate_limit, overloaded_5xx, terminal_4xx, connection
}

// JobTypeStack sets a job type's observed layers against a configured stack.
type JobTypeStack struct {
	JobType           string `json:"job_type"`
	Layers            []int  `json:"layers"`
	ObservedWorstCase int    `json:"observed_worst_case_attempts"`
	CallsPerJobP99    int64  `json:"calls_per_job_p99"`
	ConfiguredWorst   int    `json:"configured_worst_case_attempts,omitempty"`
	OverConfigured    bool   `json:"over_configured"`
}

// RecoveryCompared is observed recovery against 1 − p^k.
type RecoveryCompared struct {
	Observed map[string]float64 `json:"observed"`
	Modelled map[string]float64 `json:"modelled"`
}

// clusteredDispersion is where failures stop looking independent.
const clusteredDispersion = 3

// Measure reads a report: per-model failure rates and latency, each job
// type's observed stack and calls per job, recovery against the model,
// and whether failures cluster in time. configured may be nil.
func Measure(r *correlate.Report, configured Stack) Measured {
	var m Measured
	var attempts, failed int64
	var latSum, latN float64
	for _, md := range r.Models {
		mr := ModelRate{Model: md.Model, Attempts: md.Attempts, LatencyMs: md.MeanLatencyMs, ByClass: map[string]float64{}}
		var known, bad int64
		for st, n := range md.Status {
			code, err := strconv.Atoi(st)
			if err != nil {
				continue // unknown status: neither success nor failure
			}
			known += n
			class := ""
			switch {
			case code >= 200 && code < 300:
				continue
			case code == 429:
				class = "rate_limit"
			case code == 0:
				class = "connection"
			case code >= 500:
				class = "overloaded_5xx"
			default:
				class = "terminal_4xx"
			}
			bad += n
			mr.ByClass[class] += float64(n)
		}
		if known > 0 {
			mr.P = float64(bad) / float64(known)
			for k, v := range mr.ByClass {
				mr.ByClass[k] = v / float64(known)
			}
		}
		attempts += known
		failed += bad
		if md.MeanLatencyMs > 0 {
			latSum += md.MeanLatencyMs * float64(md.Attempts)
			latN += float64(md.Attempts)
		}
		m.Models = append(m.Models, mr)
	}
	if attempts > 0 {
		m.P = float64(failed) / float64(attempts)
	}
	if latN > 0 {
		l := latSum / latN / 1000
		m.LatencyS = &l
	}
	for _, jt := range r.JobTypes {
		s := JobTypeStack{JobType: jt.JobType, Layers: jt.Layers, CallsPerJobP99: jt.CallsPerJobP99, ObservedWorstCase: layers.Product(jt.Layers)}
		if configured != nil {
			s.ConfiguredWorst = configured.WorstCaseAttempts()
			s.OverConfigured = jt.CallsPerJobP99 > int64(s.ConfiguredWorst)
		}
		m.JobTypes = append(m.JobTypes, s)
	}
	m.Recovery = RecoveryCompared{
		Observed: map[string]float64{"1": r.Recovery.FirstAttempt, "3": r.Recovery.Within3, "5": r.Recovery.Within5},
		Modelled: map[string]float64{},
	}
	for _, k := range []int{1, 3, 5} {
		m.Recovery.Modelled[strconv.Itoa(k)] = 1 - math.Pow(m.P, float64(k))
	}
	m.Dispersion = dispersion(r.Timeline)
	m.Clustered = m.Dispersion > clusteredDispersion
	return m
}

// dispersion is the index of dispersion of failed model calls per minute
// over the log's span, quiet minutes included.
func dispersion(tl []correlate.TimelinePoint) float64 {
	if len(tl) < 2 {
		return 0
	}
	first, err1 := time.Parse(time.RFC3339Nano, tl[0].Minute)
	last, err2 := time.Parse(time.RFC3339Nano, tl[len(tl)-1].Minute)
	if err1 != nil || err2 != nil {
		return 0
	}
	span := min(int(last.Sub(first).Minutes())+1, 1_000_000)
	counts := make([]float64, span)
	for _, p := range tl {
		if at, err := time.Parse(time.RFC3339Nano, p.Minute); err == nil {
			if i := int(at.Sub(first).Minutes()); i >= 0 && i < span {
				counts[i] += float64(p.Calls - p.Success)
			}
		}
	}
	var mean, v float64
	for _, c := range counts {
		mean += c
	}
	mean /= float64(len(counts))
	if mean == 0 {
		return 0
	}
	for _, c := range counts {
		v += (c - mean) * (c - mean)
	}
	v /= float64(len(counts))
	return v / mean
}
