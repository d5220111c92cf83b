#!/usr/bin/env bash
# test/fuzz/fuzz.sh SECONDS TARGET... — what `make fuzz` runs once the
# targets are built: each build/fuzz/TARGET for SECONDS (one process each,
# no -jobs), on build/fuzz/corpus/TARGET: a copy of its seeds
# (test/fuzz/corpus/TARGET) plus whatever earlier runs added there.
# Nothing is written into test/.
#
# FUZZ_JOBS targets run at once (default: one per CPU, nproc): each target
# is one single-threaded process that fuzzes for its SECONDS of wall time
# whatever the others do, so on N CPUs the run takes SECONDS per N targets
# instead of SECONDS per target, and each target still gets its own CPU.
#
# Prints one line per target, "PASS fuzz TARGET: ..." with the executions
# and the corpus size, or "FAIL fuzz TARGET: ..." with what broke and the
# reproducer libFuzzer saved (build/fuzz/artifacts/TARGET/crash-*, or
# timeout-* / oom-*); the full output is in build/fuzz/TARGET.log. Exit
# status 1 if any target failed.
set -u
cd "$(dirname "$0")/../.." || exit 2

if [ $# -lt 2 ]; then
    echo "usage: $0 SECONDS TARGET..." >&2
    exit 2
fi
secs=$1
shift
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1

# fuzz_one TARGET: fuzzes TARGET for $secs and prints its PASS or FAIL
# line(s); exit status 1 if it failed.
fuzz_one() {
    local t=$1 bin corpus art log rc execs inputs repro what
    bin=build/fuzz/$t
    corpus=build/fuzz/corpus/$t
    art=build/fuzz/artifacts/$t
    log=build/fuzz/$t.log
    if [ ! -x "$bin" ]; then
        echo "FAIL fuzz $t: $bin was not built"
        return 1
    fi
    mkdir -p "$corpus" "$art"
    cp test/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null
    # -timeout: one input running 10 s is a hang; -rss_limit_mb: libFuzzer's default.
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$art/" "$corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    inputs=$(find "$corpus" -type f | wc -l)
    if [ "$rc" -eq 0 ]; then
        echo "PASS fuzz $t: ${secs}s, ${execs:-?} execs, corpus $inputs inputs"
        return 0
    fi
    repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    what=$(grep -m 1 -E 'invariant broken|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log")
    # One printf, one write: another target's line cannot land in between.
    printf 'FAIL fuzz %s: exit %s: %s\n  reproducer: %s (run: %s %s; log: %s)\n' \
        "$t" "$rc" "${what:-see $log}" "${repro:-none saved}" "$bin" "${repro:-<input>}" "$log"
    return 1
}

# Up to $jobs targets at once; each one's lines are printed whole, in the
# order the targets finish.
failed=0 running=0
for t in "$@"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
exit "$failed"
