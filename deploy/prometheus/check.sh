#!/usr/bin/env bash
# Checks and unit-tests the shipped Prometheus and Alertmanager files with
# the real tools; fails (never skips) when one is missing.
set -euo pipefail
cd "$(dirname "$0")"
for tool in promtool amtool; do
	if ! command -v "$tool" >/dev/null; then
		echo "deploy/prometheus/check.sh: $tool not found: install it (Debian: apt-get install prometheus prometheus-alertmanager; promtool and amtool come with them)" >&2
		exit 1
	fi
done
promtool check rules burnrate.rules.yml
promtool test rules burnrate.rules.test.yml
promtool check config --syntax-only prometheus.yml
amtool check-config alertmanager.yml
