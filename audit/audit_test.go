package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixture repositories under testdata/ are files written for these tests,
// each following the shape of real code (the seed's three lines; Stainless
// SDK constructors; tenacity, Celery, LangChain and LlamaIndex as their
// docs and typical apps write them; Kubernetes CronJobs; an nginx upstream
// block; a .claude/settings.json env block).

func scan(t *testing.T, dir string) *Result {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("fixture %s: %v", dir, err)
	}
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// want is one expected layer: file:line id attempts (0 = unbounded) and
// whether the code sets it.
type want struct {
	at         string
	id         string
	attempts   int
	configured bool
}

func layersOf(r *Result) []want {
	var got []want
	for _, l := range r.Layers {
		got = append(got, want{fmt.Sprintf("%s:%d", l.File, l.Line), l.DefaultID, l.Attempts, l.Configured})
	}
	return got
}

func sameLayers(t *testing.T, r *Result, exp []want) {
	t.Helper()
	got := layersOf(r)
	if fmt.Sprint(got) != fmt.Sprint(exp) {
		t.Errorf("layers:\n got %v\nwant %v", got, exp)
	}
}

func TestSeed000StackIs63AndElevenMinutes(t *testing.T) {
	r := scan(t, "testdata/seed000")
	sameLayers(t, r, []want{
		{"src/enqueue.ts:5", "bullmq", 7, true},
		{"src/llm.ts:4", "anthropic-ts", 3, false}, // the one nobody set
		{"src/report.ts:6", "p-retry", 3, true},
	})
	if len(r.Stacks) != 1 {
		t.Fatalf("stacks: %+v", r.Stacks)
	}
	st := r.Stacks[0]
	if st.Attempts != 63 || st.Product != "7 × 3 × 3 = 63" {
		t.Errorf("product %d %q, want 63", st.Attempts, st.Product)
	}
	// Seed 000: "11 minutes 40 seconds from enqueue to dead letter" —
	// 63 calls answered (with 529) in about 10 s each, plus the nested
	// backoffs.
	if st.FailFastS < 600 || st.FailFastS > 780 {
		t.Errorf("fail-fast wall clock %.0f s, want the 11-minute class", st.FailFastS)
	}
	if !r.HasCritical() {
		t.Error("p-retry and BullMQ both retry a 400 on top of each other: critical")
	}
	kinds := map[FindingKind]int{}
	for _, f := range r.Findings {
		kinds[f.Kind]++
	}
	if kinds[FindingOverBudget] != 1 || kinds[FindingSameDomain] != 1 || kinds[FindingUnsetDefault] != 1 {
		t.Errorf("findings %v", kinds)
	}
	for _, f := range r.Findings {
		if f.Kind == FindingOverBudget && (!strings.Contains(f.Message, "7 × 3 × 3 = 63") || f.File != "src/llm.ts" || f.Line != 4) {
			t.Errorf("over-budget finding %+v", f)
		}
	}
}

func TestSeed000FixIsFour(t *testing.T) {
	r := scan(t, "testdata/seed000-fixed")
	sameLayers(t, r, []want{
		{"src/enqueue.ts:10", "bullmq", 4, true},
		{"src/llm.ts:4", "anthropic-ts", 1, true},
	})
	if len(r.Stacks) != 1 || r.Stacks[0].Attempts != 4 {
		t.Fatalf("stacks %+v, want one of 4 attempts", r.Stacks)
	}
	if r.HasCritical() {
		t.Errorf("one owner with a deadline is seed 000's fix, not critical: %+v", r.Findings)
	}
	if b := r.Layers[0].Backoff; b != "exp:2000ms" {
		t.Errorf("BullMQ backoff %q", b)
	}
}

