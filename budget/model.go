package budget

import (
	"errors"
	"fmt"
	"math"
)

// Jitter is how a nominal delay becomes a random one (seed 004).
type Jitter string

const (
	JitterNone         Jitter = "none"
	JitterFull         Jitter = "full"         // U(0, d)
	JitterEqual        Jitter = "equal"        // d/2 + U(0, d/2)
	JitterDecorrelated Jitter = "decorrelated" // min(cap, U(b, 3·prev)), prev seeded with b
)

// Model holds seed 004's inputs. Times are in seconds.
type Model struct {
	P          float64 // per-attempt failure probability
	Retries    int     // n: retries after the first attempt
	Base       float64 // b
	Multiplier float64 // m
	Cap        float64 // 0: no cap
	Jitter     Jitter
	Latency    float64 // L, per attempt
	Deadline   float64 // D; 0: none
	Target     float64 // S; 0: none
	RetryAfter float64 // honoured server value; 0: none
}

// MaxMultiplier bounds --multiplier: real backoffs multiply by 1.5 to 3;
// past 100 a typo, and b·m^n would pass any float for n = 1000.
const MaxMultiplier = 100

// MaxSeconds is the longest duration the model takes or computes, about
// 31,700 years: a delay b·m^i past it is held there (a longer one is a
// call that never returns), so every sum of at most 1,001 of them is a
// finite number, never +Inf or NaN.
const MaxSeconds = 1e12

// MaxCostPerCallUSD bounds --cost-per-call: ingest's bound on one call's
// logged cost (ingest.MaxCostPerCallUSD).
const MaxCostPerCallUSD = 100_000

// Validate reports inputs the equations cannot take, each naming its flag:
// NaN and infinities are refused for every float (NaN passed every
// comparison, and --multiplier NaN printed a schedule of NaN).
func (m Model) Validate() error {
	var errs []error
	if m.P < 0 || m.P > 1 || math.IsNaN(m.P) {
		errs = append(errs, fmt.Errorf("--p %g: a failure probability in [0, 1]", m.P))
	}
	if m.Retries < 0 || m.Retries > 1000 {
		errs = append(errs, fmt.Errorf("--retries %d: use 0..1000", m.Retries))
	}
	if !(m.Multiplier >= 1 && m.Multiplier <= MaxMultiplier) { // NaN fails both
		errs = append(errs, fmt.Errorf("--multiplier %g: use 1..%d", m.Multiplier, MaxMultiplier))
	}
	for _, d := range []struct {
		flag string
		v    float64
	}{{"--base", m.Base}, {"--cap", m.Cap}, {"--latency", m.Latency}, {"--deadline", m.Deadline}, {"--retry-after", m.RetryAfter}} {
		if !(d.v >= 0 && d.v <= MaxSeconds) {
			errs = append(errs, fmt.Errorf("%s %gs: use a duration from 0 to %g s", d.flag, d.v, float64(MaxSeconds)))
		}
	}
	if !(m.Target >= 0 && m.Target < 1) {
		errs = append(errs, fmt.Errorf("--target %g: a success probability in [0, 1), e.g. 0.999", m.Target))
	}
	switch m.Jitter {
	case JitterNone, JitterFull, JitterEqual, JitterDecorrelated:
	default:
		errs = append(errs, fmt.Errorf("--jitter %q: use none, full, equal or decorrelated", m.Jitter))
	}
	return errors.Join(errs...)
}

// Step is one retry's delay.
type Step struct {
	Retry    int     `json:"retry"`      // i, from 0
	Nominal  float64 `json:"nominal_s"`  // d_i = min(cap, b·m^i)
	Expected float64 `json:"expected_s"` // E[delay]
	Worst    float64 `json:"worst_s"`    // its upper bound
	// FinishExpected is when attempt i+1 (0-based) finishes on the
	// expected-delay timeline.
	FinishExpected float64 `json:"finish_expected_s"`
	PReach         float64 `json:"p_reach"` // p^(i+1): this retry happens
}

// Result is everything seed 004 derives.
type Result struct {
	PSuccess         float64  `json:"p_success"`
	ExpectedAttempts float64  `json:"expected_attempts"`
	ExpectedTime     float64  `json:"expected_time_s"`
	WorstTime        float64  `json:"worst_time_s"`
	DeadlineAttempt  *int     `json:"deadline_attempt"` // 1-based attempt that first finishes after D; nil if none
	PDeadline        *float64 `json:"p_deadline_exceeded"`
	Recommended      *int     `json:"recommended_retries"` // minimum n for the target; nil without a target or when p = 1
	MaxSafeCap       *float64 `json:"max_safe_cap_s"`      // nil when no cap helps or no deadline
	CapRequired      bool     `json:"cap_required"`
	Schedule         []Step   `json:"schedule"`
	FirstFinish      float64  `json:"first_attempt_finish_s"`
}

