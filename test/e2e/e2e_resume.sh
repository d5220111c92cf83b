#!/usr/bin/env bash
# test/e2e/e2e_resume.sh — end-to-end checks of --tls-resume (TLS 1.3
# session resumption with the server's tickets): the built binary $SHB
# against
#   nginx (OpenSSL, test/servers/nginx-resume.conf.in), which logs
#     $ssl_session_reused per request ("r" resumed, "." full):
#     HTTP/1.1 with --disable-keepalive: each slot's first handshake is full,
#       every later one resumed, and nginx agrees request by request;
#     HTTP/2 against a server that closes every connection after 4 requests:
#       the slots reconnect and resume;
#     a server without tickets nor session cache: every handshake full, no
#       error;
#     without --tls-resume: nothing resumes, and the report has no counts;
#     TLS 1.2 only with a session cache: the fallback engine (BearSSL's)
#       resumes by session id;
#   ngtcp2's HTTP/3 server (GnuTLS) with a short idle timeout, so that QUIC
#     connections close and reopen: each slot's first handshake full, the
#     later ones resumed;
# the counts in the text report and through shb merge; and --tls-resume
# with no https:// target refused with one line, exit 2.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_resume.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_resume.sh
#
# Same conventions as test/e2e/e2e.sh: one "PASS name" / "FAIL name: why"
# line per check.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-resume

e2e_preconditions nginx jq
gen_certs || { echo "FAIL $P setup: gen_certs failed"; exit 1; }

start_or_die "nginx (test/servers/nginx-resume.conf.in)" start_nginx_tls nginx-resume "$LIB_ROOT/test/servers/nginx-resume.conf.in"
ND=$NGINX_DIR
TICKETS="https://127.0.0.1:$NGINX_PORT/"
CLOSING="https://127.0.0.1:$NGINX_PORT_CLOSING/"
NOTICKETS="https://127.0.0.1:$NGINX_PORT_NOTICKETS/"
TLS12="https://127.0.0.1:$NGINX_PORT_TLS12/"

# reused_tally FILE: nginx's log as "N. Nr" (requests on full and on resumed
# handshakes).
reused_tally() {
    lines_settled "$1" >/dev/null
    echo "$(grep -c '^\. ' "$1" || true). $(grep -c '^r ' "$1" || true)r"
}
# all_ok N: exactly N requests, all 200, no errors.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0" '{requests, errorDetails}'
}

# per_slot LOG URL N C VERSION WHAT: HTTP/1.1 --disable-keepalive -n N -c C
# --tls-resume: all N ok over TLS VERSION, each slot's first handshake
# full and every later one resumed (resumed = handshakes - C; a slot may
# finish one more handshake than it has requests for), and nginx's LOG
# agrees request by request (C on full handshakes, N - C on resumed ones).
per_slot() {
    local log=$1 url=$2 n=$3 c=$4 version=$5 what=$6 got
    : >"$ND/$log"
    begin "nginx $what, h1 --disable-keepalive -n $n -c $c --tls-resume: $c full handshakes, every other resumed; nginx logs $c full and $((n - c)) resumed requests"
    shb -n "$n" -c "$c" --disable-keepalive --tls-resume -j "$url"
    if json_run_ok; then
        all_ok "$n"
        jx ".tls.version == \"TLSv$version\" and .tls.handshakes.full == $c" '.tls'
        jx ".tls.handshakes.resumed == .phases.tlsHandshake.count - $c and .tls.handshakes.resumed >= $((n - c))" \
            '{tls, handshakes: .phases.tlsHandshake.count, connectionsOpened}'
    fi
    got=$(reused_tally "$ND/$log")
    [ "$got" = "$c. $((n - c))r" ] || want "nginx's log: expected $c full and $((n - c)) resumed requests, got $got"
    finish
}

# --- HTTP/1.1, --disable-keepalive -----------------------------------------------
per_slot tickets.log "$TICKETS" 60 4 1.3 "TLS 1.3 with session tickets"

