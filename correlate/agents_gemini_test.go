package correlate_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Gemini CLI chat recordings below are written the way gemini-cli's
// ChatRecordingService writes them (google-gemini/gemini-cli
// packages/core/src/services/chatRecordingService.ts and
// chatRecordingTypes.ts at 5411f113cafae26161b4969b0237b8e1e024e2c2):
// initialize() appends the metadata line; recordMessage() appends a
// "gemini" message with tokens:null; recordMessageTokens() appends it
// again with its tokens; recordToolCalls() again with its toolCalls;
// updateMetadata() appends {"$set":{…}}, with the whole messages list
// from updateMessagesFromHistory(); rewindTo() appends {"$rewindTo":id}.
// The files are this test's own, field for field in that shape.

const geminiMeta = `{"sessionId":"7c1e0f4a-1111-4222-8333-944455556666","projectHash":"abc123","startTime":"2026-05-01T10:00:00.000Z","lastUpdated":"2026-05-01T10:00:00.000Z","kind":"main"}`

func geminiUser(id, ts string) string {
	return `{"id":"` + id + `","timestamp":"` + ts + `","type":"user","content":[{"text":"list files"}]}`
}

// geminiModel is a "gemini" message; tokens "" writes tokens:null (the
// copy recordMessage appends before the usage arrives).
func geminiModel(id, ts, tokens, extra string) string {
	if tokens == "" {
		tokens = "null"
	}
	return `{"id":"` + id + `","timestamp":"` + ts + `","type":"gemini","content":"","displayContent":null,"thoughts":[],"tokens":` + tokens + `,"model":"gemini-2.5-pro"` + extra + `}`
}

const (
	geminiTok1  = `{"input":12000,"output":150,"cached":0,"thoughts":300,"tool":0,"total":12450}`
	geminiTok2  = `{"input":13000,"output":400,"cached":11000,"thoughts":120,"tool":0,"total":13520}`
	geminiTools = `,"toolCalls":[{"id":"t1","name":"list_directory","args":{"path":"."},"status":"success","timestamp":"2026-05-01T10:00:03.500Z"}]`
)

// geminiTwoCalls: two model responses, each written three or four times,
// and a $set checkpoint repeating both. Billed: 25,000 input (11,000 of
// it cached), 150+300+400+120 = 970 output with thoughts, at
// gemini-2.5-pro's $1.25/M input, $0.125/M cached, $10/M output.
var geminiTwoCalls = []string{
	geminiMeta,
	geminiUser("u1", "2026-05-01T10:00:01.000Z"),
	`{"$set":{"lastUpdated":"2026-05-01T10:00:01.000Z"}}`,
	geminiModel("g1", "2026-05-01T10:00:03.000Z", "", ""),
	`{"$set":{"lastUpdated":"2026-05-01T10:00:03.000Z"}}`,
	geminiModel("g1", "2026-05-01T10:00:03.000Z", geminiTok1, ""),
	geminiModel("g1", "2026-05-01T10:00:03.000Z", geminiTok1, geminiTools),
	geminiModel("g2", "2026-05-01T10:00:06.000Z", "", ""),
	`{"$set":{"lastUpdated":"2026-05-01T10:00:06.000Z"}}`,
	geminiModel("g2", "2026-05-01T10:00:06.000Z", geminiTok2, ""),
	`{"$set":{"messages":[` + geminiUser("u1", "2026-05-01T10:00:01.000Z") + `,` + geminiModel("g1", "2026-05-01T10:00:03.000Z", geminiTok1, geminiTools) + `,` +
		geminiModel("g2", "2026-05-01T10:00:06.000Z", geminiTok2, "") + `],"lastUpdated":"2026-05-01T10:00:07.000Z"}}`,
}

const geminiTwoCallsUSD = (14000*1.25 + 11000*0.125 + 970*10) / 1e6 // $0.028575

