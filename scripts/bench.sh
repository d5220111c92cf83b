#!/usr/bin/env bash
# scripts/bench.sh — `make bench`: shb beside wrk and h2load against one local
# nginx (a worker per CPU, no access log, keep-alive never ended by the server,
# `return 200 "hello, world!"`). A benchmark, not a test: it prints a table
# and whether the targets were met, and exits non-zero only when a tool
# failed to run.
#
#   ROUNDS=5 DURATION=5 CONNECTIONS=50 THREADS=1 PROTOS=h1,h2,tls,allcore,mem,bound \
#   H2_CONFIGS="16x32 4x100" TLS_H2_CONFIGS="16x32" ALL_THREADS=$(nproc) \
#   QUOTA=25 QUOTA_LOW="10 5" QUOTA_PERIOD_US=20000 H2LOAD_H3=/path/to/h2load bash scripts/bench.sh
#
# PROTOS picks the rows: h1 is shb, wrk and `h2load --h1` over HTTP/1.1 with
# CONNECTIONS connections; h2 is `shb --http2 -c C -p S` beside
# `h2load -c C -m S` (h2c, prior knowledge) for each CxS of H2_CONFIGS, on
# nginx's second port (http2_max_concurrent_streams 256); tls is the same
# over TLS 1.3 (ECDSA P-256 certificate, nginx's third port): shb beside wrk
# over https (HTTP/1.1, CONNECTIONS connections), `shb --http2` beside
# h2load (ALPN h2) for each CxS of TLS_H2_CONFIGS, and handshakes per second:
# `shb --disable-keepalive` beside `wrk -H 'Connection: close'`, one full
# handshake per request (the server issues no session tickets), whose req/s
# is the handshake rate; and session resumption against a server that
# issues tickets (nginx's fourth port): `shb --disable-keepalive` (full
# handshakes) beside `shb --disable-keepalive --tls-resume` (resumed ones),
# handshakes per second and client CPU per handshake (h2load and wrk have
# no way to resume, so shb is its own peer). allcore is what users run: the spec's own
# comparison (HTTP/1.1 with 1,000 connections beside wrk and h2load --h1;
# h2c 32x32 and 100x100 beside h2load) with -t = every CPU (ALL_THREADS,
# default nproc) for every tool, and shb with -t 1 on the same configs
# beside it (shb on every core must not be slower than on one). mem measures
# shb's peak resident memory (GNU time) at 100, 1,000 and 10,000
# connections per protocol (h1, h2c, HTTP/1.1 and HTTP/2 over TLS) and the
# cost of each connection beyond the first 100. The default PROTOS is all of
# them but h3. h3 is HTTP/3: `shb --http3 -c C -p S` for each CxS of
# H3_CONFIGS against Bun (test/servers/bun_h3_server.js: lsquic) with -t THREADS
# and with -t ALL_THREADS, and against Caddy (quic-go) beside
# `shb --http2` to the same Caddy over TCP; with H2LOAD_H3=/path/to/h2load
# (an h2load built with HTTP/3 support, which no distribution packages:
# build it yourself, outside this repository) `h2load --alpn-list=h3` runs
# beside every shb row. The h3 rows print datagrams per send (GSO). live
# is the live view's cost: shb with stderr on a terminal (script(1)'s pty),
# drawing it, beside the same run with --no-progress, -t ALL_THREADS,
# HTTP/1.1, CONNECTIONS connections (in the default PROTOS). phases is what
# the first-byte phase (one histogram record per response) costs: shb beside
# build/bench-nofb/shb, the same binary with that record compiled out, in
# req/s and CPU (h2c, -t THREADS) and in callgrind's instructions per
# request over HTTP/1.1 and h2c (in the default PROTOS). log is --log's
# cost: the h1 and h2c (16 x 32) runs with a log of every request beside
# the same without, and callgrind's instructions per request of each
# (docs/performance.md, "A log of every request"). bound holds each
# client to a fixed share of the CPU, so that req/s measure the client
# rather than the server (on two cores nginx is otherwise the bottleneck):
# every client run gets a fresh cgroup (cgroup v1 cpu and cpuacct,
# /sys/fs/cgroup/cpu/shb-bound-*) whose quota is QUOTA percent of one core
# (default 25) per client thread (-t) in periods of QUOTA_PERIOD_US
# (default 20000: at 25 % a throttled client then waits at most 15 ms at a
# time, not the 75 ms of the kernel's 100 ms period) microseconds, while
# the servers run outside any quota.
# Its rows: the h1, h2 and tls rows above with -t THREADS (handshakes
# aside), the allcore rows with -t ALL_THREADS (the quota grows with the
# threads), and shb --http3 for each CxS of H3_CONFIGS against Bun and
# against ngtcp2's example server (Debian's gtlsserver), beside
# `$H2LOAD_H3 --alpn-list=h3` when H2LOAD_H3 is set. Each row prints req/s,
# shb/peer, the CPU each tool used (its cgroup's cpuacct.usage) against its
# allowance (quota x the run's wall time) and the spread of its rounds
# (the farthest from their median, in % of it). A row whose server had no
# CPU to spare under shb (90 % of the cores the quota leaves it, or its
# busiest thread 90 % of a core) measured the server, not the clients:
# further passes run those rows again at each lower quota of QUOTA_LOW in
# turn (default "10 5"; empty skips them) until their server has CPU to
# spare, and their targets are judged there. It is in the default PROTOS, and skipped with one
# line where the cpu controller is not mounted or not writable (not root).
# cubic runs the h2 rows again in a private network namespace (unshare
# --net, as root) whose TCP uses cubic, with an nginx of its own: where the
# machine uses BBR, the server paces its writes from how fast its ACKs come
# back, so its CPU per request depends on how promptly the client reads;
# under cubic it does not (skipped with one line where the machine already
# uses cubic or no namespace can be made; in the default PROTOS).
# Rounds alternate the tools so drift hits all of them alike. Client
# CPU is user+sys from GNU time; the server's CPU (nginx's master and
# workers, Bun, Caddy or ngtcp2's server) is utime+stime of its threads
# (/proc/PID/task/TID/stat) read before and after each run, printed per
# request for the h1, h2 and tls rows. Each round's line ends with "rest":
# the CPU the machine spent on neither the client nor the server during the
# run (/proc/stat): what else ran. Then valgrind counts shb's heap allocations
# for -n 1000 and -n 50000 (per protocol): they must be equal (memory is
# fixed at start-up).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=test/e2e/lib.sh
. test/e2e/lib.sh
trap 'cg_cleanup; lib_cleanup' EXIT
trap 'exit 130' INT TERM

# --- a CPU quota per client (the bound section): cgroup v1 -----------------------------
CG_CPU_ROOT=/sys/fs/cgroup/cpu
CG_ACCT_ROOT=/sys/fs/cgroup/cpuacct
CG_MADE=()  # cgroup directories made here; cg_cleanup removes them
CG_SEQ=0

# cg_unusable: prints why the cpu and cpuacct controllers cannot take a
# client's cgroup (and returns 0), or returns 1 when they can. Tries one.
cg_unusable() {
    local probe=$CG_CPU_ROOT/shb-bound-$$-probe
    if [ ! -f "$CG_CPU_ROOT/cpu.cfs_quota_us" ]; then
        echo "no cgroup v1 cpu controller with CFS quotas at $CG_CPU_ROOT"
    elif [ ! -f "$CG_ACCT_ROOT/cpuacct.usage" ]; then
        echo "no cgroup v1 cpuacct controller at $CG_ACCT_ROOT"
    elif ! mkdir "$probe" 2>/dev/null; then
        echo "cannot make a cgroup in $CG_CPU_ROOT (run as root)"
    else
        rmdir "$probe"
        return 1
    fi
    return 0
}

# cg_new THREADS: makes a fresh cgroup, CG_CPU (cpu) and CG_ACCT (cpuacct;
# the same directory where the two controllers share a mount), with a quota
# of BOUND_QUOTA (QUOTA, or one of QUOTA_LOW on a further pass) percent of a core
# per thread. Sets CG_QUOTA_US.
cg_new() {
    CG_SEQ=$((CG_SEQ + 1))
    CG_CPU=$CG_CPU_ROOT/shb-bound-$$-$CG_SEQ
    CG_ACCT=$CG_ACCT_ROOT/shb-bound-$$-$CG_SEQ
    CG_QUOTA_US=$((BOUND_QUOTA * $1 * QUOTA_PERIOD_US / 100))
    mkdir "$CG_CPU" || return 1
    CG_MADE+=("$CG_CPU")
    if [ ! -d "$CG_ACCT" ]; then
        mkdir "$CG_ACCT" || return 1
        CG_MADE+=("$CG_ACCT")
    fi
    echo "$QUOTA_PERIOD_US" >"$CG_CPU/cpu.cfs_period_us" || return 1
    echo "$CG_QUOTA_US" >"$CG_CPU/cpu.cfs_quota_us" || return 1
}

# cg_cleanup: removes every cgroup made here, first ending what still runs
# in one (a client cut short), TERM then KILL, two seconds at most.
cg_cleanup() {
    local d pids i
    for d in "${CG_MADE[@]}"; do
        [ -d "$d" ] || continue
        for ((i = 0; i < 20; i++)); do
            pids=$(cat "$d/cgroup.procs" 2>/dev/null || true)
            [ -n "$pids" ] || break
            # shellcheck disable=SC2086  # one pid per word
            kill "$([ "$i" -lt 10 ] && echo -TERM || echo -KILL)" $pids 2>/dev/null || true
            sleep 0.1
        done
        rmdir "$d" 2>/dev/null || echo "bench: could not remove cgroup $d" >&2
    done
    CG_MADE=()
}

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5}
DURATION=${DURATION%s}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-1}
PROTOS=${PROTOS:-h1,h2,tls,allcore,mem,live,phases,log,bound,cubic}
# Inside the cubic section's own run (see below): this network namespace's
# loopback up and its TCP on BENCH_CC, before nginx starts.
if [ -n "${BENCH_CC:-}" ]; then
    if ! ip link set lo up || ! sysctl -qw net.ipv4.tcp_congestion_control="$BENCH_CC"; then
        echo "bench: could not set up the namespace's loopback with $BENCH_CC" >&2
        exit 1
    fi