func TestFixtureRepositories(t *testing.T) {
	cases := []struct {
		dir     string
		layers  []want
		product []string // each stack's product, in order
	}{
		{"testdata/pyagent", []want{
			{"app/chain.py:6", "openai-python", 4, true},        // ChatOpenAI(max_retries=3) passes through
			{"app/chain.py:8", "langchain-with-retry", 2, true}, // .with_retry(stop_after_attempt=2)
			{"app/legacy.py:7", "hand-rolled", 3, true},         // for attempt in range(3): try … sleep
			{"app/llm.py:13", "anthropic-python", 6, true},      // not the commented one, nor the docstring's, nor the string's
			{"app/llm.py:18", "tenacity", 4, true},              // @retry(stop=stop_after_attempt(4))
			{"app/rag.py:4", "llamaindex-openai", 3, false},     // its tenacity decorator…
			{"app/rag.py:4", "openai-python", 4, false},         // …and the client it builds, both max_retries=3
			{"app/tasks.py:8", "celery", 4, false},              // autoretry_for without max_retries
		}, []string{"4 × 4 × 3 × 6 = 288"}},
		{"testdata/goworker", []want{
			{"internal/llm/client.go:18", "anthropic-go", 5, true},
			{"internal/llm/client.go:22", "go-retryablehttp", 3, true},
			{"internal/llm/client.go:28", "cenkalti-backoff", 4, true},
			{"internal/llm/client.go:31", "failsafe-go", 6, true},
		}, []string{"6 × 5 = 30"}},
		{"testdata/rubyjobs", []want{
			{"app/jobs/digest_job.rb:3", "sidekiq", 26, false},
			{"app/jobs/report_job.rb:3", "sidekiq", 6, true},
		}, []string{"26 = 26"}},
		{"testdata/infra", []want{
			{".claude/settings.json:6", "claude-code", 4, true},
			{"deploy/migrate-job.yaml:2", "kubernetes-job", 7, false},
			{"deploy/report-cron.yaml:16", "kubernetes-job", 3, true},
			{"mesh/llm-gateway.yaml:17", "istio", 5, true}, // attempts: 4 retries
			{"nginx/nginx.conf:13", "nginx-proxy-next-upstream", 3, false},
			{"statemachines/report.asl.json:9", "step-functions", 7, true}, // the worse of MaxAttempts 6 and an unset one (3)
		}, []string{"4 = 4", "3 × 7 × 5 = 105"}}, // nginx in front, the Job, the Job's Istio sidecar
		// Shapes from CrimeIsDown/trunk-transcribe: a Celery base task
		// class (generic, autoretry_for and max_retries as attributes),
		// retry_kwargs, an OpenAI client built in a class, and npm and
		// PyPI both locking a package named openai.
		// and, from the SDKs' own examples, clients imported from a
		// submodule ('@anthropic-ai/sdk/index', openai.lib.azure).
		{"testdata/mixed", []want{
			{"web/batch.ts:3", "anthropic-ts", 3, false},
			{"worker/azure.py:5", "openai-python", 2, true},
			{"worker/task.py:6", "celery", 6, true},
			{"worker/task.py:14", "celery", 3, true},
			{"worker/transcribe.py:6", "openai-python", 3, false},
		}, []string{"3 = 3", "6 × 3 = 18"}},
		// Temporal activities in its three SDKs' documented shapes (no
		// retry policy is no maximum), urllib3's Retry and requests'
		// HTTPAdapter(max_retries=N).
		{"testdata/temporal", []want{
			{"app/http.py:8", "urllib3-retry", 4, true},
			{"app/http.py:10", "urllib3-retry", 6, true},
			{"src/workflows.ts:4", "temporal-activity", 5, true}, // proxyActivities<typeof a>({ retry: { maximumAttempts: 5 } })
			{"worker/workflow.go:15", "temporal-activity", 4, true},
			{"worker/workflow.go:24", "temporal-activity", 0, false},
			{"workflows/report.py:14", "temporal-activity", 0, false},
			{"workflows/report.py:19", "temporal-activity", 3, true},
		}, []string{"∞ × 6 = unbounded", "5 = 5", "∞ = unbounded"}},
		// Pydantic AI agents as trunk-transcribe builds them (the model
		// string in a constant: low confidence) and with a literal model,
		// and nick-fields/retry steps in a nightly workflow.
		{"testdata/agents", []want{
			{".github/workflows/nightly.yml:14", "gha-retry", 2, true},
			{".github/workflows/nightly.yml:17", "gha-retry", 3, false},
			{"summary_agent.py:14", "openai-python", 3, false},
			{"summary_agent.py:14", "pydantic-ai", 2, false}, // output and tool retries: 1 re-ask
			{"summary_agent.py:20", "anthropic-python", 3, false},
			{"summary_agent.py:20", "pydantic-ai", 2, false},
		}, []string{"3 × 2 × 3 = 18"}},
		// Pydantic AI, LiteLLM, DSPy, retrying, an Azure AI client and an
		// Airflow DAG as their docs and samples write them (each file names
		// its source); a Blob client, a plain completion(), retries in
		// comments, strings, a docstring, a local variable and @task(retries=0)
		// are no layers.
		{"testdata/pyframeworks", []want{
			{"agents.py:5", "openai-python", 3, false},
			{"agents.py:5", "pydantic-ai", 4, true}, // retries=3
			{"agents.py:7", "anthropic-python", 3, false},
			{"agents.py:7", "pydantic-ai", 5, true}, // the worse of tools 2 and output 4
			{"agents.py:15", "openai-python", 3, false},
			{"agents.py:15", "pydantic-ai", 5, true}, // Agent[Deps, Output](…)
			{"airflow.cfg:6", "airflow", 3, true},    // [core] only, not the comment's nor [scheduler]'s
			{"dags/nightly.py:10", "airflow", 3, true},
			{"dags/nightly.py:20", "airflow", 6, true},
			{"docker-compose.yaml:11", "airflow", 4, true}, // once, at the anchor the services merge
			{"gateway.py:13", "litellm-router", 5, true},
			{"gateway.py:14", "litellm-router", 3, false}, // openai.DEFAULT_MAX_RETRIES borrowed
			{"gateway.py:16", "litellm", 6, true},         // litellm.num_retries = 5
			{"gateway.py:20", "litellm", 3, true},
			{"inference.py:8", "azure-core-python", 4, false}, // retry_status 3
			{"inference.py:9", "azure-core-python", 3, true},  // retry_total=2 caps it
			// A storage client retries its requests as boto3's S3 client does
			// (issue 37, round 8: agno's blob loader): its own ExponentialRetry.
			{"inference.py:14", "azure-storage-python", 4, false},
			{"legacy_retry.py:7", "retrying", 0, false}, // bare @retry: forever
			{"legacy_retry.py:13", "retrying", 7, true},
			{"legacy_retry.py:18", "retrying", 0, true}, // stop_max_delay: bounded in time only
			{"program.py:4", "dspy", 4, false},
			{"program.py:5", "dspy", 9, true},
			{"workers/inngest_fns.py:8", "inngest", 4, false}, // Inngest's Python SDK
			{"workers/inngest_fns.py:16", "inngest", 2, true},
		}, []string{"6 × ∞ × 9 × 4 = unbounded"}},
		// Inngest functions (one file imports only the client), Trigger.dev
		// tasks and trigger.config.ts, and Azure's REST inference client,
		// as their examples and templates write them; nested retries, a
		// task without retry and retries in a string are no layers.
		{"testdata/jsqueues", []want{
			{"src/azure.ts:9", "azure-core-js", 4, false},
			{"src/azure.ts:10", "azure-core-js", 7, true},
			{"src/inngest/functions.ts:8", "inngest", 7, true},
			{"src/inngest/functions.ts:14", "inngest", 4, false}, // concurrency's nested retries are not the function's
			{"src/trigger/summarise.ts:9", "trigger-dev", 5, true},
			{"src/trigger/summarise.ts:26", "trigger-dev", 3, false}, // retry without maxAttempts
			{"trigger.config.ts:7", "trigger-dev", 3, true},
		}, []string{"7 × 7 = 49"}},
		// An Envoy listener, an HAProxy config, a LiteLLM proxy config.yaml
		// and a project .codex/config.toml, as their docs write them (each
		// file names its source): a route policy without retry_on, a
		// backend inheriting defaults and retries in comments are not the
		// worst layer or no layer.
		{"testdata/gateways", []want{
			{".codex/config.toml:11", "codex", 7, true}, // model_provider's, not the local one's 20
			{"envoy/envoy.yaml:25", "envoy", 4, true},
			{"haproxy/haproxy.cfg:20", "haproxy", 5, true},
			{"litellm/config.yaml:18", "litellm-proxy", 4, true}, // router_settings over litellm_settings
		}, []string{"7 = 7", "5 = 5"}},
		{"testdata/frontend", []want{
			{"src/api/summarise.ts:5", "openai-node", 5, true},
			{"src/api/summarise.ts:10", "vercel-ai", 6, true},
			{"src/apollo.ts:4", "apollo-retrylink", 3, true},
			{"src/queryClient.ts:3", "tanstack-query", 4, false},
			{"src/useReport.tsx:6", "swr", 0, false},
		}, []string{"∞ × 6 × 5 = unbounded"}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			r := scan(t, c.dir)
			sameLayers(t, r, c.layers)
			var got []string
			for _, s := range r.Stacks {
				got = append(got, s.Product)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.product) {
				t.Errorf("stacks %q, want %q", got, c.product)
			}
		})
	}
}

