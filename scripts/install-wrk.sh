#!/usr/bin/env bash
# wrk, the HTTP load generator of the server's bounded load test (bench/serve/run.py --check),
# from Debian's packages. Idempotent.
set -euo pipefail
if command -v wrk >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends wrk >/dev/null
command -v wrk
