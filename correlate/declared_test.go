package correlate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

func stateOf(t *testing.T, lines ...string) *State {
	t.Helper()
	st := New(DefaultConfig())
	p := decode.NewParser()
	for _, l := range lines {
		var ev ingest.Event
		if r := p.ParseLine([]byte(l), &ev); r != ingest.Accepted {
			t.Fatalf("%s: %v", l, r)
		}
		st.Apply(&ev)
	}
	return st
}

// tries logs n attempts of one call of job under key (keyless when key is
// ""), the last one a 200.
func tries(job, jobType, key string, n int) []string {
	var out []string
	for i := range n {
		status := 529
		if i == n-1 {
			status = 200
		}
		k := ""
		if key != "" {
			k = fmt.Sprintf(`"idempotency_key":%q,`, key)
		}
		out = append(out, fmt.Sprintf(`{"ts":"2026-03-10T01:%02d:%02dZ","job_id":%q,"job_type":%q,%s"model":"claude-sonnet-4-6","status":%d}`, i/60, i%60, job, jobType, k, status))
	}
	return out
}

var sdk3 = DeclaredStack{From: "--stack s.toml", Layers: []DeclaredLayer{{Name: "anthropic-ts", Library: "Anthropic TypeScript SDK", Source: "src/x.ts:4", Attempts: 3}}}

func TestCompareDeclaredNamesTheKnownLayersAndTheGap(t *testing.T) {
	lines := append(tries("a", "report", "k1", 63), tries("b", "report", "k2", 2)...)
	st := stateOf(t, lines...)
	r := st.Report()
	st.CompareDeclared(r, sdk3, "", nil, DefaultConfig().SeverityOf)
	dv := r.DeclaredVsObserved
	if dv == nil || !dv.Above || dv.GapFactor != 21 || *dv.DeclaredAttempts != 3 || dv.DeclaredProduct != "3 = 3" {
		t.Fatalf("%+v", dv)
	}
	if o := dv.Observed; o.PerOperation.Max != 63 || o.PerJob.Max != 63 || o.WorstJob != "a" || o.OverDeclared != 1 || o.Jobs != 2 {
		t.Fatalf("observed %+v", o)
	}
	f := findingOf(r, "undeclared_retry_layer")
	if f == nil || f.Severity != SeverityCritical || f.Count != 1 || len(f.Jobs) != 1 || f.Jobs[0] != "a" {
		t.Fatalf("finding %+v", f)
	}
	for _, want := range []string{"observed 63 calls for one operation", "declared 3 (Anthropic TypeScript SDK at src/x.ts:4: 3)", "×21 unexplained"} {
		if !strings.Contains(f.Example, want) {
			t.Errorf("example %q lacks %q", f.Example, want)
		}
	}
	if !r.HasCritical() {
		t.Error("a contradicted stack is critical by default (report exits 1)")
	}
}

// TestCompareDeclaredBelowIsFine: a stack is a worst case; calls under it
// are no finding, and one at it neither.
func TestCompareDeclaredBelowIsFine(t *testing.T) {
	st := stateOf(t, append(tries("a", "", "k", 3), tries("b", "", "", 1)...)...)
	r := st.Report()
	st.CompareDeclared(r, sdk3, "", nil, DefaultConfig().SeverityOf)
	if r.DeclaredVsObserved.Above || findingOf(r, "undeclared_retry_layer") != nil {
		t.Fatalf("%+v %+v", r.DeclaredVsObserved, r.Findings)
	}
	if r.DeclaredVsObserved.Observed.PerOperation.Max != 3 {
		t.Errorf("%+v", r.DeclaredVsObserved.Observed)
	}
}

// TestCompareDeclaredKeylessCountsTheRun: without idempotency keys, one
// call is the job's calls since its last success — a job of many
// distinct successful calls is one try each, not a hidden layer.
func TestCompareDeclaredKeylessCountsTheRun(t *testing.T) {
	lines := tries("retried", "t", "", 5)
	for i := range 40 { // 40 distinct calls, each answered
		lines = append(lines, fmt.Sprintf(`{"ts":"2026-03-10T02:00:%02dZ","job_id":"pipeline","job_type":"t","model":"m","status":200}`, i))
	}
	st := stateOf(t, lines...)
	r := st.Report()
	st.CompareDeclared(r, sdk3, "", nil, DefaultConfig().SeverityOf)
	dv := r.DeclaredVsObserved
	if dv.Observed.PerOperation.Max != 5 || dv.Observed.WorstJob != "retried" || dv.Observed.PerJob.Max != 40 || dv.Observed.OverDeclared != 1 {
		t.Fatalf("%+v", dv.Observed)
	}
	if len(dv.JobTypes) != 1 || dv.JobTypes[0].JobType != "t" {
		t.Errorf("job types %+v", dv.JobTypes)
	}
}

func TestCompareDeclaredPerJobType(t *testing.T) {
	lines := append(tries("a", "report", "k", 9), tries("b", "digest", "k", 2)...)
	st := stateOf(t, lines...)
	r := st.Report()
	st.CompareDeclared(r, DeclaredStack{Layers: []DeclaredLayer{{Name: "q", Attempts: 4}}}, "", nil, DefaultConfig().SeverityOf)
	jt := r.DeclaredVsObserved.JobTypes
	if len(jt) != 2 || jt[0].JobType != "report" || jt[0].OverDeclared != 1 || jt[1].OverDeclared != 0 || jt[1].PerOperation.Max != 2 {
		t.Fatalf("%+v", jt)
	}
}

// TestCompareDeclaredSaturatesAndUnbounded: forty layers of 1,000 attempts
// are more than any count (never a wrapped, small product that every
// operation exceeds); an unbounded layer explains any count.
func TestCompareDeclaredSaturatesAndUnbounded(t *testing.T) {
	st := stateOf(t, tries("a", "", "k", 63)...)
	huge := DeclaredStack{}
	for range 40 {
		huge.Layers = append(huge.Layers, DeclaredLayer{Name: "x", Attempts: 1000})
	}
	if n, _ := huge.Product(); n != math.MaxInt64 {
		t.Fatalf("product %d", n)
	}
	for _, d := range []DeclaredStack{huge, {Layers: []DeclaredLayer{{Name: "tenacity", Unbounded: true}, {Name: "sdk", Attempts: 3}}}} {
		r := st.Report()
		st.CompareDeclared(r, d, "", nil, DefaultConfig().SeverityOf)
		if r.DeclaredVsObserved.Above || findingOf(r, "undeclared_retry_layer") != nil {
			t.Errorf("%s: %+v", d.ProductText(), r.DeclaredVsObserved)
		}
	}
	r := st.Report()
	st.CompareDeclared(r, DeclaredStack{Layers: []DeclaredLayer{{Name: "t", Unbounded: true}}}, "", nil, DefaultConfig().SeverityOf)
	if r.DeclaredVsObserved.DeclaredAttempts != nil || r.DeclaredVsObserved.DeclaredProduct != "∞ = unbounded" {
		t.Errorf("%+v", r.DeclaredVsObserved)
	}
}

func TestCompareDeclaredSeverityOff(t *testing.T) {
	st := stateOf(t, tries("a", "", "k", 10)...)
	r := st.Report()
	st.CompareDeclared(r, sdk3, "", nil, func(FindingKind) Severity { return SeverityOff })
	if !r.DeclaredVsObserved.Above || findingOf(r, "undeclared_retry_layer") != nil {
		t.Fatalf("off: the section says it, no finding: %+v", r.Findings)
	}
}
