#!/usr/bin/env bash
# A Java runtime (17 or newer) for the Spark job's tests (pyspark runs Spark in a JVM), from
# Debian's packages. Idempotent: nothing happens when `java` is already 17 or newer.
set -euo pipefail
java_major() {
  java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1
}
if command -v java >/dev/null 2>&1 && [ "$(java_major)" -ge 17 ] 2>/dev/null; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# The JRE's post-install step expects the man directory that slim images leave out.
$SUDO mkdir -p /usr/share/man/man1
$SUDO apt-get install -y -qq --no-install-recommends default-jre-headless >/dev/null
java -version
