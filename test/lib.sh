# shellcheck shell=bash
# test/lib.sh — helpers shared by test/e2e.sh, scripts/demo.sh and scripts/bench.sh.
#
# Source it (bash). It starts servers only on 127.0.0.1, each in a private
# temp directory, and stops every server it started from lib_cleanup, which
# the caller must run on exit:  trap lib_cleanup EXIT; trap 'exit 130' INT TERM
#
# Nothing here writes inside the repository.

LIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIB_TMP=""          # private temp dir (mktemp -d), removed by lib_cleanup
LIB_PIDS=()         # servers to stop
LIB_USED_PORTS=" "  # ports handed out by pick_port in this process

# lib_init: creates the private temp dir (call once, before anything else).
lib_init() {
    if [ -z "$LIB_TMP" ]; then
        LIB_TMP=$(mktemp -d /tmp/shb-test.XXXXXX)
        chmod 755 "$LIB_TMP"
    fi
}

lib_cleanup() {
    local pid i
    for pid in "${LIB_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${LIB_PIDS[@]}"; do
        # nginx: the master stops its workers on TERM; give both a moment.
        for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    LIB_PIDS=()
    if [ -n "$LIB_TMP" ] && [ -d "$LIB_TMP" ]; then
        rm -rf "$LIB_TMP"
    fi
    LIB_TMP=""
}

# port_listening PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_listening() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# port_in_use PORT: bound by anyone (listening or not), as far as we can tell.
port_in_use() {
    if command -v ss >/dev/null 2>&1; then
        [ -n "$(ss -Htan "( sport = :$1 )" 2>/dev/null)" ] && return 0
        return 1
    fi
    port_listening "$1"
}

# pick_port VAR: sets VAR to a random free port in 20000-59999 not handed
# out before in this shell (call it directly, not in $(...), so that sticks).
pick_port() {
    local p tries=0
    while [ "$tries" -lt 200 ]; do
        tries=$((tries + 1))
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        case "$LIB_USED_PORTS" in *" $p "*) continue ;; esac
        port_in_use "$p" && continue
        LIB_USED_PORTS="$LIB_USED_PORTS$p "
        printf -v "$1" '%s' "$p"
        return 0
    done
    echo "pick_port: no free port found" >&2
    return 1
}

# wait_port PORT PID [SECONDS]: waits until PORT accepts connections while PID lives.
wait_port() {
    local port=$1 pid=$2 limit=${3:-10} i=0
    while [ "$i" -lt $((limit * 20)) ]; do
        port_listening "$port" && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# start_nginx TEMPLATE NAME: renders TEMPLATE into $LIB_TMP/NAME/ with fresh
# ports and starts nginx in the foreground (daemon off) in the background.
# Placeholders: @PREFIX@ @PORT@ @PORT2@ @USER_LINE@.
# Sets NGINX_PORT, NGINX_PORT2, NGINX_DIR, NGINX_PID. Retries on a port clash.
start_nginx() {
    local template=$1 name=$2 dir attempt user_line=""
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    # As root the workers would switch to nobody; keep them root so they can
    # reach the private temp dir whatever its permissions. Not root: nginx
    # ignores "user" with a warning, so leave it out.
    if [ "$(id -u)" = 0 ]; then
        user_line="user root root;"
    fi
    for attempt in 1 2 3 4 5; do
        pick_port NGINX_PORT || return 1
        pick_port NGINX_PORT2 || return 1
        sed -e "s|@PREFIX@|$dir|g" -e "s|@PORT@|$NGINX_PORT|g" \
            -e "s|@PORT2@|$NGINX_PORT2|g" -e "s|@USER_LINE@|$user_line|g" \
            "$template" >"$dir/nginx.conf"
        nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/stdout.log" 2>&1 &
        NGINX_PID=$!
        # shellcheck disable=SC2034  # used by the scripts that source this
        NGINX_DIR=$dir
        if wait_port "$NGINX_PORT" "$NGINX_PID" 10 && wait_port "$NGINX_PORT2" "$NGINX_PID" 5; then
            LIB_PIDS+=("$NGINX_PID")
            return 0
        fi
        kill -TERM "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
        echo "start_nginx: attempt $attempt failed:" >&2
        cat "$dir/error.log" "$dir/stdout.log" >&2 2>/dev/null || true
    done
    return 1
}

# start_echo NAME: starts test/echo_server.js on a fresh port.
# Sets ECHO_PORT, ECHO_LOG, ECHO_PID.
start_echo() {
    local name=$1 dir attempt i
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    ECHO_LOG="$dir/requests.jsonl"
    for attempt in 1 2 3 4 5; do
        pick_port ECHO_PORT || return 1
        : >"$ECHO_LOG"
        node "$LIB_ROOT/test/echo_server.js" "$ECHO_PORT" "$ECHO_LOG" >"$dir/stdout.log" 2>"$dir/stderr.log" &
        ECHO_PID=$!
        for i in $(seq 1 200); do
            grep -q '^listening' "$dir/stdout.log" 2>/dev/null && break
            kill -0 "$ECHO_PID" 2>/dev/null || break
            sleep 0.05
        done
        if grep -q '^listening' "$dir/stdout.log" 2>/dev/null && kill -0 "$ECHO_PID" 2>/dev/null; then
            LIB_PIDS+=("$ECHO_PID")
            return 0
        fi
        kill -TERM "$ECHO_PID" 2>/dev/null || true
        wait "$ECHO_PID" 2>/dev/null || true
        echo "start_echo: attempt $attempt failed:" >&2
        cat "$dir/stderr.log" >&2 2>/dev/null || true
    done
    return 1
}
