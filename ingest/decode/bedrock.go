package decode

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Amazon Bedrock batch inference output: s3://…/<job id>/<input>.jsonl.out,
// one record per input record, {recordId, modelInput, modelOutput} or
// {recordId, modelInput, error:{errorCode, errorMessage}}. modelOutput is
// the model's own response body: Anthropic's Messages (model, usage
// {input_tokens, output_tokens, cache_*}), Titan Text (inputTextTokenCount,
// results[].tokenCount), Meta Llama (prompt_token_count,
// generation_token_count), Nova / Converse (usage {inputTokens,
// outputTokens}). Only Anthropic's names the model; the others are
// unpriced unless the job's model is known some other way.
//
// Every record is a call of the batch job — the file's name, its input
// file's — at batch rates (Bedrock bills batch inference at half the
// on-demand price; the price table's batch rate where it has one). A
// record with an error is a failed attempt, not billed. recordId is the
// record's key, so the same output read twice is billed once.

type bedrockRecord struct {
	RecordID    string          `json:"recordId"`
	ModelInput  json.RawMessage `json:"modelInput"`
	ModelOutput *struct {
		Model string      `json:"model"`
		Usage *batchUsage `json:"usage"`
		// Titan Text
		InputTextTokenCount *tokenCount `json:"inputTextTokenCount"`
		Results             []struct {
			TokenCount tokenCount `json:"tokenCount"`
		} `json:"results"`
		// Meta Llama
		PromptTokenCount     *tokenCount `json:"prompt_token_count"`
		GenerationTokenCount tokenCount  `json:"generation_token_count"`
	} `json:"modelOutput"`
	Error *struct {
		Code    json.RawMessage `json:"errorCode"`
		Message string          `json:"errorMessage"`
	} `json:"error"`
}

// converseUsage is Nova's / Converse's usage spelling.
type converseUsage struct {
	Usage *struct {
		InputTokens           tokenCount `json:"inputTokens"`
		OutputTokens          tokenCount `json:"outputTokens"`
		CacheReadInputTokens  tokenCount `json:"cacheReadInputTokens"`
		CacheWriteInputTokens tokenCount `json:"cacheWriteInputTokens"`
	} `json:"usage"`
}

type bedrockBatchDecoder struct {
	p   *Parser
	ev  ingest.Event
	job string
}

func newBedrockBatchDecoder(p *Parser, source string) *bedrockBatchDecoder {
	d := &bedrockBatchDecoder{p: p, job: "bedrock-batch"}
	if source != "" && source != "-" {
		d.job = strings.TrimSuffix(filepath.Base(source), ".out")
	}
	return d
}

func (d *bedrockBatchDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	var r bedrockRecord
	if s := decodeStrict(line, &r); s != ingest.Accepted {
		return s
	}
	if r.ModelOutput == nil && r.Error == nil {
		return ingest.SkipNoEvent // an input record: not run yet
	}
	ev := &d.ev
	ev.Reset()
	ev.Kind, ev.Batch, ev.Provider = ingest.KindLLMCall, true, "bedrock"
	ev.JobID = CleanID(d.job)
	if r.RecordID != "" {
		ev.IdempotencyKey = CleanID("bedrock-batch:" + d.job + ":" + r.RecordID)
	}
	ev.TS, ev.TSCarried = d.p.lastTS, true
	if r.Error != nil {
		var code int
		if json.Unmarshal(r.Error.Code, &code) == nil && code >= 100 && code <= 599 {
			ev.Status = int16(code)
		}
		ev.ErrorType = CleanField(firstLine(r.Error.Message, 120))
		emit(ev)
		return ingest.Accepted
	}
	o := r.ModelOutput
	ev.Status = 200
	ev.Model = CleanField(o.Model)
	switch {
	case o.Usage.present():
		if !o.Usage.apply(ev) {
			// A negative count: dropped, and the call's usage unknown.
			unreadBatchUsage(ev)
			ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens = 0, 0, 0, 0
		}
	case o.InputTextTokenCount != nil:
		ev.InputTokens = bedrockCount(ev, *o.InputTextTokenCount)
		for _, res := range o.Results {
			ev.OutputTokens = satAdd(ev.OutputTokens, bedrockCount(ev, res.TokenCount))
		}
	case o.PromptTokenCount != nil:
		ev.InputTokens, ev.OutputTokens = bedrockCount(ev, *o.PromptTokenCount), bedrockCount(ev, o.GenerationTokenCount)
	default:
		var c converseUsage
		if s := decodeStrict(line, &struct {
			ModelOutput *converseUsage `json:"modelOutput"`
		}{&c}); s == ingest.Accepted && c.Usage != nil {
			u := c.Usage
			ev.InputTokens, ev.OutputTokens = bedrockCount(ev, u.InputTokens), bedrockCount(ev, u.OutputTokens)
			ev.CacheReadTokens, ev.CacheCreateTokens = bedrockCount(ev, u.CacheReadInputTokens), bedrockCount(ev, u.CacheWriteInputTokens)
		}
	}
	emit(ev)
	return ingest.Accepted
}

// bedrockCount is c, at least 0; a count that did not read makes ev's
// usage known in part (a floor).
func bedrockCount(ev *ingest.Event, c tokenCount) int64 {
	n, ok := c.get()
	if !ok {
		unreadBatchUsage(ev)
	}
	return max(0, n)
}
