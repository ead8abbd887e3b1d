// rt8b: Anthropic SDK (debug) + a raw fetch of the same model in the same job.
// MODE=rawlog: SDK call not logged by the app, raw fetch logged (no request id)
// MODE=both: both logged (raw first when RAWFIRST=1)
// MODE=par: two SDK calls in parallel per turn, each logged without request id
import Anthropic from '@anthropic-ai/sdk';
import pino from 'pino';
const log = pino(pino.destination({ dest: Number(process.env.PINOFD || 1), sync: true }));
const client = new Anthropic({ apiKey: 'sk-ant-rt8', maxRetries: 2, timeout: 1500 });
const model = 'claude-sonnet-4-5';
const MODE = process.env.MODE || 'rawlog';
const JOBS = Number(process.env.JOBS || 8), TURNS = Number(process.env.TURNS || 3), CONC = Number(process.env.CONC || 2);
const ids = Array.from({ length: JOBS }, (_, i) => `agent-${String(i).padStart(3, '0')}`);
async function sdk(jobId, t, logit) {
  const opts = process.env.NOHDR ? {} : { headers: { 'x-job-id': jobId } };
  const msg = await client.messages.create({ model, max_tokens: 512, messages: [{ role: 'user', content: `t${t} ${jobId}` }], metadata: { user_id: jobId } }, opts);
  if (logit) log.info({ job_id: jobId, turn: t, model, input_tokens: msg.usage.input_tokens, output_tokens: msg.usage.output_tokens }, 'turn done');
  return msg;
}
async function raw(jobId, t) {
  for (let a = 0; a < 4; a++) {
    const r = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'sk', 'anthropic-version': '2023-06-01', 'x-job-id': jobId },
      body: JSON.stringify({ model, max_tokens: 256, messages: [{ role: 'user', content: 'summarize' }], metadata: { user_id: jobId } }) });
    const j = await r.json().catch(() => ({}));
    if (r.status === 200) { log.info({ job_id: jobId, turn: t, model, input_tokens: j.usage.input_tokens, output_tokens: j.usage.output_tokens }, 'summary done'); return; }
    log.warn({ job_id: jobId, turn: t, model, status: r.status }, 'summary failed');
    await new Promise(r => setTimeout(r, 10));
  }
}
async function job(jobId) {
  log.info({ job_id: jobId, event: 'job_started' }, 'job started');
  let tin = 0, tout = 0;
  for (let t = 0; t < TURNS; t++) {
    if (MODE === 'rawlog') { await sdk(jobId, t, false); await raw(jobId, t); }
    else if (MODE === 'both') { if (process.env.RAWFIRST) { await raw(jobId, t); await sdk(jobId, t, true); } else { await sdk(jobId, t, true); await raw(jobId, t); } }
    else if (MODE === 'par') { await Promise.all(Array.from({ length: Number(process.env.PAR || 2) }, () => sdk(jobId, t, true))); }
    else if (MODE === 'sdkonly') { const m = await sdk(jobId, t, false); tin += m.usage.input_tokens; tout += m.usage.output_tokens; }
    else if (MODE === 'parraw') { await Promise.all([sdk(jobId, t, true), raw(jobId, t)]); }
  }
  log.info({ job_id: jobId, outcome: 'succeeded', ...(process.env.SUMMARY ? { model, input_tokens: tin, output_tokens: tout } : {}) }, 'job finished');
}
async function worker() { for (let j = ids.shift(); j; j = ids.shift()) await job(j); }
await Promise.all(Array.from({ length: CONC }, worker));
