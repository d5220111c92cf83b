#!/usr/bin/env bash
# test/e2e/e2e_mtls.sh — end-to-end checks of client certificates (--cert,
# --key: mutual TLS): the built binary $SHB against servers that require
# one, with a CA and client certificates this script makes itself with
# openssl (EC P-256 and P-384, RSA 2048 and 2049 bits, a chain through an
# intermediate, a 13 KB chain, a file holding both certificate and key, a
# hundred extra CAs):
#   nginx (OpenSSL, test/servers/nginx-mtls.conf.in, ssl_verify_client on):
#     TLS 1.3 and TLS 1.2 (shb's BearSSL fallback), HTTP/1.1 and HTTP/2; its
#     access log shows $ssl_client_verify SUCCESS and the certificate's
#     subject for every request; without a certificate nginx answers 400;
#     a server trusting 101 CAs sends a CertificateRequest of about 20 KB
#     (certificate_authorities), TLS 1.3 and 1.2, and the handshake works;
#     a server whose CertificateRequest allows RSA-PSS alone takes RSA keys
#     (SHA-512) and refuses EC ones (handshake_failure, no scheme in common);
#   openssl s_server -Verify (TLS 1.3): without a certificate the handshake
#     ends with the server's certificate_required alert, named in the report;
#   Caddy (Go crypto/tls, quic-go; test/servers/Caddyfile-mtls.in,
#     client_auth require_and_verify): HTTP/3 with a client certificate,
#     over QUIC, and without one;
# and every bad file refused with one line, exit 2, before any traffic.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_mtls.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_mtls.sh
#
# Same conventions as test/e2e/e2e.sh: one "PASS name" / "FAIL name: why"
# line per check.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-mtls

e2e_preconditions nginx openssl jq
gen_certs || { echo "FAIL $P setup: gen_certs failed"; exit 1; }

