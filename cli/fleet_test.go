package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// shardByJob splits a JSON-lines log the way the Collector's load_balancing
// exporter splits spans by routing_attributes [job.id]: every line of one
// job_id to one shard, a line without job_id to the shard of the empty key
// (all of them to one replica). It returns the shards' paths.
func shardByJob(t *testing.T, path string, n int) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	shards := make([]bytes.Buffer, n)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			JobID string `json:"job_id"`
		}
		json.Unmarshal(sc.Bytes(), &line)
		h := fnv.New32a()
		h.Write([]byte("job.id=" + line.JobID + "|"))
		b := &shards[h.Sum32()%uint32(n)]
		b.Write(sc.Bytes())
		b.WriteByte('\n')
	}
	dir := t.TempDir()
	var paths []string
	for i := range shards {
		p := filepath.Join(dir, filepath.Base(path)+".shard"+string(rune('a'+i))+".jsonl")
		if err := os.WriteFile(p, shards[i].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// fleetReport runs report --format json (a critical finding is not an error here).
func fleetReport(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, append([]string{"report", "--format", "json"}, args...)...)
	if err != nil && !errors.Is(err, errCritical) {
		t.Fatalf("report %v: %v", args, err)
	}
	return out
}

// mergeableSections are the parts of a report that a merge recomputes
// exactly; each must be byte for byte the single instance's.
var mergeableSections = []string{"totals", "calls_per_job", "duplicates", "status", "job_types", "models", "tools", "jobs", "timeline"}

func sections(t *testing.T, doc string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("%v in %.200s", err, doc)
	}
	return m
}

// TestMergeOfShardsEqualsOneInstance: a night split by job ID across two
// replicas, their reports merged, is the report of one instance fed
// everything, in every section a merge recomputes.
func TestMergeOfShardsEqualsOneInstance(t *testing.T) {
	for _, log := range []string{"../sample-logs/seed000-incident.jsonl", "../sample-logs/seed002-six-pipelines.jsonl", "../sample-logs/healthy-night.jsonl"} {
		t.Run(filepath.Base(log), func(t *testing.T) {
			for _, n := range []int{2, 3} {
				shards := shardByJob(t, log, n)
				var files []string
				for i, s := range shards {
					f := filepath.Join(t.TempDir(), "replica"+string(rune('a'+i))+".json")
					os.WriteFile(f, []byte(fleetReport(t, s)), 0o644)
					files = append(files, f)
				}
				one := sections(t, fleetReport(t, log))
				merged := fleetReport(t, append([]string{"--merge"}, files...)...)
				got := sections(t, merged)
				got["jobs"], one["jobs"] = withoutCrossJobFindings(t, got["jobs"]), withoutCrossJobFindings(t, one["jobs"])
				for _, s := range mergeableSections {
					if !bytes.Equal(got[s], one[s]) {
						t.Errorf("%d shards: %s differs:\nmerged %.600s\none    %.600s", n, s, got[s], one[s])
					}
				}
				var mr correlate.Report
				json.Unmarshal([]byte(merged), &mr)
				if mr.Merged == nil || len(mr.Merged.Replicas) != n || mr.Merged.SplitJobs != 0 || len(mr.Merged.Dropped) != 0 {
					t.Errorf("%d shards: merge info %+v", n, mr.Merged)
				}
				var single correlate.Report
				json.Unmarshal([]byte(fleetReport(t, log)), &single)
				if !findingsEqual(mr.Findings, single.Findings) {
					t.Errorf("%d shards: findings differ:\nmerged %+v\none    %+v", n, mr.Findings, single.Findings)
				}
			}
		})
	}
}

// crossJobFindings are judged over many jobs (a model's breaker, retries
// in lockstep across jobs, the Retry-After share of the run): a replica
// judges them on its shard, so a job can carry one on a replica and not in
// one instance, or the other way round.
var crossJobFindings = []string{"breaker_open", "synchronized_retries", "retry_after_too_short"}

