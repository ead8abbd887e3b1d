package decode

import (
	"encoding/json"
	"strings"
)

// The agents' formats of issue 35 are told by key sets an application's
// own JSON-lines log can also carry ({type, data, id, timestamp, parentId}
// for Copilot, {model, provider, promptTokens, generatedTokens} for
// Continue): a line counts for an agent's format only when its reader can
// read it (FormatInfo.Reads), the fields it needs of the types and values
// it knows. Any other line is the JSON-lines reader's, which reads an app's
// job, status and tokens; read as an agent's, they vanished or lost their
// job (red team, issue 35).

func topLevel(line []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return m
}

func rawObject(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	return topLevel(raw)
}

func rawString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func rawNumber(raw json.RawMessage) bool {
	var f float64
	return len(raw) > 0 && json.Unmarshal(raw, &f) == nil
}

// appLogKeys are canonical JSON-lines fields no agent's record here has
// at its top level (an OpenCode retry part has "attempt": not in it):
// a line carrying one is an application's.
var appLogKeys = []string{"job_id", "jobId", "status", "status_code", "event", "idempotency_key", "input_tokens", "output_tokens"}

func hasAppLogKey(m map[string]json.RawMessage) bool {
	for _, k := range appLogKeys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// copilotTypePrefixes are the families of Copilot CLI's event types
// (session.*, assistant.*, user.*, tool.*, system.*, subagent.*, hook.*,
// skill.*, abort).
var copilotTypePrefixes = []string{"session.", "assistant.", "user.", "tool.", "system.", "subagent.", "hook.", "skill.", "abort"}

func copilotReads(line []byte) bool {
	m := topLevel(line)
	if m == nil || hasAppLogKey(m) {
		return false
	}
	t, ok := rawString(m["type"])
	if !ok || rawObject(m["data"]) == nil && string(m["data"]) != "{}" {
		return false
	}
	for _, p := range copilotTypePrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

var piRoles = []string{"user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"}

func piReads(line []byte) bool {
	m := topLevel(line)
	if m == nil || hasAppLogKey(m) {
		return false
	}
	t, _ := rawString(m["type"])
	if t != "message" {
		return true // session, model_change, thinking_level_change: their keys were matched
	}
	msg := rawObject(m["message"])
	if msg == nil {
		return false
	}
	role, ok := rawString(msg["role"])
	if !ok {
		return false
	}
	for _, r := range piRoles {
		if r == role {
			if u, ok := msg["usage"]; ok && role == "assistant" {
				return rawObject(u) != nil
			}
			return true
		}
	}
	return false
}

func opencodeReads(line []byte) bool {
	m := topLevel(line)
	if m == nil || hasAppLogKey(m) {
		return false
	}
	if p, ok := m["part"]; ok {
		part := rawObject(p)
		if part == nil {
			return false
		}
		if _, ok := rawString(part["type"]); !ok {
			return false
		}
	}
	if r, ok := m["role"]; ok {
		role, _ := rawString(r)
		if role != "user" && role != "assistant" {
			return false
		}
	}
	if t, ok := m["tokens"]; ok && rawObject(t) == nil {
		return false
	}
	return true
}

// continueKeys: schema 0.1.0's fields and 0.2.0's base fields, no other.
var continueKeys = []string{"model", "provider", "promptTokens", "generatedTokens", "eventName", "schema", "createdAt", "userId", "userAgent", "selectedProfileId"}

func continueReads(line []byte) bool {
	m := topLevel(line)
	if m == nil {
		return false
	}
	for k := range m {
		known := false
		for _, c := range continueKeys {
			if k == c {
				known = true
				break
			}
		}
		if !known {
			return false
		}
	}
	_, okM := rawString(m["model"])
	_, okP := rawString(m["provider"])
	return okM && okP && rawNumber(m["promptTokens"]) && rawNumber(m["generatedTokens"])
}
