#!/usr/bin/env bash
# Headless Chromium and its WebDriver for the viewer's browser tests, from Debian's packages
# (a test tool's own browser download does not work offline). Idempotent.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
chromium --version
chromedriver --version
