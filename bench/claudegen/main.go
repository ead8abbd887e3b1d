// Command claudegen writes a Claude Code projects directory of about -mb
// megabytes, in the real transcript shape (user turns, responses written
// once per content block, Claude Code's api_error retries, subagents), for
// bench/claude.sh. Deterministic: the same flags give the same bytes.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	out := flag.String("out", "", "the CLAUDE_CONFIG_DIR to write (projects/ goes inside)")
	mb := flag.Int("mb", 100, "about how many megabytes to write")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "claudegen: -out DIR is required")
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	total := 0
	text := strings.Repeat("Let me look at the file and make the change you asked for. ", 8)
	models := []string{"claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4-5-20251001"}
	for s := 0; total < *mb<<20; s++ {
		project := fmt.Sprintf("-home-dev-project%02d", s%20)
		session := fmt.Sprintf("%08x-7c1e-4c55-9a53-%012x", s, s*7919)
		dir := filepath.Join(*out, "projects", project)
		os.MkdirAll(dir, 0o755)
		f, _ := os.Create(filepath.Join(dir, session+".jsonl"))
		w := bufio.NewWriterSize(f, 1<<20)
		at := time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC).Add(time.Duration(s) * time.Minute)
		cwd := "/home/dev/" + strings.TrimPrefix(project, "-home-dev-")
		line := func(v map[string]any) {
			b, _ := json.Marshal(v)
			w.Write(b)
			w.WriteByte('\n')
			total += len(b) + 1
		}
		turns := 20 + rng.IntN(60)
		parent := ""
		for t := 0; t < turns; t++ {
			at = at.Add(time.Duration(1+rng.IntN(20)) * time.Second)
			uid := fmt.Sprintf("%s-u%d", session, t)
			line(map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": session, "version": "2.0.37",
				"gitBranch": "main", "type": "user", "message": map[string]any{"role": "user", "content": text}, "uuid": uid, "timestamp": at.Format(time.RFC3339Nano)})
			if rng.IntN(10) == 0 { // Claude Code's own retries
				for n := 1; n <= 1+rng.IntN(4); n++ {
					at = at.Add(time.Duration(500<<n) * time.Millisecond)
					line(map[string]any{"parentUuid": uid, "isSidechain": false, "cwd": cwd, "sessionId": session, "version": "2.0.37", "type": "system",
						"subtype": "api_error", "level": "error", "error": map[string]any{"status": 529, "headers": map[string]any{}, "requestID": nil},
						"retryInMs": 500 << n, "retryAttempt": n, "maxRetries": 10, "uuid": fmt.Sprintf("%s-e%d-%d", session, t, n), "timestamp": at.Format(time.RFC3339Nano)})
				}
			}
			at = at.Add(time.Duration(2+rng.IntN(30)) * time.Second)
			usage := map[string]any{"input_tokens": rng.IntN(50), "cache_creation_input_tokens": rng.IntN(5000), "cache_read_input_tokens": rng.IntN(80000),
				"output_tokens": rng.IntN(3000), "service_tier": "standard"}
			mid, rid := fmt.Sprintf("msg_%s_%d", session, t), fmt.Sprintf("req_%s_%d", session, t)
			model := models[rng.IntN(len(models))]
			for b := 0; b < 1+rng.IntN(3); b++ { // one record per content block
				parent = fmt.Sprintf("%s-a%d-%d", session, t, b)
				line(map[string]any{"parentUuid": uid, "isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": session, "version": "2.0.37",
					"gitBranch": "main", "type": "assistant", "requestId": rid, "uuid": parent, "timestamp": at.Format(time.RFC3339Nano),
					"message": map[string]any{"id": mid, "type": "message", "role": "assistant", "model": model, "content": []any{map[string]any{"type": "text", "text": text}},
						"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
			}
		}
		w.Flush()
		f.Close()
	}
	fmt.Printf("wrote %d MB under %s\n", total>>20, filepath.Join(*out, "projects"))
}