begin "text report: a Handshakes line with the counts"
shb -n 20 -c 2 --disable-keepalive --tls-resume "$TICKETS"
if [ "$SHB_RC" -ne 0 ]; then
    want "exit status $SHB_RC"
else
    grep -qE '^Handshakes: +2 full, (1[89]|2[01]) resumed$' "$OUT" || want "no 'Handshakes:   2 full, 18..21 resumed' line: $(grep -i handshakes "$OUT")"
fi
no_sanitizer_report
finish

: >"$ND/tickets.log"
begin "nginx h1 --disable-keepalive without --tls-resume: no handshake resumes, no counts in the report"
shb -n 30 -c 3 --disable-keepalive -j "$TICKETS"
if json_run_ok; then
    all_ok 30
    jx '.tls | has("handshakes") | not' '.tls'
fi
got=$(reused_tally "$ND/tickets.log")
[ "$got" = "30. 0r" ] || want "nginx's log: expected 30 full, got $got"
finish

# --- HTTP/2: nginx closes each connection after 4 requests ------------------------
: >"$ND/closing.log"
begin "nginx h2, closed after 4 requests each, -n 80 -c 2 -p 4 --tls-resume: 2 full handshakes, 18 resumed; nginx agrees (8 requests on full ones, 72 on resumed)"
shb -n 80 -c 2 --http2 -p 4 --tls-resume -j "$CLOSING"
if json_run_ok; then
    all_ok 80
    jx '.tls.alpn == "h2" and .tls.handshakes == {"full": 2, "resumed": 18, "helloRetries": 0}' '.tls'
    jx '.connectionsOpened == 20' '.connectionsOpened'
fi
got=$(reused_tally "$ND/closing.log")
[ "$got" = "8. 72r" ] || want "nginx's log: expected 8 full and 72 resumed requests, got $got"
finish

# --- no tickets --------------------------------------------------------------------
: >"$ND/notickets.log"
begin "nginx without tickets nor session cache, h1 --disable-keepalive --tls-resume: every handshake full, no error"
shb -n 30 -c 3 --disable-keepalive --tls-resume -j "$NOTICKETS"
if json_run_ok; then
    all_ok 30
    jx '.tls.handshakes.resumed == 0 and .tls.handshakes.full == .phases.tlsHandshake.count and .tls.handshakes.full >= 30' \
        '{tls, handshakes: .phases.tlsHandshake.count}'
fi
got=$(reused_tally "$ND/notickets.log")
[ "$got" = "30. 0r" ] || want "nginx's log: expected 30 full, got $got"
finish

begin "nginx without tickets, h2 --tls-resume: full handshakes only, no error"
shb -n 40 -c 2 --http2 -p 4 --tls-resume -j "$NOTICKETS"
if json_run_ok; then
    all_ok 40
    jx '.tls.handshakes == {"full": 2, "resumed": 0, "helloRetries": 0}' '.tls'
fi
finish

# --- TLS 1.2: session ids ---------------------------------------------------------------
per_slot tls12.log "$TLS12" 40 4 1.2 "TLS 1.2 only with a session cache (the fallback engine resumes by session id)"

: >"$ND/tls12.log"
begin "nginx TLS 1.2, h2 -n 40 -c 2 --tls-resume --tls-max 1.2: one full handshake per slot, nothing to resume on kept connections"
shb -n 40 -c 2 --http2 -p 4 --tls-resume --tls-max 1.2 -j "$TLS12"
if json_run_ok; then
    all_ok 40
    jx '.tls.version == "TLSv1.2" and .tls.handshakes == {"full": 2, "resumed": 0, "helloRetries": 0}' '.tls'
fi
finish

# --- merged shards -------------------------------------------------------------------
begin "shb merge adds the counts of two reports"
merge_adds .tls.handshakes '.tls.handshakes.full == 5' "$TICKETS" --tls-resume
finish

