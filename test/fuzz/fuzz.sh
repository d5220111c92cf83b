#!/usr/bin/env bash
# test/fuzz/fuzz.sh SECONDS TARGET... — what `make fuzz` runs once the
# targets are built: each build/fuzz/TARGET for SECONDS, one after another
# (one process each, no -jobs), on build/fuzz/corpus/TARGET: a copy of its
# seeds (test/fuzz/corpus/TARGET) plus whatever earlier runs added there.
# Nothing is written into test/.
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
failed=0
for t in "$@"; do
    bin=build/fuzz/$t
    corpus=build/fuzz/corpus/$t
    art=build/fuzz/artifacts/$t
    log=build/fuzz/$t.log
    if [ ! -x "$bin" ]; then
        echo "FAIL fuzz $t: $bin was not built"
        failed=1
        continue
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
        continue
    fi
    failed=1
    repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    what=$(grep -m 1 -E 'invariant broken|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log")
    echo "FAIL fuzz $t: exit $rc: ${what:-see $log}"
    echo "  reproducer: ${repro:-none saved} (run: $bin ${repro:-<input>}; log: $log)"
done
exit "$failed"
