# Sourced by the CI and test scripts: `phase NAME` starts a named step, and on exit the
# script prints how long each step took, so that a slow CI run shows where its time went.
_PHASE_NAME=""
_PHASE_START=$SECONDS
_PHASES_START=$SECONDS
_PHASE_TIMES=()

_phase_end() {
  if [ -n "$_PHASE_NAME" ]; then
    _PHASE_TIMES+=("$(printf '%6ds  %s' $((SECONDS - _PHASE_START)) "$_PHASE_NAME")")
  fi
  _PHASE_NAME=""
}

phase() {
  _phase_end
  _PHASE_NAME="$1"
  _PHASE_START=$SECONDS
  echo "== $1"
}

_phases_report() {
  local status=$?
  _phase_end
  echo "== time per step (${PHASES_TITLE:-$0})"
  printf '%s\n' "${_PHASE_TIMES[@]}"
  printf '%6ds  total\n' $((SECONDS - _PHASES_START))
  return "$status"
}
trap _phases_report EXIT
