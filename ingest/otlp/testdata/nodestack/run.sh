#!/bin/sh
# Regenerates the fixtures: installs the pinned packages, starts the mock
# provider and the OTLP/HTTP JSON capture server, runs the app with and
# without OpenLLMetry, and sanitizes the captures. Needs node ≥ 20 and npm.
set -e
cd "$(dirname "$0")"
npm ci --no-audit --no-fund >/dev/null
run() { # $1: name, $2: LLMETRY, $3: STORM
  node mock.js 18101 "ledger-$1.jsonl" & m=$!
  node capture.js 18102 "raw-$1.jsonl" & c=$!
  sleep 0.5
  OTEL_BSP_SCHEDULE_DELAY=200 LLMETRY=$2 STORM=${3:-0} MOCK=http://127.0.0.1:18101 CAPTURE=http://127.0.0.1:18102 node app.js
  sleep 0.5; kill $m $c
}
run openllmetry 1
run sdkspan 0
run storm 1 1
node sanitize.js raw-openllmetry.jsonl capture-openllmetry.jsonl
node sanitize.js raw-sdkspan.jsonl capture-sdkspan.jsonl
node sanitize.js raw-sdkspan.jsonl capture-undici-only.jsonl --no-model-spans
node sanitize.js raw-storm.jsonl capture-storm.jsonl
rm -f raw-*.jsonl
