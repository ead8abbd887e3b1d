package matrix

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Logging is the evidence a setup gives burnrate.
type Logging string

// The loggings of the matrix.
const (
	AppJSON    Logging = "app-json"            // the app's JSON lines alone
	SDKDebug   Logging = "sdk-debug"           // the SDK's debug output alone
	BothStream Logging = "both-one-stream"     // both, interleaved in one stream
	BothFiles  Logging = "both-separate-files" // both, one file each
	OTLP       Logging = "otlp"                // OpenTelemetry traces, live over OTLP/HTTP
	// BothReplay is both-one-stream's evidence played through `burnrate
	// replay --headless --speed max --report-out` instead of `report`:
	// the live pipeline on the same lines (seed 000's night).
	BothReplay Logging = "both-one-stream-replay"
)

// Loggings are every logging, in the table's order.
var Loggings = []Logging{AppJSON, SDKDebug, BothStream, BothFiles, OTLP}

// Setup is one row of the matrix.
type Setup struct {
	App         string
	Logging     Logging
	Concurrency int
	Seed        uint64
	// MustHold: burnrate's answer must be exact for every job (and no
	// false critical finding, no innocent kill); the matrix exits non-zero
	// when it is not. A setup not marked is measured and shown, a known gap.
	MustHold bool
	// WireCallsPerJob, when above 0, is what the wire must carry for
	// every job: the lab's own must-hold (seed 000's 63), whatever
	// burnrate says.
	WireCallsPerJob int
	// Night: seed 000's night (mockprovider.SeedNight) — the storm closes
	// part-way, so some jobs dead-letter at 63 and some succeed late, and
	// the wire must carry what the schedule predicts per job, 1,043 in
	// all. Only with seed 0.
	Night bool
}

func (s Setup) String() string {
	night := ""
	if s.Night {
		night = " night"
	}
	return fmt.Sprintf("%s · %s · c%d · seed %03d%s", s.App, s.Logging, s.Concurrency, s.Seed, night)
}

// run is one execution of an app: the setups that share it read the
// evidence it left (the files run serves app-json, sdk-debug and
// both-separate-files at once; each has its own ledger otherwise).
type run struct {
	App         string
	Mode        string // "files", "stream", "otlp"
	Concurrency int
	Seed        uint64
	Night       bool
}

func runOf(s Setup) run {
	return run{App: s.App, Mode: modeOf(s.Logging), Concurrency: s.Concurrency, Seed: s.Seed, Night: s.Night}
}

func modeOf(l Logging) string {
	switch l {
	case BothStream, BothReplay:
		return "stream"
	case OTLP:
		return "otlp"
	}
	return "files"
}

// Full is the whole matrix: every app × logging × concurrency 1/4/16 ×
// seed. Seed 0 is seed 000's storm; the others are mixed nights. Seed 000's
// night (Night) is measured at each concurrency too.
func Full(seeds []uint64) []Setup {
	return Matrix(seeds, []int{1, 4, 16})
}

// Matrix is every app × logging × the concurrencies × the seeds, and
// seed 000's night at each concurrency when the seeds include 0.
func Matrix(seeds []uint64, concurrencies []int) []Setup {
	var out []Setup
	for _, app := range Apps {
		for _, seed := range seeds {
			for _, c := range concurrencies {
				for _, l := range app.Loggings {
					out = append(out, Setup{App: app.Name, Logging: l, Concurrency: c, Seed: seed})
				}
			}
		}
	}
	if slices.Contains(seeds, 0) {
		for _, c := range concurrencies {
			out = append(out, NightSetups(c)...)
		}
	}
	return markMustHold(out)
}

// NightSetups are seed 000's night on its stack at concurrency c: the
// app's log and the SDK's debug output in one stream, read by `report`
// and by `replay`, and OTLP live — the evidence the seed's author could
// have given burnrate — and the app's log alone.
func NightSetups(c int) []Setup {
	var out []Setup
	for _, l := range []Logging{BothStream, BothReplay, OTLP, AppJSON} {
		out = append(out, Setup{App: Apps[0].Name, Logging: l, Concurrency: c, Seed: StormSeed, Night: true})
	}
	return out
}

// StormSeed is seed 000's.
const StormSeed = 0

// ParseSeeds reads "0-19" or "0,3,7" (or a mix: "0-3,9").
func ParseSeeds(v string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(v, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-seeds %q: %q is not a seed", v, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a || b-a > 999 {
				return nil, fmt.Errorf("-seeds %q: %q is not a range of at most 1000 seeds", v, part)
			}
		}
		for x := a; ; x++ {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
			if x == b {
				break
			}
		}
	}
	return out, nil
}

// CI is the fixed slice .ci/run runs: seed 000's stack in its storm at
// concurrency 4 (the wire must carry 63 calls per job) in every logging,
// and a mixed night of each other app in its two commonest loggings.
func CI() []Setup {
	var out []Setup
	for _, l := range Apps[0].Loggings {
		out = append(out, Setup{App: Apps[0].Name, Logging: l, Concurrency: 4, Seed: 0})
	}
	out = append(out, NightSetups(4)...)
	for _, app := range Apps[1:] {
		for _, l := range []Logging{AppJSON, BothStream} {
			out = append(out, Setup{App: app.Name, Logging: l, Concurrency: 4, Seed: 1})
		}
	}
	return markMustHold(out)
}

// mustHold names the app × logging setups burnrate answers exactly
// today, at every concurrency and seed measured (docs/lab.md); the rest are
// known gaps, shown with their numbers. A fix that makes one hold adds it.
// (app-json holds when the app's calls are exact and marked lower bounds:
// CompareAppLog.)
var mustHold = map[[2]string]bool{
	{"anthropic-pretry-bullmq", string(AppJSON)}:    true,
	{"anthropic-pretry-bullmq", string(SDKDebug)}:   true,
	{"anthropic-pretry-bullmq", string(BothStream)}: true,
	{"anthropic-pretry-bullmq", string(BothReplay)}: true,
	{"anthropic-pretry-bullmq", string(BothFiles)}:  true,
	{"anthropic-pretry-bullmq", string(OTLP)}:       true,
	{"openai-chat-stream", string(AppJSON)}:         true,
	{"openai-chat-stream", string(BothStream)}:      true,
	{"openai-chat-stream", string(BothFiles)}:       true,
	{"python-asyncio-tenacity", string(AppJSON)}:    true,
}

func markMustHold(ss []Setup) []Setup {
	for i := range ss {
		if ss[i].App == Apps[0].Name && ss[i].Seed == 0 && !ss[i].Night {
			// Seed 000 for real: 3 SDK attempts × 3 p-retry × 7 BullMQ.
			ss[i].WireCallsPerJob = 63
		}
		ss[i].MustHold = mustHold[[2]string{ss[i].App, string(ss[i].Logging)}]
	}
	return ss
}
