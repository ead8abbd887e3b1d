package decode

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Qwen Code (QwenLM/qwen-code, a fork of Gemini CLI) records its chats as
// ~/.qwen/projects/<project>/chats/<session id>.jsonl (QWEN_DATA_DIR
// moves ~/.qwen), appended: one ChatRecord a line (packages/core/src/
// services/chatRecordingService.ts) {uuid, parentUuid, sessionId,
// timestamp, type:"user"|"assistant"|"tool_result"|"system", subtype?,
// cwd, version, message (Gemini's Content), model?, usageMetadata?,
// isSidechain?, agentId?, forkedFrom?, systemPayload?}. An assistant
// record with usageMetadata is one model response; usageMetadata is
// Gemini's GenerateContentResponseUsageMetadata {promptTokenCount (cache
// included), candidatesTokenCount, thoughtsTokenCount (billed as output),
// cachedContentTokenCount, totalTokenCount}.
//
// A subagent's records are the session's own (isSidechain, agentId: its
// job is the session); a sub-session started by another names it in a
// system record (subtype "parent_session", systemPayload.parentSessionId)
// and bills that session's job from there on; /branch copies records
// verbatim, uuid and all, naming their source (forkedFrom.sessionId): a
// record is named by its uuid, and a copy is billed once, to the session
// that made the call, whichever file is read first.

type qwenRecord struct {
	UUID          string `json:"uuid"`
	SessionID     string `json:"sessionId"`
	Timestamp     string `json:"timestamp"`
	Type          string `json:"type"`
	Subtype       string `json:"subtype"`
	Model         string `json:"model"`
	UsageMetadata *struct {
		PromptTokenCount, CandidatesTokenCount, ThoughtsTokenCount, CachedContentTokenCount json.RawMessage
	} `json:"usageMetadata"`
	ForkedFrom *struct {
		SessionID string `json:"sessionId"`
	} `json:"forkedFrom"`
	SystemPayload *struct {
		ParentSessionID string `json:"parentSessionId"`
	} `json:"systemPayload"`
}

type qwenDecoder struct {
	p       *Parser
	ev      ingest.Event
	session string // from the file name, for a follower that starts past the first line
	parent  string
	project string
}

func newQwenDecoder(p *Parser, source string) *qwenDecoder {
	d := &qwenDecoder{p: p, session: "qwen-session"}
	if source != "" && source != "-" {
		d.session = strings.TrimSuffix(filepath.Base(source), ".jsonl")
		if dir := filepath.Dir(source); filepath.Base(dir) == "chats" {
			d.project = filepath.Base(filepath.Dir(dir))
		}
	}
	return d
}

func (d *qwenDecoder) Decode(rec []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var r qwenRecord
	if skip := decodeRecord(rec, &r); skip != ingest.Accepted {
		return skip
	}
	if r.Type == "system" && r.Subtype == "parent_session" && r.SystemPayload != nil && r.SystemPayload.ParentSessionID != "" {
		d.parent = r.SystemPayload.ParentSessionID
		return ingest.SkipInfo
	}
	if r.Type != "assistant" || r.UsageMetadata == nil {
		return ingest.SkipInfo
	}
	session := r.SessionID
	if session == "" {
		session = d.session
	}
	if d.parent != "" {
		session = d.parent
	}
	if f := r.ForkedFrom; f != nil && f.SessionID != "" {
		session = f.SessionID // a /branch copy: the call was the source session's
	}
	ev := &d.ev
	agentCall(ev, "qwen:"+session)
	ev.JobType = CleanField(d.project)
	ev.Model = CleanField(r.Model)
	setTSText(d.p, ev, r.Timestamp)
	u := r.UsageMetadata
	prompt, cached := jsonCount(ev, u.PromptTokenCount), jsonCount(ev, u.CachedContentTokenCount)
	ev.SetInclusiveInput(prompt, min(cached, prompt), 0)
	ev.OutputTokens = satAdd(jsonCount(ev, u.CandidatesTokenCount), jsonCount(ev, u.ThoughtsTokenCount))
	if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens == 0 {
		return ingest.SkipInfo
	}
	if r.UUID != "" {
		ev.ResponseID = CleanID("qwen\x00" + r.UUID)
		ev.IdempotencyKey = CleanID("qwen:" + r.UUID)
	}
	emit(ev)
	return ingest.Accepted
}
