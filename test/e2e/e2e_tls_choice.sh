#!/usr/bin/env bash
# test/e2e/e2e_tls_choice.sh — end-to-end checks of the TLS the user chooses
# (--tls-max, --tlsv1.2/--tlsv1.3, --tls13-ciphers, --ciphers, --curves): the
# built binary $SHB against nginx (OpenSSL; test/servers/nginx-tls.conf.in:
# TLS 1.2 and 1.3 servers, TLS 1.2-only ones, one suite or one group each)
# and lighttpd with each TLS module Debian ships (OpenSSL, GnuTLS, mbedTLS,
# wolfSSL, NSS; test/servers/lighttpd-tls.conf.in; skipped where one is
# missing).
# Each choice must show in the report's tls object (and, for nginx, in what
# nginx logged of each handshake); a server that cannot meet it must fail
# every request with the choice and its alert named. HTTP/3's share of the
# choices is in e2e_h3.sh (ngtcp2).
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_tls_choice.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_tls_choice.sh
#
# Prints one "PASS name" / "FAIL name: why" line per check ("SKIP name: why"
# where a server is missing). Same conventions as test/e2e/e2e_tls.sh, whose
# helpers it shares (test/e2e/tls_lib.sh).
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-tls-choice
# shellcheck source=test/e2e/tls_lib.sh
. "$(dirname "$0")/tls_lib.sh"

e2e_preconditions jq nginx openssl timeout

if ! gen_certs; then
    echo "FAIL $P setup: openssl could not make the test certificates"
    exit 1
fi
C=$LIB_CERTS
start_or_die "nginx (test/servers/nginx-tls.conf.in)" start_nginx_tls nginx

# --- 1. nginx: the TLS the user chooses (--tls-max, --tlsv1.3, --tls13-ciphers, --ciphers, --curves)
# nginx's BOTH_* servers speak TLS 1.2 and 1.3 with nginx's default suites
# and groups (and no server preference: the client's order decides); each
# choice must show in the report's tls object and in what nginx logged.
BOTH_RSA_PORT=$NGINX_PORT_BOTH_RSA BOTH_EC_PORT=$NGINX_PORT_BOTH_EC
# chose LABEL KEY PORT JQ ARG...: -n 40 -c 2 with ARGs against nginx server
# KEY, every request ok, the report's tls matching JQ and nginx's log.
chose() {
    local label=$1 key=$2 port=$3 expr=$4
    shift 4
    begin "nginx $label: $*"
    tls_log_reset "$key"
    shb -n 40 -c 2 -j "$@" "https://127.0.0.1:$port/"
    json_run_ok && all_ok 40
    jx ".tls | ($expr)" '.tls'
    tls_as_logged "$key"
    finish
}
begin "nginx TLS 1.2 and 1.3 servers: preconditions"
server_has "TLS 1.3" "$BOTH_RSA_PORT" 'New, TLSv1\.3' -tls1_3
server_has "TLS 1.2" "$BOTH_RSA_PORT" 'New, TLSv1\.2' -tls1_2
server_has "TLS 1.2, X25519" "$BOTH_RSA_PORT" 'Server Temp Key: X25519' -tls1_2 -groups X25519
server_refuses "TLS 1.2 ECDSA P-256 without P-256" "$BOTH_EC_PORT" -tls1_2 -groups X25519
finish
chose "1.2+1.3 (rsa)" BOTH_RSA "$BOTH_RSA_PORT" '.version == "TLSv1.2" and .fallback and .alpn == "http/1.1"' --tls-max 1.2
chose "1.2+1.3 (ecdsa)" BOTH_EC "$BOTH_EC_PORT" '.version == "TLSv1.2" and .fallback and .alpn == "h2"' \
    --tls-max 1.2 --http2 -p 4
chose "1.2+1.3 (ecdsa)" BOTH_EC "$BOTH_EC_PORT" '.version == "TLSv1.3" and .fallback == false' --tlsv1.3
for suite in TLS_AES_128_GCM_SHA256 TLS_AES_256_GCM_SHA384 TLS_CHACHA20_POLY1305_SHA256; do
    chose "1.2+1.3 (ecdsa)" BOTH_EC "$BOTH_EC_PORT" ".version == \"TLSv1.3\" and .cipher == \"$suite\"" \
        --tls13-ciphers "$suite"