func TestVersionsComeFromLockfiles(t *testing.T) {
	r := scan(t, "testdata/frontend")
	for _, l := range r.Layers {
		if l.DefaultID == "openai-node" && l.Version != "4.71.1" {
			t.Errorf("openai version %q: the top-level node_modules entry, not ai's nested one", l.Version)
		}
	}
	r = scan(t, "testdata/mixed")
	for _, l := range r.Layers {
		// 2.x against a row read at 3.3.1: the default is shown, with
		// low confidence and a note to check that version's.
		if l.File == "worker/transcribe.py" && (l.Version != "2.29.0" || l.Confidence != ConfidenceLow || !strings.Contains(l.Note, "read at 3.3.1")) {
			t.Errorf("the PyPI openai is 2.29.0 from uv.lock, not npm's 4.104.0: %q %s %q", l.Version, l.Confidence, l.Note)
		}
	}
	r = scan(t, "testdata/pyagent")
	for _, l := range r.Layers {
		if l.DefaultID == "anthropic-python" && l.Version != "0.40.0" {
			t.Errorf("anthropic version %q from requirements.txt", l.Version)
		}
		if l.DefaultID == "celery" && l.Version != "5.3.6" {
			t.Errorf("celery[redis]==5.3.6 read as %q", l.Version)
		}
	}
}

