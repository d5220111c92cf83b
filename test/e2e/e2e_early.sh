#!/usr/bin/env bash
# test/e2e/e2e_early.sh — end-to-end checks of --early-data (TLS 1.3 0-RTT
# over TCP, QUIC 0-RTT) with the built binary $SHB against nginx (OpenSSL,
# test/servers/nginx-early.conf.in), which logs per request
# $ssl_early_data ("1": the request came in early data and was read before
# the handshake completed), $ssl_session_reused and the status:
#   HTTP/1.1 --disable-keepalive, 0-RTT accepted: requests sent early ==
#     accepted == resumed handshakes, none resent, all 200; nginx saw
#     exactly -n requests, and as many in early data as it says;
#   HTTP/2, connections closed after 4 requests: each resumed connection
#     sends its preface, SETTINGS and first HEADERS early;
#   a P-256-only server: our x25519 share gets a HelloRetryRequest on the
#     first connections only (no ticket yet); the resumed ones share for
#     P-256 at once and their early data is accepted; over HTTP/1.1 and
#     HTTP/2 (a retry rejecting early data: e2e_hrr.sh);
#   ssl_early_data turned off (reload) while the slots hold tickets that
#     allow it: those early requests rejected and resent, none lost or
#     counted twice (nginx's count equals ours);
#   ssl_early_data off from the start: its tickets allow no early data,
#     nothing is sent early;
#   HTTP/3 (QUIC 0-RTT packets) against ngtcp2's server (GnuTLS), whose
#     connections idle out: each resumed connection's request sent in
#     0-RTT, exact counts, the server's log agreeing on the accepted ones;
#     none without --early-data; the server restarted mid-run (new ticket
#     keys): the early requests rejected and resent in 1-RTT, all 200;
# the text report's line, shb merge, and the refusals (a POST, --tls-max
# 1.2, http://): one line, exit 2.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_early.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_early.sh
#
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-early

e2e_preconditions nginx jq openssl
gen_certs || { echo "FAIL $P setup: gen_certs failed"; exit 1; }
# Session ticket keys the reloaded server keeps (nginx-early.conf.in).
openssl rand 80 >"$LIB_CERTS/early-ticket.key" || { echo "FAIL $P setup: no ticket key"; exit 1; }

start_or_die "nginx (test/servers/nginx-early.conf.in)" start_nginx_tls nginx-early "$LIB_ROOT/test/servers/nginx-early.conf.in"
ND=$NGINX_DIR
EARLY="https://127.0.0.1:$NGINX_PORT/"
CLOSING="https://127.0.0.1:$NGINX_PORT_CLOSING/"
NOEARLY="https://127.0.0.1:$NGINX_PORT_NOEARLY/"
RELOAD="https://127.0.0.1:$NGINX_PORT_RELOAD/"
P256="https://127.0.0.1:$NGINX_PORT_P256/"

# all_ok N: exactly N requests, all 200, no errors.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0 and .statusCodes == {\"200\": $1}" \
        '{requests, statusCodes, errorDetails}'
}
# log_count LOG: requests nginx logged (all of them 200, or it says so).
log_count() {
    lines_settled "$1" >/dev/null
    if grep -qv ' 200$' "$1"; then
        echo "not all 200: $(grep -v ' 200$' "$1" | sort | uniq -c | head -3)"
        return
    fi
    wc -l <"$1"
}
# nginx_saw LOG N: nginx logged exactly N requests, all 200.
nginx_saw() {
    local got
    got=$(log_count "$1")
    [ "$got" = "$2" ] || want "nginx's log: expected $2 requests, all 200, got $got"
}
# early_lines LOG: requests nginx read in early data.
early_lines() { grep -c '^1 ' "$1" || true; }

