#!/usr/bin/env bash
# test/run.sh — the test command (make test runs it after building).
#
# Runs every unit test binary (build/test/unit_* for each test/unit/unit_*.c, and
# build/test/musl_bearssl), every fuzz target once over its checked-in seeds
# (build/fuzz/fuzz_* on test/fuzz/corpus/fuzz_*: no fuzzing), then
# test/e2e/e2e.sh (HTTP/1.1), test/e2e/e2e_h2.sh (HTTP/2), test/e2e/e2e_tls.sh
# (https://, both protocols), test/e2e/e2e_tls_choice.sh (--tls-max, --ciphers, ...), test/e2e/e2e_hostile.sh (misbehaving servers:
# test/servers/hostile_server.js), test/e2e/e2e_hostile_cases.sh (the hostile case
# table: HTTP/1.1, HTTP/2 and TLS cases played by test/servers/hostile_server.js,
# QUIC/HTTP/3 ones, before, during and after the handshake, by
# test/servers/hostile_quic_server.js), test/e2e/e2e_h3.sh (HTTP/3: Caddy, Bun, Deno and ngtcp2, and through
# test/servers/udp_impair.js), test/e2e/e2e_rate.sh (the open model, -q: the schedule
# as servers saw it, a stalling server, too few connections) and
# test/e2e/e2e_live.sh (the live view in a tmux pane, and piped),
# test/e2e/e2e_shard.sh (--shard and --start-at: shards run at once add up),
# test/e2e/e2e_merge.sh (shb merge: shards' and runs' reports into one),
# test/e2e/e2e_slurm.sh (shb as a Slurm job array on a single-node cluster the
# suite starts, then shb merge),
# test/e2e/e2e_longrun.sh (stream id exhaustion, key updates, far packet numbers
# through the test build's knobs; flat memory), test/e2e/e2e_hdrlog.sh
# (--hdr-log read back by HdrHistogram's own Java library),
# test/e2e/e2e_toolbox.sh (-V, the completion scripts in bash, zsh and fish,
# the man page, make install), test/e2e/e2e_conn.sh (--unix-socket and
# --bind: nginx on unix sockets, source addresses seen by the servers),
# test/e2e/e2e_addr.sh (--connect-to, --resolve, -4 and -6: names no
# resolver knows, each at its own server, Host and SNI as nginx logs them) and
# test/e2e/e2e_signals.sh (SIGINT and SIGTERM as timeout(1) and orchestrators
# send them: every run keeps its report) and test/e2e/e2e_request.sh (the
# request as echo servers of all three protocols record it; refused headers)
# and test/e2e/e2e_mtls.sh (--cert/--key: nginx, s_server, Caddy and ngtcp2
# requiring a client certificate; every bad file refused) and
# test/e2e/e2e_cacert.sh (--cacert: good chains pass, a wrong name, an
# expired certificate and an unknown CA fail with the reason),
# test/e2e/e2e_gates.sh (--fail-if thresholds held and failed, exit statuses
# 0, 1 and 3) and test/e2e/e2e_resume.sh (--tls-resume: nginx and ngtcp2
# resuming with their tickets, counted on both sides) and
# test/e2e/e2e_early.sh (--early-data: nginx accepting and rejecting 0-RTT,
# counted on both sides) and test/e2e/e2e_html.sh (the HTML report: pages
# from runs and from reports, opened in headless Chromium) against ./shb (static
# musl) and build/asan/shb (ASan + UBSan).
# Then test/interop/interop.sh (the interop matrix: every installed HTTP server,
# every protocol it speaks) with both builds.
# Echoes every PASS/FAIL line as it comes, and ends with exactly one line:
# "N passed, N failed".
# Exit status 0 only when nothing failed and something passed.
set -u
shopt -s lastpipe nullglob
cd "$(dirname "$0")/.." || exit 2

PASSED=0
FAILED=0

# --only "SUITE...": only these end-to-end suites (e.g. make hostile), no
# unit tests and no fuzz seeds.
ONLY=""
if [ "${1:-}" = --only ]; then
    ONLY=${2:?--only needs a list of suites}
fi

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