func TestARepositoryWithoutRetriesReportsNone(t *testing.T) {
	r := scan(t, "testdata/none")
	if len(r.Layers) != 0 || len(r.Stacks) != 0 || len(r.Findings) != 0 {
		t.Fatalf("layers %v stacks %v findings %v in a repository with no retry layer", layersOf(r), r.Stacks, r.Findings)
	}
	if r.Files < 3 {
		t.Errorf("read %d files: it must have looked", r.Files)
	}
	var md bytes.Buffer
	r.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "No retry layers found") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

func TestSkippedFilesAreCounted(t *testing.T) {
	r := scan(t, "testdata/frontend")
	n := 0
	for _, s := range r.Skipped {
		if s.Reason == skipGenerated {
			n = s.Count
		}
	}
	if n != 2 {
		t.Errorf("generated/minified skipped %d, want app.min.js and the one-line vendor.js: %+v", n, r.Skipped)
	}
	r = scan(t, "testdata/infra")
	found := false
	for _, s := range r.Skipped {
		found = found || s.Reason == skipTemplate
	}
	if !found {
		t.Errorf("the Helm template must be reported as not read: %+v", r.Skipped)
	}
}

func TestJSONHoldsTheDocumentedFields(t *testing.T) {
	r := scan(t, "testdata/frontend")
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Layers   []map[string]any `json:"layers"`
		Stacks   []map[string]any `json:"stacks"`
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"file", "line", "library", "version", "kind", "attempts", "unbounded", "configured", "retries_4xx", "confidence"} {
		if _, ok := doc.Layers[0][k]; !ok {
			t.Errorf("layer JSON lacks %q", k)
		}
	}
	for _, l := range doc.Layers {
		if l["library"] == "SWR" && l["attempts"] != nil {
			t.Errorf("an unbounded layer's attempts must be null: %v", l)
		}
	}
	if _, ok := doc.Stacks[0]["layers"].([]any); !ok || doc.Stacks[0]["attempts"] != nil {
		t.Errorf("stack JSON %v: indices, and null attempts when unbounded", doc.Stacks[0])
	}
	for _, k := range []string{"severity", "kind", "file", "line"} {
		if _, ok := doc.Findings[0][k]; !ok {
			t.Errorf("finding JSON lacks %q", k)
		}
	}
}

