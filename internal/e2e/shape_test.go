package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 39, "each record judged by its own shape": files written by
// others, each with one thing odd, read by the binary as a user runs it.

// writeLines writes one JSON object per line.
func writeLines(t *testing.T, path string, recs []map[string]any) {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reportJSON runs report --format json and decodes what it printed.
func reportJSON(t *testing.T, args ...string) (rep struct {
	Source struct {
		Events          int64             `json:"events"`
		Formats         map[string]string `json:"formats"`
		SkippedByReason map[string]int64  `json:"skipped_by_reason"`
		FieldsDropped   map[string]int64  `json:"fields_dropped"`
		FirstTS         string            `json:"first_ts"`
	} `json:"source"`
	Totals struct {
		Attempts      int64   `json:"attempts"`
		Jobs          int64   `json:"jobs"`
		SucceededJobs int64   `json:"succeeded_jobs"`
		FailedJobs    int64   `json:"failed_jobs"`
		SpendUSD      float64 `json:"spend_usd"`
		InputTokens   int64   `json:"input_tokens"`
		OutputTokens  int64   `json:"output_tokens"`
	} `json:"totals"`
	Findings []struct {
		Kind string `json:"kind"`
	} `json:"findings"`
}, err error) {
	t.Helper()
	out, err := run(t, append([]string{"report", "--format", "json"}, args...)...)
	if out != "" {
		if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
			t.Fatalf("report json: %v\n%.500s", jerr, out)
		}
	}
	return rep, err
}

func call(ts, job string, extra map[string]any) map[string]any {
	r := map[string]any{"ts": ts, "event": "llm_call", "job_id": job, "model": "gpt-4o", "status": 200, "input_tokens": 1000, "output_tokens": 100}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

// TestFollowedFileStartupLineBlindsNothing: a followed file took its
// format from its first line, so one start-up line shaped like a Claude
// Code record ({"type":"app_start","sessionId":"worker-7"}) gave 0 alerts
// for $29.50 against a $2 job ceiling.
func TestFollowedFileStartupLineBlindsNothing(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "app.jsonl")
	os.WriteFile(log, []byte(`{"type":"app_start","sessionId":"worker-7","ts":"2026-05-30T01:00:00Z"}`+"\n"), 0o644)
	cmd := exec.Command(burnrate(t), "watch", "--headless", "--readonly", "--poll-interval", "20ms", "--job-ceiling", "2",
		"--journal", filepath.Join(dir, "journal.jsonl"), log)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	time.Sleep(300 * time.Millisecond)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 59 calls of $0.50 each (cost_usd): $29.50 for job batch-1.
	for i := range 59 {
		fmt.Fprintf(f, `{"ts":"2026-05-30T01:%02d:%02dZ","event":"llm_call","job_id":"batch-1","model":"claude-sonnet-4-5","status":200,"cost_usd":0.5}`+"\n", 1+i/60, i%60)
	}
	f.Close()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("watch ended without a job_ceiling alert")
			}
			if strings.Contains(l, `"rule":"job_ceiling"`) && strings.Contains(l, "batch-1") {
				return
			}
		case <-deadline:
			t.Fatal("no job_ceiling alert for batch-1's $29.50 against a $2 ceiling after a start-up line shaped like a Claude Code record")
		}
	}
}