fi
QUOTA=${QUOTA:-25}
QUOTA_LOW=${QUOTA_LOW-10 5}
BOUND_QUOTA=$QUOTA
QUOTA_PERIOD_US=${QUOTA_PERIOD_US:-20000}
H3_CONFIGS=${H3_CONFIGS:-16x32 4x100 32x32 16x128}
H3_CADDY_CONFIGS=${H3_CADDY_CONFIGS:-16x32}
H2LOAD_H3=${H2LOAD_H3:-}
ALL_THREADS=${ALL_THREADS:-$(nproc)}
ALL_H1_CONNECTIONS=1000
ALL_H2_CONFS=(32x32 100x100)
H2_CONFIGS=${H2_CONFIGS:-16x32 4x100}
TLS_H2_CONFIGS=${TLS_H2_CONFIGS:-16x32}
SHB=${SHB:-./shb}
SHB_GLIBC=${SHB_GLIBC:-build/glibc/shb}
SHB_NOFB=${SHB_NOFB:-build/bench-nofb/shb}
GNU_TIME=/usr/bin/time

DO_H1=0
DO_H2=0
DO_TLS=0
DO_ALL=0
DO_MEM=0
DO_H3=0
DO_LIVE=0
DO_PHASES=0
DO_BOUND=0
DO_CUBIC=0
DO_LOG=0
for proto in ${PROTOS//,/ }; do
    case "$proto" in
        h1) DO_H1=1 ;;
        h2) DO_H2=1 ;;
        tls) DO_TLS=1 ;;
        allcore) DO_ALL=1 ;;
        mem) DO_MEM=1 ;;
        h3) DO_H3=1 ;;
        live) DO_LIVE=1 ;;
        phases) DO_PHASES=1 ;;
        bound) DO_BOUND=1 ;;
        cubic) DO_CUBIC=1 ;;
        log) DO_LOG=1 ;;
        *) echo "bench: PROTOS=$PROTOS: unknown section '$proto' (h1, h2, tls, allcore, mem, h3, live, phases, log, bound, cubic)" >&2; exit 2 ;;
    esac
done
if [ "$DO_H1$DO_H2$DO_TLS$DO_ALL$DO_MEM$DO_H3$DO_LIVE$DO_PHASES$DO_LOG$DO_BOUND$DO_CUBIC" = 00000000000 ]; then
    echo "bench: PROTOS is empty (h1, h2, tls, allcore, mem, h3, live, phases, log, bound, cubic, or a comma-separated list of them)" >&2
    exit 2
fi
if ! [[ "$QUOTA" =~ ^[1-9][0-9]*$ ]] || [ "$QUOTA" -gt 100 ]; then
    echo "bench: QUOTA=$QUOTA: want a whole percentage of one core per client thread, 1 to 100" >&2
    exit 2
fi
prev=$QUOTA
for q in $QUOTA_LOW; do
    if ! [[ "$q" =~ ^[1-9][0-9]*$ ]] || [ "$q" -ge "$prev" ]; then
        echo "bench: QUOTA_LOW=$QUOTA_LOW: want whole percentages, each under QUOTA=$QUOTA and the one before it (empty: no further passes)" >&2
        exit 2
    fi
    prev=$q
done
# The kernel takes periods of 1 ms to 1 s and quotas of at least 1 ms.
if ! [[ "$QUOTA_PERIOD_US" =~ ^[1-9][0-9]*$ ]] || [ "$QUOTA_PERIOD_US" -lt 1000 ] || [ "$QUOTA_PERIOD_US" -gt 1000000 ]; then
    echo "bench: QUOTA_PERIOD_US=$QUOTA_PERIOD_US: want a period in microseconds, 1000 to 1000000" >&2
    exit 2
fi
for q in $QUOTA $QUOTA_LOW; do
    if [ $((q * QUOTA_PERIOD_US / 100)) -lt 1000 ]; then
        echo "bench: a quota of $q % of QUOTA_PERIOD_US=$QUOTA_PERIOD_US is under the kernel's 1000 us minimum" >&2
        exit 2
    fi
done
# parse_confs VAR LIST: the CxS entries of LIST (named VAR in messages).
parse_confs() {
    local var=$1 conf
    CONFS=()
    for conf in $2; do
        if ! [[ "$conf" =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]]; then
            echo "bench: $var: '$conf' is not CONNECTIONSxSTREAMS (e.g. 16x32)" >&2
            exit 2
        fi
        CONFS+=("$conf")
    done
}
parse_confs H2_CONFIGS "$H2_CONFIGS"
H2_CONFS=("${CONFS[@]}")
parse_confs TLS_H2_CONFIGS "$TLS_H2_CONFIGS"
TLS_H2_CONFS=("${CONFS[@]}")
parse_confs H3_CONFIGS "$H3_CONFIGS"
H3_CONFS=("${CONFS[@]}")
parse_confs H3_CADDY_CONFIGS "$H3_CADDY_CONFIGS"
H3_CADDY_CONFS=("${CONFS[@]}")
BOUND_WHY=""
if [ "$DO_BOUND" = 1 ] && BOUND_WHY=$(cg_unusable); then
    DO_BOUND=0
fi
# The cubic section runs only where it tells something and can run.
CUBIC_WHY=""
if [ "$DO_CUBIC" = 1 ]; then
    if [ "$(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null)" = cubic ]; then
        CUBIC_WHY="this machine's TCP already uses cubic"
    elif ! command -v unshare >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1; then
        CUBIC_WHY="needs unshare (util-linux) and ip (iproute2)"
    elif ! unshare --net true 2>/dev/null; then
        CUBIC_WHY="cannot make a network namespace (run as root)"
    fi
    [ -z "$CUBIC_WHY" ] || DO_CUBIC=0
fi
# Debian's ngtcp2 example server, for the bound section's HTTP/3 rows.
NGTCP2_SERVER=$(command -v gtlsserver 2>/dev/null || echo /usr/sbin/gtlsserver)

TOOLS=("$SHB" h2load nginx jq "$GNU_TIME")
if [ "$DO_H1" = 1 ] || [ "$DO_TLS" = 1 ] || [ "$DO_ALL" = 1 ] || [ "$DO_BOUND" = 1 ]; then
    TOOLS+=(wrk)
fi
if [ "$DO_TLS" = 1 ] || [ "$DO_MEM" = 1 ] || [ "$DO_BOUND" = 1 ]; then
    TOOLS+=(openssl)
fi
if [ "$DO_H3" = 1 ]; then
    TOOLS+=(caddy)
fi
if [ "$DO_H3" = 1 ] || [ "$DO_BOUND" = 1 ]; then
    [ -z "$H2LOAD_H3" ] || TOOLS+=("$H2LOAD_H3")
fi
if [ "$DO_PHASES" = 1 ]; then
    TOOLS+=("$SHB_NOFB")
fi
for tool in "${TOOLS[@]}"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "bench: $tool not found (make; bash scripts/deps.sh)" >&2
        exit 1
    fi
done

lib_init
start_nginx test/servers/nginx-bench.conf.in bench || { echo "bench: nginx did not start" >&2; exit 1; }
URL="http://127.0.0.1:$NGINX_PORT/"
URL_H2="http://127.0.0.1:$NGINX_PORT2/"
URL_TLS="https://127.0.0.1:$NGINX_PORT_TLS/"
URL_TICKETS="https://127.0.0.1:$NGINX_PORT_TLS_TICKETS/"
T=$LIB_TMP
# lines: tool round reqs req/s cpu_seconds server_cpu_seconds cgroup_cpu_seconds
# allowance_seconds (these two nan outside the bound section) busy_seconds
# (the whole machine's) wall_seconds server_busiest_thread (share of a core)
RESULTS=$T/results
: >"$RESULTS"
FAILED_TOOLS=0

echo "nginx $(nginx -v 2>&1 | sed 's|.*/||'), $(nproc) workers, HTTP/1.1 $URL, h2c $URL_H2, TLS 1.3 $URL_TLS"
if [ "$DO_H1" = 1 ]; then
    echo "HTTP/1.1: $ROUNDS rounds x ${DURATION}s, -c $CONNECTIONS -t $THREADS"
fi
if [ "$DO_H2" = 1 ]; then
    echo "HTTP/2:   $ROUNDS rounds x ${DURATION}s, -t $THREADS, connections x streams: ${H2_CONFS[*]}"
fi
if [ "$DO_TLS" = 1 ]; then
    echo "TLS 1.3:  $ROUNDS rounds x ${DURATION}s, -t $THREADS; HTTP/1.1 and handshakes -c $CONNECTIONS; HTTP/2 connections x streams: ${TLS_H2_CONFS[*]}"
fi
if [ "$DO_ALL" = 1 ]; then
    echo "all cores: $ROUNDS rounds x ${DURATION}s, -t $ALL_THREADS (shb also -t 1); HTTP/1.1 -c $ALL_H1_CONNECTIONS; h2c ${ALL_H2_CONFS[*]}"
fi
if [ "$DO_H3" = 1 ] || [ "$DO_BOUND" = 1 ]; then
    gen_certs || { echo "bench: could not make test certificates" >&2; exit 1; }
    BUN_H3_BENCH=1 start_bun_h3 bench-bun "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" || { echo "bench: bun_h3_server.js did not start (bash scripts/deps.sh)" >&2; exit 1; }
    URL_H3_BUN="https://127.0.0.1:$BUN_H3_PORT/"
fi
if [ "$DO_H3" = 1 ]; then
    start_caddy_h3 bench-caddy || { echo "bench: caddy (HTTP/3) did not start" >&2; exit 1; }
    URL_H3_CADDY="https://127.0.0.1:$CADDY_PORT/"
    echo "HTTP/3:   $ROUNDS rounds x ${DURATION}s; Bun $($(bun_bin) --version) $URL_H3_BUN (-t $THREADS and -t $ALL_THREADS: ${H3_CONFS[*]}), Caddy $(caddy version | cut -d' ' -f1) $URL_H3_CADDY (-t $THREADS, beside shb --http2: ${H3_CADDY_CONFS[*]}); h2load: ${H2LOAD_H3:-none (H2LOAD_H3 unset)}"
fi
if [ "$DO_BOUND" = 1 ]; then
    URL_H3_NGTCP2=""
    if [ -x "$NGTCP2_SERVER" ]; then
        start_ngtcp2_h3 bench-ngtcp2 "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" || { echo "bench: ngtcp2's gtlsserver did not start" >&2; exit 1; }
        URL_H3_NGTCP2="https://127.0.0.1:$NGTCP2_H3_PORT/"
    fi
    echo "client-bound: $ROUNDS rounds x ${DURATION}s, each client in its own cgroup: quota $QUOTA % of a core per client thread (server-bound rows again at ${QUOTA_LOW:-none}), period $QUOTA_PERIOD_US us; servers unbounded"
    echo "              HTTP/3: Bun $URL_H3_BUN, ngtcp2 ${URL_H3_NGTCP2:-none ($NGTCP2_SERVER not installed: apt-get install ngtcp2-server)} (${H3_CONFS[*]}); h2load: ${H2LOAD_H3:-none (H2LOAD_H3 unset)}"
