#!/usr/bin/env bash
# test/e2e/e2e_longrun.sh — what a long run meets, made to happen in seconds,
# against real servers started on 127.0.0.1:
#
#  1. HTTP/2 stream ids running out (RFC 9113 §5.1.1): every connection
#     starts at stream id 2^31-1-2k (SHB_TEST_H2_FIRST_STREAM_ID), so it
#     carries k+1 streams; then it finishes them, sends GOAWAY NO_ERROR and
#     a new connection carries on. nghttpd (its -v frame log shows the
#     GOAWAYs and stream 2^31-1), nginx (its access log numbers the
#     connections), h2o, and Caddy over TLS.
#  2. QUIC key updates every 50 packets (SHB_TEST_QUIC_KEY_UPDATE_AFTER)
#     and 1-RTT packet numbers past 2^32 (SHB_TEST_QUIC_FIRST_PN=2^32-100:
#     the first packet goes at 2^31-2, the most its 4-byte encoding allows,
#     RFC 9000 §17.1, and the numbers jump the rest of the way once acked),
#     against Caddy (quic-go) and Bun (lsquic): many requests, and multi-MB
#     downloads; the test build's "shb-test:" stderr line says how many key
#     updates the server answered and which packet number lengths went out.
#  3. Memory stays flat: peak RSS of a -z 1s and a -z 8s run are the same
#     (HTTP/1.1 and HTTP/2 against nginx, HTTP/3 against Caddy): nothing is
#     allocated per request.
#
# The knobs exist only in the test build (build/asan/shb, -DSHB_TEST_KNOBS):
# with ./shb, 1 and 2 are SKIPs and a check confirms the binary has none of
# them; 3 runs on both.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_longrun.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_longrun.sh
#
# Prints one "PASS name" / "FAIL name: why" / "SKIP name" line per check;
# diagnostics follow a FAIL, indented. Exit status 1 if anything failed.
# Same conventions as test/e2e/e2e_h2.sh and test/e2e/e2e_h3.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-longrun

# all_ok N: exactly N requests, all of them 200 responses, no errors, none in flight.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0 and .requests.connectErrors == 0" '{requests, errorKinds}'
    jx ".statusCodes == {\"200\": $1} and .inFlight == 0" '{statusCodes, inFlight}'
}

e2e_diag_extra() {
    jq -e .quic "$OUT" >/dev/null 2>&1 && jq -c .quic "$OUT" | sed 's/^/  quic: /'
    return 0
}

# --- preconditions ------------------------------------------------------------
e2e_preconditions jq nginx nghttpd h2o timeout openssl
GNU_TIME=/usr/bin/time
if [ ! -x "$GNU_TIME" ]; then
    echo "FAIL $P setup: GNU time ($GNU_TIME) is not installed (run: bash scripts/deps.sh)"
    exit 1
fi
KNOBS=0
[ "$SHB_FLAVOUR" = asan ] && KNOBS=1

DOCS=$T/docs
mkdir -p "$DOCS"
printf 'hello, world!\n' >"$DOCS/index.html"
start_or_die "nginx (test/servers/nginx-longrun.conf.in)" start_nginx test/servers/nginx-longrun.conf.in nginx
NG="http://127.0.0.1:$NGINX_PORT/"
NG_H1="http://127.0.0.1:$NGINX_PORT2/"
NG_LOG=$NGINX_DIR/access.log
start_or_die "nghttpd -v" start_nghttpd nghttpd "$DOCS" -v
NGH="http://127.0.0.1:$NGHTTPD_PORT/"
NGH_LOG=$LIB_TMP/nghttpd/stdout.log
start_or_die "h2o" start_h2o test/servers/h2o.conf.in h2o "$DOCS"
H2O="http://127.0.0.1:$H2O_PORT/"

CADDY_WHY=""
command -v caddy >/dev/null 2>&1 || CADDY_WHY="caddy is not installed (bash scripts/deps.sh)"
BUN_WHY=""
bun_bin >/dev/null || BUN_WHY="no runnable bun in test/node_modules or on PATH (bash scripts/deps.sh installs it from npm)"
if [ -z "$CADDY_WHY$BUN_WHY" ] && ! gen_certs; then
    echo "FAIL $P setup: openssl could not make the test certificates"
    exit 1
fi
if [ -z "$CADDY_WHY" ]; then
    # shellcheck disable=SC2034  # read by start_caddy_h3 (test/e2e/lib.sh)
    CADDY_H3_BIG=8000000
    start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy
    CADDY="https://127.0.0.1:$CADDY_PORT"