// TestChatLogBesideAppLogLosesNothing: a chat log whose lines carry
// "type" and "sessionId" was read as Claude Code beside an app's log:
// its calls were lost with exit 0 and nothing said.
func TestChatLogBesideAppLogLosesNothing(t *testing.T) {
	dir := t.TempDir()
	var app, chat []map[string]any
	for i := range 50 {
		app = append(app, call(fmt.Sprintf("2026-05-30T11:%02d:00Z", i), fmt.Sprintf("a%d", i), nil))
	}
	for i := range 100 {
		extra := map[string]any{}
		if i%2 == 0 {
			extra = map[string]any{"type": "chat", "sessionId": fmt.Sprintf("s%d", i/10)}
		}
		chat = append(chat, call(fmt.Sprintf("2026-05-30T11:%02d:30Z", i%60), fmt.Sprintf("c%d", i), extra))
	}
	writeLines(t, filepath.Join(dir, "app.jsonl"), app)
	writeLines(t, filepath.Join(dir, "chat.jsonl"), chat)
	rep, err := reportJSON(t, filepath.Join(dir, "app.jsonl"), filepath.Join(dir, "chat.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Attempts != 150 || rep.Totals.Jobs != 150 {
		t.Errorf("%d calls in %d jobs, want 150 in 150 (formats %v)", rep.Totals.Attempts, rep.Totals.Jobs, rep.Source.Formats)
	}
}

// TestCostAliasBesideStartTime: the README's own response_cost alias
// beside a startTime field was read as LiteLLM and gave 0 calls.
func TestCostAliasBesideStartTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.jsonl")
	var recs []map[string]any
	for i := range 10 {
		ts := fmt.Sprintf("2026-05-30T11:30:%02dZ", i)
		recs = append(recs, call(ts, fmt.Sprintf("j%d", i/2), map[string]any{"response_cost": 0.01, "startTime": ts}))
	}
	writeLines(t, path, recs)
	rep, err := reportJSON(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Attempts != 10 || rep.Totals.SpendUSD < 0.0999 || rep.Totals.SpendUSD > 0.1001 {
		t.Errorf("%d calls, $%v; want 10 calls, $0.10", rep.Totals.Attempts, rep.Totals.SpendUSD)
	}
}

// TestZonelessTimesAreReadAndCounted: "2026-05-30T11:30:35" (Python's
// isoformat()) dropped 9 of 9 lines, said only as "no events". Now each
// is read in the configured zone (UTC, or --timezone) and counted.
func TestZonelessTimesAreReadAndCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "py.jsonl")
	var recs []map[string]any
	for i := range 9 {
		recs = append(recs, call(fmt.Sprintf("2026-05-30T11:30:%02d", 35+i), fmt.Sprintf("j%d", i/3), nil))
	}
	writeLines(t, path, recs)
	rep, err := reportJSON(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Attempts != 9 || rep.Source.FieldsDropped["time_no_zone"] != 9 || rep.Source.FirstTS != "2026-05-30T11:30:35Z" {
		t.Errorf("%d calls, fields dropped %v, first %s; want 9, time_no_zone 9, 11:30:35Z", rep.Totals.Attempts, rep.Source.FieldsDropped, rep.Source.FirstTS)
	}
	rep, err = reportJSON(t, "--timezone", "+02:00", path)
	if err != nil || rep.Source.FirstTS != "2026-05-30T09:30:35Z" {
		t.Errorf("--timezone +02:00: first %s (%v), want 09:30:35Z", rep.Source.FirstTS, err)
	}
	// The config's timezone, and the flag over it.
	cfg := filepath.Join(filepath.Dir(path), "burnrate.toml")
	os.WriteFile(cfg, []byte("timezone = \"-03:00\"\n"), 0o644)
	if rep, err = reportJSON(t, "--config", cfg, path); err != nil || rep.Source.FirstTS != "2026-05-30T14:30:35Z" {
		t.Errorf("timezone = -03:00: first %s (%v), want 14:30:35Z", rep.Source.FirstTS, err)
	}
	if rep, err = reportJSON(t, "--config", cfg, "--timezone", "UTC", path); err != nil || rep.Source.FirstTS != "2026-05-30T11:30:35Z" {
		t.Errorf("--timezone UTC over the config's: first %s (%v), want 11:30:35Z", rep.Source.FirstTS, err)
	}
	// Said on stderr too, where a report to a file is read.
	cmd := exec.Command(burnrate(t), "report", path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Run()
	if !strings.Contains(stderr.String(), "time_no_zone 9") {
		t.Errorf("stderr does not count the zone-less times: %q", stderr.String())
	}
	if md, err := run(t, "report", path); err != nil || !strings.Contains(md, "Fields not read as written") || !strings.Contains(md, "time_no_zone 9") {
		t.Errorf("the Markdown header does not count the zone-less times (%v):\n%.600s", err, md)
	}
}

// TestStatusObjectAndWordsKeepTheRecord: a status that is an object (the
// OTel Python console exporter's {"code":2,"message":…}) dropped every
// record; "OK", "ERROR", "success", "failed" dropped theirs.
func TestStatusObjectAndWordsKeepTheRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status.jsonl")
	recs := []map[string]any{
		call("2026-05-30T11:30:00Z", "obj", map[string]any{"status": map[string]any{"code": 2, "message": "boom"}}),
		call("2026-05-30T11:30:01Z", "ok", map[string]any{"status": "OK"}),
		call("2026-05-30T11:30:02Z", "err", map[string]any{"status": "ERROR", "output_tokens": 0}),
		call("2026-05-30T11:30:03Z", "success", map[string]any{"status": "success"}),
		call("2026-05-30T11:30:04Z", "failed", map[string]any{"status": "failed", "output_tokens": 0}),
		call("2026-05-30T11:30:05Z", "str", map[string]any{"status": "529", "output_tokens": 0}),
	}
	writeLines(t, path, recs)
	rep, err := reportJSON(t, path)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	if rep.Totals.Attempts != 6 || rep.Source.FieldsDropped["status_unreadable"] != 1 {
		t.Errorf("%d calls, fields dropped %v; want 6 calls, status_unreadable 1", rep.Totals.Attempts, rep.Source.FieldsDropped)
	}
	// The object's status is unread: the call keeps an unknown status
	// whatever its tokens (R7-22: a status written and unread read as a
	// 200 when the line carried output tokens), so its job is not a
	// success either.
	if rep.Totals.FailedJobs != 4 {
		t.Errorf("%d failed jobs, want 4 (the unread object, ERROR, failed, 529)", rep.Totals.FailedJobs)
	}
}

