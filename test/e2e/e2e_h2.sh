#!/usr/bin/env bash
# test/e2e/e2e_h2.sh — end-to-end checks of --http2 (h2c, prior knowledge): the
# built binary $SHB against real HTTP/2 servers that this script starts on
# 127.0.0.1 — nginx, nghttpd (nghttp2's reference server), h2o, and
# test/servers/h2_echo_server.js (node's http2, which records every request).
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_h2.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_h2.sh
#
# Prints one "PASS name" / "FAIL name: why" line per check; diagnostics
# follow a FAIL, indented. Exit status 1 if anything failed. Every shb run is
# under `timeout 60`, so a hang is a FAIL, not a stuck CI. Same conventions
# as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-h2 HTTP/2

# all_ok N: exactly N requests, all of them 200 responses, no errors.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0" '{requests, errorKinds}'
    jx ".statusCodes == {\"200\": $1}" '.statusCodes'
}

# --- echo log helpers ---------------------------------------------------------
# jq definitions over the slurped log of test/servers/h2_echo_server.js (an array of
# request objects; .headers is the received header block, pseudo-header
# fields included, as [name, value, ...]).
JQDEFS='def hdr($n): [.headers as $h | range(0; $h | length; 2)
          | select(($h[.] | ascii_downcase) == ($n | ascii_downcase)) | $h[. + 1]];
        def names: [.headers as $h | range(0; $h | length; 2) | $h[.]];
        def regular: names | map(select(startswith(":") | not));
        def body: .bodyBase64 | @base64d;
        def sessions: [.[].sessionId] | unique | length;
        def maxopen: map(.open) | max // 0;'

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

# --- preconditions ------------------------------------------------------------
e2e_preconditions jq node nginx nghttpd h2o timeout sha256sum

# What the static servers serve: a 14-byte index and a 5,000,000-byte file.
DOCS=$T/docs
mkdir -p "$DOCS"
printf 'hello, world!\n' >"$DOCS/index.html"
BIG=5000000
head -c "$BIG" /dev/zero | tr '\0' 'z' >"$DOCS/big.bin"

if ! start_nginx test/servers/nginx-h2.conf.in nginx; then
    echo "FAIL $P setup: nginx (test/servers/nginx-h2.conf.in) did not start"
    exit 1
fi
mkdir -p "$NGINX_DIR/files"
cp "$DOCS/big.bin" "$NGINX_DIR/files/big.bin"
NG="http://127.0.0.1:$NGINX_PORT/"
NG_KA5="http://127.0.0.1:$NGINX_PORT2/"

start_or_die "nghttpd" start_nghttpd nghttpd "$DOCS"
NGH="http://127.0.0.1:$NGHTTPD_PORT"
start_or_die "nghttpd --trailer" start_nghttpd nghttpd-trailer "$DOCS" --trailer 'x-trailer: yes'
NGH_TRAILER="http://127.0.0.1:$NGHTTPD_PORT"
start_or_die "nghttpd -m 2" start_nghttpd nghttpd-m2 "$DOCS" -m 2
NGH_M2="http://127.0.0.1:$NGHTTPD_PORT"
NGHTTPD_M2_PORT=$NGHTTPD_PORT
# Every HEADERS and DATA frame PADDED with up to 255 bytes.
start_or_die "nghttpd -b 255" start_nghttpd nghttpd-pad "$DOCS" -b 255
NGH_PAD="http://127.0.0.1:$NGHTTPD_PORT"
# A 1023-byte stream window and a 4095-byte connection window for what it
# receives; POST/PUT bodies come back as the response.
start_or_die "nghttpd -w 10 -W 12 --echo-upload" start_nghttpd nghttpd-upload "$DOCS" -w 10 -W 12 --echo-upload
NGH_UP="http://127.0.0.1:$NGHTTPD_PORT"
# Debian 12's h2o 2.2.5 predates h2o's handling of a peer's
# SETTINGS_HEADER_TABLE_SIZE (h2o PR #2916, 2021): it keeps indexing response
# fields into a 4,096-byte dynamic table whatever the client advertises.
start_or_die "h2o" start_h2o test/servers/h2o.conf.in h2o "$DOCS"
H2O="http://127.0.0.1:$H2O_PORT"
start_or_die "test/servers/h2_echo_server.js" start_h2_echo h2echo
EP=$H2E_PORT
EC="http://127.0.0.1:$EP"
H2_LOG=$H2E_LOG
start_or_die "test/servers/h2_echo_server.js (max 2 streams)" start_h2_echo h2echo-m2 2
EC_M2="http://127.0.0.1:$H2E_PORT"
M2_LOG=$H2E_LOG
# An HTTP/1.1-only server, for --http2 against a server that does not speak it.
start_or_die "test/servers/echo_server.js" start_echo h1echo
H1="http://127.0.0.1:$ECHO_PORT/"
pick_port DEAD_PORT
DEAD="http://127.0.0.1:$DEAD_PORT/"