fi
if [ -z "$BUN_WHY" ]; then
    start_or_die "bun_h3_server.js" start_bun_h3 bun "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key"
    BUN_URL="https://127.0.0.1:$BUN_H3_PORT"
fi

# --- 0. the knobs are in the test build only ----------------------------------------------
if [ "$KNOBS" = 1 ]; then
    begin "a knob's bad value is a one-line error, exit 2 (SHB_TEST_H2_FIRST_STREAM_ID=2: even)"
    SHB_TEST_H2_FIRST_STREAM_ID=2 shb --http2 -n 1 -j "$NG"
    one_line_exit 2
    case "$ERR_LINE" in *SHB_TEST_H2_FIRST_STREAM_ID*) ;; *) want "the line does not name the knob: $ERR_LINE" ;; esac
    finish
    begin "SHB_TEST_QUIC_FIRST_PN within 2^32 of 2^62 is refused (RFC 9000 §12.3: numbers end at 2^62-1), exit 2"
    SHB_TEST_QUIC_FIRST_PN=$(((1 << 62) - (1 << 31))) shb --http3 -n 1 -j "https://127.0.0.1:1/"
    one_line_exit 2
    finish
else
    begin "the shipping binary has no test knobs: no SHB_TEST_ string, and the knobs change nothing"
    grep -q SHB_TEST_ "$SHB" && want "$SHB contains the string SHB_TEST_"
    SHB_TEST_H2_FIRST_STREAM_ID=2147483647 shb --http2 -n 20 -c 1 -p 4 -j "$NG"
    if json_run_ok HTTP/2; then
        all_ok 20
        jx '.connectionsOpened == 1' '.connectionsOpened'
    fi
    finish
fi

