package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestIdentityIsTheBytesDisplayIsTheEscape: issue 22 — IDs were sanitised
// at ingest and the escaped text became the identity and the kill target:
// a literal `job\u202ex` (six characters typed in the log) collided with
// the real U+202E, and the webhook was told to kill `job\u0009tab` for the
// real `job<TAB>tab`. Now the three are three jobs; each kill names its job
// exactly as logged (the receiver decodes the real characters); and every
// output a person reads — headless lines, the JSON and Markdown reports —
// shows the characters escaped, never raw.
func TestIdentityIsTheBytesDisplayIsTheEscape(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "night.jsonl")
	ids := []string{"job\u202ex", `job\u202ex`, "job\ttab"}
	var b strings.Builder
	for i, id := range ids {
		for k := range 3 { // $0.15 each at 10k input tokens of sonnet: 3 × $0.03 = $0.09 per job
			line, _ := json.Marshal(map[string]any{"ts": 1773104400 + i*10 + k, "event": "llm_call", "job_id": id, "model": "claude-sonnet-4-6", "status": 200, "input_tokens": 10000})
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	os.WriteFile(log, []byte(b.String()), 0o644)
	rc := newReceiver(t, false)
	report := filepath.Join(dir, "rep.json")
	cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--job-ceiling", "0.05", "--kill-webhook", rc.URL,
		"--journal", filepath.Join(dir, "j.jsonl"), "--report-out", report, log)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	_, kills := rc.snapshot()
	got := map[string]bool{}
	for _, k := range kills {
		got[k["job_id"].(string)] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("no kill named %q exactly; kills: %v", id, kills)
		}
	}
	if len(kills) != 3 {
		t.Errorf("%d kills for three jobs over their ceiling", len(kills))
	}
	rep, _ := os.ReadFile(report)
	var r struct {
		Jobs []struct {
			JobID string `json:"job_id"`
		}
	}
	json.Unmarshal(rep, &r)
	if len(r.Jobs) != 3 {
		t.Errorf("%d jobs in the report, want 3 (the literal escape and the real character are two jobs)", len(r.Jobs))
	}
	md, err := exec.Command(bin, "report", log).Output()
	if err != nil && len(md) == 0 {
		t.Fatal(err)
	}
	for name, out := range map[string][]byte{"headless stdout": stdout.Bytes(), "stderr": stderr.Bytes(), "report JSON": rep, "report Markdown": md} {
		if bytes.ContainsRune(out, '\u202e') || bytes.Contains(out, []byte("job\ttab")) {
			t.Errorf("%s carries a raw control or bidi character:\n%q", name, out)
		}
	}
	// Markdown doubles the backslash (a literal one, rendered as one).
	if !bytes.Contains(md, []byte(`job\\u202ex`)) || !bytes.Contains(md, []byte(`job\\u0009tab`)) {
		t.Errorf("the Markdown report does not show the IDs escaped:\n%s", md)
	}
}

// TestDeviceOnStdinIsRefused: red team of issue 22 — `report - < /dev/zero`
// read NUL bytes for ever. A device on stdin is refused as it is by name;
// a pipe is read.
func TestDeviceOnStdinIsRefused(t *testing.T) {
	bin := burnrate(t)
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	cmd := exec.Command(bin, "report", "-")
	cmd.Stdin = zero
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	cmd.Start()
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(stderr.String(), "stdin is a device") {
			t.Errorf("exit %v:\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("report - < /dev/zero still running after 20 s")
	}
	cmd = exec.Command(bin, "report", "-")
	cmd.Stdin = strings.NewReader(`{"ts":1773104400,"job_id":"j","model":"claude-sonnet-4-6","status":200,"input_tokens":10}` + "\n")
	if out, err := cmd.Output(); err != nil || !bytes.Contains(out, []byte("| Total API calls (model attempts) | 1 |")) {
		t.Errorf("a piped log: %v\n%s", err, out)
	}
}

// TestRunIDsAreTheirBytes: red team of issue 22 — run_id was still escaped
// at ingest, so a literal `run\u202ex` and the real character were one
// run, and a job over its ceiling in each was killed once. A run ID is a
// kill scope: its exact bytes.
func TestRunIDsAreTheirBytes(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "night.jsonl")
	var b strings.Builder
	for i, run := range []string{"run\u202ex", `run\u202ex`} {
		for k := range 3 {
			line, _ := json.Marshal(map[string]any{"ts": 1773104400 + i*10 + k, "event": "llm_call", "run_id": run, "job_id": "j0", "model": "claude-sonnet-4-6", "status": 200, "input_tokens": 10000})
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	os.WriteFile(log, []byte(b.String()), 0o644)
	rc := newReceiver(t, false)
	cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--job-ceiling", "0.05", "--kill-webhook", rc.URL, "--journal", filepath.Join(dir, "j.jsonl"), log)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	_, kills := rc.snapshot()
	runs := map[string]bool{}
	for _, k := range kills {
		runs[k["run_id"].(string)] = true
	}
	if len(kills) != 2 || !runs["run\u202ex"] || !runs[`run\u202ex`] {
		t.Errorf("kills %v: want j0 killed once in each of the two runs", kills)
	}
	if bytes.ContainsRune(stdout.Bytes(), '\u202e') {
		t.Errorf("a raw bidi character on stdout:\n%q", stdout.Bytes())
	}
}

// TestARestartKeepsTheEarlierReport: red team of issue 28 — a replica
// restarted in the night overwrote its --report-out at the next exit, and
// the first part of its night was gone from any merge. The earlier report
// is kept beside it, named by its time.
func TestARestartKeepsTheEarlierReport(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "a.json")
	for i, log := range []string{"../../sample-logs/healthy-night.jsonl", "../../sample-logs/seed000-incident.jsonl"} {
		cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--journal", filepath.Join(dir, "j.jsonl"), "--report-out", out, log)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, b)
		}
		if i == 0 {
			old := time.Now().Add(-time.Hour)
			os.Chtimes(out, old, old)
		}
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "a.*.json"))
	if len(kept) != 1 {
		t.Fatalf("reports beside a.json: %v, want the first run's", kept)
	}
	first, _ := os.ReadFile(kept[0])
	second, _ := os.ReadFile(out)
	if !bytes.Contains(first, []byte("healthy-night")) || !bytes.Contains(second, []byte("seed000-incident")) {
		t.Errorf("the kept report is not the first run's, or a.json not the second's")
	}
}