// withoutCrossJobFindings is a jobs array without crossJobFindings, in the
// report's indentation.
func withoutCrossJobFindings(t *testing.T, jobs json.RawMessage) json.RawMessage {
	t.Helper()
	var js []correlate.JobReport
	if err := json.Unmarshal(jobs, &js); err != nil {
		t.Fatal(err)
	}
	for i := range js {
		js[i].Findings = slices.DeleteFunc(js[i].Findings, func(f string) bool { return slices.Contains(crossJobFindings, f) })
	}
	b, _ := json.MarshalIndent(js, "  ", "  ")
	return b
}

// findingsEqual compares what a merge keeps exactly of each finding.
func findingsEqual(a, b []correlate.FindingReport) bool {
	key := func(fs []correlate.FindingReport) []string {
		var out []string
		for _, f := range fs {
			if slices.Contains(crossJobFindings, f.Kind) {
				continue
			}
			js, _ := json.Marshal([]any{f.Kind, f.Severity, f.Count, f.JobsTotal, f.WastedUSD, f.FirstAt})
			out = append(out, string(js))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

// TestMergeSaysWhatItCannotSum: the same report twice, a replica's
// earlier snapshot, a job split over two replicas, two active-active
// copies, and reports of two runs.
func TestMergeSaysWhatItCannotSum(t *testing.T) {
	log := "../sample-logs/seed000-incident.jsonl"
	shards := shardByJob(t, log, 2)
	dir := t.TempDir()
	write := func(name string, r *correlate.Report) string {
		b, _ := json.MarshalIndent(r, "", "  ")
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	parse := func(doc string) *correlate.Report {
		var r correlate.Report
		if err := json.Unmarshal([]byte(doc), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	a, b := parse(fleetReport(t, shards[0])), parse(fleetReport(t, shards[1]))
	a.Replica, b.Replica = "burnrate-a", "burnrate-b"
	a.RunID, b.RunID = "nightly-1", "nightly-1"
	pa, pb := write("a.json", a), write("b.json", b)
	one := parse(fleetReport(t, log))

	t.Run("the same report twice is counted once", func(t *testing.T) {
		again := filepath.Join(dir, "a-again.json")
		data, _ := os.ReadFile(pa)
		os.WriteFile(again, data, 0o644)
		m := parse(fleetReport(t, "--merge", pa, again, pb))
		if m.Totals.Attempts != one.Totals.Attempts || m.Totals.SpendUSD != one.Totals.SpendUSD || len(m.Merged.Dropped) != 1 || !strings.Contains(m.Merged.Dropped[0], "the same report") {
			t.Errorf("attempts %d (want %d), spend %v (want %v), dropped %q", m.Totals.Attempts, one.Totals.Attempts, m.Totals.SpendUSD, one.Totals.SpendUSD, m.Merged.Dropped)
		}
	})

	t.Run("an earlier snapshot of a replica is counted once", func(t *testing.T) {
		// The first half of replica a's lines: what it had read when it
		// wrote a report, before it restarted and read its file again.
		data, _ := os.ReadFile(shards[0])
		lines := bytes.SplitAfter(data, []byte("\n"))
		half := filepath.Join(dir, "half.jsonl")
		os.WriteFile(half, bytes.Join(lines[:len(lines)/2], nil), 0o644)
		early := parse(fleetReport(t, half))
		early.Replica, early.RunID = "burnrate-a", "nightly-1"
		pe := write("a-early.json", early)
		m := parse(fleetReport(t, "--merge", pe, pa, pb))
		if m.Totals.Attempts != one.Totals.Attempts || len(m.Merged.Dropped) != 1 || !strings.Contains(m.Merged.Dropped[0], "earlier snapshot") {
			t.Errorf("attempts %d (want %d), dropped %q", m.Totals.Attempts, one.Totals.Attempts, m.Merged.Dropped)
		}
	})

	t.Run("a replica restarted empty: both generations are summed", func(t *testing.T) {
		data, _ := os.ReadFile(shards[0])
		lines := bytes.SplitAfter(data, []byte("\n"))
		first, second := filepath.Join(dir, "gen1.jsonl"), filepath.Join(dir, "gen2.jsonl")
		os.WriteFile(first, bytes.Join(lines[:len(lines)/2], nil), 0o644)
		os.WriteFile(second, bytes.Join(lines[len(lines)/2:], nil), 0o644)
		g1, g2 := parse(fleetReport(t, first)), parse(fleetReport(t, second))
		for _, g := range []*correlate.Report{g1, g2} {
			g.Replica, g.RunID = "burnrate-a", "nightly-1"
		}
		m := parse(fleetReport(t, "--merge", write("gen1.json", g1), write("gen2.json", g2), pb))
		if m.Totals.Attempts != one.Totals.Attempts || m.Totals.SpendUSD != one.Totals.SpendUSD || m.Totals.Jobs != one.Totals.Jobs {
			t.Errorf("attempts %d jobs %d spend %v; one instance %d %d %v", m.Totals.Attempts, m.Totals.Jobs, m.Totals.SpendUSD, one.Totals.Attempts, one.Totals.Jobs, one.Totals.SpendUSD)
		}
		if m.Merged.SplitJobs == 0 {
			t.Error("the jobs both generations saw are not said")
		}
		// Per job: calls and spend are the single instance's.
		for _, j := range one.Jobs {
			got := findJobReport(m, j.JobID)
			if got == nil || got.Attempts != j.Attempts || got.SpendUSD != j.SpendUSD {
				t.Errorf("job %s: merged %+v, one instance %+v", j.JobID, got, j)
			}
		}
	})

	t.Run("two reports of one name that overlap are refused, not summed", func(t *testing.T) {
		// Issue 34: reports of one replica name are merged by job
		// identity. Two that both hold the middle third of a's lines —
		// the same jobs from the same first call — but neither holding
		// the other cannot be summed (the overlap would count twice) nor
		// one dropped (the other's jobs would go): refused, with the job.
		data, _ := os.ReadFile("../sample-logs/healthy-night.jsonl") // short jobs: some lie wholly in the middle third
		lines := bytes.SplitAfter(data, []byte("\n"))
		n := len(lines)
		first, second := filepath.Join(dir, "o1.jsonl"), filepath.Join(dir, "o2.jsonl")
		os.WriteFile(first, bytes.Join(lines[:2*n/3], nil), 0o644)
		os.WriteFile(second, bytes.Join(lines[n/3:], nil), 0o644)
		o1, o2 := parse(fleetReport(t, first)), parse(fleetReport(t, second))
		o1.Replica, o1.RunID, o1.Instance = "burnrate-a", "nightly-1", "burnrate-a/nightly-1/1"
		o2.Replica, o2.RunID, o2.Instance = "burnrate-a", "nightly-1", "burnrate-a/nightly-1/2"
		_, err := run(t, "report", "--merge", "--format", "json", write("o1.json", o1), write("o2.json", o2))
		if err == nil || !strings.Contains(err.Error(), "neither holds the other") {
			t.Errorf("overlapping reports of one name: err %v", err)
		}
	})

	t.Run("a job split by a traceID route is joined again", func(t *testing.T) {
		// Every job's lines alternate between two replicas.
		data, _ := os.ReadFile(log)
		var x, y bytes.Buffer
		for i, l := range bytes.SplitAfter(data, []byte("\n")) {
			if i%2 == 0 {
				x.Write(l)
			} else {
				y.Write(l)
			}
		}
		px, py := filepath.Join(dir, "x.jsonl"), filepath.Join(dir, "y.jsonl")
		os.WriteFile(px, x.Bytes(), 0o644)
		os.WriteFile(py, y.Bytes(), 0o644)
		rx, ry := parse(fleetReport(t, px)), parse(fleetReport(t, py))
		rx.Replica, ry.Replica = "x", "y"
		m := parse(fleetReport(t, "--merge", write("x.json", rx), write("y.json", ry)))
		if m.Totals.Attempts != one.Totals.Attempts || m.Totals.SpendUSD != one.Totals.SpendUSD || m.Totals.Jobs != one.Totals.Jobs || m.Merged.SplitJobs == 0 {
			t.Errorf("attempts %d jobs %d spend %v split %d; one instance %d %d %v", m.Totals.Attempts, m.Totals.Jobs, m.Totals.SpendUSD, m.Merged.SplitJobs, one.Totals.Attempts, one.Totals.Jobs, one.Totals.SpendUSD)
		}
		for _, j := range one.Jobs {
			got := findJobReport(m, j.JobID)
			if got == nil || got.Attempts != j.Attempts || got.SpendUSD != j.SpendUSD {
				t.Errorf("job %s: merged %+v, one instance %+v", j.JobID, got, j)
			}
		}
	})

	t.Run("active-active copies are refused", func(t *testing.T) {
		c := *a
		c.Replica = "burnrate-b"
		_, err := run(t, "report", "--merge", "--format", "json", pa, write("copy.json", &c))
		if err == nil || !strings.Contains(err.Error(), "same input") {
			t.Errorf("err %v", err)
		}
	})

	t.Run("an idle replica, which names no run, merges", func(t *testing.T) {
		empty := filepath.Join(dir, "empty.jsonl")
		os.WriteFile(empty, nil, 0o644)
		out, _ := run(t, "report", "--format", "json", empty) // exit 2: no events
		idle := parse(out)
		idle.Replica = "burnrate-c"
		m := parse(fleetReport(t, "--merge", pa, write("idle.json", idle), pb))
		if m.RunID != "nightly-1" || m.Totals.Attempts != one.Totals.Attempts || len(m.Merged.Replicas) != 3 {
			t.Errorf("run %q attempts %d replicas %d", m.RunID, m.Totals.Attempts, len(m.Merged.Replicas))
		}
	})

	t.Run("two runs are refused", func(t *testing.T) {
		c := *b
		c.RunID = "nightly-2"
		_, err := run(t, "report", "--merge", "--format", "json", pa, write("other-run.json", &c))
		if err == nil || !strings.Contains(err.Error(), "one run") {
			t.Errorf("err %v", err)
		}
	})

	t.Run("a replica missing is said, with --replicas", func(t *testing.T) {
		_, err := run(t, "report", "--merge", "--format", "json", "--replicas", "burnrate-a,burnrate-b,burnrate-c", pa, pb)
		if err == nil || !strings.Contains(err.Error(), `replica "burnrate-c"`) {
			t.Errorf("err %v", err)
		}
		if _, err := run(t, "report", "--merge", "--format", "json", "--replicas", "burnrate-a,burnrate-b", pa, pb); err != nil && !errors.Is(err, errCritical) {
			t.Errorf("every replica there: err %v", err)
		}
	})

	t.Run("not a report, a device, one file", func(t *testing.T) {
		junk := filepath.Join(dir, "junk.json")
		os.WriteFile(junk, []byte(`{"a":1}`), 0o644)
		for _, args := range [][]string{{pa, junk}, {pa, "/dev/zero"}, {pa}, {pa, filepath.Join(dir, "missing.json")}} {
			if _, err := run(t, append([]string{"report", "--merge"}, args...)...); err == nil || errors.Is(err, errCritical) {
				t.Errorf("%v: err %v", args, err)
			}
		}
	})
}

func findJobReport(r *correlate.Report, id string) *correlate.JobReport {
	for i := range r.Jobs {
		if r.Jobs[i].JobID == id {
			return &r.Jobs[i]
		}
	}
	return nil
}

// killedJobs runs the live engine over logs with a job ceiling and returns
// the jobs the job_ceiling rule fired for.
func killedJobs(t *testing.T, ceiling float64, paths ...string) []string {
	t.Helper()
	r, err := loadReplay(paths, 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var killed []string
	rules := alerts.NewRules(alerts.Config{JobCeilingUSD: ceiling, KillOn: alerts.DefaultKillOn}, nil, func(a alerts.Alert) {
		if a.Rule == "job_ceiling" {
			killed = append(killed, a.JobID)
		}
	})
	eng := engine.New(engine.Options{Config: correlate.DefaultConfig(), Observer: rules}, r)
	eng.Run(context.Background())
	slices.Sort(killed)
	return killed
}

// TestShardedKillsEqualOneInstance: replicas sharded by job ID fire the
// same job kills, each once, as one instance fed everything.
func TestShardedKillsEqualOneInstance(t *testing.T) {
	log := "../sample-logs/seed000-incident.jsonl"
	for _, ceiling := range []float64{0.02, 0.05, 0.2} {
		one := killedJobs(t, ceiling, log)
		if len(one) == 0 {
			t.Fatalf("ceiling %v kills nothing: the test proves nothing", ceiling)
		}
		var fleet []string
		for _, s := range shardByJob(t, log, 2) {
			fleet = append(fleet, killedJobs(t, ceiling, s)...)
		}
		slices.Sort(fleet)
		if !slices.Equal(fleet, one) {
			t.Errorf("ceiling %v: the fleet killed %d jobs %v, one instance %d %v", ceiling, len(fleet), fleet, len(one), one)
		}
	}
}

// TestFleetRulesNameRealSeries: every burnrate series and label the shipped
// Prometheus rules read is in a real scrape, with run_id and replica on it
// (promtool tests the rules themselves: deploy/prometheus/check.sh).
func TestFleetRulesNameRealSeries(t *testing.T) {
	rulesFile, err := os.ReadFile("../deploy/prometheus/burnrate.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, body := scrapeReplay(t, []string{"../sample-logs/seed000-incident.jsonl"}, alerts.Config{JobCeilingUSD: 0.2, KillOn: alerts.DefaultKillOn}, "burnrate-a")
	// Series names, not the recorded ones (run_id:burnrate_spend_usd:sum).
	var names []string
	for _, m := range regexp.MustCompile(`(?:^|[^:\w])(burnrate_\w+)\b(?:[^:]|$)`).FindAllStringSubmatch(string(rulesFile), -1) {
		names = append(names, m[1])
	}
	if len(names) < 5 {
		t.Fatalf("the rules name %d burnrate series: %v", len(names), names)
	}
	for _, name := range names {
		re := regexp.MustCompile(`(?m)^` + name + `\{[^}]*replica="burnrate-a"[^}]*run_id="derived-[0-9a-f]+"`)
		if !re.Match(body) {
			t.Errorf("the rules read %s, which the scrape lacks (with replica and run_id)", name)
		}
	}
}

// TestMergeUnderClockSkew: replica b's workers' clocks three hours ahead.
// A merge reads only log times, so it is the same whichever report comes
// first, and it equals one instance fed the same skewed lines.
func TestMergeUnderClockSkew(t *testing.T) {
	shards := shardByJob(t, "../sample-logs/seed000-incident.jsonl", 2)
	data, err := os.ReadFile(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	var skewed bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		ts, err := time.Parse(time.RFC3339Nano, m["ts"].(string))
		if err != nil {
			t.Fatal(err)
		}
		m["ts"] = ts.Add(3 * time.Hour).Format(time.RFC3339Nano)
		b, _ := json.Marshal(m)
		skewed.Write(append(b, '\n'))
	}
	dir := t.TempDir()
	skewedPath := filepath.Join(dir, "b-skewed.jsonl")
	os.WriteFile(skewedPath, skewed.Bytes(), 0o644)
	pa, pb := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.WriteFile(pa, []byte(fleetReport(t, shards[0])), 0o644)
	os.WriteFile(pb, []byte(fleetReport(t, skewedPath)), 0o644)
	ab := sections(t, fleetReport(t, "--merge", pa, pb))
	ba := sections(t, fleetReport(t, "--merge", pb, pa))
	one := sections(t, fleetReport(t, shards[0], skewedPath))
	ab["jobs"], ba["jobs"], one["jobs"] = withoutCrossJobFindings(t, ab["jobs"]), withoutCrossJobFindings(t, ba["jobs"]), withoutCrossJobFindings(t, one["jobs"])
	for _, s := range mergeableSections {
		if !bytes.Equal(ab[s], ba[s]) {
			t.Errorf("%s depends on the order of the reports", s)
		}
		if !bytes.Equal(ab[s], one[s]) {
			t.Errorf("%s differs from one instance's", s)
		}
	}
}
