#!/usr/bin/env bash
# test/e2e/e2e_h3.sh — end-to-end checks of --http3 (HTTP/3 over shb's own QUIC):
# the built binary $SHB against real HTTP/3 servers that this script starts
# on 127.0.0.1 with the test certificates of gen_certs — Caddy (quic-go;
# test/servers/Caddyfile-h3.in), Bun.serve with http3 (lsquic;
# test/servers/bun_h3_server.js, which records every request), Deno's QUIC (quinn;
# test/interop/deno_h3_server.ts: normal, bigheaders, close5, stopsending)
# and ngtcp2's example server (Debian's ngtcp2-server, over GnuTLS) —
# directly and (Caddy, Bun) through test/servers/udp_impair.js, a UDP proxy that
# loses, reorders, duplicates and delays datagrams from a fixed seed.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_h3.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_h3.sh
#
# Prints one "PASS name" / "FAIL name: why" line per check ("SKIP name: why"
# for the checks of a server that is not installed: caddy, or Bun or Deno
# from npm); diagnostics follow a FAIL, indented. Exit status 1 if anything failed.
# Every shb run is under `timeout 60` (e2e_lib.sh), so a hang is a FAIL, not
# a stuck CI. Same conventions as test/e2e/e2e_tls.sh.
#
# Before judging shb against a server, a reference HTTP/3 client (Bun's
# fetch with protocol "h3": test/servers/h3_fetch.js) and a QUIC Version
# Negotiation probe (test/servers/udp_probe.js) confirm that the server, and the path
# through the proxy, really serve HTTP/3; the proxy itself is checked with a
# UDP echo pair. Those checks need no shb.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-h3 HTTP/3

# all_ok N: exactly N requests, all of them 200 responses, no errors.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0 and .requests.connectErrors == 0" '{requests, errorKinds}'
    jx ".statusCodes == {\"200\": $1}" '.statusCodes'
}

# quic_ok: the report's quic object has every counter, each a number, and
# they are sane for a run that got responses.
quic_ok() {
    jx '.quic | type == "object"' '.quic'
    jx '.quic | [.packetsSent, .packetsReceived, .packetsLost, .ptoCount, .handshakeRttMinMs,
        .handshakeRttMedianMs, .retries, .keyUpdates] | all(type == "number" and . >= 0)' '.quic'
    jx '.quic.packetsSent > 0 and .quic.packetsReceived > 0' '.quic'
    jx '.quic.packetsLost <= .quic.packetsSent' '.quic'
    jx '.quic.handshakeRttMinMs > 0 and .quic.handshakeRttMinMs <= .quic.handshakeRttMedianMs' '.quic'
    jx '.quic.handshakeRttMedianMs < 5000' '.quic'
}

# --- server logs --------------------------------------------------------------
# jq definitions over the slurped log of test/servers/bun_h3_server.js: .headers is
# [name, value, ...]; connId the client's UDP port.
JQDEFS='def hdr($n): [.headers as $h | range(0; $h | length; 2)
          | select(($h[.] | ascii_downcase) == ($n | ascii_downcase)) | $h[. + 1]];
        def body: .bodyBase64 | @base64d;
        def conns: [.[].connId] | unique | length;'
LOG=/dev/null
log_reset() { : >"$LOG"; }
# lx EXPR [SHOW]: the server log $LOG (slurped) satisfies EXPR.
lx() {
    local got
    if ! jq -e -s "$JQDEFS $1" "$LOG" >/dev/null 2>&1; then
        got=$(jq -c -s "$JQDEFS ${2:-length}" "$LOG" 2>/dev/null | head -c 600 || true)
        want "server log: expected $1 (got ${got:-nothing})"
    fi
}
# ix EXPR [SHOW]: the counters of the last stop_impair satisfy EXPR.
IMPAIR_STATS=""
ix() {
    local got
    if ! jq -e "$1" <<<"${IMPAIR_STATS:-null}" >/dev/null 2>&1; then
        got=$(jq -c "${2:-.}" <<<"${IMPAIR_STATS:-null}" 2>/dev/null | head -c 600 || true)
        want "proxy counters: expected $1 (got ${got:-nothing})"
    fi
}

e2e_diag_extra() {
    jq -e .quic "$OUT" >/dev/null 2>&1 && jq -c .quic "$OUT" | sed 's/^/  quic: /'
    [ -n "$IMPAIR_STATS" ] && echo "  proxy: $IMPAIR_STATS"
    return 0
}

# --- preconditions ------------------------------------------------------------
e2e_preconditions jq node openssl timeout sha256sum
if ! gen_certs; then
    echo "FAIL $P setup: openssl could not make the test certificates"
    exit 1
fi
C=$LIB_CERTS

CADDY_WHY=""
command -v caddy >/dev/null 2>&1 || CADDY_WHY="caddy is not installed (bash scripts/deps.sh)"
BUN_WHY=""
BUN=""
if ! BUN=$(bun_bin); then
    BUN_WHY="no runnable bun in test/node_modules or on PATH (bash scripts/deps.sh installs it from npm)"
    BUN=""
fi

if [ -z "$CADDY_WHY" ]; then
    start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy
    CADDY_EC="https://127.0.0.1:$CADDY_PORT"
    CADDY_EC_PORT=$CADDY_PORT
    CADDY_RSA="https://127.0.0.1:$CADDY_PORT2"
    BIG=$CADDY_H3_BIG
fi
if [ -z "$BUN_WHY" ]; then
    start_or_die "bun_h3_server.js" start_bun_h3 bun "$C/ec.crt" "$C/ec.key"
    BUN_URL="https://127.0.0.1:$BUN_H3_PORT"
    BUN_LOG=$BUN_H3_LOG
fi

# aux LIMIT CMD...: runs CMD (a helper client, not shb) under timeout LIMIT
# in the background and waits for it, as e2e_lib.sh's shb does, so that a
# TERM or Ctrl-C stops the suite at once; its stdout is in $AUX, and its
# exit status is aux's.
AUX=""
AUX_CHILD=""
aux() {
    local limit=$1 rc
    shift
    timeout -k 2 "$limit" "$@" </dev/null >"$T/aux" 2>/dev/null &
    AUX_CHILD=$!
    wait "$AUX_CHILD"
    rc=$?
    AUX_CHILD=""
    AUX=$(cat "$T/aux" 2>/dev/null)
    return "$rc"
}
aux_cleanup() {
    if [ -n "$AUX_CHILD" ]; then
        kill -TERM "$AUX_CHILD" 2>/dev/null || true
        wait "$AUX_CHILD" 2>/dev/null || true
    fi
}
E2E_CLEANUP_EXTRA=aux_cleanup

