// rt8 app A: Anthropic SDK, a tool-use loop of TURNS turns per job, per-request
// maxRetries/timeout overrides, a streamed turn aborted mid-stream, pino lines
// and console.log of the SDK's objects on the same stdout as ANTHROPIC_LOG=debug.
import Anthropic from '@anthropic-ai/sdk';
import pino from 'pino';
const log = pino(pino.destination({ dest: 1, sync: true }));
const client = new Anthropic({ apiKey: 'sk-ant-rt8', maxRetries: 2, timeout: Number(process.env.TMO || 1500) });
const model = 'claude-sonnet-4-5';
const JOBS = Number(process.env.JOBS || 12), TURNS = Number(process.env.TURNS || 4), CONC = Number(process.env.CONC || 3);
const ids = Array.from({ length: JOBS }, (_, i) => `agent-${String(i).padStart(3, '0')}`);
async function turn(jobId, t, messages) {
  const opts = { headers: { 'x-job-id': jobId } };
  if (t === 1) opts.maxRetries = 5;          // per request override
  if (t === 2) { opts.maxRetries = 0; opts.timeout = 800; }
  if (t === 3 && process.env.ABORT) {       // streamed, aborted after the first text delta
    const ac = new AbortController();
    const stream = client.messages.stream({ model, max_tokens: 512, messages }, { ...opts, signal: ac.signal });
    let got = 0;
    try {
      for await (const ev of stream) { if (ev.type === 'content_block_delta') { got++; ac.abort(); } }
    } catch (e) { log.warn({ job_id: jobId, turn: t, err: String(e.message) }, 'stream aborted'); }
    return null;
  }
  const { data: msg, response } = await client.messages.create({ model, max_tokens: 512, messages,
    tools: [{ name: 'lookup', description: 'x', input_schema: { type: 'object', properties: {} } }] }, opts).withResponse();
  if (process.env.CONSOLE === 'json') console.log(JSON.stringify(msg)); else if (process.env.CONSOLE) console.log(msg);
  log.info({ job_id: jobId, turn: t, request_id: msg._request_id ?? response.headers.get('request-id'), model,
    input_tokens: msg.usage.input_tokens, output_tokens: msg.usage.output_tokens }, 'turn done');
  return msg;
}
async function job(jobId) {
  const messages = [{ role: 'user', content: `Plan ${jobId}` }];
  log.info({ job_id: jobId, event: 'job_started' }, 'job started');
  try {
    for (let t = 0; t < TURNS; t++) {
      const m = await turn(jobId, t, messages);
      messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: `tool result ${t}` });
    }
    log.info({ job_id: jobId, outcome: 'succeeded' }, 'job finished');
  } catch (err) {
    log.error({ job_id: jobId, outcome: 'failed', status: err.status, request_id: err.requestID, err: err.message }, 'job failed');
  }
}
async function worker() { for (let j = ids.shift(); j; j = ids.shift()) await job(j); }
await Promise.all(Array.from({ length: CONC }, worker));