# --- 1. HTTP/2 stream ids running out ----------------------------------------------------
# K: streams after the first; each connection carries K+1 of them.
K=99
FIRST_ID=$((2147483647 - 2 * K))
# exhaust LABEL URL N C P: N requests on C connections, P streams each, with
# FIRST_ID: at least ceil(N / (K+1)) connections, every request ok.
exhaust() {
    local label=$1 url=$2 n=$3 c=$4 p=$5 min
    min=$(((n + K) / (K + 1)))
    begin "$label: stream ids from 2^31-1-2*$K: -n $n -c $c -p $p all ok, >= $min connections"
    SHB_TEST_H2_FIRST_STREAM_ID=$FIRST_ID shb --http2 -n "$n" -c "$c" -p "$p" -j "$url"
    if json_run_ok HTTP/2; then
        all_ok "$n"
        jx ".connectionsOpened >= $min and .connectionsOpened <= $min + $c" '.connectionsOpened'
    fi
    [ "$SHB_MS" -le 20000 ] || want "took ${SHB_MS} ms"
}
if [ "$KNOBS" = 1 ]; then
    : >"$NGH_LOG"
    exhaust nghttpd "$NGH" 2000 2 8
    # nghttpd -v: each connection's last stream is 2^31-1, and each ends
    # with our GOAWAY (last-stream-id 0, NO_ERROR).
    conns=$(jq -r '.connectionsOpened // 0' "$OUT" 2>/dev/null || echo 0)
    goaways=$(grep -a -A1 'recv GOAWAY frame' "$NGH_LOG" | grep -c 'last_stream_id=0, error_code=NO_ERROR(0x00)')
    last_ids=$(grep -a -c 'recv HEADERS frame <length=[0-9]*, flags=0x[0-9a-f]*, stream_id=2147483647>' "$NGH_LOG")
    above=$(grep -a -o 'recv HEADERS frame <[^>]*stream_id=[0-9]*>' "$NGH_LOG" | grep -o 'stream_id=[0-9]*' | sort -u |
        awk -F= -v lo="$FIRST_ID" '$2 < lo || $2 > 2147483647 || $2 % 2 == 0' | wc -l)
    if [ "$goaways" -lt 20 ] || [ "$goaways" -ne "$conns" ]; then
        want "nghttpd saw $goaways GOAWAY(0, NO_ERROR) from shb on $conns connections"
    fi
    [ "$last_ids" -eq "$conns" ] || want "nghttpd saw stream 2^31-1 opened $last_ids times on $conns connections"
    [ "$above" -eq 0 ] || want "nghttpd saw $above stream ids outside [2^31-1-2*$K, 2^31-1]"
    finish

    : >"$NG_LOG"
    exhaust nginx "$NG" 2000 2 8
    # nginx's log: "connection-serial requests-on-it" per request.
    if [ -s "$NG_LOG" ]; then
        read -r lines nconn maxreq < <(awk '{ n++; c[$1] = 1; if ($2 > m) m = $2 } END { print n, length(c), m }' "$NG_LOG")
        [ "$lines" -eq 2000 ] || want "nginx logged $lines requests"
        [ "$nconn" -ge 20 ] || want "nginx saw $nconn connections, expected >= 20"
        [ "$maxreq" -eq $((K + 1)) ] || want "nginx's busiest connection carried $maxreq requests, expected $((K + 1))"
    else
        want "nginx's access log is empty"
    fi
    finish

    exhaust h2o "$H2O" 2000 2 8
    finish

    # Over TLS (ALPN h2): the GOAWAY is sealed into a record before the close.
    if [ -n "$CADDY_WHY" ]; then
        skip "caddy over TLS: $CADDY_WHY"
    else
        exhaust "caddy over TLS" "$CADDY/" 2000 2 8
        finish
    fi

    # One stream per connection: 2^31-1 is the first and the last id. Each
    # new connection waits for the next 100 ms tick, so that the socket's
    # reset cannot overtake the GOAWAY (worker/slot.c, slot_set).
    begin "nghttpd: first stream id 2^31-1: -n 20 -c 1 -p 1, one connection per request"
    : >"$NGH_LOG"
    SHB_TEST_H2_FIRST_STREAM_ID=2147483647 shb --http2 -n 20 -c 1 -p 1 -j "$NGH"
    if json_run_ok HTTP/2; then
        all_ok 20
        jx '.connectionsOpened == 20' '.connectionsOpened'
    fi
    goaways=$(grep -a -A1 'recv GOAWAY frame' "$NGH_LOG" | grep -c 'last_stream_id=0, error_code=NO_ERROR(0x00)')
    [ "$goaways" -eq 20 ] || want "nghttpd saw $goaways GOAWAY(0, NO_ERROR), expected 20"
    finish

    begin "nginx: stream ids from 2^31-1-2*$K in a -z 2s -c 2 -p 8 run: no errors, a connection per $((K + 1)) requests"
    SHB_TEST_H2_FIRST_STREAM_ID=$FIRST_ID shb --http2 -z 2s -c 2 -p 8 -j "$NG"
    if json_run_ok HTTP/2; then
        jx '.requests.total > 1000 and .requests.errors == 0' '{requests, errorKinds}'
        jx '.statusCodes["200"] == .requests.total' '.statusCodes'
        jx "(.requests.total + .inFlight) as \$n | .connectionsOpened >= ((\$n / $((K + 1))) | floor)" '{requests, inFlight, connectionsOpened}'
    fi
    finish
else
    skip "HTTP/2 stream id exhaustion: the knob SHB_TEST_H2_FIRST_STREAM_ID is in the test build only"
fi

