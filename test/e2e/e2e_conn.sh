#!/usr/bin/env bash
# test/e2e/e2e_conn.sh — end-to-end checks of --unix-socket and --bind: the built
# binary $SHB against nginx listening on unix sockets (HTTP/1.1 and h2c) and
# on TCP (test/servers/nginx-conn.conf.in, which logs each request's client address,
# connection number, Host header and target), and against Caddy over HTTP/3.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_conn.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_conn.sh
#
# What is checked: over a unix socket every request arrives with the URL's
# Host and target, on HTTP/1.1, HTTP/2 and with --disable-keepalive; a
# socket nobody listens on counts `connect` errors as a refused TCP port
# does; a full listen backlog is waited out (within --connect-timeout), not
# counted as refusals; --bind spreads connections over its addresses in turn
# (nginx sees them), also across shards and on HTTP/3; in a private network
# namespace with a 1,000-port ephemeral range, two --bind addresses carry
# 1,800 connections at once; and misuse is a one-line error, exit 2. Same
# conventions as test/e2e/e2e.sh. jq programs are single-quoted on purpose ($ is
# jq's, not the shell's).
# shellcheck disable=SC2016
set -u
cd "$(dirname "$0")/../.." || exit 2

# --- the part that runs inside a private network namespace -----------------------
# bash test/e2e/e2e_conn.sh --netns-ports OUTDIR (as root of a fresh network
# namespace: unshare -n, or unshare -rn): loopback up, an ephemeral range of
# 1,000 ports (the sysctl is per namespace), nginx on 127.0.0.1, then shb's
# runs; their outputs (NAME.out, NAME.err, NAME.rc) and nginx's log go to
# OUTDIR for the suite to judge.
if [ "${1:-}" = --netns-ports ]; then
    out=$2
    # shellcheck source=test/e2e/lib.sh
    . test/e2e/lib.sh
    trap lib_cleanup EXIT
    trap 'exit 130' INT TERM
    PATH=$PATH:/usr/sbin
    ip link set lo up || exit 3
    echo "40000 40999" >/proc/sys/net/ipv4/ip_local_port_range || exit 3
    start_nginx test/servers/nginx-conn.conf.in netns || exit 4
    run() {
        local name=$1
        shift
        timeout -k 5 60 "$SHB" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
        echo $? >"$out/$name.rc"
    }
    url="http://127.0.0.1:$NGINX_PORT/"
    run bind2 --bind 127.0.0.2,127.0.0.3 -c 1800 -z 3s -j "$url"
    run nobind -c 1800 -n 1800 "$url"
    run bind1 --bind 127.0.0.2 -c 1800 -n 1800 "$url"
    run bind2over --bind 127.0.0.2,127.0.0.3 -c 2001 -n 2001 "$url"
    # nginx logs a request as it ends: the last ones may follow shb's exit.
    stop_server "$NGINX_PID"
    cp "$NGINX_DIR/h1.log" "$out/h1.log"
    # Reserved ports: 201 inside the range (a span and a single port), a
    # span outside it that takes nothing from it. 799 ports are left, and
    # connect() and bind() never pick a reserved one. The largest -c is
    # computed as e2e.sh's "largest -c" check does (less 100 to spare): the
    # range alone (1000 - 100) would ask for 900.
    echo "39000-39999,40100-40299,40500" >/proc/sys/net/ipv4/ip_local_reserved_ports || exit 3
    [ "$(lib_local_ports)" -eq 799 ] || exit 5
    start_nginx test/servers/nginx-conn.conf.in netns-reserved || exit 4
    url="http://127.0.0.1:$NGINX_PORT/"
    run reserved_over -c 800 -n 800 "$url"
    run reserved_range -c 900 -n 900 "$url"
    run reserved_fit -c $(($(lib_local_ports) - 100)) -z 2s -j "$url"
    exit 0
fi

# shellcheck source=test/e2e/lib.sh
. test/e2e/lib.sh
e2e_begin e2e-conn

e2e_preconditions nginx jq python3

