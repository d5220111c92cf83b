#!/usr/bin/env bash
# test/e2e/e2e_hrr.sh — end-to-end checks that a HelloRetryRequest (RFC
# 8446 §4.1.4) is paid once, not on every connection: the built binary
# $SHB remembers the group a server asked for and leads with it (one
# thread: the memory is per thread). Against
#   nginx (OpenSSL, test/servers/nginx-hrr.conf.in) with P-384 only, which
#     logs the group of every request's handshake ($ssl_curve):
#     HTTP/1.1 --disable-keepalive -n 300 -c 4: at most the first wave (4)
#       after a retry, every handshake on secp384r1 (nginx's log agrees);
#       the text report's Handshakes line;
#     --early-data: the resumed connections send their requests early and
#       nginx accepts them (a retry would reject them, §4.2.10);
#     nginx with X25519: no retry, no handshakes object without
#       --tls-resume; TLS 1.2 only with P-384 (the fallback engine):
#       unaffected, no retry counted;
#   ngtcp2's HTTP/3 server (GnuTLS) with P-384 only, connections idling out
#     after 300 ms so that slots reconnect: at most the first wave after a
#     retry, the server's log showing as many second ClientHellos; with
#     --early-data every resumed connection's request accepted in 0-RTT
#     (ngtcp2 0.12 closes a connection that sends 0-RTT after a retry with
#     STREAM_LIMIT_ERROR);
# and shb merge adding the count up.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_hrr.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_hrr.sh
#
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-hrr

e2e_preconditions nginx jq openssl
gen_certs || { echo "FAIL $P setup: gen_certs failed"; exit 1; }
# Session ticket keys the reloaded server keeps (nginx-hrr.conf.in).
openssl rand 80 >"$LIB_CERTS/hrr-ticket.key" || { echo "FAIL $P setup: no ticket key"; exit 1; }

start_or_die "nginx (test/servers/nginx-hrr.conf.in)" start_nginx_tls nginx-hrr "$LIB_ROOT/test/servers/nginx-hrr.conf.in"
ND=$NGINX_DIR
P384="https://127.0.0.1:$NGINX_PORT/"
X25519="https://127.0.0.1:$NGINX_PORT_X25519/"
TLS12="https://127.0.0.1:$NGINX_PORT_TLS12/"
SWITCH="https://127.0.0.1:$NGINX_PORT_SWITCH/"

# all_ok N: exactly N requests, all 200, no errors.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0 and .statusCodes == {\"200\": $1}" \
        '{requests, statusCodes, errorDetails}'
}
# log_is LOG N WHAT: nginx logged exactly N requests, each line matching
# the regex WHAT.
log_is() {
    local log=$1 n=$2 what=$3 got bad
    lines_settled "$log" >/dev/null
    got=$(wc -l <"$log")
    bad=$(grep -cvE "$what" "$log" || true)
    [ "$got" = "$n" ] && [ "$bad" = 0 ] ||
        want "nginx's log: expected $n lines matching '$what', got $got, $bad not matching: $(grep -vE "$what" "$log" | sort | uniq -c | head -3)"
}

# --- nginx P-384 only ----------------------------------------------------------------
: >"$ND/p384.log"
begin "nginx P-384 only, h1 --disable-keepalive -n 300 -c 4 -t 1: at most 4 handshakes after a HelloRetryRequest (not 300), all on secp384r1; nginx agrees"
shb -n 300 -c 4 -t 1 --disable-keepalive -j "$P384"
if json_run_ok; then
    all_ok 300
    jx '.tls.group == "secp384r1" and .tls.handshakes.helloRetries >= 1 and .tls.handshakes.helloRetries <= 4' '.tls'
    jx '.tls.handshakes.full == .phases.tlsHandshake.count and .tls.handshakes.resumed == 0' '{tls, phases}'
fi
log_is "$ND/p384.log" 300 '^secp384r1 \. - 200$'
finish

begin "nginx P-384 only, text report: 'Handshakes:   N full, 0 resumed, K after a HelloRetryRequest', K at most -c"
shb -n 40 -c 2 -t 1 --disable-keepalive "$P384"
if [ "$SHB_RC" -ne 0 ]; then
    want "exit status $SHB_RC"
