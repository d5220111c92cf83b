#!/usr/bin/env bash
# scripts/bench.sh — `make bench`: shb beside wrk and h2load against one local
# nginx (1 worker, no access log, keep-alive never ended by the server,
# `return 200 "hello, world!"`). A benchmark, not a test: it prints a table
# and whether the targets were met, and exits non-zero only when a tool
# failed to run.
#
#   ROUNDS=3 DURATION=5 CONNECTIONS=50 THREADS=1 bash scripts/bench.sh
#
# Rounds alternate shb, wrk, h2load so drift hits all three alike. Client CPU
# is user+sys from GNU time. Then valgrind counts shb's heap allocations for
# -n 1000 and -n 50000: they must be equal (memory is fixed at start-up).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=test/lib.sh
. test/lib.sh
trap lib_cleanup EXIT
trap 'exit 130' INT TERM

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
DURATION=${DURATION%s}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-1}
SHB=${SHB:-./shb}
SHB_GLIBC=${SHB_GLIBC:-build/glibc/shb}
GNU_TIME=/usr/bin/time

for tool in "$SHB" wrk h2load nginx jq "$GNU_TIME"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "bench: $tool not found (make; bash scripts/deps.sh)" >&2
        exit 1
    fi
done

lib_init
start_nginx test/nginx-bench.conf.in bench || { echo "bench: nginx did not start" >&2; exit 1; }
URL="http://127.0.0.1:$NGINX_PORT/"
T=$LIB_TMP
RESULTS=$T/results # lines: tool round reqs req/s cpu_seconds
: >"$RESULTS"
FAILED_TOOLS=0

echo "nginx $(nginx -v 2>&1 | sed 's|.*/||'), 1 worker, $URL"
echo "$ROUNDS rounds x ${DURATION}s, -c $CONNECTIONS -t $THREADS, $(nproc) CPUs"
echo

# timed TOOL ROUND CMD...: runs CMD under GNU time; output in $T/out, CPU in $T/time.
timed() {
    local tool=$1 round=$2
    shift 2
    if ! timeout -k 5 $((DURATION * 3 + 30)) "$GNU_TIME" -f '%U %S' -o "$T/time" "$@" >"$T/out" 2>"$T/err"; then
        echo "bench: $tool failed (round $round): $*" >&2
        tail -n 5 "$T/err" "$T/out" >&2 || true
        FAILED_TOOLS=$((FAILED_TOOLS + 1))
        return 1
    fi
    return 0
}

cpu_of() { awk 'END { printf "%.2f", $1 + $2 }' "$T/time"; }

record() { # tool round reqs rps
    local cpu
    cpu=$(cpu_of)
    if [ -z "$3" ] || [ -z "$4" ] || [ "$3" = 0 ]; then
        echo "bench: could not read $1's results (round $2)" >&2
        sed 's/^/  /' "$T/out" >&2
        FAILED_TOOLS=$((FAILED_TOOLS + 1))
        return 0
    fi
    printf '%s %s %s %s %s\n' "$1" "$2" "$3" "$4" "$cpu" >>"$RESULTS"
    printf '  round %s  %-7s %10.0f req/s  %9s requests  %6.2f s CPU  %6.2f us/request\n' \
        "$2" "$1" "$4" "$3" "$cpu" "$(awk -v c="$cpu" -v n="$3" 'BEGIN { printf "%.3f", c * 1e6 / n }')"
}

for round in $(seq 1 "$ROUNDS"); do
    if timed shb "$round" "$SHB" -z "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" -j "$URL"; then
        reqs=$(jq -r '.requests.ok' "$T/out" 2>/dev/null || true)
        rps=$(jq -r '.requestsPerSec' "$T/out" 2>/dev/null || true)
        errs=$(jq -r '.requests.errors' "$T/out" 2>/dev/null || true)
        [ "${errs:-0}" = 0 ] || echo "  (shb reported $errs errors)"
        record shb "$round" "$reqs" "$rps"
    fi
    if timed wrk "$round" wrk -d "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" "$URL"; then
        reqs=$(awk '/ requests in / { print $1 }' "$T/out")
        rps=$(awk '/^Requests\/sec:/ { print $2 }' "$T/out")
        grep -E 'Socket errors|Non-2xx' "$T/out" | sed 's/^ */  (wrk) /' || true
        record wrk "$round" "$reqs" "$rps"
    fi
    if timed h2load "$round" h2load --h1 -D "$DURATION" -c "$CONNECTIONS" -t "$THREADS" "$URL"; then
        # "requests: N total, N started, N done, N succeeded, N failed, ...":
        # count the succeeded ones ($8), report any failed ($10).
        reqs=$(awk '/^requests: / { print $8 }' "$T/out")
        rps=$(awk '/^finished in / { print $4 }' "$T/out")
        awk '/^requests: / && $10 != 0 { print "  (h2load) " $0 }' "$T/out"
        record h2load "$round" "$reqs" "$rps"
    fi