// TestSARIFShape holds the output to the parts of SARIF 2.1.0 code
// scanning requires: version, a driver with rules, each result's ruleId
// and ruleIndex naming one rule, a level of the schema's enum, and a
// physical location with a relative URI and a startLine ≥ 1.
func TestSARIFShape(t *testing.T) {
	r := scan(t, "testdata/seed000")
	var buf bytes.Buffer
	if err := r.WriteSARIF(&buf, "test"); err != nil {
		t.Fatal(err)
	}
	var doc sarifLog
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2.1.0" || len(doc.Runs) != 1 || doc.Runs[0].Tool.Driver.Name == "" {
		t.Fatalf("header %+v", doc)
	}
	run := doc.Runs[0]
	if len(run.Results) != len(r.Findings) {
		t.Errorf("%d results for %d findings", len(run.Results), len(r.Findings))
	}
	levels := map[string]bool{"none": true, "note": true, "warning": true, "error": true}
	sawProduct := false
	for _, res := range run.Results {
		if res.RuleIndex < 0 || res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %+v: ruleIndex does not name its rule", res)
		}
		if !levels[res.Level] || res.Message.Text == "" || len(res.Locations) != 1 {
			t.Errorf("result %+v", res)
		}
		loc := res.Locations[0].PhysicalLocation
		if loc.Region.StartLine < 1 || filepath.IsAbs(loc.ArtifactLocation.URI) || loc.ArtifactLocation.URI == "" {
			t.Errorf("location %+v", loc)
		}
		sawProduct = sawProduct || strings.Contains(res.Message.Text, "retried 7 × 3 × 3 = 63 times")
	}
	if !sawProduct {
		t.Error("no result says the call is retried 7 × 3 × 3 = 63 times")
	}
}

func TestEveryRowCitesItsSource(t *testing.T) {
	ids := map[string]bool{}
	for _, d := range Defaults {
		if ids[d.ID] {
			t.Errorf("duplicate row %s", d.ID)
		}
		ids[d.ID] = true
		if d.Source == "" || d.Versions == "" || d.Knob == "" || d.RetriesOn == "" {
			t.Errorf("row %s lacks its source, versions, knob or what it retries", d.ID)
		}
		if !strings.Contains(d.Source, "@") && !strings.Contains(d.Source, " v") && !strings.Contains(d.Source, "documentation") {
			t.Errorf("row %s: cite the commit or version read (%q)", d.ID, d.Source)
		}
		if d.Unbounded == (d.Attempts > 0) {
			t.Errorf("row %s: attempts %d and unbounded %v disagree", d.ID, d.Attempts, d.Unbounded)
		}
		if d.Semantics != CountsRetries && d.Semantics != CountsAttempts {
			t.Errorf("row %s: say whether its knob counts retries or attempts", d.ID)
		}
		if _, err := budgetLayer(Layer{DefaultID: d.ID, Attempts: max(d.Attempts, 1), Backoff: d.BudgetBackoff}); err != nil {
			t.Errorf("row %s: its schedule does not fold: %v", d.ID, err)
		}
	}
	if d, _ := Lookup("botocore"); d.AttemptsFor(2) != 3 {
		t.Error("boto3 retries={'max_attempts': 2} is 3 attempts")
	}
	if d, _ := Lookup("bullmq"); d.AttemptsFor(7) != 7 {
		t.Error("BullMQ attempts: 7 is 7 attempts")
	}
}

func TestIstioDefaultAndDisabled(t *testing.T) {
	for _, c := range []struct {
		retries  string
		attempts int
		layer    bool
	}{{"", 3, true}, {"      retries:\n        attempts: 0\n", 1, true}} {
		dir := t.TempDir()
		vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: api\nspec:\n  hosts: [api]\n  http:\n    - route:\n        - destination:\n            host: api\n" + c.retries
		if err := os.WriteFile(filepath.Join(dir, "vs.yaml"), []byte(vs), 0o644); err != nil {
			t.Fatal(err)
		}
		r := scan(t, dir)
		if len(r.Layers) != 1 || r.Layers[0].Attempts != c.attempts || r.Layers[0].Configured == (c.retries == "") {
			t.Errorf("retries %q: layers %v", c.retries, layersOf(r))
		}
	}
}

// TestIstioRetryOnA4xx: a route whose retryOn names retriable-4xx or a
// 4xx code retries a client error — with the mesh's default attempts when
// it sets none — and is critical on top of the SDK's own retries; 503 and
// 429 alone are not.
func TestIstioRetryOnA4xx(t *testing.T) {
	for _, c := range []struct {
		retries  string
		attempts int
		r4xx     bool
	}{
		{"      retries:\n        retryOn: 5xx,retriable-4xx\n", 3, true},
		{"      retries:\n        attempts: 4\n        retryOn: connect-failure,400\n", 5, true},
		{"      retries:\n        attempts: 4\n        retryOn: 503,429,reset\n", 5, false},
		{"      retries:\n        attempts: 0\n        retryOn: retriable-4xx\n", 1, false},
	} {
		dir := t.TempDir()
		vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: api\nspec:\n  hosts: [api]\n  http:\n    - route:\n        - destination:\n            host: api\n" + c.retries
		if err := os.WriteFile(filepath.Join(dir, "vs.yaml"), []byte(vs), 0o644); err != nil {
			t.Fatal(err)
		}
		r := scan(t, dir)
		if len(r.Layers) != 1 || r.Layers[0].Attempts != c.attempts || r.Layers[0].Retries4xx != c.r4xx {
			t.Errorf("retries %q: layers %+v", c.retries, r.Layers)
		}
	}
}

