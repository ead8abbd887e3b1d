// A batch as a user writes it: official SDKs with default retries, its own
// 3-attempt wrapper, pino JSON lines. Env: BASE (mock URL), JOBS, CONC.
const Anthropic = require('@anthropic-ai/sdk'); const OpenAI = require('openai');
const log = require('pino')();
const base = process.env.BASE;
const anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: base });
const openai = new OpenAI({ apiKey: 'sk-test', baseURL: base + '/v1' });
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function call(job, useOpenAI) {
  const opts = { headers: { 'x-job-id': job } };
  if (useOpenAI) {
    const r = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, opts);
    return { status: 200, request_id: r._request_id, model: r.model, usage: { input_tokens: r.usage.prompt_tokens, output_tokens: r.usage.completion_tokens } };
  }
  const r = await anthropic.messages.create({ model: 'claude-sonnet-4-20250514', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, opts);
  return { status: 200, request_id: r._request_id, model: r.model, usage: r.usage };
}
async function runJob(i) {
  const job = 'job-' + String(i).padStart(2, '0'); const useOpenAI = i % 3 === 0;
  log.info({ job_id: job, event: 'job_started' }, 'job started');
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const r = await call(job, useOpenAI);
      log.info({ job_id: job, attempt, status: r.status, request_id: r.request_id, model: r.model, usage: r.usage }, 'llm call');
      log.info({ job_id: job, event: 'job_succeeded' }, 'job succeeded');
      return;
    } catch (e) {
      log.warn({ job_id: job, attempt, status: e.status ?? 0, request_id: e.requestID ?? e.request_id, error_type: e.error?.error?.type ?? e.name, model: useOpenAI ? 'gpt-4o-mini' : 'claude-sonnet-4-20250514' }, 'llm call failed');
      await sleep(20);
    }
  }
  log.error({ job_id: job, event: 'job_failed' }, 'job failed');
}
(async () => {
  const jobs = +process.env.JOBS || 30, conc = +process.env.CONC || 4; let next = 1;
  await Promise.all(Array.from({ length: conc }, async () => { while (next <= jobs) await runJob(next++); }));
})();
