#!/usr/bin/env bash
# Create the throwaway virtualenv bench/peers/.venv holding the peer extractors that
# bench/peers/run.py compares templex with. The peers are never dependencies of the project.
#
#   bash bench/peers/setup.sh           # no-op when the venv is ready for these requirements
#   bash bench/peers/setup.sh --force   # delete and rebuild the venv
#
# Pinned versions: requirements.txt (required) and requirements-optional.txt (each tried on
# its own; one that does not install is reported and skipped, run.py then skips that tool).
# PYTHON selects the interpreter (default python3, 3.9 or newer).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
PY="${PYTHON:-python3}"
STAMP="$VENV/.peers-ready"

if [[ "${1:-}" == "--force" ]]; then
    rm -rf "$VENV"
fi

want="$(cat "$HERE/requirements.txt" "$HERE/requirements-optional.txt" | sha256sum | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(head -n1 "$STAMP")" == "$want" && -x "$VENV/bin/python" ]] &&
    "$VENV/bin/python" -c 'import trafilatura, readability, justext, resiliparse, boilerpy3, lxml' 2>/dev/null; then
    echo "peers venv ready: $VENV"
    tail -n +2 "$STAMP"
    exit 0
fi

"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else "python 3.9+ needed")'
if [[ ! -x "$VENV/bin/python" ]]; then
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$HERE/requirements.txt"

notes=()
while read -r req; do
    req="${req%%#*}"
    req="$(echo "$req" | xargs)"
    [[ -z "$req" ]] && continue
    echo "installing optional peer $req ..."
    if "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$req"; then
        notes+=("optional $req: installed")
    else
        notes+=("optional $req: FAILED to install, skipped (run.py reports it as unavailable)")
    fi
done <"$HERE/requirements-optional.txt"

{
    echo "$want"
    for n in "${notes[@]}"; do echo "$n"; done
} >"$STAMP"
echo "peers venv ready: $VENV"
printf '%s\n' "${notes[@]}"
"$VENV/bin/python" -m pip list --disable-pip-version-check 2>/dev/null |
    grep -iE '^(trafilatura|readability-lxml|justext|resiliparse|boilerpy3|rs-trafilatura|lxml) ' || true