# --- accepted ----------------------------------------------------------------------
: >"$ND/early.log"
begin "nginx ssl_early_data on, h1 --disable-keepalive -n 60 -c 4 --early-data: sent early == accepted == resumed handshakes, none resent, all 200; nginx saw 60 requests"
shb -n 60 -c 4 --disable-keepalive --early-data -j "$EARLY"
if json_run_ok; then
    all_ok 60
    jx '.tls.earlyData.sent > 0 and .tls.earlyData.sent == .tls.earlyData.accepted and .tls.earlyData.resent == 0' '.tls'
    jx '.tls.earlyData.sent == .tls.handshakes.resumed' '.tls'
    accepted=$(jq '.tls.earlyData.accepted' "$OUT")
    nginx_saw "$ND/early.log" 60
    # $ssl_early_data is "1" only for requests nginx read before the
    # handshake completed: each one is one of ours sent early, while one
    # that nginx reads after our Finished shows "-" though it came early.
    e=$(early_lines "$ND/early.log")
    { [ "$e" -ge 1 ] && [ "$e" -le "$accepted" ]; } ||
        want "nginx read $e requests in early data, expected 1..$accepted (our accepted count)"
    [ "$(grep -c '^1 \. ' "$ND/early.log" || true)" = 0 ] || want "an early request on a full handshake in nginx's log"
fi
finish

begin "text report: an Early data line with the counts"
shb -n 20 -c 2 --disable-keepalive --early-data "$EARLY"
if [ "$SHB_RC" -ne 0 ]; then
    want "exit status $SHB_RC"
else
    line=$(grep '^Early data:' "$OUT")
    sent=$(sed -nE 's/^Early data: +([0-9]+) requests sent early, ([0-9]+) accepted, 0 resent$/\1 \2/p' "$OUT")
    case $sent in
        "") want "no 'Early data:   N requests sent early, N accepted, 0 resent' line: $line" ;;
        *) set -- $sent; { [ "$1" = "$2" ] && [ "$1" -ge 1 ]; } || want "sent != accepted or none: $line" ;;
    esac
fi
no_sanitizer_report
finish

: >"$ND/closing.log"
begin "nginx h2, closed after 4 requests each, -n 80 -c 2 -p 4 --early-data: resumed connections send their first requests early, all accepted, all 200"
shb -n 80 -c 2 --http2 -p 4 --early-data -j "$CLOSING"
if json_run_ok; then
    all_ok 80
    jx '.tls.alpn == "h2" and .tls.earlyData.sent > 0 and .tls.earlyData.sent == .tls.earlyData.accepted and .tls.earlyData.resent == 0' '.tls'
    jx '.tls.earlyData.sent <= 4 * .tls.handshakes.resumed' '.tls'
fi
nginx_saw "$ND/closing.log" 80
[ "$(early_lines "$ND/closing.log")" -ge 1 ] || want "nginx read no request in early data"
finish

# -q: the requests due as a connection opens go early, the others after
# the handshake; every one counted once.
: >"$ND/early.log"
begin "nginx ssl_early_data on, h1 --disable-keepalive -n 100 -q 200 -c 4 --early-data: all 200, sent early == accepted; nginx saw exactly 100"
shb -n 100 -q 200 -c 4 --disable-keepalive --early-data -j "$EARLY"
if json_run_ok; then
    all_ok 100
    jx '.tls.earlyData.sent == .tls.earlyData.accepted and .tls.earlyData.resent == 0' '.tls'
fi
nginx_saw "$ND/early.log" 100
finish

begin "without --early-data: no earlyData in the report"
shb -n 10 -c 2 --disable-keepalive --tls-resume -j "$EARLY"
json_run_ok && jx '.tls | has("earlyData") | not' '.tls'
finish

# --- after a HelloRetryRequest ------------------------------------------------------------
# A retry rejects early data (RFC 8446 §4.2.10), but only the first wave
# of connections gets one, before any ticket: the later ClientHellos share
# for P-256 at once, and their early data is accepted.
: >"$ND/p256.log"
begin "nginx P-256 only, h1 --disable-keepalive -n 30 -c 3 -t 1 --early-data: retries only in the first wave (no ticket yet), every early request accepted, all 200; nginx saw exactly 30"
shb -n 30 -c 3 -t 1 --disable-keepalive --early-data -j "$P256"
if json_run_ok; then
    all_ok 30
    jx '.tls.handshakes.helloRetries >= 1 and .tls.handshakes.helloRetries <= 3' '.tls'
    jx '.tls.earlyData.sent > 0 and .tls.earlyData.accepted == .tls.earlyData.sent and .tls.earlyData.resent == 0' '.tls'
    jx '.tls.earlyData.sent == .tls.handshakes.resumed' '.tls'
fi
nginx_saw "$ND/p256.log" 30
[ "$(early_lines "$ND/p256.log")" -ge 1 ] || want "nginx read no request in early data"
finish

