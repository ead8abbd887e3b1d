package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
)

// The uniform shape is what a benchmark of correlation's lookups needs:
// every job open for the whole log, its lines at every depth of it.
func TestNightUniformSpreadsEveryJobOverTheWholeLog(t *testing.T) {
	const n, calls = 6000, 4
	var a, b bytes.Buffer
	if err := NightUniform(&a, n, calls, 7); err != nil {
		t.Fatal(err)
	}
	if err := NightUniform(&b, n, calls, 7); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same seed wrote two different logs")
	}
	first, last, count := map[string]int{}, map[string]int{}, map[string]int{}
	prevTS := ""
	sc := bufio.NewScanner(&a)
	i := 0
	for ; sc.Scan(); i++ {
		var r struct {
			TS    string `json:"ts"`
			Event string `json:"event"`
			Job   string `json:"job_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if r.TS < prevTS {
			t.Fatalf("line %d: time goes back: %s after %s", i, r.TS, prevTS)
		}
		prevTS = r.TS
		if _, ok := first[r.Job]; !ok {
			first[r.Job] = i
			if r.Event != "job_started" {
				t.Fatalf("%s begins with %s", r.Job, r.Event)
			}
		}
		last[r.Job] = i
		count[r.Job]++
	}
	if i != n {
		t.Fatalf("%d lines, want %d", i, n)
	}
	jobs := n / (calls + 2)
	if len(count) != jobs {
		t.Fatalf("%d jobs, want %d", len(count), jobs)
	}
	for j, c := range count {
		if c != calls+2 {
			t.Fatalf("%s has %d lines, want %d", j, c, calls+2)
		}
		// Spread over the whole log: its first line in the first round,
		// its last in the last.
		if first[j] >= jobs || last[j] < n-jobs {
			t.Fatalf("%s spans lines %d..%d of %d: not spread", j, first[j], last[j], n)
		}
	}
	// Shuffled: the first round is not in job order.
	var c bytes.Buffer
	if err := NightOf(&c, n, jobs, calls); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes()[:4096], c.Bytes()[:4096]) {
		t.Fatal("the uniform log is not shuffled")
	}
}
