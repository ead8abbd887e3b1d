#!/usr/bin/env bash
# The fleet check: builds the real OpenTelemetry Collector of
# deploy/collector (about 2 minutes on 2 cores, the first time longer while
# ~300 modules download) and burnrate, starts two replicas behind the
# Collector, one burnrate fed everything, Prometheus with the shipped fleet
# rules and Alertmanager with the shipped route, sends a night of OTLP from
# the OpenTelemetry Go SDK, and checks per-job calls, spend and kills, a
# replica restarted mid-night, and the fleet-wide run ceiling. Then it
# checks and unit-tests the shipped rules with promtool and amtool.
#
#   deploy/fleet/check.sh                 # 300 jobs
#   FLEET_JOBS=3000 deploy/fleet/check.sh # a bigger night
#   FLEET_COLLECTOR=/path/otelcol-burnrate deploy/fleet/check.sh   # reuse a build
#
# Needs Go, and Debian's prometheus and prometheus-alertmanager packages
# (promtool, amtool, prometheus, prometheus-alertmanager): it fails, never
# skips, without them. Not in .ci/run: the Collector build alone is ~2 min.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for tool in promtool amtool prometheus prometheus-alertmanager; do
	if ! command -v "$tool" >/dev/null; then
		echo "deploy/fleet/check.sh: $tool not found: apt-get install prometheus prometheus-alertmanager" >&2
		exit 1
	fi
done
"$here/../prometheus/check.sh"
cd "$here"
log="$(mktemp)"
set +e
go test -count=1 -v -timeout 20m -run '^TestFleet(TraceIDRouting|RootOnlyJobID)?$' . >"$log" 2>&1
rc=$?
set -e
grep -E 'FLEET CHECK|built the Collector|^(--- |ok|FAIL)|fleet_test.go:[0-9]+: [^-F]' "$log" | sed 's/^ *fleet_test.go:[0-9]*: //'
if [ "$rc" -ne 0 ]; then
	echo "deploy/fleet/check.sh: FAILED (the whole log: $log)" >&2
	exit "$rc"
fi
rm -f "$log"
echo "deploy/fleet/check.sh: passed"
