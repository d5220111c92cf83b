# shellcheck shell=bash
# test/e2e/lib.sh — helpers shared by test/e2e/e2e.sh, test/e2e/e2e_h2.sh, scripts/demo.sh,
# scripts/bench.sh and scripts/deps.sh.
#
# Source it (bash). It starts servers only on 127.0.0.1, each in a private
# temp directory, and stops every server it started from lib_cleanup, which
# the caller must run on exit:  trap lib_cleanup EXIT; trap 'exit 130' INT TERM
#
# Nothing here writes inside the repository.

LIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LIB_TMP=""          # private temp dir (mktemp -d), removed by lib_cleanup
LIB_PIDS=()         # servers to stop
LIB_USED_PORTS=" "  # ports handed out by pick_port in this process
LIB_CERTS=""        # certificates made by gen_certs ($LIB_TMP/certs)

# lib_init: creates the private temp dir (call once, before anything else).
lib_init() {
    if [ -z "$LIB_TMP" ]; then
        LIB_TMP=$(mktemp -d /tmp/shb-test.XXXXXX)
        chmod 755 "$LIB_TMP"
    fi
}

# e2e_begin NAME [PROTOCOL]: how an end-to-end suite (test/e2e/e2e*.sh) starts,
# right after sourcing this file: set -u, the repository as the working
# directory, E2E_NAME=NAME (the prefix of every check's name) and, when
# given, EXPECT_PROTOCOL=PROTOCOL (e.g. HTTP/2: what every report must
# say), then test/e2e/e2e_lib.sh: which shb, PASS/FAIL reporting, and the
# cleanup on exit (servers included).
e2e_begin() {
    set -u
    cd "$LIB_ROOT" || exit 2
    E2E_NAME=$1
    if [ $# -ge 2 ]; then
        # shellcheck disable=SC2034  # read by test/e2e/e2e_lib.sh
        EXPECT_PROTOCOL=$2
    fi
    # shellcheck source=test/e2e/e2e_lib.sh
    . "$LIB_ROOT/test/e2e/e2e_lib.sh"
}

# reap PID [SECONDS]: waits up to SECONDS (2) for PID (sent TERM already)
# to go, then kills it.
reap() {
    local i
    # nginx: the master stops its workers on TERM; give both a moment.
    for ((i = 0; i < ${2:-2} * 10; i++)); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# lib_stop_servers: stops every server this library started (TERM, then
# reap), leaving the temp dir.
lib_stop_servers() {
    local pid
    for pid in "${LIB_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${LIB_PIDS[@]}"; do
        reap "$pid"
    done
    LIB_PIDS=()
}

lib_cleanup() {
    lib_stop_servers
    if [ -n "$LIB_TMP" ] && [ -d "$LIB_TMP" ]; then
        rm -rf "$LIB_TMP"
    fi
    LIB_TMP=""
}

# port_listening PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_listening() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# port_in_use PORT: bound by anyone (listening or not, TCP or UDP: the
# HTTP/3 servers take both), as far as we can tell.
port_in_use() {
    if command -v ss >/dev/null 2>&1; then
        [ -n "$(ss -Htuan "( sport = :$1 )" 2>/dev/null)" ] && return 0
        return 1
    fi
    port_listening "$1"
}

# udp_bound PORT: a UDP socket is bound to 127.0.0.1:PORT or to every
# address (ss; without ss this cannot be told and is taken as true).
udp_bound() {
    command -v ss >/dev/null 2>&1 || return 0
    ss -Huln "( sport = :$1 )" 2>/dev/null | grep -qE '(127\.0\.0\.1|\*|0\.0\.0\.0|\[::\]):'"$1"'\b'
}

# wait_udp PORT PID [SECONDS]: waits until UDP PORT is bound while PID lives.
wait_udp() {
    local port=$1 pid=$2 limit=${3:-10} i=0
    while [ "$i" -lt $((limit * 20)) ]; do
        udp_bound "$port" && kill -0 "$pid" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# lib_port_range: sets LIB_PORT_LO and LIB_PORT_HI, the ports pick_port
# draws from: 10000 up to just below the kernel's ephemeral port range
# (net.ipv4.ip_local_port_range, 32768-60999 by default). A port inside that
# range can be taken at any moment by any client socket on the machine (one
# in TIME_WAIT included), and then a server cannot bind it; below it, only a
# listener can hold a port, and port_in_use sees listeners. Where the range
# starts too low to leave a thousand ports above 10000, 1025 is the bottom.
LIB_PORT_LO=""
LIB_PORT_HI=""
lib_port_range() {
    local low=""
    [ -n "$LIB_PORT_LO" ] && return 0
    read -r low _ 2>/dev/null </proc/sys/net/ipv4/ip_local_port_range || true
    case "$low" in "" | *[!0-9]*) low=32768 ;; esac
    LIB_PORT_LO=10000
    LIB_PORT_HI=$((low - 1))
    if [ "$LIB_PORT_HI" -lt $((LIB_PORT_LO + 1000)) ]; then
        LIB_PORT_LO=1025
    fi
    if [ "$LIB_PORT_HI" -lt $((LIB_PORT_LO + 100)) ]; then
        # Next to no room below the ephemeral range: take what is free anywhere.
        LIB_PORT_HI=65535
    fi
}

# pick_port VAR: sets VAR to a random free port from LIB_PORT_LO-LIB_PORT_HI
# (lib_port_range: below the ephemeral range) not handed out before in this
# shell (call it directly, not in $(...), so that sticks).
pick_port() {
    local p tries=0 span
    lib_port_range
    span=$((LIB_PORT_HI - LIB_PORT_LO + 1))
    while [ "$tries" -lt 200 ]; do
        tries=$((tries + 1))
        p=$((LIB_PORT_LO + (RANDOM * 32768 + RANDOM) % span))
        case "$LIB_USED_PORTS" in *" $p "*) continue ;; esac
        port_in_use "$p" && continue
        LIB_USED_PORTS="$LIB_USED_PORTS$p "
        printf -v "$1" '%s' "$p"
        return 0
    done
    echo "pick_port: no free port found in $LIB_PORT_LO-$LIB_PORT_HI" >&2
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

# wait_line REGEX FILE PID [SECONDS]: waits until FILE has a line matching
# REGEX while PID lives (a server that says when it is ready).
wait_line() {
    local re=$1 file=$2 pid=$3 limit=${4:-10} i=0
    while [ "$i" -lt $((limit * 20)) ]; do
        grep -q "$re" "$file" 2>/dev/null && kill -0 "$pid" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# start_failed WHAT ATTEMPT PID LOG...: a server that did not come up is
# stopped, and the end of its LOGs says why (on stderr).
start_failed() {
    local what=$1 attempt=$2 pid=$3
    shift 3
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    echo "$what: attempt $attempt failed:" >&2
    tail -n 20 "$@" >&2 2>/dev/null || true
}

# start_retry WHAT PIDVAR LOG... -- ATTEMPT [ARG...]: starts a server, trying
# up to five times (a port picked free can be taken before the server binds
# it). ATTEMPT ARG... picks its ports afresh, starts the server in the
# background (in this shell, not a subshell), sets the variable named PIDVAR
# to its pid, and waits until it is ready. It returns 0 when the server is
# up (it joins LIB_PIDS), 1 when it did not come up (start_failed stops it
# and shows the end of its LOGs; then another try), 2 when it could not
# even be started (no free port, a template that does not render: no other
# try), 3 when it did not come up and another try would not help.
start_retry() {
    local what=$1 pidvar=$2 attempt rc logs=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        logs+=("$1")
        shift
    done
    shift
    lib_init
    for attempt in 1 2 3 4 5; do
        rc=0
        "$@" || rc=$?
        case $rc in
        0)
            LIB_PIDS+=("${!pidvar}")
            return 0
            ;;
        2) return 1 ;;
        esac
        start_failed "$what" "$attempt" "${!pidvar}" "${logs[@]}"
        [ "$rc" = 3 ] && return 1
    done
    return 1
}

# lib_nofile: the hard limit on open files (RLIMIT_NOFILE), 65536 when unlimited.
lib_nofile() {
    local n
    n=$(ulimit -Hn)
    [ "$n" = unlimited ] && n=65536
    printf '%s\n' "$n"
}

# lib_local_ports: the local ports connect() may hand out to one address:
# net.ipv4.ip_local_port_range less the ports of
# net.ipv4.ip_local_reserved_ports inside it (the kernel never picks those).
lib_local_ports() {
    local lo hi
    read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
    tr ',' '\n' </proc/sys/net/ipv4/ip_local_reserved_ports 2>/dev/null | awk -F- -v lo="$lo" -v hi="$hi" '
        NF { a = $1 + 0; b = (NF > 1 ? $2 : $1) + 0; if (a < lo) a = lo; if (b > hi) b = hi; if (a <= b) n += b - a + 1 }
        END { print hi - lo + 1 - n }'
}

# ports_lock / ports_unlock: a machine-wide lock around a run that takes
# most of the local ports (or descriptors) there are, so two suites running
# at once (test/run.sh runs both builds of some suites together) take their
# turns rather than each other's ports. Waits at most 10 minutes.
PORTS_LOCK_FD=""
ports_lock() {
    exec {PORTS_LOCK_FD}>>"${TMPDIR:-/tmp}/shb-test-ports.lock"
    flock -w 600 "$PORTS_LOCK_FD"
}
ports_unlock() {
    [ -n "$PORTS_LOCK_FD" ] || return 0
    flock -u "$PORTS_LOCK_FD"
    exec {PORTS_LOCK_FD}>&-
    PORTS_LOCK_FD=""
}

# render_nginx TEMPLATE DIR: writes DIR/nginx.conf from TEMPLATE with fresh
# ports. Placeholders: @PREFIX@ (DIR) @PORT@ @PORT2@ @USER_LINE@, @NOFILE@
# (lib_nofile), any number
# of named ports @PORT_XYZ@ (each gets its own free port, in NGINX_PORT_XYZ),
# and @CERTS@ (the directory gen_certs fills; made on first use). Sets
# NGINX_PORT, NGINX_PORT2, NGINX_PORT_* and NGINX_PORTS (every port the
# template listens on).
render_nginx() {
    local template=$1 dir=$2 user_line="" named p v sedargs
    # As root the workers would switch to nobody; keep them root so they can
    # reach the private temp dir whatever its permissions. Not root: nginx
    # ignores "user" with a warning, so leave it out.
    if [ "$(id -u)" = 0 ]; then
        user_line="user root root;"
    fi
    if grep -q '^[^#]*@CERTS@' "$template"; then
        gen_certs || return 1
    fi
    pick_port NGINX_PORT || return 1
    pick_port NGINX_PORT2 || return 1
    # shellcheck disable=SC2153  # set by pick_port
    NGINX_PORTS=$NGINX_PORT
    if grep -q '^[^#]*@PORT2@' "$template"; then
        # shellcheck disable=SC2153  # set by pick_port
        NGINX_PORTS="$NGINX_PORTS $NGINX_PORT2"
    fi
    sedargs=(-e "s|@PREFIX@|$dir|g" -e "s|@PORT@|$NGINX_PORT|g"
        -e "s|@PORT2@|$NGINX_PORT2|g" -e "s|@USER_LINE@|$user_line|g"
        -e "s|@CERTS@|$LIB_CERTS|g" -e "s|@NOFILE@|$(lib_nofile)|g")
    # Named ports outside comments.
    named=$(sed -e 's/#.*//' "$template" | grep -o '@PORT_[A-Z0-9_]*@' | tr -d @ | sort -u || true)
    for p in $named; do
        pick_port "NGINX_$p" || return 1
        v="NGINX_$p"
        sedargs+=(-e "s|@$p@|${!v}|g")
        NGINX_PORTS="$NGINX_PORTS ${!v}"
    done
    sed "${sedargs[@]}" "$template" >"$dir/nginx.conf"
}

# start_nginx TEMPLATE NAME: renders TEMPLATE (render_nginx) into
# $LIB_TMP/NAME/ and starts nginx in the foreground (daemon off) in the
# background. Sets what render_nginx sets, NGINX_DIR and NGINX_PID. Waits
# until every port in the template accepts connections. Retries on a port
# clash.
start_nginx() {
    local template=$1 name=$2 dir
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    start_retry "start_nginx" NGINX_PID "$dir/error.log" "$dir/stdout.log" -- nginx_attempt "$template" "$dir"
}

# nginx_attempt TEMPLATE DIR: one try of start_nginx (start_retry).
nginx_attempt() {
    local template=$1 dir=$2 p
    render_nginx "$template" "$dir" || return 2
    nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/stdout.log" 2>&1 &
    NGINX_PID=$!
    # shellcheck disable=SC2034  # used by the scripts that source this
    NGINX_DIR=$dir
    for p in $NGINX_PORTS; do
        wait_port "$p" "$NGINX_PID" 10 || return 1
    done
}

# start_tinyproxy NAME CONNECT_PORTS [BASIC_AUTH]: starts Debian's tinyproxy
# in the foreground on a free loopback port, in $LIB_TMP/NAME/ with a config
# of its own: clients from 127.0.0.1 only, CONNECT to the ports of
# CONNECT_PORTS (space-separated) only, and, with BASIC_AUTH ("USER
# PASSWORD"), those credentials required (407 without them). Its log
# (LogLevel Info) names each request line. Sets TINYPROXY_PORT,
# TINYPROXY_DIR, TINYPROXY_PID. Retries on a port clash.
start_tinyproxy() {
    local name=$1 ports=$2 auth=${3:-} dir
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    start_retry "start_tinyproxy" TINYPROXY_PID "$dir/tinyproxy.log" "$dir/stdout.log" -- \
        tinyproxy_attempt "$dir" "$ports" "$auth"
}

# tinyproxy_attempt DIR CONNECT_PORTS BASIC_AUTH: one try of start_tinyproxy.
tinyproxy_attempt() {
    local dir=$1 ports=$2 auth=$3 p
    pick_port TINYPROXY_PORT || return 2
    {
        echo "Port $TINYPROXY_PORT"
        echo "Listen 127.0.0.1"
        echo "Timeout 600"
        echo "MaxClients 512"
        echo "LogLevel Info"
        echo "LogFile \"$dir/tinyproxy.log\""
        echo "Allow 127.0.0.1"
        echo "DisableViaHeader Yes"
        for p in $ports; do
            echo "ConnectPort $p"
        done
        if [ -n "$auth" ]; then
            echo "BasicAuth $auth"
        fi
    } >"$dir/tinyproxy.conf"
    : >"$dir/tinyproxy.log"
    tinyproxy -d -c "$dir/tinyproxy.conf" >"$dir/stdout.log" 2>&1 &
    TINYPROXY_PID=$!
    # shellcheck disable=SC2034  # used by the scripts that source this
    TINYPROXY_DIR=$dir
    wait_port "$TINYPROXY_PORT" "$TINYPROXY_PID" 10 || return 1
}

# start_node_server SCRIPT NAME [ARGS...]: starts `node SCRIPT PORT LOG ARGS...`
# (a server that prints "listening" once ready and appends one JSON line per
# request to LOG) on a fresh port, in $LIB_TMP/NAME/. LIB_JS_RUNTIME, when
# set (e.g. for one call: LIB_JS_RUNTIME=/path/to/bun start_node_server ...),
# runs the script instead of node.
# Sets NODE_PORT, NODE_LOG, NODE_PID. Retries on a port clash.
start_node_server() {
    local script=$1 name=$2 dir
    shift 2
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    NODE_LOG="$dir/requests.jsonl"
    start_retry "start_node_server $name" NODE_PID "$dir/stderr.log" -- node_attempt "$dir" "$script" "$@"
}

# node_attempt DIR SCRIPT [ARGS...]: one try of start_node_server.
node_attempt() {
    local dir=$1 script=$2
    shift 2
    pick_port NODE_PORT || return 2
    : >"$NODE_LOG"
    : >"$dir/stdout.log"
    "${LIB_JS_RUNTIME:-node}" "$script" "$NODE_PORT" "$NODE_LOG" "$@" >"$dir/stdout.log" 2>"$dir/stderr.log" &
    NODE_PID=$!
    wait_line '^listening' "$dir/stdout.log" "$NODE_PID" 10
}

# start_echo NAME: starts test/servers/echo_server.js (HTTP/1.1) on a fresh port.
# Sets ECHO_PORT, ECHO_LOG, ECHO_PID.
start_echo() {
    start_node_server "$LIB_ROOT/test/servers/echo_server.js" "$1" || return 1
    # shellcheck disable=SC2034  # used by the scripts that source this
    ECHO_PORT=$NODE_PORT ECHO_LOG=$NODE_LOG ECHO_PID=$NODE_PID
}

# start_h2_echo NAME [MAX_CONCURRENT_STREAMS]: starts test/servers/h2_echo_server.js
# (HTTP/2 with prior knowledge) on a fresh port; with MAX_CONCURRENT_STREAMS
# it advertises (and enforces) that limit. Sets H2E_PORT, H2E_LOG, H2E_PID.
start_h2_echo() {
    start_node_server "$LIB_ROOT/test/servers/h2_echo_server.js" "$@" || return 1
    # shellcheck disable=SC2034  # used by the scripts that source this
    H2E_PORT=$NODE_PORT H2E_LOG=$NODE_LOG H2E_PID=$NODE_PID
}

# start_nghttpd NAME DOCROOT [OPTION...]: starts nghttp2's nghttpd serving
# DOCROOT over cleartext HTTP/2 (prior knowledge) on 127.0.0.1 and a fresh
# port, in the foreground, with extra nghttpd OPTIONs (e.g. -m 2,
# --trailer 'x-t: 1'). Sets NGHTTPD_PORT, NGHTTPD_PID. Retries on a port clash.
start_nghttpd() {
    local name=$1 docroot=$2 dir
    shift 2
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    start_retry "start_nghttpd $name" NGHTTPD_PID "$dir/stderr.log" "$dir/stdout.log" -- \
        nghttpd_attempt "$dir" "$docroot" "$@"
}

# nghttpd_attempt DIR DOCROOT [OPTION...]: one try of start_nghttpd.
nghttpd_attempt() {
    local dir=$1 docroot=$2
    shift 2
    pick_port NGHTTPD_PORT || return 2
    nghttpd --no-tls -a 127.0.0.1 -d "$docroot" "$@" "$NGHTTPD_PORT" \
        >"$dir/stdout.log" 2>"$dir/stderr.log" &
    NGHTTPD_PID=$!
    wait_port "$NGHTTPD_PORT" "$NGHTTPD_PID" 10
}

# start_h2o TEMPLATE NAME DOCROOT: renders TEMPLATE into $LIB_TMP/NAME/h2o.conf
# and starts h2o in the foreground (worker mode) serving DOCROOT.
# Placeholders: @PREFIX@ @PORT@ @DOCROOT@ @USER_LINE@.
# Sets H2O_PORT, H2O_DIR, H2O_PID. Retries on a port clash.
start_h2o() {
    local template=$1 name=$2 docroot=$3 dir user_line=""
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    # As root h2o switches to nobody unless told otherwise (and then cannot
    # write its pid file in the private temp dir).
    if [ "$(id -u)" = 0 ]; then
        user_line="user: root"
    fi
    start_retry "start_h2o $name" H2O_PID "$dir/error.log" "$dir/stdout.log" -- \
        h2o_attempt "$template" "$dir" "$docroot" "$user_line"
}

# h2o_attempt TEMPLATE DIR DOCROOT USER_LINE: one try of start_h2o.
h2o_attempt() {
    local template=$1 dir=$2 docroot=$3 user_line=$4
    pick_port H2O_PORT || return 2
    # shellcheck disable=SC2153  # H2O_PORT is set by pick_port
    sed -e "s|@PREFIX@|$dir|g" -e "s|@PORT@|$H2O_PORT|g" \
        -e "s|@DOCROOT@|$docroot|g" -e "s|@USER_LINE@|$user_line|g" \
        "$template" >"$dir/h2o.conf"
    h2o -m worker -c "$dir/h2o.conf" >"$dir/stdout.log" 2>&1 &
    H2O_PID=$!
    # shellcheck disable=SC2034  # used by the scripts that source this
    H2O_DIR=$dir
    wait_port "$H2O_PORT" "$H2O_PID" 10
}

# --- TLS ------------------------------------------------------------------------
# gen_certs: makes self-signed test certificates with openssl in
# $LIB_TMP/certs (once per process) and sets LIB_CERTS to that directory:
#   rsa.crt rsa.key       RSA 2048, CN=localhost, SAN localhost and 127.0.0.1
#   ec.crt ec.key         ECDSA P-256, the same names
#   chain.crt chain.key   a leaf (P-256) followed by the three CAs above it
#                         (two intermediates and the root), each carrying a
#                         6,000-byte private extension: the TLS Certificate
#                         message is over 25 KB, so it spans several records
#   chain-root.crt        the root of that chain
# and LIB_CHAIN_CERTS (4) and LIB_CHAIN_BYTES (the chain's DER size, summed).
LIB_CHAIN_CERTS=0
LIB_CHAIN_BYTES=0
gen_certs() {
    local d filler f
    lib_init
    d="$LIB_TMP/certs"
    if [ -n "$LIB_CERTS" ] && [ -s "$d/chain.crt" ]; then
        return 0
    fi
    mkdir -p "$d"
    filler=$(head -c 6000 /dev/zero | tr '\0' 'A')
    cat >"$d/openssl.cnf" <<CNF
[req]
distinguished_name = dn
[dn]
[leaf]
basicConstraints = critical,CA:FALSE
subjectAltName = DNS:localhost,IP:127.0.0.1
[ca_big]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
1.3.6.1.4.1.55555.1 = ASN1:UTF8String:$filler
[leaf_big]
basicConstraints = critical,CA:FALSE
subjectAltName = DNS:localhost,IP:127.0.0.1
1.3.6.1.4.1.55555.1 = ASN1:UTF8String:$filler
CNF
    (
        set -e
        cd "$d"
        o() { openssl "$@" >>openssl.log 2>&1; }
        o req -x509 -config openssl.cnf -extensions leaf -newkey rsa:2048 -nodes \
            -keyout rsa.key -out rsa.crt -days 30 -subj /CN=localhost
        o req -x509 -config openssl.cnf -extensions leaf -newkey ec \
            -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ec.key -out ec.crt \
            -days 30 -subj /CN=localhost
        # The large chain: root -> intermediate 1 -> intermediate 2 -> leaf.
        o req -x509 -config openssl.cnf -extensions ca_big -newkey ec \
            -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca0.key -out ca0.crt \
            -days 30 -subj "/CN=shb test root"
        for i in 1 2; do
            o req -new -config openssl.cnf -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
                -nodes -keyout "ca$i.key" -out "ca$i.csr" -subj "/CN=shb test intermediate $i"
            o x509 -req -in "ca$i.csr" -CA "ca$((i - 1)).crt" -CAkey "ca$((i - 1)).key" \
                -CAcreateserial -days 30 -extfile openssl.cnf -extensions ca_big -out "ca$i.crt"
        done
        o req -new -config openssl.cnf -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
            -nodes -keyout chain.key -out leaf.csr -subj /CN=localhost
        o x509 -req -in leaf.csr -CA ca2.crt -CAkey ca2.key -CAcreateserial -days 30 \
            -extfile openssl.cnf -extensions leaf_big -out leaf.crt
        cat leaf.crt ca2.crt ca1.crt ca0.crt >chain.crt
        cp ca0.crt chain-root.crt
        chmod 644 ./*.key
    ) || {
        echo "gen_certs: openssl failed:" >&2
        tail -n 20 "$d/openssl.log" >&2 2>/dev/null || true
        return 1
    }
    LIB_CHAIN_CERTS=0
    LIB_CHAIN_BYTES=0
    for f in leaf ca2 ca1 ca0; do
        LIB_CHAIN_CERTS=$((LIB_CHAIN_CERTS + 1))
        LIB_CHAIN_BYTES=$((LIB_CHAIN_BYTES + $(openssl x509 -in "$d/$f.crt" -outform DER | wc -c)))
    done
    LIB_CERTS=$d
}

# start_nginx_tls NAME [TEMPLATE]: start_nginx with test/servers/nginx-tls.conf.in
# (or TEMPLATE), certificates from gen_certs. Sets what start_nginx sets,
# NGINX_PORT_* included.
start_nginx_tls() {
    gen_certs || return 1
    start_nginx "${2:-$LIB_ROOT/test/servers/nginx-tls.conf.in}" "$1"
}

# render_caddy TEMPLATE DIR: writes DIR/Caddyfile from a Caddyfile TEMPLATE
# (placeholders @PREFIX@ (DIR) @PORT@ @PORT2@ @CERTS@) with fresh ports.
# Sets CADDY_PORT, CADDY_PORT2.
render_caddy() {
    local template=$1 dir=$2
    gen_certs || return 1
    mkdir -p "$dir/home" "$dir/data" "$dir/config"
    pick_port CADDY_PORT || return 1
    pick_port CADDY_PORT2 || return 1
    sed -e "s|@PREFIX@|$dir|g" -e "s|@PORT@|$CADDY_PORT|g" \
        -e "s|@PORT2@|$CADDY_PORT2|g" -e "s|@CERTS@|$LIB_CERTS|g" \
        "$template" >"$dir/Caddyfile"
}

# caddy_env DIR CMD...: runs CMD with HOME, XDG_DATA_HOME and XDG_CONFIG_HOME
# inside DIR (so nothing of Caddy's lands in the real home).
caddy_env() {
    local dir=$1
    shift
    HOME="$dir/home" XDG_DATA_HOME="$dir/data" XDG_CONFIG_HOME="$dir/config" "$@"
}

# start_caddy TEMPLATE NAME: renders TEMPLATE (render_caddy) into
# $LIB_TMP/NAME/Caddyfile and runs `caddy run` there (caddy_env).
# Sets CADDY_PORT, CADDY_PORT2, CADDY_DIR, CADDY_PID. Retries on a port clash.
start_caddy() {
    local template=$1 name=$2 dir
    lib_init
    dir="$LIB_TMP/$name"
    start_retry "start_caddy" CADDY_PID "$dir/caddy.log" -- caddy_attempt "$template" "$dir" tcp
}

# caddy_attempt TEMPLATE DIR tcp|h3: one try of start_caddy or (h3: its UDP
# ports bound too) start_caddy_h3.
caddy_attempt() {
    local template=$1 dir=$2 kind=$3
    render_caddy "$template" "$dir" || return 2
    # Not through caddy_env: a backgrounded function would be a subshell
    # with caddy under it, and $! would not be caddy.
    HOME="$dir/home" XDG_DATA_HOME="$dir/data" XDG_CONFIG_HOME="$dir/config" \
        caddy run --config "$dir/Caddyfile" --adapter caddyfile >"$dir/caddy.log" 2>&1 &
    CADDY_PID=$!
    # shellcheck disable=SC2034  # used by the scripts that source this
    CADDY_DIR=$dir
    if ! wait_port "$CADDY_PORT" "$CADDY_PID" 15 || ! wait_port "$CADDY_PORT2" "$CADDY_PID" 5; then
        return 1
    fi
    [ "$kind" = h3 ] || return 0
    wait_udp "$CADDY_PORT" "$CADDY_PID" 5 && wait_udp "$CADDY_PORT2" "$CADDY_PID" 5
}

# start_gnutls NAME CERT KEY [OPTION...]: starts `gnutls-serv --http` (GnuTLS)
# with the PEM files CERT and KEY on a fresh port, plus extra gnutls-serv
# OPTIONs. gnutls-serv has no option to pick the address: it listens on every
# interface, IPv4 and IPv6 (the tests still reach it on 127.0.0.1 only). It
# serves many connections at once, answers GET with an HTTP/1.0 page whose end
# is the end of the connection, and by default asks for a client certificate
# (CertificateRequest). Sets GNUTLS_PORT, GNUTLS_PID. Retries on a port clash.
start_gnutls() {
    local name=$1 cert=$2 key=$3 dir
    shift 3
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    start_retry "start_gnutls $name" GNUTLS_PID "$dir/stderr.log" "$dir/stdout.log" -- \
        gnutls_attempt "$dir" "$cert" "$key" "$@"
}

# gnutls_attempt DIR CERT KEY [OPTION...]: one try of start_gnutls.
gnutls_attempt() {
    local dir=$1 cert=$2 key=$3
    shift 3
    pick_port GNUTLS_PORT || return 2
    gnutls-serv --http --quiet --x509certfile "$cert" --x509keyfile "$key" \
        -p "$GNUTLS_PORT" "$@" >"$dir/stdout.log" 2>"$dir/stderr.log" &
    GNUTLS_PID=$!
    wait_port "$GNUTLS_PORT" "$GNUTLS_PID" 10
}

# bun_bin: prints the path of a Bun binary that runs: the one scripts/deps.sh
# installs from npm into test/node_modules (npm ci --prefix test), its
# platform package's binary directly (when the bun package's postinstall did
# not run), or a bun on PATH. Returns 1 when there is none.
bun_bin() {
    local b
    for b in "$LIB_ROOT/test/node_modules/.bin/bun" \
        "$LIB_ROOT"/test/node_modules/@oven/bun-linux-*/bin/bun \
        "$(command -v bun 2>/dev/null || true)"; do
        if [ -n "$b" ] && [ -x "$b" ] && "$b" --version >/dev/null 2>&1; then
            printf '%s\n' "$b"
            return 0
        fi
    done
    return 1
}

# start_bun NAME CERT KEY: starts test/servers/bun_server.js under Bun (Bun.serve
# with TLS) on a fresh port. Sets BUN_PORT, BUN_LOG, BUN_PID.
start_bun() {
    local bun
    bun=$(bun_bin) || { echo "start_bun: no runnable bun (bash scripts/deps.sh)" >&2; return 1; }
    LIB_JS_RUNTIME=$bun start_node_server "$LIB_ROOT/test/servers/bun_server.js" "$1" "$2" "$3" || return 1
    # shellcheck disable=SC2034  # used by the scripts that source this
    BUN_PORT=$NODE_PORT BUN_LOG=$NODE_LOG BUN_PID=$NODE_PID
}

# start_tls_echo NAME h1|h2 CERT KEY: starts test/servers/tls_echo_server.js (node
# https, or http2.createSecureServer without HTTP/1.1) on a fresh port.
# Sets TLSE_PORT, TLSE_LOG, TLSE_PID.
start_tls_echo() {
    start_node_server "$LIB_ROOT/test/servers/tls_echo_server.js" "$1" "$2" "$3" "$4" || return 1
    # shellcheck disable=SC2034  # used by the scripts that source this
    TLSE_PORT=$NODE_PORT TLSE_LOG=$NODE_LOG TLSE_PID=$NODE_PID
}

# start_silent NAME: starts test/servers/silent_server.js (accepts TCP connections and
# never answers) on a fresh port. Sets SILENT_PORT, SILENT_LOG, SILENT_PID.
start_silent() {
    start_node_server "$LIB_ROOT/test/servers/silent_server.js" "$1" || return 1
    # shellcheck disable=SC2034  # used by the scripts that source this
    SILENT_PORT=$NODE_PORT SILENT_LOG=$NODE_LOG SILENT_PID=$NODE_PID
}

# start_hostile NAME SCENARIO [N] [--tls CERT KEY]: starts
# test/servers/hostile_server.js (a scriptable misbehaving HTTP/1.1 and HTTP/2 server:
# the scenarios are listed at the top of that file) on a fresh port, in
# $LIB_TMP/NAME/. Its log (one JSON line per connection opened and closed,
# per request and what it did with it, per HTTP/2 frame of interest) is
# written synchronously. Sets HOSTILE_PORT, HOSTILE_LOG, HOSTILE_PID.
start_hostile() {
    local name=$1
    shift
    start_node_server "$LIB_ROOT/test/servers/hostile_server.js" "$name" "$@" || return 1
    # shellcheck disable=SC2034  # used by the scripts that source this
    HOSTILE_PORT=$NODE_PORT HOSTILE_LOG=$NODE_LOG HOSTILE_PID=$NODE_PID
}

# start_hostile_quic NAME CONTROL CERT KEY: starts test/servers/hostile_quic_server.js
# (the QUIC/HTTP/3 cases of the hostile table, test/hostile/cases_h3.js;
# CONTROL names the current case) on a fresh port, free for UDP (pick_port
# asks ss for TCP and UDP alike), in $LIB_TMP/NAME/; a port that turns out
# taken ends the server before it says "listening", and another is tried.
# Its log (one JSON line per event, each with its case's name) is written
# synchronously. Sets HQUIC_PORT, HQUIC_LOG, HQUIC_PID.
start_hostile_quic() {
    local name=$1
    shift
    start_node_server "$LIB_ROOT/test/servers/hostile_quic_server.js" "$name" table "$@" || return 1
    wait_udp "$NODE_PORT" "$NODE_PID" 5 || return 1
    # shellcheck disable=SC2034  # used by the scripts that source this
    HQUIC_PORT=$NODE_PORT HQUIC_LOG=$NODE_LOG HQUIC_PID=$NODE_PID
}

# stop_server PID: stops one server this library started (TERM, then KILL
# after 2 s) before lib_cleanup would, and forgets it.
stop_server() {
    local pid=$1 p keep=()
    for p in "${LIB_PIDS[@]}"; do
        [ "$p" = "$pid" ] || keep+=("$p")
    done
    LIB_PIDS=("${keep[@]}")
    kill -TERM "$pid" 2>/dev/null || true
    reap "$pid"
}

# start_s_server NAME CERT KEY [OPTION...]: starts `openssl s_server` (TLS 1.3
# only, -msg: every handshake message it sends and receives, in hex, goes to
# its log) on a fresh 127.0.0.1 port. It is not an HTTP server: what it reads
# from the client goes to its log, and what is written to the FIFO goes to
# the client as application data, except a line that is just "k" or "K": a
# KeyUpdate (RFC 8446 §4.6.3), "K" with update_requested. Each write to the
# FIFO must reach s_server as a read of its own. Serves one connection at a
# time. Sets SSRV_PORT, SSRV_LOG, SSRV_FIFO, SSRV_PID.
start_s_server() {
    local name=$1 cert=$2 key=$3 dir
    shift 3
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    SSRV_LOG=$dir/s_server.log
    SSRV_FIFO=$dir/stdin
    [ -p "$SSRV_FIFO" ] || mkfifo "$SSRV_FIFO" || return 1
    start_retry "start_s_server $name" SSRV_PID "$SSRV_LOG" -- s_server_attempt "$cert" "$key" "$@"
}

# s_server_attempt CERT KEY [OPTION...]: one try of start_s_server.
s_server_attempt() {
    local cert=$1 key=$2
    shift 2
    pick_port SSRV_PORT || return 2
    # Opened read-write, the FIFO never reports EOF to s_server.
    openssl s_server -accept "127.0.0.1:$SSRV_PORT" -cert "$cert" -key "$key" \
        -tls1_3 -msg "$@" <>"$SSRV_FIFO" >"$SSRV_LOG" 2>&1 &
    SSRV_PID=$!
    # Not wait_port: a probe connection would be a handshake to it.
    wait_line '^ACCEPT' "$SSRV_LOG" "$SSRV_PID" 5
}

# --- HTTP/3 (QUIC over UDP) ---------------------------------------------------
# Every HTTP/3 server here listens on one port number twice, UDP (QUIC) and
# TCP (TLS, with alt-svc: h3); pick_port checks both (port_in_use).

# start_caddy_h3 NAME [TEMPLATE]: Caddy with test/servers/Caddyfile-h3.in (or
# TEMPLATE): HTTP/3 on UDP @PORT@ (ECDSA) and @PORT2@ (RSA), HTTP/1.1 and
# HTTP/2 on the same TCP ports, in $LIB_TMP/NAME/. Routes: / "hello",
# /status/NNN, /big.bin (CADDY_H3_BIG bytes, 8000000 unless set; the file is
# made in $LIB_TMP/NAME/www/ before Caddy starts). Waits until both TCP
# ports accept connections and both UDP ports are bound. Sets CADDY_PORT,
# CADDY_PORT2, CADDY_DIR, CADDY_PID, CADDY_H3_BIG. Retries on a port clash.
start_caddy_h3() {
    local name=$1 template=${2:-$LIB_ROOT/test/servers/Caddyfile-h3.in} dir
    lib_init
    dir="$LIB_TMP/$name"
    CADDY_H3_BIG=${CADDY_H3_BIG:-8000000}
    mkdir -p "$dir/www"
    if [ ! -s "$dir/www/big.bin" ] || [ "$(wc -c <"$dir/www/big.bin")" -ne "$CADDY_H3_BIG" ]; then
        head -c "$CADDY_H3_BIG" /dev/zero | tr '\0' 'x' >"$dir/www/big.bin" || return 1
    fi
    start_retry "start_caddy_h3" CADDY_PID "$dir/caddy.log" -- caddy_attempt "$template" "$dir" h3
}

# start_bun_h3 NAME CERT KEY: starts test/servers/bun_h3_server.js under Bun
# (Bun.serve with http3: true) on a fresh port: HTTP/3 on UDP, HTTP/1.1
# over TLS on the same TCP port. Waits for "listening" and the UDP bind.
# Sets BUN_H3_PORT, BUN_H3_LOG, BUN_H3_PID.
start_bun_h3() {
    local bun
    bun=$(bun_bin) || { echo "start_bun_h3: no runnable bun (bash scripts/deps.sh)" >&2; return 1; }
    LIB_JS_RUNTIME=$bun start_node_server "$LIB_ROOT/test/servers/bun_h3_server.js" "$1" "$2" "$3" || return 1
    if ! wait_udp "$NODE_PORT" "$NODE_PID" 5; then
        echo "start_bun_h3 $1: UDP port $NODE_PORT not bound" >&2
        stop_server "$NODE_PID"
        return 1
    fi
    # shellcheck disable=SC2034  # used by the scripts that source this
    BUN_H3_PORT=$NODE_PORT BUN_H3_LOG=$NODE_LOG BUN_H3_PID=$NODE_PID
}

# deno_bin: prints the path of a Deno binary that runs: the one npm installs
# into test/node_modules (npm ci --prefix test: the deno package, pinned in
# test/package.json, whose platform package @deno/linux-x64-glibc carries the
# binary), that platform package's binary directly, or a deno on PATH.
# Returns 1 when there is none.
deno_bin() {
    local b
    for b in "$LIB_ROOT/test/node_modules/.bin/deno" \
        "$LIB_ROOT"/test/node_modules/@deno/linux-*/deno \
        "$(command -v deno 2>/dev/null || true)"; do
        if [ -n "$b" ] && [ -x "$b" ] && "$b" --version >/dev/null 2>&1; then
            printf '%s\n' "$b"
            return 0
        fi
    done
    return 1
}

# start_deno_h3 NAME CERT KEY [CASE]: starts test/interop/deno_h3_server.ts
# under Deno (its own QUIC: Deno.QuicEndpoint, quinn over rustls, with the
# script's HTTP/3 layer on top) on a fresh UDP port, in $LIB_TMP/NAME/ (where
# Deno keeps its cache too: DENO_DIR). CASE: normal (the default),
# bigheaders or close5 (see the script). UDP only: there is no TCP side.
# Waits for "listening" and the UDP bind. Its stderr ($DENO_H3_DIR/stderr.log,
# opened for appending: a caller may empty it between runs) has a line per
# connection that ended. Sets DENO_H3_PORT, DENO_H3_DIR,
# DENO_H3_PID. Retries on a port clash.
start_deno_h3() {
    local name=$1 cert=$2 key=$3 mode=${4:-normal} deno dir
    deno=$(deno_bin) || { echo "start_deno_h3: no runnable deno (npm ci --prefix test)" >&2; return 1; }
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    start_retry "start_deno_h3 $name" DENO_H3_PID "$dir/stderr.log" -- \
        deno_h3_attempt "$deno" "$dir" "$cert" "$key" "$mode"
}

# deno_h3_attempt DENO DIR CERT KEY CASE: one try of start_deno_h3.
deno_h3_attempt() {
    local deno=$1 dir=$2 cert=$3 key=$4 mode=$5
    pick_port DENO_H3_PORT || return 2
    : >"$dir/stdout.log"
    : >"$dir/stderr.log"
    DENO_DIR="$dir/deno" DENO_NO_UPDATE_CHECK=1 NO_COLOR=1 \
        "$deno" run --quiet --no-prompt --unstable-net --allow-net=127.0.0.1 \
        --allow-read="$cert,$key" "$LIB_ROOT/test/interop/deno_h3_server.ts" \
        "$DENO_H3_PORT" "$cert" "$key" "$mode" >"$dir/stdout.log" 2>>"$dir/stderr.log" &
    DENO_H3_PID=$!
    # shellcheck disable=SC2034  # used by the scripts that source this
    DENO_H3_DIR=$dir
    wait_line '^listening' "$dir/stdout.log" "$DENO_H3_PID" 15 && wait_udp "$DENO_H3_PORT" "$DENO_H3_PID" 5
}

# start_ngtcp2_h3 NAME CERT KEY [ARG...]: starts ngtcp2's example HTTP/3 server
# (Debian's ngtcp2-server: gtlsserver, ngtcp2 over GnuTLS with nghttp3, in
# /usr/sbin) on a fresh UDP port, quiet, serving $LIB_TMP/NAME/htdocs: /
# (index.html, "ok") and /big.bin (NGTCP2_H3_BIG bytes of "x", 1000000
# unless set). UDP only; it says nothing when ready, so the UDP bind is the
# sign. Sets NGTCP2_H3_PORT, NGTCP2_H3_DIR, NGTCP2_H3_PID. Retries on a port
# clash.
start_ngtcp2_h3() {
    local name=$1 cert=$2 key=$3 dir server
    shift 3
    server=$(command -v gtlsserver 2>/dev/null || echo /usr/sbin/gtlsserver)
    [ -x "$server" ] || { echo "start_ngtcp2_h3: no gtlsserver (apt-get install ngtcp2-server)" >&2; return 1; }
    lib_init
    dir="$LIB_TMP/$name"
    NGTCP2_H3_BIG=${NGTCP2_H3_BIG:-1000000}
    mkdir -p "$dir/htdocs"
    printf ok >"$dir/htdocs/index.html"
    head -c "$NGTCP2_H3_BIG" /dev/zero | tr '\0' 'x' >"$dir/htdocs/big.bin" || return 1
    start_retry "start_ngtcp2_h3 $name" NGTCP2_H3_PID "$dir/stderr.log" -- \
        ngtcp2_h3_attempt "$server" "$dir" "$cert" "$key" "$@"
}

# ngtcp2_h3_attempt SERVER DIR CERT KEY [ARG...]: one try of start_ngtcp2_h3 (ARGs: the
# server's own options, e.g. --groups). NGTCP2_H3_LOG=1: the server logs its
# packets and frames to DIR/stderr.log (--no-http-dump) instead of running -q.
# NGTCP2_H3_SAME_PORT=1: the port of the last start is taken again (a restart).
ngtcp2_h3_attempt() {
    local server=$1 dir=$2 cert=$3 key=$4 quiet=-q
    shift 4
    [ "${NGTCP2_H3_LOG:-}" = 1 ] && quiet=--no-http-dump
    if [ "${NGTCP2_H3_SAME_PORT:-}" != 1 ] || [ -z "${NGTCP2_H3_PORT:-}" ]; then
        pick_port NGTCP2_H3_PORT || return 2
    fi
    "$server" "$quiet" "$@" -d "$dir/htdocs" 127.0.0.1 "$NGTCP2_H3_PORT" "$key" "$cert" \
        >"$dir/stdout.log" 2>"$dir/stderr.log" &
    NGTCP2_H3_PID=$!
    # shellcheck disable=SC2034  # used by the scripts that source this
    NGTCP2_H3_DIR=$dir
    wait_udp "$NGTCP2_H3_PORT" "$NGTCP2_H3_PID" 10
}

# start_udp_echo NAME: starts test/servers/udp_echo_server.js (every datagram sent
# back) on a fresh UDP port. Sets UDPE_PORT, UDPE_LOG, UDPE_PID.
start_udp_echo() {
    start_node_server "$LIB_ROOT/test/servers/udp_echo_server.js" "$1" || return 1
    # shellcheck disable=SC2034  # used by the scripts that source this
    UDPE_PORT=$NODE_PORT UDPE_LOG=$NODE_LOG UDPE_PID=$NODE_PID
}

# start_impair NAME UPSTREAM_PORT [OPTION...]: starts test/servers/udp_impair.js
# (node, or LIB_JS_RUNTIME) on a fresh 127.0.0.1 port, relaying UDP to
# 127.0.0.1:UPSTREAM_PORT with OPTIONs (--seed N --loss P --reorder P --dup P
# --delay MS --jitter MS, per direction --loss-up P --loss-down P ...: see
# the top of that file), in $LIB_TMP/NAME/. Sets IMPAIR_PORT, IMPAIR_PID and
# IMPAIR_OUT (its stdout: "listening", then its counters when it stops).
# stop_impair stops it and reads the counters. Retries on a port clash.
start_impair() {
    local name=$1 upstream=$2 dir
    shift 2
    lib_init
    dir="$LIB_TMP/$name"
    mkdir -p "$dir"
    IMPAIR_OUT="$dir/stdout.log"
    start_retry "start_impair $name" IMPAIR_PID "$dir/stderr.log" -- impair_attempt "$dir" "$upstream" "$@"
}

# impair_attempt DIR UPSTREAM_PORT [OPTION...]: one try of start_impair.
impair_attempt() {
    local dir=$1 upstream=$2
    shift 2
    pick_port IMPAIR_PORT || return 2
    : >"$IMPAIR_OUT"
    # shellcheck disable=SC2153  # IMPAIR_PORT is set by pick_port
    "${LIB_JS_RUNTIME:-node}" "$LIB_ROOT/test/servers/udp_impair.js" --listen "$IMPAIR_PORT" \
        --upstream "$upstream" "$@" >"$IMPAIR_OUT" 2>"$dir/stderr.log" &
    IMPAIR_PID=$!
    wait_line '^listening' "$IMPAIR_OUT" "$IMPAIR_PID" 10 && return 0
    # A bad option is not a port clash: do not try again.
    grep -q '^usage:' "$dir/stderr.log" 2>/dev/null && return 3
    return 1
}

# stop_impair: stops the proxy of the last start_impair (stop_server) and
# sets IMPAIR_STATS to its counters, one JSON object
# ({"up": {"in", "forwarded", "dropped", "reordered", "duplicated",
# "delayed", "bytesIn", "bytesOut"}, "down": {...}, "clients", "config"}),
# or to "null" if it printed none.
stop_impair() {
    stop_server "$IMPAIR_PID"
    IMPAIR_STATS=$(grep '^{' "$IMPAIR_OUT" 2>/dev/null | tail -n 1)
    # shellcheck disable=SC2034  # used by the scripts that source this
    [ -n "$IMPAIR_STATS" ] || IMPAIR_STATS=null
}