: >"$ND/p256.log"
begin "nginx P-256 only, h2, closed after 4 requests each, -n 40 -c 2 -p 4 -t 1 --early-data: the early HEADERS accepted, all 200; nginx saw exactly 40"
shb -n 40 -c 2 -t 1 --http2 -p 4 --early-data -j "$P256"
if json_run_ok; then
    all_ok 40
    jx '.tls.alpn == "h2" and .tls.earlyData.sent > 0 and .tls.earlyData.accepted == .tls.earlyData.sent and .tls.earlyData.resent == 0' '.tls'
    jx '.tls.handshakes.helloRetries >= 1 and .tls.handshakes.helloRetries <= 2' '.tls'
fi
nginx_saw "$ND/p256.log" 40
finish

: >"$ND/noearly.log"
begin "nginx ssl_early_data off, h1 --disable-keepalive -n 30 -c 3 --early-data: tickets allow no early data, nothing sent early, all 200"
shb -n 30 -c 3 --disable-keepalive --early-data -j "$NOEARLY"
if json_run_ok; then
    all_ok 30
    jx '.tls.earlyData == {"sent": 0, "accepted": 0, "resent": 0} and .tls.handshakes.resumed >= 27' '.tls'
fi
nginx_saw "$ND/noearly.log" 30
finish

# --- merged shards -------------------------------------------------------------------
begin "shb merge adds the counts of two reports"
merge_adds .tls.earlyData '.tls.earlyData.accepted >= 2' "$EARLY" --early-data
finish

# --- HTTP/3: QUIC 0-RTT packets (ngtcp2's server, GnuTLS) ----------------------------------
# Its connections idle out after 300 ms; with -q every 500 ms per slot each
# slot's next connection opens when its request is due (usage.md), resumed,
# and that request goes in 0-RTT packets. The server's log shows which
# request streams it read from 0-RTT packets.
h3_early_streams() { grep -c 'frm rx [0-9]* 0RTT STREAM(0x0b) id=0x[0-9a-f]* fin=1 offset=0 .* uni=0' "$1" || true; }
if NGTCP2_H3_LOG=1 start_ngtcp2_h3 ngtcp2-early "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" --timeout=300ms; then
    H3LOG="$NGTCP2_H3_DIR/stderr.log"
    H3URL="https://127.0.0.1:$NGTCP2_H3_PORT/"
    begin "ngtcp2 h3 (idle 300 ms) -n 16 -q 4 -c 2 --early-data: 2 full handshakes, 14 resumed, each resumed connection's request sent in 0-RTT; accepted + resent == sent; the server read as many in 0-RTT as we count accepted; all 200"
    : >"$H3LOG"
    shb -n 16 -q 4 -c 2 --http3 --early-data -j "$H3URL"
    if json_run_ok; then
        all_ok 16
        jx '.tls.alpn == "h3" and .tls.handshakes == {"full": 2, "resumed": 14, "helloRetries": 0}' '.tls'
        jx '.tls.earlyData.sent == 14 and .tls.earlyData.accepted + .tls.earlyData.resent == 14 and .tls.earlyData.accepted >= 10' '.tls'
        accepted=$(jq '.tls.earlyData.accepted' "$OUT")
        e=$(h3_early_streams "$H3LOG")
        [ "$e" = "$accepted" ] || want "ngtcp2 read $e request streams in 0-RTT packets, we count $accepted accepted"
    fi
    finish

    begin "ngtcp2 h3 -n 6 -q 4 -c 2 --tls-resume (no --early-data): resumed, nothing in 0-RTT"
    : >"$H3LOG"
    shb -n 6 -q 4 -c 2 --http3 --tls-resume -j "$H3URL"
    if json_run_ok; then
        all_ok 6
        jx '.tls.handshakes.resumed >= 1 and (.tls | has("earlyData") | not)' '.tls'
        [ "$(h3_early_streams "$H3LOG")" = 0 ] || want "ngtcp2 read request streams in 0-RTT packets without --early-data"
    fi
    finish

    # Rejected: the server restarted mid-run (behind the UDP relay, so that
    # no Initial meets a closed port) has new ticket keys: the tickets the
    # slots hold no longer resume, the server drops the 0-RTT packets and
    # its EncryptedExtensions has no early_data (RFC 9001 §4.6.2): every
    # early request goes again in 1-RTT, each counted once.
    if start_impair ngtcp2-early-relay "$NGTCP2_H3_PORT"; then
        begin "ngtcp2 h3 restarted mid-run (new ticket keys), -n 24 -q 4 -c 2 --early-data: early requests accepted before, rejected and resent after; all 200, each counted once"
        (
            sleep 2.2
            stop_server "$NGTCP2_H3_PID"
            NGTCP2_H3_SAME_PORT=1 NGTCP2_H3_LOG=1 start_ngtcp2_h3 ngtcp2-early "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" --timeout=300ms
            echo "$NGTCP2_H3_PID" >"$T/ngtcp2-early.pid"
        ) &
        restarter=$!
        shb -n 24 -q 4 -c 2 --http3 --early-data -j "https://127.0.0.1:$IMPAIR_PORT/"
        wait "$restarter"
        NGTCP2_H3_PID=$(cat "$T/ngtcp2-early.pid" 2>/dev/null || echo "$NGTCP2_H3_PID")
        if json_run_ok; then
            all_ok 24
            jx '.tls.earlyData.accepted > 0 and .tls.earlyData.resent > 0 and .tls.earlyData.sent == .tls.earlyData.accepted + .tls.earlyData.resent' '.tls'
            jx '.tls.handshakes.full >= 3' '.tls'
        fi
        finish
        stop_impair
    else
        skip "HTTP/3 0-RTT rejected: the UDP relay did not start"
    fi
    stop_server "$NGTCP2_H3_PID"
