#!/usr/bin/env bash
# test/run.sh — the test command (make test runs it after building).
#
# Runs every unit test binary (build/test/unit_* for each test/unit_*.c, and
# build/test/musl_bearssl), every fuzz target once over its checked-in seeds
# (build/fuzz/fuzz_* on test/fuzz/corpus/fuzz_*: no fuzzing), then
# test/e2e.sh (HTTP/1.1), test/e2e_h2.sh (HTTP/2), test/e2e_tls.sh
# (https://, both protocols), test/e2e_hostile.sh (misbehaving servers:
# test/hostile_server.js), test/e2e_hostile_udp.sh (--http3 against UDP
# servers that misbehave before any handshake: test/hostile_udp_server.js)
# and test/e2e_h3.sh (HTTP/3: Caddy and Bun, and through
# test/udp_impair.js) against ./shb (static musl) and build/asan/shb (ASan +
# UBSan).
# Echoes every PASS/FAIL line as it comes, and ends with exactly one line:
# "N passed, N failed".
# Exit status 0 only when nothing failed and something passed.
set -u
shopt -s lastpipe nullglob
cd "$(dirname "$0")/.." || exit 2

PASSED=0
FAILED=0

# count_line LINE: echo and count a PASS/FAIL line; other lines are
# echoed indented (diagnostics), SKIP lines as they are.
count_line() {
    local line=$1
    case "$line" in
        "PASS "*) PASSED=$((PASSED + 1)); printf '%s\n' "$line" ;;
        "FAIL "*) FAILED=$((FAILED + 1)); printf '%s\n' "$line" ;;
        "SKIP "*) printf '%s\n' "$line" ;;
        "") ;;
        *) printf '  %s\n' "$line" ;;
    esac
}

fail() {
    FAILED=$((FAILED + 1))
    printf 'FAIL %s\n' "$*"
}

# run_counted NAME TIMEOUT CMD...: runs CMD, streaming its stdout through
# count_line. stderr goes to a file and is shown (tail) only when the program
# fails. A non-zero exit without any FAIL line of its own counts as one FAIL.
run_counted() {
    local name=$1 limit=$2 rc fails_before errf
    shift 2
    errf=$(mktemp /tmp/shb-run.XXXXXX)
    fails_before=$FAILED
    timeout -k 10 "$limit" "$@" </dev/null 2>"$errf" | while IFS= read -r line; do
        count_line "$line"
    done
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ] && [ "$FAILED" -eq "$fails_before" ]; then
        case "$rc" in
            124|137) fail "$name: timed out after ${limit}s" ;;
            *) fail "$name: exited with status $rc without a FAIL line" ;;
        esac
    fi
    if [ "$FAILED" -ne "$fails_before" ] && [ -s "$errf" ]; then
        echo "  --- $name stderr (last 30 lines) ---"
        tail -n 30 "$errf" | sed 's/^/  /'
    fi
    rm -f "$errf"
}

# Sanitizer settings for everything built with -fsanitize (unit tests and
# build/asan/shb). Leak detection stays on; halt at the first UBSan report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=86}

# --- unit tests -------------------------------------------------------------
echo "== unit tests"
units=()
for src in test/unit_*.c; do
    units+=("build/test/$(basename "$src" .c)")
done
units+=("build/test/musl_bearssl")
for bin in "${units[@]}"; do
    name=$(basename "$bin")
    if [ ! -x "$bin" ]; then
        fail "$name: $bin was not built (run: make unit)"
        continue
    fi
    run_counted "$name" 300 "$bin"
done

# --- fuzz targets over their seed corpora ------------------------------------
# Each libFuzzer target runs every seed of test/fuzz/corpus/<target> exactly
# once (seed files as arguments: nothing is mutated, nothing written but a
# crash's copy under build/fuzz/artifacts/): a deterministic regression test.
# A crash, a sanitizer report or a broken invariant fails the target's line.
fuzz_corpus() {
    local name=$1 bin=build/fuzz/$1 log rc seeds
    seeds=(test/fuzz/corpus/"$name"/*)
    if [ ! -x "$bin" ]; then
        fail "fuzz corpus $name: $bin was not built (run: make fuzz-build)"
        return
    fi
    if [ "${#seeds[@]}" -eq 0 ]; then
        fail "fuzz corpus $name: no seeds in test/fuzz/corpus/$name"
        return
    fi
    log=$(mktemp /tmp/shb-fuzz.XXXXXX)
    mkdir -p "build/fuzz/artifacts/$name"
    timeout -k 10 300 "$bin" -artifact_prefix="build/fuzz/artifacts/$name/" "${seeds[@]}" </dev/null >"$log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        count_line "PASS fuzz corpus $name"
    else
        case "$rc" in
            124|137) fail "fuzz corpus $name: timed out after 300s" ;;
            *) fail "fuzz corpus $name: exit $rc on $(sed -n 's/^Running: //p' "$log" | tail -n 1)" ;;
        esac
        echo "  --- $name output (last 30 lines) ---"
        tail -n 30 "$log" | sed 's/^/  /'
    fi
    rm -f "$log"
}

echo "== fuzz targets: seed corpora"
for src in test/fuzz/fuzz_*.c; do
    fuzz_corpus "$(basename "$src" .c)"
done

# --- end-to-end -------------------------------------------------------------
echo "== end-to-end: ./shb (static musl)"
run_counted "e2e[musl]" 300 env SHB=./shb SHB_FLAVOUR=musl bash test/e2e.sh
echo "== end-to-end HTTP/2: ./shb (static musl)"
run_counted "e2e-h2[musl]" 300 env SHB=./shb SHB_FLAVOUR=musl bash test/e2e_h2.sh
echo "== end-to-end TLS: ./shb (static musl)"
run_counted "e2e-tls[musl]" 300 env SHB=./shb SHB_FLAVOUR=musl bash test/e2e_tls.sh
echo "== end-to-end hostile servers: ./shb (static musl)"
run_counted "e2e-hostile[musl]" 420 env SHB=./shb SHB_FLAVOUR=musl bash test/e2e_hostile.sh
echo "== end-to-end hostile UDP servers: ./shb (static musl)"
run_counted "e2e-hostile-udp[musl]" 300 env SHB=./shb SHB_FLAVOUR=musl bash test/e2e_hostile_udp.sh
echo "== end-to-end HTTP/3: ./shb (static musl)"
run_counted "e2e-h3[musl]" 300 env SHB=./shb SHB_FLAVOUR=musl bash test/e2e_h3.sh
echo "== end-to-end: build/asan/shb (ASan + UBSan)"
run_counted "e2e[asan]" 420 env SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e.sh
echo "== end-to-end HTTP/2: build/asan/shb (ASan + UBSan)"
run_counted "e2e-h2[asan]" 420 env SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e_h2.sh
echo "== end-to-end TLS: build/asan/shb (ASan + UBSan)"
run_counted "e2e-tls[asan]" 420 env SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e_tls.sh
echo "== end-to-end hostile servers: build/asan/shb (ASan + UBSan)"
run_counted "e2e-hostile[asan]" 480 env SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e_hostile.sh
echo "== end-to-end hostile UDP servers: build/asan/shb (ASan + UBSan)"
run_counted "e2e-hostile-udp[asan]" 300 env SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e_hostile_udp.sh
echo "== end-to-end HTTP/3: build/asan/shb (ASan + UBSan)"
run_counted "e2e-h3[asan]" 420 env SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e_h3.sh

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ]
