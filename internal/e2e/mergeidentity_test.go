package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// otlpReplica is one "watch --headless" fed spans over OTLP/HTTP, writing
// --report-out at its stop: a replica of a fleet.
type otlpReplica struct {
	t    *testing.T
	cmd  *exec.Cmd
	addr string
	err  *syncBuffer
}

func startOTLPReplica(t *testing.T, args ...string) *otlpReplica {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := &otlpReplica{t: t, addr: addr, err: &syncBuffer{}}
	r.cmd = exec.Command(burnrate(t), append([]string{"watch", "--headless", "--otlp-http", addr}, args...)...)
	r.cmd.Stderr = r.err
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	waitUntil(t, "the OTLP receiver to listen", 15*time.Second, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return r
}

// call posts one model call of job ($0.18: 10,000 input and 10,000 output
// tokens of claude-sonnet-4-5) at minute min of the night.
func (r *otlpReplica) call(job string, min int) {
	r.t.Helper()
	start := int64(1796180270000000000) + int64(min)*int64(time.Minute)
	body := fmt.Sprintf(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"worker"}},{"key":"job.id","value":{"stringValue":%q}},{"key":"job.type","value":{"stringValue":"nightly"}}]},"scopeSpans":[{"scope":{"name":"manual"},"spans":[{"traceId":"%032x","spanId":"%016x","name":"chat claude-sonnet-4-5","kind":3,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.system","value":{"stringValue":"anthropic"}},{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"gen_ai.response.model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"10000"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"10000"}}]}]}]}]}`,
		job, start, start, start, start+2e9)
	resp, err := http.Post("http://"+r.addr+"/v1/traces", "application/json", strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		r.t.Fatalf("OTLP post: %s", resp.Status)
	}
}

func (r *otlpReplica) stop() {
	time.Sleep(400 * time.Millisecond) // the last span applied
	r.cmd.Process.Signal(syscall.SIGTERM)
	r.cmd.Wait()
}

// TestSameNamedReplicasMergedByIdentity: issue 34 — two replicas that
// share a name (the default, the host name: both run here without
// --replica), one of them restarted in the night; report --merge decided
// by totals that the other's whole report was an earlier snapshot of the
// restarted one, and dropped it: 6 jobs for 9. Each report now names its
// instance (replica, run, start), and reports of one name are merged by
// job identity: 9 jobs, every call once.
func TestSameNamedReplicasMergedByIdentity(t *testing.T) {
	dir := t.TempDir()
	common := []string{"--run-id", "nightly-1"}
	a := startOTLPReplica(t, append(common, "--journal", filepath.Join(dir, "a", "journal.jsonl"), "--report-out", filepath.Join(dir, "a.json"))...)
	for i := 1; i <= 3; i++ {
		a.call(fmt.Sprintf("a-%d", i), i)
	}
	a.stop()

	bArgs := append(common, "--journal", filepath.Join(dir, "b", "journal.jsonl"), "--report-out", filepath.Join(dir, "b.json"))
	b := startOTLPReplica(t, bArgs...)
	for i := 1; i <= 3; i++ {
		b.call(fmt.Sprintf("b-%d", i), i)
	}
	b.stop()
	// The restart moves b.json aside as b.<time>.json; the second part
	// writes b.json.
	b = startOTLPReplica(t, bArgs...)
	for i := 4; i <= 6; i++ {
		b.call(fmt.Sprintf("b-%d", i), i)
	}
	b.stop()

	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 3 {
		t.Fatalf("reports %v, want a.json, b.json and b's earlier report", files)
	}
	var instances = map[string]bool{}
	var replica string
	for _, f := range files {
		var r struct{ Replica, Instance string }
		data, _ := os.ReadFile(f)
		json.Unmarshal(data, &r)
		if r.Instance == "" || instances[r.Instance] || (replica != "" && r.Replica != replica) {
			t.Errorf("%s: replica %q instance %q: want one replica name and a unique instance per process", f, r.Replica, r.Instance)
		}
		instances[r.Instance], replica = true, r.Replica
	}
	out, err := run(t, append([]string{"report", "--merge", "--format", "json"}, files...)...)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	var m struct {
		Totals struct {
			Jobs     int     `json:"jobs"`
			Attempts int64   `json:"attempts"`
			SpendUSD float64 `json:"spend_usd"`
		} `json:"totals"`
		Merged struct {
			Dropped   []string `json:"dropped"`
			Conflicts []string `json:"conflicts"`
		} `json:"merged"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("merged: %d jobs, %d calls, $%.2f; dropped %q; conflicts %q", m.Totals.Jobs, m.Totals.Attempts, m.Totals.SpendUSD, m.Merged.Dropped, m.Merged.Conflicts)
	if m.Totals.Jobs != 9 || m.Totals.Attempts != 9 || fmt.Sprintf("%.2f", m.Totals.SpendUSD) != "1.62" {
		t.Errorf("merged %d jobs, %d calls, $%.2f; want 9, 9, $1.62 (a shard dropped by totals?) dropped: %q", m.Totals.Jobs, m.Totals.Attempts, m.Totals.SpendUSD, m.Merged.Dropped)
	}
	for _, d := range m.Merged.Dropped {
		if strings.HasPrefix(d, filepath.Join(dir, "a.json")) {
			t.Errorf("replica a's report was dropped: %s", d)
		}
	}
}
