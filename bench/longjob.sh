#!/usr/bin/env bash
# Memory of a job that never ends (issue 38): a service log in which every
# line carries one constant job_id — each request its own idempotency key,
# one in eight retried once after a 429 — played through
# `burnrate replay --speed max --headless` (the live engine, as watch
# runs it) at several lengths. Prints wall seconds and peak RSS for each;
# MODE=watch runs `burnrate watch --headless` on the file instead, and
# prints its peak RSS once it has caught up; MODE=gen writes the log of
# each size to stdout and runs nothing (for bench/watchrss.sh).
#   SIZES="2000000 6000000 10000000" bench/longjob.sh
# BIN=path measures that binary instead of one built from this tree (a
# build from before a change, for a before/after in one run).
set -euo pipefail
SIZES=${SIZES:-2000000 6000000 10000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ ${MODE:-} == gen ]]; then :; elif [[ -n ${BIN:-} ]]; then cp "$BIN" "$work/burnrate"; else go build -o "$work/burnrate" .; fi
gen() { # lines → stdout: one request a second of log time, ~8 requests per 9 lines
  awk -v n="$1" 'BEGIN {
    t = 1773104400; k = 0
    for (i = 0; i < n; k++) {
      s = t + k; ts = strftime("%Y-%m-%dT%H:%M:%SZ", s, 1)
      if (k % 8 == 7 && i + 1 < n) {
        printf "{\"ts\":\"%s\",\"event\":\"llm_call\",\"job_id\":\"service\",\"job_type\":\"api\",\"idempotency_key\":\"req-%d\",\"model\":\"gpt-4o-mini\",\"input_tokens\":800,\"output_tokens\":0,\"status\":429,\"latency_ms\":40}\n", ts, k
        i++
      }
      printf "{\"ts\":\"%s\",\"event\":\"llm_call\",\"job_id\":\"service\",\"job_type\":\"api\",\"idempotency_key\":\"req-%d\",\"model\":\"gpt-4o-mini\",\"input_tokens\":800,\"output_tokens\":200,\"status\":200,\"latency_ms\":900}\n", ts, k
      i++
    }
  }'
}
# watchrss FILE: peak and current RSS of watch --headless once it has
# caught up on FILE (under 5% of a core for 3 s), then stops it.
watchrss() {
  "$work/burnrate" watch --headless --journal "$work/j.jsonl" "$1" >/dev/null 2>"$work/err" &
  local pid=$! last=-1 still=0 start=$SECONDS
  while (( still < 3 )); do
    sleep 1
    local cpu; cpu=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    if (( last >= 0 && cpu - last < 5 )); then still=$((still + 1)); else still=0; fi # under 5% of a core
    last=$cpu
  done
  local hwm rss
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status"); rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"; wait "$pid" || true
  printf '  %9d lines, one job: watch --headless caught up in ~%d s, peak RSS %5d MiB, then %5d MiB\n' "$n" $((SECONDS - start - 3)) $((hwm >> 10)) $((rss >> 10))
}
for n in $SIZES; do
  if [[ ${MODE:-replay} == gen ]]; then gen "$n"; continue; fi # the log alone, on stdout (bench/watchrss.sh)
  gen "$n" > "$work/long.jsonl"
  if [[ ${MODE:-replay} == watch ]]; then watchrss "$work/long.jsonl"; rm -f "$work/long.jsonl" "$work/j.jsonl"; continue; fi
  /usr/bin/time -f "%e %M" -o "$work/t" "$work/burnrate" replay --speed max --headless --journal "$work/j.jsonl" "$work/long.jsonl" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r s kb < <(tail -1 "$work/t")
  printf '  %9d lines, one job: %6.2f s, peak RSS %5d MiB\n' "$n" "$s" $((kb >> 10))
  rm -f "$work/long.jsonl" "$work/j.jsonl"
done