done
chose "1.2+1.3 (rsa)" BOTH_RSA "$BOTH_RSA_PORT" '.cipher == "TLS_CHACHA20_POLY1305_SHA256" and .alpn == "h2"' \
    --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256 --http2 -p 4
chose "1.2+1.3 (ecdsa)" BOTH_EC "$BOTH_EC_PORT" '.cipher == "TLS_AES_256_GCM_SHA384"' \
    --tls13-ciphers TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256
for spec in "x25519 x25519" "P-256 secp256r1" "secp384r1 secp384r1" "P-384:x25519 secp384r1" "prime256v1:P-384 secp256r1"; do
    read -r curves iana <<<"$spec"
    chose "1.2+1.3 (ecdsa)" BOTH_EC "$BOTH_EC_PORT" ".version == \"TLSv1.3\" and .group == \"$iana\"" --curves "$curves"
done
chose "1.2+1.3 (rsa)" BOTH_RSA "$BOTH_RSA_PORT" '.group == "secp384r1" and .alpn == "h2"' --curves P-384 --http2 -p 4
for suite in ECDHE-RSA-CHACHA20-POLY1305 ECDHE-RSA-AES256-GCM-SHA384 ECDHE-RSA-AES128-GCM-SHA256; do
    chose "1.2+1.3 (rsa)" BOTH_RSA "$BOTH_RSA_PORT" ".version == \"TLSv1.2\" and .group == \"secp256r1\" and
        .cipher == \"$(sed -e 's/^ECDHE-RSA-/TLS_ECDHE_RSA_WITH_/' -e 's/AES\([0-9]*\)-GCM/AES_\1_GCM/' \
        -e 's/CHACHA20-POLY1305$/CHACHA20_POLY1305_SHA256/' -e 's/-SHA/_SHA/' <<<"$suite")\"" \
        --tls-max 1.2 --ciphers "$suite"
done
chose "1.2+1.3 (ecdsa)" BOTH_EC "$BOTH_EC_PORT" \
    '.cipher == "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256" and .alpn == "h2"' \
    --tls-max 1.2 --ciphers ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-GCM-SHA256 --http2 -p 4
chose "1.2+1.3 (rsa)" BOTH_RSA "$BOTH_RSA_PORT" '.version == "TLSv1.2" and .group == "x25519"' --tls-max 1.2 --curves x25519
chose "1.2+1.3 (rsa)" BOTH_RSA "$BOTH_RSA_PORT" '.version == "TLSv1.2" and .group == "secp384r1"' --tls-max 1.2 --curves P-384
# --ciphers alone: the fallback engine offers the chosen suite.
chose "TLS 1.2 only (rsa)" TLS12_RSA "$NGINX_PORT_TLS12_RSA" \
    '.version == "TLSv1.2" and .cipher == "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"' --ciphers ECDHE-RSA-AES256-GCM-SHA384
begin "nginx 1.2+1.3 (rsa): --tls-max 1.2 --ciphers AES128-GCM-SHA256 (RSA key exchange: no group)"
shb -n 20 -c 2 -j --tls-max 1.2 --ciphers AES128-GCM-SHA256 "https://127.0.0.1:$BOTH_RSA_PORT/"
json_run_ok && all_ok 20
jx '.tls == {version: "TLSv1.2", cipher: "TLS_RSA_WITH_AES_128_GCM_SHA256", group: null, alpn: "http/1.1", fallback: true}' '.tls'
finish

