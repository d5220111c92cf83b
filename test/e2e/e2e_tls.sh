#!/usr/bin/env bash
# test/e2e/e2e_tls.sh — end-to-end checks of https:// (shb's TLS client, HTTP/1.1
# with ALPN http/1.1 and HTTP/2 with ALPN h2): the built binary $SHB against
# real TLS servers that this script starts on 127.0.0.1 with self-signed
# certificates it makes itself (RSA 2048 and ECDSA P-256, and a four-
# certificate chain of over 25 KB): nginx (OpenSSL), Caddy (Go crypto/tls),
# Bun.serve (BoringSSL), node's https and http2 secure servers (OpenSSL;
# test/servers/tls_echo_server.js records every request), gnutls-serv (GnuTLS), and
# openssl s_server, scripted to rotate its keys (KeyUpdate) between responses
# and, with -alpn h2, refusing a client that offers only http/1.1. The TLS
# the user chooses (--tls-max, --ciphers, ...) has a suite of its own:
# test/e2e/e2e_tls_choice.sh.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_tls.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_tls.sh
#
# Prints one "PASS name" / "FAIL name: why" line per check ("SKIP name: why"
# where a server is missing); diagnostics follow a FAIL, indented. Exit status
# 1 if anything failed. Every shb run is under `timeout 60`, so a hang is a
# FAIL, not a stuck CI. Same conventions as test/e2e/e2e.sh and test/e2e/e2e_h2.sh.
# Where a check relies on how a server is configured (a forced cipher suite,
# a group that needs a HelloRetryRequest, TLS 1.2 only, the chain it sends),
# `openssl s_client` first confirms the server really behaves so; otherwise
# a check could pass without exercising anything.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-tls


# --- server logs ---------------------------------------------------------------
# jq definitions over a slurped request log (test/servers/tls_echo_server.js,
# test/servers/bun_server.js): .headers is [name, value, ...].
JQDEFS='def hdr($n): [.headers as $h | range(0; $h | length; 2)
          | select(($h[.] | ascii_downcase) == ($n | ascii_downcase)) | $h[. + 1]];
        def names: [.headers as $h | range(0; $h | length; 2) | $h[.]];
        def body: .bodyBase64 | @base64d;
        def conns: [.[].connId] | unique | length;
        def sessions: [.[].sessionId] | unique | length;'

LOG=/dev/null
log_reset() { lx_flush; : >"$LOG"; }
# lx EXPR [SHOW]: the server log $LOG (slurped) satisfies EXPR. Queued, and
# evaluated (lx_flush) by log_reset and by finish; set LOG only between checks.
LX_E=()
LX_S=()
lx() { LX_E+=("$1"); LX_S+=("${2:-length}"); }
lx_flush() {
    jq_batch "$LOG" -s "$JQDEFS" LX_E LX_S "server log: "
    LX_E=()
    LX_S=()
}
e2e_flush_all() { jx_flush; lx_flush; }

# shellcheck source=test/e2e/tls_lib.sh
. "$(dirname "$0")/tls_lib.sh"

# --- preconditions ------------------------------------------------------------
e2e_preconditions jq node nginx openssl caddy gnutls-serv timeout sha256sum

if ! gen_certs; then
    echo "FAIL $P setup: openssl could not make the test certificates"
    exit 1
fi
C=$LIB_CERTS

start_or_die "nginx (test/servers/nginx-tls.conf.in)" start_nginx_tls nginx
NG_EC="https://127.0.0.1:$NGINX_PORT/"
NG_RSA="https://127.0.0.1:$NGINX_PORT2/"
NG_H1ONLY="https://127.0.0.1:$NGINX_PORT_H1ONLY/"
NG_KA5="https://127.0.0.1:$NGINX_PORT_KA5/"
NG_CHAIN="https://127.0.0.1:$NGINX_PORT_CHAIN/"

start_or_die "caddy (test/servers/Caddyfile.in)" start_caddy test/servers/Caddyfile.in caddy
CADDY_RSA="https://127.0.0.1:$CADDY_PORT/"
CADDY_EC="https://127.0.0.1:$CADDY_PORT2/"

# node https (h1) and http2 secure (h2) echo servers, one per certificate.
start_or_die "tls_echo_server.js h1 rsa" start_tls_echo node-h1-rsa h1 "$C/rsa.crt" "$C/rsa.key"
N1_RSA_PORT=$TLSE_PORT N1_RSA_LOG=$TLSE_LOG
start_or_die "tls_echo_server.js h1 ec" start_tls_echo node-h1-ec h1 "$C/ec.crt" "$C/ec.key"
N1_EC_PORT=$TLSE_PORT N1_EC_LOG=$TLSE_LOG
start_or_die "tls_echo_server.js h2 rsa" start_tls_echo node-h2-rsa h2 "$C/rsa.crt" "$C/rsa.key"
N2_RSA_PORT=$TLSE_PORT N2_RSA_LOG=$TLSE_LOG
start_or_die "tls_echo_server.js h2 ec" start_tls_echo node-h2-ec h2 "$C/ec.crt" "$C/ec.key"
N2_EC_PORT=$TLSE_PORT N2_EC_LOG=$TLSE_LOG

start_or_die "gnutls-serv rsa" start_gnutls gnutls-rsa "$C/rsa.crt" "$C/rsa.key"
GNUTLS_RSA="https://127.0.0.1:$GNUTLS_PORT/"
GNUTLS_RSA_PORT=$GNUTLS_PORT
start_or_die "gnutls-serv ec" start_gnutls gnutls-ec "$C/ec.crt" "$C/ec.key"
GNUTLS_EC="https://127.0.0.1:$GNUTLS_PORT/"

