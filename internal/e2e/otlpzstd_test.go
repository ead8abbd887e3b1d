package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
