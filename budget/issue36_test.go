package budget

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
)

// TestModelRefusesNaNAndInfNamingTheFlag: issue 36 — --multiplier NaN and
// --target NaN passed every comparison. Every float is held to a finite
// range, and the message names the flag.
func TestModelRefusesNaNAndInfNamingTheFlag(t *testing.T) {
	good := Model{P: 0.3, Retries: 2, Base: 1, Multiplier: 2, Jitter: JitterFull, Latency: 1}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for flag, set := range map[string]func(*Model){
			"--p":           func(m *Model) { m.P = bad },
			"--multiplier":  func(m *Model) { m.Multiplier = bad },
			"--target":      func(m *Model) { m.Target = bad },
			"--base":        func(m *Model) { m.Base = bad },
			"--cap":         func(m *Model) { m.Cap = bad },
			"--latency":     func(m *Model) { m.Latency = bad },
			"--deadline":    func(m *Model) { m.Deadline = bad },
			"--retry-after": func(m *Model) { m.RetryAfter = bad },
		} {
			m := good
			set(&m)
			if err := m.Validate(); err == nil || !strings.Contains(err.Error(), flag+" ") {
				t.Errorf("%s %g: %v", flag, bad, err)
			}
		}
	}
	m := good
	m.Multiplier = 1e308
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "--multiplier") {
		t.Errorf("--multiplier 1e308: %v", err)
	}
}

// TestModelExtremesStayFinite: the largest inputs Validate takes give
// finite, non-negative times: a delay is held at MaxSeconds.
func TestModelExtremesStayFinite(t *testing.T) {
	for _, j := range []Jitter{JitterNone, JitterFull, JitterEqual, JitterDecorrelated} {
		m := Model{P: 0.99, Retries: 1000, Base: MaxSeconds, Multiplier: MaxMultiplier, Jitter: j, Latency: MaxSeconds, Deadline: 60, Target: 0.999}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		r := m.Evaluate()
		for name, v := range map[string]float64{"worst": r.WorstTime, "expected": r.ExpectedTime, "attempts": r.ExpectedAttempts} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Errorf("%s: %s time %g", j, name, v)
			}
		}
		for _, s := range r.Schedule {
			if math.IsInf(s.Expected, 0) || math.IsInf(s.Worst, 0) || math.IsInf(s.FinishExpected, 0) {
				t.Fatalf("%s: step %+v", j, s)
			}
		}
	}
}

// TestWallClockSaturatesNeverNegative: forty layers of 1,000 attempts of
// 292 years each wrapped the wall clock negative.
func TestWallClockSaturatesNeverNegative(t *testing.T) {
	var st Stack
	long := 2540000 * time.Hour
	for range 40 {
		st = append(st, Layer{Name: "l", Attempts: 1000, Timeout: long, Backoff: Backoff{Kind: BackoffExp, Base: long}})
	}
	if d, ok := st.WallClock(); !ok || d != math.MaxInt64 {
		t.Errorf("wall clock %v %v, want saturated", d, ok)
	}
	if d := (Backoff{Kind: BackoffExp, Base: long}).Delay(40); d != math.MaxInt64 {
		t.Errorf("exp delay %v", d)
	}
	if d := (Backoff{Kind: BackoffLinear, Base: long, Step: long}).Delay(999); d != math.MaxInt64 {
		t.Errorf("linear delay %v", d)
	}
	var b bytes.Buffer
	PrintLayers(&b, Layers{Stack: st, Threshold: 10})
	if !strings.Contains(b.String(), "more than 292 years (saturated") || strings.Contains(b.String(), "wall clock: -") {
		t.Errorf("text:\n%s", b.String())
	}
}

// TestLayersWithoutTimeout: issue 36 — budget layers refused a layer
// without a timeout even when only the product was wanted. It is taken:
// the product is printed, the timeout reads "no timeout", the wall clock
// is unbounded unless a layer outside has a timeout.
func TestLayersWithoutTimeout(t *testing.T) {
	q, err := ParseLayer("queue:attempts=3")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseLayer("sdk:attempts=3")
	if err != nil {
		t.Fatal(err)
	}
	st := Stack{q, s}
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, ok := st.WallClock(); ok {
		t.Error("a stack without a timeout is bounded")
	}
	var b bytes.Buffer
	PrintLayers(&b, Layers{Stack: st, Threshold: 10})
	for _, want := range []string{"worst-case attempts: 9", "no timeout", "worst-case wall clock: no timeout"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteLayersJSON(&b, Layers{Stack: st, Threshold: 10}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"worst_case_wall_clock_s": null`) || !strings.Contains(b.String(), `"timeout_s": null`) {
		t.Errorf("json:\n%s", b.String())
	}
	st[0].Timeout = 600 * time.Second // the queue's timeout bounds the SDK's attempts
	if d, ok := st.WallClock(); !ok || d != 1800*time.Second {
		t.Errorf("outer timeout: %v %v, want 1800s", d, ok)
	}
	if _, err := ParseLayer("x:attempts=2,timeout=-1s"); err == nil {
		t.Error("a negative timeout is taken")
	}
}

// TestMeasuredLatencyUnknown: a log with no latency says so, never "0.00 s".
func TestMeasuredLatencyUnknown(t *testing.T) {
	r := &correlate.Report{Models: []correlate.ModelReport{{Model: "m", Attempts: 5, Status: map[string]int64{"200": 5}}}}
	m := Measure(r, nil)
	if m.LatencyS != nil {
		t.Fatalf("latency %v", *m.LatencyS)
	}
	var b bytes.Buffer
	PrintMeasured(&b, m)
	if !strings.Contains(b.String(), "latency unknown") || strings.Contains(b.String(), "0.00 s") {
		t.Errorf("text:\n%s", b.String())
	}
	r.Models[0].MeanLatencyMs = 1500
	if m := Measure(r, nil); m.LatencyS == nil || *m.LatencyS != 1.5 {
		t.Errorf("latency %v", m.LatencyS)
	}
}