# Bun comes from npm (scripts/deps.sh: npm ci --prefix test).
BUN_WHY=""
if ! bun_bin >/dev/null; then
    BUN_WHY="no runnable bun in test/node_modules or on PATH (bash scripts/deps.sh installs it from npm)"
else
    start_or_die "bun_server.js rsa" start_bun bun-rsa "$C/rsa.crt" "$C/rsa.key"
    B_RSA_PORT=$BUN_PORT B_RSA_LOG=$BUN_LOG
    start_or_die "bun_server.js ec" start_bun bun-ec "$C/ec.crt" "$C/ec.key"
    B_EC_PORT=$BUN_PORT B_EC_LOG=$BUN_LOG
fi

# A server that insists on a client certificate: it ends each connection
# with a certificate_required alert, which the report must name.
start_or_die "gnutls-serv --require-client-cert" start_gnutls gnutls-certreq "$C/ec.crt" "$C/ec.key" --require-client-cert
GNUTLS_CERTREQ="https://127.0.0.1:$GNUTLS_PORT/"

start_or_die "silent_server.js" start_silent silent
SILENT="https://127.0.0.1:$SILENT_PORT/"

# shb without TLS would turn every check below into the same failure.
LAST_CMD="$SHB -n 1 -c 1 -j $NG_EC"
timeout -k 5 "$SHB_TIMEOUT" "$SHB" -n 1 -c 1 -j "$NG_EC" </dev/null >"$OUT" 2>"$ERR"
SHB_RC=$?
schema_collect "$OUT"
if [ "$SHB_RC" -eq 2 ] && grep -qi 'not supported' "$ERR"; then
    echo "FAIL $P setup: $SHB does not support https:// yet: $(head -n 1 "$ERR")"
    exit 1
fi

# --- 1. exact totals against every server --------------------------------------------
# exact_h1 LABEL URL [LOG]: HTTP/1.1 splits (n c t; t "-" is shb's default).
# With LOG (a request log), the server saw each request once, on as many
# TLS connections as the report says, over TLS 1.3 (node) with ALPN http/1.1.
exact_h1() {
    local label=$1 url=$2 log=${3:-} spec n c t targs tname cn
    for spec in "200 8 1" "101 3 2"; do
        read -r n c t <<<"$spec"
        targs=()
        tname=""
        if [ "$t" != "-" ]; then
            targs=(-t "$t")
            tname=" -t $t"
        fi
        begin "$label h1 exact totals -n $n -c $c$tname"
        if [ -n "$log" ]; then
            LOG=$log
            log_reset
        fi
        shb -n "$n" -c "$c" "${targs[@]}" -j "$url"
        if json_run_ok HTTP/1.1; then
            all_ok "$n"
            jx ".url == \"$url\"" '.url'
            jx '.bytesReceived > 0 and .bytesSent > 0' '[.bytesReceived, .bytesSent]'
            jx ".connections == $c or ($n < $c and .connections == $n)" '.connections'
            if [ "$t" != "-" ]; then
                jx ".threads == $t" '.threads'
            else
                jx ".threads >= 1 and .threads <= $c" '.threads'
            fi
            latency_sane
        fi
        if [ -n "$log" ]; then
            lx "length == $n" 'length'
            lx 'all(.method == "GET" and .url == "/")' 'map({method, url}) | unique'
            cn=$(jq -r '.connections // empty' "$OUT" 2>/dev/null || true)
            [ -n "$cn" ] && lx "conns == $cn" 'conns'
            lx 'all(.tls == null or (.tls.version == "TLSv1.3" and .tls.alpn == "http/1.1"))' 'map(.tls) | unique'
        fi
        finish
    done
}
# exact_h2 LABEL URL [LOG]: HTTP/2 splits (n c p t).
exact_h2() {
    local label=$1 url=$2 log=${3:-} spec n c p t targs tname cn
    for spec in "400 4 8 2" "101 3 5 1"; do
        read -r n c p t <<<"$spec"
        targs=()
        tname=""
        if [ "$t" != "-" ]; then
            targs=(-t "$t")
            tname=" -t $t"
        fi
        begin "$label h2 exact totals -n $n -c $c -p $p$tname"
        if [ -n "$log" ]; then
            LOG=$log
            log_reset
        fi
        shb --http2 -n "$n" -c "$c" -p "$p" "${targs[@]}" -j "$url"
        if json_run_ok HTTP/2; then
            all_ok "$n"
            jx ".url == \"$url\"" '.url'
            jx '.bytesReceived > 0 and .bytesSent > 0' '[.bytesReceived, .bytesSent]'
            if [ "$n" -ge $((c * p)) ]; then
                jx ".connections == $c" '.connections'
            else
                jx '.connections >= 1 and .connections <= .threads' '{connections, threads}'
            fi
            if [ "$t" != "-" ]; then
                jx ".threads == $t" '.threads'
            fi
            latency_sane
        fi
        if [ -n "$log" ]; then
            lx "length == $n" 'length'
            lx 'all(.method == "GET" and .url == "/" and .scheme == "https")' 'map({method, url, scheme}) | unique'
            cn=$(jq -r '.connections // empty' "$OUT" 2>/dev/null || true)
            [ -n "$cn" ] && lx "sessions == $cn" 'sessions'
            lx 'all(.tls.version == "TLSv1.3" and .tls.alpn == "h2")' 'map(.tls) | unique'
        fi
        finish
    done
}

