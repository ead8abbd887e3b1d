// A tiny mock provider: Anthropic Messages and OpenAI Chat Completions.
// Every HTTP request is written to the ledger (job from x-job-id).
const http = require('http'); const fs = require('fs');
const ledger = fs.createWriteStream(process.argv[3] || 'ledger.jsonl');
// Failures per job: how many 529s (Anthropic) / 500s (OpenAI) before a 200.
const fail = { 'job-1': 0, 'job-2': 2, 'job-3': 4, 'job-4': 1, 'oa-1': 0, 'oa-2': 2, 'storm-1': 1e9, 'storm-2': 1e9 };
const seen = {};
http.createServer((req, res) => {
  let body = ''; req.on('data', c => body += c); req.on('end', () => {
    const job = req.headers['x-job-id'] || '?';
    seen[job] = (seen[job] || 0) + 1;
    const bad = seen[job] <= (fail[job] || 0);
    const openai = req.url.startsWith('/v1/chat');
    let status = 200, out;
    if (bad) {
      status = openai ? 500 : 529;
      out = openai ? { error: { message: 'boom', type: 'server_error' } } : { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    } else if (openai) {
      out = { id: 'chatcmpl-' + seen[job], object: 'chat.completion', created: 1, model: 'gpt-4o-mini-2024-07-18',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 } };
    } else {
      out = { id: 'msg_' + job + '_' + seen[job], type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 40, cache_creation_input_tokens: 0 } };
    }
    ledger.write(JSON.stringify({ job, path: req.url, status, retry: req.headers['x-stainless-retry-count'] }) + '\n');
    const h = { 'content-type': 'application/json', 'request-id': 'req_' + job + '_' + seen[job] };
    if (bad) h['retry-after-ms'] = '30';
    setTimeout(() => { res.writeHead(status, h); res.end(JSON.stringify(out)); }, 40);
  });
}).listen(+process.argv[2], '127.0.0.1');
