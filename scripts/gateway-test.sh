#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# acceld-gateway end to end with real components (scripts/gateway/): the
# page in Debian's headless Chromium through chromedriver and Selenium,
# Prometheus and promtool, a mosquitto broker with mosquitto_sub, the
# 16-board fleet, TLS (openssl makes the certificates), and hostile HTTP.
# Installs them first, and
# builds acceld and the gateway. Runs under Debian's own python3, where
# apt installs Selenium.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh python3 chromium chromium-driver python3-selenium python3-jinja2 python3-yaml prometheus mosquitto mosquitto-clients openssl
swift build --product acceld 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
swift build --product acceld-gateway 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
[ -x .build/debug/acceld ] && [ -x .build/debug/acceld-gateway ] || { echo "gateway-test: the build failed" >&2; exit 1; }
cd scripts/gateway
# Arguments name test classes or methods (test_gateway.Fleet); none: all.
# The run ends with each test's time, slowest first.
exec /usr/bin/python3 run_tests.py "$@"