# shb without HTTP/2 would turn every check below into the same failure.
LAST_CMD="$SHB --http2 -n 1 -c 1 -j $NG"
timeout -k 5 "$SHB_TIMEOUT" "$SHB" --http2 -n 1 -c 1 -j "$NG" </dev/null >"$OUT" 2>"$ERR"
SHB_RC=$?
schema_collect "$OUT"
if [ "$SHB_RC" -eq 2 ] && grep -qi 'not supported' "$ERR"; then
    echo "FAIL $P setup: $SHB does not support --http2 yet: $(head -n 1 "$ERR")"
    exit 1
fi

# --- 1. exact totals against every server ----------------------------------------
# spec: n c p t; t "-" means shb's default.
exact_totals() { # LABEL URL [echo]
    local label=$1 url=$2 echo=${3:-} spec n c p t targs tname
    for spec in "1000 4 8 1" "1000 4 8 2" "999 3 7 2" "5 4 32 -" "1 1 1 -"; do
        read -r n c p t <<<"$spec"
        targs=()
        tname=""
        if [ "$t" != "-" ]; then
            targs=(-t "$t")
            tname=" -t $t"
        fi
        begin "$label exact totals -n $n -c $c -p $p$tname"
        [ -n "$echo" ] && log_reset
        shb --http2 -n "$n" -c "$c" -p "$p" "${targs[@]}" -j "$url"
        if json_run_ok; then
            all_ok "$n"
            jx '.requests.connectErrors == 0' '.requests'
            jx '.bytesReceived > 0 and .bytesSent > 0' '[.bytesReceived, .bytesSent]'
            jx ".url == \"$url\"" '.url'
            if [ "$t" != "-" ]; then
                jx ".threads == $t" '.threads'
            else
                jx ".threads >= 1 and .threads <= $c" '.threads'
            fi
            # Enough requests to fill every stream of every connection: all
            # -c connections are used; otherwise at most one per thread is
            # needed (ceil(requests / p) per worker).
            if [ "$n" -ge $((c * p)) ]; then
                jx ".connections == $c" '.connections'
            else
                jx '.connections >= 1 and .connections <= .threads' '{connections, threads}'
            fi
            latency_sane
            jx '.durationSeconds > 0 and .requestsPerSec > 0' '[.durationSeconds, .requestsPerSec]'
        fi
        if [ -n "$echo" ]; then
            # The server saw each request exactly once, on the connections
            # the report counts.
            lx "length == $n" 'length'
            lx 'all(.method == "GET" and .url == "/")' 'map({method, url}) | unique'
            if [ -s "$OUT" ] && jq -e .connections "$OUT" >/dev/null 2>&1; then
                lx "sessions == $(jq .connections "$OUT")" 'sessions'
            fi
        fi
        finish
    done
}
exact_totals nginx "$NG"
exact_totals nghttpd "$NGH/"
exact_totals h2o "$H2O/"
LOG=$H2_LOG
exact_totals node "$EC/" echo
exact_totals "nghttpd padded frames" "$NGH_PAD/"

