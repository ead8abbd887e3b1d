package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rooTask writes a Roo Code task directory in Roo's shapes (written here,
// not copied): ui_messages.json with one request of the given cost, and,
// when item is not "", its history_item.json.
func rooTask(t *testing.T, tasks, id string, ts int64, cost float64, item string) {
	t.Helper()
	dir := filepath.Join(tasks, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	msgs := fmt.Sprintf(`[{"ts":%d,"type":"say","say":"text","text":"work"},`+
		`{"ts":%d,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"anthropic\",\"tokensIn\":100,\"tokensOut\":50,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":%v}"},`+
		`{"ts":%d,"type":"ask","ask":"tool","text":"{\"tool\":\"newTask\",\"mode\":\"💻 Code\",\"content\":\"the next part\",\"todos\":[]}"}]`, ts, ts+1000, cost, ts+2000)
	os.WriteFile(filepath.Join(dir, "ui_messages.json"), []byte(msgs), 0o644)
	if item != "" {
		os.WriteFile(filepath.Join(dir, "history_item.json"), []byte(item), 0o644)
	}
}

// TestRooSubtasksBilledToTheirRootTask (issue 35's leftover): a Roo Code
// Orchestrator task hands parts of its work to subtasks, each a task
// directory of its own whose history_item.json names its root and parent
// task. Their calls were each their own job: the Orchestrator's task
// showed what it cost itself, not what it set going. Each subtask's calls
// are the root's job; a task whose history_item.json does not read (cut
// short, a FIFO, over the bound) stays its own job and counts the field.
func TestRooSubtasksBilledToTheirRootTask(t *testing.T) {
	tasks := filepath.Join(t.TempDir(), "tasks")
	const root, child, grandchild = "0197a1b2-root", "0197a1b3-child", "0197a1b4-grandchild"
	item := func(id, rootID, parentID string) string {
		links := ""
		if rootID != "" {
			links = fmt.Sprintf(`"rootTaskId":%q,"parentTaskId":%q,`, rootID, parentID)
		}
		return fmt.Sprintf(`{"id":%q,%s"number":1,"ts":1770000009000,"task":"work","tokensIn":100,"tokensOut":50,"cacheWrites":0,"cacheReads":0,"totalCost":0.001,"size":4096,"workspace":"/w","mode":"code"}`, id, links)
	}
	rooTask(t, tasks, root, 1770000000000, 0.001, item(root, "", ""))
	rooTask(t, tasks, child, 1770000010000, 0.002, item(child, root, root))
	rooTask(t, tasks, grandchild, 1770000020000, 0.004, item(grandchild, root, child))
	// A Cline task (no history_item.json) and hostile ones: their own jobs.
	rooTask(t, tasks, "cline-1", 1770000030000, 0.008, "")
	rooTask(t, tasks, "cut", 1770000040000, 0.016, item("cut", root, root)[:40])
	rooTask(t, tasks, "other", 1770000050000, 0.032, item("someone-else", root, root))
	rooTask(t, tasks, "huge", 1770000060000, 0.064, `{"id":"huge","rootTaskId":"`+root+`","task":"`+strings.Repeat("x", 2<<20)+`"}`)
	rooTask(t, tasks, "fifo", 1770000070000, 0.128, "")
	if err := syscall.Mkfifo(filepath.Join(tasks, "fifo", "history_item.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(burnrate(t), "report", "--format", "json", tasks).Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var rep struct {
		Source struct {
			FieldsDropped map[string]int `json:"fields_dropped"`
		} `json:"source"`
		Totals struct {
			Attempts int     `json:"attempts"`
			Jobs     int     `json:"jobs"`
			SpendUSD float64 `json:"spend_usd"`
		} `json:"totals"`
		Jobs []struct {
			ID       string  `json:"job_id"`
			Attempts int     `json:"attempts"`
			SpendUSD float64 `json:"spend_usd"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, j := range rep.Jobs {
		got[j.ID] = j.SpendUSD
	}
	want := map[string]float64{root: 0.007, "cline-1": 0.008, "cut": 0.016, "other": 0.032, "huge": 0.064, "fifo": 0.128}
	if rep.Totals.Attempts != 8 || rep.Totals.Jobs != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("attempts %d, jobs %v; want 8 attempts, jobs %v", rep.Totals.Attempts, got, want)
	}
	if n := sumCounts(rep.Source.FieldsDropped); n != 4 {
		t.Errorf("fields dropped %v, want the 4 unreadable history items' calls", rep.Source.FieldsDropped)
	}
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
