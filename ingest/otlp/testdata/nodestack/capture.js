// A tiny OTLP/HTTP JSON capture server: each export request's body, one per line, in arrival order.
const http = require('http'); const fs = require('fs');
const out = fs.createWriteStream(process.argv[3] || 'capture.jsonl');
http.createServer((req, res) => {
  let body = ''; req.on('data', c => body += c); req.on('end', () => {
    if (req.url === '/v1/traces') out.write(JSON.stringify(JSON.parse(body)) + '\n');
    res.writeHead(200, { 'content-type': 'application/json' }); res.end('{}');
  });
}).listen(+process.argv[2], '127.0.0.1');