elif [[ ",$PROTOS," == *,bound,* ]]; then
    echo "client-bound: skipped: $BOUND_WHY"
fi
if [ "$DO_CUBIC" = 1 ]; then
    echo "cubic:    h2c ${H2_CONFS[*]} again, $ROUNDS rounds x ${DURATION}s, in a private network namespace whose TCP uses cubic"
elif [[ ",$PROTOS," == *,cubic,* ]]; then
    echo "cubic:    skipped: $CUBIC_WHY"
fi
echo "$(nproc) CPUs, kernel $(uname -r), TCP congestion control $(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null || echo '?')"
echo

CLK_TCK=$(getconf CLK_TCK)

# server_threads PID FILE: one line per thread of the server the run loads
# (PID and its children: nginx's master and workers, Bun, ngtcp2's server),
# "TID TICKS" (user + system so far, /proc/PID/task/TID/stat). The server
# is SERVER_PID where a row sets it, else nginx.
SERVER_PID=""
server_threads() {
    local pids
    # shellcheck disable=SC2207  # pids are single words
    pids=($(pgrep -P "$1") "$1")
    (cd /proc && for p in "${pids[@]}"; do cat "$p"/task/*/stat 2>/dev/null; done) |
        awk '{ tid = $1; sub(/^.*\) /, ""); print tid, $12 + $13 }' >"$2"
}
# server_load BEFORE AFTER SECONDS: "CPU BUSIEST" — the server's CPU seconds
# over the run (all its threads), and the share of one core its busiest
# thread did (a one-thread event loop is saturated at 1 whatever the cores
# left).
server_load() {
    awk -v hz="$CLK_TCK" -v s="$3" 'NR == FNR { a[$1] = $2; next }
        { d = $2 - a[$1]; t += d; if (d > m) m = d }
        END { printf "%.2f %.2f\n", t / hz, m / hz / s }' "$1" "$2"
}

# busy_ticks: the CPU time the whole machine has spent busy so far (clock
# ticks: user, nice, system, irq, softirq and steal of /proc/stat's cpu line).
busy_ticks() {
    awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# timed TOOL ROUND CMD...: runs CMD under GNU time; output in $T/out, CPU in
# $T/time. Sets RUN_SERVER ("CPU BUSIEST": server_load over the run) and
# RUN_BUSY (the machine's busy CPU seconds over the run: beyond the
# client's and the server's, what else ran: the neighbours). With
# BOUND_THREADS set, CMD runs in a fresh cgroup with the quota of that many
# client threads (cg_new), and RUN_CG (the CPU seconds it used: its
# cpuacct.usage) and RUN_ALLOW (the quota times the run's wall time) are set;
# else they are nan.
timed() {
    local tool=$1 round=$2 busy0 cmd
    shift 2
    cmd=("$@")
    RUN_CG=nan RUN_ALLOW=nan RUN_SERVER="nan nan"
    if [ -n "${BOUND_THREADS:-}" ]; then
        if ! cg_new "$BOUND_THREADS"; then
            echo "bench: could not make a cgroup for $tool (round $round)" >&2
            FAILED_TOOLS=$((FAILED_TOOLS + 1))
            return 1
        fi
        # The client joins its cgroups before it starts: GNU time stays outside.
        # shellcheck disable=SC2016  # $$ and $@ are the inner shell's
        set -- sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" && shift 2 && exec "$@"' \
            sh "$CG_CPU" "$CG_ACCT" "$@"
    fi
    busy0=$(busy_ticks)
    server_threads "${SERVER_PID:-$NGINX_PID}" "$T/srv0"
    if ! timeout -k 5 $((DURATION * 3 + 30)) "$GNU_TIME" -f '%U %S %e' -o "$T/time" "$@" >"$T/out" 2>"$T/err"; then
        echo "bench: $tool failed (round $round): ${cmd[*]}" >&2
        tail -n 5 "$T/err" "$T/out" >&2 || true
        FAILED_TOOLS=$((FAILED_TOOLS + 1))
        [ -z "${BOUND_THREADS:-}" ] || rmdir "$CG_CPU" "$CG_ACCT" 2>/dev/null || true
        return 1
    fi
    RUN_BUSY=$(awk -v a="$busy0" -v b="$(busy_ticks)" -v hz="$CLK_TCK" 'BEGIN { printf "%.2f", (b - a) / hz }')
    server_threads "${SERVER_PID:-$NGINX_PID}" "$T/srv1"
    RUN_SERVER=$(server_load "$T/srv0" "$T/srv1" "$(awk '{ print $3 }' "$T/time")")
    if [ -n "${BOUND_THREADS:-}" ]; then
        RUN_CG=$(awk '{ printf "%.4f", $1 / 1e9 }' "$CG_ACCT/cpuacct.usage")
        RUN_ALLOW=$(awk -v q="$CG_QUOTA_US" -v p="$QUOTA_PERIOD_US" '{ printf "%.4f", q / p * $3 }' "$T/time")
        # Left for cg_cleanup if anything still runs in them.
        rmdir "$CG_CPU" "$CG_ACCT" 2>/dev/null || true
    fi
    return 0
}

cpu_of() { awk 'END { printf "%.2f", $1 + $2 }' "$T/time"; }

record() { # tool round reqs rps
    local cpu srv_cpu
    cpu=$(cpu_of)
    srv_cpu=${RUN_SERVER%% *}
    if [ -z "$3" ] || [ -z "$4" ] || [ "$3" = 0 ]; then
        echo "bench: could not read $1's results (round $2)" >&2
        sed 's/^/  /' "$T/out" >&2
        FAILED_TOOLS=$((FAILED_TOOLS + 1))
        return 0
    fi
    printf '%s %s %s %s %s %s %s %s %s %s %s\n' "$1" "$2" "$3" "$4" "$cpu" "$srv_cpu" "$RUN_CG" "$RUN_ALLOW" \
        "$RUN_BUSY" "$(awk '{ print $3 }' "$T/time")" "${RUN_SERVER#* }" >>"$RESULTS"
    printf '  round %s  %-16s %10.0f req/s  %9s requests  %6.2f s CPU  %6.2f us/request%s%s  rest %.2f s\n' \
        "$2" "$1" "$4" "$3" "$cpu" "$(awk -v c="$cpu" -v n="$3" 'BEGIN { printf "%.3f", c * 1e6 / n }')" \
        "$(awk -v c="$srv_cpu" -v n="$3" 'BEGIN { if (c > 0) printf "  server %6.2f us/request", c * 1e6 / n }')" \
        "$(awk -v u="$RUN_CG" -v a="$RUN_ALLOW" 'BEGIN { if (u != "nan") printf "  cgroup %.2f s CPU of %.2f s allowed (%.1f %%)", u, a, u * 100 / a }')" \
        "$(awk -v b="$RUN_BUSY" -v c="$cpu" -v n="$srv_cpu" 'BEGIN { r = b - c - n; printf "%.2f", (r > 0 ? r : 0) }')"
}

# shb_round LABEL ROUND ARGS...: one shb run (-j) recorded as LABEL.
shb_round() {
    local label=$1 round=$2 reqs rps errs
    shift 2
    if timed "$label" "$round" "$SHB" "$@"; then
        reqs=$(jq -r '.requests.ok' "$T/out" 2>/dev/null || true)
        rps=$(jq -r '.requestsPerSec' "$T/out" 2>/dev/null || true)
        errs=$(jq -r '.requests.errors' "$T/out" 2>/dev/null || true)
        [ "${errs:-0}" = 0 ] || echo "  (shb reported $errs errors: $(jq -c '.errorKinds' "$T/out" 2>/dev/null))"
        record "$label" "$round" "$reqs" "$rps"
    fi
}

# shb_h3_round LABEL ROUND ARGS...: shb_round, and the run's datagrams per
# send (UDP GSO) kept beside it.
shb_h3_round() {
    shb_round "$@"
    jq -r --arg l "$1" '"\($l) \(.quic.datagramsPerSend)"' "$T/out" >>"$T/dgrams" 2>/dev/null || true
}

# h2load_h3_round LABEL ROUND ARGS...: h2load over HTTP/3 (H2LOAD_H3).
h2load_h3_round() {
    local label=$1 round=$2 reqs rps
    shift 2
    if timed "$label" "$round" "$H2LOAD_H3" --alpn-list=h3 "$@"; then
        reqs=$(awk '/^requests: / { print $8 }' "$T/out")
        rps=$(awk '/^finished in / { print $4 }' "$T/out")
        awk '/^requests: / && $10 != 0 { print "  (h2load) " $0 }' "$T/out"
        record "$label" "$round" "$reqs" "$rps"
    fi
}

# wrk_round LABEL ROUND ARGS...: one wrk run recorded as LABEL.
wrk_round() {
    local label=$1 round=$2 reqs rps
    shift 2
    if timed "$label" "$round" wrk "$@"; then
        reqs=$(awk '/ requests in / { print $1 }' "$T/out")
        rps=$(awk '/^Requests\/sec:/ { print $2 }' "$T/out")
        grep -E 'Socket errors|Non-2xx' "$T/out" | sed 's/^ */  (wrk) /' || true
        record "$label" "$round" "$reqs" "$rps"
    fi
}

# shb_tty_round LABEL ROUND ARGS...: shb_round with stderr on a terminal
# (script(1) gives the run a pty; the JSON report goes to a file), so the
# live view draws unless ARGS say --no-progress.
shb_tty_round() {
    local label=$1 round=$2 reqs rps
    shift 2
    if timed "$label" "$round" script -qec "$(printf '%q ' "$SHB" "$@") >$T/tty.json" /dev/null; then
        reqs=$(jq -r '.requests.ok' "$T/tty.json" 2>/dev/null || true)
        rps=$(jq -r '.requestsPerSec' "$T/tty.json" 2>/dev/null || true)
        record "$label" "$round" "$reqs" "$rps"
    fi
}

# h2load_round LABEL ROUND ARGS...: one h2load run recorded as LABEL.
h2load_round() {
    local label=$1 round=$2 reqs rps
    shift 2
    if timed "$label" "$round" h2load "$@"; then
        # "requests: N total, N started, N done, N succeeded, N failed, ...":
        # count the succeeded ones ($8), report any failed ($10).
        reqs=$(awk '/^requests: / { print $8 }' "$T/out")
        rps=$(awk '/^finished in / { print $4 }' "$T/out")
        awk '/^requests: / && $10 != 0 { print "  (h2load) " $0 }' "$T/out"
        record "$label" "$round" "$reqs" "$rps"
    fi
}

# The bound section's rows, "KEY|THREADS|TITLE|PEERS": each runs shb and
# each of PEERS (wrk, h2load) as b-TOOL-KEY (bound_round), every one with a
# quota of QUOTA x THREADS percent of a core.
BOUND_ROWS=("h1|$THREADS|HTTP/1.1 -c $CONNECTIONS -t $THREADS|wrk h2load")
for conf in "${H2_CONFS[@]}"; do
    BOUND_ROWS+=("h2-$conf|$THREADS|h2c ${conf/x/ x } -t $THREADS|h2load")
done
BOUND_ROWS+=("tls-h1|$THREADS|HTTP/1.1 over TLS -c $CONNECTIONS -t $THREADS|wrk")
for conf in "${TLS_H2_CONFS[@]}"; do
    BOUND_ROWS+=("tls-h2-$conf|$THREADS|HTTP/2 over TLS ${conf/x/ x } -t $THREADS|h2load")
done
BOUND_ROWS+=("all-h1|$ALL_THREADS|HTTP/1.1 -c $ALL_H1_CONNECTIONS -t $ALL_THREADS|wrk h2load")
for conf in "${ALL_H2_CONFS[@]}"; do
    BOUND_ROWS+=("all-h2-$conf|$ALL_THREADS|h2c ${conf/x/ x } -t $ALL_THREADS|h2load")
done
H3_PEER=""
[ -z "$H2LOAD_H3" ] || H3_PEER=h2load
for conf in "${H3_CONFS[@]}"; do
    BOUND_ROWS+=("h3bun-$conf|$THREADS|HTTP/3 ${conf/x/ x } -t $THREADS, Bun|$H3_PEER")
done
if [ -n "${URL_H3_NGTCP2:-}" ]; then
    for conf in "${H3_CONFS[@]}"; do
        BOUND_ROWS+=("h3ngtcp2-$conf|$THREADS|HTTP/3 ${conf/x/ x } -t $THREADS, ngtcp2|$H3_PEER")
    done
fi

# bound_round KEY THREADS ROUND: one round of a bound row (BOUND_ROWS): shb,
# then its peers, each in its own cgroup (timed, BOUND_THREADS).
bound_round() {
    local key=$1 round=$3 conf c m url SERVER_PID=""
    local BOUND_THREADS=$2
    local t=$BOUND_THREADS z="${DURATION}s"
    conf=${key##*-}
    c=${conf%x*}
    m=${conf#*x}
    case "$key" in
        h1 | all-h1)
            c=$CONNECTIONS
            [ "$key" = h1 ] || c=$ALL_H1_CONNECTIONS
            shb_round "b$BOUND_QUOTA-shb-$key" "$round" -z "$z" -c "$c" -t "$t" -j "$URL"
            wrk_round "b$BOUND_QUOTA-wrk-$key" "$round" -d "$z" -c "$c" -t "$t" "$URL"
            h2load_round "b$BOUND_QUOTA-h2load-$key" "$round" --h1 -D "$DURATION" -c "$c" -t "$t" "$URL"
            ;;
        h2-* | all-h2-*)
            shb_round "b$BOUND_QUOTA-shb-$key" "$round" --http2 -z "$z" -c "$c" -p "$m" -t "$t" -j "$URL_H2"
            h2load_round "b$BOUND_QUOTA-h2load-$key" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$t" "$URL_H2"
            ;;
        tls-h1)
            shb_round "b$BOUND_QUOTA-shb-$key" "$round" -z "$z" -c "$CONNECTIONS" -t "$t" -j "$URL_TLS"
            wrk_round "b$BOUND_QUOTA-wrk-$key" "$round" -d "$z" -c "$CONNECTIONS" -t "$t" "$URL_TLS"
            ;;
        tls-h2-*)
            shb_round "b$BOUND_QUOTA-shb-$key" "$round" --http2 -z "$z" -c "$c" -p "$m" -t "$t" -j "$URL_TLS"
            h2load_round "b$BOUND_QUOTA-h2load-$key" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$t" "$URL_TLS"
            ;;
        h3bun-* | h3ngtcp2-*)
            url=$URL_H3_BUN SERVER_PID=$BUN_H3_PID
            [ "${key%%-*}" = h3bun ] || url=$URL_H3_NGTCP2 SERVER_PID=$NGTCP2_H3_PID
            shb_round "b$BOUND_QUOTA-shb-$key" "$round" --http3 -z "$z" -c "$c" -p "$m" -t "$t" -j "$url"
            [ -z "$H2LOAD_H3" ] || h2load_h3_round "b$BOUND_QUOTA-h2load-$key" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$t" "$url"
            ;;
    esac
}