# ref_fetch URL [N [CONC [METHOD [BODY]]]]: the reference client
# (test/servers/h3_fetch.js under Bun); its JSON line is in $REF. Fails unless every
# request got a response.
REF=""
ref_fetch() {
    local rc=0
    aux 30 "$BUN" test/servers/h3_fetch.js "$@" || rc=$?
    REF=$AUX
    return "$rc"
}

# --- 0. the test infrastructure itself (no shb) -----------------------------------------
# The proxy: datagrams of four clients relayed to a UDP echo server and back,
# each to its own sender; the same seed gives the same decisions.
start_or_die "udp_echo_server.js" start_udp_echo udpecho
begin "udp_impair.js relays 4 clients x 200 datagrams to a UDP echo server and back, none crossed"
start_or_die "udp_impair.js" start_impair impair-echo "$UDPE_PORT"
aux 20 node test/servers/udp_probe.js echo "$IMPAIR_PORT" 4 200 500 || true
E=$AUX
stop_impair
jq -e '.sent == 800 and .received == 800 and .crossed == 0 and .unique == 800 and .inOrder' <<<"${E:-null}" >/dev/null 2>&1 ||
    want "echo through the proxy: $E"
ix '.up.in == 800 and .up.forwarded == 800 and .down.in == 800 and .down.forwarded == 800 and .clients == 4' '{up, down, clients}'
ix '.up.dropped + .down.dropped + .up.reordered + .down.reordered + .up.duplicated + .down.duplicated == 0'
finish
IMPAIR_STATS=""

begin "udp_impair.js --seed 42 --loss 10 --reorder 10 --dup 5: the same decisions twice, another seed differs"
runs=()
for seed in 42 42 43; do
    start_or_die "udp_impair.js" start_impair impair-seed "$UDPE_PORT" --seed "$seed" --loss 10 --reorder 10 --dup 5
    aux 20 node test/servers/udp_probe.js echo "$IMPAIR_PORT" 1 300 500 || true
    stop_impair
    runs+=("$(jq -c '[.up.dropped, .up.reordered, .up.duplicated, .down.dropped, .down.reordered, .down.duplicated]' <<<"$IMPAIR_STATS" 2>/dev/null)")
done
[ "${runs[0]}" = "${runs[1]}" ] || want "seed 42 gave ${runs[0]}, then ${runs[1]}"
[ "${runs[0]}" != "${runs[2]}" ] || want "seed 43 gave the same as seed 42: ${runs[2]}"
jq -e '.[0] > 0 and .[1] > 0 and .[2] > 0 and .[3] > 0' <<<"${runs[0]:-null}" >/dev/null 2>&1 ||
    want "no drops, reorders or duplicates at 10/10/5 %: ${runs[0]}"
finish
IMPAIR_STATS=""

begin "udp_impair.js --loss 100 drops every datagram"
start_or_die "udp_impair.js" start_impair impair-all "$UDPE_PORT" --loss 100
aux 20 node test/servers/udp_probe.js echo "$IMPAIR_PORT" 2 20 300 || true
E=$AUX
stop_impair
jq -e '.sent == 40 and .received == 0' <<<"${E:-null}" >/dev/null 2>&1 || want "echo through the proxy: $E"
ix '.up.in == 40 and .up.dropped == 40 and .up.forwarded == 0 and .down.in == 0'
finish
IMPAIR_STATS=""
stop_server "$UDPE_PID"

# The servers: a QUIC Version Negotiation for an unknown version (the UDP
# side is QUIC), then HTTP/3 from the reference client, directly and
# through the proxy at 5 % loss and 10 % reordering each way.
server_speaks_h3() { # LABEL PORT URL
    local label=$1 port=$2 url=$3 vn
    begin "$label answers a QUIC Version Negotiation offering version 1"
    aux 10 node test/servers/udp_probe.js vn "$port" || true
    vn=$AUX
    jq -e '.echoedCids and (.versions | index("00000001"))' <<<"${vn:-null}" >/dev/null 2>&1 ||
        want "udp_probe.js vn: ${vn:-nothing}"
    finish
    if [ -z "$BUN" ]; then
        skip "$label serves HTTP/3 to the reference client: $BUN_WHY"
        return
    fi
    begin "$label serves HTTP/3 to the reference client (Bun fetch h3): 50 requests, 10 at a time"
    ref_fetch "$url/" 50 10 || want "test/servers/h3_fetch.js: ${REF:-nothing}"
    jq -e '.ok == 50 and .statusCodes == {"200": 50} and .altSvc == 0' <<<"${REF:-null}" >/dev/null 2>&1 ||
        want "reference client: ${REF:-nothing} (an alt-svc header means the answer came over TCP)"
    finish
    begin "$label through udp_impair.js --loss 5 --reorder 10: the reference client gets 50 responses"
    start_or_die "udp_impair.js" start_impair "impair-ref-$port" "$port" --seed 7 --loss 5 --reorder 10
    ref_fetch "https://127.0.0.1:$IMPAIR_PORT/" 50 10 || want "test/servers/h3_fetch.js: ${REF:-nothing}"
    stop_impair
    jq -e '.ok == 50 and .statusCodes == {"200": 50}' <<<"${REF:-null}" >/dev/null 2>&1 || want "reference client: ${REF:-nothing}"
    ix '.up.in > 0 and .down.in > 0 and .up.dropped + .down.dropped > 0' '{up, down}'
    finish
    IMPAIR_STATS=""
}
if [ -z "$CADDY_WHY" ]; then
    server_speaks_h3 "caddy ecdsa" "$CADDY_EC_PORT" "$CADDY_EC"
    begin "caddy's TCP side: HTTP/2 with alt-svc h3 (curl), /big.bin is $BIG bytes"
    if command -v curl >/dev/null 2>&1; then
        aux 20 curl -sk --http2 -D - -o "$T/big.bin" "$CADDY_EC/big.bin" || true
        h=$AUX
        grep -qi '^HTTP/2 200' <<<"$h" || want "curl --http2: $(head -n 1 <<<"$h")"
        grep -qiE "^alt-svc: h3=\":$CADDY_EC_PORT\"" <<<"$h" || want "no alt-svc: h3 header"
        [ "$(wc -c <"$T/big.bin")" -eq "$BIG" ] || want "/big.bin is $(wc -c <"$T/big.bin") bytes"
    else
        want "curl is not installed"
    fi
    finish