# --- the client side's certificates -----------------------------------------------
CC=$T/client-certs
mkdir -p "$CC"
# client_cert NAME SUBJECT KEYOPTS... (into $CC/NAME.crt, NAME.key), signed
# by the client CA (or by $ISSUER when set).
client_cert() {
    local name=$1 subj=$2 issuer=${ISSUER:-ca}
    shift 2
    openssl req -new "$@" -nodes -keyout "$CC/$name.key" -out "$CC/$name.csr" -subj "$subj" &&
        openssl x509 -req -in "$CC/$name.csr" -CA "$CC/$issuer.crt" -CAkey "$CC/$issuer.key" \
            -CAcreateserial -days 2 -extfile "$CC/ext.cnf" -extensions "${EXT:-leaf}" -out "$CC/$name.crt"
}
if ! (
    set -e
    cat >"$CC/ext.cnf" <<'CNF'
[leaf]
basicConstraints = critical,CA:FALSE
extendedKeyUsage = clientAuth
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
CNF
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$CC/ca.key" \
        -out "$CC/ca.crt" -days 2 -subj "/CN=shb test client CA" -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign
    client_cert p256 "/CN=shb client p256" -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
    client_cert p384 "/CN=shb client p384" -newkey ec -pkeyopt ec_paramgen_curve:secp384r1
    client_cert rsa "/CN=shb client rsa2048" -newkey rsa:2048
    # 2049 bits: the PSS encoding is a byte shorter than the modulus (RFC 8017 §9.1.1, emBits = 2048).
    client_cert rsa2049 "/CN=shb client rsa2049" -newkey rsa:2049
    EXT=ca client_cert inter "/CN=shb test client intermediate" -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
    ISSUER=inter client_cert chained "/CN=shb client chained" -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
    cat "$CC/chained.crt" "$CC/inter.crt" >"$CC/chain.crt"
    cat "$CC/p256.crt" "$CC/p256.key" >"$CC/both.pem"
    # Bad inputs.
    openssl genpkey -algorithm ed25519 -out "$CC/ed25519.key"
    openssl req -x509 -key "$CC/ed25519.key" -out "$CC/ed25519.crt" -days 2 -subj "/CN=ed"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$CC/selfsigned.key" \
        -out "$CC/selfsigned.crt" -days 2 -subj "/CN=shb self-signed client"
    openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:secp521r1 -out "$CC/p521.key"
    openssl req -x509 -key "$CC/p521.key" -out "$CC/p521.crt" -days 2 -subj "/CN=p521"
    openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:1024 -out "$CC/rsa1024.key"
    openssl req -x509 -key "$CC/rsa1024.key" -out "$CC/rsa1024.crt" -days 2 -subj "/CN=rsa1024"
    openssl pkey -in "$CC/p256.key" -aes256 -passout pass:secret -out "$CC/encrypted.key"
    openssl ec -in "$CC/p256.key" -aes256 -passout pass:secret -out "$CC/encrypted-trad.key"
    printf 'not a certificate\n' >"$CC/garbage.pem"
    : >"$CC/empty.pem"
    chmod 644 "$CC"/*.key
) >"$CC/openssl.log" 2>&1; then
    echo "FAIL $P setup: openssl could not make the client certificates:"
    tail -n 5 "$CC/openssl.log" | sed 's/^/  /'
    exit 1
fi

# A long chain: the P-256 leaf, then two of gen_certs' intermediates with
# 6 KB extensions (about 13 KB of DER, past one QUIC packet and one
# handshake message buffer; unrelated to the leaf's CA, so servers that
# verify ignore them and check the leaf against the client CA).
cat "$CC/p256.crt" "$LIB_CERTS/ca1.crt" "$LIB_CERTS/ca2.crt" >"$CC/long.crt"
LONG_DER=0
for f in "$CC/p256.crt" "$LIB_CERTS/ca1.crt" "$LIB_CERTS/ca2.crt"; do
    LONG_DER=$((LONG_DER + $(openssl x509 -in "$f" -outform DER | wc -c)))
done

# A hundred more CAs (EC P-256, self-signed, with long subjects) around the
# real one: nginx's CertificateRequest then lists about 20 KB of
# certificate_authorities (RFC 8446 §4.2.4; TLS 1.2's, RFC 5246 §7.4.4).
MANY_CAS=$CC/client-cas-many.crt
if ! (
    set -e
    openssl ecparam -name prime256v1 -genkey -noout -out "$CC/many.key"
    for i in $(seq 1 100); do
        openssl req -x509 -new -key "$CC/many.key" -days 2 -out "$CC/many-$i.crt" \
            -subj "/C=NL/ST=Noord-Holland/L=Amsterdam/O=shb test organisation number $i, trusted for nothing/OU=client certificates of a department with a long name/OU=another department, number $i/CN=shb extra client CA $i"
        cat "$CC/many-$i.crt" >>"$MANY_CAS"
        if [ "$i" = 50 ]; then cat "$CC/ca.crt" >>"$MANY_CAS"; fi
    done
) >"$CC/openssl-many.log" 2>&1; then
    echo "FAIL $P setup: openssl could not make the hundred CAs:"
    tail -n 5 "$CC/openssl-many.log" | sed 's/^/  /'
    exit 1
fi
# all_ok N: exactly N requests, all 200, no errors.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0" '{requests, errorDetails}'
    jx ".statusCodes == {\"200\": $1}" '.statusCodes'
}
# log_has FILE N LINE: FILE has exactly N lines, every one LINE.
log_has() {
    local file=$1 n=$2 line=$3 got
    lines_settled "$file" >/dev/null
    got=$(sort "$file" | uniq -c | sed 's/^ *//')
    [ "$got" = "$n $line" ] || want "$(basename "$file"): expected $n × '$line', got: $(tr '\n' '|' <<<"$got")"
}

# --- nginx: ssl_verify_client on -----------------------------------------------------
mkdir -p "$LIB_TMP/nginx-mtls"
cp "$CC/ca.crt" "$LIB_TMP/nginx-mtls/client-ca.crt"
cp "$MANY_CAS" "$LIB_TMP/nginx-mtls/client-cas-many.crt"
start_or_die "nginx (test/servers/nginx-mtls.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-mtls.conf.in" nginx-mtls
ND=$NGINX_DIR
N13="https://127.0.0.1:$NGINX_PORT/"
N12="https://127.0.0.1:$NGINX_PORT2/"
NPSS="https://127.0.0.1:$NGINX_PORT_PSSONLY/"

