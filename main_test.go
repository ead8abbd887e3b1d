package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// run executes the CLI in-process and captures stdout.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r, w, _ := os.Pipe()
	old := os.Stdout
	os.Stdout = w
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	err := cmd.Execute()
	w.Close()
	os.Stdout = old
	var b bytes.Buffer
	io.Copy(&b, r)
	return b.String(), err
}

func TestReportExitCodes(t *testing.T) {
	if _, err := run(t, "report", "sample-logs/healthy-night.jsonl"); err != nil {
		t.Errorf("healthy night: %v, want exit 0", err)
	}
	if _, err := run(t, "report", "sample-logs/seed000-incident.jsonl"); !errors.Is(err, errCritical) {
		t.Errorf("seed 000: %v, want the critical exit", err)
	}
	if _, err := run(t, "report", "--format", "yaml", "sample-logs/healthy-night.jsonl"); err == nil || errors.Is(err, errCritical) {
		t.Errorf("bad format: %v, want a usage error", err)
	}
	if _, err := run(t, "report", "no/such/file.jsonl"); err == nil || !strings.Contains(err.Error(), "no/such/file.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestReportJSONFromStdin(t *testing.T) {
	f, _ := os.Open("sample-logs/seed000-after-fix.jsonl")
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	out, err := run(t, "report", "--format", "json", "-")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Totals struct{ Attempts int } `json:"totals"`
	}
	if json.Unmarshal([]byte(out), &r) != nil || r.Totals.Attempts != 31 {
		t.Errorf("stdin report: %d attempts, want 31", r.Totals.Attempts)
	}
}

func TestBudgetLayersJSON(t *testing.T) {
	out, err := run(t, "budget", "layers", "--format", "json",
		"--layer", "scheduler:attempts=2,timeout=3600s,backoff=fixed:300s", "--layer", "watchdog:attempts=2,timeout=900s",
		"--layer", "wrapper:attempts=3,timeout=300s,backoff=exp:10s", "--layer", "sdk:attempts=3,timeout=120s,backoff=linear:1s+1s")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Attempts int     `json:"worst_case_attempts"`
		Wall     float64 `json:"worst_case_wall_clock_s"`
		Layers   []any   `json:"layers"`
	}
	if json.Unmarshal([]byte(out), &r) != nil || r.Attempts != 36 || r.Wall != 3900 || len(r.Layers) != 4 {
		t.Errorf("%s", out)
	}
}

func TestBudgetModelJSONAndEmit(t *testing.T) {
	out, err := run(t, "budget", "model", "--format", "json", "--p", "0.5", "--retries", "3", "--base", "1s", "--jitter", "none", "--latency", "1", "--deadline", "6s", "--target", "0.99")
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	json.Unmarshal([]byte(out), &r)
	for k, want := range map[string]float64{"p_success": 0.9375, "expected_attempts": 1.875, "expected_time_s": 3.375, "worst_time_s": 11, "deadline_attempt": 4, "p_deadline_exceeded": 0.125, "recommended_retries": 6} {
		if r[k] != want {
			t.Errorf("%s = %v, want %v", k, r[k], want)
		}
	}
	out, err = run(t, "budget", "model", "--p", "0.2", "--retries", "0", "--target", "0.999", "--emit", "env")
	if err != nil || !strings.Contains(out, "MAX_RETRIES=4\n") {
		t.Errorf("emit env: %q %v", out, err)
	}
}
