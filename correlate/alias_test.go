package correlate_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/report"
)

// aliasLine rewrites one canonical line into the field names other loggers
// use, choosing the variant by line number so every alias is exercised.
func aliasLine(t *testing.T, n int, in map[string]any) map[string]any {
	out := map[string]any{}
	pick := func(options ...string) string { return options[n%len(options)] }
	headers := map[string]any{}
	for k, v := range in {
		switch k {
		case "ts":
			ts, err := time.Parse(time.RFC3339Nano, v.(string))
			if err != nil {
				t.Fatal(err)
			}
			switch n % 6 {
			case 0:
				out["time"] = v
			case 1:
				out["@timestamp"] = ts.Format("2006-01-02T15:04:05.000-07:00")
			case 2:
				out["timestamp"] = ts.UnixMilli()
			case 3:
				out["ts"] = float64(ts.UnixMilli()) / 1000 // seconds with a fraction
			case 4:
				out["time"] = ts.UnixMicro()
			case 5:
				out["timestamp"] = ts.UnixNano()
			}
		case "event":
			if v == "llm_call" && n%3 == 0 {
				continue // a line with a model and no event is an llm_call
			}
			out[pick("type", "event")] = v
		case "job_id":
			switch n % 4 {
			case 0:
				out["jobId"] = v
			case 1:
				out["job.id"] = v
			case 2:
				out["job"] = map[string]any{"id": v, "type": in["job_type"]}
			default:
				out["job_id"] = v
			}
		case "job_type":
			if n%4 != 2 {
				out[pick("jobType", "job.type", "job_name")] = v
			}
		case "idempotency_key":
			if n%5 == 4 {
				headers["X-Idempotency-Key"] = v
			} else {
				out[pick("idempotencyKey", "idempotency-key", "x-idempotency-key", "idempotency_key")] = v
			}
		case "correlation_id":
			out[pick("correlationId", "trace_id", "x-correlation-id")] = v
		case "attempt":
			a := int(v.(float64))
			switch n % 5 {
			case 0:
				out["attempt_number"] = a
			case 1:
				out["retry_count"] = a - 1
			case 2:
				out["http.request.resend_count"] = a - 1
			case 3:
				// Only the SDK's own header: x-litellm-attempted-retries and
				// x-portkey-retry-attempt-count count a gateway's retries,
				// another layer (TestLiteLLMRetriesAreTheRouters).
				headers["x-stainless-retry-count"] = strconv.Itoa(a - 1)
			default:
				out["attempt"] = a
			}
		case "provider":
			out[pick("gen_ai.provider.name", "gen_ai.system", "provider")] = v
		case "model":
			out[pick("gen_ai.request.model", "gen_ai.response.model", "model")] = v
		case "status":
			out[pick("status_code", "http.response.status_code", "status")] = v
		case "error_type":
			switch n % 4 {
			case 0:
				out["error"] = v
			case 1:
				out["error.type"] = v
			case 2:
				out["error"] = map[string]any{"type": "error", "error": map[string]any{"type": v, "message": "x"}}
			default:
				out["error_type"] = v
			}
		case "retry_after_s":
			if n%2 == 0 {
				headers["Retry-After"] = fmt.Sprint(v)
			} else {
				out["retry_after"] = v
			}
		case "ratelimit_remaining_tokens":
			headers[pick("anthropic-ratelimit-tokens-remaining", "x-ratelimit-remaining-tokens")] = fmt.Sprint(v)
		case "latency_ms":
			out[pick("duration_ms", "latency_ms")] = v
		case "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens":
			// handled together below
		default:
			out[k] = v
		}
	}
	if _, ok := in["input_tokens"]; ok || in["output_tokens"] != nil {
		num := func(k string) int {
			f, _ := in[k].(float64)
			return int(f)
		}
		in, outT, cr, cw := num("input_tokens"), num("output_tokens"), num("cache_read_tokens"), num("cache_creation_tokens")
		switch {
		case n%4 == 0 && cw == 0:
			// OpenAI's shape: prompt_tokens include the cached ones.
			out["usage"] = map[string]any{"prompt_tokens": in + cr, "completion_tokens": outT, "prompt_tokens_details": map[string]any{"cached_tokens": cr}}
		case n%4 == 1:
			out["usage"] = map[string]any{"input_tokens": in, "output_tokens": outT, "cache_read_input_tokens": cr, "cache_creation_input_tokens": cw}
		case n%4 == 2:
			// OTel GenAI: input_tokens include the cache subsets.
			out["gen_ai.usage.input_tokens"] = in + cr + cw
			out["gen_ai.usage.output_tokens"] = outT
			out["gen_ai.usage.cache_read.input_tokens"] = cr
			out["gen_ai.usage.cache_creation.input_tokens"] = cw
		default:
			if cr == 0 && cw == 0 {
				out["prompt_tokens"], out["completion_tokens"] = in, outT
			} else {
				out["input_tokens"], out["output_tokens"], out["cache_read_tokens"], out["cache_creation_tokens"] = in, outT, cr, cw
			}
		}
	}
	if len(headers) > 0 {
		out["headers"] = headers
	}
	return out
}

// TestAliasesGiveTheSameReport: a log written with the alias field names
// real loggers use gives the same report as the canonical one.
func TestAliasesGiveTheSameReport(t *testing.T) {
	for _, name := range []string{"seed000-incident.jsonl", "seed002-six-pipelines.jsonl", "healthy-night.jsonl"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.Open(samples + name)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			aliased := filepath.Join(t.TempDir(), name)
			var buf bytes.Buffer
			sc := bufio.NewScanner(src)
			for n := 0; sc.Scan(); n++ {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(aliasLine(t, n, m))
				buf.Write(append(b, '\n'))
			}
			if err := os.WriteFile(aliased, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			want, got := reportOf(t, correlate.DefaultConfig(), samples+name), reportOf(t, correlate.DefaultConfig(), aliased)
			if got.Source.Skipped != 0 {
				t.Fatalf("aliased log skipped lines: %v", got.Source.SkippedByReason)
			}
			// The gateways' and SDKs' headers number the attempts of the
			// job model as every other spelling does, but they also say
			// which layer retried, and the assumptions log charges each
			// retry to that layer (the header's, not the record's): that
			// part may differ, and only that part. So may how far the
			// counts are trusted: x-stainless-retry-count is the SDK's own,
			// each record one HTTP attempt (exact), where the record's own
			// attempt field leaves the SDK below unseen (a lower bound).
			for _, r := range []*correlate.Report{want, got} {
				r.Assumptions = nil
				r.Totals.LowerBoundJobs, r.UnseenLayers = 0, nil
				for i := range r.Jobs {
					r.Jobs[i].Count = ""
				}
			}
			var wb, gb bytes.Buffer
			report.JSON(&wb, want)
			report.JSON(&gb, got)
			if !bytes.Equal(wb.Bytes(), gb.Bytes()) {
				t.Errorf("aliased log reports differently:\n%s", firstDiff(wb.Bytes(), gb.Bytes()))
			}
		})
	}
}
