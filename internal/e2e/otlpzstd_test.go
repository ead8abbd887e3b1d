package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestOTLPZstdCollectorFilesMatchTheWire (issue 35's leftover): the
// Collector's file exporter with compression: zstd writes, by default,
// each request zstd-compressed alone after its length (4 bytes, big
// endian: exporter/fileexporter codec.go at 2de7cd2, file_writer.go at
// f434b56), and with its native compression gate one zstd stream of the
// lines (compression_writer.go at 432a0e7). burnrate read such files as
// nothing. Written by the same library in those framings from seed 000's
// 529 storm, each gives the report of the file uncompressed: calls per
// job the provider's ledger.
func TestOTLPZstdCollectorFilesMatchTheWire(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(nodeStack, "capture-storm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(src, []byte("\n")), []byte("\n"))
	enc, _ := zstd.NewWriter(nil)
	var framed []byte
	for _, l := range lines {
		frame := enc.EncodeAll(l, nil)
		framed = binary.BigEndian.AppendUint32(framed, uint32(len(frame)))
		framed = append(framed, frame...)
	}
	var stream bytes.Buffer
	sw, _ := zstd.NewWriter(&stream, zstd.WithEncoderConcurrency(1))
	for i, l := range lines {
		sw.Write(append(l, '\n'))
		if i%5 == 4 {
			sw.Flush() // the exporter's flush_interval: a block ends
		}
	}
	sw.Close()
	dir := t.TempDir()
	report := func(name string, data []byte) map[string]any {
		path := filepath.Join(dir, name, "traces.log")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, data, 0o644)
		out, err := exec.Command(burnrate(t), "report", "--format", "json", path).Output()
		if err != nil {
			t.Fatalf("report %s: %v: %s", name, err, out)
		}
		if name != "plain" {
			checkAgainstWire(t, out, readLedger(t, "ledger-storm.jsonl"))
		}
		var rep map[string]any
		json.Unmarshal(out, &rep)
		delete(rep, "source") // the paths and the bytes read are each file's
		return rep
	}
	want, _ := json.Marshal(report("plain", src))
	for name, data := range map[string][]byte{"framed": framed, "stream": stream.Bytes()} {
		got, _ := json.Marshal(report(name, data))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the report differs from the uncompressed file's:\n%s\nwant\n%s", name, got, want)
		}
	}
}

// TestWatchFollowsTheCollectorsFile (red team R6-6): `watch` of the
// Collector's file exporter output (OTLP/JSON, one request a line) read
// every line as "no event" and said nothing — an empty dashboard over a
// storm. A line's own keys now choose the OTLP mapping, so the followed
// file gives the report's calls per job, the provider's ledger; the same
// file zstd-compressed is refused with what to do, not read as text.
func TestWatchFollowsTheCollectorsFile(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(nodeStack, "capture-storm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, report := filepath.Join(dir, "traces.log"), filepath.Join(dir, "report.json")
	os.WriteFile(log, src, 0o644)
	d := startDaemon(t, "--journal", filepath.Join(dir, "journal.jsonl"), "--poll-interval", "20ms", "--report-out", report, log)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && !bytes.Contains([]byte(d.err()), []byte("limits in force")) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	d.stop(syscall.SIGTERM)
	out, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("%v\n%s", err, d.err())
	}
	checkAgainstWire(t, out, readLedger(t, "ledger-storm.jsonl"))

	// zstd: refused, saying how to read it.
	enc, _ := zstd.NewWriter(nil)
	lines := bytes.Split(bytes.TrimSuffix(src, []byte("\n")), []byte("\n"))
	var framed []byte
	for _, l := range lines {
		frame := enc.EncodeAll(l, nil)
		framed = binary.BigEndian.AppendUint32(framed, uint32(len(frame)))
		framed = append(framed, frame...)
	}
	for name, data := range map[string][]byte{"framed": framed, "stream": enc.EncodeAll(src, nil)} {
		path := filepath.Join(dir, name+".log")
		os.WriteFile(path, data, 0o644)
		d := startDaemon(t, "--journal", filepath.Join(dir, name+"-journal.jsonl"), path)
		done := make(chan error, 1)
		go func() { done <- d.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			d.cmd.Process.Signal(syscall.SIGTERM)
			<-done
		}
		if !bytes.Contains([]byte(d.err()), []byte("zstd-compressed")) || !bytes.Contains([]byte(d.err()), []byte("burnrate report")) {
			t.Errorf("%s: watch of a zstd file must refuse it and say to use report:\n%s", name, d.err())
		}
	}
}