# --- 2. -z ---------------------------------------------------------------------------
duration_run() { # LABEL URL
    begin "$1 -z 2s -c 4 -p 16"
    shb --http2 -z 2s -c 4 -p 16 -j "$2"
    if json_run_ok; then
        jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
        jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
        jx '.statusCodes["200"] == .requests.total' '.statusCodes'
        jx '.requestsPerSec as $r | (.requests.total / .durationSeconds) as $x | ($r - $x) | fabs <= 0.01 * $r + 1' '[.requestsPerSec, .requests.total, .durationSeconds]'
        latency_sane
    fi
    [ "$SHB_MS" -le 5000 ] || want "took ${SHB_MS} ms of wall time"
    finish
}
duration_run nginx "$NG"
duration_run nghttpd "$NGH/"
duration_run h2o "$H2O/"
duration_run node "$EC/"

# Where the time goes: a connect per connection, a first byte (the first
# HEADERS' receive, which the engine hands back with the outcome) per
# response, no handshake over cleartext.
begin "nginx phases --http2 -n 2000 -c 4 -p 8"
shb --http2 -n 2000 -c 4 -p 8 -j "$NG"
json_run_ok && phases_cleartext_ok
finish

# --- 3. text report ----------------------------------------------------------------------
begin "text report --http2 -n 100 -c 2 -p 8"
shb --http2 -n 100 -c 2 -p 8 "$NG"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
no_sanitizer_report
F='[0-9]+(\.[0-9]+)?'
while IFS= read -r re; do
    grep -qE "$re" "$OUT" || want "no line matching /$re/"
done <<EOF
^URL: +http://127\.0\.0\.1:$NGINX_PORT/\$
^Protocol: +HTTP/2\$
^Connections: +2\$
^Requests: +100 \(100 ok, 0 errors, of which 0 connect\) in ${F}s\$
^  \[200\] 100\$
^  99\.99% in ${F} ms\$
EOF
finish

# --- 4. what the node echo server receives -------------------------------------------------
LOG=$H2_LOG
# Header fields that HTTP/2 forbids (RFC 9113 §8.2.2) and Host, which a client
# generating HTTP/2 requests replaces with :authority (§8.3.1).
NO_CONN_HDRS='all(regular | map(ascii_downcase) | map(select(. == "connection" or . == "keep-alive"
    or . == "proxy-connection" or . == "transfer-encoding" or . == "upgrade" or . == "host")) | length == 0)'

begin "warmup: --http2 --warmup 1s -n 300 -c 2 -p 4: 300 measured, the server got 300 + warmup.requests"
log_reset
shb --http2 --warmup 1s -n 300 -c 2 -p 4 -j "$EC/w"
json_run_ok && warmup_n_ok 300 "$LOG"
finish

begin "echo PUT with headers and body"
log_reset
shb --http2 -n 3 -c 1 -m PUT -H 'X-Test: a b' -H 'X-Other:  v2 ' -H 'X-Mixed-Case: Yes' -d 'hello world' -j "$EC/put"
json_run_ok && all_ok 3
lx 'length == 3'
lx 'all(.method == "PUT" and .url == "/put" and .scheme == "http")' 'map({method, url, scheme})'
lx "all(.authority == \"127.0.0.1:$EP\")" 'map(.authority)'
lx 'all(hdr("x-test") == ["a b"])' 'map(hdr("x-test"))'
lx 'all(hdr("x-other") == ["v2"])' 'map(hdr("x-other"))'
lx 'all(hdr("x-mixed-case") == ["Yes"])' 'map(hdr("x-mixed-case"))'
lx 'all(body == "hello world" and .bodyLength == 11)' 'map(body)'
lx 'all(hdr("content-length") | . == [] or . == ["11"])' 'map(hdr("content-length"))'
lx "$NO_CONN_HDRS" 'map(names)'
finish

