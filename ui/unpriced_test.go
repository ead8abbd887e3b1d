package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

// A job with calls nothing priced (issue 39: OTLP's undici spans, a model
// the table lacks) showed a bare spend in the dashboard, a figure that
// reads whole, where the report writes "≥$x (n unpriced)". The row says
// "≥", the detail says how many; the job's ID stays sanitized.
func TestJobRowShowsUnpricedCalls(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	const log = `{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"job-\u001b[31mred","model":"claude-sonnet-4-5","input_tokens":1000,"output_tokens":100,"status":200}
{"ts":"2026-03-10T01:00:01Z","event":"llm_call","job_id":"job-\u001b[31mred","model":"house-model-7b","input_tokens":1000,"output_tokens":100,"status":200}
{"ts":"2026-03-10T01:00:02Z","event":"llm_call","job_id":"job-whole","model":"claude-sonnet-4-5","input_tokens":1000,"output_tokens":100,"status":200}
`
	st := correlate.New(correlate.DefaultConfig())
	file.Drain(file.NewIter(strings.NewReader(log), "t", 0, decode.Options{}), st)
	feed := &fakeFeed{ch: make(chan *engine.Frame, 1), st: st}
	frame := func(job string) *engine.Frame {
		return &engine.Frame{Snap: st.Snapshot(correlate.SnapshotOptions{DetailJob: job}), Sources: []ingest.Status{{Name: "t"}}, Final: true}
	}
	m := New(feed, Options{Title: "replay"})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	m.Update(frameMsg{frame("")})
	screen := m.View()
	if strings.Contains(screen, "\x1b[31m") {
		t.Fatalf("a job ID reached the terminal raw:\n%q", screen)
	}
	var unpriced, whole string
	for _, l := range strings.Split(screen, "\n") {
		switch {
		case strings.Contains(l, "red"):
			unpriced = l
		case strings.Contains(l, "job-whole"):
			whole = l
		}
	}
	if !strings.Contains(unpriced, "≥$") {
		t.Errorf("the unpriced job's row shows its spend whole: %q", unpriced)
	}
	if whole == "" || strings.Contains(whole, "≥") {
		t.Errorf("the priced job's row: %q", whole)
	}
	// Open the unpriced job's detail.
	var id string
	for _, r := range st.Snapshot(correlate.SnapshotOptions{}).Jobs {
		if r.Unpriced > 0 {
			id = r.ID
		}
	}
	if id == "" {
		t.Fatal("no job row carries its unpriced calls")
	}
	m.detail.open(id)
	m.mode = modeDetail
	m.Update(frameMsg{frame(id)})
	d := m.View()
	if !strings.Contains(d, "spend ≥$") || !strings.Contains(d, "(1 unpriced)") {
		t.Errorf("the detail does not say the spend is a floor with 1 unpriced call:\n%s", d)
	}
	if strings.Contains(d, "\x1b[31m") {
		t.Fatalf("a job ID reached the terminal raw in the detail")
	}
}