// delays returns each retry's nominal, expected and worst delay.
func (m Model) delays(capV float64) (nominal, expected, worst []float64) {
	n := m.Retries
	nominal, expected, worst = make([]float64, n), make([]float64, n), make([]float64, n)
	capped := func(v float64) float64 {
		if capV > 0 {
			v = math.Min(capV, v)
		}
		return math.Min(v, MaxSeconds) // never +Inf: see MaxSeconds
	}
	prevMean, prevMax := m.Base, m.Base
	for i := range n {
		d := capped(m.Base * math.Pow(m.Multiplier, float64(i)))
		nominal[i] = d
		if m.RetryAfter > 0 {
			// The server's value replaces the schedule: jitter and
			// multiplier stop mattering.
			expected[i], worst[i] = m.RetryAfter, m.RetryAfter
			continue
		}
		switch m.Jitter {
		case JitterNone:
			expected[i], worst[i] = d, d
		case JitterFull:
			expected[i], worst[i] = d/2, d
		case JitterEqual:
			expected[i], worst[i] = 3*d/4, d
		case JitterDecorrelated:
			hi := 3 * prevMean
			switch {
			case capV > 0 && capV <= m.Base:
				expected[i] = capV // every draw is capped
			case hi <= m.Base:
				expected[i] = capped(m.Base)
			case capV > 0 && hi > capV:
				c, b := capV, m.Base
				expected[i] = ((c*c-b*b)/2 + c*(hi-c)) / (hi - b)
			default:
				expected[i] = (m.Base + hi) / 2
			}
			expected[i] = math.Min(expected[i], MaxSeconds)
			worst[i] = capped(3 * prevMax)
			prevMean, prevMax = expected[i], worst[i]
		}
	}
	return nominal, expected, worst
}

// Evaluate computes the model.
func (m Model) Evaluate() Result {
	p, n, L := m.P, m.Retries, m.Latency
	var r Result
	r.PSuccess = 1 - math.Pow(p, float64(n+1))
	if p == 1 {
		r.ExpectedAttempts = float64(n + 1)
	} else {
		r.ExpectedAttempts = (1 - math.Pow(p, float64(n+1))) / (1 - p)
	}
	nominal, expected, worst := m.delays(m.Cap)
	for k := 0; k <= n; k++ {
		r.ExpectedTime += math.Pow(p, float64(k)) * L
	}
	r.WorstTime = float64(n+1) * L
	finish := L
	r.FirstFinish = L
	for i := range n {
		r.ExpectedTime += math.Pow(p, float64(i+1)) * expected[i]
		r.WorstTime += worst[i]
		finish += expected[i] + L
		r.Schedule = append(r.Schedule, Step{Retry: i, Nominal: nominal[i], Expected: expected[i], Worst: worst[i],
			FinishExpected: finish, PReach: math.Pow(p, float64(i+1))})
	}
	if m.Deadline > 0 {
		r.deadline(m)
		r.safeCap(m)
	}
	if m.Target > 0 {
		r.Recommended = MinRetries(p, m.Target)
	}
	return r
}

// deadline walks the expected timeline for k*, the last attempt finishing
// at or before D: P(exceeded) = p^(k*+1), or 0 when every attempt fits.
func (r *Result) deadline(m Model) {
	finishes := []float64{r.FirstFinish}
	for _, s := range r.Schedule {
		finishes = append(finishes, s.FinishExpected)
	}
	kStar := -1
	for k, t := range finishes {
		if t <= m.Deadline {
			kStar = k
		}
	}
	var pd float64
	switch {
	case kStar == len(finishes)-1:
		pd = 0
	default: // includes L > D: k* = -1 gives p^0 = 1
		pd = math.Pow(m.P, float64(kStar+1))
		crossing := kStar + 2 // 1-based attempt number
		r.DeadlineAttempt = &crossing
	}
	r.PDeadline = &pd
}

// safeCap bisects for the largest cap whose worst case fits in D.
func (r *Result) safeCap(m Model) {
	budget := m.Deadline - float64(m.Retries+1)*m.Latency
	if budget < 0 {
		return // no cap helps: cut retries or latency
	}
	worstSum := func(c float64) float64 {
		_, _, w := m.delays(c)
		var s float64
		for _, v := range w {
			s += v
		}
		return s
	}
	if m.RetryAfter > 0 {
		if worstSum(0) <= budget {
			v := m.RetryAfter
			r.MaxSafeCap = &v
		}
		return
	}
	uncapped := worstSum(0)
	if uncapped <= budget {
		// No cap required: any cap at or above the largest delay is safe.
		_, _, w := m.delays(0)
		var mx float64
		for _, v := range w {
			mx = math.Max(mx, v)
		}
		r.MaxSafeCap = &mx
		return
	}
	r.CapRequired = true
	lo, hi := 0.0, 0.0
	_, _, w := m.delays(0)
	for _, v := range w {
		hi = math.Max(hi, v)
	}
	if worstSum(1e-12) > budget {
		return // even a zero cap does not fit
	}
	for range 200 {
		mid := (lo + hi) / 2
		if worstSum(mid) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	r.MaxSafeCap = &lo
}

// MinRetries inverts 1 − p^(n+1) ≥ S: n = ceil(ln(1−S)/ln p) − 1, at least
// 0; nil when p = 1 (no count of retries reaches the target).
func MinRetries(p, target float64) *int {
	var n int
	switch {
	case p <= 0 || target <= 0:
		n = 0
	case p >= 1:
		return nil
	default:
		n = max(0, int(math.Ceil(math.Log(1-target)/math.Log(p)-1e-12))-1)
	}
	return &n
}

// CDF returns P(completed by t) on the expected timeline, sampled at
// points spaced evenly up to the last attempt's finish: completion at
// attempt k has probability p^k(1−p), and p^n at the last (it ends either
// way).
func (r Result) CDF(p float64, points int) (ts, cdf []float64) {
	finishes := []float64{r.FirstFinish}
	for _, s := range r.Schedule {
		finishes = append(finishes, s.FinishExpected)
	}
	end := finishes[len(finishes)-1] * 1.05
	if end <= 0 {
		end = 1
	}
	for i := range points {
		t := end * float64(i) / float64(points-1)
		var c float64
		for k, f := range finishes {
			if f > t {
				break
			}
			if k == len(finishes)-1 {
				c += math.Pow(p, float64(k))
			} else {
				c += math.Pow(p, float64(k)) * (1 - p)
			}
		}
		ts, cdf = append(ts, t), append(cdf, c)
	}
	return ts, cdf
}