else
    skip "caddy: $CADDY_WHY"
fi
if [ -z "$BUN_WHY" ]; then
    server_speaks_h3 "bun" "$BUN_H3_PORT" "$BUN_URL"
    begin "bun_h3_server.js logs HTTP/3 requests as httpVersion 3, its TCP side's as 1.1"
    LOG=$BUN_LOG
    log_reset
    ref_fetch "$BUN_URL/ref" 3 1 || want "test/servers/h3_fetch.js: ${REF:-nothing}"
    if command -v curl >/dev/null 2>&1; then
        aux 10 curl -sk -o /dev/null "$BUN_URL/tcp" || want "curl over TCP failed"
    fi
    lx '[.[] | select(.url == "/ref")] | length == 3 and all(.httpVersion == "3")' 'map({url, httpVersion})'
    lx '[.[] | select(.url == "/tcp")] | all(.httpVersion == "1.1")' 'map({url, httpVersion})'
    finish
else
    skip "bun: $BUN_WHY"
fi

# --- 1. misuse: --http3 needs https:// ---------------------------------------------------
begin "--http3 on an http:// URL: exit 2, one line"
shb --http3 -n 1 -c 1 "http://127.0.0.1:1/"
one_line_exit 2
grep -qiE 'https' <<<"$ERR_LINE" || want "stderr does not mention https: $ERR_LINE"
finish

# --- 1a. nothing listens on the UDP port ---------------------------------------------------
# The kernel answers each Initial with an ICMP port unreachable, which the
# connected socket reports as ECONNREFUSED: each attempt fails at once as
# `connect` instead of waiting out --connect-timeout (10 requests at -c 2
# took 10 s that way).
begin "--http3 to a UDP port nothing listens on: -n 10 -c 2 --connect-timeout 5s ends well under it, 10 connect errors 'Connection refused'"
pick_port NO_UDP_PORT
shb --http3 -n 10 -c 2 --connect-timeout 5s -j "https://127.0.0.1:$NO_UDP_PORT/"
if json_run_ok HTTP/3; then
    jx '.requests.total == 10 and .requests.connectErrors == 10' '.requests'
    jx '.errorDetails == {"connect": {"count": 10, "first": "Connection refused"}}' '.errorDetails'
    jx '.latencySeconds == null' '.latencySeconds'
fi
[ "$SHB_MS" -lt 2000 ] || want "took ${SHB_MS} ms (each attempt waited for --connect-timeout?)"
finish

# After the server's first datagram ICMP is ignored (RFC 9000 §14.2.1, §21:
# anyone on the path can forge it): test/servers/udp_once_server.js answers the
# first Initial with junk and closes its port, so the Initial's
# retransmission draws a port unreachable that must not end the attempt:
# it waits out --connect-timeout. The next attempt, to the closed port,
# hears nothing first and fails at once.
begin "--http3: an ICMP unreachable after the server's first datagram is ignored (the attempt waits out --connect-timeout 3s); before it, the next attempt fails at once as connect"
start_or_die "test/servers/udp_once_server.js" start_node_server "$LIB_ROOT/test/servers/udp_once_server.js" udp-once
shb --http3 -n 2 -c 1 --connect-timeout 3s -j "https://127.0.0.1:$NODE_PORT/"
if json_run_ok HTTP/3; then
    jx '.errorKinds == {"connect": 1, "connect timeout": 1}' '.errorKinds'
    jx '.errorDetails.connect.first == "Connection refused"' '.errorDetails'
    jx '.quic.packetsSent >= 3' '.quic'
fi
[ "$SHB_MS" -ge 2900 ] || want "took only ${SHB_MS} ms: the ICMP after the server's datagram ended the attempt"
[ "$SHB_MS" -le 8000 ] || want "took ${SHB_MS} ms"
[ "$(wc -l <"$NODE_LOG")" -eq 1 ] || want "the server heard $(wc -l <"$NODE_LOG") datagrams, expected 1"
finish

# --- 1b. a third QUIC stack: Deno (quinn over rustls) --------------------------------------
# test/interop/deno_h3_server.ts: Deno.QuicEndpoint's QUIC with the script's
# own thin HTTP/3 layer, one server per case. Judged by shb's report and by
# the server's stderr: a line per connection that ended, "conn N: R requests
# answered, closed by client (code 0x100)|server", and nothing about a
# stream or QPACK going wrong. The reference client, and ngtcp2's client
# where installed, check each case first.
DENO_WHY=""
DENO=""
if ! DENO=$(deno_bin); then
    DENO_WHY="no runnable deno in test/node_modules or on PATH (npm ci --prefix test installs it from npm)"
    DENO=""
