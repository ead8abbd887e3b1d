package audit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Coding agents whose settings a repository carries: Claude Code, Codex.

// claudeCode reads .claude/settings.json's env block for
// CLAUDE_CODE_MAX_RETRIES; without it, Claude Code's own default applies
// to the sessions this repository configures.
func claudeCode(f *file) []Layer {
	rel, raw := f.rel, f.raw
	var s struct {
		Env map[string]any `json:"env"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		f.fail(err)
		return nil
	}
	l := newLayer("claude-code", rel, 1, "agent", ConfidenceLow)
	if v, ok := s.Env["CLAUDE_CODE_MAX_RETRIES"]; ok {
		l.Confidence = ConfidenceHigh
		if i := bytes.Index(raw, []byte("CLAUDE_CODE_MAX_RETRIES")); i >= 0 {
			l.Line = newLines(raw).at(i)
		}
		written := "CLAUDE_CODE_MAX_RETRIES=" + strings.Trim(strings.TrimSpace(toString(v)), `"`)
		if n, err := strconv.Atoi(strings.Trim(toString(v), `"`)); err == nil && n >= 0 && n <= 1_000_000 {
			l.set(n, written)
		} else {
			l.setUnknown(written)
		}
	} else {
		l.Note = "a settings file without CLAUDE_CODE_MAX_RETRIES: Claude Code's default applies (unless the environment sets it)"
	}
	return []Layer{l}
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// codex reads a .codex/config.toml's model providers:
// request_max_retries (4 unset) retries each request; the provider named
// by model_provider is the one in use, else the worst is shown.
func codex(f *file) []Layer {
	rel, raw := f.rel, f.raw
	var c struct {
		ModelProvider  string `toml:"model_provider"`
		ModelProviders map[string]struct {
			RequestMaxRetries *int64 `toml:"request_max_retries"`
			StreamMaxRetries  *int64 `toml:"stream_max_retries"`
		} `toml:"model_providers"`
	}
	if _, err := toml.Decode(string(raw), &c); err != nil {
		f.fail(err)
		return nil
	}
	ln := f.lines()
	l := newLayer("codex", rel, 1, "agent", ConfidenceLow)
	l.Note = "no request_max_retries here: Codex's default applies (unless ~/.codex/config.toml sets it)"
	best := int64(-1)
	name := ""
	for id, p := range c.ModelProviders {
		if p.RequestMaxRetries == nil || (c.ModelProvider != "" && id != c.ModelProvider && c.ModelProviders[c.ModelProvider].RequestMaxRetries != nil) {
			continue
		}
		if v := min(max(*p.RequestMaxRetries, 0), 100); v > best || (v == best && id < name) {
			best, name = v, id
		}
	}
	if best >= 0 {
		l.Confidence = ConfidenceHigh
		l.set(int(best), "model_providers."+name+".request_max_retries = "+strconv.FormatInt(best, 10))
		l.Note = "capped at 100 by Codex"
		from := bytes.Index(raw, []byte("[model_providers."+name+"]"))
		if i := bytes.Index(raw[max(from, 0):], []byte("request_max_retries")); i >= 0 {
			l.Line = ln.at(max(from, 0) + i)
		}
	}
	return []Layer{l}
}