exact_h1 "nginx rsa" "$NG_RSA"
exact_h2 "nginx rsa" "$NG_RSA"
exact_h1 "nginx ecdsa" "$NG_EC"
exact_h2 "nginx ecdsa" "$NG_EC"
exact_h1 "caddy rsa" "$CADDY_RSA"
exact_h2 "caddy rsa" "$CADDY_RSA"
exact_h1 "caddy ecdsa" "$CADDY_EC"
exact_h2 "caddy ecdsa" "$CADDY_EC"
exact_h1 "node https rsa" "https://127.0.0.1:$N1_RSA_PORT/" "$N1_RSA_LOG"
exact_h1 "node https ecdsa" "https://127.0.0.1:$N1_EC_PORT/" "$N1_EC_LOG"
exact_h2 "node http2 rsa" "https://127.0.0.1:$N2_RSA_PORT/" "$N2_RSA_LOG"
exact_h2 "node http2 ecdsa" "https://127.0.0.1:$N2_EC_PORT/" "$N2_EC_LOG"
# gnutls-serv asks for a client certificate (CertificateRequest: shb answers
# with an empty Certificate) and ends every response by closing the
# connection (HTTP/1.0 without Content-Length): one handshake per request.
begin "gnutls-serv sends a CertificateRequest"
server_has "gnutls-serv rsa" "$GNUTLS_RSA_PORT" 'CertificateRequest' -msg
finish
exact_h1 "gnutls-serv rsa" "$GNUTLS_RSA"
exact_h1 "gnutls-serv ecdsa" "$GNUTLS_EC"
if [ -z "$BUN_WHY" ]; then
    exact_h1 "bun rsa" "https://127.0.0.1:$B_RSA_PORT/" "$B_RSA_LOG"
    exact_h1 "bun ecdsa" "https://127.0.0.1:$B_EC_PORT/" "$B_EC_LOG"
else
    skip "bun exact totals: $BUN_WHY"
fi

# --- 2. what the echo servers receive over TLS ---------------------------------------------
printf 'line1\r\nline2\n' >"$T/body.txt"
# A body of several TLS records (16 KiB of plaintext each); @file strips CR
# and LF, so the file has none.
head -c 75000 /dev/urandom | base64 -w 0 >"$T/upload.txt"
UP_LEN=$(wc -c <"$T/upload.txt")
UP_SHA=$(sha256sum "$T/upload.txt" | cut -d' ' -f1)

# echo_checks LABEL PROTO URL LOG: PROTO h1 or h2.
echo_checks() {
    local label=$1 proto=$2 url=$3 log=$4 h2=() pname=HTTP/1.1
    LOG=$log
    if [ "$proto" = h2 ]; then
        h2=(--http2)
        pname=HTTP/2
    fi

    begin "$label echo PUT with headers and body"
    log_reset
    shb "${h2[@]}" -n 3 -c 1 -m PUT -H 'X-Test: a b' -H 'X-Other:  v2 ' -d 'hello world' -j "$url/put"
    json_run_ok "$pname" && all_ok 3
    lx 'length == 3'
    lx 'all(.method == "PUT" and .url == "/put")' 'map({method, url})'
    lx 'all(hdr("x-test") == ["a b"])' 'map(hdr("x-test"))'
    lx 'all(hdr("x-other") == ["v2"])' 'map(hdr("x-other"))'
    lx 'all(body == "hello world" and .bodyLength == 11)' 'map(body)'
    lx 'all(hdr("content-length") | . == [] or . == ["11"])' 'map(hdr("content-length"))'
    lx 'all(hdr("user-agent") == ["shb"])' 'map(hdr("user-agent"))'
    if [ "$proto" = h2 ]; then
        lx 'all(.scheme == "https" and (.authority | test("^127\\.0\\.0\\.1:[0-9]+$")))' 'map({scheme, authority})'
        lx 'all(hdr("host") == [] and hdr("connection") == [])' 'map(names)'
    else
        lx 'all(hdr("host") | length == 1 and (.[0] | test("^127\\.0\\.0\\.1:[0-9]+$")))' 'map(hdr("host"))'
    fi
    finish

    begin "$label echo -d @file strips CR and LF"
    log_reset
    shb "${h2[@]}" -n 2 -c 1 -d "@$T/body.txt" -j "$url/file"
    json_run_ok "$pname" && all_ok 2
    lx 'length == 2 and all(.method == "POST" and body == "line1line2")' 'map({method, b: body})'
    finish

    begin "$label echo -d @file of $UP_LEN bytes (several TLS records) -n 4 -c 2"
    log_reset
    shb "${h2[@]}" -n 4 -c 2 -d "@$T/upload.txt" -j "$url/upload"
    if json_run_ok "$pname"; then
        all_ok 4
        jx ".bytesSent > 4 * $UP_LEN" '.bytesSent'
    fi
    lx 'length == 4' 'length'
    lx "all(.method == \"POST\" and .bodyLength == $UP_LEN and .bodySha256 == \"$UP_SHA\")" 'map({method, bodyLength, bodySha256})'
    finish

    begin "$label 1 MiB responses (many TLS records) -n 6 -c 2"
    log_reset
    shb "${h2[@]}" -n 6 -c 2 -j "$url/bytes/1048576"
    if json_run_ok "$pname"; then
        all_ok 6
        jx '.bytesReceived > 6 * 1048576' '.bytesReceived'
    fi
    lx 'length == 6' 'length'
    finish
}
echo_checks "node https rsa" h1 "https://127.0.0.1:$N1_RSA_PORT" "$N1_RSA_LOG"
echo_checks "node https ecdsa" h1 "https://127.0.0.1:$N1_EC_PORT" "$N1_EC_LOG"
echo_checks "node http2 rsa" h2 "https://127.0.0.1:$N2_RSA_PORT" "$N2_RSA_LOG"
echo_checks "node http2 ecdsa" h2 "https://127.0.0.1:$N2_EC_PORT" "$N2_EC_LOG"
if [ -z "$BUN_WHY" ]; then
    echo_checks "bun rsa" h1 "https://127.0.0.1:$B_RSA_PORT" "$B_RSA_LOG"
    echo_checks "bun ecdsa" h1 "https://127.0.0.1:$B_EC_PORT" "$B_EC_LOG"