begin "echo header names arrive lowercased, pseudo-header fields first"
lx 'length == 3' 'length'
lx 'all(names | all(. == ascii_downcase))' 'map(names)'
lx 'all(names | (map(select(startswith(":"))) | length) as $k | .[:$k] | all(startswith(":")))' 'map(names)'
lx 'all(names | map(select(startswith(":"))) | sort == [":authority", ":method", ":path", ":scheme"])' 'map(names)'
lx 'all(names | index("x-test") < index("x-other") and index("x-other") < index("x-mixed-case"))' 'map(names)'
finish

begin "echo default headers as on HTTP/1.1 (user-agent shb, accept */*)"
lx 'length == 3' 'length'
lx 'all(hdr("user-agent") == ["shb"] and hdr("accept") == ["*/*"])' 'map({ua: hdr("user-agent"), accept: hdr("accept")})'
finish

begin "echo -d defaults the method to POST"
log_reset
shb --http2 -n 2 -c 1 -d 'x=1' -j "$EC/post"
json_run_ok && all_ok 2
lx 'length == 2 and all(.method == "POST" and body == "x=1")' 'map({method, b: body})'
finish

# A body far larger than the peer's initial 65,535-byte stream and connection
# windows, 8 of them at once on one connection: only WINDOW_UPDATEs let it
# through. @file strips CR and LF, so the file has none.
head -c 150000 /dev/urandom | base64 -w 0 >"$T/upload.txt"
UP_LEN=$(wc -c <"$T/upload.txt")
UP_SHA=$(sha256sum "$T/upload.txt" | cut -d' ' -f1)
begin "echo -d @file of $UP_LEN bytes, -n 8 -c 1 -p 4, arrives whole"
log_reset
shb --http2 -n 8 -c 1 -p 4 -d "@$T/upload.txt" -j "$EC/upload"
if json_run_ok; then
    all_ok 8
    jx ".bytesSent > 8 * $UP_LEN" '.bytesSent'
fi
lx 'length == 8' 'length'
lx "all(.method == \"POST\" and .bodyLength == $UP_LEN and .bodySha256 == \"$UP_SHA\")" 'map({method, bodyLength, bodySha256})'
lx "all(hdr(\"content-length\") | . == [] or . == [\"$UP_LEN\"])" 'map(hdr("content-length"))'
finish

printf 'line1\r\nline2\n' >"$T/body.txt"
begin "echo -d @file strips CR and LF"
log_reset
shb --http2 -n 2 -c 1 -d "@$T/body.txt" -j "$EC/file"
json_run_ok && all_ok 2
lx 'length == 2 and all(.method == "POST" and body == "line1line2")' 'map({method, b: body})'
finish

begin "echo -d @- reads stdin and strips CR and LF"
log_reset
IN=$T/body.txt
shb --http2 -n 2 -c 1 -d @- -j "$EC/stdin"
IN=/dev/null
json_run_ok && all_ok 2
lx 'length == 2 and all(.method == "POST" and body == "line1line2")' 'map({method, b: body})'
finish

begin "echo path and query arrive verbatim in :path"
log_reset
shb --http2 -n 2 -c 1 -j "$EC/p/a?x=1&y=%20"
json_run_ok && all_ok 2
lx 'length == 2 and all(.url == "/p/a?x=1&y=%20")' 'map(.url)'
finish

begin "echo GET: :authority 127.0.0.1:PORT, no Host, no body"
log_reset
shb --http2 -n 2 -c 1 -j "$EC/"
json_run_ok && all_ok 2
lx "length == 2 and all(.method == \"GET\" and .url == \"/\" and .scheme == \"http\" and .authority == \"127.0.0.1:$EP\")" 'map({method, url, scheme, authority})'
lx 'all(.bodyLength == 0 and hdr("content-length") == [])' 'map({bodyLength, cl: hdr("content-length")})'
lx "$NO_CONN_HDRS" 'map(names)'
finish