begin "shb merge --force of TLS 1.3/http/1.1 and TLS 1.2/h2 reports: tls kept, the fields that differ joined, the counts summed; again through a merge of the merge, and with a plain-http report"
shb -n 20 -c 2 --disable-keepalive --tls-resume -j --histograms "$TICKETS"
cp "$OUT" "$T/tls-a.json"
shb -n 20 -c 2 --http2 --tls-resume --tls-max 1.2 -j --histograms "$TLS12"
cp "$OUT" "$T/tls-b.json"
# A report without a handshake (http://, nothing listening): no tls to add.
pick_port DEAD_PORT
shb -n 4 -c 1 -j --histograms "http://127.0.0.1:$DEAD_PORT/"
cp "$OUT" "$T/tls-plain.json"
shb merge --force -j --histograms "$T/tls-a.json" "$T/tls-b.json"
cp "$OUT" "$T/tls-ab.json"
jx '.tls.version == "TLSv1.3 + TLSv1.2" and .tls.alpn == "http/1.1 + h2" and .tls.fallback == true' '.tls'
# hs FILE...: the files' tls.handshakes added up.
hs() { jq -sc 'map(.tls.handshakes) | {full: (map(.full) | add), resumed: (map(.resumed) | add), helloRetries: (map(.helloRetries) | add)}' "$@"; }
jx ".tls.handshakes == $(hs "$T/tls-a.json" "$T/tls-b.json")" '.tls'
shb merge --force -j "$T/tls-ab.json" "$T/tls-plain.json" "$T/tls-a.json"
jx '.tls.version == "TLSv1.3 + TLSv1.2" and .tls.alpn == "http/1.1 + h2"' '.tls'
jx ".tls.handshakes == $(hs "$T/tls-a.json" "$T/tls-b.json" "$T/tls-a.json")" '.tls'
shb merge --force "$T/tls-a.json" "$T/tls-b.json"
grep -q '^TLS:          TLSv1.3 + TLSv1.2, .*ALPN http/1.1 + h2 (TLS 1.2 fallback in some)$' "$OUT" ||
    want "text TLS line: $(grep '^TLS' "$OUT")"
grep -q "^Handshakes:   $(hs "$T/tls-a.json" "$T/tls-b.json" | jq -r '"\(.full) full, \(.resumed) resumed"')\$" "$OUT" ||
    want "text Handshakes line: $(grep '^Handshakes' "$OUT")"
shb merge --force -j "$T/tls-a.json" "$T/tls-plain.json"
jx ".tls == $(jq -c .tls "$T/tls-a.json")" '.tls'
finish

# --- HTTP/3: ngtcp2's server, connections idling out ------------------------------------
if start_ngtcp2_h3 ngtcp2-resume "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" --timeout=300ms; then
    begin "ngtcp2 h3 (idle timeout 300 ms) -z 3s -q 3 -c 2 --tls-resume: 2 full handshakes, the reconnections resumed"
    shb -z 3s -q 3 -c 2 --http3 --tls-resume -j "https://127.0.0.1:$NGTCP2_H3_PORT/"
    if json_run_ok; then
        jx '.requests.ok >= 8 and .requests.errors == 0' '{requests, errorDetails}'
        jx '.tls.alpn == "h3" and .tls.handshakes.full == 2 and .tls.handshakes.resumed >= 4' '{tls, connectionsOpened}'
        jx '.tls.handshakes.full + .tls.handshakes.resumed == .connectionsOpened' '{tls, connectionsOpened}'
    fi
    finish
    stop_server "$NGTCP2_H3_PID"
else
    skip "HTTP/3 resumption: ngtcp2's server (gtlsserver) did not start"
fi

# --- refusal -------------------------------------------------------------------------------
begin "--tls-resume with no https:// target: one line, exit 2"
err_case "shb: --tls-resume needs an https:// URL (it resumes TLS sessions)" --tls-resume \
    "http://127.0.0.1:$NGINX_PORT/"
finish

exit $((FAILS > 0))