# with_cert V KEY: nginx's TLS 1.V server (1.3, or 1.2 through shb's
# fallback), HTTP/1.1 and HTTP/2, --cert/--key KEY: 40 requests 200 each, and
# nginx's log shows the certificate verified with its subject on every one.
with_cert() {
    local v=$1 key=$2 subj url proto fallback=false
    subj="CN=shb client $key"
    [ "$key" = rsa ] && subj="CN=shb client rsa2048"
    url=$N13
    [ "$v" = 2 ] && url=$N12 fallback=true
    for proto in h1 h2; do
        args=()
        [ "$proto" = h2 ] && args=(--http2 -p 4)
        : >"$ND/access-1$v.log"
        begin "nginx TLS 1.$v $proto --cert $key: 40 requests 200, nginx verified the certificate (SUCCESS, $subj) on every one"
        shb "${args[@]}" -n 40 -c 4 --cert "$CC/$key.crt" --key "$CC/$key.key" -j "$url"
        if json_run_ok; then
            all_ok 40
            jx ".tls.version == \"TLSv1.$v\" and .tls.fallback == $fallback" '.tls'
        fi
        log_has "$ND/access-1$v.log" 40 "TLSv1.$v SUCCESS \"$subj\" 200"
        finish
    done
}
for key in p256 p384 rsa rsa2049; do with_cert 3 "$key"; done
for key in p256 rsa; do with_cert 2 "$key"; done