begin "echo -H Host becomes :authority"
log_reset
shb --http2 -n 2 -c 1 -H 'Host: example.test' -j "$EC/"
json_run_ok && all_ok 2
lx 'length == 2 and all(.authority == "example.test")' 'map(.authority)'
lx 'all(hdr("host") == [])' 'map(hdr("host"))'
finish

begin "echo -H with an upper-case name arrives lowercased"
log_reset
shb --http2 -n 2 -c 1 -H 'X-UPPER-Name: Value' -H 'ACCEPT: text/plain' -j "$EC/"
json_run_ok && all_ok 2
lx 'length == 2 and all(hdr("x-upper-name") == ["Value"])' 'map(.headers)'
lx 'all(names | index("x-upper-name") != null)' 'map(names)'
lx 'all(hdr("accept") == ["text/plain"])' 'map(hdr("accept"))'
finish

# An upload against windows of 1,023 bytes (stream) and 4,095 bytes
# (connection) that nghttpd opens only as it consumes; it echoes the body.
begin "nghttpd -w 10 -W 12 --echo-upload: -d @file -n 6 -c 1 -p 3"
shb --http2 -n 6 -c 1 -p 3 -d "@$T/upload.txt" -j "$NGH_UP/upload"
if json_run_ok; then
    all_ok 6
    jx ".bytesSent > 6 * $UP_LEN and .bytesReceived > 6 * $UP_LEN" '[.bytesSent, .bytesReceived]'
fi
finish

# --- 5. large response bodies (flow control on what shb receives) ------------------------
big_body() { # LABEL URL
    begin "$1 ${BIG}-byte bodies -n 10 -c 2 -p 4"
    shb --http2 -n 10 -c 2 -p 4 -j "$2"
    if json_run_ok; then
        all_ok 10
        jx ".bytesReceived > 10 * $BIG" '.bytesReceived'
    fi
    finish
}
big_body node "$EC/bytes/$BIG"
big_body nginx "${NG}files/big.bin"
big_body nghttpd "$NGH/big.bin"
big_body "nghttpd padded frames" "$NGH_PAD/big.bin"
big_body h2o "$H2O/big.bin"

# --- 6. a 48 KiB response header block: HEADERS + CONTINUATION ----------------------------
begin "node 49152 bytes of response headers -n 50 -c 2 -p 4"
shb --http2 -n 50 -c 2 -p 4 -j "$EC/headers/49152"
if json_run_ok; then
    all_ok 50
    # Huffman-coded, the block is still well over 16 KiB per response.
    jx '.bytesReceived > 50 * 32768' '.bytesReceived'
fi
finish

# --- 7. trailers ---------------------------------------------------------------------------
begin "node trailers -n 100 -c 2 -p 8"
shb --http2 -n 100 -c 2 -p 8 -j "$EC/trailers"
json_run_ok && all_ok 100
finish

begin "nghttpd --trailer -n 100 -c 2 -p 8"
shb --http2 -n 100 -c 2 -p 8 -j "$NGH_TRAILER/index.html"
json_run_ok && all_ok 100
finish

# --- 8. SETTINGS_MAX_CONCURRENT_STREAMS below -p -------------------------------------------
LOG=$M2_LOG
begin "node max 2 concurrent streams: -n 500 -c 2 -p 16"
log_reset
shb --http2 -n 500 -c 2 -p 16 -j "$EC_M2/delay/2"
json_run_ok && all_ok 500
lx 'length == 500' 'length'
lx 'maxopen <= 2' '{maxopen: maxopen, sessions: sessions}'
finish
begin "node max 2 concurrent streams: shb uses both (2 open at once)"
lx 'maxopen == 2' '{maxopen: maxopen}'
finish
LOG=$H2_LOG

begin "nghttpd -m 2: -n 500 -c 2 -p 16"
shb --http2 -n 500 -c 2 -p 16 -j "$NGH_M2/"
json_run_ok && all_ok 500
finish

