//go:build realdata

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nanobotLog is a real application log whose retry lines no built-in
// format reads: the README's own-format example is held to it.
const nanobotLog = "../../shared/realdata/round2/text/app-retry-nanobot-4959.log"

// TestOwnFormatFromConfig: nanobot's own retry lines (HKUDS/nanobot PR
// #4959) read by a [[format]] table. Truth: one call, 3 failed attempts,
// waits 25 s, 0 s.
func TestOwnFormatFromConfig(t *testing.T) {
	if _, err := os.Stat(nanobotLog); err != nil {
		t.Fatalf("%v: the real files must be in ../shared/realdata", err)
	}
	cfg := filepath.Join(t.TempDir(), "burnrate.toml")
	examples := readmeFormats(t)
	if len(examples) != 2 {
		t.Fatalf("%d toml examples in the README's Your own format, want 2", len(examples))
	}
	os.WriteFile(cfg, []byte(examples[0]), 0o644)
	r := textReportJSON(t, "--config", cfg, nanobotLog)
	tot := r["totals"].(map[string]any)
	if tot["attempts"] != 3.0 || tot["operations"] != 1.0 || tot["failed_jobs"] != 1.0 {
		t.Errorf("totals %v: want 3 attempts of one failed operation", tot)
	}
	src := r["source"].(map[string]any)
	if src["skipped"] != 0.0 || src["first_ts"] != "2026-07-16T20:52:33Z" || src["last_ts"] != "2026-07-16T20:52:58Z" {
		t.Errorf("source %v", src)
	}
	// The same with --pattern (no set: status from nothing, so unknown).
	r = textReportJSON(t, "--pattern", `LLM transient error \(attempt (?P<attempt>\d+)/\d+\)`, nanobotLog)
	if tot := r["totals"].(map[string]any); tot["attempts"] != 3.0 || tot["operations"] != 1.0 {
		t.Errorf("--pattern: totals %v", tot)
	}
}

// TestFormatsDetectManyFiles: any number of files after --detect, each
// with its verdict, and a hint naming what to pass.
func TestFormatsDetectManyFiles(t *testing.T) {
	out, err := run(t, "formats", "--detect", "../sample-logs/formats/node-sdk.log", "../sample-logs/formats/openai-batch.jsonl", nanobotLog)
	if err != nil || !strings.Contains(out, "node-sdk.log: sdk-text") || !strings.Contains(out, "openai-batch.jsonl: openai-batch") ||
		!strings.Contains(out, "app-retry-nanobot-4959.log: jsonl") || !strings.Contains(out, "--pattern") {
		t.Errorf("%v\n%s", err, out)
	}
	out, err = run(t, "formats", "--pattern", `LLM transient error \(attempt (?P<attempt>\d+)/\d+\)`, "--detect", nanobotLog)
	if err != nil || !strings.Contains(out, "app-retry-nanobot-4959.log: pattern") || !strings.Contains(out, "pattern 3") {
		t.Errorf("%v\n%s", err, out)
	}
	if _, err := run(t, "formats", "x.log"); err == nil {
		t.Error("files without --detect must be refused")
	}
}

// TestForcedFormatHintNamesTheRecognisedOne: a forced format that reads
// nothing names the format the lines are, and what to pass.
func TestForcedFormatHintNamesTheRecognisedOne(t *testing.T) {
	_, err := run(t, "report", "--input-format", "litellm", "../../shared/realdata/round2/text/litellm-router-text-200ok.log")
	if err == nil {
		t.Fatal("no events must be an error")
	}
	r := textReportJSON(t, "--input-format", "litellm", "../../shared/realdata/round2/text/litellm-router-text-200ok.log")
	hints, _ := json.Marshal(r["source"].(map[string]any)["hints"])
	if !strings.Contains(string(hints), "6 of the first 6 lines are litellm-text") || !strings.Contains(string(hints), "--input-format litellm-text") {
		t.Errorf("hints %s", hints)
	}
}