fi
# deno_log_clean: the server's stderr has no line but the per-connection
# ones and handshakes that shb ended (the end of a run).
deno_log_clean() {
    local bad
    bad=$(grep -vE '^conn [0-9]+: ([0-9]+ requests answered, closed by |gone before its control stream)|^accept: .*during the handshake' \
        "$DENO_H3_DIR/stderr.log" | head -n 3 || true)
    [ -z "$bad" ] || want "server stderr: $bad"
}
# ng_client PORT N: ngtcp2's example client (Debian's ngtcp2-client:
# gtlsclient, ngtcp2 over GnuTLS with nghttp3) opens N request streams on
# one connection to / and exits once they are closed; its log is in $AUX,
# and NG_200 counts the responses it decoded with :status 200.
NG_CLIENT=$(command -v gtlsclient 2>/dev/null || true)
NG_200=0
ng_client() {
    local rc=0
    # Its log goes to stderr, which aux drops: into stdout with it.
    aux 20 bash -c '"$@" 2>&1' gtlsclient "$NG_CLIENT" --no-quic-dump --no-http-dump \
        --exit-on-all-streams-close -n "$2" 127.0.0.1 "$1" "https://127.0.0.1:$1/" || rc=$?
    NG_200=$(grep -ac '\[:status: 200\]' <<<"$AUX" || true)
    return "$rc"
}
# deno_ref CASE: the reference client gets 20 responses, 5 at a time, and
# ngtcp2's client (where installed) 20 on one connection, all of it for
# normal and bigheaders (whose 48 fields it must decode), at least 5 for
# close5 (it does not retry what lay above the GOAWAY).
deno_ref() {
    local fields
    if [ -n "$BUN" ]; then
        ref_fetch "https://127.0.0.1:$DENO_H3_PORT/" 20 5 || want "test/servers/h3_fetch.js: ${REF:-nothing}"
        jq -e '.ok == 20 and .statusCodes == {"200": 20} and .bodyBytes == 40' <<<"${REF:-null}" >/dev/null 2>&1 ||
            want "reference client: ${REF:-nothing}"
    fi
    [ -n "$NG_CLIENT" ] || return 0
    ng_client "$DENO_H3_PORT" 20 || want "gtlsclient exited with status $? ($(grep -a -m 2 -i 'error' <<<"$AUX"))"
    case "$1" in
        close5)
            # All 20 when every stream arrived before the 5th answer (the
            # GOAWAY then covers them all), fewer when some came after it.
            [ "$NG_200" -ge 5 ] || want "gtlsclient got $NG_200 responses, fewer than 5"
            ;;
        *) [ "$NG_200" -eq 20 ] || want "gtlsclient got $NG_200 responses with :status 200 of 20" ;;
    esac
    if [ "$1" = bigheaders ]; then
        fields=$(grep -ac '\[x-big-[0-9][0-9]: b' <<<"$AUX" || true)
        [ "$fields" -eq $((20 * 48)) ] || want "gtlsclient decoded $fields x-big-NN fields of $((20 * 48))"
    fi
}
if [ -z "$DENO_WHY" ]; then
    begin "deno_h3_server.ts selftest: its QPACK against the RFCs' examples"
    aux 30 env DENO_DIR="$T/deno-selftest" DENO_NO_UPDATE_CHECK=1 NO_COLOR=1 "$DENO" run --quiet --no-prompt \
        --unstable-net test/interop/deno_h3_server.ts selftest || want "selftest: $(grep -v '^ok' <<<"$AUX" | head -n 3)"
    grep -q '^selftest: all passed$' <<<"$AUX" || want "selftest said: $(tail -n 1 <<<"$AUX")"
    finish

    start_or_die "deno_h3_server.ts normal" start_deno_h3 deno-normal "$C/ec.crt" "$C/ec.key" normal
    begin "deno (quinn) normal: -n 200 -c 10, every request 200 \"ok\" on 10 connections (reference clients first)"
    deno_ref normal
    shb --http3 -n 200 -c 10 -j "https://127.0.0.1:$DENO_H3_PORT/"
    if json_run_ok; then
        all_ok 200
        quic_ok
        jx '.connectionsOpened == 10' '.connectionsOpened'
        jx '.bytesReceived >= 400' '.bytesReceived'
        jx '.quic.connectionCloses == {"shb H3_NO_ERROR": 10}' '.quic.connectionCloses'
        # Phases: a QUIC handshake per connection, a first byte per response, no TCP.
        jx '.phases.quicHandshake.count == 10 and .phases.firstByte.count == 200' '.phases'
        jx '.phases | (has("connect") or has("tlsHandshake")) | not' '.phases | keys'
    fi
    finish
    begin "deno (quinn) normal: -n 1000 -c 4 -p 8, every request ok"
    shb --http3 -n 1000 -c 4 -p 8 -j "https://127.0.0.1:$DENO_H3_PORT/"
    if json_run_ok; then
        all_ok 1000
        quic_ok
    fi
    deno_log_clean
    finish
    stop_server "$DENO_H3_PID"

    start_or_die "deno_h3_server.ts bigheaders" start_deno_h3 deno-big "$C/ec.crt" "$C/ec.key" bigheaders
    begin "deno (quinn) bigheaders: 48 KB of response fields, -n 200 -c 10, every request ok (reference clients first)"
    deno_ref bigheaders
    shb --http3 -n 200 -c 10 -j "https://127.0.0.1:$DENO_H3_PORT/"
    if json_run_ok; then
        all_ok 200
        jx '.bytesReceived >= 200 * 48 * 1024' '.bytesReceived'
        jx '.quic.connectionCloses == {"shb H3_NO_ERROR": 10}' '.quic.connectionCloses'
    fi
    deno_log_clean
    finish
    stop_server "$DENO_H3_PID"

    start_or_die "deno_h3_server.ts close5" start_deno_h3 deno-close5 "$C/ec.crt" "$C/ec.key" close5
    begin "deno (quinn) close5: GOAWAY after 5 answers, -n 200 -c 10: every request ok on >= 40 connections (reference clients first)"
    deno_ref close5
    if [ -n "$BUN" ]; then
        # Bun keeps its connections: the server's own graceful close ends
        # them (0.3 s after the last answer below the GOAWAY).
        wait_line '^conn [0-9]*: 5 requests answered, closed by server$' "$DENO_H3_DIR/stderr.log" "$DENO_H3_PID" 5 ||
            want "no connection of the reference client's closed by the server after 5 answers: $(head -n 3 "$DENO_H3_DIR/stderr.log")"
    fi
    : >"$DENO_H3_DIR/stderr.log"
    shb --http3 -n 200 -c 10 -j "https://127.0.0.1:$DENO_H3_PORT/"
    if json_run_ok; then
        all_ok 200
        jx '.connectionsOpened >= 40' '.connectionsOpened'
        jx '.quic.goaways >= 30' '.quic.goaways'
        jx '(.quic.connectionCloses | keys) == ["shb H3_NO_ERROR"]' '.quic.connectionCloses'
    fi
    wait_line '^conn [0-9]*: 5 requests answered, closed by client (code 0x100)$' "$DENO_H3_DIR/stderr.log" "$DENO_H3_PID" 5 ||
        want "no connection closed by shb after 5 answers: $(head -n 3 "$DENO_H3_DIR/stderr.log")"
    grep -qE '^conn [0-9]+: ([6-9]|[1-9][0-9]+) requests' "$DENO_H3_DIR/stderr.log" &&
        want "a connection answered more than 5 at -p 1: $(grep -E '^conn [0-9]+: ([6-9]|[1-9][0-9]+) requests' "$DENO_H3_DIR/stderr.log" | head -n 1)"
    deno_log_clean
    finish
    begin "deno (quinn) close5: -n 400 -c 4 -p 8, streams above the GOAWAY go again on new connections, every request ok"
    shb --http3 -n 400 -c 4 -p 8 -j "https://127.0.0.1:$DENO_H3_PORT/"
    if json_run_ok; then
        all_ok 400
        jx '.connectionsOpened > 8 and .quic.goaways > 4' '{connectionsOpened, goaways: .quic.goaways}'
        jx '(.quic.connectionCloses | keys) == ["shb H3_NO_ERROR"]' '.quic.connectionCloses'
    fi
    deno_log_clean
    finish
    stop_server "$DENO_H3_PID"

    # RFC 9114 §4.1.1 and §8: STOP_SENDING 0x0 (an unknown code, so
    # H3_NO_ERROR) on every request stream, then a complete 200: the
    # request body is not wanted, the response still counts.
    start_or_die "deno_h3_server.ts stopsending" start_deno_h3 deno-stop "$C/ec.crt" "$C/ec.key" stopsending
    begin "deno (quinn) stopsending: STOP_SENDING 0x0 before each full answer, -n 200 -c 10 and -n 400 -c 4 -p 8, every request ok (reference clients first)"
    deno_ref stopsending
    shb --http3 -n 200 -c 10 -j "https://127.0.0.1:$DENO_H3_PORT/"
    if json_run_ok; then
        all_ok 200
    fi
    shb --http3 -n 400 -c 4 -p 8 -j "https://127.0.0.1:$DENO_H3_PORT/"
    if json_run_ok; then
        all_ok 400
    fi
    deno_log_clean
    finish
    stop_server "$DENO_H3_PID"