// TestNginxDirectivesOnOneLine: red team of issue 26 — nginx directives
// that share a line ("upstream up { server a:80; server b:80; server
// c:80; }", "proxy_pass http://up; proxy_next_upstream …;") were not read,
// and http_4xx in proxy_next_upstream was not taken for retrying a 4xx.
func TestNginxDirectivesOnOneLine(t *testing.T) {
	dir := t.TempDir()
	conf := "http {\n  upstream up { server a:80; server b:80; server c:80; }\n  server {\n    location / { proxy_pass http://up; proxy_next_upstream error timeout http_404; }\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	r := scan(t, dir)
	if len(r.Layers) != 1 || r.Layers[0].Attempts != 3 || !r.Layers[0].Retries4xx {
		t.Fatalf("layers %+v: want one nginx layer of 3 attempts that retries a 4xx", layersOf(r))
	}
}

// A repository of several projects: each file's version comes from the
// nearest lockfile or manifest up the tree. The layout follows
// langchain-ai/langchainjs (a pnpm/yarn workspace beside examples with
// their own lockfiles) and the lockfile shapes pnpm v9 (importers keyed by
// directory), yarn v1, npm v3, Poetry and uv write.
func TestVersionsResolvePerProject(t *testing.T) {
	r := scan(t, "testdata/monorepo")
	want := map[string]string{
		"py-poetry/llm.py":      "0.40.0",
		"py-uv/llm.py":          "0.41.0", // not Poetry's
		"tools/client.ts":       "0.27.0", // the root's own lockfile
		"web-npm/client.ts":     "0.30.1",
		"web-yarn/client.ts":    "0.30.3",         // not npm's
		"ws/apps/bot/client.ts": "0.32.1",         // the pnpm importer apps/bot of ws/pnpm-lock.yaml
		"ws/apps/old/client.ts": "range ^0.120.0", // the root's 0.27.0 is another release line
	}
	if len(r.Layers) != len(want) {
		t.Fatalf("layers %v", layersOf(r))
	}
	for _, l := range r.Layers {
		if l.Version != want[l.File] {
			t.Errorf("%s: version %q, want %q", l.File, l.Version, want[l.File])
		}
	}
	for range 5 { // the same answer every run: no map-order dependence
		again := scan(t, "testdata/monorepo")
		for i := range again.Layers {
			if again.Layers[i].Version != r.Layers[i].Version {
				t.Fatalf("run-to-run difference at %s", r.Layers[i].File)
			}
		}
	}
}

// instructor: from_openai()'s create retries 3 times by default (the layer
// nobody set), every exception included, each a full round of the SDK's
// own; the legacy instructor.patch(client) defaults to 1. Shapes from
// instructor-ai/instructor's README and docs/concepts/retrying.md: a
// response_model create through from_openai / from_anthropic / patch.
func TestInstructorDefaultIsThreeTimesTheSDK(t *testing.T) {
	r := scan(t, "testdata/instructor")
	sameLayers(t, r, []want{
		{"app/extract.py:11", "openai-python", 3, false},
		{"app/extract.py:12", "openai-python", 3, false},
		{"app/extract.py:16", "instructor", 3, false}, // the create with response_model, nothing set
		{"app/legacy.py:10", "openai-python", 1, true},
		{"app/legacy.py:14", "instructor", 1, false}, // instructor.patch's default
		{"app/tuned.py:10", "anthropic-python", 3, false},
		{"app/tuned.py:14", "instructor", 2, true},
	})
	for _, l := range r.Layers {
		if l.DefaultID == "instructor" && !l.Retries4xx {
			t.Errorf("%s:%d instructor re-sends every exception, a 400 included", l.File, l.Line)
		}
	}
	if len(r.Stacks) != 1 || r.Stacks[0].Attempts != 9 {
		t.Fatalf("stacks %+v, want instructor 3 × SDK 3 = 9", r.Stacks)
	}
}

