#!/usr/bin/env bash
# End-to-end tests of `templex serve`: the API against the CLI on the example site and the
# dev data, and the viewer in headless Chromium (installed by scripts/install-browser.sh;
# skipped with a notice without it unless TEMPLEX_REQUIRE_BROWSER is set). Uses the CLI that
# `cargo test` built and a virtualenv of its own.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PYTHON="${PYTHON:-python3}"
VENV="${TEMPLEX_SERVER_VENV:-target/server-test-venv}"

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check "pytest>=7" "ruff>=0.6" "selenium>=4.20,<5"
"$VENV/bin/ruff" check crates/templex-server/tests/py
"$VENV/bin/ruff" format --check crates/templex-server/tests/py

export TEMPLEX_BIN="${TEMPLEX_BIN:-$PWD/target/debug/templex}"
# Selenium must use the driver it is given, never download one.
export SE_OFFLINE=true
cd crates/templex-server/tests/py
"../../../../$VENV/bin/python" -m pytest -q -p no:cacheprovider .