start_or_die "nginx (test/servers/nginx-conn.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-conn.conf.in" nginx-conn
H1_SOCK="$NGINX_DIR/h1.sock"
H2_SOCK="$NGINX_DIR/h2.sock"
H1_LOG="$NGINX_DIR/h1.log"
H2_LOG="$NGINX_DIR/h2.log"
TCP="http://127.0.0.1:$NGINX_PORT"
e2e_diag_extra() { [ -s "$H1_LOG" ] && tail -n 3 "$H1_LOG" | sed 's/^/  h1.log: /'; return 0; }

# log_json LOG: waits until nginx has logged everything (lines_settled),
# then $LOG_JSON is the log as a JSON array of {addr, conn, host, target}.
log_json() {
    lines_settled "$1" >/dev/null
    awk '{ printf "{\"addr\":\"%s\",\"conn\":%s,\"host\":\"%s\",\"target\":\"%s\"}\n", $1, $2, $3, $4 }' "$1" |
        jq -s . >"$T/log.json"
}
# lx EXPR SHOW: a jq check on the log (log_json first).
lx() {
    local got
    if ! jq -e "$1" "$T/log.json" >/dev/null 2>&1; then
        got=$(jq -c "${2:-.}" "$T/log.json" 2>/dev/null | head -c 400)
        want "nginx log: expected $1 (got $got)"
    fi
}

# --- unix sockets ----------------------------------------------------------------------
begin "unix socket, HTTP/1.1: -n 1000 -c 10: 1000 ok, all at nginx with the URL's Host and target"
: >"$H1_LOG"
shb --unix-socket "$H1_SOCK" -n 1000 -c 10 -j "http://shb.test:8080/conn/h1?x=1"
json_run_ok HTTP/1.1
jx '.requests.ok == 1000 and .statusCodes == {"200": 1000} and .connectionsOpened == 10' '{requests, statusCodes, connectionsOpened}'
jx ".url == \"http://shb.test:8080/conn/h1?x=1\" and .connectedTo == \"$H1_SOCK\"" '{url, connectedTo}'
phases_cleartext_ok
log_json "$H1_LOG"
lx 'length == 1000' 'length'
lx 'all(.addr == "unix:" and .host == "shb.test:8080" and .target == "/conn/h1?x=1")' 'map(select(.addr != "unix:" or .host != "shb.test:8080" or .target != "/conn/h1?x=1")) | .[:3]'
lx '[.[].conn] | unique | length == 10' '[.[].conn] | unique | length'
finish