else
    skip "deno (quinn) HTTP/3 checks: $DENO_WHY"
fi

# --- 1c. a fourth QUIC stack: ngtcp2 over GnuTLS, with nghttp3 ----------------------------
# Debian's ngtcp2-server (gtlsserver, the library's example server) serves
# files: / is "ok", /big.bin 1 MB. It has no knobs for response fields or
# GOAWAY, so only plain requests, multiplexed ones and a large body.
if command -v gtlsserver >/dev/null 2>&1 || [ -x /usr/sbin/gtlsserver ]; then
    start_or_die "gtlsserver (ngtcp2)" start_ngtcp2_h3 ngtcp2 "$C/ec.crt" "$C/ec.key"
    NG_URL="https://127.0.0.1:$NGTCP2_H3_PORT"
    begin "ngtcp2 (gnutls, nghttp3): -n 200 -c 10, every request 200 \"ok\" on 10 connections (reference clients first)"
    if [ -n "$BUN" ]; then
        ref_fetch "$NG_URL/" 20 5 || want "test/servers/h3_fetch.js: ${REF:-nothing}"
        jq -e '.ok == 20 and .statusCodes == {"200": 20} and .bodyBytes == 40' <<<"${REF:-null}" >/dev/null 2>&1 ||
            want "reference client: ${REF:-nothing}"
    fi
    if [ -n "$NG_CLIENT" ]; then
        ng_client "$NGTCP2_H3_PORT" 20 || want "gtlsclient exited with status $?"
        [ "$NG_200" -eq 20 ] || want "gtlsclient got $NG_200 responses with :status 200 of 20"
    fi
    shb --http3 -n 200 -c 10 -j "$NG_URL/"
    if json_run_ok; then
        all_ok 200
        quic_ok
        jx '.connectionsOpened == 10' '.connectionsOpened'
        jx '.quic.connectionCloses == {"shb H3_NO_ERROR": 10}' '.quic.connectionCloses'
    fi
    finish
    begin "ngtcp2 (gnutls, nghttp3): -n 1000 -c 4 -p 8, every request ok"
    shb --http3 -n 1000 -c 4 -p 8 -j "$NG_URL/"
    if json_run_ok; then
        all_ok 1000
        quic_ok
    fi
    finish
    begin "ngtcp2 (gnutls, nghttp3): /big.bin ($NGTCP2_H3_BIG bytes) -n 20 -c 2 -p 2, every body whole"
    shb --http3 -n 20 -c 2 -p 2 -j "$NG_URL/big.bin"
    if json_run_ok; then
        all_ok 20
        jx ".bytesReceived >= 20 * $NGTCP2_H3_BIG" '.bytesReceived'
    fi
    finish
    # The TLS the user chooses (--tls13-ciphers, --curves) goes into QUIC's
    # handshake too (RFC 9001 §4): each suite, with its header protection
    # (§5.4.3 AES, §5.4.4 ChaCha20), and each group, as the server took it.
    for spec in "TLS_AES_128_GCM_SHA256 P-256 secp256r1" "TLS_AES_256_GCM_SHA384 P-384 secp384r1" \
        "TLS_CHACHA20_POLY1305_SHA256 x25519 x25519" "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256 P-384:x25519 secp384r1"; do
        read -r suites curves group <<<"$spec"
        begin "ngtcp2 (gnutls): --tls13-ciphers $suites --curves $curves -n 100 -c 2 -p 4: the report's tls shows both"
        shb --http3 -n 100 -c 2 -p 4 -j --tls13-ciphers "$suites" --curves "$curves" "$NG_URL/"
        if json_run_ok; then
            all_ok 100
            quic_ok
            jx ".tls == {version: \"TLSv1.3\", cipher: \"${suites%%:*}\", group: \"$group\", alpn: \"h3\", fallback: false}" '.tls'
        fi
        finish
    done
    stop_server "$NGTCP2_H3_PID"
    # A server with one suite and one group: a choice without them is
    # refused, and the report names the choice with the server's alert.
    start_or_die "gtlsserver (ngtcp2), AES-256-GCM and P-384 only" start_ngtcp2_h3 ngtcp2-narrow "$C/ec.crt" "$C/ec.key" \
        --groups=-GROUP-ALL:+GROUP-SECP384R1 --ciphers=NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-256-GCM
    NARROW="https://127.0.0.1:$NGTCP2_H3_PORT"
    begin "ngtcp2 AES-256-GCM and P-384 only: shb's defaults take them (HelloRetryRequest to P-384)"
    shb --http3 -n 20 -c 2 -j "$NARROW/"
    json_run_ok && all_ok 20
    jx '.tls.cipher == "TLS_AES_256_GCM_SHA384" and .tls.group == "secp384r1"' '.tls'
    finish
    for spec in "--curves x25519:P-256" "--tls13-ciphers TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256"; do
        read -r opt list <<<"$spec"
        begin "ngtcp2 AES-256-GCM and P-384 only refuses $opt $list: every request a tls handshake error naming it"
        shb --http3 -n 6 -c 2 -j "$opt" "$list" "$NARROW/"
        json_run_ok
        jx '.requests.total == 6 and .requests.errors == 6 and .errorKinds == {"tls handshake": 6}' '{requests, errorKinds}'
        jx ".errorDetails[\"tls handshake\"].first == \"the server at 127.0.0.1:$NGTCP2_H3_PORT cannot meet $opt $list: received alert handshake_failure\"" '.errorDetails'
        finish
    done
    stop_server "$NGTCP2_H3_PID"
