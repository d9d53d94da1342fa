#!/usr/bin/env bash
# Build the Python package's wheel into a fresh virtualenv and run its tests (pytest, ruff),
# the Spark job's among them.
# The wheel is built with Cargo's dev profile (dependencies optimized, see the workspace's
# Cargo.toml) so that it reuses what `cargo test` built; `pip install ./crates/templex-py`
# builds the release wheel users get. That one is stripped (pyproject.toml); this one keeps
# the dev profile's line tables for backtraces (`--strip false`, maturin 1.12 or newer).
set -euo pipefail
cd "$(dirname "$0")/../../.."
PHASES_TITLE="crates/templex-py/scripts/test.sh"
source scripts/lib/phases.sh
PYTHON="${PYTHON:-python3}"
VENV="${TEMPLEX_VENV:-target/py-test-venv}"
WHEELS=target/py-wheels

phase "virtualenv and test tools"
rm -rf "$VENV" "$WHEELS"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.12,<2" "pytest>=7" "ruff>=0.6"
# The Spark job's tests need pyspark and a Java runtime (scripts/install-java.sh); without
# Java they are skipped with a notice, unless TEMPLEX_REQUIRE_SPARK is set.
if command -v java >/dev/null 2>&1 || [ -n "${TEMPLEX_REQUIRE_SPARK:-}" ]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "pyspark==4.0.1"
fi
phase "the wheel (maturin, dev profile)"
"$VENV/bin/maturin" build --quiet --profile dev --strip false \
  --manifest-path crates/templex-py/Cargo.toml --interpreter "$VENV/bin/python" --out "$WHEELS"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps "$WHEELS"/templex-*.whl

phase "ruff"
"$VENV/bin/ruff" check crates/templex-py
"$VENV/bin/ruff" format --check crates/templex-py

# The equality tests compare with the CLI that `cargo test` built.
export TEMPLEX_BIN="${TEMPLEX_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/templex}"
phase "pytest (the Spark job's among them)"
cd crates/templex-py
"../../$VENV/bin/python" -m pytest -q tests