begin "unix socket named in the reports: text Connected to: PATH (--unix-socket), a relative path made absolute, kept by shb merge, shown by the HTML page"
(cd "$NGINX_DIR" && "$SHB" --unix-socket ./h1.sock -n 10 -c 2 http://shb.test/) >"$T/unix.txt" 2>&1
grep -q "^Connected to: $H1_SOCK (--unix-socket)\$" "$T/unix.txt" || want "text: $(grep -m1 -A1 '^URL' "$T/unix.txt")"
for i in 0 1; do
    shb --unix-socket "$H1_SOCK" -n 10 -c 2 -j --histograms http://shb.test/
    cp "$OUT" "$T/unix-$i.json"
done
shb merge "$T"/unix-{0,1}.json
grep -q "^Connected to: $H1_SOCK (--unix-socket)\$" "$OUT" || want "merged text: $(grep -m1 -A1 '^URL' "$OUT")"
shb report --html "$T/unix.html" "$T/unix-0.json"
grep -q "<th>Connected to</th><td[^>]*>$H1_SOCK</td>" "$T/unix.html" || want "the HTML page has no Connected to row with the socket"
finish

begin "unix socket, HTTP/2 (h2c): -n 1000 -c 4 -p 8: 1000 ok, all at nginx with the URL's Host and target"
: >"$H2_LOG"
shb --unix-socket "$H2_SOCK" --http2 -p 8 -n 1000 -c 4 -j "http://shb.test/conn/h2"
json_run_ok HTTP/2
jx '.requests.ok == 1000 and .statusCodes == {"200": 1000} and .connectionsOpened == 4' '{requests, statusCodes, connectionsOpened}'
phases_cleartext_ok
log_json "$H2_LOG"
lx 'length == 1000' 'length'
lx 'all(.addr == "unix:" and .host == "shb.test" and .target == "/conn/h2")' '.[:3]'
lx '[.[].conn] | unique | length == 4' '[.[].conn] | unique | length'
finish

begin "unix socket, --disable-keepalive -n 300 -c 4: 300 ok over 300 connections"
: >"$H1_LOG"
shb --unix-socket "$H1_SOCK" --disable-keepalive -n 300 -c 4 -j "http://shb.test/close"
json_run_ok HTTP/1.1
jx '.requests.ok == 300 and .connectionsOpened == 300 and .phases.connect.count == 300' '{requests, connectionsOpened, c: .phases.connect.count}'
log_json "$H1_LOG"
lx 'length == 300 and ([.[].conn] | unique | length == 300)' '{n: length, conns: ([.[].conn] | unique | length)}'
finish

begin "unix socket, -z 1s -c 200 -t 2: only ok responses, every connection at nginx"
: >"$H1_LOG"
shb --unix-socket "$H1_SOCK" -z 1s -c 200 -t 2 -j "http://shb.test/"
json_run_ok HTTP/1.1
jx '.requests.errors == 0 and .requests.ok > 200 and .connections == 200 and .connectionsOpened == 200' '{requests, connections, connectionsOpened}'
log_json "$H1_LOG"
lx '[.[].conn] | unique | length == 200' '[.[].conn] | unique | length'
finish

# A socket file nobody listens on (its server gone): each connect is refused,
# as on a TCP port nothing listens on (test/e2e/e2e.sh: 20 connect errors, exit 0).
begin "unix socket nobody listens on: -n 20 -c 2 counts 20 connect errors, as a refused TCP port does"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$T/stale.sock"
shb --unix-socket "$T/stale.sock" -n 20 -c 2 -j "http://shb.test/"
json_run_ok HTTP/1.1
jx '.requests.total == 20 and .requests.errors == 20 and .requests.connectErrors == 20 and .errorKinds == {"connect": 20}' '{requests, errorKinds}'
finish

# A full listen backlog: connect(2) on a unix socket says EAGAIN at once,
# where TCP would retransmit its SYN. nginx's worker is stopped (it accepts
# nothing); once shb has filled small.sock's backlog of 16 (ss), and a moment
# later, it resumes: the 600 connections waited, none failed.
begin "unix socket with a full backlog: waited out within --connect-timeout, no error"
: >"$H1_LOG"
SMALL_SOCK="$NGINX_DIR/small.sock"
worker=$(awk '{ print $1 }' "/proc/$NGINX_PID/task/$NGINX_PID/children" 2>/dev/null)
# accept_queue PATH: connections waiting in a listening unix socket's queue.
accept_queue() { ss -Hxl 2>/dev/null | awk -v p="$1" '$5 == p { print $3 }'; }
if [ -z "$worker" ]; then
    want "no nginx worker process found"
else
    kill -STOP "$worker"
    (
        for _ in $(seq 200); do
            [ "$(accept_queue "$SMALL_SOCK")" -ge 16 ] 2>/dev/null && break
            sleep 0.05
        done
        sleep 0.5
        kill -CONT "$worker"
    ) &
    resumer=$!
    shb --unix-socket "$SMALL_SOCK" -n 600 -c 600 --connect-timeout 20s -j "http://shb.test/"
    kill -CONT "$worker"
    wait "$resumer"
    json_run_ok HTTP/1.1
    # Connections still waiting when the 600 are done are not opened.
    jx '.requests.ok == 600 and .requests.errors == 0 and .connectionsOpened > 17' '{requests, errorKinds, connectionsOpened}'
    jx '.phases.connect.max >= 0.5' '.phases.connect'
fi
finish

# A server that never accepts: each attempt beyond the backlog ends as a
# connect timeout, none as a refusal.
begin "unix socket that never accepts: connect timeouts after --connect-timeout, no connect errors"
python3 - "$T/backlog.sock" <<'PY' >"$T/backlog.out" 2>&1 &
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
print("listening", flush=True)
time.sleep(60)
PY
LIB_PIDS+=($!)
if ! wait_line '^listening' "$T/backlog.out" "$!" 10; then
    want "the python server did not start: $(head -c 300 "$T/backlog.out")"
else
    shb --unix-socket "$T/backlog.sock" -n 10 -c 10 -t 1 --connect-timeout 1s --timeout 1s -j "http://shb.test/"
    json_run_ok HTTP/1.1
    jx '.requests.errors == 10 and .errorKinds["connect timeout"] >= 1 and (.errorKinds | keys - ["connect timeout", "timeout"] == [])' '{requests, errorKinds}'
    jx '.durationSeconds >= 0.9' '.durationSeconds'
fi
finish

# --- --bind ------------------------------------------------------------------------------
begin "--bind 127.0.0.2,127.0.0.3 -c 4 -t 2: nginx sees both addresses, 2 connections each"
: >"$H1_LOG"
shb --bind 127.0.0.2,127.0.0.3 -c 4 -t 2 -n 400 -j "$TCP/bind"
json_run_ok HTTP/1.1
jx '.requests.ok == 400 and .connectionsOpened == 4' '{requests, connectionsOpened}'
phases_cleartext_ok
log_json "$H1_LOG"
lx 'length == 400 and all(.target == "/bind" and .host == "127.0.0.1:'"$NGINX_PORT"'")' 'length'
lx 'group_by(.addr) | map({(.[0].addr): ([.[].conn] | unique | length)}) | add == {"127.0.0.2": 2, "127.0.0.3": 2}' 'group_by(.addr) | map({(.[0].addr): ([.[].conn] | unique | length)}) | add'
finish

begin "--bind: connection k takes address k mod N: -c 5 -t 1 over 3 addresses is 2, 2, 1; --disable-keepalive keeps each slot's"
: >"$H1_LOG"
shb --bind 127.0.0.2,127.0.0.3,127.0.0.4 -c 5 -t 1 -n 500 -j "$TCP/"
json_run_ok HTTP/1.1
log_json "$H1_LOG"
lx 'group_by(.addr) | map({(.[0].addr): ([.[].conn] | unique | length)}) | add == {"127.0.0.2": 2, "127.0.0.3": 2, "127.0.0.4": 1}' 'group_by(.addr) | map({(.[0].addr): ([.[].conn] | unique | length)}) | add'
: >"$H1_LOG"
shb --bind 127.0.0.2,127.0.0.3 --disable-keepalive -c 2 -t 2 -n 100 -j "$TCP/"
json_run_ok HTTP/1.1
jx '.requests.ok == 100 and .connectionsOpened == 100' '{requests, connectionsOpened}'
log_json "$H1_LOG"
lx 'group_by(.addr) | map({(.[0].addr): length}) | add == {"127.0.0.2": 50, "127.0.0.3": 50}' 'group_by(.addr) | map({(.[0].addr): length}) | add'
finish

# Shard 1 of 2 of -c 4 holds the run's connections 2 and 3: over three
# addresses, 127.0.0.4 and 127.0.0.2.
begin "--bind with --shard 1/2 -c 4: the shard's connections 2 and 3 take addresses 2 and 0 of 3"
: >"$H1_LOG"
shb --bind 127.0.0.2,127.0.0.3,127.0.0.4 --shard 1/2 -c 4 -n 200 -j "$TCP/"
json_run_ok HTTP/1.1
log_json "$H1_LOG"
lx 'group_by(.addr) | map({(.[0].addr): ([.[].conn] | unique | length)}) | add == {"127.0.0.2": 1, "127.0.0.4": 1}' 'group_by(.addr) | map({(.[0].addr): ([.[].conn] | unique | length)}) | add'
finish

begin "--bind over HTTP/2: -c 3 --http2 -p 4 --bind 127.0.0.2,127.0.0.3 against h2c nginx"
start_or_die "nginx h2c (test/servers/nginx-rate.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-rate.conf.in" nginx-conn-h2
shb --bind 127.0.0.2,127.0.0.3 --http2 -p 4 -c 3 -n 300 -j "http://127.0.0.1:$NGINX_PORT2/"
json_run_ok HTTP/2
jx '.requests.ok == 300 and .connectionsOpened == 3' '{requests, connectionsOpened}'
# nginx-rate logs arrival times only: ss shows nothing after the run, so the
# addresses are checked on the HTTP/1.1 server above; here, that it works.
stop_server "$NGINX_PID"
finish

if command -v caddy >/dev/null 2>&1; then
    start_or_die "caddy (test/servers/Caddyfile-conn.in)" start_caddy_h3 caddy-conn "$LIB_ROOT/test/servers/Caddyfile-conn.in"
    begin "--bind over HTTP/3: -c 3 --bind 127.0.0.2,127.0.0.3: Caddy sees 2 QUIC connections from .2, 1 from .3"
    shb --http3 --bind 127.0.0.2,127.0.0.3 -c 3 -p 2 -n 60 -j "https://127.0.0.1:$CADDY_PORT/"
    json_run_ok HTTP/3
    jx '.requests.ok == 60 and .connectionsOpened == 3' '{requests, connectionsOpened}'
    lines_settled "$CADDY_DIR/access.log" >/dev/null
    got=$(jq -sc '[.[].request | select(.proto == "HTTP/3.0") | {ip: .remote_ip, port: .remote_port}] | unique | group_by(.ip) | map({(.[0].ip): length}) | add' "$CADDY_DIR/access.log" 2>/dev/null)
    [ "$got" = '{"127.0.0.2":2,"127.0.0.3":1}' ] || want "Caddy saw QUIC connections from $got, expected {\"127.0.0.2\":2,\"127.0.0.3\":1}"
    finish
    stop_server "$CADDY_PID"
else
    skip "--bind over HTTP/3: caddy is not installed (bash scripts/deps.sh)"
fi

# --- past one address's ports, in a private network namespace ---------------------------
# The namespace's own ephemeral range (1,000 ports): 1,800 connections at
# once need two source addresses; without --bind, or with one, shb refuses
# the run before any traffic.
# netns_result NAME: the namespace's run NAME (its stdout, stderr and exit
# status) as if shb had just run it here.
netns_result() {
    cp "$T/netns/$1.out" "$OUT"
    schema_collect "$OUT"
    cp "$T/netns/$1.err" "$ERR"
    SHB_RC=$(cat "$T/netns/$1.rc")
}
NETNS=""
for u in "unshare -n" "unshare -rn"; do
    if $u true 2>/dev/null; then
        NETNS=$u
        break
    fi
done
if [ -z "$NETNS" ]; then
    skip "--bind past one address's ports: no network namespace (unshare -n or -rn) here"
else
    begin "--bind 127.0.0.2,127.0.0.3 -c 1800 -z 3s with 1000 ephemeral ports (private netns): 1800 connections, 900 per address"
    mkdir -p "$T/netns"
    LAST_CMD="$NETNS bash test/e2e/e2e_conn.sh --netns-ports (ip_local_port_range 40000-40999)"
    SHB="$SHB" $NETNS bash "$LIB_ROOT/test/e2e/e2e_conn.sh" --netns-ports "$T/netns" </dev/null >"$T/netns/inner.log" 2>&1 &
    inner=$!
    LIB_PIDS+=("$inner")
    wait "$inner"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        want "the namespace's set-up failed (exit $rc): $(tail -n 5 "$T/netns/inner.log" | tr '\n' ' ')"
    else
        netns_result bind2
        json_run_ok HTTP/1.1
        jx '.requests.ok >= 1800 and .requests.errors == 0 and .connections == 1800 and .connectionsOpened == 1800' '{requests, errorKinds, connections, connectionsOpened}'
        e2e_flush_report
        log_json "$T/netns/h1.log"
        lx 'group_by(.addr) | map({(.[0].addr): ([.[].conn] | unique | length)}) | add == {"127.0.0.2": 900, "127.0.0.3": 900}' 'group_by(.addr) | map({(.[0].addr): ([.[].conn] | unique | length)}) | add'
        for run in nobind bind1 bind2over; do
            netns_result "$run"
            one_line_exit 2
            case "$run:$ERR_LINE" in
                nobind:*"-c 1800 needs 1800 local ports"*"(40000-40999) has 1000"*"--bind"*) ;;
                bind1:*"-c 1800 needs 1800 local ports"*"(40000-40999) has 1000"*"--bind"*) ;;
                bind2over:*"-c 2001"*"has 1000 on each of --bind's 2 addresses"*) ;;
                *) want "$run: unexpected error: $ERR_LINE" ;;
            esac
        done
    fi
    finish

    # Reserved ports are not free ones: the up-front check counts the range
    # less those reserved inside it, so one -c more than that is the
    # one-line exit 2 (not a run ending in `no local port` errors), and
    # exactly that -c runs with every connection open.
    begin "ip_local_reserved_ports 39000-39999,40100-40299,40500 with 40000-40999 (private netns): -c 800 and -c 900 refused up front naming them, the largest -c (699) opens all with no 'no local port' error"
    if [ "$rc" -ne 0 ]; then
        want "the namespace's set-up failed (exit $rc): $(tail -n 5 "$T/netns/inner.log" | tr '\n' ' ')"
    else
        for c in 800 900; do
            netns_result "reserved_$([ "$c" = 800 ] && echo over || echo range)"
            one_line_exit 2
            case $ERR_LINE in
                *"-c $c needs $c local ports"*"(40000-40999) (less the 201 that net.ipv4.ip_local_reserved_ports holds) has 799"*) ;;
                *) want "-c $c: unexpected error: $ERR_LINE" ;;
            esac
        done
        netns_result reserved_fit
        json_run_ok HTTP/1.1
        jx '.connections == 699 and .connectionsOpened == 699 and .requests.errors == 0 and (.errorKinds["no local port"] // 0) == 0' '{requests, errorKinds, connections, connectionsOpened}'
    fi
    finish
