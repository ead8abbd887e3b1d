package correlate_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

// TestClaudeCodeTranscriptsMatchCcusage: real-shaped Claude Code
// transcripts (a session with a subagent and Claude Code's own retries,
// a session whose call gave up after 10 retries) read as jobs. Tokens
// equal ccusage's exactly and spend is within 0.5% of it at the same
// prices — ccusage 18.0.11's own output on these files is committed beside
// them (session --json --offline --mode calculate) — content-block repeats
// raise no duplicate findings, and the retry layer shows: one call of 4
// attempts (3 × 529, then 200) and one of 11 failed attempts.
func TestClaudeCodeTranscriptsMatchCcusage(t *testing.T) {
	dir := "../sample-logs/claude-code/projects"
	paths, err := file.ExpandInputs([]string{dir}, true)
	if err != nil || len(paths) != 3 {
		t.Fatalf("%v %v", paths, err)
	}
	fs, err := file.OpenFiles(paths, decode.Options{CostMode: decode.CostCalculate})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	st := correlate.New(correlate.DefaultConfig())
	file.Drain(fs.Events(), st)
	for _, f := range fs.Files {
		if f.Detected.Format != decode.FormatClaudeCode || f.Stats.SkippedTotal() != 0 {
			t.Errorf("%s: detected %s, skipped %v", filepath.Base(f.Path), f.Detected.Format, f.Stats.SkippedByReason())
		}
	}
	r := st.Report()

	var cc struct {
		Totals struct {
			Input, Output, CacheCreate, CacheRead int64
			Cost                                  float64 `json:"totalCost"`
		} `json:"totals"`
	}
	b, _ := os.ReadFile("../sample-logs/claude-code/ccusage-18.0.11-session.json")
	var raw map[string]map[string]any
	json.Unmarshal(b, &raw)
	tot := raw["totals"]
	cc.Totals.Input, cc.Totals.Output = int64(tot["inputTokens"].(float64)), int64(tot["outputTokens"].(float64))
	cc.Totals.CacheCreate, cc.Totals.CacheRead = int64(tot["cacheCreationTokens"].(float64)), int64(tot["cacheReadTokens"].(float64))
	cc.Totals.Cost = tot["totalCost"].(float64)
	tt := r.Totals
	if tt.InputTokens != cc.Totals.Input || tt.OutputTokens != cc.Totals.Output || tt.CacheWriteTokens != cc.Totals.CacheCreate || tt.CacheReadTokens != cc.Totals.CacheRead {
		t.Errorf("tokens in/out/write/read %d/%d/%d/%d, ccusage %d/%d/%d/%d", tt.InputTokens, tt.OutputTokens, tt.CacheWriteTokens, tt.CacheReadTokens,
			cc.Totals.Input, cc.Totals.Output, cc.Totals.CacheCreate, cc.Totals.CacheRead)
	}
	if d := math.Abs(tt.SpendUSD-cc.Totals.Cost) / cc.Totals.Cost; d > 0.005 {
		t.Errorf("spend %v vs ccusage %v: %.2f%% apart", tt.SpendUSD, cc.Totals.Cost, d*100)
	}
	for _, f := range r.Findings {
		if f.Kind == "duplicate_completion" {
			t.Errorf("content-block repeats raised duplicate_completion ×%d", f.Count)
		}
	}
	// The retry layer: attempts per call, read from the retained attempts.
	calls := map[string][]int16{}
	for _, id := range []string{"0b6f1c52-7c1e-4c55-9a53-2f9e6f2d1a01", "9d2e4a10-3b7f-4e21-8c6d-5a1b2c3d4e5f"} {
		j := st.Job(id)
		if j == nil {
			t.Fatalf("session %s is not a job", id)
		}
		for _, a := range st.Attempts(j) {
			calls[id] = append(calls[id], a.Status)
		}
	}
	if got := calls["0b6f1c52-7c1e-4c55-9a53-2f9e6f2d1a01"]; !containsRun(got, []int16{529, 529, 529, 200}) {
		t.Errorf("session shop: statuses %v, want a call of 529, 529, 529, 200", got)
	}
	if got := calls["9d2e4a10-3b7f-4e21-8c6d-5a1b2c3d4e5f"]; len(got) != 12 || got[10] != 529 || got[11] != 200 {
		t.Errorf("session api: statuses %v, want 11 failed attempts then a later call", got)
	}
	for _, jr := range r.Jobs {
		if jr.JobID == "9d2e4a10-3b7f-4e21-8c6d-5a1b2c3d4e5f" && (jr.JobType != "api" || jr.Layers[2] != 11) {
			t.Errorf("session api: type %q, layers %v; want project api and 11 SDK attempts", jr.JobType, jr.Layers)
		}
	}
}

func containsRun(s, run []int16) bool {
	for i := 0; i+len(run) <= len(s); i++ {
		ok := true
		for k := range run {
			ok = ok && s[i+k] == run[k]
		}
		if ok {
			return true
		}
	}
	return false
}