# nginx refuses streams beyond its http2_max_concurrent_streams (128 here).
begin "nginx max 128 concurrent streams: -n 2000 -c 1 -p 200"
shb --http2 -n 2000 -c 1 -p 200 -j "$NG"
json_run_ok && all_ok 2000
finish

# --- 9. nginx GOAWAY after every 5th request -------------------------------------------------
begin "nginx keepalive_requests 5 (GOAWAY): -n 1000 -c 4 -p 8"
shb --http2 -n 1000 -c 4 -p 8 -j "$NG_KA5"
json_run_ok && all_ok 1000
finish

begin "nginx keepalive_requests 5 (GOAWAY): -z 2s -c 4 -p 8"
shb --http2 -z 2s -c 4 -p 8 -j "$NG_KA5"
if json_run_ok; then
    jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes["200"] == .requests.total' '.statusCodes'
    jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
fi
finish

# --- 10. interim responses, other statuses, reset streams -----------------------------------
begin "node 103 before the 200 is not the response"
shb --http2 -n 20 -c 2 -p 4 -j "$EC/early"
json_run_ok && all_ok 20
finish

begin "node /status/404 counts 404s as ok responses"
shb --http2 -n 20 -c 2 -p 4 -j "$EC/status/404"
if json_run_ok; then
    jx '.requests.total == 20 and .requests.ok == 20 and .requests.errors == 0' '.requests'
    jx '.statusCodes == {"404": 20}' '.statusCodes'
fi
finish

begin "node /status/204 (no body, END_STREAM on HEADERS)"
shb --http2 -n 20 -c 2 -p 4 -j "$EC/status/204"
if json_run_ok; then
    jx '.requests.total == 20 and .requests.ok == 20 and .requests.errors == 0' '.requests'
    jx '.statusCodes == {"204": 20}' '.statusCodes'
fi
finish

begin "nginx -m HEAD -n 100 -c 2 -p 8"
shb --http2 -n 100 -c 2 -p 8 -m HEAD -j "$NG"
json_run_ok && all_ok 100
finish

begin "node /rst: every request is a stream reset error, none sent twice"
log_reset
shb --http2 -n 20 -c 2 -p 4 -j "$EC/rst"
if json_run_ok; then
    jx '.requests.total == 20 and .requests.ok == 0 and .requests.errors == 20 and .requests.connectErrors == 0' '.requests'
    jx '.errorKinds == {"stream reset": 20}' '.errorKinds'
    jx '.statusCodes == {}' '.statusCodes'
fi
lx 'length == 20' 'length'
finish

# --- 11. connections and streams seen by the server -------------------------------------------
begin "node -n 200 -c 3 -p 4 -t 1 uses 3 connections"
log_reset
shb --http2 -n 200 -c 3 -p 4 -t 1 -j "$EC/conns"
if json_run_ok; then
    all_ok 200
    jx '.connections == 3' '.connections'
fi
lx 'length == 200' 'length'
lx 'sessions == 3' 'sessions'
finish

begin "node -n 5 -c 4 -p 32 -t 1 needs one connection"
log_reset
shb --http2 -n 5 -c 4 -p 32 -t 1 -j "$EC/few"
if json_run_ok; then
    all_ok 5
    jx '.connections == 1' '.connections'
fi
lx 'length == 5' 'length'
lx 'sessions == 1' 'sessions'
finish

# Responses that take 50 ms: -p 8 must keep 8 streams open at once.
begin "node -n 32 -c 1 -p 8 keeps 8 streams open at once"
log_reset
shb --http2 -n 32 -c 1 -p 8 -t 1 -j "$EC/delay/50"
if json_run_ok; then
    all_ok 32
    jx '.durationSeconds >= 0.19' '.durationSeconds'
fi
lx 'length == 32' 'length'
lx 'sessions == 1' 'sessions'
lx 'maxopen == 8' '{maxopen: maxopen}'
finish