else
    line=$(grep '^Handshakes:' "$OUT")
    k=$(sed -nE 's/^Handshakes: +[0-9]+ full, 0 resumed, ([12]) after a HelloRetryRequest$/\1/p' "$OUT")
    [ -n "$k" ] || want "no 'Handshakes:   N full, 0 resumed, 1..2 after a HelloRetryRequest' line: $line"
fi
no_sanitizer_report
finish

: >"$ND/p384.log"
begin "nginx P-384 only, h1 --disable-keepalive -n 60 -c 3 -t 1 --early-data: retries only in the first wave, every early request accepted (none resent), all 200; nginx read some in early data, all on secp384r1"
shb -n 60 -c 3 -t 1 --disable-keepalive --early-data -j "$P384"
if json_run_ok; then
    all_ok 60
    jx '.tls.handshakes.helloRetries >= 1 and .tls.handshakes.helloRetries <= 3 and .tls.handshakes.resumed >= 20' '.tls'
    jx '.tls.earlyData.sent > 0 and .tls.earlyData.accepted == .tls.earlyData.sent and .tls.earlyData.resent == 0' '.tls'
fi
log_is "$ND/p384.log" 60 '^secp384r1 [.r] [-1] 200$'
[ "$(grep -c '^secp384r1 r 1 ' "$ND/p384.log" || true)" -ge 1 ] || want "nginx read no request in early data"
finish

begin "nginx P-384 only, h2 -n 200 -c 2 -p 4 -t 1: kept connections, at most 2 after a HelloRetryRequest"
shb --http2 -n 200 -c 2 -p 4 -t 1 -j "$P384"
json_run_ok && all_ok 200 && jx '.tls.alpn == "h2" and .tls.handshakes.helloRetries >= 1 and .tls.handshakes.helloRetries <= 2' '.tls'
finish

# --- no retry ------------------------------------------------------------------------
: >"$ND/x25519.log"
begin "nginx X25519 first, h1 --disable-keepalive -n 50 -c 2: no retry, no handshakes object without --tls-resume"
shb -n 50 -c 2 --disable-keepalive -j "$X25519"
json_run_ok && all_ok 50 && jx '.tls.group == "x25519" and (.tls | has("handshakes") | not)' '.tls'
log_is "$ND/x25519.log" 50 '^X25519 \. - 200$'
finish

begin "nginx X25519 first, --tls-resume: helloRetries 0"
shb -n 20 -c 2 --disable-keepalive --tls-resume -j "$X25519"
json_run_ok && all_ok 20 && jx '.tls.handshakes.helloRetries == 0 and .tls.handshakes.resumed >= 16' '.tls'
finish

: >"$ND/tls12.log"
begin "nginx TLS 1.2 only, P-384 only, h1 --disable-keepalive -n 40 -c 2: the TLS 1.2 fallback, all 200 on secp384r1, no retry counted"
shb -n 40 -c 2 --disable-keepalive -j "$TLS12"
if json_run_ok; then
    all_ok 40
    jx '.tls.version == "TLSv1.2" and .tls.fallback == true and .tls.group == "secp384r1" and (.tls | has("handshakes") | not)' '.tls'
fi
log_is "$ND/tls12.log" 40 '^secp384r1 \. - 200$'
finish

# --- merged shards -------------------------------------------------------------------
begin "shb merge adds helloRetries of two reports"
merge_adds .tls.handshakes '.tls.handshakes.helloRetries >= 2 and .tls.handshakes.helloRetries <= 5' "$P384" -t 1
finish