# --- 2. QUIC key updates and packet numbers far from 0 -----------------------------------
PN0=$(((1 << 32) - 100)) # reached by jumps from 2^31-2 (see the top)
KU=50
# st NAME: a field of the test build's "shb-test:" stderr line (empty if none).
st() { sed -n "s/.*shb-test:.* $1=\([0-9]*\).*/\1/p" "$ERR" | tail -n 1; }
# quic_long LABEL URL N C P [MIN_BYTES]: the knobs on, every request ok, key
# updates about every KU packets, each answered by the server, packet
# numbers past 2^32, nearly all in truncated (1- or 2-byte) encodings.
quic_long() {
    local label=$1 url=$2 n=$3 c=$4 p=$5 minb=${6:-0} ku ans peer largest l1 l2 l4 sent
    begin "$label: key update every $KU packets, packet numbers past 2^32: -n $n -c $c -p $p all ok"
    SHB_TEST_QUIC_KEY_UPDATE_AFTER=$KU SHB_TEST_QUIC_FIRST_PN=$PN0 shb --http3 -n "$n" -c "$c" -p "$p" -j "$url"
    if json_run_ok HTTP/3; then
        all_ok "$n"
        jx ".bytesReceived >= $minb" '.bytesReceived'
        ku=$(st keyUpdates) ans=$(st keyUpdatesAnswered) peer=$(st keyUpdatesByServer) largest=$(st largestPnSent)
        l1=$(st pnLen1) l2=$(st pnLen2) l4=$(st pnLen4)
        sent=$(jq -r '.quic.packetsSent // 0' "$OUT")
        if [ -z "$ku" ] || [ -z "$largest" ]; then
            want "no shb-test: line on stderr"
        else
            jx ".quic.keyUpdates == $ku" '.quic.keyUpdates'
            # Ours: one per KU packets once the last was answered (a round
            # trip), so at least one per 3*KU; the server answers each in
            # its new phase (the last one of a connection may go unanswered).
            if [ "$ku" -lt 5 ] || [ "$ku" -lt $((sent / (3 * KU))) ]; then
                want "$ku key updates in $sent packets, expected >= max(5, $((sent / (3 * KU))))"
            fi
            [ "$((ans + peer + c))" -ge "$ku" ] ||
                want "the server answered $ans of our $ku key updates (and started $peer)"
            [ "$largest" -gt 4294967296 ] || want "largest packet number sent $largest, not past 2^32"
            # 4 bytes: the first packets, and those right after a jump.
            if [ "$((l1 + l2))" -le "$((sent / 2))" ] || [ "$l4" -gt $((sent / 10)) ]; then
                want "packet number lengths: 1 byte $l1, 2 bytes $l2, 4 bytes $l4 of $sent packets"
            fi
        fi
    fi
    finish
}
if [ "$KNOBS" = 0 ]; then
    skip "QUIC key updates and far packet numbers: the knobs SHB_TEST_QUIC_* are in the test build only"
else
    if [ -n "$CADDY_WHY" ]; then
        skip "caddy: $CADDY_WHY"
    else
        quic_long caddy "$CADDY/" 5000 2 8
        quic_long "caddy 2 x 8 MB download" "$CADDY/big.bin" 2 1 1 16000000
    fi
    if [ -n "$BUN_WHY" ]; then
        skip "bun: $BUN_WHY"
    else
        quic_long bun "$BUN_URL/" 5000 2 8
        quic_long "bun 4 x 4 MB download" "$BUN_URL/bytes/4000000" 4 1 1 16000000
    fi
fi

# --- 3. memory stays flat ----------------------------------------------------------------
# rss_pair LABEL ARGS...: peak RSS (GNU time) of shb -z 1s and -z 8s with
# ARGS; the long run may not have grown by more than 2 % + 512 KiB: pages
# first touched late, the receive buffer ring above all (16 buffers of
# 16 KiB at these -c: 256 KiB, and a 1 s run may have touched little of
# it: 928 KiB after 1 s and 1228 after 8 s seen for h2c -c 4, where the
# same binary's other 1 s runs peaked at 1056-1184), then histogram
# buckets and the timeline's seconds. A leak of a few bytes per request
# still shows: the 8 s runs make hundreds of thousands of requests.
rss_pair() {
    local label=$1 real=$SHB a b
    shift
    begin "$label: peak RSS of -z 8s equals -z 1s ($*)"
    SHB=$GNU_TIME
    shb -f '%M' -o "$T/rss1" "$real" -z 1s -j "$@"
    json_run_ok && jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
    a=$(tail -n 1 "$T/rss1" 2>/dev/null)
    shb -f '%M' -o "$T/rss8" "$real" -z 8s -j "$@"
    json_run_ok && jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
    b=$(tail -n 1 "$T/rss8" 2>/dev/null)
    SHB=$real
    case "$a$b" in
        '' | *[!0-9]*) want "no peak RSS from GNU time (got '$a' and '$b')" ;;
        *) [ "$b" -le $((a + a / 50 + 512)) ] || want "peak RSS grew from $a KiB (1 s) to $b KiB (8 s)" ;;
    esac
    [ -z "$WHY" ] && echo "  ($label: $a KiB after 1 s, $b KiB after 8 s)"
    finish
}
rss_pair "HTTP/1.1 nginx" -c 8 -t 1 "$NG_H1"
rss_pair "HTTP/2 nginx" --http2 -c 4 -p 8 -t 1 "$NG"
if [ -n "$CADDY_WHY" ]; then
    skip "HTTP/3 memory: $CADDY_WHY"
else
    rss_pair "HTTP/3 caddy" --http3 -c 2 -p 8 -t 1 "$CADDY/"
fi

echo "$P: $FAILS failed"
[ "$FAILS" -eq 0 ]
