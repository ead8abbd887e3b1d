package correlate

import (
	"cmp"
	"slices"
	"strconv"
)

// mergeAssumptions is the assumptions log of a sharded run (report
// --merge): per key and job type, the earliest declaration, the derived
// value, and the worst observation — the largest count (retries), else
// the latest value seen (a package version). Calls per job are no
// replica's to give: a job's calls may be split across replicas, and a
// p99 of p99s is none; they are recomputed from types, the merged job
// types (the jobs of every replica, joined).
func mergeAssumptions(in []MergeInput, types []JobTypeReport) []AssumptionReport {
	rows := map[assumptionKey]*AssumptionReport{}
	for _, m := range in {
		for _, a := range m.Report.Assumptions {
			k := assumptionKey{a.JobType, a.Key}
			if a.Key == callsPerJobKey {
				a.Observed, a.Evidence, a.ObservedAt = "", "", ""
				if a.Declared == "" && a.Derived == "" {
					continue
				}
			}
			x := rows[k]
			if x == nil {
				c := a
				rows[k] = &c
				continue
			}
			if a.Declared != "" && (x.Declared == "" || (a.FirstAt != "" && a.FirstAt < x.FirstAt)) {
				x.Declared, x.DeclaredFrom, x.FirstAt = a.Declared, a.DeclaredFrom, a.FirstAt
			}
			if x.Derived == "" {
				x.Derived, x.DerivedFrom = a.Derived, a.DerivedFrom
			}
			if a.Observed != "" && worseObservation(a, *x) {
				x.Observed, x.Evidence, x.ObservedAt = a.Observed, a.Evidence, a.ObservedAt
			}
			if x.Previous == "" {
				x.Previous, x.ChangedAt = a.Previous, a.ChangedAt
			}
		}
	}
	callsPerJobRows(types, rows, func(k assumptionKey) *AssumptionReport {
		if x := rows[k]; x != nil {
			return x
		}
		x := &AssumptionReport{Key: k.key, JobType: k.jobType}
		rows[k] = x
		return x
	})
	out := make([]AssumptionReport, 0, len(rows))
	for _, x := range rows {
		out = append(out, *x)
	}
	slices.SortFunc(out, func(x, y AssumptionReport) int {
		return cmp.Or(cmp.Compare(x.JobType, y.JobType), cmp.Compare(x.Key, y.Key))
	})
	return out
}

// worseObservation: a's observation beats b's.
func worseObservation(a, b AssumptionReport) bool {
	if b.Observed == "" {
		return true
	}
	na, errA := strconv.ParseInt(a.Observed, 10, 64)
	nb, errB := strconv.ParseInt(b.Observed, 10, 64)
	if errA == nil && errB == nil {
		return na > nb
	}
	return a.ObservedAt > b.ObservedAt
}
