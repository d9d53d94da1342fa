#!/usr/bin/env bash
# The tests, on a fresh machine with a Rust toolchain and Python 3.9+: the Rust workspace
# (`cargo test`), then the Python package built into a fresh virtualenv and tested with
# pytest. Extra arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
PHASES_TITLE="scripts/test.sh"
source scripts/lib/phases.sh

phase "documentation links (README, docs/, BENCHMARKS, code comments)"
python3 scripts/check-md-anchors.py

phase "cargo test: build"
cargo test --workspace --locked --no-run "$@"

phase "cargo test: run"
cargo test --workspace --locked "$@"

phase "Python package"
bash crates/templex-py/scripts/test.sh

phase "server end to end (API, viewer in headless Chromium)"
bash crates/templex-server/scripts/test.sh
