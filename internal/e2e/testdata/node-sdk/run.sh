#!/bin/bash
# run.sh CONC TAG: one batch of app.js against a fresh mock.js; writes TAG.both.log
# (one stream, as the app wrote it), TAG.app.log, TAG.sdk.log and TAG.ledger.jsonl
# (the mock's record of every HTTP request: the truth). LVL=info for ANTHROPIC_LOG=info.
set -e
node mock.js 0 $2.ledger.jsonl > $2.port & MP=$!
for i in $(seq 50); do [ -s $2.port ] && break; sleep 0.1; done
BASE=http://127.0.0.1:$(cat $2.port) ANTHROPIC_LOG=${LVL:-debug} OPENAI_LOG=${LVL:-debug} JOBS=${JOBS:-30} CONC=$1 node app.js > $2.both.log
kill $MP
grep '^{' $2.both.log > $2.app.log || true
grep -v '^{' $2.both.log > $2.sdk.log || true