else
    skip "bun echo: $BUN_WHY"
fi

# SNI: the URL's host name, none for an IP literal (RFC 6066 §3).
for spec in "h1 $N1_EC_PORT $N1_EC_LOG" "h2 $N2_RSA_PORT $N2_RSA_LOG"; do
    read -r proto port log <<<"$spec"
    h2=()
    [ "$proto" = h2 ] && h2=(--http2)
    LOG=$log
    begin "node $proto SNI: localhost for https://localhost, none for 127.0.0.1"
    log_reset
    shb "${h2[@]}" -n 2 -c 1 -j "https://localhost:$port/sni"
    json_run_ok && all_ok 2
    lx 'length == 2 and all(.tls.servername == "localhost")' 'map(.tls.servername)'
    log_reset
    shb "${h2[@]}" -n 2 -c 1 -j "https://127.0.0.1:$port/nosni"
    json_run_ok && all_ok 2
    lx 'length == 2 and all(.tls.servername == false or .tls.servername == null)' 'map(.tls.servername)'
    finish
done

# --- 3. a certificate chain that spans several records ----------------------------------
begin "nginx sends the large chain ($LIB_CHAIN_CERTS certificates, $LIB_CHAIN_BYTES bytes)"
[ "$LIB_CHAIN_BYTES" -gt 16384 ] || want "the chain is only $LIB_CHAIN_BYTES bytes"
server_has "chain" "$NGINX_PORT_CHAIN" 'Cipher is' -showcerts
got=$(grep -c 'BEGIN CERTIFICATE' "$T/sclient" 2>/dev/null || echo 0)
[ "$got" -eq "$LIB_CHAIN_CERTS" ] || want "s_client saw $got certificates, expected $LIB_CHAIN_CERTS"
finish
# phases_tls_ok: a connect and a TLS handshake per connection, a first
# byte per response, no QUIC handshake.
phases_tls_ok() {
    jx '.phases.connect.count == .connectionsOpened and .phases.tlsHandshake.count == .connectionsOpened' '{connectionsOpened, phases}'
    jx '.phases.firstByte.count == .requests.ok and (.phases | has("quicHandshake") | not)' '{requests, phases}'
    jx '.phases.tlsHandshake.min > 0' '.phases.tlsHandshake'
}
begin "nginx large chain h1 -n 200 -c 4"
shb -n 200 -c 4 -j "$NG_CHAIN"
json_run_ok HTTP/1.1 && all_ok 200 && jx ".bytesReceived > 4 * $LIB_CHAIN_BYTES" '.bytesReceived' && phases_tls_ok
finish
begin "nginx large chain h2 -n 200 -c 4 -p 8"
shb --http2 -n 200 -c 4 -p 8 -j "$NG_CHAIN"
json_run_ok HTTP/2 && all_ok 200 && jx ".bytesReceived > 4 * $LIB_CHAIN_BYTES" '.bytesReceived' && phases_tls_ok
finish

# --- 4. every TLS 1.3 cipher suite; HelloRetryRequest ---------------------------------------
SUITES="TLS_AES_128_GCM_SHA256 TLS_AES_256_GCM_SHA384 TLS_CHACHA20_POLY1305_SHA256"
for spec in "AES128 TLS_AES_128_GCM_SHA256 ecdsa" "AES256 TLS_AES_256_GCM_SHA384 rsa" \
    "CHACHA TLS_CHACHA20_POLY1305_SHA256 ecdsa"; do
    read -r key suite cert <<<"$spec"
    pv="NGINX_PORT_$key"
    port=${!pv}
    others=$(tr ' ' '\n' <<<"$SUITES" | grep -vx "$suite" | paste -sd: -)
    begin "nginx forces $suite ($cert): h1 -n 100 -c 4"
    server_has "$suite" "$port" "Cipher is $suite" -ciphersuites "${SUITES// /:}"
    server_refuses "only $suite" "$port" -ciphersuites "$others"
    tls_log_reset "$key"
    shb -n 100 -c 4 -j "https://127.0.0.1:$port/"
    json_run_ok HTTP/1.1 && all_ok 100
    jx ".tls == {version: \"TLSv1.3\", cipher: \"$suite\", group: \"x25519\", alpn: \"http/1.1\", fallback: false}" '.tls'
    tls_as_logged "$key"
    finish
    begin "nginx forces $suite ($cert): h2 -n 100 -c 2 -p 8"
    tls_log_reset "$key"
    shb --http2 -n 100 -c 2 -p 8 -j "https://127.0.0.1:$port/"
    json_run_ok HTTP/2 && all_ok 100
    jx ".tls == {version: \"TLSv1.3\", cipher: \"$suite\", group: \"x25519\", alpn: \"h2\", fallback: false}" '.tls'
    tls_as_logged "$key"
    finish
done

for spec in "P256 prime256v1 P-256 rsa secp256r1" "P384 secp384r1 P-384 ecdsa secp384r1"; do
    read -r key curve group cert iana <<<"$spec"
    pv="NGINX_PORT_$key"
    port=${!pv}
    begin "nginx ssl_ecdh_curve $curve (HelloRetryRequest, $cert): h1 -n 100 -c 4"
    # The server takes no X25519 share: a client that leads with one must
    # be sent a HelloRetryRequest to get this group.
    server_refuses "no X25519" "$port" -groups X25519
    server_has "$curve" "$port" "Server Temp Key: ECDH, $curve" -groups "X25519:$group"
    tls_log_reset "$key"
    shb -n 100 -c 4 -j "https://127.0.0.1:$port/"
    json_run_ok HTTP/1.1 && all_ok 100
    jx ".tls.group == \"$iana\" and .tls.version == \"TLSv1.3\" and .tls.alpn == \"http/1.1\"" '.tls'
    tls_as_logged "$key"
    finish
    begin "nginx ssl_ecdh_curve $curve (HelloRetryRequest, $cert): h2 -n 100 -c 2 -p 8"
    tls_log_reset "$key"
    shb --http2 -n 100 -c 2 -p 8 -j "https://127.0.0.1:$port/"
    json_run_ok HTTP/2 && all_ok 100
    jx ".tls.group == \"$iana\" and .tls.alpn == \"h2\"" '.tls'
    tls_as_logged "$key"
    finish