# many_cas V: nginx trusting a hundred CAs and the real one, TLS 1.V: its
# CertificateRequest (measured with openssl s_client) is over 16 KB, and
# --cert p256 still works over HTTP/1.1 and HTTP/2, verified on every request.
many_cas() {
    local v=$1 port=$NGINX_PORT_MANYCA cr_len proto
    [ "$v" = 2 ] && port=$NGINX_PORT_MANYCA12
    cr_len=$(openssl s_client -connect "127.0.0.1:$port" -tls1_$v -msg </dev/null 2>/dev/null |
        sed -n 's/^<<< .*Handshake \[length \([0-9a-f]*\)\], CertificateRequest.*/\1/p' | head -n 1)
    cr_len=$((16#${cr_len:-0}))
    for proto in h1 h2; do
        args=()
        [ "$proto" = h2 ] && args=(--http2 -p 4)
        : >"$ND/access-many-1$v.log"
        begin "nginx TLS 1.$v $proto, 101 CAs trusted (a $cr_len-byte CertificateRequest), --cert p256: 40 requests 200, verified on every one"
        [ "$cr_len" -gt 16384 ] || want "nginx's CertificateRequest is $cr_len bytes, expected over 16384"
        shb "${args[@]}" -n 40 -c 4 --cert "$CC/p256.crt" --key "$CC/p256.key" -j "https://127.0.0.1:$port/"
        json_run_ok && all_ok 40
        log_has "$ND/access-many-1$v.log" 40 "TLSv1.$v SUCCESS \"CN=shb client p256\" 200"
        finish
    done
}
many_cas 3
many_cas 2

: >"$ND/access-13.log"
begin "nginx TLS 1.3: a chain (leaf + intermediate) in --cert, the CA alone trusted by nginx: every request 200"
shb -n 20 -c 2 --cert "$CC/chain.crt" --key "$CC/chained.key" -j "$N13"
json_run_ok && all_ok 20
log_has "$ND/access-13.log" 20 'TLSv1.3 SUCCESS "CN=shb client chained" 200'
finish

for v in 3 2; do
    url=$N13
    [ "$v" = 2 ] && url=$N12
    : >"$ND/access-1$v.log"
    begin "nginx TLS 1.$v: a chain of 3 certificates, $LONG_DER bytes of DER, in --cert: every request 200, the leaf verified"
    [ "$LONG_DER" -gt 12000 ] && [ "$LONG_DER" -le 16384 ] || want "the long chain is $LONG_DER bytes, expected 12001..16384"
    shb --http2 -p 4 -n 20 -c 2 --cert "$CC/long.crt" --key "$CC/p256.key" -j "$url"
    json_run_ok && all_ok 20
    log_has "$ND/access-1$v.log" 20 "TLSv1.$v SUCCESS \"CN=shb client p256\" 200"
    finish
done

: >"$ND/access-13.log"
begin "nginx TLS 1.3: certificate and key in one file (--cert alone): every request 200"
shb -n 20 -c 2 --cert "$CC/both.pem" -j "$N13"
json_run_ok && all_ok 20
log_has "$ND/access-13.log" 20 'TLSv1.3 SUCCESS "CN=shb client p256" 200'
finish

for v in 13 12; do
    url=$N13
    [ "$v" = 12 ] && url=$N12
    : >"$ND/access-$v.log"
    begin "nginx TLS 1.${v#1} without --cert: nginx answers every request 400 (counted as 400s, NONE in its log)"
    shb -n 20 -c 2 -j "$url"
    if json_run_ok; then
        jx '.requests.ok == 20 and .statusCodes == {"400": 20}' '{requests, statusCodes}'
    fi
    log_has "$ND/access-$v.log" 20 "TLSv1.${v#1} NONE \"-\" 400"
    finish
done

: >"$ND/access-pss.log"
begin "nginx whose CertificateRequest allows RSA-PSS only: an RSA key signs with it (every request 200)"
shb -n 20 -c 2 --cert "$CC/rsa.crt" --key "$CC/rsa.key" -j "$NPSS"
json_run_ok && all_ok 20
log_has "$ND/access-pss.log" 20 'TLSv1.3 SUCCESS "CN=shb client rsa2048" 200'
finish

begin "nginx whose CertificateRequest allows RSA-PSS only: an EC key has no scheme in common: handshake_failure, named"
shb -n 10 -c 2 --cert "$CC/p256.crt" --key "$CC/p256.key" -j "$NPSS"
if json_run_ok; then
    jx '.requests.errors == 10 and .errorKinds == {"tls handshake": 10}' '{requests, errorKinds}'
    jx '.errorDetails["tls handshake"].first == "sent alert handshake_failure: the server'"'"'s CertificateRequest allows no signature scheme the --cert key can make"' '.errorDetails'
fi
finish

# --- openssl s_server -Verify: certificate_required ---------------------------------
start_or_die "openssl s_server -Verify 1" start_s_server s-server-verify "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" \
    -Verify 1 -CAfile "$CC/ca.crt" -www
begin "openssl s_server -Verify (TLS 1.3) without --cert: every request a tls error, certificate_required named"
shb -n 6 -c 2 -j "https://127.0.0.1:$SSRV_PORT/"
if json_run_ok; then
    jx '.requests.errors == 6 and .errorKinds == {"tls": 6}' '{requests, errorKinds}'
    jx '.errorDetails.tls.first == "received alert certificate_required"' '.errorDetails'
    jx '.tlsAlerts == {"received certificate_required": 6}' '.tlsAlerts'
fi
finish
begin "openssl s_server -Verify (TLS 1.3) with --cert p384: every request 200"
shb -n 6 -c 2 --cert "$CC/p384.crt" --key "$CC/p384.key" -j "https://127.0.0.1:$SSRV_PORT/"
json_run_ok && all_ok 6
finish
stop_server "$SSRV_PID"

# --- HTTP/3: Caddy client_auth ---------------------------------------------------------
if command -v caddy >/dev/null 2>&1; then
    mkdir -p "$LIB_TMP/caddy-mtls"
    cp "$CC/ca.crt" "$LIB_TMP/caddy-mtls/client-ca.crt"
    CADDY_H3_BIG=1000 start_or_die "caddy (test/servers/Caddyfile-mtls.in)" start_caddy_h3 caddy-mtls \
        "$LIB_ROOT/test/servers/Caddyfile-mtls.in"
    for key in p256 rsa; do
        : >"$CADDY_DIR/access.log"
        begin "Caddy HTTP/3 (quic-go) client_auth require_and_verify, --cert $key: 30 requests 200 (Caddy logged 30 HTTP/3 200s)"
        shb --http3 -n 30 -c 3 --cert "$CC/$key.crt" --key "$CC/$key.key" -j "https://localhost:$CADDY_PORT/"
        json_run_ok HTTP/3 && all_ok 30
        # Caddy 2.6 logs no TLS state for HTTP/3 requests: that the handshake
        # completed at all is the verification (without a certificate, or
        # with one from another CA, it does not: below).
        lines_settled "$CADDY_DIR/access.log" >/dev/null
        got=$(jq -sc '[.[] | {proto: .request.proto, status}] | group_by(.) | map(.[0] + {n: length})' "$CADDY_DIR/access.log" 2>/dev/null)
        [ "$got" = '[{"proto":"HTTP/3.0","status":200,"n":30}]' ] || want "Caddy's log: $got"
        finish
    done
    begin "Caddy HTTP/3 client_auth, a self-signed --cert (not from the trusted CA): every connection refused by the server"
    shb --http3 -n 6 -c 2 --cert "$CC/selfsigned.crt" --key "$CC/selfsigned.key" -j "https://localhost:$CADDY_PORT/"
    if json_run_ok HTTP/3; then
        jx '.requests.errors == 6 and .errorKinds == {"closed": 6} and (.errorDetails.closed.first | test("^CONNECTION_CLOSE from the server: CRYPTO_ERROR "))' '{requests, errorDetails}'
    fi
    finish
    # quic-go's TLS refuses an empty Certificate with bad_certificate.
    begin "Caddy HTTP/3 client_auth without --cert: every request an error, the server's refusal (its TLS alert) named"
    shb --http3 -n 6 -c 2 -j "https://localhost:$CADDY_PORT/"
    if json_run_ok HTTP/3; then
        jx '.requests.errors == 6 and .requests.ok == 0' '{requests, errorKinds}'
        jx '.errorKinds == {"closed": 6} and (.errorDetails.closed.first | test("^CONNECTION_CLOSE from the server: CRYPTO_ERROR (bad_certificate|certificate_required)$"))' '.errorDetails'
    fi
    finish
    stop_server "$CADDY_PID"
else
    skip "HTTP/3 with a client certificate: caddy is not installed (bash scripts/deps.sh)"
fi

# --- HTTP/3: ngtcp2's gtlsserver (GnuTLS) --verify-client -----------------------------
# It asks for a certificate (and GnuTLS checks the CertificateVerify
# signature against it) but validates no chain.
if [ -x /usr/sbin/gtlsserver ] || command -v gtlsserver >/dev/null 2>&1; then
    NG_SERVER=$(command -v gtlsserver 2>/dev/null || echo /usr/sbin/gtlsserver)
    NG_WRAP=$T/gtlsserver-verify
    printf '#!/bin/sh\nexec %s --verify-client "$@"\n' "$NG_SERVER" >"$NG_WRAP"
    chmod +x "$NG_WRAP"
    mkdir -p "$T/ngbin"
    ln -sf "$NG_WRAP" "$T/ngbin/gtlsserver"
    PATH="$T/ngbin:$PATH" start_or_die "gtlsserver --verify-client" start_ngtcp2_h3 ngtcp2-mtls "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key"
    for key in p384 rsa; do
        begin "ngtcp2 gtlsserver --verify-client (HTTP/3), --cert $key: 30 requests 200"
        shb --http3 -n 30 -c 3 --cert "$CC/$key.crt" --key "$CC/$key.key" -j "https://127.0.0.1:$NGTCP2_H3_PORT/"
        json_run_ok HTTP/3 && all_ok 30
        finish
    done
    begin "ngtcp2 gtlsserver --verify-client (HTTP/3), a chain of $LONG_DER bytes: the Certificate spans many QUIC packets, 30 requests 200"
    shb --http3 -n 30 -c 3 --cert "$CC/long.crt" --key "$CC/p256.key" -j "https://127.0.0.1:$NGTCP2_H3_PORT/"
    json_run_ok HTTP/3 && all_ok 30
    finish
    stop_server "$NGTCP2_H3_PID"
else
    skip "ngtcp2 gtlsserver --verify-client: not installed (bash scripts/deps.sh)"
fi

# --- refusals: one line, exit 2, nothing sent --------------------------------------------
# refused WHAT LINE ARGS...: shb ARGS exits 2 with exactly LINE on stderr,
# and nginx saw no connection.
refused() { refused_before_traffic "$ND/access-13.log" "$@"; }
refused "a missing file" "shb: --cert $CC/none.crt: cannot read it: No such file or directory" \
    --cert "$CC/none.crt" "$N13"
refused "an unreadable key file (a directory)" "shb: --key $CC: cannot read it: Is a directory" \
    --cert "$CC/p256.crt" --key "$CC" "$N13"
refused "no certificate in the file" "shb: --cert $CC/p256.key: no certificate in it (a \"BEGIN CERTIFICATE\" block)" \
    --cert "$CC/p256.key" "$N13"
refused "an empty file" "shb: --cert $CC/empty.pem: no certificate in it (a \"BEGIN CERTIFICATE\" block)" \
    --cert "$CC/empty.pem" "$N13"
refused "not PEM" "shb: --cert $CC/garbage.pem: no certificate in it (a \"BEGIN CERTIFICATE\" block)" \
    --cert "$CC/garbage.pem" "$N13"
refused "no key given nor in the certificate file" "shb: --cert $CC/p256.crt: no private key in it (give it with --key)" \
    --cert "$CC/p256.crt" "$N13"
refused "a key that is not the certificate's" \
    "shb: --key $CC/p384.key: the private key does not match the certificate's public key" \
    --cert "$CC/p256.crt" --key "$CC/p384.key" "$N13"
refused "an RSA key for an EC certificate" \
    "shb: --key $CC/rsa.key: the private key does not match the certificate (an RSA key for an EC certificate)" \
    --cert "$CC/p256.crt" --key "$CC/rsa.key" "$N13"
refused "an Ed25519 key" "shb: --key $CC/ed25519.key: Ed25519 keys are not supported (EC P-256/P-384 and RSA keys are)" \
    --cert "$CC/ed25519.crt" --key "$CC/ed25519.key" "$N13"
refused "a P-521 key" "shb: --key $CC/p521.key: EC keys on P-521 are not supported (P-256 and P-384 are)" \
    --cert "$CC/p521.crt" --key "$CC/p521.key" "$N13"
refused "an RSA-1024 key" "shb: --key $CC/rsa1024.key: RSA keys of 1024 bits are not supported (2048 to 4096 are)" \
    --cert "$CC/rsa1024.crt" --key "$CC/rsa1024.key" "$N13"
refused "an encrypted PKCS#8 key" \
    "shb: --key $CC/encrypted.key: the private key is encrypted (give it unencrypted, e.g. openssl pkey -in KEY -out PLAIN)" \
    --cert "$CC/p256.crt" --key "$CC/encrypted.key" "$N13"
refused "an encrypted traditional (Proc-Type) key" \
    "shb: --key $CC/encrypted-trad.key: the private key is encrypted (give it unencrypted, e.g. openssl pkey -in KEY -out PLAIN)" \
    --cert "$CC/p256.crt" --key "$CC/encrypted-trad.key" "$N13"
refused "--key without --cert" "shb: --key needs --cert (the certificate the key belongs to)" \
    --key "$CC/p256.key" "$N13"
refused "--cert with no https:// target" \
    "shb: --cert needs an https:// URL (a client certificate is shown in the TLS handshake)" \
    --cert "$CC/p256.crt" --key "$CC/p256.key" "http://127.0.0.1:$NGINX_PORT/"
refused "a chain over 16 KB" "shb: --cert $LIB_CERTS/chain.crt: the certificate chain is larger than 16384 bytes" \
    --cert "$LIB_CERTS/chain.crt" --key "$LIB_CERTS/chain.key" "$N13"
refused "--cert ''" "shb: invalid value '' for --cert: expected a file name" --cert "" "$N13"

exit $((FAILS > 0))