done

# --- summary ------------------------------------------------------------------------
# median of a column for one tool: median TOOL FIELD (3 = requests, 4 = req/s, 6 = us/request)
median() {
    awk -v t="$1" -v f="$2" '$1 == t { print (f == 6 ? $5 * 1e6 / $3 : $f) }' "$RESULTS" |
        sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) { print "nan"; exit } if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b == 0) print "n/a"; else printf "%.3f", a / b }'; }

S_RPS=$(median shb 4); W_RPS=$(median wrk 4); H_RPS=$(median h2load 4)
S_CPU=$(median shb 6); W_CPU=$(median wrk 6); H_CPU=$(median h2load 6)

echo
echo "median of $ROUNDS rounds, -c $CONNECTIONS -t $THREADS, ${DURATION}s each"
printf '  %-8s %14s %18s\n' tool "req/s" "CPU us/request"
printf '  %-8s %14.0f %18.3f\n' shb "$S_RPS" "$S_CPU" wrk "$W_RPS" "$W_CPU" h2load "$H_RPS" "$H_CPU" 2>/dev/null
printf '  %-8s %14s %18s\n' "shb/wrk" "$(ratio "$S_RPS" "$W_RPS")" "$(ratio "$S_CPU" "$W_CPU")"
printf '  %-8s %14s %18s\n' "shb/h2ld" "$(ratio "$S_RPS" "$H_RPS")" "$(ratio "$S_CPU" "$H_CPU")"

met() { if awk "BEGIN { exit !($1) }"; then echo "met"; else echo "NOT met"; fi; }
if [ "$S_RPS" != nan ] && [ "$W_RPS" != nan ]; then
    rps_mark=$(met "$S_RPS >= $W_RPS")
    cpu_mark=$(met "$S_CPU <= 0.8 * $W_CPU")
else
    rps_mark="n/a"
    cpu_mark="n/a"
fi
echo
echo "target: shb req/s >= wrk req/s; shb CPU/request <= 0.8 x wrk"
echo "  req/s:       $rps_mark ($(ratio "$S_RPS" "$W_RPS") x wrk)"
echo "  CPU/request: $cpu_mark ($(ratio "$S_CPU" "$W_CPU") x wrk)"

# --- allocations do not grow with -n ---------------------------------------------------
echo
if ! command -v valgrind >/dev/null 2>&1; then
    echo "allocations: valgrind not installed, skipped"
elif [ ! -x "$SHB_GLIBC" ]; then
    echo "allocations: $SHB_GLIBC not built (make glibc), skipped"
    FAILED_TOOLS=$((FAILED_TOOLS + 1))
else
    declare -A ALLOCS=()
    for n in 1000 50000; do
        echo "\$ valgrind --tool=memcheck $SHB_GLIBC -n $n -c 10 -t 1 -j $URL"
        if ! timeout -k 5 600 valgrind --tool=memcheck "$SHB_GLIBC" -n "$n" -c 10 -t 1 -j "$URL" >"$T/vg.out" 2>"$T/vg.err"; then
            echo "bench: valgrind run -n $n failed" >&2
            tail -n 20 "$T/vg.err" >&2
            FAILED_TOOLS=$((FAILED_TOOLS + 1))
            continue
        fi
        line=$(grep -m1 'total heap usage:' "$T/vg.err" || true)
        read -r summary <<<"${line#==*==}"
        echo "  $summary"
        echo "  $(jq -c '.requests' "$T/vg.out" 2>/dev/null || echo 'no JSON report')"
        ALLOCS[$n]=$(sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' <<<"$line" | tr -d ,)
    done
    a=${ALLOCS[1000]:-}
    b=${ALLOCS[50000]:-}
    if [ -n "$a" ] && [ -n "$b" ]; then
        if [ "$a" = "$b" ]; then
            echo "allocations: equal ($a allocs for -n 1000 and -n 50000): met"
        else
            echo "allocations: NOT equal ($a allocs for -n 1000, $b for -n 50000): not met"
        fi
    else
        echo "allocations: could not read valgrind's heap summary"
    fi
fi

if [ "$FAILED_TOOLS" -ne 0 ]; then
    echo "bench: $FAILED_TOOLS tool run(s) failed" >&2
    exit 1
fi
