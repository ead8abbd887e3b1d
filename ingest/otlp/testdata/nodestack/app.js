// A Node batch instrumented the way apps are today: OTel Node SDK,
// instrumentation-undici (both SDKs use fetch), OpenLLMetry's Anthropic
// and OpenAI instrumentations, a root span per job carrying job.id,
// OTLP/HTTP JSON export. A 2-try wrapper around each SDK call.
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici');
const { AnthropicInstrumentation } = require('@traceloop/instrumentation-anthropic');
const { OpenAIInstrumentation } = require('@traceloop/instrumentation-openai');
const api = require('@opentelemetry/api');
// OpenLLMetry 0.27 patches modules by an older layout (Anthropic.Completions,
// OpenAI.Chat): its require hooks are off, and its own wrappers are put on
// the SDKs' classes here, as its manuallyInstrument does.
const anthInstr = new AnthropicInstrumentation({ enabled: false }), oaInstr = new OpenAIInstrumentation({ enabled: false });
const sdk = new NodeSDK({ serviceName: 'batch-worker',
  traceExporter: new OTLPTraceExporter({ url: process.env.CAPTURE + '/v1/traces' }),
  instrumentations: [new UndiciInstrumentation()] });
sdk.start();
const Anthropic = require('@anthropic-ai/sdk'); const OpenAI = require('openai');
for (const i of [anthInstr, oaInstr]) i.setTracerProvider(api.trace.getTracerProvider());
if (process.env.LLMETRY !== '0') {
  const M = Anthropic.Anthropic.Messages.prototype; M.create = anthInstr.patchAnthropic('chat', Anthropic)(M.create);
  const C = OpenAI.OpenAI.Chat.Completions.prototype; C.create = oaInstr.patchOpenAI('chat')(C.create);
}
const tracer = api.trace.getTracer('batch-worker');
async function wrapper(fn, tries = 2) {
  for (let i = 1; ; i++) { try { return await fn(); } catch (e) { if (i >= tries) throw e; } }
}
async function job(id) {
  return tracer.startActiveSpan('process-job', { attributes: { 'job.id': id, 'job.type': 'summarize' } }, async (span) => {
    try {
      if (id.startsWith('oa-')) {
        const c = new OpenAI({ apiKey: 'sk-test', baseURL: process.env.MOCK + '/v1', defaultHeaders: { 'x-job-id': id } });
        await wrapper(() => c.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }));
      } else {
        const c = new Anthropic({ apiKey: 'sk-ant-test', baseURL: process.env.MOCK, defaultHeaders: { 'x-job-id': id } });
        await wrapper(() => c.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }));
      }
      span.setAttribute('job.outcome', 'succeeded');
    } catch (e) { span.setStatus({ code: api.SpanStatusCode.ERROR, message: String(e.status) }); }
    finally { span.end(); }
  });
}
// STORM=1: seed 000's stack in a 529 storm — the SDK's default retries
// (3 attempts) × a 3-try wrapper (p-retry {retries: 2}) × a queue's 7
// attempts, each queue attempt a root span of its own with the job's
// job.id: 63 calls per job on the wire, 7 traces per job.
async function stormJob(id) {
  for (let attempt = 1; attempt <= 7; attempt++) {
    const ok = await tracer.startActiveSpan('process-job', { attributes: { 'job.id': id, 'job.type': 'storm', 'job.attempt': attempt } }, async (span) => {
      try {
        const c = new Anthropic({ apiKey: 'sk-ant-test', baseURL: process.env.MOCK, defaultHeaders: { 'x-job-id': id } });
        await wrapper(() => c.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }), 3);
        return true;
      } catch (e) { span.setStatus({ code: api.SpanStatusCode.ERROR, message: String(e.status) }); return false; }
      finally { span.end(); }
    });
    if (ok) return;
  }
}
(async () => {
  if (process.env.STORM === '1') {
    await Promise.all(['storm-1', 'storm-2'].map(stormJob));
    await sdk.shutdown();
    return;
  }
  const ids = ['job-1', 'job-2', 'job-3', 'job-4', 'oa-1', 'oa-2'];
  for (let i = 0; i < ids.length; i += 2) await Promise.all(ids.slice(i, i + 2).map(job));
  await sdk.shutdown();
})();