# refused LABEL PORT ALERT WHAT ARG...: a server that cannot meet the
# choice: every request a tls handshake error, the server's ALERT counted,
# and the message (errorDetails; the text report's Hint line) naming the choice
# (WHAT, as shb spells it) and the alert.
refused() {
    local label=$1 port=$2 alert=$3 what=$4
    shift 4
    begin "nginx $label refuses $*: every request a tls handshake error naming the choice and $alert"
    shb -n 6 -c 2 -j "$@" "https://127.0.0.1:$port/"
    json_run_ok
    jx '.requests.total == 6 and .requests.ok == 0 and .requests.errors == 6 and .errorKinds == {"tls handshake": 6}' \
        '{requests, errorKinds}'
    jx ".tlsAlerts == {\"received $alert\": 6}" '.tlsAlerts'
    jx "(.errorDetails[\"tls handshake\"].first | endswith(\"cannot meet $what: received alert $alert\"))" '.errorDetails'
    finish
    begin "nginx $label refuses $*: text report's Hint line"
    shb -n 2 -c 1 "$@" "https://127.0.0.1:$port/"
    no_response_exit
    grep -qF "Hint:         the server at 127.0.0.1:$port cannot meet $what: received alert $alert" "$OUT" ||
        want "no Hint line naming '$what' and '$alert': $(grep -m1 '^Hint' "$OUT")"
    finish
}
PV=protocol_version HF=handshake_failure
refused "TLS 1.2 only (rsa)" "$NGINX_PORT_TLS12_RSA" "$PV" "--tlsv1.3" --tlsv1.3
refused "TLS 1.2 only (ecdsa)" "$NGINX_PORT_TLS12_EC" "$PV" "--tlsv1.3" --tlsv1.3 --http2
refused "TLS_AES_128_GCM_SHA256 only" "$NGINX_PORT_AES128" "$HF" \
    "--tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384" \
    --tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384
refused "P-256 only" "$NGINX_PORT_P256" "$HF" "--tlsv1.3 --curves x25519:P-384" --tlsv1.3 --curves x25519:P-384 --http2
refused "1.2+1.3 (ecdsa P-256 certificate)" "$BOTH_EC_PORT" "$HF" "--tls-max 1.2 --curves x25519" --tls-max 1.2 --curves x25519
refused "1.2+1.3 (rsa certificate)" "$BOTH_RSA_PORT" "$HF" "--tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-GCM-SHA256" \
    --tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-GCM-SHA256