# --- the server changes its mind (last for nginx: it changes the server) --------------
# Reloaded from P-384 to X25519 only, same ticket keys: the next
# ClientHello of each slot leads with the remembered P-384 share, gets a
# HelloRetryRequest to x25519 (rejecting its early data, which is sent
# again after the handshake), and from then on the slots lead with x25519.
: >"$ND/switch.log"
begin "nginx switched from P-384 to X25519 mid-run, h1 --disable-keepalive -z 2s -c 2 -t 1 --early-data: retries in the first wave and around the switch only (of hundreds of handshakes); early requests rejected by them resent; all 200, both groups in nginx's log"
(
    sleep 1
    sed -i 's/ssl_ecdh_curve secp384r1; # switch/ssl_ecdh_curve X25519; # switch/' "$ND/nginx.conf"
    kill -HUP "$NGINX_PID"
) &
reloader=$!
shb -z 2s -c 2 -t 1 --disable-keepalive --early-data -j "$SWITCH"
wait "$reloader"
if json_run_ok; then
    jx '.requests.errors == 0 and .requests.ok == .requests.total and .requests.total >= 100' '{requests, errorDetails}'
    # While nginx reloads, its old worker (P-384) and the new one (X25519)
    # both take connections for a moment: the group may flip a few times.
    jx '.tls.handshakes.helloRetries >= 2 and .tls.handshakes.helloRetries <= 16' '.tls'
    # -z: an early request still in flight at the end has no verdict yet.
    jx '.tls.earlyData.accepted > 0 and .tls.earlyData.resent >= 1 and .tls.earlyData.resent <= .tls.handshakes.helloRetries and .tls.earlyData.accepted + .tls.earlyData.resent + .inFlight >= .tls.earlyData.sent' '{tls, inFlight}'
fi
lines_settled "$ND/switch.log" >/dev/null
p384=$(grep -c '^secp384r1 ' "$ND/switch.log" || true)
x=$(grep -c '^X25519 ' "$ND/switch.log" || true)
{ [ "$p384" -ge 10 ] && [ "$x" -ge 10 ]; } || want "nginx's log: $p384 requests on secp384r1, $x on X25519, expected both (10 or more)"
finish

# --- HTTP/3: ngtcp2's server, P-384 only --------------------------------------------
# Its connections idle out after 300 ms; with -q 4 per second each slot's
# next connection opens when its request is due. The server logs every
# frame: a second ClientHello is an Initial CRYPTO frame at a non-zero
# offset (the first ends where it starts).
second_hellos() {
    grep -a 'frm rx [0-9]* Initial CRYPTO(0x06) offset=[1-9]' "$1" | awk '{print $2}' | sort -u | wc -l
}
if NGTCP2_H3_LOG=1 start_ngtcp2_h3 ngtcp2-hrr "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" --timeout=300ms \
    --groups=-GROUP-ALL:+GROUP-SECP384R1; then
    H3LOG="$NGTCP2_H3_DIR/stderr.log"
    H3URL="https://127.0.0.1:$NGTCP2_H3_PORT/"
    begin "ngtcp2 h3 P-384 only (idle 300 ms) -n 16 -q 4 -c 2 -t 1: 16 handshakes, at most 2 after a HelloRetryRequest; the server saw as many second ClientHellos"
    : >"$H3LOG"
    shb -n 16 -q 4 -c 2 -t 1 --http3 -j "$H3URL"
    if json_run_ok; then
        all_ok 16
        jx '.tls.group == "secp384r1" and .tls.handshakes.helloRetries >= 1 and .tls.handshakes.helloRetries <= 2 and .tls.handshakes.full >= 12' '.tls'
        retries=$(jq '.tls.handshakes.helloRetries' "$OUT")
        got=$(second_hellos "$H3LOG")
        [ "$got" = "$retries" ] || want "ngtcp2 saw $got connections with a second ClientHello, we count $retries retries"
    fi
    finish

    begin "ngtcp2 h3 P-384 only -n 16 -q 4 -c 2 -t 1 --early-data: every request 200, the resumed connections' requests accepted in 0-RTT"
    shb -n 16 -q 4 -c 2 -t 1 --http3 --early-data -j "$H3URL"
    if json_run_ok; then
        all_ok 16
        jx '.tls.handshakes.helloRetries <= 2 and .tls.handshakes.resumed >= 10' '.tls'
        jx '.tls.earlyData.sent >= 10 and .tls.earlyData.accepted + .tls.earlyData.resent == .tls.earlyData.sent and .tls.earlyData.accepted >= .tls.earlyData.sent - 2' '.tls'
    fi
    finish
    stop_server "$NGTCP2_H3_PID"
else
    skip "HTTP/3: ngtcp2's server (gtlsserver) did not start"
fi

exit $((FAILS > 0))
