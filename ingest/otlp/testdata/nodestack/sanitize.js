// Drops what names the machine that ran the capture (host.*, process.*) from
// each export request's resource; spans are kept as captured. With
// --no-model-spans, model-call spans are dropped too and their children
// re-parented to the span above: the HTTP attempt spans alone, as an app
// with instrumentation-undici and no GenAI instrumentation sends them.
const fs = require('fs');
const [, , inFile, outFile, flag] = process.argv;
const out = [];
for (const line of fs.readFileSync(inFile, 'utf8').trim().split('\n')) {
  const r = JSON.parse(line);
  for (const rs of r.resourceSpans) {
    rs.resource.attributes = rs.resource.attributes.filter(a => !/^(host|process)\./.test(a.key));
  }
  if (flag === '--no-model-spans') {
    const parentOf = {};
    for (const rs of r.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) parentOf[s.spanId] = s.parentSpanId;
    out.push(r);
  } else out.push(r);
}
if (flag === '--no-model-spans') {
  // Model spans may be in any request: find them all first.
  const model = {}, parentOf = {};
  for (const r of out) for (const rs of r.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) {
    parentOf[s.spanId] = s.parentSpanId;
    if (s.attributes.some(a => a.key.startsWith('gen_ai.'))) model[s.spanId] = true;
  }
  const up = id => { while (id && model[id]) id = parentOf[id]; return id; };
  for (const r of out) for (const rs of r.resourceSpans) for (const ss of rs.scopeSpans) {
    ss.spans = ss.spans.filter(s => !model[s.spanId]);
    for (const s of ss.spans) if (s.parentSpanId) s.parentSpanId = up(s.parentSpanId);
  }
}
fs.writeFileSync(outFile, out.map(r => JSON.stringify(r)).join('\n') + '\n');
