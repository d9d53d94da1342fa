#!/usr/bin/env bash
# End-to-end tests of `templex serve`: the API against the CLI on the example site and the
# dev data, and the viewer in headless Chromium (installed by scripts/install-browser.sh;
# skipped with a notice without it unless TEMPLEX_REQUIRE_BROWSER is set); then a bounded
# load test with wrk (scripts/install-wrk.sh; the same rule, TEMPLEX_REQUIRE_WRK). Uses the
# CLI that `cargo test` built and a virtualenv of its own.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PHASES_TITLE="crates/templex-server/scripts/test.sh"
source scripts/lib/phases.sh
PYTHON="${PYTHON:-python3}"
VENV="${TEMPLEX_SERVER_VENV:-target/server-test-venv}"

phase "virtualenv and test tools"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check "pytest>=7" "ruff>=0.6" "selenium>=4.20,<5"
"$VENV/bin/ruff" check crates/templex-server/tests/py
"$VENV/bin/ruff" format --check crates/templex-server/tests/py

export TEMPLEX_BIN="${TEMPLEX_BIN:-$PWD/target/debug/templex}"
# Selenium must use the driver it is given, never download one.
export SE_OFFLINE=true
phase "pytest: the API and the viewer"
cd crates/templex-server/tests/py
"../../../../$VENV/bin/python" -m pytest -q -p no:cacheprovider .

# The bounded load test: thousands of requests at 64 connections, zero errors, 503s when
# overloaded, memory at rest that does not climb (bench/serve/run.py --check).
phase "the load test (wrk)"
cd ../../../..
DATA="${TEMPLEX_DATA:-../shared/data}"
if ! command -v wrk >/dev/null 2>&1; then
  if [ -n "${TEMPLEX_REQUIRE_WRK:-}" ]; then
    echo "TEMPLEX_REQUIRE_WRK is set but wrk is not installed (scripts/install-wrk.sh)" >&2
    exit 1
  fi
  echo "NOTICE: skipping the server load test: wrk not found (scripts/install-wrk.sh)"
elif [ ! -d "$DATA/pagelevel/scrapinghub-aeb" ]; then
  if [ -n "${TEMPLEX_REQUIRE_DATA:-}" ]; then
    echo "TEMPLEX_REQUIRE_DATA is set but $DATA/pagelevel/scrapinghub-aeb is missing" >&2
    exit 1
  fi
  echo "NOTICE: skipping the server load test: scrapinghub-aeb not found (set TEMPLEX_DATA)"
else
  TEMPLEX_DATA="$DATA" "$PYTHON" bench/serve/run.py --check --bin "$TEMPLEX_BIN" --requests 3000
fi
