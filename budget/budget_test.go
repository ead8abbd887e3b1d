package budget

import (
	"math"
	"testing"
	"testing/quick"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func mustLayer(t *testing.T, s string) Layer {
	l, err := ParseLayer(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestSeed003Stack reproduces seed 003's example: scheduler 2 / watchdog 2
// / wrapper 3 / sdk 3 gives 36 attempts and, by the article's own fold,
// 3,900 s (65.0 min) — not the "~128.0 min" its comment claims.
func TestSeed003Stack(t *testing.T) {
	s := Stack{
		mustLayer(t, "scheduler:attempts=2,timeout=3600s,backoff=fixed:300s"),
		mustLayer(t, "watchdog:attempts=2,timeout=900s,backoff=none"),
		mustLayer(t, "wrapper:attempts=3,timeout=300s,backoff=exp:10s"),
		mustLayer(t, "sdk:attempts=3,timeout=120s,backoff=linear:1s+1s"),
	}
	if got := s.WorstCaseAttempts(); got != 36 {
		t.Errorf("attempts %d, want 36", got)
	}
	if got := s.WorstCaseWallClock(); got != 3900*time.Second {
		t.Errorf("wall clock %s, want 3900s", got)
	}
	owner, silence := s.Silence()
	if owner != "scheduler" || len(silence) != 3 {
		t.Errorf("owner %s silence %v", owner, silence)
	}
}

// TestSeed000Stack: 3 × 3 × 7 = 63, and the fix (queue 4, SDK 1) = 4.
func TestSeed000Stack(t *testing.T) {
	before := Stack{mustLayer(t, "queue:attempts=7,timeout=600s,backoff=exp:2s"), mustLayer(t, "wrapper:attempts=3,timeout=600s,backoff=exp:1s"), mustLayer(t, "sdk:attempts=3,timeout=600s,backoff=exp:0.5s")}
	after := Stack{mustLayer(t, "queue:attempts=4,timeout=90s,backoff=exp:2s"), mustLayer(t, "sdk:attempts=1,timeout=90s,backoff=none")}
	if before.WorstCaseAttempts() != 63 || after.WorstCaseAttempts() != 4 {
		t.Errorf("%d %d", before.WorstCaseAttempts(), after.WorstCaseAttempts())
	}
}

func TestBackoffForms(t *testing.T) {
	for spec, want := range map[string][3]time.Duration{
		"none":          {0, 0, 0},
		"fixed:2s":      {2 * time.Second, 2 * time.Second, 2 * time.Second},
		"exp:500ms":     {500 * time.Millisecond, time.Second, 2 * time.Second},
		"linear:1s+2.5": {time.Second, 3500 * time.Millisecond, 6 * time.Second},
	} {
		b, err := ParseBackoff(spec)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if got := b.Delay(i); got != w {
				t.Errorf("%s retry %d: %s, want %s", spec, i, got, w)
			}
		}
	}
	for _, bad := range []string{"exp", "linear:1s", "cubic:1s", "fixed:-1s"} {
		if _, err := ParseBackoff(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// base case of the hand-checked examples: p=0.5, n=3, b=1, m=2, L=1.
func base(j Jitter) Model {
	return Model{P: 0.5, Retries: 3, Base: 1, Multiplier: 2, Jitter: j, Latency: 1}
}

// TestSeed004HandChecked checks every jitter mode against sums done by hand.
func TestSeed004HandChecked(t *testing.T) {
	cases := []struct {
		name           string
		m              Model
		expected, wrst float64
	}{
		// E[T] = L(1+.5+.25+.125) + Σ p^(i+1) E[d_i]; worst = 4L + Σ d_max.
		{"none", base(JitterNone), 1.875 + 0.5*1 + 0.25*2 + 0.125*4, 4 + 7},
		{"full", base(JitterFull), 1.875 + 0.5*0.5 + 0.25*1 + 0.125*2, 4 + 7},
		{"equal", base(JitterEqual), 1.875 + 0.5*0.75 + 0.25*1.5 + 0.125*3, 4 + 7},
		// cap 5: E = 2, then ((25−1)/2 + 5(6−5))/(6−1) = 3.4, then
		// ((25−1)/2 + 5(10.2−5))/(10.2−1); worst 3, 5, 5.
		{"decorrelated", func() Model { m := base(JitterDecorrelated); m.Cap = 5; return m }(),
			1.875 + 0.5*2 + 0.25*3.4 + 0.125*(12+5*5.2)/9.2, 4 + 3 + 5 + 5},
		// Retry-After 3 s replaces the schedule whatever the jitter.
		{"retry-after", func() Model { m := base(JitterFull); m.RetryAfter = 3; return m }(), 1.875 + 3*(0.5+0.25+0.125), 4 + 9},
	}
	for _, c := range cases {
		r := c.m.Evaluate()
		if !near(r.ExpectedTime, c.expected) || !near(r.WorstTime, c.wrst) {
			t.Errorf("%s: E[T] %v worst %v, want %v and %v", c.name, r.ExpectedTime, r.WorstTime, c.expected, c.wrst)
		}
		if !near(r.PSuccess, 0.9375) || !near(r.ExpectedAttempts, 1.875) {
			t.Errorf("%s: P %v E[attempts] %v", c.name, r.PSuccess, r.ExpectedAttempts)
		}
	}
}

func TestDeadlineAndCap(t *testing.T) {
	m := base(JitterNone)
	m.Deadline = 6 // finishes at 1, 3, 6, 11: k* = 2
	r := m.Evaluate()
	if r.PDeadline == nil || !near(*r.PDeadline, 0.125) || r.DeadlineAttempt == nil || *r.DeadlineAttempt != 4 {
		t.Errorf("P(deadline) %v attempt %v, want 0.125 and 4", r.PDeadline, r.DeadlineAttempt)
	}
	// budget 6 − 4·1 = 2 = Σ min(c, 1, 2, 4) → c = 2/3.
	if r.MaxSafeCap == nil || math.Abs(*r.MaxSafeCap-2.0/3) > 1e-6 || !r.CapRequired {
		t.Errorf("max safe cap %v, want 0.6667", r.MaxSafeCap)
	}
	m.Deadline = 3.5 // budget negative: no cap helps
	if r := m.Evaluate(); r.MaxSafeCap != nil {
		t.Errorf("no cap can help, got %v", *r.MaxSafeCap)
	}
	m.Deadline = 0.5 // L > D: the first attempt cannot finish
	if r := m.Evaluate(); *r.PDeadline != 1 || *r.DeadlineAttempt != 1 {
		t.Errorf("L > D: %v %v", *r.PDeadline, *r.DeadlineAttempt)
	}
	m.Deadline = 100 // everything fits: no cap required
	if r := m.Evaluate(); *r.PDeadline != 0 || r.DeadlineAttempt != nil || r.CapRequired || *r.MaxSafeCap != 4 {
		t.Errorf("fits: %+v", r)
	}
}

func TestMinRetries(t *testing.T) {
	if n := MinRetries(0.5, 0.99); n == nil || *n != 6 { // 1−0.5^7 = 0.992 ≥ 0.99 > 1−0.5^6
		t.Errorf("got %v, want 6", n)
	}
	if n := MinRetries(0.1, 0.9); *n != 0 {
		t.Errorf("one attempt already reaches 0.9: %d", *n)
	}
	if MinRetries(1, 0.9) != nil {
		t.Error("p = 1 can never reach the target")
	}
}

// Properties: success odds never fall as retries grow; the worst case
// bounds the expected time; the recommended n reaches the target.
func TestProperties(t *testing.T) {
	cfg := &quick.Config{MaxCount: 2000}
	prop := func(pRaw, bRaw, capRaw, lRaw float64, n uint8, j uint8) bool {
		m := Model{P: frac(pRaw), Retries: int(n % 20), Base: frac(bRaw) * 10, Multiplier: 2, Cap: frac(capRaw) * 30, Latency: frac(lRaw) * 5,
			Jitter: []Jitter{JitterNone, JitterFull, JitterEqual, JitterDecorrelated}[j%4]}
		r := m.Evaluate()
		m2 := m
		m2.Retries++
		r2 := m2.Evaluate()
		if r2.PSuccess < r.PSuccess-1e-12 || r.WorstTime < r.ExpectedTime-1e-9 {
			return false
		}
		if m.P < 1 {
			target := 0.999
			k := MinRetries(m.P, target)
			if k == nil || 1-math.Pow(m.P, float64(*k+1)) < target-1e-12 {
				return false
			}
		}
		return true
	}
	if err := quick.Check(prop, cfg); err != nil {
		t.Error(err)
	}
}

func frac(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0.5
	}
	return math.Abs(math.Mod(f, 1))
}