# --- 12. failures are counted, not hung on ----------------------------------------------------
begin "refused port --http2 -n 20 -c 2 -p 4 counts 20 connect errors"
if port_listening "$DEAD_PORT"; then
    want "port $DEAD_PORT unexpectedly has a listener"
else
    shb --http2 -n 20 -c 2 -p 4 -j "$DEAD"
    if json_run_ok; then
        jx '.requests.total == 20 and .requests.ok == 0 and .requests.errors == 20 and .requests.connectErrors == 20' '.requests'
        jx '.errorKinds == {"connect": 20}' '.errorKinds'
    fi
    [ "$SHB_MS" -le 30000 ] || want "took ${SHB_MS} ms"
fi
finish

begin "--http2 against an HTTP/1.1-only server: -n 20 -c 2 -p 4 all errors"
shb --http2 -n 20 -c 2 -p 4 -j "$H1"
if json_run_ok; then
    jx '.requests.total == 20 and .requests.ok == 0 and .requests.errors == 20' '{requests, errorKinds}'
    jx '.statusCodes == {}' '.statusCodes'
fi
[ "$SHB_MS" -le 30000 ] || want "took ${SHB_MS} ms"
finish

# HTTP/1.1 to nghttpd, which speaks only HTTP/2 over cleartext (h2c with
# prior knowledge): its first bytes are a SETTINGS frame. Each request fails
# at once as `protocol`, and the report names the mistake.
begin "HTTP/1.1 to an HTTP/2-only (h2c) port (nghttpd): protocol errors whose first message says the server answered with HTTP/2 frames, and a Hint: line suggesting --http2"
H2C_HINT="the server at 127.0.0.1:$NGHTTPD_M2_PORT answered with HTTP/2 frames (a SETTINGS frame): is this an HTTP/2-only (h2c) port? (try --http2)"
shb -n 20 -c 2 -j "$NGH_M2/"
json_run_ok HTTP/1.1 && jx ".errorKinds == {\"protocol\": 20} and .errorDetails.protocol.first == \"$H2C_HINT\"" '{errorKinds, errorDetails}'
shb -n 20 -c 2 "$NGH_M2/"
grep -qxF "  [protocol] 20: $H2C_HINT" "$OUT" || want "no '[protocol] 20: $H2C_HINT' line: $(grep -A2 '^Errors:' "$OUT" | head -c 400)"
[ "$(grep -cxF "Hint:         $H2C_HINT" "$OUT")" -eq 1 ] || want "not one 'Hint:         $H2C_HINT' line"
grep -q 'Latency:      no responses' "$OUT" || want "no 'Latency:      no responses' line"
finish

# --- 13. Ctrl-C -------------------------------------------------------------------------------
begin "Ctrl-C during --http2 -z 30s prints the report"
shb_interrupted 1.5 3000 --http2 -z 30s -c 4 -p 8 -j "$NG"
if [ "$SHB_RC" -ne 137 ] && json_run_ok; then
    jx '.durationSeconds > 1 and .durationSeconds < 10' '.durationSeconds'
    jx '.requests.total > 0 and .requests.ok > 0 and .requests.errors == 0' '{requests, errorKinds}'
fi
finish

# --- 14. misuse: exit 2, one line on stderr, nothing on stdout, no traffic -------------------
misuse() {
    local label=$1
    shift
    begin "misuse $label"
    log_reset
    shb "$@"
    sleep 0.05
    one_line_exit 2
    [ -s "$LOG" ] && want "the echo server received $(wc -l <"$LOG") request(s)"
    finish
}
LOG=$H2_LOG
misuse "--http2 -p 0" --http2 -p 0 "$EC/"
misuse "--http2 -p abc" --http2 -p abc "$EC/"
misuse "--http2 --disable-keepalive" --http2 --disable-keepalive -p 2 "$EC/"

[ "$FAILS" -eq 0 ]
