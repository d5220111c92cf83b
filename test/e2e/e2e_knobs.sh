#!/usr/bin/env bash
# test/e2e/e2e_knobs.sh — end-to-end checks of the protocol knobs and
# --data-binary: the built binary $SHB against
#   nginx (test/servers/nginx-knobs.conf.in), h2c and h2 over TLS, a 1 MB
#     file: -w 14 -W 16 (a 16383-byte stream window, the 65,535-byte
#     connection window), -W 14 (below 65,535: credit held back), and
#     --max-frame-size 1M with nginx's http2_chunk_size 1m: exact counts
#     and bytes;
#   nghttpd -v, which prints the SETTINGS and WINDOW_UPDATE it receives:
#     the values shb advertises;
#   Caddy (Go's HPACK encoder indexes response fields when allowed):
#     --header-table-size 4096 against 0, the bytes received per response
#     shrink (the dynamic table was used), all responses ok;
#   Caddy over HTTP/3 with --max-data 64k --max-stream-data 16k and a 1 MB
#     body: flow control replenished, exact counts;
#   the echo servers (h1, h2c): --data-binary @file with CR/LF bytes arrives
#     byte for byte, -d @file with them stripped;
# and the refusals, one line each, exit 2.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_knobs.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_knobs.sh
#
# Same conventions as test/e2e/e2e.sh: one "PASS name" / "FAIL name: why"
# line per check.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-knobs

e2e_preconditions nginx nghttpd node jq
gen_certs || { echo "FAIL $P setup: gen_certs failed"; exit 1; }

start_or_die "nginx (test/servers/nginx-knobs.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-knobs.conf.in" nginx-knobs
ND=$NGINX_DIR
mkdir -p "$ND/files"
MB=1000000
head -c $MB /dev/urandom >"$ND/files/1mb.bin"
H2C="http://127.0.0.1:$NGINX_PORT/files/1mb.bin"
H2S="https://127.0.0.1:$NGINX_PORT_TLS/files/1mb.bin"

# big_ok N: exactly N requests, all 200, each with the whole megabyte.
big_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0 and .statusCodes == {\"200\": $1}" \
        '{requests, statusCodes, errorDetails}'
    jx ".bytesReceived >= $1 * $MB" '.bytesReceived'
}

# --- HTTP/2 windows and frame size against nginx ------------------------------------
for url in "$H2C" "$H2S"; do
    what=h2c
    [ "$url" = "$H2S" ] && what="h2 (TLS)"
    begin "nginx $what, 1 MB body, -w 14 -W 16 (16383-byte stream window, 65,535-byte connection window): -n 20 -c 2 -p 2 all complete"
    shb --http2 -w 14 -W 16 -n 20 -c 2 -p 2 -j "$url"
    json_run_ok HTTP/2 && big_ok 20
    finish
done
begin "nginx h2c, 1 MB body, -W 14 (a connection window below the 65,535 it starts at): -n 10 -c 1 -p 4 all complete"
shb --http2 -W 14 -n 10 -c 1 -p 4 -j "$H2C"
json_run_ok HTTP/2 && big_ok 10
finish
begin "nginx h2c, 1 MB body, --max-frame-size 1M (nginx's http2_chunk_size 1m) -W 24: -n 20 -c 2 all complete"
shb --http2 --max-frame-size 1M -W 24 -n 20 -c 2 -j "$H2C"
json_run_ok HTTP/2 && big_ok 20
finish

# --- what shb advertises, as nghttpd sees it -----------------------------------------
mkdir -p "$T/docroot"
printf 'hello\n' >"$T/docroot/index.html"
start_or_die "nghttpd -v" start_nghttpd nghttpd-knobs "$T/docroot" -v
NGH_LOG="$LIB_TMP/nghttpd-knobs/stdout.log"
# ngh_has PATTERN: nghttpd's log (-v) holds a line matching PATTERN.
ngh_has() {
    lines_settled "$NGH_LOG" >/dev/null
    grep -Eq "$1" "$NGH_LOG" || want "nghttpd's log: no line matching /$1/"
}
begin "nghttpd -v: -w 14 -W 20 --max-frame-size 1M --header-table-size 4k reach it as SETTINGS and one WINDOW_UPDATE"
: >"$NGH_LOG"
shb --http2 -w 14 -W 20 --max-frame-size 1M --header-table-size 4k -n 4 -c 1 -j "http://127.0.0.1:$NGHTTPD_PORT/"
json_run_ok HTTP/2 '.requests.ok == 4' '.requests'
ngh_has 'SETTINGS_HEADER_TABLE_SIZE\(0x01\):4096\]'
ngh_has 'SETTINGS_INITIAL_WINDOW_SIZE\(0x04\):16383\]'
ngh_has 'SETTINGS_MAX_FRAME_SIZE\(0x05\):1048576\]'
ngh_has "recv WINDOW_UPDATE frame <length=4, flags=0x00, stream_id=0>"
ngh_has "window_size_increment=$(((1 << 20) - 1 - 65535))\)"
finish
begin "nghttpd -v: the defaults: INITIAL_WINDOW_SIZE 2^24 - 1, HEADER_TABLE_SIZE 0, the connection raised to 2^30 - 1, no MAX_FRAME_SIZE"
: >"$NGH_LOG"
shb --http2 -n 2 -c 1 -j "http://127.0.0.1:$NGHTTPD_PORT/"
json_run_ok HTTP/2 '.requests.ok == 2' '.requests'
ngh_has 'SETTINGS_HEADER_TABLE_SIZE\(0x01\):0\]'
ngh_has 'SETTINGS_INITIAL_WINDOW_SIZE\(0x04\):16777215\]'
ngh_has "window_size_increment=$(((1 << 30) - 1 - 65535))\)"
grep -q 'SETTINGS_MAX_FRAME_SIZE' "$NGH_LOG" && want "MAX_FRAME_SIZE sent at its default"
finish
stop_server "$NGHTTPD_PID"