func writeGeminiChat(t *testing.T, dir, name string, lines []string) string {
	t.Helper()
	chats := filepath.Join(dir, "tmp", "abc123", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(chats, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentsGeminiJSONLChatIsBilledOnce: current Gemini CLI writes its
// chats as session-*.jsonl, each message appended again whenever it
// changes. Read as plain JSON lines, the file gave 5 attempts of unknown
// status, $0 and a failed job; it is two calls, $0.028575.
func TestAgentsGeminiJSONLChatIsBilledOnce(t *testing.T) {
	dir := t.TempDir()
	p := writeGeminiChat(t, dir, "session-2026-05-01T10-00-7c1e0f4a.jsonl", geminiTwoCalls)
	_, r := readAgentFiles(t, dir)
	tt := r.Totals
	if formatsRead[p] != "gemini-cli" || tt.Attempts != 2 || tt.InputTokens+tt.CacheReadTokens != 25000 || tt.CacheReadTokens != 11000 ||
		tt.OutputTokens != 970 || math.Abs(tt.SpendUSD-geminiTwoCallsUSD) > 1e-9 || tt.FailedJobs != 0 || tt.Jobs != 1 {
		t.Errorf("read as %s: %d jobs (%d failed), %d calls, input %d (cached %d), output %d, $%.6f; want gemini-cli, 1 job, 2 calls, 25000 (11000), 970, $%.6f",
			formatsRead[p], tt.Jobs, tt.FailedJobs, tt.Attempts, tt.InputTokens+tt.CacheReadTokens, tt.CacheReadTokens, tt.OutputTokens, tt.SpendUSD, geminiTwoCallsUSD)
	}
	for _, f := range r.Findings {
		t.Errorf("raised %s: %s", f.Kind, f.Example)
	}
}

// TestAgentsGeminiResumedLegacyChatIsBilledOnce: resuming a session saved
// as session-*.json, Gemini CLI copies its every message into a .jsonl
// of the same name beside it and goes on there; both files are read
// (a directory run), and the copied calls must not be billed twice.
func TestAgentsGeminiResumedLegacyChatIsBilledOnce(t *testing.T) {
	dir := t.TempDir()
	legacy := `{"sessionId":"7c1e0f4a-1111-4222-8333-944455556666","projectHash":"abc123","startTime":"2026-05-01T10:00:00.000Z","lastUpdated":"2026-05-01T10:00:07.000Z","messages":[` +
		geminiUser("u1", "2026-05-01T10:00:01.000Z") + `,` + geminiModel("g1", "2026-05-01T10:00:03.000Z", geminiTok1, geminiTools) + `,` +
		geminiModel("g2", "2026-05-01T10:00:06.000Z", geminiTok2, "") + `]}`
	writeGeminiChat(t, dir, "session-2026-05-01T10-00-7c1e0f4a.json", []string{legacy})
	// initialize(resumed): the metadata, each message, then $set sessionId; then one new call.
	resumed := []string{geminiMeta, geminiUser("u1", "2026-05-01T10:00:01.000Z"), geminiModel("g1", "2026-05-01T10:00:03.000Z", geminiTok1, geminiTools),
		geminiModel("g2", "2026-05-01T10:00:06.000Z", geminiTok2, ""), `{"$set":{"sessionId":"7c1e0f4a-1111-4222-8333-944455556666"}}`,
		geminiUser("u3", "2026-05-02T09:00:00.000Z"), geminiModel("g3", "2026-05-02T09:00:02.000Z", "", ""),
		geminiModel("g3", "2026-05-02T09:00:02.000Z", `{"input":20000,"output":100,"cached":0,"thoughts":0,"tool":0,"total":20100}`, "")}
	writeGeminiChat(t, dir, "session-2026-05-01T10-00-7c1e0f4a.jsonl", resumed)
	_, r := readAgentFiles(t, dir)
	want := geminiTwoCallsUSD + (20000*1.25+100*10)/1e6
	if tt := r.Totals; tt.Attempts != 3 || tt.Jobs != 1 || math.Abs(tt.SpendUSD-want) > 1e-9 {
		t.Errorf("a resumed session: %d jobs, %d calls, $%.6f; want 1 job, 3 calls, $%.6f", tt.Jobs, tt.Attempts, tt.SpendUSD, want)
	}
}

// TestAgentsGeminiRewoundCallsStayBilled: /rewind drops messages from the
// conversation Gemini shows ({"$rewindTo":id}), not from the bill: the
// rewound response was generated and paid for.
func TestAgentsGeminiRewoundCallsStayBilled(t *testing.T) {
	dir := t.TempDir()
	lines := append(append([]string{}, geminiTwoCalls...), `{"$rewindTo":"u1"}`,
		geminiUser("u4", "2026-05-01T10:01:00.000Z"), geminiModel("g4", "2026-05-01T10:01:02.000Z", "", ""),
		geminiModel("g4", "2026-05-01T10:01:02.000Z", `{"input":9000,"output":50,"cached":0,"thoughts":0,"tool":0,"total":9050}`, ""))
	writeGeminiChat(t, dir, "session-2026-05-01T10-00-7c1e0f4a.jsonl", lines)
	_, r := readAgentFiles(t, dir)
	want := geminiTwoCallsUSD + (9000*1.25+50*10)/1e6
	if tt := r.Totals; tt.Attempts != 3 || math.Abs(tt.SpendUSD-want) > 1e-9 {
		t.Errorf("after a rewind: %d calls, $%.6f; want all 3 calls made, $%.6f", tt.Attempts, tt.SpendUSD, want)
	}
}

// TestAgentsGeminiSubagentBillsItsSession: gemini-cli writes a subagent's
// chat to chats/<parent session ID>/<its session ID>.jsonl (initialize()
// with kind "subagent"): its calls are the parent session's job, so that
// a session's ceiling sees what its subagents spend.
func TestAgentsGeminiSubagentBillsItsSession(t *testing.T) {
	dir := t.TempDir()
	writeGeminiChat(t, dir, "session-2026-05-01T10-00-7c1e0f4a.jsonl", geminiTwoCalls)
	sub := filepath.Join(dir, "tmp", "abc123", "chats", "7c1e0f4a-1111-4222-8333-944455556666")
	os.MkdirAll(sub, 0o755)
	lines := []string{`{"sessionId":"5d2a0000-0000-4000-8000-000000000009","projectHash":"abc123","startTime":"2026-05-01T10:00:04.000Z","lastUpdated":"2026-05-01T10:00:04.000Z","kind":"subagent","directories":["/home/u/proj"]}`,
		geminiModel("s1", "2026-05-01T10:00:05.000Z", "", ""),
		geminiModel("s1", "2026-05-01T10:00:05.000Z", `{"input":9000,"output":50,"cached":0,"thoughts":0,"tool":0,"total":9050}`, "")}
	os.WriteFile(filepath.Join(sub, "5d2a0000-0000-4000-8000-000000000009.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	_, r := readAgentFiles(t, dir)
	if len(r.Jobs) != 1 || r.Jobs[0].JobID != "7c1e0f4a-1111-4222-8333-944455556666" || r.Jobs[0].Attempts != 3 {
		t.Errorf("jobs %d (first %+v): want the parent session's one job of 3 calls", len(r.Jobs), r.Jobs)
	}
}