# --- 2. the TLS choices against lighttpd's TLS modules -------------------------------------
# lighttpd (test/servers/lighttpd-tls.conf.in) with each TLS module Debian
# ships: OpenSSL, GnuTLS, mbedTLS (2.28: TLS 1.2 only), wolfSSL and NSS; one
# port speaking TLS 1.2 and 1.3 (as far as the module goes), one TLS 1.2
# only. The report's tls object must show each choice.
# start_lighttpd_tls MOD: sets LT_BOTH and LT_T12 (ports), LT_PID.
start_lighttpd_tls() {
    local mod=$1 dir="$LIB_TMP/lighttpd-$1"
    mkdir -p "$dir/www"
    printf ok >"$dir/www/index.html"
    start_retry "lighttpd mod_$mod" LT_PID "$dir/error.log" "$dir/stderr.log" -- lighttpd_tls_attempt "$mod" "$dir"
}
lighttpd_tls_attempt() {
    local mod=$1 dir=$2
    pick_port LT_BOTH && pick_port LT_T12 || return 2
    sed -e "s|@TLSMOD@|mod_$mod|" -e "s|@DIR@|$dir|g" -e "s|@BOTH@|$LT_BOTH|" -e "s|@T12@|$LT_T12|" \
        -e "s|@CERTS@|$C|g" "$LIB_ROOT/test/servers/lighttpd-tls.conf.in" >"$dir/lighttpd.conf" || return 2
    lighttpd -D -f "$dir/lighttpd.conf" >"$dir/stderr.log" 2>&1 &
    LT_PID=$!
    wait_port "$LT_BOTH" "$LT_PID" 10 && wait_port "$LT_T12" "$LT_PID" 10
}
# lt_chose LABEL PORT JQ ARG...: -n 30 -c 2 with ARGs, all ok, .tls matching JQ.
lt_chose() {
    local label=$1 port=$2 expr=$3
    shift 3
    begin "$label: $*"
    shb -n 30 -c 2 -j "$@" "https://127.0.0.1:$port/"
    json_run_ok && all_ok 30
    jx ".tls | ($expr)" '.tls'
    finish
}
for mod in openssl gnutls mbedtls wolfssl nss; do
    if ! command -v lighttpd >/dev/null 2>&1 || [ ! -e "/usr/lib/lighttpd/mod_$mod.so" ]; then
        skip "lighttpd mod_$mod TLS choices: lighttpd or /usr/lib/lighttpd/mod_$mod.so missing (bash scripts/deps.sh)"
        continue
    fi
    if ! start_lighttpd_tls "$mod"; then
        begin "lighttpd mod_$mod: starts"
        want "lighttpd with mod_$mod did not start"
        finish
        continue
    fi
    L="lighttpd mod_$mod"
    begin "$L: preconditions"
    server_refuses "TLS 1.2 only" "$LT_T12" -tls1_3
    [ "$mod" = mbedtls ] || server_has "TLS 1.3" "$LT_BOTH" 'New, TLSv1\.3' -tls1_3
    server_has "TLS 1.2" "$LT_BOTH" 'New, TLSv1\.2' -tls1_2
    finish
    lt_chose "$L" "$LT_BOTH" '.version == "TLSv1.2" and .fallback' --tls-max 1.2
    lt_chose "$L" "$LT_BOTH" '.version == "TLSv1.2" and .alpn == "h2"' --tls-max 1.2 --http2 -p 2
    lt_chose "$L" "$LT_BOTH" '.version == "TLSv1.2" and .cipher == "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"' \
        --tls-max 1.2 --ciphers ECDHE-ECDSA-CHACHA20-POLY1305
    lt_chose "$L" "$LT_BOTH" '.cipher == "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384" and .group == "secp256r1"' \
        --tls-max 1.2 --ciphers ECDHE-ECDSA-AES256-GCM-SHA384 --curves P-256
    lt_chose "$L TLS 1.2 only" "$LT_T12" '.version == "TLSv1.2" and .cipher == "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"' \
        --ciphers ECDHE-ECDSA-AES256-GCM-SHA384
    if [ "$mod" != mbedtls ]; then
        lt_chose "$L" "$LT_BOTH" '.version == "TLSv1.3" and .cipher == "TLS_CHACHA20_POLY1305_SHA256"' \
            --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256
        # lighttpd's NSS module has only TLS_CHACHA20_POLY1305_SHA256 for
        # TLS 1.3: the AES suites are refused, and named.
        suite=TLS_AES_256_GCM_SHA384
        if [ "$mod" = nss ]; then
            suite=TLS_CHACHA20_POLY1305_SHA256
            begin "$L: --tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384 fails every request, named"
            server_refuses "no AES for TLS 1.3" "$LT_BOTH" -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384
            shb -n 6 -c 2 -j --tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384 "https://127.0.0.1:$LT_BOTH/"
            json_run_ok
            jx '.requests.errors == 6 and .errorKinds == {"tls handshake": 6} and .tlsAlerts == {"received handshake_failure": 6}' \
                '{requests, errorKinds, tlsAlerts}'
            jx '.errorDetails["tls handshake"].first | endswith("cannot meet --tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384: received alert handshake_failure")' \
                '.errorDetails'
            finish
        fi
        lt_chose "$L" "$LT_BOTH" ".version == \"TLSv1.3\" and .cipher == \"$suite\" and .group == \"secp384r1\"" \
            --tlsv1.3 --tls13-ciphers "$suite" --curves P-384
    fi
    # Refused: an alert (OpenSSL, NSS: protocol_version; mbedTLS, wolfSSL:
    # handshake_failure) or, from GnuTLS, a close without one; the message
    # names --tlsv1.3 either way.
    begin "$L TLS 1.2 only: --tlsv1.3 fails every request, naming the choice"
    shb -n 6 -c 2 -j --tlsv1.3 "https://127.0.0.1:$LT_T12/"
    json_run_ok
    jx '.requests.errors == 6 and .errorKinds == {"tls handshake": 6}' '{requests, errorKinds}'
    jx '.errorDetails["tls handshake"].first | test("(cannot meet --tlsv1.3: received alert [a-z_]+|it may not meet --tlsv1.3)$")' \
        '.errorDetails'
    finish
    stop_server "$LT_PID"
done

[ "$FAILS" -eq 0 ]
