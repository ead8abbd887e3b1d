package decode

import (
	"fmt"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// langfuseExport is a trace of Langfuse's documented export shape (written
// here): an AGENT with usage of its own, a wrapper GENERATION around the
// provider's, a generation whose reasoning Langfuse splits out of output,
// an OpenInference cache-read breakdown, a generation without usage and
// one with a field that does not read.
const langfuseExport = `{"trace":{"id":"t1","name":"agent run","observations":[
 {"id":"g3","type":"GENERATION","model":"gpt-5-mini","parentObservationId":"a1","startTime":"2025-10-30T08:45:43.214Z","endTime":"2025-10-30T08:45:46.444Z","usageDetails":{"input":179,"output":35,"output_reasoning":64,"input_cache_read":10,"total":288}}]},
 "observations":[
 {"id":"a1","type":"AGENT","name":"invoke_agent","model":"gpt-5-mini","usageDetails":{"input":44,"output":180,"total":224}},
 {"id":"w1","type":"GENERATION","name":"ai.generateText","model":"gpt-5","parentObservationId":"a1","usageDetails":{"input":14,"output":43,"total":57}},
 {"id":"g1","type":"GENERATION","name":"ai.generateText.doGenerate","model":"gpt-5","parentObservationId":"w1","startTime":"2025-11-17T14:55:18.787Z","usageDetails":{"input":62,"output":85,"total":147}},
 {"id":"g2","type":"GENERATION","model":"gpt-4.1","parentObservationId":"a1","startTime":"2025-09-30T09:04:01.001Z","usageDetails":{"input":85,"output":29,"prompt_details.cache_read":20,"completion_details.reasoning":5,"total":114}},
 {"id":"g3","type":"GENERATION","model":"gpt-5-mini","parentObservationId":"a1","startTime":"2025-10-30T08:45:43.214Z","endTime":"2025-10-30T08:45:46.444Z","usageDetails":{"input":179,"output":35,"output_reasoning":64,"input_cache_read":10,"total":288}},
 {"id":"g4","type":"GENERATION","model":"gpt-5","parentObservationId":"a1","startTime":"2025-10-30T08:46:00Z"},
 {"id":"g5","type":"GENERATION","model":"gpt-5","parentObservationId":"a1","level":"ERROR","statusMessage":"429 Too Many Requests\nretry","startTime":"2025-10-30T08:47:00Z","usageDetails":{"input":"x","output":3}}]}`

// TestLangfuseTraceCallsAreTheLeafGenerations: issue 35 — a Langfuse
// export read as nothing; counting every observation with usage (as
// Langfuse's own trace total does) bills the wrapper and the agent again.
func TestLangfuseTraceCallsAreTheLeafGenerations(t *testing.T) {
	d := NewDetector()
	d.Add([]byte(langfuseExport))
	if f := d.Result().Format; f != FormatLangfuse {
		t.Fatalf("detected %s", f)
	}
	var evs []ingest.Event
	NewDecoder(FormatLangfuse, nil, Options{}).Decode([]byte(langfuseExport), func(ev *ingest.Event) { evs = append(evs, *ev) })
	if len(evs) != 4 {
		t.Fatalf("%d calls, want 4 (g1, g2, g3 once, g5)", len(evs))
	}
	want := [][4]int64{{62, 85, 0, 0}, {65, 29, 20, 0}, {179, 99, 10, 0}, {0, 3, 0, 0}}
	for i, ev := range evs {
		got := [4]int64{ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens}
		if got != want[i] || ev.JobID != "t1" {
			t.Errorf("call %d: in/out/read/write %v job %q, want %v t1", i, got, ev.JobID, want[i])
		}
	}
	if evs[2].LatencyMs != 3230 || evs[0].Status != 200 {
		t.Errorf("latency %d status %d", evs[2].LatencyMs, evs[0].Status)
	}
	if e := evs[3]; e.Status != ingest.StatusUnknown || e.ErrorType != "429 Too Many Requests" || e.Dropped&ingest.DropWrongType == 0 {
		t.Errorf("the failed generation: %+v", e)
	}
}

// A hostile export: 100,000 generations in one parent cycle (and a chain
// hanging off it) is cut in one linear pass, at its smallest ID: the one
// generation left a leaf is the one call, whatever the order.
func TestLangfuseParentCycleIsCutLinearly(t *testing.T) {
	const n = 100_000
	obs := make([]langfuseObservation, 0, n+1)
	for i := range n {
		obs = append(obs, langfuseObservation{ID: fmt.Sprintf("g%06d", i), Type: "GENERATION", Parent: fmt.Sprintf("g%06d", (i+1)%n)})
	}
	obs = append(obs, langfuseObservation{ID: "tail", Type: "GENERATION", Parent: "g000500"})
	start := time.Now()
	breakParentCycles(obs)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("%s to cut one cycle of %d", d, n)
	}
	roots := 0
	for _, o := range obs {
		if o.Parent == "" {
			roots++
			if o.ID != "g000000" {
				t.Fatalf("the cycle was cut at %s, want its smallest ID g000000", o.ID)
			}
		}
	}
	if roots != 1 {
		t.Fatalf("%d roots, want 1", roots)
	}
}
