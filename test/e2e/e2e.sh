#!/usr/bin/env bash
# test/e2e/e2e.sh — end-to-end checks: the built binary $SHB against real servers
# (nginx and test/servers/echo_server.js) that this script starts on 127.0.0.1.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e.sh
#
# Prints one "PASS name" / "FAIL name: why" line per check ("SKIP name: why"
# for checks that do not apply to this flavour); diagnostics follow a FAIL,
# indented. Exit status 1 if anything failed. Every shb run is under
# `timeout 60`, so a hang is a FAIL, not a stuck CI.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e

# --- echo log helpers ---------------------------------------------------------
# jq definitions over the slurped echo log (an array of request objects).
JQDEFS='def hdr($n): [.headers as $h | range(0; $h | length; 2)
          | select(($h[.] | ascii_downcase) == ($n | ascii_downcase)) | $h[. + 1]];
        def body: .bodyBase64 | @base64d;
        def conns: [.[].connId] | unique | length;'

log_reset() { : >"$ECHO_LOG"; }
# lx EXPR [SHOW]: the echo log (slurped) satisfies EXPR.
lx() {
    local got
    if ! jq -e -s "$JQDEFS $1" "$ECHO_LOG" >/dev/null 2>&1; then
        got=$(jq -c -s "$JQDEFS ${2:-length}" "$ECHO_LOG" 2>/dev/null | head -c 600 || true)
        want "server log: expected $1 (got ${got:-nothing})"
    fi
}

# --- preconditions ------------------------------------------------------------
e2e_preconditions jq node nginx timeout

if ! start_nginx test/servers/nginx.conf.in nginx; then
    echo "FAIL $P setup: nginx did not start"
    exit 1
fi
NG="http://127.0.0.1:$NGINX_PORT/"
NG_KA5="http://127.0.0.1:$NGINX_PORT2/"
if ! start_echo echo; then
    echo "FAIL $P setup: test/servers/echo_server.js did not start"
    exit 1
fi
EP=$ECHO_PORT
EC="http://127.0.0.1:$EP"
pick_port DEAD_PORT
DEAD="http://127.0.0.1:$DEAD_PORT/"

