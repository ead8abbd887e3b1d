package file

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// jobsOf is each llm_call's job, in order.
func (r textRead) jobsOf() []string {
	var out []string
	for _, e := range r.events {
		if e.Kind == ingest.KindLLMCall {
			out = append(out, e.JobID)
		}
	}
	return out
}

// A JSON line of job j1 logged while an SDK retry waits does not move the
// retry into j1: the chain keeps its first attempt's job (none), and j1
// has its own one attempt.
func TestMixedFileRetryChainKeepsItsJob(t *testing.T) {
	for _, c := range []struct{ file, chainKey string }{
		{"mixed-node-json.log", "sdk:log_5e91a2"},
		{"mixed-python-json.log", "sdk::/messages:1"},
	} {
		t.Run(c.file, func(t *testing.T) {
			r := readText(t, textFixtures+c.file, decode.Options{})
			if r.it.Detected.Format != decode.FormatSDKText && r.it.Detected.Format != decode.FormatJSONL {
				t.Errorf("detected %+v", r.it.Detected)
			}
			var chain, j1 []string
			for _, e := range r.events {
				if e.Kind != ingest.KindLLMCall {
					continue
				}
				switch {
				case e.JobID == "j1":
					j1 = append(j1, e.IdempotencyKey)
				case e.JobID == "" && e.IdempotencyKey == c.chainKey:
					chain = append(chain, e.IdempotencyKey)
				default:
					t.Errorf("attempt %+v in neither the chain nor j1", e)
				}
			}
			wantOps(t, r, "529@1 200@2", "200@0")
			if len(chain) != 2 || len(j1) != 1 {
				t.Errorf("chain %q, j1 %q: want the chain's 2 attempts without a job and j1's own 1", chain, j1)
			}
			for _, e := range r.events {
				if e.JobID == "" && e.Model != "" {
					t.Errorf("the chain took j1's model %q", e.Model)
				}
			}
		})
	}
}

// Two anthropic-python requests to one endpoint in flight at once, each
// retried twice, their lines interleaved: the second request's first
// response came 63 ms after the first's "Retrying … in 0.78 seconds", so
// it cannot be that retry — two operations of 3 attempts, not one of 5.
func TestConcurrentPythonRequestsAreTwoChains(t *testing.T) {
	r := readText(t, textFixtures+"concurrent-anthropic-python.log", decode.Options{})
	wantOps(t, r, "529@1 529@2 200@3", "529@1 529@2 200@3")
	for _, e := range r.events {
		if e.AttemptBy == ingest.AttemptByLineAmbiguous {
			t.Errorf("%+v: which request each retry is cannot change a count here", e)
		}
	}
}

// openai-python: a request that succeeds and another that fails while the
// first request's retry waits; newer openai-python's retry line names no
// path ("Retrying request in …"): it is the endpoint of the response before.
func TestConcurrentOpenAIPythonRequests(t *testing.T) {
	r := readText(t, textFixtures+"concurrent-openai-python.log", decode.Options{})
	wantOps(t, r, "429@1 200@2", "200@1", "429@1 200@2")
}
