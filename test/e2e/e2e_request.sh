#!/usr/bin/env bash
# test/e2e/e2e_request.sh — end-to-end checks that the request shb sends is
# right, as servers that record what arrives see it: test/servers/echo_server.js
# (HTTP/1.1), test/servers/h2_echo_server.js (HTTP/2, node's nghttp2) and
# test/servers/bun_h3_server.js (HTTP/3 over Bun's lsquic).
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_request.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_request.sh
#
# What is checked: POST, PUT and PATCH without -d carry Content-Length: 0
# (RFC 9110 §8.6) on all three protocols, GET and DELETE none; a user
# Content-Length equal to the body is sent once; a header that contradicts
# or reframes the body (Content-Length, Transfer-Encoding), Upgrade over
# HTTP/1.1, Host twice, CONNECT and a method that is not a token are each a
# one-line error, exit 2, with no request at the server. Same conventions
# as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-request

e2e_preconditions node jq timeout openssl

start_or_die "echo_server.js" start_echo echo
H1="http://127.0.0.1:$ECHO_PORT/"
start_or_die "h2_echo_server.js" start_h2_echo h2echo
H2="http://127.0.0.1:$H2E_PORT/"
BUN_WHY=""
if ! gen_certs; then
    BUN_WHY="openssl could not make the test certificates"
elif ! bun_bin >/dev/null; then
    BUN_WHY="no runnable bun in test/node_modules or on PATH (bash scripts/deps.sh installs it from npm)"
else
    start_or_die "bun_h3_server.js" start_bun_h3 bun "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key"
    H3="https://127.0.0.1:$BUN_H3_PORT/"
fi

# --- the servers' logs: one JSON line a request, .headers [name, value, ...]
JQDEFS='def hdr($n): [.headers as $h | range(0; $h | length; 2)
          | select(($h[.] | ascii_downcase) == $n) | $h[. + 1]];'
LOG=/dev/null
# lx EXPR [SHOW]: the server log $LOG (slurped, settled) satisfies EXPR.
lx() {
    local got
    lines_settled "$LOG" >/dev/null
    if ! jq -e -s "$JQDEFS $1" "$LOG" >/dev/null 2>&1; then
        got=$(jq -c -s "$JQDEFS ${2:-length}" "$LOG" 2>/dev/null | head -c 600 || true)
        want "server log: expected $1 (got ${got:-nothing})"
    fi
}

# length_checks PROTO URL LOGFILE [ARGS...]: POST, PUT and PATCH without
# -d carry one content-length "0" and no body; GET and DELETE none.
length_checks() {
    local proto=$1 url=$2 m
    LOG=$3
    shift 3
    for m in POST PUT PATCH; do
        begin "$proto: $m without -d sends Content-Length: 0 (RFC 9110 §8.6)"
        : >"$LOG"
        shb "$@" -m "$m" -n 3 -c 1 -j "$url"
        json_run_ok "$proto" '.requests.ok == 3' '.requests'
        lx "length == 3 and all(.method == \"$m\" and hdr(\"content-length\") == [\"0\"] and .bodyLength == 0)" \
            '[.[] | {method, cl: hdr("content-length"), bodyLength}]'
        finish
    done
    begin "$proto: GET and DELETE without -d send no Content-Length"
    : >"$LOG"
    shb "$@" -n 2 -c 1 -j "$url"
    json_run_ok "$proto" '.requests.ok == 2' '.requests'
    shb "$@" -m DELETE -n 2 -c 1 -j "$url"
    json_run_ok "$proto" '.requests.ok == 2' '.requests'
    lx 'length == 4 and ([.[].method] == ["GET", "GET", "DELETE", "DELETE"]) and all(hdr("content-length") == [])' \
        '[.[] | {method, cl: hdr("content-length")}]'
    finish
    begin "$proto: -H 'Content-Length: 3' -d abc is sent once, with the body"
    : >"$LOG"
    shb "$@" -H 'Content-Length: 3' -d abc -n 2 -c 1 -j "$url"
    json_run_ok "$proto" '.requests.ok == 2' '.requests'
    lx 'length == 2 and all(.method == "POST" and hdr("content-length") == ["3"] and .bodyLength == 3 and
        (.bodyBase64 | @base64d) == "abc")' '[.[] | {method, cl: hdr("content-length"), bodyLength}]'
    finish
}

length_checks HTTP/1.1 "$H1" "$ECHO_LOG"
length_checks HTTP/2 "$H2" "$H2E_LOG" --http2
if [ -z "$BUN_WHY" ]; then
    length_checks HTTP/3 "$H3" "$BUN_H3_LOG" --http3
else
    skip "HTTP/3: Content-Length: 0 on POST, PUT, PATCH: $BUN_WHY"
fi

# refused WHY URL LOGFILE ARGS...: exit 2, one line on stderr holding WHY,
# nothing on stdout, and no request at the server. -n 1 --timeout 2s: a
# build that sends it anyway ends soon.
refused() {
    local why=$1 url=$2
    LOG=$3
    shift 3
    : >"$LOG"
    shb -n 1 -c 1 --timeout 2s "$@" "$url"
    one_line_exit 2
    case $ERR_LINE in *"$why"*) ;; *) want "the line does not say '$why': $ERR_LINE" ;; esac
    [ "$(lines_settled "$LOG")" = 0 ] || want "the server got $(wc -l <"$LOG") request(s)"
}

begin "-H 'Content-Length: 100' -d abc: exit 2, no traffic"
refused "the body (-d) is 3 bytes" "$H1" "$ECHO_LOG" -H 'Content-Length: 100' -d abc
finish

begin "-m POST -H 'Content-Length: 5' without -d: exit 2, no traffic"
refused "there is no body (no -d)" "$H1" "$ECHO_LOG" -m POST -H 'Content-Length: 5'
finish

begin "-H 'Transfer-Encoding: chunked' -d abc: exit 2, no traffic"
refused "forbid Transfer-Encoding" "$H1" "$ECHO_LOG" -H 'Transfer-Encoding: chunked' -d abc
finish

begin "--http2 -H 'Transfer-Encoding: chunked' -d abc: exit 2, no traffic"
refused "forbid Transfer-Encoding" "$H2" "$H2E_LOG" --http2 -H 'Transfer-Encoding: chunked' -d abc
finish

if [ -z "$BUN_WHY" ]; then
    begin "--http3 -H 'Content-Length: 100' -d abc: exit 2, no traffic"
    refused "the body (-d) is 3 bytes" "$H3" "$BUN_H3_LOG" --http3 -H 'Content-Length: 100' -d abc
    finish
else
    skip "--http3 -H 'Content-Length: 100' -d abc: $BUN_WHY"
fi

begin "HTTP/1.1 -H 'Upgrade: websocket': exit 2, no traffic"
refused "shb does not switch protocols" "$H1" "$ECHO_LOG" -H 'Connection: Upgrade' -H 'Upgrade: websocket'
finish

begin "-H 'Host: a.test' -H 'Host: b.test': exit 2, no traffic"
refused "Host given twice" "$H1" "$ECHO_LOG" -H 'Host: a.test' -H 'Host: b.test'
finish

begin "-m CONNECT: exit 2, no traffic"
refused "CONNECT opens a tunnel" "$H1" "$ECHO_LOG" -m CONNECT
finish

begin "-m 'GE T' (not an RFC 9110 token): exit 2, no traffic"
refused "a method is a token" "$H1" "$ECHO_LOG" -m 'GE T'
finish

[ "$FAILS" -eq 0 ]