// LangChain.js: every chat model and embeddings class retries through
// @langchain/core's AsyncCaller (maxRetries ?? 6: 7 attempts), the SDK
// under it set to 0. The shapes follow sankett13/Intelligent-Support-Ticket-System
// @f515000274af (require'd ChatGoogleGenerativeAI and
// GoogleGenerativeAIEmbeddings with no options, a BullMQ add with
// attempts: 3): hand-checked, 3 × 7 = 21 is over the threshold.
func TestLangChainJSModelsRetrySixTimes(t *testing.T) {
	r := scan(t, "testdata/langchainjs")
	sameLayers(t, r, []want{
		{"src/ai/draft.ts:5", "langchainjs-asynccaller", 2, true},
		{"src/ai/embeddings.js:3", "langchainjs-asynccaller", 7, false},
		{"src/ai/llm.js:3", "langchainjs-asynccaller", 7, false},
		{"src/routes/message.route.js:8", "bullmq", 3, true},
	})
	if len(r.Stacks) != 1 || r.Stacks[0].Attempts != 21 {
		t.Fatalf("stacks %+v, want BullMQ 3 × AsyncCaller 7 = 21", r.Stacks)
	}
	over := false
	for _, f := range r.Findings {
		over = over || f.Kind == FindingOverBudget
	}
	if !over {
		t.Error("21 attempts is over the threshold of 10: a warning")
	}
	for _, l := range r.Layers {
		if l.DefaultID == "langchainjs-asynccaller" && l.Retries4xx {
			t.Errorf("%s: the AsyncCaller does not retry 400–407 or 409", l.File)
		}
	}
}

// Python LangChain chat models are layers whether or not max_retries is
// written, and a with_retry applies to the model it wraps, not to the
// worst SDK of the code. Shapes from langchain-ai/langchain's docs and
// typical apps ((prompt | model).with_retry(stop_after_attempt=2)) and
// the provider packages' constructors (langchain-google, langchain-aws).
func TestLangChainPythonModelsAndWhatWithRetryWraps(t *testing.T) {
	r := scan(t, "testdata/lcpy")
	sameLayers(t, r, []want{
		{"chains/review.py:6", "anthropic-python", 3, false}, // ChatAnthropic(): the SDK's 2 retries
		{"chains/review.py:7", "openai-python", 6, true},
		{"chains/review.py:8", "langchain-with-retry", 2, true},
		{"models/providers.py:5", "google-genai", 6, false}, // ChatGoogleGenerativeAI's max_retries=6
		{"models/providers.py:6", "langchain-vertexai", 2, true},
		{"models/providers.py:7", "botocore", 5, false},
	})
	if len(r.Stacks) != 1 {
		t.Fatalf("stacks %+v", r.Stacks)
	}
	st := r.Stacks[0]
	if st.Product != "2 × 3 = 6" || !strings.Contains(st.Note, "wraps Anthropic Python SDK (chains/review.py:6)") {
		t.Errorf("with_retry wraps ChatAnthropic: got %q (%s)", st.Product, st.Note)
	}
	for _, f := range r.Findings {
		if f.Kind == FindingOverBudget {
			t.Errorf("2 × 3 = 6 is under the threshold; ChatOpenAI's 6 is another model: %s", f.Message)
		}
	}

	// A wrapper whose model is not known keeps the worst SDK and says so.
	dir := t.TempDir()
	write(t, filepath.Join(dir, "chain.py"), []byte("from langchain_openai import ChatOpenAI\nfrom app.models import build\n\nfast = ChatOpenAI(max_retries=5)\nchain = build().with_retry(stop_after_attempt=2)\n"))
	r = scan(t, dir)
	if len(r.Stacks) != 1 || r.Stacks[0].Attempts != 12 || !strings.Contains(r.Stacks[0].Note, "not known") {
		t.Fatalf("unknown wrapped model: %+v", r.Stacks)
	}
}

