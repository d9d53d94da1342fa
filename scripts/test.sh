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

# Property tests draw the same cases on every run here, so a red run can be replayed and a
# green one does not turn red by luck; `cargo test` on its own draws fresh cases each time
# (a new seed: PROPTEST_RNG_SEED=<number> scripts/test.sh).
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261128}"

phase "cargo test: build"
cargo test --workspace --locked --no-run "$@"

phase "cargo test: run"
cargo test --workspace --locked "$@"

phase "Python package"
bash crates/templex-py/scripts/test.sh

phase "server end to end (API, viewer in headless Chromium)"
bash crates/templex-server/scripts/test.sh
