#!/usr/bin/env bash
# RSS of `burnrate watch --headless` over a whole catch-up (issue 38):
# samples VmRSS from /proc/PID/status every second while watch reads FILE
# from its start, with how far it has read (rchar of /proc/PID/io), until
# it has caught up (under 5% of a core for 3 s), then stops it. Prints
# one line a second: seconds, MiB read, RSS MiB; then the peak and the
# RSS at each tenth of the file, so "flat after the first horizon" can be
# read off.
#   bench/watchrss.sh FILE [watch flags...]
#   BIN=path bench/watchrss.sh …   measures that binary (default: built here)
# Logs: `go run ./sample-logs/gen -night 10000000 -calls 3` (2,000,000
# jobs); `MODE=gen SIZES=10000000 bench/longjob.sh` (one job never ends).
set -euo pipefail
file=$1; shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -n ${BIN:-} ]]; then bin=$BIN; else go build -o "$work/burnrate" .; bin=$work/burnrate; fi
size=$(stat -c %s "$file")
"$bin" watch --headless --journal "$work/j.jsonl" "$@" "$file" >/dev/null 2>"$work/err" &
pid=$!
last=-1 still=0 t=0
: > "$work/series"
while (( still < 3 )); do
  sleep 1; t=$((t + 1))
  kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
  cpu=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  read_=$(awk '/rchar/ {print $2}' "/proc/$pid/io")
  printf '%5d s %7d MiB read %6d MiB RSS\n' "$t" $((read_ >> 20)) $((rss >> 10)) | tee -a "$work/series"
  if (( last >= 0 && cpu - last < 5 )); then still=$((still + 1)); else still=0; fi
  last=$cpu
done
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
kill -TERM "$pid"; wait "$pid" || true
printf 'file %d MiB; peak RSS %d MiB; RSS at each tenth read:' $((size >> 20)) $((hwm >> 10))
awk -v size=$((size >> 20)) '{ r = $3; for (k = 1; k <= 10; k++) if (!done[k] && r >= size * k / 10) { done[k] = 1; printf " %d%%:%d", k * 10, $6 } } END { print " MiB" }' "$work/series"