# children_cpu_ms: sets CPU_MS to the CPU time (user + system, ms) of every
# child this shell has waited for, from bash's times builtin (in this shell:
# a $(...) would be a subshell with children of its own). A part's CPU time
# beside its wall time says whether it waits, and could share the CPUs with
# another part, or computes.
CPU_TIMES=$(mktemp /tmp/shb-times.XXXXXX)
trap 'rm -f "$CPU_TIMES"' EXIT
children_cpu_ms() {
    local u s
    times >"$CPU_TIMES"
    { read -r _ _; read -r u s; } <"$CPU_TIMES"
    CPU_MS=$(( $(to_ms "$u") + $(to_ms "$s") ))
}
# to_ms 1m2.345s: milliseconds.
to_ms() {
    local t=${1%s} m sec
    m=${t%%m*}; sec=${t#*m}
    echo $(( m * 60000 + 10#${sec%.*} * 1000 + 10#${sec#*.} ))
}

# run_counted NAME TIMEOUT CMD...: runs CMD, streaming its stdout through
# count_line. stderr goes to a file and is shown (tail) only when the program
# fails. A non-zero exit without any FAIL line of its own counts as one FAIL.
run_counted() {
    local name=$1 limit=$2 rc fails_before errf started=$SECONDS cpu_before
    shift 2
    errf=$(mktemp /tmp/shb-run.XXXXXX)
    fails_before=$FAILED
    children_cpu_ms; cpu_before=$CPU_MS
    timeout -k 10 "$limit" "$@" </dev/null 2>"$errf" | while IFS= read -r line; do
        count_line "$line"
    done
    rc=${PIPESTATUS[0]}
    children_cpu_ms
    part_done "$name" "$limit" "$rc" "$errf" "$fails_before" $((SECONDS - started)) $((CPU_MS - cpu_before))
}

# run_aside NAME TIMEOUT CMD...: runs CMD as run_counted would, but in the
# background with its output held in files; run_collect NAME then waits for
# it and counts that output, so the log reads as if the parts had run one
# after the other. For parts that can share the CPUs with the one in front.
declare -A ASIDE_DIR ASIDE_PID
run_aside() {
    local name=$1 limit=$2 dir
    shift 2
    dir=$(mktemp -d /tmp/shb-aside.XXXXXX)
    ASIDE_DIR[$name]=$dir
    (
        started=$SECONDS
        timeout -k 10 "$limit" "$@" </dev/null >"$dir/out" 2>"$dir/err"
        echo "$? $((SECONDS - started))" >"$dir/rc"
        times >"$dir/times"
    ) &
    ASIDE_PID[$name]=$!
}
run_collect() {
    local name=$1 limit=$2 dir=${ASIDE_DIR[$1]} rc secs u s fails_before=$FAILED
    wait "${ASIDE_PID[$name]}"
    read -r rc secs <"$dir/rc" || { rc=1; secs=0; }
    { read -r _ _; read -r u s; } <"$dir/times"
    while IFS= read -r line; do
        count_line "$line"
    done <"$dir/out"
    part_done "$name" "$limit" "$rc" "$dir/err" "$fails_before" "$secs" $(( $(to_ms "$u") + $(to_ms "$s") ))
    rm -rf "$dir"
}

# part_done NAME TIMEOUT RC ERRFILE FAILS_BEFORE SECONDS CPU_MS: a part's
# end: a FAIL for an exit without one, its stderr when it failed, and its
# cost (removes ERRFILE).
part_done() {
    local name=$1 limit=$2 rc=$3 errf=$4 fails_before=$5 secs=$6 cpu_ms=$7
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
    # What each part costs, so CI's time (aim: 20 minutes) can be kept.
    echo "  ($name: $secs s, CPU $((cpu_ms / 1000)) s)"
}

# Sanitizer settings for everything built with -fsanitize (unit tests and
# build/asan/shb). Leak detection stays on; halt at the first UBSan report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=86}

# --- unit tests -------------------------------------------------------------
unit_tests() {
    local units=() src bin name
    echo "== unit tests"
    for src in test/unit/unit_*.c; do
        units+=("build/test/$(basename "$src" .c)")
    done
    units+=("build/test/musl_bearssl")
    # One per CPU at once (they compute), counted in their order.
    local width pending=()
    width=$(nproc 2>/dev/null || echo 2)
    for bin in "${units[@]}"; do
        name=$(basename "$bin")
        if [ ! -x "$bin" ]; then
            fail "$name: $bin was not built (run: make unit)"
            continue
        fi
        run_aside "$name" 300 "$bin"
        pending+=("$name")
        if [ "${#pending[@]}" -ge "$width" ]; then
            run_collect "${pending[0]}" 300
            pending=("${pending[@]:1}")
        fi
    done
    for name in "${pending[@]}"; do
        run_collect "$name" 300
    done
}

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

fuzz_seeds() {
    local src started=$SECONDS
    echo "== fuzz targets: seed corpora"
    for src in test/fuzz/fuzz_*.c; do
        fuzz_corpus "$(basename "$src" .c)"
    done
    echo "  (fuzz seed corpora: $((SECONDS - started)) s)"
}

# --- a short fuzzing run -------------------------------------------------------
# Every target fuzzes for FUZZ_TEST_SECONDS (15; 0 skips) on its corpus
# (test/fuzz/fuzz.sh: build/fuzz/corpus/<target>, the seeds plus what earlier
# runs found), one target per CPU at once: ten targets, 150 s of fuzzing,
# 75 s on two CPUs. A crash is a FAIL naming its reproducer, which then
# becomes a regress_* seed.
fuzz_short() {
    local secs=${FUZZ_TEST_SECONDS:-15} targets=() src
    [ "$secs" -gt 0 ] 2>/dev/null || return 0
    for src in test/fuzz/fuzz_*.c; do
        targets+=("$(basename "$src" .c)")
    done
    echo "== fuzz targets: ${secs} s each"
    run_counted "fuzz ${secs}s" $((secs * ${#targets[@]} + 120)) bash test/fuzz/fuzz.sh "$secs" "${targets[@]}"
}

if [ -z "$ONLY" ]; then
    unit_tests
    fuzz_seeds
    fuzz_short
fi

# --- end-to-end -------------------------------------------------------------
# suite NAME LIMIT SCRIPT TITLE [together]: one end-to-end suite against both
# builds (musl first); skipped when the run is limited to other suites.
# "together" runs the two at once (the ASan pass aside, its lines counted
# after the musl pass's): for suites that mostly wait (on timeouts, servers,
# handshakes) and check counts and contents, not how long things took. The
# suites that time things (the schedule, the live view's refresh, signals
# cut at a set moment, intervals) run one build at a time.
suite() {
    local name=$1 limit=$2 script=$3 title=$4 mode=${5:-}
    case " ${ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
    if [ "$mode" = together ]; then
        run_aside "${name}[asan]" "$((limit * 3 / 2))" env SHB=build/asan/shb SHB_FLAVOUR=asan bash "$script"
    fi
    echo "== $title: ./shb (static musl)"
    run_counted "${name}[musl]" "$limit" env SHB=./shb SHB_FLAVOUR=musl bash "$script"
    echo "== $title: build/asan/shb (ASan + UBSan)"
    if [ "$mode" = together ]; then
        run_collect "${name}[asan]" "$((limit * 3 / 2))"
    else
        run_counted "${name}[asan]" "$((limit * 3 / 2))" env SHB=build/asan/shb SHB_FLAVOUR=asan bash "$script"
    fi
}
suite e2e 300 test/e2e/e2e.sh "end-to-end" together
suite e2e-h2 300 test/e2e/e2e_h2.sh "end-to-end HTTP/2" together
suite e2e-tls 300 test/e2e/e2e_tls.sh "end-to-end TLS" together
suite e2e-tls-choice 240 test/e2e/e2e_tls_choice.sh "the TLS the user chooses (--tls-max, --ciphers, --curves, ...)" together
suite e2e-hostile 360 test/e2e/e2e_hostile.sh "end-to-end hostile servers" together
suite e2e-hostile-cases 600 test/e2e/e2e_hostile_cases.sh "hostile-server case table" together
suite e2e-h3 300 test/e2e/e2e_h3.sh "end-to-end HTTP/3" together
suite e2e-rate 180 test/e2e/e2e_rate.sh "open model (-q/--rate)"
suite e2e-live 120 test/e2e/e2e_live.sh "live view (in tmux)"
suite e2e-shard 120 test/e2e/e2e_shard.sh "shards and a common start (--shard, --start-at)"
suite e2e-merge 180 test/e2e/e2e_merge.sh "shb merge: reports into one, histograms bucket by bucket" together
suite e2e-multi 120 test/e2e/e2e_multi.sh "several targets side by side (shb URL URL...)" together
suite e2e-slurm 90 test/e2e/e2e_slurm.sh "shards as a Slurm job array (a single-node cluster), merged"
suite e2e-longrun 240 test/e2e/e2e_longrun.sh "long runs" together
suite e2e-log 240 test/e2e/e2e_log.sh "a log of every request (--log: HTTP/1.1, h2c, HTTP/3; tsv, csv, jsonl)" together
suite e2e-html 300 test/e2e/e2e_html.sh "the HTML report (--html, shb report --html; opened in headless Chromium)"
suite e2e-hdrlog 120 test/e2e/e2e_hdrlog.sh "HdrHistogram interval log (--hdr-log, read by HdrHistogram's Java library)"
suite e2e-toolbox 300 test/e2e/e2e_toolbox.sh "in a toolbox (-V, completions, man page, make install)" together
suite e2e-conn 180 test/e2e/e2e_conn.sh "connections (--unix-socket, --bind)" together
suite e2e-addr 180 test/e2e/e2e_addr.sh "choosing the address (--connect-to, --resolve, -4, -6)" together
suite e2e-signals 240 test/e2e/e2e_signals.sh "signals (SIGINT, SIGTERM: the report is never lost)"
suite e2e-request 180 test/e2e/e2e_request.sh "the request as servers see it (Content-Length, refused headers)" together
suite e2e-auth 180 test/e2e/e2e_auth.sh "credentials (-u, user:password@, --netrc-file), the password in no output" together
suite e2e-mtls 240 test/e2e/e2e_mtls.sh "client certificates (--cert, --key: mutual TLS)" together
suite e2e-gates 180 test/e2e/e2e_gates.sh "gates for CI (--fail-if) and the exit status a run's figures call for" together
suite e2e-cacert 240 test/e2e/e2e_cacert.sh "verifying the server (--cacert: chain, name, expiry; nginx, Caddy)" together
suite e2e-proxy 180 test/e2e/e2e_proxy.sh "through an HTTP proxy (tinyproxy): absolute-form, CONNECT tunnels, credentials, the environment" together
suite e2e-resume 180 test/e2e/e2e_resume.sh "resumed handshakes (--tls-resume: nginx over h1 and h2, ngtcp2 over h3)" together
suite e2e-early 240 test/e2e/e2e_early.sh "0-RTT (--early-data: nginx over h1 and h2, ngtcp2 over h3, accepted and rejected)" together
suite e2e-hrr 180 test/e2e/e2e_hrr.sh "HelloRetryRequest paid once (nginx P-384 over h1 and h2, TLS 1.2 fallback, ngtcp2 P-384 over h3 with 0-RTT)" together
suite e2e-targets 240 test/e2e/e2e_targets.sh "request lists (--targets: nginx h1, h2c, h2, Caddy h3; seq, random, bodies, merge)" together
suite e2e-knobs 180 test/e2e/e2e_knobs.sh "protocol knobs (-w, -W, --max-frame-size, --header-table-size, --max-data, --max-stream-data) and --data-binary" together

# The interop matrix: both builds, each cell run by one after the other
# against the same server instance (test/interop/interop.sh; make interop).
case " ${ONLY:-interop} " in
    *" interop "*)
        echo "== interop matrix: ./shb and build/asan/shb against every installed HTTP server"
        run_counted "interop[musl+asan]" 720 env INTEROP_SHBS="./shb:musl build/asan/shb:asan" bash test/interop/interop.sh
        ;;
esac

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ]