fi

# --- misuse ------------------------------------------------------------------------------
begin "--unix-socket misuse: a missing path, not a socket, https://, --http3, too long: one line, exit 2"
err_case "--unix-socket $T/missing.sock: No such file or directory" --unix-socket "$T/missing.sock" -n 5 "http://shb.test/"
err_case "--unix-socket $NGINX_DIR/nginx.conf: not a socket" --unix-socket "$NGINX_DIR/nginx.conf" -n 5 "http://shb.test/"
err_case "--unix-socket only takes http:// URLs" --unix-socket "$H1_SOCK" -n 5 "https://shb.test/"
err_case "--unix-socket does not apply to --http3" --unix-socket "$H1_SOCK" --http3 -n 5 "https://shb.test/"
err_case "a socket path is at most 107 bytes" --unix-socket "/$(printf 'a%.0s' $(seq 120))" -n 5 "http://shb.test/"
err_case "--bind does not apply to --unix-socket" --unix-socket "$H1_SOCK" --bind 127.0.0.2 -n 5 "http://shb.test/"
finish

begin "--bind misuse: not an address, mixed or mismatched families, not this machine's: one line, exit 2"
err_case "'localhost' is not an IPv4 or IPv6 address" --bind localhost -n 5 "$TCP/"
err_case "'' is not an IPv4 or IPv6 address" --bind 127.0.0.2, -n 5 "$TCP/"
err_case "IPv4 and IPv6 addresses mixed" --bind 127.0.0.2,::1 -n 5 "$TCP/"
err_case "--bind gives IPv6 addresses, but the target 127.0.0.1 is an IPv4 address" --bind ::1 -n 5 "$TCP/"
err_case "--bind gives IPv4 addresses, but the target ::1 is an IPv6 address" --bind 127.0.0.2 -n 5 "http://[::1]:$NGINX_PORT/"
err_case "'127.0.0.2' is given twice" --bind 127.0.0.2,127.0.0.2 -n 5 "$TCP/"
err_case "--bind 192.0.2.1: " --bind 192.0.2.1 -n 5 "$TCP/"
finish

[ "$FAILS" -eq 0 ]