else
    skip "ngtcp2 HTTP/3 checks: gtlsserver is not installed (apt-get install ngtcp2-server; bash scripts/deps.sh)"
fi

if [ -n "$CADDY_WHY" ] && [ -n "$BUN_WHY" ]; then
    skip "every HTTP/3 check: neither caddy nor bun is here"
    [ "$FAILS" -eq 0 ]
    exit
fi

# --- 2. exact totals ------------------------------------------------------------------------
# exact_totals LABEL URL [LOG]: n c p t splits; t "-" is shb's default. With
# LOG (Bun's request log), the server saw each request once, over HTTP/3.
exact_totals() {
    local label=$1 url=$2 log=${3:-} spec n c p t targs tname cn
    for spec in "200 10 1 -" "1000 4 32 -" "999 3 7 2" "5 4 8 1"; do
        read -r n c p t <<<"$spec"
        targs=()
        tname=""
        if [ "$t" != "-" ]; then
            targs=(-t "$t")
            tname=" -t $t"
        fi
        begin "$label exact totals -n $n -c $c -p $p$tname"
        if [ -n "$log" ]; then
            LOG=$log
            log_reset
        fi
        shb --http3 -n "$n" -c "$c" -p "$p" "${targs[@]}" -j "$url/"
        if json_run_ok; then
            all_ok "$n"
            jx ".url == \"$url/\"" '.url'
            jx '.bytesReceived > 0 and .bytesSent > 0' '[.bytesReceived, .bytesSent]'
            if [ "$n" -ge $((c * p)) ]; then
                jx ".connections == $c" '.connections'
            else
                jx ".connections >= 1 and .connections <= $c" '.connections'
            fi
            jx ".connectionsOpened >= .connections" '{connectionsOpened, connections}'
            if [ "$t" != "-" ]; then
                jx ".threads == $t" '.threads'
            fi
            latency_sane
            quic_ok
        fi
        if [ -n "$log" ]; then
            lx "length == $n" 'length'
            lx 'all(.method == "GET" and .url == "/" and .httpVersion == "3")' 'map({method, url, httpVersion}) | unique'
            cn=$(jq -r '.connectionsOpened // empty' "$OUT" 2>/dev/null || true)
            [ -n "$cn" ] && lx "conns >= 1 and conns <= $cn" 'conns'
        fi
        finish
    done
}

# --- 3. -z, bodies both ways, many streams, status codes ------------------------------------
# timed LABEL URL: -z 2s -c 4 -p 8.
timed() {
    begin "$1 -z 2s -c 4 -p 8"
    shb --http3 -z 2s -c 4 -p 8 -j "$2/"
    if json_run_ok; then
        jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
        jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
        jx '.statusCodes["200"] == .requests.total' '.statusCodes'
        latency_sane
        quic_ok
    fi
    [ "$SHB_MS" -le 5000 ] || want "took ${SHB_MS} ms of wall time"
    finish
}

# big_body LABEL URL SIZE: -n 6 -c 2 -p 2 responses of SIZE bytes each.
big_body() {
    begin "$1 $3-byte responses -n 6 -c 2 -p 2"
    shb --http3 -n 6 -c 2 -p 2 -j "$2"
    if json_run_ok; then
        all_ok 6
        jx ".bytesReceived >= 6 * $3" '.bytesReceived'
        quic_ok
        # 6 x SIZE bytes cannot arrive in fewer packets than this.
        jx ".quic.packetsReceived >= 6 * $3 / 1500" '.quic.packetsReceived'
    fi
    finish
}

# many_streams LABEL URL: -p far above the server's limit on concurrent
# streams (MAX_STREAMS; quic-go and lsquic allow 100 by default): shb must
# wait for stream credit, not fail.
many_streams() {
    begin "$1 -p 300 -c 2 -n 2000 (beyond the server's 100 concurrent streams)"
    shb --http3 -n 2000 -c 2 -p 300 -j "$2/"
    if json_run_ok; then
        all_ok 2000
        jx '.connections == 2' '.connections'
        quic_ok
    fi
    finish
}

status_codes() { # LABEL URL
    begin "$1 /status/404 -n 50 -c 2 -p 4: 50 responses, all 404"
    shb --http3 -n 50 -c 2 -p 4 -j "$2/status/404"
    if json_run_ok; then
        jx '.requests.total == 50 and .requests.ok == 50 and .requests.errors == 0' '{requests, errorKinds}'
        jx '.statusCodes == {"404": 50}' '.statusCodes'
    fi
    finish
}

printf 'line1\r\nline2\n' >"$T/body.txt"
# A body of many QUIC packets; @file strips CR and LF, so the file has none.
head -c 75000 /dev/urandom | base64 -w 0 >"$T/upload.txt"
UP_LEN=$(wc -c <"$T/upload.txt")
UP_SHA=$(sha256sum "$T/upload.txt" | cut -d' ' -f1)