# bound_pass ROUND ROW...: one round of each of these BOUND_ROWS entries.
bound_pass() {
    local round=$1 row key threads
    shift
    for row in "$@"; do
        IFS='|' read -r key threads _ <<<"$row"
        bound_round "$key" "$threads" "$round"
    done
}

for round in $(seq 1 "$ROUNDS"); do
    if [ "$DO_H1" = 1 ]; then
        shb_round shb "$round" -z "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" -j "$URL"
        wrk_round wrk "$round" -d "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" "$URL"
        h2load_round h2load "$round" --h1 -D "$DURATION" -c "$CONNECTIONS" -t "$THREADS" "$URL"
    fi
    if [ "$DO_H2" = 1 ]; then
        for conf in "${H2_CONFS[@]}"; do
            c=${conf%x*}
            m=${conf#*x}
            shb_round "shb-h2-$conf" "$round" --http2 -z "${DURATION}s" -c "$c" -p "$m" -t "$THREADS" -j "$URL_H2"
            h2load_round "h2load-h2-$conf" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$THREADS" "$URL_H2"
        done
    fi
    if [ "$DO_ALL" = 1 ]; then
        shb_round all-shb-h1 "$round" -z "${DURATION}s" -c "$ALL_H1_CONNECTIONS" -t "$ALL_THREADS" -j "$URL"
        wrk_round all-wrk-h1 "$round" -d "${DURATION}s" -c "$ALL_H1_CONNECTIONS" -t "$ALL_THREADS" "$URL"
        h2load_round all-h2load-h1 "$round" --h1 -D "$DURATION" -c "$ALL_H1_CONNECTIONS" -t "$ALL_THREADS" "$URL"
        shb_round all-shb1-h1 "$round" -z "${DURATION}s" -c "$ALL_H1_CONNECTIONS" -t 1 -j "$URL"
        for conf in "${ALL_H2_CONFS[@]}"; do
            c=${conf%x*}
            m=${conf#*x}
            shb_round "all-shb-h2-$conf" "$round" --http2 -z "${DURATION}s" -c "$c" -p "$m" -t "$ALL_THREADS" -j "$URL_H2"
            h2load_round "all-h2load-h2-$conf" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$ALL_THREADS" "$URL_H2"
            shb_round "all-shb1-h2-$conf" "$round" --http2 -z "${DURATION}s" -c "$c" -p "$m" -t 1 -j "$URL_H2"
        done
    fi
    if [ "$DO_TLS" = 1 ]; then
        shb_round shb-tls "$round" -z "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" -j "$URL_TLS"
        wrk_round wrk-tls "$round" -d "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" "$URL_TLS"
        for conf in "${TLS_H2_CONFS[@]}"; do
            c=${conf%x*}
            m=${conf#*x}
            shb_round "shb-tls-h2-$conf" "$round" --http2 -z "${DURATION}s" -c "$c" -p "$m" -t "$THREADS" -j "$URL_TLS"
            h2load_round "h2load-tls-h2-$conf" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$THREADS" "$URL_TLS"
        done
        # A full TLS 1.3 handshake per request: the req/s is handshakes/s.
        shb_round shb-hs "$round" --disable-keepalive -z "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" -j "$URL_TLS"
        wrk_round wrk-hs "$round" -H 'Connection: close' -d "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" "$URL_TLS"
        # The same against a server that issues tickets: full handshakes,
        # then resumed ones (--tls-resume).
        shb_round shb-hs-full "$round" --disable-keepalive -z "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" -j "$URL_TICKETS"
        shb_round shb-hs-resumed "$round" --disable-keepalive --tls-resume -z "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" -j "$URL_TICKETS"
        jq -r '"  (resumed \(.tls.handshakes.resumed) of \(.tls.handshakes.full + .tls.handshakes.resumed) handshakes)"' "$T/out" 2>/dev/null || true
    fi
    if [ "$DO_PHASES" = 1 ]; then
        shb_round shb-fb "$round" --http2 -z "${DURATION}s" -c 16 -p 32 -t "$THREADS" -j "$URL_H2"
        SHB=$SHB_NOFB shb_round shb-nofb "$round" --http2 -z "${DURATION}s" -c 16 -p 32 -t "$THREADS" -j "$URL_H2"
    fi
    if [ "$DO_LOG" = 1 ]; then
        shb_round shb-log-h1 "$round" --log "$T/requests.tsv" -z "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" -j "$URL"
        shb_round shb-nolog-h1 "$round" -z "${DURATION}s" -c "$CONNECTIONS" -t "$THREADS" -j "$URL"
        shb_round shb-log-h2 "$round" --log "$T/requests.tsv" --http2 -z "${DURATION}s" -c 16 -p 32 -t "$THREADS" -j "$URL_H2"
        shb_round shb-nolog-h2 "$round" --http2 -z "${DURATION}s" -c 16 -p 32 -t "$THREADS" -j "$URL_H2"
        rm -f "$T/requests.tsv"
    fi
    if [ "$DO_LIVE" = 1 ]; then
        shb_tty_round shb-live "$round" -z "${DURATION}s" -c "$CONNECTIONS" -t "$ALL_THREADS" -j "$URL"
        shb_tty_round shb-quiet "$round" --no-progress -z "${DURATION}s" -c "$CONNECTIONS" -t "$ALL_THREADS" -j "$URL"
    fi
    if [ "$DO_H3" = 1 ]; then
        SERVER_PID=$BUN_H3_PID
        for conf in "${H3_CONFS[@]}"; do
            c=${conf%x*}
            m=${conf#*x}
            shb_h3_round "h3-bun-$conf" "$round" --http3 -z "${DURATION}s" -c "$c" -p "$m" -t "$THREADS" -j "$URL_H3_BUN"
            [ -z "$H2LOAD_H3" ] || h2load_h3_round "h2load-h3-bun-$conf" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$THREADS" "$URL_H3_BUN"
            shb_h3_round "h3all-bun-$conf" "$round" --http3 -z "${DURATION}s" -c "$c" -p "$m" -t "$ALL_THREADS" -j "$URL_H3_BUN"
            [ -z "$H2LOAD_H3" ] || h2load_h3_round "h2load-h3all-bun-$conf" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$ALL_THREADS" "$URL_H3_BUN"
        done
        SERVER_PID=$CADDY_PID
        for conf in "${H3_CADDY_CONFS[@]}"; do
            c=${conf%x*}
            m=${conf#*x}
            shb_h3_round "h3-caddy-$conf" "$round" --http3 -z "${DURATION}s" -c "$c" -p "$m" -t "$THREADS" -j "$URL_H3_CADDY"
            shb_round "h2-caddy-$conf" "$round" --http2 -z "${DURATION}s" -c "$c" -p "$m" -t "$THREADS" -j "$URL_H3_CADDY"
            [ -z "$H2LOAD_H3" ] || h2load_h3_round "h2load-h3-caddy-$conf" "$round" -D "$DURATION" -c "$c" -m "$m" -t "$THREADS" "$URL_H3_CADDY"
        done
        SERVER_PID=""
    fi
    if [ "$DO_BOUND" = 1 ]; then
        bound_pass "$round" "${BOUND_ROWS[@]}"
    fi
done

# --- summary ------------------------------------------------------------------------
# median of a column for one tool: median TOOL FIELD (3 = requests, 4 = req/s,
# 6 = the client's CPU us/request, 7 = the server's CPU us/request, 8 = the CPU the
# client's cgroup used, % of its allowance, 9 = the cores busy with anything
# but the client: the server's and the neighbours' share, 11 = the cores the
# server kept busy, 12 = its busiest thread's share of a core)
median() {
    awk -v t="$1" -v f="$2" '$1 != t { next }
        f == 6 { print $5 * 1e6 / $3; next }
        f == 7 { if ($6 != "nan") print $6 * 1e6 / $3; next }
        f == 8 { if ($7 != "nan") print $7 * 100 / $8; next }
        f == 9 { print ($9 - $5) / $10; next }
        f == 11 { if ($6 != "nan") print $6 / $10; next }
        f == 12 { if ($11 != "nan") print $11; next }
        { print $f }' "$RESULTS" |
        sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) { print "nan"; exit } if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# spread TOOL: how far the tool's rounds stray from their median: the
# farthest round's req/s from the median, in percent of it.
spread() {
    awk -v t="$1" '$1 == t { print $4 }' "$RESULTS" | sort -g |
        awk '{ a[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
            m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
            d = (a[NR] - m > m - a[1]) ? a[NR] - m : m - a[1]
            printf "%.1f", d * 100 / m }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b == 0) print "n/a"; else printf "%.3f", a / b }'; }

met() { if awk "BEGIN { exit !($1) }"; then echo "met"; else echo "NOT met"; fi; }

# ngx_target NAME SHB_LABEL PEER_LABEL PEER: the line for "nginx's CPU per
# request under shb <= under the peer" on one row.
ngx_target() {
    local s p mark=n/a
    s=$(median "$2" 7)
    p=$(median "$3" 7)
    [ "$s" = nan ] || [ "$p" = nan ] || mark=$(met "$s <= $p")
    echo "  $1 nginx CPU/request, shb <= $4: $mark ($(ratio "$s" "$p") x $4: $(awk -v s="$s" -v p="$p" 'BEGIN { printf "%.3f vs %.3f us", s, p }'))"
}

if [ "$DO_H1" = 1 ]; then
    S_RPS=$(median shb 4); W_RPS=$(median wrk 4); H_RPS=$(median h2load 4)
    S_CPU=$(median shb 6); W_CPU=$(median wrk 6); H_CPU=$(median h2load 6)
    S_NGX=$(median shb 7); W_NGX=$(median wrk 7); H_NGX=$(median h2load 7)

    echo
    echo "HTTP/1.1: median of $ROUNDS rounds, -c $CONNECTIONS -t $THREADS, ${DURATION}s each"
    printf '  %-8s %14s %18s %18s\n' tool "req/s" "CPU us/request" "nginx us/request"
    printf '  %-8s %14.0f %18.3f %18.3f\n' shb "$S_RPS" "$S_CPU" "$S_NGX" wrk "$W_RPS" "$W_CPU" "$W_NGX" h2load "$H_RPS" "$H_CPU" "$H_NGX" 2>/dev/null
    printf '  %-8s %14s %18s %18s\n' "shb/wrk" "$(ratio "$S_RPS" "$W_RPS")" "$(ratio "$S_CPU" "$W_CPU")" "$(ratio "$S_NGX" "$W_NGX")"
    printf '  %-8s %14s %18s %18s\n' "shb/h2ld" "$(ratio "$S_RPS" "$H_RPS")" "$(ratio "$S_CPU" "$H_CPU")" "$(ratio "$S_NGX" "$H_NGX")"

    if [ "$S_RPS" != nan ] && [ "$W_RPS" != nan ]; then
        rps_mark=$(met "$S_RPS >= $W_RPS")
        cpu_mark=$(met "$S_CPU <= 0.8 * $W_CPU")
    else
        rps_mark="n/a"
        cpu_mark="n/a"
    fi
    echo
    echo "target: shb req/s >= wrk req/s; shb CPU/request <= 0.8 x wrk; nginx's CPU/request under shb <= under each peer"
    echo "  req/s:       $rps_mark ($(ratio "$S_RPS" "$W_RPS") x wrk)"
    echo "  CPU/request: $cpu_mark ($(ratio "$S_CPU" "$W_CPU") x wrk)"
    ngx_target HTTP/1.1 shb wrk wrk
    ngx_target HTTP/1.1 shb h2load h2load
fi

if [ "$DO_H2" = 1 ]; then
    declare -A H2_RPS_MARK=() H2_CPU_MARK=() H2_RPS_RATIO=() H2_CPU_RATIO=()
    echo
    echo "HTTP/2 (h2c): median of $ROUNDS rounds, -t $THREADS, ${DURATION}s each"
    printf '  %-27s %14s %18s %18s\n' "tool, connections x streams" "req/s" "CPU us/request" "nginx us/request"
    for conf in "${H2_CONFS[@]}"; do
        c=${conf%x*}
        m=${conf#*x}
        S_RPS=$(median "shb-h2-$conf" 4); H_RPS=$(median "h2load-h2-$conf" 4)
        S_CPU=$(median "shb-h2-$conf" 6); H_CPU=$(median "h2load-h2-$conf" 6)
        S_NGX=$(median "shb-h2-$conf" 7); H_NGX=$(median "h2load-h2-$conf" 7)
        printf '  %-27s %14.0f %18.3f %18.3f\n' "shb -c $c -p $m" "$S_RPS" "$S_CPU" "$S_NGX" "h2load -c $c -m $m" "$H_RPS" "$H_CPU" "$H_NGX" 2>/dev/null
        printf '  %-27s %14s %18s %18s\n' "shb/h2load" "$(ratio "$S_RPS" "$H_RPS")" "$(ratio "$S_CPU" "$H_CPU")" "$(ratio "$S_NGX" "$H_NGX")"
        if [ "$S_RPS" != nan ] && [ "$H_RPS" != nan ]; then
            H2_RPS_MARK[$conf]=$(met "$S_RPS >= 1.1 * $H_RPS")
            H2_CPU_MARK[$conf]=$(met "$S_CPU <= 0.8 * $H_CPU")
        else
            H2_RPS_MARK[$conf]="n/a"
            H2_CPU_MARK[$conf]="n/a"
        fi
        H2_RPS_RATIO[$conf]=$(ratio "$S_RPS" "$H_RPS")
        H2_CPU_RATIO[$conf]=$(ratio "$S_CPU" "$H_CPU")
    done
    echo
    echo "target: shb >= 1.1 x h2load req/s; shb CPU/request <= 0.8 x h2load; nginx's CPU/request under shb <= under h2load"
    for conf in "${H2_CONFS[@]}"; do
        echo "  $conf req/s:       ${H2_RPS_MARK[$conf]} (${H2_RPS_RATIO[$conf]} x h2load)"
        echo "  $conf CPU/request: ${H2_CPU_MARK[$conf]} (${H2_CPU_RATIO[$conf]} x h2load)"
        ngx_target "$conf" "shb-h2-$conf" "h2load-h2-$conf" h2load
    done
fi

if [ "$DO_TLS" = 1 ]; then
    S_RPS=$(median shb-tls 4); W_RPS=$(median wrk-tls 4)
    S_CPU=$(median shb-tls 6); W_CPU=$(median wrk-tls 6)
    S_NGX=$(median shb-tls 7); W_NGX=$(median wrk-tls 7)
    echo
    echo "HTTP/1.1 over TLS 1.3 (ECDSA P-256): median of $ROUNDS rounds, -c $CONNECTIONS -t $THREADS, ${DURATION}s each"
    printf '  %-27s %14s %18s %18s\n' tool "req/s" "CPU us/request" "nginx us/request"
    printf '  %-27s %14.0f %18.3f %18.3f\n' shb "$S_RPS" "$S_CPU" "$S_NGX" wrk "$W_RPS" "$W_CPU" "$W_NGX" 2>/dev/null
    printf '  %-27s %14s %18s %18s\n' "shb/wrk" "$(ratio "$S_RPS" "$W_RPS")" "$(ratio "$S_CPU" "$W_CPU")" "$(ratio "$S_NGX" "$W_NGX")"
    TLS_H1_MARK="n/a"
    if [ "$S_RPS" != nan ] && [ "$W_RPS" != nan ]; then
        TLS_H1_MARK=$(met "$S_RPS >= $W_RPS")
    fi
    TLS_H1_RATIO=$(ratio "$S_RPS" "$W_RPS")

    declare -A TLS_H2_MARK=() TLS_H2_RATIO=()
    echo
    echo "HTTP/2 over TLS 1.3 (ALPN h2): median of $ROUNDS rounds, -t $THREADS, ${DURATION}s each"
    printf '  %-27s %14s %18s %18s\n' "tool, connections x streams" "req/s" "CPU us/request" "nginx us/request"
    for conf in "${TLS_H2_CONFS[@]}"; do
        c=${conf%x*}
        m=${conf#*x}
        S_RPS=$(median "shb-tls-h2-$conf" 4); H_RPS=$(median "h2load-tls-h2-$conf" 4)
        S_CPU=$(median "shb-tls-h2-$conf" 6); H_CPU=$(median "h2load-tls-h2-$conf" 6)
        S_NGX=$(median "shb-tls-h2-$conf" 7); H_NGX=$(median "h2load-tls-h2-$conf" 7)
        printf '  %-27s %14.0f %18.3f %18.3f\n' "shb -c $c -p $m" "$S_RPS" "$S_CPU" "$S_NGX" "h2load -c $c -m $m" "$H_RPS" "$H_CPU" "$H_NGX" 2>/dev/null
        printf '  %-27s %14s %18s %18s\n' "shb/h2load" "$(ratio "$S_RPS" "$H_RPS")" "$(ratio "$S_CPU" "$H_CPU")" "$(ratio "$S_NGX" "$H_NGX")"
        TLS_H2_MARK[$conf]="n/a"
        if [ "$S_RPS" != nan ] && [ "$H_RPS" != nan ]; then
            TLS_H2_MARK[$conf]=$(met "$S_RPS >= 1.1 * $H_RPS")
        fi
        TLS_H2_RATIO[$conf]=$(ratio "$S_RPS" "$H_RPS")
    done

    S_RPS=$(median shb-hs 4); W_RPS=$(median wrk-hs 4)
    S_CPU=$(median shb-hs 6); W_CPU=$(median wrk-hs 6)
    S_NGX=$(median shb-hs 7); W_NGX=$(median wrk-hs 7)
    echo
    echo "TLS 1.3 handshakes (one per request): median of $ROUNDS rounds, -c $CONNECTIONS -t $THREADS, ${DURATION}s each"
    printf '  %-27s %14s %18s %20s\n' tool "handshakes/s" "CPU us/handshake" "nginx us/handshake"
    printf '  %-27s %14.0f %18.3f %20.3f\n' "shb --disable-keepalive" "$S_RPS" "$S_CPU" "$S_NGX" "wrk -H 'Connection: close'" "$W_RPS" "$W_CPU" "$W_NGX" 2>/dev/null
    printf '  %-27s %14s %18s %20s\n' "shb/wrk" "$(ratio "$S_RPS" "$W_RPS")" "$(ratio "$S_CPU" "$W_CPU")" "$(ratio "$S_NGX" "$W_NGX")"

    F_RPS=$(median shb-hs-full 4); R_RPS=$(median shb-hs-resumed 4)
    F_CPU=$(median shb-hs-full 6); R_CPU=$(median shb-hs-resumed 6)
    F_NGX=$(median shb-hs-full 7); R_NGX=$(median shb-hs-resumed 7)
    echo
    echo "TLS 1.3 session resumption (nginx issuing tickets; one handshake per request): median of $ROUNDS rounds, -c $CONNECTIONS -t $THREADS, ${DURATION}s each"
    printf '  %-27s %14s %18s %20s\n' row "handshakes/s" "CPU us/handshake" "nginx us/handshake"
    printf '  %-27s %14.0f %18.3f %20.3f\n' "full handshakes" "$F_RPS" "$F_CPU" "$F_NGX" "resumed handshakes" "$R_RPS" "$R_CPU" "$R_NGX" 2>/dev/null
    printf '  %-27s %14s %18s %20s\n' "resumed/full" "$(ratio "$R_RPS" "$F_RPS")" "$(ratio "$R_CPU" "$F_CPU")" "$(ratio "$R_NGX" "$F_NGX")"

    HS_RPS_MARK="n/a"
    HS_CPU_MARK="n/a"
    if [ "$S_RPS" != nan ] && [ "$W_RPS" != nan ]; then
        HS_RPS_MARK=$(met "$S_RPS >= $W_RPS")
        HS_CPU_MARK=$(met "$S_CPU <= 0.5 * $W_CPU")
    fi

    echo
    echo "target: shb >= wrk req/s (HTTP/1.1 over TLS); shb >= 1.1 x h2load req/s (HTTP/2 over TLS);"
    echo "        handshakes: shb >= wrk handshakes/s, shb CPU/handshake <= 0.5 x wrk;"
    echo "        nginx's CPU per request (per handshake) under shb <= under the peer"
    echo "  HTTP/1.1 over TLS req/s: $TLS_H1_MARK ($TLS_H1_RATIO x wrk)"
    for conf in "${TLS_H2_CONFS[@]}"; do
        echo "  HTTP/2 over TLS $conf req/s: ${TLS_H2_MARK[$conf]} (${TLS_H2_RATIO[$conf]} x h2load)"
    done
    echo "  handshakes/s:      $HS_RPS_MARK ($(ratio "$S_RPS" "$W_RPS") x wrk)"
    echo "  CPU per handshake: $HS_CPU_MARK ($(ratio "$S_CPU" "$W_CPU") x wrk)"
    ngx_target "HTTP/1.1 over TLS" shb-tls wrk-tls wrk
    for conf in "${TLS_H2_CONFS[@]}"; do
        ngx_target "HTTP/2 over TLS $conf" "shb-tls-h2-$conf" "h2load-tls-h2-$conf" h2load
    done
    ngx_target "handshakes" shb-hs wrk-hs wrk
fi

if [ "$DO_ALL" = 1 ]; then
    echo
    echo "All cores (-t $ALL_THREADS for every tool; shb -t 1 beside it): median of $ROUNDS rounds, ${DURATION}s each"
    printf '  %-34s %14s %18s\n' "tool, config" "req/s" "CPU us/request"
    declare -A ALL_MARK=() ALL_RATIO=() ALL_T1_MARK=() ALL_T1_RATIO=()
    for row in "h1 wrk" "h1 h2load" "h2-32x32 h2load" "h2-100x100 h2load"; do
        read -r cfg other <<<"$row"
        S_RPS=$(median "all-shb-$cfg" 4); O_RPS=$(median "all-$other-$cfg" 4); S1_RPS=$(median "all-shb1-$cfg" 4)
        S_CPU=$(median "all-shb-$cfg" 6); O_CPU=$(median "all-$other-$cfg" 6); S1_CPU=$(median "all-shb1-$cfg" 6)
        if [ "$other" = wrk ] || [ "$cfg" != h1 ]; then
            printf '  %-34s %14.0f %18.3f\n' "shb $cfg -t $ALL_THREADS" "$S_RPS" "$S_CPU" "shb $cfg -t 1" "$S1_RPS" "$S1_CPU" 2>/dev/null
        fi
        printf '  %-34s %14.0f %18.3f\n' "$other $cfg -t $ALL_THREADS" "$O_RPS" "$O_CPU" 2>/dev/null
        printf '  %-34s %14s %18s\n' "shb/$other" "$(ratio "$S_RPS" "$O_RPS")" "$(ratio "$S_CPU" "$O_CPU")"
        want=1.2
        [ "$cfg" = h1 ] && want=1.15
        key="$cfg $other"
        ALL_MARK[$key]="n/a"
        ALL_T1_MARK[$cfg]="n/a"
        if [ "$S_RPS" != nan ] && [ "$O_RPS" != nan ]; then
            ALL_MARK[$key]=$(met "$S_RPS >= $want * $O_RPS")
        fi
        if [ "$S_RPS" != nan ] && [ "$S1_RPS" != nan ]; then
            ALL_T1_MARK[$cfg]=$(met "$S_RPS >= $S1_RPS")
        fi
        ALL_RATIO[$key]="$(ratio "$S_RPS" "$O_RPS") x $other (want >= $want)"
        ALL_T1_RATIO[$cfg]=$(ratio "$S_RPS" "$S1_RPS")
    done
    echo
    echo "target: with -t $ALL_THREADS, shb >= 1.15 x wrk (HTTP/1.1, $ALL_H1_CONNECTIONS connections), >= 1.2 x h2load"
    echo "        (h2c 32x32 and 100x100); shb -t $ALL_THREADS >= shb -t 1 on each config"
    echo "  HTTP/1.1 vs wrk:      ${ALL_MARK[h1 wrk]} (${ALL_RATIO[h1 wrk]})"
    echo "  HTTP/1.1 vs h2load:   ($(ratio "$(median all-shb-h1 4)" "$(median all-h2load-h1 4)") x h2load, no target)"
    echo "  h2c 32x32:            ${ALL_MARK[h2-32x32 h2load]} (${ALL_RATIO[h2-32x32 h2load]})"
    echo "  h2c 100x100:          ${ALL_MARK[h2-100x100 h2load]} (${ALL_RATIO[h2-100x100 h2load]})"
    for cfg in h1 h2-32x32 h2-100x100; do
        echo "  $cfg -t $ALL_THREADS vs -t 1: ${ALL_T1_MARK[$cfg]} (${ALL_T1_RATIO[$cfg]} x)"
    done
fi

# --- the live view's cost -------------------------------------------------------------
if [ "$DO_LIVE" = 1 ]; then
    L_RPS=$(median shb-live 4); Q_RPS=$(median shb-quiet 4)
    L_CPU=$(median shb-live 6); Q_CPU=$(median shb-quiet 6)
    spread=$(awk '$1 == "shb-quiet" { if (n++ == 0 || $4 < lo) lo = $4; if ($4 > hi) hi = $4 }
        END { if (n) printf "%.1f", (hi - lo) * 100 / ((hi + lo) / 2); else print "n/a" }' "$RESULTS")
    echo
    echo "Live view (stderr a terminal) beside --no-progress: median of $ROUNDS rounds, HTTP/1.1 -c $CONNECTIONS -t $ALL_THREADS, ${DURATION}s each"
    printf '  %-12s %14s %18s\n' run "req/s" "CPU us/request"
    printf '  %-12s %14.0f %18.3f\n' "live view" "$L_RPS" "$L_CPU" "--no-progress" "$Q_RPS" "$Q_CPU" 2>/dev/null
    echo "  live/quiet: req/s $(ratio "$L_RPS" "$Q_RPS"), CPU/request $(ratio "$L_CPU" "$Q_CPU"); --no-progress's own rounds spread over ${spread} % of their median"
fi

# --- the first-byte phase's cost ---------------------------------------------------------
# per_request BIN ARGS...: callgrind's instructions per request of BIN ARGS,
# the slope between -n 20000 and -n 60000 (start-up and report cancel out).
per_request() {
    local bin=$1 n c20=
    shift
    for n in 20000 60000; do
        if ! timeout -k 5 300 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" -n "$n" >"$T/cg.out" 2>"$T/cg.err"; then
            echo "bench: callgrind $bin $* -n $n failed" >&2
            FAILED_TOOLS=$((FAILED_TOOLS + 1))
            echo nan
            return 0
        fi
        local c
        c=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/cg.err")
        [ -n "$c20" ] || { c20=$c; continue; }
        awk -v a="$c20" -v b="$c" 'BEGIN { printf "%.0f", (b - a) / 40000 }'
    done
}
# callgrind_rows NAME BIN EXTRA BASE: per_request of BIN EXTRA beside BASE
# (EXTRA: words added to BIN's arguments), over HTTP/1.1 and h2c, the
# median of 3 alternating rounds each, and the difference.
callgrind_rows() {
    local name=$1 bin=$2 base=$4 row w wo
    local -a extra args with without
    read -r -a extra <<<"$3"
    if ! command -v valgrind >/dev/null 2>&1; then
        echo "  (valgrind not installed: no instruction counts)"
        return 0
    fi
    echo "  callgrind, instructions per request (-c 10 -t 1; median of 3 alternating rounds):"
    for row in "HTTP/1.1|$URL" "h2c|--http2 $URL_H2"; do
        read -r -a args <<<"${row#*|}"
        with=() without=()
        for _ in 1 2 3; do
            with+=("$(per_request "$bin" -c 10 -t 1 --no-progress "${extra[@]}" "${args[@]}")")
            without+=("$(per_request "$base" -c 10 -t 1 --no-progress "${args[@]}")")
        done
        w=$(printf '%s\n' "${with[@]}" | sort -g | sed -n 2p)
        wo=$(printf '%s\n' "${without[@]}" | sort -g | sed -n 2p)
        printf '  %-10s %s %6s, without %6s: %s (rounds: %s / %s)\n' "${row%%|*}" "$name" "$w" "$wo" \
            "$(awk -v a="$w" -v b="$wo" 'BEGIN { if (a == "nan" || b == "nan") print "n/a"; else printf "%+d, %+.1f %%", a - b, (a - b) * 100 / b }')" \
            "${with[*]}" "${without[*]}"
    done
}
if [ "$DO_PHASES" = 1 ]; then
    F_RPS=$(median shb-fb 4); N_RPS=$(median shb-nofb 4)
    F_CPU=$(median shb-fb 6); N_CPU=$(median shb-nofb 6)
    echo
    echo "First-byte phase beside $SHB_NOFB (the record compiled out): median of $ROUNDS rounds, h2c -c 16 -p 32 -t $THREADS, ${DURATION}s each"
    printf '  %-14s %14s %18s\n' build "req/s" "CPU us/request"
    printf '  %-14s %14.0f %18.3f\n' "shb" "$F_RPS" "$F_CPU" "without it" "$N_RPS" "$N_CPU" 2>/dev/null
    echo "  shb/without: req/s $(ratio "$F_RPS" "$N_RPS"), CPU/request $(ratio "$F_CPU" "$N_CPU")"
    callgrind_rows shb "$SHB" "" "$SHB_NOFB"
fi

# --log: a line per request, beside the same runs without it; callgrind's
# instructions per request (the issue's yardstick: at most 10 % more).
if [ "$DO_LOG" = 1 ]; then
    echo
    echo "--log (TSV) beside the same runs without it: medians of $ROUNDS rounds, -t $THREADS, ${DURATION}s each"
    printf '  %-28s %12s %12s %16s %16s\n' "" "req/s" "without" "CPU us/request" "without"
    for row in "h1|HTTP/1.1 -c $CONNECTIONS" "h2|h2c 16 x 32"; do
        k=${row%%|*}
        printf '  %-28s %12.0f %12.0f %16.3f %16.3f\n' "${row#*|}" "$(median "shb-log-$k" 4)" "$(median "shb-nolog-$k" 4)" \
            "$(median "shb-log-$k" 6)" "$(median "shb-nolog-$k" 6)" 2>/dev/null
        echo "    with/without: req/s $(ratio "$(median "shb-log-$k" 4)" "$(median "shb-nolog-$k" 4)"), CPU/request $(ratio "$(median "shb-log-$k" 6)" "$(median "shb-nolog-$k" 6)")"
    done
    callgrind_rows --log "$SHB" "--log $T/requests.tsv" "$SHB"
    rm -f "$T/requests.tsv"
fi

# --- HTTP/3 ---------------------------------------------------------------------------
if [ "$DO_H3" = 1 ]; then
    dgrams() {
        awk -v t="$1" '$1 == t && $2 != "null" { s += $2; n++ } END { if (n) printf "%.2f", s / n; else print "n/a" }' "$T/dgrams" 2>/dev/null || echo n/a
    }
    h3_row() { # LABEL NAME: one table row
        printf '  %-34s %12.0f %14.3f %10s\n' "$2" "$(median "$1" 4)" "$(median "$1" 6)" "$(dgrams "$1")" 2>/dev/null
    }
    echo
    echo "HTTP/3 (medians of $ROUNDS rounds; CPU is the client's user+sys per request)"
    printf '  %-34s %12s %14s %10s\n' "" "req/s" "us/request" "dgram/send"
    for conf in "${H3_CONFS[@]}"; do
        c=${conf%x*}
        m=${conf#*x}
        h3_row "h3-bun-$conf" "Bun: shb --http3 -c $c -p $m -t $THREADS"
        [ -z "$H2LOAD_H3" ] || h3_row "h2load-h3-bun-$conf" "Bun: h2load -c $c -m $m -t $THREADS"
        h3_row "h3all-bun-$conf" "Bun: shb --http3 -c $c -p $m -t $ALL_THREADS"
        [ -z "$H2LOAD_H3" ] || h3_row "h2load-h3all-bun-$conf" "Bun: h2load -c $c -m $m -t $ALL_THREADS"
        if [ -n "$H2LOAD_H3" ]; then
            printf '  %-34s %12s %14s\n' "  shb/h2load (-t $THREADS)" "$(ratio "$(median "h3-bun-$conf" 4)" "$(median "h2load-h3-bun-$conf" 4)")" \
                "$(ratio "$(median "h3-bun-$conf" 6)" "$(median "h2load-h3-bun-$conf" 6)")"
        fi
    done
    for conf in "${H3_CADDY_CONFS[@]}"; do
        c=${conf%x*}
        m=${conf#*x}
        h3_row "h3-caddy-$conf" "Caddy: shb --http3 -c $c -p $m"
        h3_row "h2-caddy-$conf" "Caddy: shb --http2 -c $c -p $m (TCP)"
        [ -z "$H2LOAD_H3" ] || h3_row "h2load-h3-caddy-$conf" "Caddy: h2load -c $c -m $m"
    done
    if [ -n "$H2LOAD_H3" ]; then
        echo "target: shb's client CPU per request <= 0.6 x h2load's; req/s >= 1.3 x h2load's where the client is the bottleneck"
        for conf in "${H3_CONFS[@]}"; do
            cr=$(ratio "$(median "h3-bun-$conf" 6)" "$(median "h2load-h3-bun-$conf" 6)")
            rr=$(ratio "$(median "h3-bun-$conf" 4)" "$(median "h2load-h3-bun-$conf" 4)")
            echo "  Bun $conf: CPU/request $cr x h2load: $(met "$cr != \"n/a\" && $cr <= 0.6" 2>/dev/null || echo '?'); req/s $rr x h2load"
        done
    else
        echo "(no h2load beside shb: set H2LOAD_H3=/path/to/an/h2load/with/http3 for the comparison rows)"
    fi
fi

# --- client-bound rows -----------------------------------------------------------------
if [ "$DO_BOUND" = 1 ]; then
    num() { awk -v x="$1" -v f="$2" 'BEGIN { if (x == "nan") print "n/a"; else printf f, x }'; }
    # server_bound KEY THREADS Q: whether the server had no CPU to spare
    # while shb ran row KEY at Q % a thread: it kept 90 % of the cores the
    # quota leaves busy, or its busiest thread 90 % of a core (a one-thread
    # event loop is full at one core). Such a row compares the server's
    # limit, not the clients: shb waits for responses whatever its quota.
    # Sets SB_WHY, the figures that say so.
    server_bound() {
        local srv srv1 left
        srv=$(median "b$3-shb-$1" 11)
        srv1=$(median "b$3-shb-$1" 12)
        left=$(awk -v n="$(nproc)" -v q="$3" -v t="$2" 'BEGIN { printf "%.2f", n - q * t / 100 }')
        SB_WHY="server $(num "$srv" %.2f) of the $left cores left, busiest thread $(num "$srv1" %.2f)"
        [ "$srv" != nan ] && awk -v c="$srv" -v b="$srv1" -v l="$left" 'BEGIN { exit !(c >= 0.9 * l || b >= 0.9) }'
    }
    # Further passes: the rows still server-bound at the last quota they ran
    # at, again at each quota of QUOTA_LOW in turn, until the server has CPU
    # to spare and the clients are what is measured.
    declare -A ROW_QUOTAS=()
    for row in "${BOUND_ROWS[@]}"; do
        IFS='|' read -r key _ <<<"$row"
        ROW_QUOTAS[$key]=$QUOTA
    done
    prev=$QUOTA
    for ql in $QUOTA_LOW; do
        LOW_ROWS=()
        for row in "${BOUND_ROWS[@]}"; do
            IFS='|' read -r key threads _ <<<"$row"
            if [ "${ROW_QUOTAS[$key]##* }" = "$prev" ] && server_bound "$key" "$threads" "$prev"; then
                LOW_ROWS+=("$row")
                ROW_QUOTAS[$key]+=" $ql"
            fi
        done
        [ "${#LOW_ROWS[@]}" -gt 0 ] || break
        echo
        echo "client-bound, again at $ql % of a core per client thread: the ${#LOW_ROWS[@]} rows whose server had no CPU to spare at $prev %"
        BOUND_QUOTA=$ql
        for round in $(seq 1 "$ROUNDS"); do
            bound_pass "$round" "${LOW_ROWS[@]}"
        done
        prev=$ql
    done
    BOUND_QUOTA=$QUOTA

    echo
    echo "Client-bound: each client in a fresh cgroup at $QUOTA % of a core per client thread (period $QUOTA_PERIOD_US us),"
    echo "servers unbounded; median of $ROUNDS alternating rounds, ${DURATION}s each. CPU used: the cgroup's cpuacct.usage"
    echo "against its allowance (quota x the run's wall time); spread: the farthest round from the median, in % of it;"
    echo "others: the cores busy meanwhile with anything but the client, the server above all (near $(nproc) cores less the"
    echo "client's share, the server is the bottleneck, not the client); server: the cores the server kept busy"
    echo "(nginx's master and workers, Bun, ngtcp2's server: /proc/PID/task); thread: its busiest thread's share of a core."
    echo "A row whose server had no CPU to spare (server-bound) is measured again at each lower quota of QUOTA_LOW ($QUOTA_LOW) until it has."
    printf '  %-36s %8s %12s %10s %10s %8s %7s %7s %7s\n' "row, tool" "quota/th" "req/s" "shb/tool" "CPU used" spread others server thread
    BOUND_TARGETS=()
    for row in "${BOUND_ROWS[@]}"; do
        IFS='|' read -r key threads title peers <<<"$row"
        quotas=${ROW_QUOTAS[$key]}
        q=${quotas##* }
        head="  $title"
        for qq in $quotas; do
            [ "$qq" = "$q" ] || { server_bound "$key" "$threads" "$qq" || true; head+="; server-bound at $qq % a thread ($SB_WHY)"; }
        done
        echo "$head"
        for qq in $quotas; do
            S_RPS=$(median "b$qq-shb-$key" 4)
            for tool in shb $peers; do
                l="b$qq-$tool-$key"
                rps=$(median "$l" 4)
                r=""
                [ "$tool" = shb ] || r=$(ratio "$S_RPS" "$rps")
                printf '    %-34s %6s %% %12s %10s %10s %8s %7s %7s %7s\n' "$tool" "$qq" "$(num "$rps" %.0f)" "$r" \
                    "$(num "$(median "$l" 8)" '%.1f %%')" "$(num "$(spread "$l")" '%.1f %%')" \
                    "$(num "$(median "$l" 9)" %.2f)" "$(num "$(median "$l" 11)" %.2f)" "$(num "$(median "$l" 12)" %.2f)"
            done
        done
        # The targets are judged where the row is a client comparison: at
        # the last quota it ran at (QUOTA, or the QUOTA_LOW that gave its
        # server CPU to spare).
        S_RPS=$(median "b$q-shb-$key" 4)
        line="  $title, $q % a thread:"
        for tool in $peers; do
            rps=$(median "b$q-$tool-$key" 4)
            mark=n/a
            [ "$S_RPS" = nan ] || [ "$rps" = nan ] || mark=$(met "$S_RPS >= 2 * $rps")
            line+=" vs $tool $mark ($(ratio "$S_RPS" "$rps") x);"
        done
        [ -n "$peers" ] || line+=" vs h2load n/a (no peer: H2LOAD_H3 unset);"
        used=$(median "b$q-shb-$key" 8)
        mark=n/a
        [ "$used" = nan ] || mark=$(met "$used >= 90")
        line+=" CPU used $mark ($(num "$used" '%.1f %%'));"
        if server_bound "$key" "$threads" "$q"; then
            line+=" server-bound ($SB_WHY: not a client comparison; a lower quota would be);"
        fi
        sp=$(spread "b$q-shb-$key")
        mark=n/a
        [ "$sp" = nan ] || mark=$(met "$sp <= 15")
        line+=" spread $mark ($(num "$sp" '%.1f %%'))"
        BOUND_TARGETS+=("$line")
    done
    echo
    echo "target: on every row shb >= 2 x the peer's req/s, shb uses >= 90 % of its allowance, shb's rounds within 15 % of their median"
    echo "(each row judged at the last quota it ran at: $QUOTA %, or the first of $QUOTA_LOW % that left its server CPU to spare; a row still server-bound measured the server)"
    printf '%s\n' "${BOUND_TARGETS[@]}"
fi

# --- resident memory per connection ------------------------------------------------------
if [ "$DO_MEM" = 1 ]; then
    # An nginx whose listen backlog and descriptor limit take 10,000
    # connects at once (the spec's config keeps nginx's backlog of 511).
    start_nginx test/servers/nginx-conns.conf.in mem || { echo "bench: nginx (mem) did not start" >&2; exit 1; }
    URL="http://127.0.0.1:$NGINX_PORT/"
    URL_H2="http://127.0.0.1:$NGINX_PORT2/"
    URL_TLS="https://127.0.0.1:$NGINX_PORT_TLS/"
    echo
    echo "Peak resident memory (GNU time %M), -z 8s, -t $ALL_THREADS, nginx with a deep listen backlog"
    printf '  %-22s %12s %12s %12s %22s\n' protocol "100 conns" "1,000" "10,000" "per conn beyond 100"
    for row in "HTTP/1.1|$URL" "HTTP/2 (h2c)|--http2 $URL_H2" "HTTP/1.1 over TLS|$URL_TLS" "HTTP/2 over TLS|--http2 $URL_TLS"; do
        name=${row%%|*}
        read -r -a args <<<"${row#*|}"
        declare -A rss=()
        for c in 100 1000 10000; do
            rss[$c]=nan
            # Long enough for 10,000 TLS handshakes on a shared 2-core machine.
            if timeout -k 5 120 "$GNU_TIME" -f '%M' -o "$T/time" "$SHB" -z 8s -c "$c" -t "$ALL_THREADS" -j "${args[@]}" >"$T/out" 2>"$T/err"; then
                rss[$c]=$(tail -n 1 "$T/time")
                opened=$(jq -r '.connectionsOpened' "$T/out" 2>/dev/null || echo '?')
                [ "$opened" = "$c" ] || echo "  ($name -c $c: $opened connections opened)"
            else
                echo "bench: shb -c $c ${args[*]} failed" >&2
                FAILED_TOOLS=$((FAILED_TOOLS + 1))
            fi
        done
        printf '  %-22s %9s KiB %9s KiB %9s KiB %18s KiB\n' "$name" "${rss[100]}" "${rss[1000]}" "${rss[10000]}" \
            "$(awk -v a="${rss[100]}" -v b="${rss[10000]}" 'BEGIN { if (a == "nan" || b == "nan") print "n/a"; else printf "%.2f", (b - a) / 9900 }')"
        unset rss
    done
fi

# --- allocations do not grow with -n ---------------------------------------------------
# allocs LABEL ARGS...: valgrind's heap summary for shb ARGS -n 1000 and -n 50000.
allocs() {
    local label=$1 n line summary a b
    shift
    declare -A counts=()
    for n in 1000 50000; do
        echo "\$ valgrind --tool=memcheck $SHB_GLIBC $* -n $n"
        if ! timeout -k 5 600 valgrind --tool=memcheck "$SHB_GLIBC" "$@" -n "$n" >"$T/vg.out" 2>"$T/vg.err"; then
            echo "bench: valgrind run ($label) -n $n failed" >&2
            tail -n 20 "$T/vg.err" >&2
            FAILED_TOOLS=$((FAILED_TOOLS + 1))
            continue
        fi
        line=$(grep -m1 'total heap usage:' "$T/vg.err" || true)
        read -r summary <<<"${line#==*==}"
        echo "  $summary"
        echo "  $(jq -c '.requests' "$T/vg.out" 2>/dev/null || echo 'no JSON report')"
        counts[$n]=$(sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' <<<"$line" | tr -d ,)
    done
    a=${counts[1000]:-}
    b=${counts[50000]:-}
    if [ -n "$a" ] && [ -n "$b" ]; then
        if [ "$a" = "$b" ]; then
            echo "allocations ($label): equal ($a allocs for -n 1000 and -n 50000): met"
        else
            echo "allocations ($label): NOT equal ($a allocs for -n 1000, $b for -n 50000): not met"
        fi
    else
        echo "allocations ($label): could not read valgrind's heap summary"
    fi
}

# cubic: the h2c rows again, in a network namespace of their own whose TCP
# uses cubic (this same script, PROTOS=h2, with its own nginx there). With
# BBR, a server paces its writes from the rate its ACKs come back at: under
# a client slow to read (one that is itself out of CPU), nginx's two writes
# a response more often leave as one segment, and each response costs it
# less. Without pacing, what remains is what the client's requests cost.
if [ "$DO_CUBIC" = 1 ]; then
    echo
    echo "h2c with TCP cubic (a private network namespace: no pacing by the server's congestion control)"
    if ! unshare --net -- env BENCH_CC=cubic PROTOS=h2 ROUNDS="$ROUNDS" DURATION="$DURATION" THREADS="$THREADS" \
        H2_CONFIGS="$H2_CONFIGS" SHB="$SHB" bash scripts/bench.sh 2>&1 | sed 's/^/  /'; then
        echo "bench: the cubic section failed" >&2
        FAILED_TOOLS=$((FAILED_TOOLS + 1))
    fi
fi

echo
if [ "$DO_H1$DO_H2$DO_TLS$DO_H3" = 0000 ] || [ -n "${BENCH_CC:-}" ]; then
    : # no section whose allocations are counted (the cubic run: counted outside)
elif ! command -v valgrind >/dev/null 2>&1; then
    echo "allocations: valgrind not installed, skipped"
elif [ ! -x "$SHB_GLIBC" ]; then
    echo "allocations: $SHB_GLIBC not built (make glibc), skipped"
    FAILED_TOOLS=$((FAILED_TOOLS + 1))
else
    if [ "$DO_H1" = 1 ]; then
        allocs HTTP/1.1 -c 10 -t 1 -j "$URL"
    fi
    if [ "$DO_H2" = 1 ]; then
        allocs HTTP/2 --http2 -c 4 -p 8 -t 1 -j "$URL_H2"
    fi
    if [ "$DO_TLS" = 1 ]; then
        allocs "HTTP/1.1 over TLS" -c 10 -t 1 -j "$URL_TLS"
        allocs "HTTP/2 over TLS" --http2 -c 4 -p 8 -t 1 -j "$URL_TLS"
    fi
    if [ "$DO_H3" = 1 ]; then
        allocs HTTP/3 --http3 -c 4 -p 32 -t 1 -j "$URL_H3_BUN"
    fi
fi

if [ "$FAILED_TOOLS" -ne 0 ]; then
    echo "bench: $FAILED_TOOLS tool run(s) failed" >&2
    exit 1
fi
