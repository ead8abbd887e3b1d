package audit

import (
	"strings"
	"testing"
)

// TestShapesFromRealRepositories: the misses of the issue-37 recall check
// (docs/audit.md), each written anew as its own real-shaped code —
//   - a Go retry counted by hand in a message loop (retries++; if retries
//     >= cfg.MaxRetries { return err }; sleep; re-send), its bound a config
//     struct field whose yaml key a YAML file of the repository sets (4);
//     a frame counter beside it is not one;
//   - the Cohere Go client (Fern's retrier: 2 attempts unless set);
//   - SWR hooks with type arguments and from swr/infinite are layers; a
//     file that only calls useSWRConfig, or uses useSWR with a null fetcher
//     as a local store, is not;
//   - while loops that count failures in an except/catch up to a bound
//     (Python <= 2 from 0: 3 tries; JavaScript < 3: 3), where a loop
//     counting items is not;
//   - init_chat_model whose model is chosen at run time: the chat model's
//     SDK at low confidence; one naming a provider without retries (ollama)
//     is not;
//   - CrewAI: each Agent re-runs its task (max_retry_limit, 2 unless set:
//     3), and one given no llm or a model string has the SDK of the LLM
//     CrewAI builds; an llm object is its own layer where it is built
//     (LLM(model=…), ChatOpenAI(…)); a LiteLLM-routed model (ollama/…) is
//     not modelled;
//   - a loop bounded by a value chosen by a condition (1 if streaming else
//     6: the larger, 6); a loop over numbered tries (for attempt in (1,
//     2)); a call made again, the same way, in the handler of every error
//     (and once more in that handler's own: 3) — where a handler that
//     returns a fallback, or answers one named error (JSONDecodeError),
//     is not;
//   - the OpenAI Agents SDK's agents run on the AsyncOpenAI client it
//     builds at the SDK's default (one layer per file of agents) — when a
//     manifest names openai-agents (a package of one's own called agents
//     is not it: TestOwnAgentsPackageIsNotTheSDK);
//   - new Queue<Jobs["x"]>(…) (type arguments) with attempts from an
//     environment schema's default (zod: 2); exponential-backoff's
//     backOff (10 unless numOfAttempts; a bound named past the 60th byte
//     of its line resolved whole); a timeout handler that only counts a
//     metric the guarded block also counts is no watchdog (cleaner.ts);
//   - near misses from openai/openai-agents-python (procs.py): a process
//     waited for again after a kill, a serializer's fallback
//     (model_dump(mode="json"), then model_dump()), a keyword argument
//     that calls a function in both branches; an agent whose model= is an
//     object built there (FakeModel()), in a test or not.
func TestShapesFromRealRepositories(t *testing.T) {
	r := scan(t, "testdata/realshapes")
	sameLayers(t, r, []want{
		{"agent/chat.py:14", "hand-rolled", 6, true},
		{"agent/chat.py:26", "hand-rolled", 3, true},
		{"agent/chat.py:56", "hand-rolled", 2, true},
		{"agent/crew.py:4", "openai-python", 3, false},
		{"agent/crew.py:5", "openai-python", 2, true},
		{"agent/crew.py:7", "crewai-agent", 3, false},
		{"agent/crew.py:7", "openai-python", 3, false},
		{"agent/crew.py:8", "crewai-agent", 1, true},
		{"agent/crew.py:9", "crewai-agent", 3, false},
		{"agent/crew.py:10", "crewai-agent", 3, false},
		{"agent/crew.py:11", "anthropic-python", 3, false},
		{"agent/crew.py:11", "crewai-agent", 3, false},
		{"agent/report.py:9", "openai-python", 3, false},
		{"agent/report.py:16", "hand-rolled", 3, true},
		{"cli/ask.go:22", "anthropic-go", 3, false},
		{"cli/ask.go:22", "cohere-go", 2, false},
		{"cli/ask.go:33", "hand-rolled", 4, true},
		{"csagents/triage.py:3", "openai-python", 3, false},
		{"web/history.tsx:6", "swr", 0, false},
		{"web/queues.ts:9", "bullmq", 2, true},
		{"web/queues.ts:13", "exponential-backoff", 4, true},
		{"web/queues.ts:20", "exponential-backoff", 10, false},
		{"web/summarize.ts:3", "openai-node", 1, true},
		{"web/summarize.ts:8", "hand-rolled", 3, true},
		{"web/votes.tsx:6", "swr", 0, false},
	})
	for _, l := range r.Layers {
		switch {
		case l.File == "agent/report.py" && l.Line == 9 && (l.Confidence != ConfidenceLow || !strings.Contains(l.Note, "run time")):
			t.Errorf("a run-time model: %+v", l)
		case l.File == "cli/ask.go" && l.Line == 33 && !strings.Contains(l.Setting, "config key max-retries"):
			t.Errorf("the config key's value: %+v", l)
		}
	}
}

// TestOwnAgentsPackageIsNotTheSDK: `from agents import Agent` where agents
// is the repository's own package and no manifest names openai-agents.
func TestOwnAgentsPackageIsNotTheSDK(t *testing.T) {
	if r := scan(t, "testdata/ownagents"); len(r.Layers) != 0 {
		t.Errorf("layers %v", layersOf(r))
	}
}