else
    skip "HTTP/3 0-RTT: ngtcp2's server (gtlsserver) did not start"
fi

# --- refusals --------------------------------------------------------------------------
begin "--early-data with a POST: one line, exit 2"
err_case "shb: --early-data sends only GET and HEAD requests (0-RTT data can be replayed, RFC 8470 §2.1): not POST" \
    --early-data -d 'a=1' "$EARLY"
finish
begin "--early-data -m PUT: one line, exit 2"
err_case "not PUT" --early-data -m PUT "$EARLY"
finish
begin "--early-data --tls-max 1.2: one line, exit 2"
err_case "shb: --early-data needs TLS 1.3, which --tls-max 1.2 rules out" --early-data --tls-max 1.2 "$EARLY"
finish
begin "--early-data with no https:// target: one line, exit 2"
err_case "shb: --early-data needs an https:// URL (0-RTT is TLS 1.3 early data)" --early-data "http://127.0.0.1:$NGINX_PORT/"
finish

# --- rejected after a reload (last: it changes the server) ---------------------------------
: >"$ND/reload.log"
begin "nginx reloaded with ssl_early_data off mid-run (same ticket keys), h1 --disable-keepalive -z 2s -c 8 --early-data: early requests accepted, then rejected and resent; every request counted once (nginx's count is ours, give or take those in flight at the end), all 200"
(
    sleep 1
    sed -i 's/ssl_early_data on;/ssl_early_data off;/' "$ND/nginx.conf"
    kill -HUP "$NGINX_PID"
) &
reloader=$!
# 8 slots: a slot whose last early connection before the reload closed
# before its new ticket came makes a full handshake instead (usage.md),
# so with few slots none might be left to present an old ticket.
shb -z 2s -c 8 --disable-keepalive --early-data -j "$RELOAD"
wait "$reloader"
if json_run_ok; then
    jx '.requests.errors == 0 and .requests.ok == .requests.total' '{requests, errorDetails}'
    # -z: an early request still in flight when time ran out may not have
    # learnt yet whether the server took it; the requests in flight then
    # may have reached nginx.
    jx '.tls.earlyData.accepted > 0 and .tls.earlyData.resent > 0 and .tls.earlyData.sent >= .tls.earlyData.accepted + .tls.earlyData.resent and .tls.earlyData.sent <= .tls.earlyData.accepted + .tls.earlyData.resent + .inFlight' '{tls, inFlight}'
    total=$(jq '.requests.total' "$OUT")
    most=$(jq '.requests.total + .inFlight' "$OUT")
    got=$(log_count "$ND/reload.log")
    { [ "$got" -ge "$total" ] 2>/dev/null && [ "$got" -le "$most" ]; } ||
        want "nginx's log: expected $total..$most requests (ours, and those in flight at the end), all 200, got $got"
fi
finish

exit $((FAILS > 0))