# --- Caddy: the HPACK dynamic table, and HTTP/3's windows ----------------------------
if command -v caddy >/dev/null 2>&1; then
    CADDY_H3_BIG=$MB start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy-knobs
    CADDY="https://127.0.0.1:$CADDY_PORT"
    # per_response: bytes received per response of the last report.
    per_response() { jq '.bytesReceived / .requests.ok | floor' "$OUT"; }
    begin "Caddy h2: --header-table-size 4096 lets its encoder index: fewer bytes per response than with 0, all 200"
    shb --http2 --header-table-size 4096 -n 100 -c 1 -j "$CADDY/"
    json_run_ok HTTP/2 '.requests.ok == 100 and .statusCodes == {"200": 100}' '{requests, statusCodes}'
    with=$(per_response)
    shb --http2 -n 100 -c 1 -j "$CADDY/"
    json_run_ok HTTP/2 '.requests.ok == 100' '.requests'
    without=$(per_response)
    [ -n "$with" ] && [ -n "$without" ] && [ $((without - with)) -ge 20 ] ||
        want "bytes per response: $with with a 4096-byte table, $without with none (expected at least 20 fewer)"
    finish
    begin "Caddy h3: --max-data 64k --max-stream-data 16k, 1 MB bodies: -n 20 -c 2 -p 2 all complete (credit replenished)"
    shb --http3 --max-data 64k --max-stream-data 16k -n 20 -c 2 -p 2 -j "$CADDY/big.bin"
    json_run_ok HTTP/3 && big_ok 20
    finish
    stop_server "$CADDY_PID"
else
    skip "Caddy (HPACK dynamic table, HTTP/3 windows): caddy is not installed (bash scripts/deps.sh)"
fi

# --- --data-binary, byte for byte ----------------------------------------------------
start_or_die "echo_server.js" start_echo echo
start_or_die "h2_echo_server.js" start_h2_echo h2echo
printf 'line one\r\nline two\n\r\x00\xff end' >"$T/body.bin"
BIN_B64=$(base64 -w0 "$T/body.bin")
STRIPPED_B64=$(tr -d '\r\n' <"$T/body.bin" | base64 -w0)
# body_is LOG B64 N: the server's LOG has exactly N requests, each a POST
# whose body is B64 (base64).
body_is() {
    lines_settled "$1" >/dev/null
    jq -e -s --arg b "$2" "length == $3 and all(.method == \"POST\" and .bodyBase64 == \$b)" "$1" >/dev/null ||
        want "server log: expected $3 POSTs with body $2, got $(jq -c -s 'map(.bodyBase64) | unique' "$1" | head -c 300)"
}
for proto in h1 h2c; do
    if [ $proto = h1 ]; then url="http://127.0.0.1:$ECHO_PORT/"; log=$ECHO_LOG; flag=""; else
        url="http://127.0.0.1:$H2E_PORT/"; log=$H2E_LOG; flag=--http2; fi
    begin "$proto: --data-binary @file sends its $(wc -c <"$T/body.bin") bytes as they are (CR, LF, NUL, 0xff), POST"
    : >"$log"
    shb $flag --data-binary "@$T/body.bin" -n 6 -c 2 -j "$url"
    json_run_ok && body_is "$log" "$BIN_B64" 6
    finish
    begin "$proto: -d @file still strips CR and LF (as curl's -d)"
    : >"$log"
    shb $flag -d "@$T/body.bin" -n 4 -c 1 -j "$url"
    json_run_ok && body_is "$log" "$STRIPPED_B64" 4
    finish
done
begin "h1: --data-binary @- reads stdin byte for byte"
: >"$ECHO_LOG"
IN=$T/body.bin
shb --data-binary @- -n 3 -c 1 -j "http://127.0.0.1:$ECHO_PORT/"
IN=/dev/null
json_run_ok && body_is "$ECHO_LOG" "$BIN_B64" 3
finish

# --- refusals: one line, exit 2 -----------------------------------------------------
# refused LINE ARGS...: shb ARGS exits 2 with exactly LINE on stderr.
refused() {
    local line=$1
    shift
    begin "refused: shb $*"
    shb "$@"
    [ "$SHB_RC" -eq 2 ] || want "exit status $SHB_RC, expected 2"
    [ "$(cat "$ERR")" = "shb: $line" ] || want "stderr: $(head -c 300 "$ERR")"
    finish
}
refused "-w/--window-bits only applies to HTTP/2 (add --http2)" -w 14 -n 1 "$H2C"
refused "--max-data only applies to HTTP/3 (QUIC's flow control: add --http3; for HTTP/2's windows use -w and -W)" \
    --http2 --max-data 64k -n 1 "$H2C"
refused "invalid value '31' for -W/--connection-window-bits: expected N from 0 to 30 (a window of 2^N - 1 bytes)" \
    --http2 -W 31 -n 1 "$H2C"
refused "invalid value '8k' for --max-frame-size: must be 16384 to 16777215 bytes" --http2 --max-frame-size 8k -n 1 "$H2C"
refused "invalid value '64k' for --header-table-size: must be 0 to 4096 bytes" --http2 --header-table-size 64k -n 1 "$H2C"
refused "-d/--data and --data-binary both give the request body: use one" -d a --data-binary b -n 1 "$H2C"

exit $((FAILS > 0))