bun_bodies() { # what Bun's log says arrived
    LOG=$BUN_LOG
    begin "bun echo PUT with headers and body -n 3 -c 1"
    log_reset
    shb --http3 -n 3 -c 1 -m PUT -H 'X-Test: a b' -H 'X-Other:  v2 ' -d 'hello world' -j "$BUN_URL/put"
    if json_run_ok; then
        all_ok 3
        jx '.bytesReceived >= 3 * 11' '.bytesReceived'
    fi
    lx 'length == 3' 'length'
    lx 'all(.method == "PUT" and .url == "/put" and .httpVersion == "3")' 'map({method, url, httpVersion})'
    lx 'all(hdr("x-test") == ["a b"])' 'map(hdr("x-test"))'
    lx 'all(hdr("x-other") == ["v2"])' 'map(hdr("x-other"))'
    lx 'all(body == "hello world" and .bodyLength == 11)' 'map(body)'
    lx 'all(hdr("content-length") | . == [] or . == ["11"])' 'map(hdr("content-length"))'
    lx 'all(hdr("user-agent") == ["shb"])' 'map(hdr("user-agent"))'
    finish

    begin "bun warmup: --http3 --warmup 1s -n 200 -c 2 -p 4: 200 measured, the server got 200 + warmup.requests"
    log_reset
    shb --http3 --warmup 1s -n 200 -c 2 -p 4 -j "$BUN_URL/w"
    json_run_ok && warmup_n_ok 200 "$LOG"
    finish

    begin "bun echo -d @file strips CR and LF"
    log_reset
    shb --http3 -n 2 -c 1 -d "@$T/body.txt" -j "$BUN_URL/file"
    json_run_ok && all_ok 2
    lx 'length == 2 and all(.method == "POST" and body == "line1line2")' 'map({method, b: body})'
    finish

    begin "bun echo POST -d @file of $UP_LEN bytes -n 20 -c 2 -p 4: exact bytes arrive and come back"
    log_reset
    shb --http3 -n 20 -c 2 -p 4 -d "@$T/upload.txt" -j "$BUN_URL/upload"
    if json_run_ok; then
        all_ok 20
        jx ".bytesSent > 20 * $UP_LEN" '.bytesSent'
        jx ".bytesReceived >= 20 * $UP_LEN" '.bytesReceived'
        quic_ok
    fi
    lx 'length == 20' 'length'
    lx "all(.method == \"POST\" and .bodyLength == $UP_LEN and .bodySha256 == \"$UP_SHA\" and .httpVersion == \"3\")" 'map({method, bodyLength, bodySha256, httpVersion}) | unique'
    finish
}

if [ -z "$CADDY_WHY" ]; then
    exact_totals "caddy ecdsa" "$CADDY_EC"
    begin "caddy rsa exact totals -n 200 -c 4 -p 8, and the TLS it negotiated"
    shb --http3 -n 200 -c 4 -p 8 -j "$CADDY_RSA/"
    json_run_ok && all_ok 200 && quic_ok
    # QUIC's TLS is 1.3 (RFC 9001 §4.2) and never the 1.2 fallback; x25519
    # is our first key share, which quic-go takes; ALPN h3 (RFC 9114 §3.1).
    jx '.tls.version == "TLSv1.3" and .tls.group == "x25519" and .tls.alpn == "h3" and .tls.fallback == false and
        (.tls.cipher | IN("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"))' '.tls'
    finish
    timed "caddy ecdsa" "$CADDY_EC"
    big_body "caddy ecdsa /big.bin" "$CADDY_EC/big.bin" "$BIG"
    many_streams "caddy ecdsa" "$CADDY_EC"
    status_codes "caddy ecdsa" "$CADDY_EC"
    # Caddy answers "hello" without reading the body: a request is done when
    # its response is, so not every body needs to leave in full.
    begin "caddy POST -d @file of $UP_LEN bytes -n 20 -c 2 -p 4 (Caddy answers hello)"
    shb --http3 -n 20 -c 2 -p 4 -d "@$T/upload.txt" -j "$CADDY_EC/"
    if json_run_ok; then
        all_ok 20
        jx ".bytesSent > $UP_LEN" '.bytesSent'
    fi
    finish
else
    skip "caddy HTTP/3 checks: $CADDY_WHY"
fi
if [ -z "$BUN_WHY" ]; then
    exact_totals "bun" "$BUN_URL" "$BUN_LOG"
    timed "bun" "$BUN_URL"
    LOG=$BUN_LOG
    log_reset
    big_body "bun /bytes/8000000" "$BUN_URL/bytes/8000000" 8000000
    many_streams "bun" "$BUN_URL"
    status_codes "bun" "$BUN_URL"
    bun_bodies
else
    skip "bun HTTP/3 checks: $BUN_WHY"
fi

# --- 4. text report ----------------------------------------------------------------------------
TXT_URL=${BUN_URL:-$CADDY_EC}
TXT_PORT=${BUN_H3_PORT:-$CADDY_EC_PORT}
begin "text report --http3 -n 100 -c 2 -p 8"
shb --http3 -n 100 -c 2 -p 8 "$TXT_URL/"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
no_sanitizer_report
F='[0-9]+(\.[0-9]+)?'
while IFS= read -r re; do
    grep -qE "$re" "$OUT" || want "no line matching /$re/"
done <<EOF
^URL: +https://127\.0\.0\.1:$TXT_PORT/\$
^Protocol: +HTTP/3\$
^TLS:          TLSv1\.3, TLS_(AES_128_GCM_SHA256|AES_256_GCM_SHA384|CHACHA20_POLY1305_SHA256), x25519, ALPN h3\$
^Connections: +2\$
^Requests: +100 \(100 ok, 0 errors, of which 0 connect\) in ${F}s\$
^  \[200\] 100\$
EOF
finish

# --- 5. Ctrl-C (e2e_lib.sh: shb_interrupted) ---------------------------------------------
for spec in "caddy ${CADDY_EC:-}" "bun ${BUN_URL:-}"; do
    read -r label url <<<"$spec"
    [ -n "${url:-}" ] || continue
    begin "$label Ctrl-C during -z 30s -c 4 -p 8 prints the report"
    shb_interrupted 1.5 3000 --http3 -z 30s -c 4 -p 8 -j "$url/"
    if [ "$SHB_RC" -ne 137 ] && json_run_ok; then
        jx '.durationSeconds > 1 and .durationSeconds < 10' '.durationSeconds'
        jx '.requests.total > 0 and .requests.ok > 0 and .requests.errors == 0' '{requests, errorKinds}'
        quic_ok
        echo "  (exit status after SIGINT: $SHB_RC, ${SHB_MS} ms after the signal)"
    fi
    finish
done

