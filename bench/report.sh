#!/usr/bin/env bash
# Whole-process report speed on the two shapes of log that hurt, beside the
# read floor (wc -l) and a jq pipeline, in one run:
#   night   — jobs of CALLS+2 lines, 8,000 in flight, each job's lines
#             close together (a queue's overnight log);
#   uniform — LINES/(UCALLS+2) jobs all in flight for the whole log, each
#             job's lines spread uniformly and shuffled (a fleet's 24-hour
#             file, a log merged from many workers): every lookup is of a
#             job last touched a whole round ago.
# LINES=1000000 by default; CALLS=3 with LINES=5000000 is the
# 1,000,000-job night. Needs jq and GNU time. Prints wall seconds (best of
# RUNS, default 3) and the peak RSS of the best run for each command; the
# machine's neighbours move them, so compare within one run.
set -euo pipefail
LINES=${LINES:-1000000}
CALLS=${CALLS:-10}
UCALLS=${UCALLS:-8}
RUNS=${RUNS:-3}
SHAPES=${SHAPES:-night uniform}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/burnrate" .
run() { # label, command...
  local label=$1; shift
  local best=999 rss=0
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$work/t" bash -c "$*" >/dev/null 2>&1 || true
    read -r s kb < <(tail -1 "$work/t")
    if (( $(echo "$s < $best" | bc) )); then best=$s; rss=$kb; fi
  done
  printf '  %-50s %7.2f s %6d MiB %11.0f lines/s\n' "$label" "$best" $((rss >> 10)) "$(echo "$LINES / ($best + 0.0001)" | bc -l)"
  echo "$best" > "$work/last"
}
for shape in $SHAPES; do
  log=$work/$shape.jsonl
  case $shape in
    night) go run ./sample-logs/gen -night "$LINES" -calls "$CALLS" > "$log"; jobs=$(( LINES / (CALLS + 2) )) ;;
    uniform) go run ./sample-logs/gen -night "$LINES" -calls "$UCALLS" -uniform > "$log"; jobs=$(( LINES / (UCALLS + 2) )) ;;
    *) echo "unknown shape $shape (night, uniform)" >&2; exit 2 ;;
  esac
  echo "$shape: $LINES lines, $jobs jobs, $(( $(stat -c %s "$log") >> 20 )) MB"
  run "wc -l" wc -l "$log"; floor=$(cat "$work/last")
  run "jq job_id | sort | uniq -c | sort -n | tail -1" "jq -r .job_id $log | sort | uniq -c | sort -n | tail -1"; jq=$(cat "$work/last")
  run "burnrate report --format json" "$work/burnrate report --format json $log"; js=$(cat "$work/last")
  run "burnrate report --format md" "$work/burnrate report --format md $log"
  run "burnrate replay --speed max --headless" "$work/burnrate replay --speed max --headless --journal $work/j.jsonl $log"
  rm -f "$work/j.jsonl"
  printf '  report --format json: %.1fx faster than the jq pipeline, %.1fx the read floor\n' "$(echo "$jq / $js" | bc -l)" "$(echo "$js / ($floor + 0.001)" | bc -l)"
  rm -f "$log"
done
