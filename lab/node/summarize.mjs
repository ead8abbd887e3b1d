// A summarizer on the openai SDK with its default retries (maxRetries: 2):
// per job a streamed Chat Completion (the summary) and a Responses call
// (its title), a pool of CONCURRENCY workers, pino lines in camelCase.
// The job travels in an x-job-id header on both calls (a per-request
// header, as apps that want their job in the SDK's debug output pass it),
// and in the Responses call's body metadata too — which the SDK's debug
// block prints as `metadata: [Object]`, so only the header names the job
// there. Env as report-batch.mjs (OPENAI_LOG=debug for the SDK's lines,
// APP_LOG for a file of the app's own).
import OpenAI from 'openai';
import pino from 'pino';
import { trace, SpanStatusCode } from '@opentelemetry/api';

const log = pino(pino.destination({ dest: process.env.APP_LOG || 1, sync: true }));
const tracer = trace.getTracer('summarize');
const openai = new OpenAI({ timeout: Number(process.env.LAB_TIMEOUT_MS || 600000) });
const model = 'gpt-4o-mini';
const ids = Array.from({ length: Number(process.env.JOBS || 30) }, (_, i) => `doc-${String(i).padStart(3, '0')}`);

async function summarize(jobId) {
  let started = Date.now();
  const stream = await openai.chat.completions.create(
    { model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: `Summarize ${jobId}.` }] },
    { headers: { 'x-job-id': jobId } }).withResponse();
  let text = '', usage;
  for await (const chunk of stream.data) {
    text += chunk.choices[0]?.delta?.content ?? '';
    usage = chunk.usage ?? usage;
  }
  log.info({ jobId, step: 'summary', requestId: stream.request_id, model, status: 200, durationMs: Date.now() - started,
    promptTokens: usage?.prompt_tokens, completionTokens: usage?.completion_tokens,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens }, 'summary done');
  started = Date.now();
  const title = await openai.responses.create({ model, input: `A title for: ${text}`, metadata: { job_id: jobId } },
    { headers: { 'x-job-id': jobId } });
  log.info({ jobId, step: 'title', requestId: title._request_id, model, status: 200, durationMs: Date.now() - started,
    inputTokens: title.usage.input_tokens, outputTokens: title.usage.output_tokens,
    cachedTokens: title.usage.input_tokens_details?.cached_tokens }, 'title done');
}

async function worker() {
  for (let jobId = ids.shift(); jobId; jobId = ids.shift()) {
    await tracer.startActiveSpan('summarize job', { attributes: { 'job.id': jobId } }, async (span) => {
      try {
        await summarize(jobId);
        log.info({ jobId, outcome: 'succeeded' }, 'job finished');
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
        log.error({ jobId, outcome: 'failed', status: err.status, requestId: err.requestID, err: err.message }, 'job failed');
      } finally {
        span.end();
      }
    });
  }
}

await Promise.all(Array.from({ length: Number(process.env.CONCURRENCY || 4) }, worker));
