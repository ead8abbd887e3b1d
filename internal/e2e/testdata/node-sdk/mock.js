// Tiny mock provider: answers /v1/messages (Anthropic) and /v1/chat/completions
// (OpenAI) from a per-job schedule keyed by the x-job-id header; writes a ledger
// line per HTTP request to ledger.jsonl.
const http = require('http'); const fs = require('fs');
const ledger = fs.createWriteStream(process.argv[3] || 'ledger.jsonl');
const seen = {}; let n = 0;
function schedule(job) { // statuses per HTTP request of the job, then 200
  const i = +job.replace(/\D/g, '');
  if (i === 27) return Array(100).fill(529);
  if (i === 23) return [529, 529, 529, 529];
  if (i % 5 === 0) return [529];
  if (i % 7 === 0) return [429];
  return [];
}
const srv = http.createServer((req, res) => {
  let body = ''; req.on('data', c => body += c); req.on('end', () => {
    const job = req.headers['x-job-id'] || '?'; const k = seen[job] = (seen[job] || 0) + 1;
    const st = schedule(job)[k - 1] || 200; n++;
    const oai = req.url.includes('chat/completions');
    const rid = (oai ? 'req_oa' : 'req_') + String(n).padStart(6, '0') + 'x';
    ledger.write(JSON.stringify({ n, job, k, path: req.url, status: st, request_id: rid, retry: req.headers['x-stainless-retry-count'] }) + '\n');
    const h = { 'content-type': 'application/json', 'retry-after-ms': '30' };
    h[oai ? 'x-request-id' : 'request-id'] = rid;
    const delay = st === 200 ? 40 + (k * 37 + n * 13) % 120 : 15;
    setTimeout(() => {
      res.writeHead(st, h);
      if (st !== 200) return res.end(JSON.stringify(oai ? { error: { message: 'rate', type: 'rate_limit' } } : { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
      if (oai) return res.end(JSON.stringify({ id: 'chatcmpl-' + n, object: 'chat.completion', model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 } }));
      res.end(JSON.stringify({ id: 'msg_' + n, type: 'message', role: 'assistant', model: 'claude-sonnet-4-20250514', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 200, output_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }));
    }, delay);
  });
});
srv.listen(+process.argv[2] || 0, '127.0.0.1', () => { console.log(srv.address().port); });