// BullMQ options that are not a literal: a fallback (opts?.attempts || 3,
// the shape of sankett13/Intelligent-Support-Ticket-System's job helpers
// and many BullMQ wrappers) is its literal, and a constant exported from
// another file (defaultJobOptions: DEFAULT_JOB_OPTIONS, as BullMQ's docs
// and taskforcesh/bullmq's examples share job options) is resolved; a
// constant no file defines stays a layer of unknown value, at low
// confidence. Set.add(…) is not a queue.
func TestBullMQOptionsFromFallbacksAndConstants(t *testing.T) {
	r := scan(t, "testdata/bullconst")
	sameLayers(t, r, []want{
		{"src/jobs/enqueue.js:6", "bullmq", 3, true},
		{"src/jobs/enqueue.js:14", "bullmq", 2, true},
		{"src/queues/index.ts:5", "bullmq", 5, true},
		{"src/queues/index.ts:6", "bullmq", 1, true},
	})
	conf := map[string]Confidence{}
	for _, l := range r.Layers {
		conf[fmt.Sprintf("%s:%d", l.File, l.Line)] = l.Confidence
		if l.Line == 5 && l.Backoff != "exp:5000ms" {
			t.Errorf("the constant's backoff: %q", l.Backoff)
		}
	}
	if conf["src/jobs/enqueue.js:6"] != ConfidenceMedium || conf["src/queues/index.ts:5"] != ConfidenceMedium || conf["src/queues/index.ts:6"] != ConfidenceLow {
		t.Errorf("confidences %v", conf)
	}
}

// proxy_next_upstream http_429 sends a rate-limited request to the next
// server: a retryable status, not a 400's kind. Only http_403 and
// http_404 are non-retryable 4xx (the conditions nginx's
// ngx_http_proxy_module takes; the shape of an LLM gateway's location
// block as LiteLLM's and vLLM's deployment docs write it).
func TestNginx429IsNotANonRetryable4xx(t *testing.T) {
	for conds, want := range map[string]bool{
		"error timeout http_429 http_502 http_503 http_504": false,
		"error timeout http_500 non_idempotent":             false,
		"error timeout http_403 http_429":                   true,
		"http_404":                                          true,
	} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "nginx.conf"), []byte("http {\n  upstream llm { server a:4000; server b:4000; }\n  server {\n    location /v1/ {\n      proxy_pass http://llm;\n      proxy_next_upstream "+conds+";\n    }\n  }\n}\n"))
		r := scan(t, dir)
		if len(r.Layers) != 1 || r.Layers[0].Retries4xx != want {
			t.Errorf("%s: layers %+v, retries a non-retryable 4xx: want %v", conds, layersOf(r), want)
		}
		for _, f := range r.Findings {
			if f.Kind == FindingRetries4xx && !want {
				t.Errorf("%s: %s", conds, f.Message)
			}
		}
	}
}

// The nesting rule: nginx (a proxy in front of the handler) is outside the
// queue; an Istio sidecar is on the worker's outbound path — a Kubernetes
// Job's pod calls out through it — so it is inside the Job, innermost. The
// infra fixture follows a Helm-rendered Job beside an Istio VirtualService
// for an LLM gateway (istio/istio's samples, the shape of LiteLLM's chart).
func TestMeshIsInsideTheQueueAProxyOutside(t *testing.T) {
	r := scan(t, "testdata/infra")
	var kinds []Kind
	for _, st := range r.Stacks {
		if st.Group != "config" {
			continue
		}
		for _, i := range st.Layers {
			kinds = append(kinds, r.Layers[i].Kind)
		}
	}
	if fmt.Sprint(kinds) != fmt.Sprint([]Kind{KindProxy, KindQueue, KindMesh}) {
		t.Errorf("config path nests %v, want proxy → queue → mesh", kinds)
	}
}

// ingress-nginx retries through annotations, in a Helm chart's
// values.yaml (ingress.annotations, the shape of the charts
// `helm create` writes and LiteLLM's chart) and in Ingress manifests; an
// Ingress of the nginx class with none still tries 3 pods (the
// controller's default, kubernetes/ingress-nginx config.go), "off" is no
// layer, and another class's Ingress is not nginx's.
func TestIngressNginxAnnotations(t *testing.T) {
	r := scan(t, "testdata/ingress")
	sameLayers(t, r, []want{
		{"chart/values.yaml:11", "ingress-nginx", 5, true},
		{"deploy/ingress.yaml:6", "ingress-nginx", 3, true},
		{"deploy/ingress.yaml:19", "ingress-nginx", 3, false},
	})
	for _, l := range r.Layers {
		if want := l.File == "chart/values.yaml"; l.Retries4xx != want {
			t.Errorf("%s:%d retries a 404 to the next pod: %v, want %v", l.File, l.Line, l.Retries4xx, want)
		}
	}
}