# The exact size of one nginx response on a keep-alive connection: every
# response is the same length (fixed-width Date), so bytesReceived must be a
# multiple of it.
NG_RESP_BYTES=$(node -e '
const net = require("net");
const s = net.connect(Number(process.argv[1]), "127.0.0.1", () =>
    s.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
let n = 0, buf = "";
s.on("data", (d) => { n += d.length; buf += d.toString("latin1");
    if (buf.endsWith("hello, world!\n")) { console.log(n); s.destroy(); } });
setTimeout(() => process.exit(1), 5000).unref();' "$NGINX_PORT") || NG_RESP_BYTES=0

# --- 1. exact totals against nginx -------------------------------------------------
for spec in "1000 10 1" "1000 10 2" "999 7 2" "5 50 -" "1 1 -"; do
    read -r n c t <<<"$spec"
    targs=()
    tname=""
    if [ "$t" != "-" ]; then
        targs=(-t "$t")
        tname=" -t $t"
    fi
    begin "nginx exact totals -n $n -c $c$tname"
    shb -n "$n" -c "$c" "${targs[@]}" -j "$NG"
    if json_run_ok; then
        jx ".requests.total == $n and .requests.ok == $n" '.requests'
        jx '.requests.errors == 0 and .requests.connectErrors == 0' '{requests, errorKinds}'
        jx ".statusCodes == {\"200\": $n}" '.statusCodes'
        jx '.bytesReceived > 0 and .bytesSent > 0' '[.bytesReceived, .bytesSent]'
        jx ".bytesSent % $n == 0" '.bytesSent'
        if [ "$NG_RESP_BYTES" -gt 0 ]; then
            jx ".bytesReceived == $n * $NG_RESP_BYTES" '.bytesReceived'
        fi
        jx '.protocol == "HTTP/1.1"' '.protocol'
        jx ".url == \"$NG\"" '.url'
        # With fewer requests than connections, shb may open only n of them.
        jx ".connections == $c or ($n < $c and .connections == $n)" '.connections'
        if [ "$t" != "-" ]; then
            jx ".threads == $t" '.threads'
        else
            jx ".threads >= 1 and .threads <= $c" '.threads'
        fi
        latency_sane
        jx '.durationSeconds > 0 and .requestsPerSec > 0' '[.durationSeconds, .requestsPerSec]'
    fi
    finish
done

# Where the time goes: a connect per connection, a first byte per response,
# neither TLS nor QUIC, and the first byte comes before the whole response.
begin "nginx phases -n 2000 -c 10"
shb -n 2000 -c 10 -j "$NG"
if json_run_ok; then
    phases_cleartext_ok
    jx '(keys_unsorted | .[-2:]) == ["phases", "timeline"]' 'keys_unsorted'
fi
finish

# --- 2. -z ---------------------------------------------------------------------------
begin "nginx -z 2s -c 10"
shb -z 2s -c 10 -j "$NG"
if json_run_ok; then
    jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
    jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes["200"] == .requests.total' '.statusCodes'
    jx '.requestsPerSec as $r | (.requests.total / .durationSeconds) as $x | ($r - $x) | fabs <= 0.01 * $r + 1' '[.requestsPerSec, .requests.total, .durationSeconds]'
    latency_sane
fi
[ "$SHB_MS" -le 5000 ] || want "took ${SHB_MS} ms of wall time"
finish

# --- 2b. -c up to the machine's limit --------------------------------------------------
# Every connection opens and is served, at 10,000 and at the largest -c this
# machine allows two worker threads: each thread's ring may register as many
# sockets as RLIMIT_NOFILE (less shb's 16 spare descriptors), every
# connection needs a local port of its own, and nginx's workers must hold
# them too.
SAVED_NGINX_PORT=$NGINX_PORT
ports_lock || echo "  (the ports lock was not had in 10 minutes: going on without it)"
if start_nginx test/servers/nginx-conns.conf.in nginx-conns; then
    NGC="http://127.0.0.1:$NGINX_PORT/"
    NGC_H2="http://127.0.0.1:$NGINX_PORT2/"
    NOFILE=$(lib_nofile)
    read -r PLO PHI </proc/sys/net/ipv4/ip_local_port_range
    # Reserved ports inside the range are never handed out (a machine with
    # 39000-39999 reserved ended such a run with `no local port` errors).
    PORTS=$(lib_local_ports)
    NGINX_WORKERS=$(nproc)
    MAXC=$((2 * (NOFILE - 16)))
    [ "$MAXC" -le "$PORTS" ] || MAXC=$PORTS
    [ "$MAXC" -le $((NGINX_WORKERS * (NOFILE - 64))) ] || MAXC=$((NGINX_WORKERS * (NOFILE - 64)))
    # Ports that other sockets on the machine hold now are not this run's
    # to take: every open one, and those in TIME-WAIT to this nginx (from
    # the runs before in this loop). A TIME-WAIT to another address does
    # not stand in the way: connect() needs a port only unique per peer.
    TAKEN=$(ss -Htan 2>/dev/null | awk -v lo="$PLO" -v hi="$PHI" -v mine="$NGINX_PORT" -v mine2="$NGINX_PORT2" '
        { n = split($4, a, ":"); p = a[n] + 0
          m = split($5, b, ":"); peer = b[m]
          if (p < lo || p > hi) next
          if ($1 == "TIME-WAIT" && peer != mine && peer != mine2) next
          c++ }
        END { print c + 0 }')
    MAXC=$((MAXC - 100 - TAKEN))
    for spec in "10000 h1" "10000 h2" "$MAXC h1"; do
        read -r c proto <<<"$spec"
        # 6 s, 10 s for the largest: the sanitizer build opens 28,000
        # connections in about 4 on a quiet machine, and the last thousand
        # ports take longest to find (connect() scans the taken ones).
        dur=6s
        [ "$c" -gt 10000 ] && dur=10s
        args=(-z "$dur" -c "$c" -t 2 -j "$NGC")
        [ "$proto" = h2 ] && args=(--http2 -z "$dur" -c "$c" -t 2 -j "$NGC_H2")
        begin "nginx -c $c $proto (limit: ${NOFILE} files, ports $PLO-$PHI: $PORTS not reserved): every connection opens and is served"
        shb "${args[@]}"
        if json_run_ok; then
            jx ".connections == $c and .connectionsOpened == $c" '{connections, connectionsOpened}'
            jx '.requests.errors == 0' '{requests, errorKinds}'
            jx ".requests.ok >= $c" '.requests'
        fi
        [ "$SHB_MS" -le 20000 ] || want "took ${SHB_MS} ms of wall time"
        finish
    done
    # Its 20,000 descriptors and the connections' ports are free again
    # for the suite running beside this one.
    stop_server "$NGINX_PID"
else
    echo "FAIL $P setup: nginx (test/servers/nginx-conns.conf.in) did not start"
    FAILS=$((FAILS + 1))
fi
ports_unlock
NGINX_PORT=$SAVED_NGINX_PORT
begin "-c beyond the file limit: exit 2, one line naming RLIMIT_NOFILE, no traffic"
shb -z 1s -c $((5 * $(lib_nofile))) -t 1 "$NG"
one_line_exit 2
grep -q 'RLIMIT_NOFILE' "$ERR" || want "stderr does not name RLIMIT_NOFILE: $(head -c 300 "$ERR")"
finish
begin "-c beyond the local port range: exit 2, one line naming ip_local_port_range"
read -r PLO PHI </proc/sys/net/ipv4/ip_local_port_range
shb -z 1s -c $((PHI - PLO + 2)) -t 64 "$NG"
one_line_exit 2
grep -q 'ip_local_port_range' "$ERR" || want "stderr does not name ip_local_port_range: $(head -c 300 "$ERR")"
finish

# --- 3. text report --------------------------------------------------------------------
begin "text report -n 100 -c 5"
shb -n 100 -c 5 "$NG"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
no_sanitizer_report
grep -q '^TLS:' "$OUT" && want "a TLS line for http://: $(grep -m1 '^TLS:' "$OUT")"
F='[0-9]+(\.[0-9]+)?'
while IFS= read -r re; do
    grep -qE "$re" "$OUT" || want "no line matching /$re/"
done <<EOF
^URL: +http://127\.0\.0\.1:$NGINX_PORT/\$
^Protocol: +HTTP/1\.1\$
^Threads: +[0-9]+\$
^Connections: +5\$
^Requests: +100 \(100 ok, 0 errors, of which 0 connect\) in ${F}s\$
^Requests/sec: +${F}\$
^Transfer: +recv ${F} MB/s \([0-9]+ bytes\), sent ${F} MB/s \([0-9]+ bytes\)\$
^Status codes:\$
^  \[200\] 100\$
^Latency \(ms\):\$
^  min ${F}  mean ${F}  max ${F}\$
^Latency distribution:\$
^  10% in ${F} ms\$
^  25% in ${F} ms\$
^  50% in ${F} ms\$
^  75% in ${F} ms\$
^  90% in ${F} ms\$
^  95% in ${F} ms\$
^  99% in ${F} ms\$
^  99\.9% in ${F} ms\$
^  99\.99% in ${F} ms\$
^Phases \(ms\): +count +p50 +p90 +p99 +max\$
^  connect +[0-9]+( +${F}){4}\$
^  first byte +100( +${F}){4}\$
EOF
grep -qE '^  (tls|quic) handshake' "$OUT" && want "a TLS or QUIC handshake row over cleartext TCP"
if jq -e . "$OUT" >/dev/null 2>&1; then want "text report is JSON"; fi
finish

# --- 4. what the echo server receives ---------------------------------------------------
begin "echo PUT with headers and body"
log_reset
shb -n 3 -c 1 -m PUT -H 'X-Test: a b' -H 'X-Other:  v2 ' -d 'hello world' -j "$EC/put"
if json_run_ok; then
    jx '.requests.ok == 3 and .requests.errors == 0' '.requests'
fi
lx 'length == 3'
lx 'all(.method == "PUT")' 'map(.method)'
lx 'all(hdr("x-test") == ["a b"])' 'map(hdr("x-test"))'
lx 'all(hdr("x-other") == ["v2"])' 'map(hdr("x-other"))'
lx 'all(body == "hello world")' 'map(body)'
lx 'all(hdr("content-length") == ["11"])' 'map(hdr("content-length"))'
lx 'all(hdr("transfer-encoding") == [])' 'map(.headers)'
lx 'all(.url == "/put")' 'map(.url)'
lx 'all(.httpVersion == "1.1")' 'map(.httpVersion)'
finish
# The bytes shb says it sent are the bytes the server got: request line,
# "Name: value" header lines, blank line, body.
begin "echo bytesSent matches what the server received"
jx ".bytesSent == $(jq -s "$JQDEFS"' map(
        (.method + " " + .url + " HTTP/1.1\r\n") as $l
        | ([.headers as $h | range(0; $h | length; 2) | $h[.] + ": " + $h[. + 1] + "\r\n"] | add // "") as $hs
        | ($l + $hs + "\r\n" | length) + .bodyLength) | add // -1' "$ECHO_LOG" 2>/dev/null || echo -1)" '.bytesSent'
finish

# --warmup: the requests that end during it are sent (the server gets them)
# and kept out of the report; -n counts the measured ones, so the warm-up's
# come on top of it.
begin "warmup -n: --warmup 1s -n 300 -c 2: 300 measured, the server got 300 + warmup.requests"
log_reset
shb --warmup 1s -n 300 -c 2 -j "$EC/w"
json_run_ok && warmup_n_ok 300 "$ECHO_LOG"
# Phases that ended in the warm-up are not counted either.
jx '.phases.firstByte.count == .requests.ok' '{requests, phases}'
# The measured window starts where the warm-up ends: bytesSent holds about
# the measured requests' bytes, well below what it would be if it counted
# the warm-up's too (the requests are all the same size; the comparison
# holds however many requests the warm-up second got through).
jx '.warmup.durationSeconds == 1 and .warmup.bytesReceived > 0 and .warmup.requests >= 10 and
    .bytesSent * .warmup.requests < .warmup.bytesSent * (.requests.total + .warmup.requests / 2)' '{bytesSent, requests, warmup}'
finish

begin "warmup -z: --warmup 1s -z 3s -c 2: ~2 s measured, the server got the warm-up's and the measured requests"
log_reset
shb --warmup 1s -z 3s -c 2 -j "$EC/w"
json_run_ok && jx '.requests.errors == 0 and .requests.total > 0 and .warmup.requests > 0 and .warmup.errors == 0' '{requests, warmup}'
got=$(wc -l <"$ECHO_LOG")
jx '.durationSeconds >= 1.9 and .durationSeconds <= 2.5' '.durationSeconds'
jx "$got >= .requests.total + .warmup.requests and $got <= .requests.total + .warmup.requests + .inFlight" '{requests, warmup, inFlight, server: '"$got"'}'
jx '(.requestsPerSec * .durationSeconds - .requests.total | fabs) < 1' '{requestsPerSec, durationSeconds, requests}'
# A second of warm-up against two measured ones: loosely half as many (a
# check that the split is near 1 s, not a timing test).
jx '.warmup.requests * 10 > .requests.total and .warmup.requests < .requests.total * 2' '{requests, warmup}'
finish

begin "warmup text: --warmup 500ms -n 20 -c 1: a Warm-up: line after Requests/sec"
shb --warmup 500ms -n 20 -c 1 "$EC/w"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -qE '^Requests: +20 \(20 ok, 0 errors, of which 0 connect\) in 0\.[0-9]{3}s$' "$OUT" || want "no Requests: line for 20"
grep -qE '^Warm-up: +0\.500s, not counted: [1-9][0-9]* requests \([1-9][0-9]* ok, 0 errors\), [1-9][0-9]* bytes received, [1-9][0-9]* sent$' "$OUT" ||
    want "no Warm-up: line ($(grep -m1 Warm "$OUT"))"
finish

begin "echo -d defaults the method to POST"
log_reset
shb -n 2 -c 1 -d 'x=1' -j "$EC/post"
json_run_ok && jx '.requests.ok == 2' '.requests'
lx 'length == 2 and all(.method == "POST" and body == "x=1" and hdr("content-length") == ["3"])' 'map({method, b: body, cl: hdr("content-length")})'
finish

printf 'line1\r\nline2\n' >"$T/body.txt"
begin "echo -d @file strips CR and LF"
log_reset
shb -n 2 -c 1 -d "@$T/body.txt" -j "$EC/file"
json_run_ok && jx '.requests.ok == 2' '.requests'
lx 'length == 2 and all(.method == "POST" and body == "line1line2" and hdr("content-length") == ["10"])' 'map({method, b: body, cl: hdr("content-length")})'
finish

begin "echo -d @- reads stdin and strips CR and LF"
log_reset
IN=$T/body.txt
shb -n 2 -c 1 -d @- -j "$EC/stdin"
IN=/dev/null
json_run_ok && jx '.requests.ok == 2' '.requests'
lx 'length == 2 and all(.method == "POST" and body == "line1line2" and hdr("content-length") == ["10"])' 'map({method, b: body, cl: hdr("content-length")})'
finish

begin "echo path and query arrive verbatim"
log_reset
shb -n 2 -c 1 -j "$EC/p/a?x=1&y=%20"
json_run_ok && jx '.requests.ok == 2' '.requests'
lx 'length == 2 and all(.url == "/p/a?x=1&y=%20")' 'map(.url)'
finish

begin "echo GET: one Host header 127.0.0.1:PORT, no body"
log_reset
shb -n 2 -c 1 -j "$EC/"
json_run_ok && jx '.requests.ok == 2' '.requests'
lx "length == 2 and all(.method == \"GET\" and .url == \"/\" and hdr(\"host\") == [\"127.0.0.1:$EP\"])" 'map({method, url, host: hdr("host")})'
lx 'all(.bodyLength == 0 and hdr("content-length") == [] and hdr("transfer-encoding") == [])' 'map(.headers)'
finish

begin "echo -H Host overrides the Host header"
log_reset
shb -n 2 -c 1 -H 'Host: example.test' -j "$EC/"
json_run_ok && jx '.requests.ok == 2' '.requests'
lx 'length == 2 and all(hdr("host") == ["example.test"])' 'map(.headers)'
finish

# --- 5. connections seen by the server ------------------------------------------------
begin "echo keep-alive -n 100 -c 5 -t 1 uses 5 connections"
log_reset
shb -n 100 -c 5 -t 1 -j "$EC/ka"
json_run_ok && jx '.requests.ok == 100 and .requests.errors == 0' '.requests'
lx 'length == 100' 'length'
lx 'conns == 5' 'conns'
lx 'all(hdr("connection") | map(ascii_downcase) | index("close") | not)' 'map(hdr("connection"))'
finish

begin "SI suffixes: -n 1.2k -c 5 sends exactly 1200 requests, the echo server saw 1200"
log_reset
shb -n 1.2k -c 5 -t 1 -j "$EC/si"
json_run_ok && jx '.requests.total == 1200 and .requests.ok == 1200' '.requests'
lx 'length == 1200' 'length'
finish

begin "echo --disable-keepalive -n 50 -c 5 uses 50 connections"
log_reset
shb --disable-keepalive -n 50 -c 5 -j "$EC/nka"
json_run_ok && jx '.requests.total == 50 and .requests.ok == 50 and .requests.errors == 0' '{requests, errorKinds}'
lx 'length == 50' 'length'
lx 'conns == 50' 'conns'
lx 'all(hdr("connection") == ["close"])' 'map(hdr("connection"))'
finish

# --- 6. nginx ends every connection after 5 requests -----------------------------------
begin "nginx keepalive_requests 5: -n 1000 -c 10"
shb -n 1000 -c 10 -j "$NG_KA5"
if json_run_ok; then
    jx '.requests.total == 1000 and .requests.ok == 1000 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes == {"200": 1000}' '.statusCodes'
fi
finish

begin "nginx keepalive_requests 5: -z 2s -c 10"
shb -z 2s -c 10 -j "$NG_KA5"
if json_run_ok; then
    jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
fi
finish

# --- 7. the server closes after every response ------------------------------------------
begin "echo /close (Connection: close from the server) -n 50 -c 2"
log_reset
shb -n 50 -c 2 -j "$EC/close"
json_run_ok && jx '.requests.total == 50 and .requests.ok == 50 and .requests.errors == 0' '{requests, errorKinds}'
lx 'length == 50' 'length'
lx 'conns == 50' 'conns'
finish

# --- 8. nothing listens ---------------------------------------------------------------
begin "refused port -n 20 -c 2 counts 20 connect errors"
if port_listening "$DEAD_PORT"; then
    want "port $DEAD_PORT unexpectedly has a listener"
else
    shb -n 20 -c 2 -j "$DEAD"
    if json_run_ok; then
        jx '.requests.total == 20 and .requests.ok == 0 and .requests.errors == 20 and .requests.connectErrors == 20' '.requests'
        jx '.errorKinds == {"connect": 20}' '.errorKinds'
        jx '.errorDetails == {"connect": {"count": 20, "first": "Connection refused"}}' '.errorDetails'
        jx '.latencySeconds == null' '.latencySeconds'
        jx '.statusCodes == {}' '.statusCodes'
    fi
    [ "$SHB_MS" -le 30000 ] || want "took ${SHB_MS} ms"
fi
finish

# The text report says why, and shows no latency table of zeros.
begin "refused port, text report: '[connect] 20: Connection refused', 'no responses' for the latency"
shb -n 20 -c 2 "$DEAD"
no_response_exit
no_sanitizer_report
grep -qx '  \[connect\] 20: Connection refused' "$OUT" || want "no '[connect] 20: Connection refused' line: $(grep -A3 '^Errors:' "$OUT" | head -c 300)"
grep -qx 'Latency:      no responses' "$OUT" || want "no 'Latency:      no responses' line"
grep -qE 'Latency \(ms\)|% in |min 0\.000' "$OUT" && want "a latency table for a run with no responses"
grep -q '^Hint:' "$OUT" && want "a Hint: line for a plain refusal"
finish

# --- 8b. a mistake the server's first bytes show (https:// to this port: e2e_tls.sh;
# HTTP/1.1 to an h2c-only port: e2e_h2.sh) ----------------------------------------------
# --http2 (prior knowledge, h2c) to nginx without http2: it answers the
# connection preface with an HTTP/1.1 400.
begin "--http2 to an HTTP/1.1-only port (nginx): protocol errors whose first message says the server answered the preface in HTTP/1.1, and a Hint: line"
H1_HINT="the server at 127.0.0.1:$NGINX_PORT answered the HTTP/2 connection preface in HTTP/1.1: is this an HTTP/1.1-only port? (try without --http2)"
shb --http2 -n 10 -c 2 -j "$NG"
json_run_ok HTTP/2 && jx ".errorKinds == {\"protocol\": 10} and .errorDetails.protocol.first == \"$H1_HINT\"" '{errorKinds, errorDetails}'
shb --http2 -n 10 -c 2 "$NG"
grep -qxF "Hint:         $H1_HINT" "$OUT" || want "no 'Hint:         $H1_HINT' line: $(grep -A3 '^Errors:' "$OUT" | head -c 400)"
finish

# --- 9. other statuses are responses, not errors ---------------------------------------
begin "echo /status/404 -n 10 -c 2 counts 404s as ok responses"
log_reset
shb -n 10 -c 2 -j "$EC/status/404"
if json_run_ok; then
    jx '.requests.total == 10 and .requests.ok == 10 and .requests.errors == 0' '.requests'
    jx '.statusCodes == {"404": 10}' '.statusCodes'
fi
lx 'length == 10'
finish

# Complete responses outside 2xx are counted apart, as wrk does.
begin "nginx 404 and 500: requests.non2xx and a 'Non-2xx responses: N' line; none for 200s"
shb -n 30 -c 3 -j "http://127.0.0.1:$NGINX_PORT/status/500"
json_run_ok && jx '.requests.non2xx == 30 and .statusCodes == {"500": 30} and .requests.errors == 0' '{requests, statusCodes}'
shb -n 20 -c 2 "http://127.0.0.1:$NGINX_PORT/status/404"
grep -qx 'Non-2xx responses: 20' "$OUT" || want "no 'Non-2xx responses: 20' line: $(grep -A3 '^Status codes:' "$OUT" | head -c 300)"
shb -n 20 -c 2 "$NG"
grep -q '^Non-2xx' "$OUT" && want "a Non-2xx line for a run of 200s"
shb -n 20 -c 2 -j "$NG"
json_run_ok && jx '.requests.non2xx == 0' '.requests'
finish

# --- 9b. response framing beyond a small Content-Length body ----------------------------
begin "echo 1 MiB bodies -n 10 -c 2"
shb -n 10 -c 2 -j "$EC/bytes/1048576"
if json_run_ok; then
    jx '.requests.total == 10 and .requests.ok == 10 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes == {"200": 10} and .bytesReceived > 10 * 1048576' '{statusCodes, bytesReceived}'
fi
finish

begin "echo chunked 100000-byte bodies -n 20 -c 2"
shb -n 20 -c 2 -j "$EC/chunked/100000"
if json_run_ok; then
    jx '.requests.total == 20 and .requests.ok == 20 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes == {"200": 20} and .bytesReceived > 20 * 100000' '{statusCodes, bytesReceived}'
fi
finish

begin "echo 103 Early Hints is not the response"
shb -n 10 -c 2 -j "$EC/early"
if json_run_ok; then
    jx '.requests.total == 10 and .requests.ok == 10 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes == {"200": 10}' '.statusCodes'
fi
finish

begin "nginx -m HEAD (Content-Length without a body) -n 100 -c 2"
shb -n 100 -c 2 -m HEAD -j "$NG"
if json_run_ok; then
    jx '.requests.total == 100 and .requests.ok == 100 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes == {"200": 100}' '.statusCodes'
fi
[ "$SHB_MS" -le 10000 ] || want "took ${SHB_MS} ms"
finish

# --- 10. static binary, runs FROM scratch -----------------------------------------------
if [ "$SHB_FLAVOUR" = musl ]; then
    begin "static binary (file says statically linked)"
    LAST_CMD="file -L $SHB"
    SHB_RC=0
    SHB_MS=0
    : >"$OUT"
    : >"$ERR"
    finfo=$(file -L "$SHB" 2>&1)
    case "$finfo" in
        *"statically linked"*) ;;
        *) want "file says: ${finfo#*: }" ;;
    esac
    finish

    begin "runs alone in an empty chroot (-n 20 -c 2)"
    if [ "$(id -u)" != 0 ]; then
        skip "runs alone in an empty chroot: needs root for chroot"
    else
        root=$T/chroot
        mkdir -p "$root"
        cp "$SHB" "$root/shb"
        LAST_CMD="chroot $root /shb -n 20 -c 2 -j $NG"
        t0=$(now_ms)
        timeout -k 5 "$SHB_TIMEOUT" chroot "$root" /shb -n 20 -c 2 -j "$NG" </dev/null >"$OUT" 2>"$ERR"
        SHB_RC=$?
        SHB_MS=$(($(now_ms) - t0))
        if json_run_ok; then
            jx '.requests.ok == 20 and .requests.errors == 0' '.requests'
        fi
        finish
    fi
else
    skip "static binary: only the musl build is static"
    skip "runs alone in an empty chroot: only the musl build is static"
fi

# --- 11. Ctrl-C (e2e_lib.sh: shb_interrupted) ------------------------------------------

begin "Ctrl-C during -z 30s prints the report"
shb_interrupted 1.5 3000 -z 30s -c 4 -j "$NG"
if [ "$SHB_RC" -ne 137 ] && json_run_ok; then
    jx '.durationSeconds > 1 and .durationSeconds < 10' '.durationSeconds'
    jx '.requests.total > 0 and .requests.ok > 0' '.requests'
    echo "  (exit status after SIGINT: $SHB_RC, ${SHB_MS} ms after the signal)"
fi
finish

# Two signals within a second are one request to stop (a terminal's Ctrl-C
# and timeout(1) both deliver more than one); a later one aborts at once
# (test/e2e/e2e_signals.sh).
begin "a second Ctrl-C 0.1 s after the first is the same request: the report, exit 0"
shb_interrupted "1 0.1" 2000 -z 30s -c 4 -j "$NG"
if [ "$SHB_RC" -ne 137 ] && json_run_ok; then
    jx '.interrupted == true and .requests.ok > 0' '{interrupted, requests}'
fi
finish

# --- 12. misuse: exit 2, one line on stderr, nothing on stdout, no traffic -------------
misuse() {
    local label=$1
    shift
    begin "misuse $label"
    log_reset
    shb "$@"
    sleep 0.05
    one_line_exit 2
    [ "${#ERR_LINE}" -ge 8 ] || want "stderr line is too short to name what was wrong"
    [ -s "$ECHO_LOG" ] && want "the echo server received $(wc -l <"$ECHO_LOG") request(s)"
    finish
}
U="$EC/"
misuse "-n with -z" -n 10 -z 1s "$U"
misuse "-n 0" -n 0 "$U"
misuse "-c 0" -c 0 "$U"
misuse "-c abc" -c abc "$U"
misuse "-p 4 on HTTP/1.1" -p 4 "$U"
misuse "--http2 --disable-keepalive" --http2 --disable-keepalive "$U"
misuse "--http3 with http://" --http3 "$U"
misuse "--http2 --http3" --http2 --http3 https://127.0.0.1:1/
misuse "--bogus" --bogus "$U"
misuse "no URL"
misuse "two URLs, the second not a URL" "$U" "no-scheme"
misuse "-z 10x" -z 10x "$U"
misuse "-H without a colon" -H NoColon "$U"
misuse "-d @missing file" -d @/nonexistent/file "$U"
misuse "unresolvable host" http://no-such-host.invalid/
misuse "ftp:// URL" ftp://127.0.0.1/

begin "-h prints the help and exits 0"
shb -h
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -qF 'Usage: shb [OPTIONS] <URL>' "$OUT" || want "no 'Usage: shb [OPTIONS] <URL>' on stdout"
for opt in --connections --requests --duration --method --header --data --connect-timeout \
    --threads --json --http2 --http3 --disable-keepalive --parallel --help; do
    grep -qF -- "$opt" "$OUT" || want "help lacks $opt"
done
[ -s "$ERR" ] && want "wrote to stderr"
finish

begin "--help is the same as -h"
cp "$OUT" "$T/help-h"
shb --help
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
cmp -s "$OUT" "$T/help-h" || want "--help output differs from -h"
finish

[ "$FAILS" -eq 0 ]