// TestEditorTokenLogIsSeparateCalls: Continue's tokensGenerated.jsonl
// (model and tokens, no job, no status) was read as one call retried
// hundreds of times: 0 tokens, $0, a failed job, hidden_retry_layer,
// retry_amplification and deadline_exceeded.
func TestEditorTokenLogIsSeparateCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokensGenerated.jsonl")
	var recs []map[string]any
	for i := range 300 {
		recs = append(recs, map[string]any{"model": "claude-sonnet-4-5", "provider": "anthropic", "promptTokens": 1200, "generatedTokens": 80,
			"timestamp": fmt.Sprintf("2026-05-30T%02d:%02d:00.000Z", 8+i/60, i%60)})
	}
	writeLines(t, path, recs)
	rep, err := reportJSON(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Attempts != 300 || rep.Totals.InputTokens != 300*1200 || rep.Totals.OutputTokens != 300*80 || rep.Totals.SpendUSD == 0 || rep.Totals.FailedJobs != 0 {
		t.Errorf("totals %+v; want 300 calls of 1200/80 tokens, priced, no failed job", rep.Totals)
	}
	for _, f := range rep.Findings {
		switch f.Kind {
		case "hidden_retry_layer", "retry_amplification", "deadline_exceeded":
			t.Errorf("finding %s on an editor's token log", f.Kind)
		}
	}
}

// TestFileOfNothingNamesKeysAndMap: a file read to 0 events is an error
// that names the keys it saw, by count, and the --map that reads them —
// also beside a file that read.
func TestFileOfNothingNamesKeysAndMap(t *testing.T) {
	dir := t.TempDir()
	var recs []map[string]any
	for i := range 20 {
		recs = append(recs, map[string]any{"time": "2026-05-30T11:30:00Z", "llm": map[string]any{"name": "gpt-4o"}, "ctx": map[string]any{"job": fmt.Sprintf("j%d", i)}, "msg": "called\x1b[2J"})
	}
	odd := filepath.Join(dir, "odd.jsonl")
	writeLines(t, odd, recs)
	good := filepath.Join(dir, "good.jsonl")
	writeLines(t, good, []map[string]any{call("2026-05-30T11:30:00Z", "g", nil)})
	_, err := run(t, "report", good, odd)
	if err == nil || err == errCritical {
		t.Fatalf("a file read to nothing beside one that read: %v, want exit 2", err)
	}
	said := err.Error()
	for _, want := range []string{`"ctx.job" 20`, "--map job_id=ctx.job", "no events in " + odd} {
		if !strings.Contains(said, want) {
			t.Errorf("stderr lacks %q:\n%s", want, said)
		}
	}
	if strings.Contains(said, "\x1b") {
		t.Errorf("raw escape on stderr: %q", said)
	}

	// replay too: the night played without a file is no clean exit.
	_, err = run(t, "replay", "--headless", "--speed", "max", "--journal", filepath.Join(dir, "j.jsonl"), good, odd)
	if err == nil || err == errCritical || !strings.Contains(err.Error(), "no events in "+odd) || !strings.Contains(err.Error(), `"ctx.job" 20`) {
		t.Errorf("replay with a file read to nothing: %v, want exit 2 naming it and its keys", err)
	}

	// The --map said reads the file: a pino log of nested fields, read
	// with exactly the flags the error names.
	pino := "../../sample-logs/formats/pino-nested.jsonl"
	_, err = run(t, "report", pino)
	if err == nil || err == errCritical {
		t.Fatalf("pino without --map: %v, want exit 2", err)
	}
	var maps []string
	for _, w := range strings.Fields(err.Error()) {
		if f, p, ok := strings.Cut(strings.TrimSuffix(w, ";"), "="); ok && !strings.ContainsAny(f, "-\"") && strings.Contains(p, ".") && !strings.HasPrefix(f, "FIELD") {
			maps = append(maps, "--map", f+"="+p)
		}
	}
	rep, err := reportJSON(t, append(maps, pino)...)
	if err != nil || rep.Totals.Attempts != 60 || rep.Totals.Jobs != 30 || rep.Totals.InputTokens != 60*900 {
		t.Errorf("pino with the --map the error named (%v): %v, totals %+v; want 60 calls in 30 jobs", maps, err, rep.Totals)
	}
}
