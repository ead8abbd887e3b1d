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
	"time"
)

// TestRotationUnderAGlobThatMatchesTheRotatedName: red team R8-24 and
// R8-19 — a watch of 'logs/*' (or 'app.log*', '*.log*', a directory)
// found logrotate's rotated file, app.log.1, as a new file and read it
// again from its start: the rotated file's calls billed twice at every
// rotation (250 calls for 150 after one rename, 410 for 160 after two,
// 250 for 150 after a copytruncate), every ceiling at half the spend. A
// file is read once whatever names it goes by.
func TestRotationUnderAGlobThatMatchesTheRotatedName(t *testing.T) {
	bin := burnrate(t)
	write := func(path string, from, to int) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i++ {
			fmt.Fprintf(f, `{"ts":"2026-12-08T01:%02d:%02dZ","event":"llm_call","job_id":"job-%d","model":"gpt-4o","status":200,"input_tokens":%d,"output_tokens":100}`+"\n", i/60, i%60, i%5, 1000+i)
		}
		f.Close()
	}
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		rotate func(logs string)
		want   int64
	}{
		{"rename", func(logs string) {
			os.Rename(filepath.Join(logs, "app.log"), filepath.Join(logs, "app.log.1"))
		}, 150},
		{"copytruncate", func(logs string) {
			copyFile(filepath.Join(logs, "app.log"), filepath.Join(logs, "app.log.1"))
			os.Truncate(filepath.Join(logs, "app.log"), 0)
		}, 150},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			logs := filepath.Join(dir, "logs")
			os.MkdirAll(logs, 0o700)
			app := filepath.Join(logs, "app.log")
			write(app, 0, 100)
			out := filepath.Join(dir, "r.json")
			cmd := exec.Command(bin, "watch", "--headless", "--journal", filepath.Join(dir, "st", "j.jsonl"), "--report-out", out,
				"--poll-interval", "200ms", filepath.Join(logs, "*"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second) // app.log read
			c.rotate(logs)
			write(app, 100, 150)
			time.Sleep(3 * time.Second) // the rotation seen, the glob looked again
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Totals struct{ Attempts int64 } `json:"totals"`
			}
			json.Unmarshal(raw, &r)
			if r.Totals.Attempts != c.want {
				t.Errorf("%d calls after the rotation, the logs hold %d\n%s", r.Totals.Attempts, c.want, stderr.String())
			}
		})
	}
}
