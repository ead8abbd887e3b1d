// rt8 app B: both SDKs in one process. OpenAI chat via .asResponse() (the app parses
// the body itself), Anthropic via withResponse(); per-request maxRetries/timeout;
// the SDK's debug either to console (LOGGER=console, logLevel 'debug') or through the
// app's own pino logger (LOGGER=pino: the SDK's `logger` option), one stdout.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import pino from 'pino';
const log = pino(pino.destination({ dest: 1, sync: true }));
const sdkLogger = process.env.LOGGER === 'pino' ? log : console;
const common = { logLevel: process.env.SDKLEVEL || 'debug', logger: sdkLogger, timeout: Number(process.env.TMO || 1500) };
const anthropic = new Anthropic({ apiKey: 'sk-ant-rt8', ...common });
const openai = new OpenAI({ apiKey: 'sk-rt8', maxRetries: 3, ...common });
const JOBS = Number(process.env.JOBS || 12), CONC = Number(process.env.CONC || 4);
const ids = Array.from({ length: JOBS }, (_, i) => `mix-${String(i).padStart(3, '0')}`);
async function job(jobId) {
  const h = { headers: { 'x-job-id': jobId } };
  try {
    // 1. OpenAI chat, raw Response
    const resp = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: jobId }] },
      { ...h, maxRetries: 1 }).asResponse();
    const body = await resp.json();
    log.info({ jobId, model: body.model, status: resp.status,
      promptTokens: body.usage?.prompt_tokens, completionTokens: body.usage?.completion_tokens }, 'draft done');
    // 2. Anthropic, withResponse, per-request timeout
    const { data: msg, request_id } = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 256,
      messages: [{ role: 'user', content: body.choices?.[0]?.message?.content ?? 'x' }] }, { ...h, timeout: 1200 }).withResponse();
    log.info({ jobId, model: msg.model, inputTokens: msg.usage.input_tokens, outputTokens: msg.usage.output_tokens }, 'review done');
    // 3. OpenAI responses, maxRetries 0
    const r = await openai.responses.create({ model: 'gpt-4o-mini', input: 'title' }, { ...h, maxRetries: 0 });
    log.info({ jobId, model: r.model, inputTokens: r.usage.input_tokens, outputTokens: r.usage.output_tokens }, 'title done');
    log.info({ jobId, outcome: 'succeeded' }, 'job finished');
  } catch (err) {
    log.error({ jobId, outcome: 'failed', status: err.status, requestId: err.requestID, err: err.message }, 'job failed');
  }
}
async function worker() { for (let j = ids.shift(); j; j = ids.shift()) await job(j); }
await Promise.all(Array.from({ length: CONC }, worker));