done

# --- TLS 1.2 only (shb's fallback) -----------------------------------------------------
for spec in "TLS12_RSA rsa" "TLS12_EC ecdsa"; do
    read -r key cert <<<"$spec"
    pv="NGINX_PORT_$key"
    port=${!pv}
    begin "nginx TLS 1.2 only ($cert): h1 -n 100 -c 4"
    server_refuses "no TLS 1.3" "$port" -tls1_3
    server_has "TLS 1.2" "$port" 'New, TLSv1\.2' -tls1_2
    tls_log_reset "$key"
    shb -n 100 -c 4 -j "https://127.0.0.1:$port/"
    json_run_ok HTTP/1.1 && all_ok 100
    # The TLS 1.2 engine's handshakes are timed too (a refused 1.3 attempt is not).
    jx '.phases.tlsHandshake.count >= 4 and .phases.tlsHandshake.count <= .connectionsOpened' '{connectionsOpened, phases}'
    # An ECDHE suite for the certificate's key, through the fallback engine.
    jx ".tls.version == \"TLSv1.2\" and .tls.fallback and .tls.alpn == \"http/1.1\" and
        (.tls.cipher | startswith(\"TLS_ECDHE_$(tr a-z A-Z <<<"$cert")_WITH_\")) and .tls.group != null" '.tls'
    tls_as_logged "$key"
    finish
    begin "nginx TLS 1.2 only ($cert): h2 -n 100 -c 2 -p 8"
    tls_log_reset "$key"
    shb --http2 -n 100 -c 2 -p 8 -j "https://127.0.0.1:$port/"
    json_run_ok HTTP/2 && all_ok 100
    jx '.tls.version == "TLSv1.2" and .tls.fallback and .tls.alpn == "h2"' '.tls'
    tls_as_logged "$key"
    finish
done

begin "nginx TLS 1.2 only (ecdsa): the text report's TLS line names the fallback"
shb -n 10 -c 1 "https://127.0.0.1:$NGINX_PORT_TLS12_EC/"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -qE '^TLS:          TLSv1\.2, TLS_ECDHE_ECDSA_WITH_[A-Z0-9_]+, (x25519|secp256r1|secp384r1), ALPN http/1\.1 \(TLS 1\.2 fallback\)$' "$OUT" ||
    want "no TLS line for the fallback: $(grep -m1 '^TLS' "$OUT")"
finish

# A connection the server ends with close_notify (BearSSL's 1.2 engine
# answers it) is replaced at once, not at the next 100 ms tick: 50
# connections one after another took 3.6-3.9 s when they waited.
begin "nginx TLS 1.2 only (ecdsa) --disable-keepalive -n 50 -c 1 -t 1: under 2 s"
shb --disable-keepalive -n 50 -c 1 -t 1 -j "https://127.0.0.1:$NGINX_PORT_TLS12_EC/"
json_run_ok HTTP/1.1 && all_ok 50
jx '.durationSeconds < 2' '.durationSeconds'
finish

# --- 5. --disable-keepalive: one handshake per request --------------------------------------
for spec in "rsa $N1_RSA_PORT $N1_RSA_LOG" "ecdsa $N1_EC_PORT $N1_EC_LOG"; do
    read -r cert port log <<<"$spec"
    LOG=$log
    begin "node https $cert --disable-keepalive -n 30 -c 3: 30 handshakes"
    log_reset
    shb --disable-keepalive -n 30 -c 3 -j "https://127.0.0.1:$port/nka"
    json_run_ok HTTP/1.1 && all_ok 30
    lx 'length == 30' 'length'
    lx 'conns == 30' 'conns'
    lx 'all(hdr("connection") == ["close"])' 'map(hdr("connection"))'
    finish
done
begin "nginx ecdsa --disable-keepalive -n 100 -c 4"
shb --disable-keepalive -n 100 -c 4 -j "$NG_EC"
json_run_ok HTTP/1.1 && all_ok 100
finish

# --- 6. the server ends connections: keepalive_requests 5 over TLS ------------------------
begin "nginx keepalive_requests 5 (Connection: close) h1 -n 500 -c 4"
shb -n 500 -c 4 -j "$NG_KA5"
json_run_ok HTTP/1.1 && all_ok 500
finish
begin "nginx keepalive_requests 5 (GOAWAY) h2 -n 500 -c 4 -p 4"
shb --http2 -n 500 -c 4 -p 4 -j "$NG_KA5"
json_run_ok HTTP/2 && all_ok 500
finish
for proto in h1 h2; do
    h2=()
    pname=HTTP/1.1
    if [ "$proto" = h2 ]; then
        h2=(--http2 -p 8)
        pname=HTTP/2
    fi
    begin "nginx keepalive_requests 5 $proto -z 2s -c 4"
    shb "${h2[@]}" -z 2s -c 4 -j "$NG_KA5"
    if json_run_ok "$pname"; then
        jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
        jx '.statusCodes["200"] == .requests.total' '.statusCodes'
        jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
    fi
    finish
done
begin "node https /close (Connection: close) -n 40 -c 2: 40 handshakes"
LOG=$N1_RSA_LOG
log_reset
shb -n 40 -c 2 -j "https://127.0.0.1:$N1_RSA_PORT/close"
json_run_ok HTTP/1.1 && all_ok 40
lx 'length == 40 and conns == 40' '{n: length, conns: conns}'
finish

# --- 7. --http2 against a server that does not speak h2 -------------------------------------
h2_refused() { # LABEL URL
    begin "--http2 against $1 (no ALPN h2): exit 1, one line"
    shb --http2 -n 20 -c 2 -p 4 -j "$2"
    one_line_exit 1
    grep -qiE 'HTTP/2|ALPN' <<<"$ERR_LINE" || want "stderr does not mention HTTP/2 or ALPN: $ERR_LINE"
    [ "$SHB_MS" -le 10000 ] || want "took ${SHB_MS} ms"
    finish
}
h2_refused "nginx listen ssl (http/1.1 only)" "$NG_H1ONLY"
h2_refused "node https (http/1.1 only)" "https://127.0.0.1:$N1_EC_PORT/"
h2_refused "gnutls-serv (no ALPN)" "$GNUTLS_EC"
if [ -z "$BUN_WHY" ]; then
    h2_refused "bun (no ALPN)" "https://127.0.0.1:$B_EC_PORT/"
else
    skip "--http2 against bun: $BUN_WHY"
fi
# A server that speaks only h2 and refuses a ClientHello offering only
# http/1.1 with a fatal no_application_protocol alert (RFC 7301 §3.2):
# openssl s_server -alpn h2 does so on every OpenSSL version. (node's
# http2.createSecureServer sends that alert only from Node 19 on; Node 18,
# Debian 12's, completes the handshake without ALPN.)
begin "HTTP/1.1 against openssl s_server -alpn h2 (ALPN h2 only): exit 1, one line"
if start_s_server alpn-h2 "$C/ec.crt" "$C/ec.key" -alpn h2; then
    if sclient "$SSRV_PORT" -alpn http/1.1; then
        want "server precondition: openssl s_client -alpn http/1.1 completed a handshake ($(grep -m1 '^New, ' "$T/sclient"))"
    elif ! grep -q 'alert no application protocol' "$T/sclient"; then
        want "server precondition: s_server -alpn h2 did not refuse ALPN http/1.1 with no_application_protocol: $(grep -m1 -iE 'error|alert' "$T/sclient")"
    fi
    shb -n 20 -c 2 -j "https://127.0.0.1:$SSRV_PORT/"
    one_line_exit 1
    grep -qiE 'HTTP/1\.1|ALPN' <<<"$ERR_LINE" || want "stderr does not mention HTTP/1.1 or ALPN: $ERR_LINE"
    [ "$SHB_MS" -le 10000 ] || want "took ${SHB_MS} ms"
    stop_server "$SSRV_PID"
else
    want "openssl s_server -alpn h2 did not start"
fi
finish

# --- 8. no TLS at all on the https:// port ----------------------------------------------------
begin "https:// to cleartext nginx h1 -n 10 -c 2: 10 tls handshake errors"
shb -n 10 -c 2 -j "https://127.0.0.1:$NGINX_PORT_PLAIN/"
if json_run_ok HTTP/1.1; then
    jx '.requests.total == 10 and .requests.ok == 0 and .requests.errors == 10 and .requests.connectErrors == 10' '.requests'
    jx '.errorKinds == {"tls handshake": 10}' '.errorKinds'
    jx ".errorDetails[\"tls handshake\"].first == \"the server at 127.0.0.1:$NGINX_PORT_PLAIN answered in plain HTTP: is this port TLS? (try http://)\"" '.errorDetails'
    jx '.statusCodes == {}' '.statusCodes'
fi
[ "$SHB_MS" -le 10000 ] || want "took ${SHB_MS} ms"
finish
begin "https:// to cleartext nginx h2c --http2 -n 10 -c 2 -p 4: 10 tls handshake errors"
shb --http2 -n 10 -c 2 -p 4 -j "https://127.0.0.1:$NGINX_PORT_PLAIN_H2/"
if json_run_ok HTTP/2; then
    jx '.requests.total == 10 and .requests.ok == 0 and .requests.errors == 10 and .requests.connectErrors == 10' '.requests'
    jx '.errorKinds == {"tls handshake": 10}' '.errorKinds'
fi
[ "$SHB_MS" -le 10000 ] || want "took ${SHB_MS} ms"
finish
begin "https:// to cleartext nginx: text report with an Errors block whose line says the server answered in plain HTTP, and one Hint: line"
shb -n 4 -c 2 "https://127.0.0.1:$NGINX_PORT_PLAIN/"
no_response_exit
no_sanitizer_report
grep -qE '^Requests: +4 \(0 ok, 4 errors, of which 4 connect\) in ' "$OUT" || want "no 'Requests: 4 (0 ok, 4 errors, of which 4 connect)' line"
grep -qxF "  [tls handshake] 4: the server at 127.0.0.1:$NGINX_PORT_PLAIN answered in plain HTTP: is this port TLS? (try http://)" "$OUT" ||
    want "no '  [tls handshake] 4: the server at 127.0.0.1:$NGINX_PORT_PLAIN answered in plain HTTP: ...' line: $(grep -A2 '^Errors:' "$OUT" | head -c 300)"
[ "$(grep -cxF "Hint:         the server at 127.0.0.1:$NGINX_PORT_PLAIN answered in plain HTTP: is this port TLS? (try http://)" "$OUT")" -eq 1 ] ||
    want "not one Hint: line naming the plain-HTTP port"
finish

# --- 8b. a fatal alert is named in the report ------------------------------------------------
begin "h1 gnutls --require-client-cert -n 3 -c 1: errors, each named by its alert"
shb -n 3 -c 1 -j "$GNUTLS_CERTREQ"
if json_run_ok; then
    jx '.requests.total == 3 and .requests.ok == 0 and .requests.errors == 3' '{requests, errorKinds}'
    jx '.tlsAlerts == {"received certificate_required": 3}' '.tlsAlerts'
fi
finish
begin "h1 gnutls --require-client-cert: text report has a TLS alerts block"
shb -n 2 -c 1 "$GNUTLS_CERTREQ"
no_response_exit
no_sanitizer_report
grep -qE '^TLS alerts:$' "$OUT" || want "no 'TLS alerts:' line"
grep -qE '^  \[received certificate_required\] 2$' "$OUT" || want "no '  [received certificate_required] 2' line"
finish

# --- 8c. a server that rotates its keys (KeyUpdate, RFC 8446 §4.6.3) ----------------------
# openssl s_server, driven through its stdin: it answers each request with a
# scripted response, then sends a KeyUpdate, alternately without and with
# update_requested. After "k" the server writes under its next key, so
# shb's next response only decrypts if shb followed; after "K" shb must also
# answer with a KeyUpdate of its own (update_not_requested) and write its
# next request under its own next key, which s_server must decrypt. -msg
# shows every KeyUpdate each way, in hex.
nlines() { grep -cE "$1" "$2" 2>/dev/null || true; }
# await_lines REGEX FILE N: waits (up to 10 s) until FILE has N lines matching REGEX.
await_lines() {
    local i
    for i in $(seq 1 200); do
        [ "$(nlines "$1" "$2")" -ge "$3" ] && return 0
        sleep 0.05
    done
    return 1
}
# keyupdate_feed N CMD...: has s_server answer N requests, one at a time,
# and after each answer but the last send the next KeyUpdate of CMD...
# (k or K, cycling). Each write waits for s_server to have acted on the one
# before, so that each is a read of its own.
KU_RESPONSE=$'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'
keyupdate_feed() {
    local n=$1 i sent ku
    shift
    local cmds=("$@")
    exec 3>"$SSRV_FIFO"
    for ((i = 1; i <= n; i++)); do
        await_lines '^GET / HTTP/1\.1' "$SSRV_LOG" "$i" || { echo "request $i never came"; return 1; }
        sent=$(nlines '^>>> TLS 1\.2, RecordHeader' "$SSRV_LOG")
        printf '%s' "$KU_RESPONSE" >&3
        await_lines '^>>> TLS 1\.2, RecordHeader' "$SSRV_LOG" $((sent + 1)) || { echo "response $i never went"; return 1; }
        [ "$i" -lt "$n" ] || break
        ku=$(nlines '^>>> .*KeyUpdate$' "$SSRV_LOG")
        printf '%s\n' "${cmds[(i - 1) % ${#cmds[@]}]}" >&3
        await_lines '^>>> .*KeyUpdate$' "$SSRV_LOG" $((ku + 1)) || { echo "KeyUpdate $i never went"; return 1; }
    done
    exec 3>&-
}
# ku_count DIR BYTE: KeyUpdate messages sent (DIR ">>>") or received ("<<<")
# by s_server with that request_update byte (00 or 01).
ku_count() {
    grep -A1 -E "^$1 TLS 1\.3, Handshake \[length 0005\], KeyUpdate$" "$SSRV_LOG" | grep -cE "^ +18 00 00 01 $2\$" || true
}
for suite in TLS_AES_128_GCM_SHA256 TLS_AES_256_GCM_SHA384 TLS_CHACHA20_POLY1305_SHA256; do
    begin "h1 s_server $suite rotating keys after every response -n 6 -c 1: 6 ok, 2 KeyUpdates answered"
    if start_s_server "ku-$suite" "$C/ec.crt" "$C/ec.key" -ciphersuites "$suite"; then
        keyupdate_feed 6 k K >"$T/feed" 2>&1 &
        feed=$!
        shb -n 6 -c 1 -j "https://127.0.0.1:$SSRV_PORT/"
        wait "$feed" || want "s_server script: $(cat "$T/feed")"
        if json_run_ok HTTP/1.1; then
            all_ok 6
            jx '.connections == 1' '.connections'
        fi
        grep -q "^CIPHER is $suite\$" "$SSRV_LOG" || want "server precondition: s_server did not negotiate $suite ($(grep -m1 '^CIPHER' "$SSRV_LOG"))"
        [ "$(ku_count '>>>' 00)" -eq 3 ] || want "s_server sent $(ku_count '>>>' 00) KeyUpdates without update_requested, expected 3"
        [ "$(ku_count '>>>' 01)" -eq 2 ] || want "s_server sent $(ku_count '>>>' 01) KeyUpdates with update_requested, expected 2"
        [ "$(ku_count '<<<' 00)" -eq 2 ] || want "shb answered with $(ku_count '<<<' 00) KeyUpdates (update_not_requested), expected 2"
        [ "$(ku_count '<<<' 01)" -eq 0 ] || want "shb sent $(ku_count '<<<' 01) KeyUpdates with update_requested"
        [ "$(nlines '^GET / HTTP/1\.1' "$SSRV_LOG")" -eq 6 ] || want "s_server decrypted $(nlines '^GET / HTTP/1\.1' "$SSRV_LOG") requests, expected 6"
        kill -TERM "$SSRV_PID" 2>/dev/null || true
    else
        want "openssl s_server did not start"
    fi
    finish
done

# --- 9. --connect-timeout covers the handshake ------------------------------------------------
for proto in h1 h2; do
    h2=()
    [ "$proto" = h2 ] && h2=(--http2)
    LOG=$SILENT_LOG
    begin "$proto silent server --connect-timeout 500ms -n 3 -c 1: 3 connect timeouts"
    log_reset
    shb "${h2[@]}" --connect-timeout 500ms -n 3 -c 1 -j "$SILENT"
    if json_run_ok; then
        jx '.requests.total == 3 and .requests.ok == 0 and .requests.errors == 3 and .requests.connectErrors == 3' '.requests'
        jx '.errorKinds == {"connect timeout": 3}' '.errorKinds'
    fi
    [ "$SHB_MS" -ge 1200 ] || want "took only ${SHB_MS} ms for 3 timeouts of 500 ms"
    [ "$SHB_MS" -le 10000 ] || want "took ${SHB_MS} ms"
    # The TCP connects succeeded and a ClientHello went out on each: it was
    # the handshake that timed out. (The server logs a connection once it
    # is closed, which may be a moment after shb exits.)
    for _ in $(seq 1 40); do
        [ "$(wc -l <"$LOG")" -ge 3 ] && break
        sleep 0.05
    done
    lx 'length == 3 and all(.bytes > 0)' '.'
    finish
done

# --- 10. -z over TLS ----------------------------------------------------------------------------
begin "nginx ecdsa h1 -z 2s -c 4"
shb -z 2s -c 4 -j "$NG_EC"
if json_run_ok HTTP/1.1; then
    jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
    jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes["200"] == .requests.total' '.statusCodes'
    latency_sane
fi
[ "$SHB_MS" -le 5000 ] || want "took ${SHB_MS} ms of wall time"
finish
begin "nginx rsa h2 -z 2s -c 4 -p 8"
shb --http2 -z 2s -c 4 -p 8 -j "$NG_RSA"
if json_run_ok HTTP/2; then
    jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
    jx '.requests.total > 0 and .requests.errors == 0' '{requests, errorKinds}'
    jx '.statusCodes["200"] == .requests.total' '.statusCodes'
    latency_sane
fi
[ "$SHB_MS" -le 5000 ] || want "took ${SHB_MS} ms of wall time"
finish

# --- 11. bytesSent / bytesReceived are what went over the wire ---------------------------------
# The same requests against the same nginx in cleartext and over TLS (every
# nginx response here has the same length; the ports have the same number of
# digits, so the requests do too). With one request in flight per connection
# each request and each response is at least one record of its own: 5 bytes
# of header, 1 of content type, 16 of AEAD tag. Plus, per connection, at
# least a ClientHello (over 100 bytes) one way and the certificate the
# other.
EC_CERT_BYTES=$(openssl x509 -in "$C/ec.crt" -outform DER | wc -c)
wire_bytes() { # LABEL PLAIN_URL TLS_URL SHB_ARGS...
    local label=$1 plain=$2 tls=$3 ps pr
    shift 3
    begin "$label: TLS wire bytes exceed the cleartext run's by the record overhead"
    shb "$@" -n 200 -c 2 -t 1 -j "$plain"
    if json_run_ok; then
        all_ok 200
        jx '.tls == null' '.tls' # cleartext: no TLS to report
        ps=$(jq .bytesSent "$OUT")
        pr=$(jq .bytesReceived "$OUT")
        shb "$@" -n 200 -c 2 -t 1 -j "$tls"
        if json_run_ok; then
            all_ok 200
            jx ".connections == 2" '.connections'
            jx ".bytesSent >= $ps + 200 * 22 + 2 * 100" "{bytesSent, cleartext: $ps}"
            jx ".bytesReceived >= $pr + 200 * 22 + 2 * $EC_CERT_BYTES" "{bytesReceived, cleartext: $pr}"
        fi
    fi
    finish
}
wire_bytes "nginx h1" "http://127.0.0.1:$NGINX_PORT_PLAIN/" "$NG_EC"
wire_bytes "nginx h2" "http://127.0.0.1:$NGINX_PORT_PLAIN_H2/" "$NG_EC" --http2 -p 1

begin "node https: bytesSent exceeds the request bytes the server received"
LOG=$N1_EC_LOG
log_reset
shb -n 50 -c 1 -m PUT -d 'hello world' -j "https://127.0.0.1:$N1_EC_PORT/wire"
if json_run_ok HTTP/1.1; then
    all_ok 50
    plain=$(jq -s "$JQDEFS"' map(
        (.method + " " + .url + " HTTP/1.1\r\n") as $l
        | ([.headers as $h | range(0; $h | length; 2) | $h[.] + ": " + $h[. + 1] + "\r\n"] | add // "") as $hs
        | ($l + $hs + "\r\n" | length) + .bodyLength) | add // -1' "$LOG" 2>/dev/null || echo -1)
    [ "$plain" -gt 0 ] || want "could not compute the plaintext size from the server log"
    jx ".bytesSent >= $plain + 50 * 22" "{bytesSent, plaintext: $plain}"
fi
finish

# --- text report over TLS ---------------------------------------------------------------------
begin "text report --http2 -n 100 -c 2 -p 8 over TLS"
shb --http2 -n 100 -c 2 -p 8 "$NG_EC"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
no_sanitizer_report
F='[0-9]+(\.[0-9]+)?'
while IFS= read -r re; do
    grep -qE "$re" "$OUT" || want "no line matching /$re/"
done <<EOF
^URL: +https://127\.0\.0\.1:$NGINX_PORT/\$
^Protocol: +HTTP/2\$
^TLS:          TLSv1\.3, TLS_(AES_128_GCM_SHA256|AES_256_GCM_SHA384|CHACHA20_POLY1305_SHA256), x25519, ALPN h2\$
^Connections: +2\$
^Requests: +100 \(100 ok, 0 errors, of which 0 connect\) in ${F}s\$
^  \[200\] 100\$
EOF
finish

[ "$FAILS" -eq 0 ]
