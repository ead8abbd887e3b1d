// Seed 000's stack, as its author wrote it: the Anthropic SDK with its
// default retries, p-retry { retries: 2 } around the call, BullMQ with
// attempts: 7 — and pino JSON lines, the way such a worker logs.
// Env: REDIS_URL, ANTHROPIC_BASE_URL, JOBS, CONCURRENCY, APP_LOG (a file:
// the app's lines go there instead of stdout), ANTHROPIC_LOG=debug (the
// SDK's own lines, on stdout), LAB_PRETRY_MIN_MS and LAB_TIMEOUT_MS (the
// lab's clock: they change timing, never counts).
import Anthropic from '@anthropic-ai/sdk';
import pRetry from 'p-retry';
import { Queue, Worker } from 'bullmq';
import pino from 'pino';
import { trace, SpanStatusCode } from '@opentelemetry/api';

const log = pino(pino.destination({ dest: process.env.APP_LOG || 1, sync: true }));
const tracer = trace.getTracer('report-batch');
const connection = { url: process.env.REDIS_URL };
const jobs = Number(process.env.JOBS || 22);
const model = 'claude-sonnet-4-5';

// layer 1: the SDK. Default is maxRetries: 2.
const anthropic = new Anthropic({ apiKey: 'sk-ant-lab', timeout: Number(process.env.LAB_TIMEOUT_MS || 600000) });

async function generateReport(job, attempt) {
  const job_id = job.id;
  log.info({ job_id, attempt, queue_attempt: job.attemptsMade + 1, model }, 'calling model');
  try {
    const msg = await anthropic.messages.create(
      { model, max_tokens: 2048, messages: [{ role: 'user', content: `Write the report for ${job.data.sessionId}.` }] },
      { headers: { 'x-job-id': job_id } });
    const u = msg.usage;
    log.info({ job_id, attempt, request_id: msg._request_id, status: 200, model, input_tokens: u.input_tokens,
      output_tokens: u.output_tokens, cache_read_input_tokens: u.cache_read_input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens }, 'model call ok');
    return msg;
  } catch (err) {
    log.warn({ job_id, attempt, status: err.status, request_id: err.requestID, err: err.message }, 'model call failed');
    throw err;
  }
}

const queue = new Queue('reports', { connection });
let done = 0;
const finished = new Promise((resolve) => {
  const worker = new Worker('reports', (job) => tracer.startActiveSpan('report job', { attributes: { 'job.id': job.id } }, async (span) => {
    try {
      // layer 2: p-retry around the call.
      return await pRetry((attempt) => generateReport(job, attempt), { retries: 2, minTimeout: Number(process.env.LAB_PRETRY_MIN_MS || 1000) });
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
      throw err;
    } finally {
      span.end();
    }
  }), { connection, concurrency: Number(process.env.CONCURRENCY || 4) });
  const settle = () => { if (++done === jobs) resolve(worker); };
  worker.on('completed', (job) => { log.info({ job_id: job.id, outcome: 'succeeded', attempts: job.attemptsMade + 1 }, 'job finished'); settle(); });
  worker.on('failed', (job, err) => {
    if (job.attemptsMade < job.opts.attempts) return; // BullMQ will run it again
    log.error({ job_id: job.id, outcome: 'failed', attempts: job.attemptsMade, err: err.message }, 'job failed');
    settle();
  });
});

// layer 3: the queue, attempts: 7.
for (let i = 0; i < jobs; i++) {
  await queue.add('report', { sessionId: `sess-${4100 + i}` }, { jobId: `report-${4100 + i}`, attempts: 7 });
}
const worker = await finished;
await worker.close();
await queue.obliterate({ force: true });
await queue.close();
