#!/usr/bin/env bash
# Whole-process report speed on an interleaved night, beside the read floor
# and a jq pipeline, in one run. LINES=1000000 by default; CALLS model calls
# per job (default 10: 12-line jobs; CALLS=3 with LINES=5000000 is the
# 1,000,000-job night). Needs jq. Prints wall seconds (best of 3) and peak
# RSS for each command; the machine's neighbours move them, so compare
# within one run.
set -euo pipefail
LINES=${LINES:-1000000}
CALLS=${CALLS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./sample-logs/gen -night "$LINES" -calls "$CALLS" > "$work/night.jsonl"
go build -o "$work/burnrate" .
echo "log: $LINES lines, $(( LINES / (CALLS + 2) )) jobs, $(( $(stat -c %s "$work/night.jsonl") >> 20 )) MB"
run() { # label, command...
  local label=$1; shift
  local best=999 rss=0
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$work/t" bash -c "$*" >/dev/null 2>&1 || true
    read -r s kb < <(tail -1 "$work/t")
    best=$(echo "if ($s < $best) $s else $best" | bc)
    rss=$kb
  done
  printf '%-52s %7.2f s %8d MiB %12.0f lines/s\n' "$label" "$best" $((rss >> 10)) "$(echo "$LINES / ($best + 0.0001)" | bc -l)"
  echo "$best" > "$work/last"
}
run "wc -l" wc -l "$work/night.jsonl"; floor=$(cat "$work/last")
run "jq job_id | sort | uniq -c | sort -n | tail -1" "jq -r .job_id $work/night.jsonl | sort | uniq -c | sort -n | tail -1"; jq=$(cat "$work/last")
run "burnrate report --format json" "$work/burnrate report --format json $work/night.jsonl"; js=$(cat "$work/last")
run "burnrate report --format md" "$work/burnrate report --format md $work/night.jsonl"
run "burnrate replay --speed max --headless" "$work/burnrate replay --speed max --headless --journal $work/j.jsonl $work/night.jsonl"
printf 'report --format json is %.1fx faster than the jq pipeline, %.1fx the read floor\n' "$(echo "$jq / $js" | bc -l)" "$(echo "$js / ($floor + 0.001)" | bc -l)"