# --- 5b. GOAWAY ---------------------------------------------------------------------------------
# A Bun of its own stops gracefully one second into a -z run (SIGUSR1:
# server.stop(false)): every connection gets a GOAWAY, finishes what is
# below it, and shb moves the rest to new connections, which the stopped
# server no longer answers (connect timeouts). Nothing is a protocol,
# closed or reset error, and no request is lost: what was sent either
# completed, failed to connect, or was still in flight at the end.
if [ -z "$BUN_WHY" ]; then
    begin "bun graceful stop mid-run: a GOAWAY on each of 4 connections, nothing lost or miscounted"
    SAVED_BUN=("$BUN_H3_PORT" "$BUN_H3_LOG" "$BUN_H3_PID")
    start_or_die "bun_h3_server.js (goaway)" start_bun_h3 bun-goaway "$C/ec.crt" "$C/ec.key"
    GA_PID=$BUN_H3_PID
    GA_PORT=$BUN_H3_PORT
    BUN_H3_PORT=${SAVED_BUN[0]} BUN_H3_LOG=${SAVED_BUN[1]} BUN_H3_PID=${SAVED_BUN[2]}
    (sleep 1 && kill -USR1 "$GA_PID" 2>/dev/null) &
    GA_KILLER=$!
    shb --http3 -z 3s -c 4 -p 8 --connect-timeout 1s -j "https://127.0.0.1:$GA_PORT/"
    wait "$GA_KILLER" 2>/dev/null || true
    if json_run_ok; then
        jx '.quic.goaways == 4' '.quic.goaways'
        jx '.requests.ok > 0' '.requests'
        jx '[.errorKinds | keys[] | select(. != "connect timeout" and . != "connect")] == []' '.errorKinds'
        jx '.requests.errors == .requests.connectErrors' '.requests'
        jx '(.quic.connectionCloses | keys | map(select(startswith("server") and . != "server H3_NO_ERROR"))) == []' '.quic.connectionCloses'
    fi
    finish
    stop_server "$GA_PID"
fi

# --- 6. through udp_impair.js ----------------------------------------------------------------
# impaired LABEL PORT: loss and reordering both ways (seed fixed), then
# duplicates and jitter: every request completes, and shb saw the losses.
# With seed 42 at 5 % loss the first drops are the up direction's 25th and
# 28th datagrams and the down direction's 8th (udp_impair.js draws the same
# numbers per datagram whatever it decides), so a 500-request run always
# loses some both ways. Then all-loss: only Initials go out and time out.
impaired() {
    local label=$1 port=$2
    begin "$label via udp_impair.js --seed 42 --loss 5 --reorder 10: -n 500 -c 4 -p 8, every request ok"
    start_or_die "udp_impair.js" start_impair "impair-$port" "$port" --seed 42 --loss 5 --reorder 10
    shb --http3 -n 500 -c 4 -p 8 -j "https://127.0.0.1:$IMPAIR_PORT/"
    stop_impair
    if json_run_ok; then
        all_ok 500
        quic_ok
        jx '.quic.packetsLost > 0' '.quic'
    fi
    ix '.up.dropped > 0 and .down.dropped > 0 and .up.reordered > 0 and .down.reordered > 0' '{up, down}'
    ix '.clients >= 1' '.clients'
    finish
    IMPAIR_STATS=""

    begin "$label via udp_impair.js --seed 9 --dup 5 --delay 2 --jitter 3: -n 300 -c 2 -p 8, every request ok"
    start_or_die "udp_impair.js" start_impair "impair-dup-$port" "$port" --seed 9 --dup 5 --delay 2 --jitter 3
    shb --http3 -n 300 -c 2 -p 8 -j "https://127.0.0.1:$IMPAIR_PORT/"
    stop_impair
    if json_run_ok; then
        all_ok 300
        quic_ok
    fi
    ix '.down.duplicated > 0 and .down.delayed > 0' '{up, down}'
    finish
    IMPAIR_STATS=""

    # Three connection attempts in a row on each of the two connections,
    # each waiting out the whole connect timeout (3 s in all).
    begin "$label via udp_impair.js --loss 100: -n 6 -c 2 --connect-timeout 1s, 6 connect timeouts, no hang"
    start_or_die "udp_impair.js" start_impair "impair-all-$port" "$port" --loss 100
    shb --http3 -n 6 -c 2 --connect-timeout 1s -j "https://127.0.0.1:$IMPAIR_PORT/"
    stop_impair
    if json_run_ok; then
        jx '.requests.total == 6 and .requests.ok == 0 and .requests.errors == 6 and .requests.connectErrors == 6' '.requests'
        jx '.errorKinds == {"connect timeout": 6}' '.errorKinds'
        jx '.statusCodes == {}' '.statusCodes'
    fi
    [ "$SHB_MS" -ge 2700 ] || want "took only ${SHB_MS} ms for three 1 s connect timeouts in a row"
    [ "$SHB_MS" -le 10000 ] || want "took ${SHB_MS} ms"
    # shb did send: Initials, each datagram padded to at least 1200 bytes
    # (RFC 9000 §14.1); nothing came back.
    ix '.up.in > 0 and .up.dropped == .up.in and .down.in == 0' '{up, down}'
    ix '.up.in == 0 or .up.bytesIn >= 1200 * .up.in' '.up'
    finish
    IMPAIR_STATS=""
}
if [ -z "$CADDY_WHY" ]; then
    impaired "caddy ecdsa" "$CADDY_EC_PORT"
else
    skip "caddy impairment checks: $CADDY_WHY"
fi
if [ -z "$BUN_WHY" ]; then
    impaired "bun" "$BUN_H3_PORT"
    # Request bodies over several packets and echoed back in a DATA frame
    # per packet, some of them lost both ways: the resent bytes must not use
    # up the connection's flow-control credit, a lost Finished must go again
    # while the window is full of 1-RTT packets, and data arriving ahead of
    # a hole must never be refused (each stalled streams until --timeout).
    begin "bun echo POST -d @file of $UP_LEN bytes via udp_impair.js --seed 42 --loss 5 --reorder 10: -n 20 -c 2 -p 4, every body back"
    start_or_die "udp_impair.js" start_impair "impair-post" "$BUN_H3_PORT" --seed 42 --loss 5 --reorder 10
    shb --http3 -n 20 -c 2 -p 4 --timeout 20s -d "@$T/upload.txt" -j "https://127.0.0.1:$IMPAIR_PORT/upload"
    stop_impair
    if json_run_ok; then
        all_ok 20
        jx ".bytesReceived >= 20 * $UP_LEN" '.bytesReceived'
    fi
    ix '.up.dropped > 0 and .down.dropped > 0' '.'
    finish
    IMPAIR_STATS=""
else
    skip "bun impairment checks: $BUN_WHY"
fi

[ "$FAILS" -eq 0 ]