// TestALongJobIDIsKilledAsLogged: two 540-character job IDs with a common
// prefix are two jobs and each kill names its job exactly (capped at 512,
// the kill named a digest form that exists nowhere, and --kill-exec
// refused it); an ID past ingest.MaxIDBytes, kept as a digest, is refused
// a kill with a reason rather than sent a name no receiver knows.
func TestALongJobIDIsKilledAsLogged(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	recv := newReceiver(t, false)
	long := strings.Repeat("J", 530)
	huge := strings.Repeat("H", ingest.MaxIDBytes+100)
	var b strings.Builder
	for i, id := range []string{long + "-aaaaaaaaa", long + "-bbbbbbbbb", huge} {
		for k := range 2 {
			fmt.Fprintf(&b, `{"ts":"2026-03-10T01:0%d:0%dZ","event":"llm_call","job_id":"%s","model":"claude-sonnet-4-6","status":200,"input_tokens":10000,"output_tokens":100}`+"\n", i, k, id)
		}
	}
	logPath := filepath.Join(dir, "ids.jsonl")
	os.WriteFile(logPath, []byte(b.String()), 0o600)
	out, err := exec.Command(bin, "replay", "--headless", "--speed", "max", "--journal", filepath.Join(dir, "j.jsonl"),
		"--job-ceiling", "0.03", "--kill-webhook", recv.URL, logPath).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, kills := recv.snapshot()
	got := map[string]bool{}
	for _, k := range kills {
		got[fmt.Sprint(k["job_id"])] = true
	}
	if len(kills) != 2 || !got[long+"-aaaaaaaaa"] || !got[long+"-bbbbbbbbb"] {
		t.Fatalf("%d kills, want the two 540-byte jobs by their exact IDs:\n%v", len(kills), got)
	}
	if !strings.Contains(string(out), "no kill can name it") {
		t.Errorf("the digest-kept ID's kill was not refused with a reason:\n%s", out)
	}
	// --kill-exec gives the same reason, and a job named in the capped
	// shape within the bound keeps its name and its kill.
	forged := strings.Repeat("F", 200) + "…#" + strings.Repeat("0", 32)
	b.Reset()
	for i, id := range []string{huge, forged} {
		for k := range 2 {
			fmt.Fprintf(&b, `{"ts":"2026-03-10T02:0%d:0%dZ","event":"llm_call","job_id":"%s","model":"claude-sonnet-4-6","status":200,"input_tokens":10000,"output_tokens":100}`+"\n", i, k, id)
		}
	}
	os.WriteFile(logPath, []byte(b.String()), 0o600)
	out, err = exec.Command(bin, "replay", "--headless", "--speed", "max", "--journal", filepath.Join(dir, "j2.jsonl"),
		"--job-ceiling", "0.03", "--kill-webhook", recv.URL, "--kill-exec", "/bin/true {job_id}", logPath).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "no command can name it") {
		t.Errorf("--kill-exec refused the digest-kept ID without its reason:\n%s", out)
	}
	_, kills = recv.snapshot()
	if last := kills[len(kills)-1]; fmt.Sprint(last["job_id"]) != forged {
		t.Errorf("the job named in the capped shape was not killed by its name: %v", last["job_id"])
	}
}
