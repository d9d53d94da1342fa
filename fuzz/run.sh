#!/usr/bin/env bash
# Seed and run every fuzz target in turn, one libFuzzer process at a time, and print the
# executions per target.
#
# Usage (from anywhere; needs a nightly toolchain and `cargo install cargo-fuzz --locked`):
#
#   bash fuzz/run.sh [SECONDS] [TARGET...]
#
#   SECONDS     fuzzing time per target (default 600); TIME_<target>=S overrides it for one
#               target, e.g. TIME_parse=1200 TIME_batch=900 bash fuzz/run.sh 600
#   TARGET      parse content template warc batch (default: all, in that order)
#
# Environment:
#   TEMPLEX_DATA      the dev data for the seeds (default ../shared/data; see seed.sh)
#   SMALL_SHARE       percent of a fast target's time (parse, content, warc) spent first
#                     with inputs cut to SMALL_MAX_LEN bytes (default 75): the mutations
#                     that break tokenizers, tree builders and record readers are local,
#                     and small inputs run ten to fifty times as many executions; the rest
#                     of the time runs with MAX_LEN (default 262144), seeds at full size.
#                     0 turns the small phase off.
#   SMALL_MAX_LEN     default 256 (512 for warc: a record header alone is ~200 bytes);
#                     SMALL_MAX_LEN_<target> overrides it for one target
#   NICE              niceness of builds and runs (default 10)
#
# Every run: -timeout=10 -rss_limit_mb=4096 -max_len=$MAX_LEN -dict=fuzz/html.dict, a
# single process (no -jobs/-workers), rayon with one thread, builds with one job. The build
# is `cargo fuzz build -s none --debug-assertions --no-trace-compares`: templex has no
# unsafe code, so the address sanitizer would mostly slow it down; debug assertions make
# integer overflows and debug_assert!s findings; compare tracing is left out for speed (the
# dictionary stands in for it). A crash, timeout or OOM stops libFuzzer: its input is saved
# under fuzz/artifacts/<target>/ and the target is restarted for the rest of its time (at
# most 5 times). Logs: fuzz/logs/<target>-<n>.log; the table: fuzz/logs/summary.txt.
# Minimize a finding with
#   cargo +nightly fuzz tmin -s none --debug-assertions --no-trace-compares <target> <artifact>
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
secs="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse content template warc batch)
nice_n="${NICE:-10}"
small_share="${SMALL_SHARE:-75}"
small_len="${SMALL_MAX_LEN:-256}"
SMALL_MAX_LEN_warc="${SMALL_MAX_LEN_warc:-512}"
max_len="${MAX_LEN:-262144}"
build_flags=(-s none --debug-assertions --no-trace-compares)
export CARGO_BUILD_JOBS=1 RAYON_NUM_THREADS=1

bash "$here/seed.sh"
nice -n "$nice_n" cargo +nightly fuzz build "${build_flags[@]}"
mkdir -p logs
summary="$here/logs/summary.txt"
printf '%-9s %-6s %12s %8s %9s %8s %s\n' target phase execs seconds exec/s corpus findings | tee "$summary"

# Runs target $1 for $2 seconds with -max_len=$3; phase name $4. Prints one summary line.
run_phase() {
    local t=$1 budget=$2 len=$3 phase=$4
    local start now left n=0 execs=0 total=0 log units
    start=$(date +%s)
    while :; do
        now=$(date +%s)
        left=$((budget - (now - start)))
        [ "$left" -ge 5 ] && [ "$n" -le 5 ] || break
        n=$((n + 1))
        log="logs/$t-$phase-$n.log"
        # cargo fuzz run exits non-zero on a finding; the loop goes on.
        nice -n "$nice_n" cargo +nightly fuzz run "${build_flags[@]}" "$t" "corpus/$t" -- \
            -max_total_time="$left" -timeout=10 -rss_limit_mb=4096 -max_len="$len" \
            -dict=html.dict -print_final_stats=1 >"$log" 2>&1 || true
        units=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
        if [ -z "$units" ]; then
            units=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
        fi
        execs=$((execs + ${units:-0}))
        grep -q 'Test unit written to' "$log" && grep 'Test unit written to' "$log" | sed 's/^/    /' >&2
        # A run that ended by its time limit is done.
        grep -q '^Done [0-9]* runs in' "$log" && break
    done
    now=$(date +%s)
    total=$((now - start))
    local corpus findings
    corpus=$(find "corpus/$t" -type f | wc -l)
    findings=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) 2>/dev/null | grep -vc 'minimized' || true)
    printf '%-9s %-6s %12d %8d %9d %8d %s\n' "$t" "$phase" "$execs" "$total" \
        $((execs / (total > 0 ? total : 1))) "$corpus" "$findings" | tee -a "$summary"
    echo "$execs" >>"logs/.execs"
}

rm -f logs/.execs
for t in "${targets[@]}"; do
    var="TIME_$t"
    budget="${!var:-$secs}"
    case "$t" in
    parse | content | warc)
        small=$((budget * small_share / 100))
        lvar="SMALL_MAX_LEN_$t"
        [ "$small" -gt 0 ] && run_phase "$t" "$small" "${!lvar:-$small_len}" small
        run_phase "$t" $((budget - small)) "$max_len" full
        ;;
    *) run_phase "$t" "$budget" "$max_len" full ;;
    esac
done
total=$(awk '{ s += $1 } END { print s }' logs/.execs)
echo "total executions: $total" | tee -a "$summary"