// TestWatchReadsABatchOverTheLineCap (red team R6-18): the Collector
// writes a batch of spans as one request a line, often past 1 MiB;
// followed, such a line was skipped as too long and said nowhere (3
// requests of 1,500 spans: 0 calls in watch, 4,500 in report). A request
// line is read up to 16 MiB. Here the storm's requests are one request
// of 1.3 MB, after a request or an application's line: the calls per job
// are the wire's.
func TestWatchReadsABatchOverTheLineCap(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(nodeStack, "capture-storm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var all []json.RawMessage
	for _, l := range bytes.Split(bytes.TrimSpace(src), []byte("\n")) {
		var req struct {
			ResourceSpans []json.RawMessage `json:"resourceSpans"`
		}
		if err := json.Unmarshal(l, &req); err != nil {
			t.Fatal(err)
		}
		all = append(all, req.ResourceSpans...)
	}
	// One request of them all, padded past the cap by a resource
	// attribute nobody reads.
	var first map[string]any
	json.Unmarshal(all[0], &first)
	res := first["resource"].(map[string]any)
	res["attributes"] = append(res["attributes"].([]any), map[string]any{"key": "padding", "value": map[string]any{"stringValue": strings.Repeat("x", 1<<20)}})
	all[0], _ = json.Marshal(first)
	big, _ := json.Marshal(map[string]any{"resourceSpans": all})
	if len(big) <= 1<<20 {
		t.Fatalf("the batch is %d bytes: not over the line cap", len(big))
	}
	dir := t.TempDir()
	for name, first := range map[string]string{
		"after a request":   string(bytes.SplitN(src, []byte("\n"), 2)[0]) + "\n",
		"after an app line": `{"ts":"2026-12-07T01:00:00Z","event":"llm_call","job_id":"app","model":"gpt-4o","status":200,"input_tokens":10,"output_tokens":5}` + "\n",
	} {
		sub := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		os.Mkdir(sub, 0o755)
		log, report := filepath.Join(sub, "traces.log"), filepath.Join(sub, "report.json")
		os.WriteFile(log, append([]byte(first), append(big, '\n')...), 0o644)
		d := startDaemon(t, "--journal", filepath.Join(sub, "journal.jsonl"), "--poll-interval", "20ms", "--report-out", report, log)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) && !bytes.Contains([]byte(d.err()), []byte("limits in force")) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(1500 * time.Millisecond)
		d.stop(syscall.SIGTERM)
		out, err := os.ReadFile(report)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, d.err())
		}
		var rep struct {
			Source struct {
				Skipped map[string]int `json:"skipped_by_reason"`
			} `json:"source"`
			Jobs []struct {
				JobID string `json:"job_id"`
				Calls int    `json:"attempts"`
			} `json:"jobs"`
		}
		json.Unmarshal(out, &rep)
		calls := map[string]int{}
		for _, j := range rep.Jobs {
			calls[j.JobID] = j.Calls
		}
		if rep.Source.Skipped["too_long"] > 0 || calls["storm-1"] != 63 || calls["storm-2"] != 63 {
			t.Errorf("%s: calls %v, skipped %v: want the wire's 63 and 63, nothing too long", name, calls, rep.Source.Skipped)
		}
	}
}

// TestASpanTwiceInOneRequestIsBilledOnce: a Collector's batch processor
// can merge an export and its retry into one request, so a span comes
// twice in it. A span delivered again in another request was billed once,
// but twice in one request it doubled its parent's children: the storm's
// 63 calls a job read as 91 to 104. Each request of the storm written with
// its spans twice (and all of them in one request, twice over) gives the
// wire's calls.
func TestASpanTwiceInOneRequestIsBilledOnce(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(nodeStack, "capture-storm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var each, all []json.RawMessage
	var doubled bytes.Buffer
	for _, l := range bytes.Split(bytes.TrimSpace(src), []byte("\n")) {
		var req struct {
			ResourceSpans []json.RawMessage `json:"resourceSpans"`
		}
		if err := json.Unmarshal(l, &req); err != nil {
			t.Fatal(err)
		}
		each = append(req.ResourceSpans, req.ResourceSpans...)
		b, _ := json.Marshal(map[string]any{"resourceSpans": each})
		doubled.Write(append(b, '\n'))
		all = append(all, req.ResourceSpans...)
	}
	one, _ := json.Marshal(map[string]any{"resourceSpans": append(all, all...)})
	dir := t.TempDir()
	for name, data := range map[string][]byte{"each request doubled": doubled.Bytes(), "one request, twice over": append(one, '\n')} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		os.WriteFile(path, data, 0o644)
		out, err := exec.Command(burnrate(t), "report", "--format", "json", path).Output()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Run(name, func(t *testing.T) { checkAgainstWire(t, out, readLedger(t, "ledger-storm.jsonl")) })
	}
}
