package mockprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// answer sends a successful response, streamed or not, and fills the
// entry's tokens and cost.
func (s *Server) answer(w http.ResponseWriter, kind api, req request, e *Entry, n int) {
	in, out, cr, cw := usage(e.Job, n, kind)
	e.Status = http.StatusOK
	e.InputTokens, e.OutputTokens, e.CacheReadTokens, e.CacheWriteTokens = in, out, cr, cw
	if res := s.Prices.Resolve(req.Model); res.Key != "" {
		e.CostPico = int64(res.Price.Cost(in, out, cr, cw))
	}
	s.idHeader(w, kind, e.RequestID)
	s.rateHeaders(w, kind, n, false)
	text := "Lab answer for " + e.Job + "."
	id := strings.TrimPrefix(e.RequestID, "req_")
	if !req.Stream {
		w.Header().Set("content-type", "application/json")
		var body any
		switch kind {
		case apiAnthropic:
			body = anthropicMessage(id, req.Model, text, in, out, cr, cw, true)
		case apiChat:
			body = chatCompletion(id, req.Model, text, in, out, cr)
		default:
			body = response(id, req.Model, text, in, out, cr, "completed")
		}
		b, _ := json.Marshal(body)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("content-type", "text/event-stream; charset=utf-8")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sse := func(event string, data any) {
		b, _ := json.Marshal(data)
		if event != "" {
			fmt.Fprintf(w, "event: %s\n", event)
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	words := strings.SplitAfter(text, " ")
	switch kind {
	case apiAnthropic:
		// The Messages stream: usage's input side in message_start, the
		// output count in message_delta (cumulative).
		sse("message_start", map[string]any{"type": "message_start", "message": anthropicMessage(id, req.Model, "", in, 1, cr, cw, false)})
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		sse("ping", map[string]any{"type": "ping"})
		for _, wd := range words {
			sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": wd}})
		}
		sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		sse("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": out}})
		sse("message_stop", map[string]any{"type": "message_stop"})
	case apiChat:
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 1767225600, "model": req.Model, "system_fingerprint": "fp_lab",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
		}
		sse("", chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil))
		for _, wd := range words {
			sse("", chunk(map[string]any{"content": wd}, nil))
		}
		sse("", chunk(map[string]any{}, "stop"))
		if req.StreamOptions.IncludeUsage {
			c := chatCompletion(id, req.Model, "", in, out, cr)
			sse("", map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 1767225600, "model": req.Model, "system_fingerprint": "fp_lab", "choices": []any{}, "usage": c["usage"]})
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	default:
		seq := 0
		ev := func(typ string, m map[string]any) {
			m["type"], m["sequence_number"] = typ, seq
			seq++
			sse(typ, m)
		}
		msgID := "msg_" + id
		ev("response.created", map[string]any{"response": response(id, req.Model, "", 0, 0, 0, "in_progress")})
		ev("response.in_progress", map[string]any{"response": response(id, req.Model, "", 0, 0, 0, "in_progress")})
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"id": msgID, "type": "message", "status": "in_progress", "content": []any{}, "role": "assistant"}})
		ev("response.content_part.added", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "annotations": []any{}, "text": ""}})
		for _, wd := range words {
			ev("response.output_text.delta", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "delta": wd})
		}
		ev("response.output_text.done", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "text": text})
		ev("response.content_part.done", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "annotations": []any{}, "text": text}})
		ev("response.output_item.done", map[string]any{"output_index": 0, "item": responseItem(msgID, text)})
		ev("response.completed", map[string]any{"response": response(id, req.Model, text, in, out, cr, "completed")})
	}
}

func anthropicMessage(id, model, text string, in, out, cr, cw int64, done bool) map[string]any {
	content := []any{}
	var stop any
	if done {
		content = append(content, map[string]any{"type": "text", "text": text})
		stop = "end_turn"
	}
	return map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr, "output_tokens": out,
			"cache_creation": map[string]any{"ephemeral_5m_input_tokens": cw, "ephemeral_1h_input_tokens": 0}, "service_tier": "standard"}}
}

// chatCompletion reports prompt_tokens with the cached tokens inside, as
// OpenAI does (prompt_tokens_details.cached_tokens is a part of it).
func chatCompletion(id, model, text string, in, out, cr int64) map[string]any {
	return map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "created": 1767225600, "model": model, "system_fingerprint": "fp_lab",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text, "refusal": nil, "annotations": []any{}}, "logprobs": nil, "finish_reason": "stop"}},
		"usage": map[string]any{"prompt_tokens": in + cr, "completion_tokens": out, "total_tokens": in + cr + out,
			"prompt_tokens_details":     map[string]any{"cached_tokens": cr, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}},
		"service_tier": "default"}
}

func responseItem(msgID, text string) map[string]any {
	return map[string]any{"id": msgID, "type": "message", "status": "completed", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": text}}}
}

func response(id, model, text string, in, out, cr int64, status string) map[string]any {
	r := map[string]any{"id": "resp_" + id, "object": "response", "created_at": 1767225600, "status": status, "model": model,
		"output": []any{}, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "usage": nil, "error": nil, "incomplete_details": nil}
	if status == "completed" {
		r["output"] = []any{responseItem("msg_"+id, text)}
		r["usage"] = map[string]any{"input_tokens": in + cr, "input_tokens_details": map[string]any{"cached_tokens": cr},
			"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + cr + out}
	}
	return r
}
