package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// round8Hostile writes the hostile files for round 8's client and query
// rules, each under the 1 MiB limit: 10,000 import aliases of each new
// Python client and 10,000 of ofetch and useQuery, each called; 100,000
// useQuery calls of a function imported from a file that sends requests;
// 10,000 clients of a helper's session; 10,000 fantasy agent calls.
func round8Hostile(tb testing.TB) string {
	dir := tb.TempDir()
	files := map[string]string{"api.ts": "export const get = () => fetch('/x');\n"}
	// split writes items into files of at most 1 MiB, head first in each.
	split := func(name, head, tail string, n int, item func(i int) string) {
		var b strings.Builder
		k := 0
		flush := func() {
			files[fmt.Sprintf("p%d/%s", k, name)] = head + b.String() + tail
			b.Reset()
			k++
		}
		for i := range n {
			s := item(i)
			if len(head)+b.Len()+len(s)+len(tail) > 1<<20 {
				flush()
			}
			b.WriteString(s)
		}
		flush()
	}
	split("clients.py", "import aioboto3\n", "", 10_000, func(i int) string {
		return fmt.Sprintf("from openai import AsyncClient as C%d\nfrom azure.storage.blob import BlobServiceClient as B%d\nfrom cerebras.cloud.sdk import Cerebras as K%d\nx%d = C%d(); y%d = B%d.from_connection_string(u); z%d = K%d()\ns%d = self._get_session(k).client('s3')\n", i, i, i, i, i, i, i, i, i, i)
	})
	split("clients.ts", "", "", 10_000, func(i int) string {
		return fmt.Sprintf("import { ofetch as o%d } from 'ofetch';\nimport { useQuery as q%d } from '@tanstack/react-query';\no%d('/a', { method: 'POST', retry: %d });\nq%d({ queryKey: ['k'], queryFn: () => fetch('/b') });\nconst i%d = o%d.create({ retry: 2 }); i%d('/c');\n", i, i, i, i%7, i, i, i, i)
	})
	split("hooks.ts", "import { useQuery } from '@tanstack/react-query';\nimport * as api from '../api';\n", "", 100_000, func(i int) string {
		return fmt.Sprintf("useQuery({ queryKey: ['k%d'], queryFn: () => api.get%d(), retry: %d });\n", i, i, i%5)
	})
	split("agent.go", "package p\n\nimport (\n\t\"context\"\n\n\t\"charm.land/fantasy\"\n)\n\nfunc f(ctx context.Context, a fantasy.Agent) {\n", "}\n", 10_000, func(i int) string {
		return fmt.Sprintf("\tc%d := fantasy.AgentStreamCall{Prompt: \"p\"}\n\ta.Stream(ctx, c%d)\n", i, i)
	})
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// BenchmarkHostileRound8Clients: the files above, scanned end to end with every
// layer kept.
//
//	go test ./audit -run '^$' -bench HostileRound8Clients -benchtime 1x
func BenchmarkHostileRound8Clients(b *testing.B) {
	dir := round8Hostile(b)
	opt := DefaultOptions()
	opt.MaxLayers = 1 << 20 // every layer kept: the cost of all of them
	b.ResetTimer()
	var r *Result
	for b.Loop() {
		var err error
		if r, err = Scan([]string{dir}, opt); err != nil {
			b.Fatal(err)
		}
	}
	per := map[string]int{}
	for _, l := range r.Layers {
		per[l.DefaultID]++
	}
	b.Logf("layers: %v", per)
	for _, id := range []string{"openai-python", "azure-storage-python", "cerebras-python", "botocore", "ofetch", "tanstack-query", "fantasy"} {
		if per[id] == 0 {
			b.Errorf("no %s layer in the hostile tree: %v", id, per)
		}
	}
}
