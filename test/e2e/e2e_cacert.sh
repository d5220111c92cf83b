#!/usr/bin/env bash
# test/e2e/e2e_cacert.sh — end-to-end checks of verifying the server
# (--cacert): the built binary $SHB against servers whose certificates this
# script makes itself with openssl: a root CA, an intermediate, leaves for
# good.test (and 127.0.0.1, ::1, *.wild.test; EC P-256 from the
# intermediate, RSA and P-384 from the root), one for other.test only, one
# expired (openssl ca, a validity in 2020), one for good.test from an
# unrelated CA.
#   nginx (OpenSSL, test/servers/nginx-cacert.conf.in): TLS 1.3 and TLS 1.2
#     (shb's BearSSL fallback), HTTP/1.1 and HTTP/2, reached as good.test
#     through --connect-to or --resolve (no resolver knows the name): the
#     good chain (leaf + intermediate sent, the root in --cacert) passes;
#     a wrong name, an expired certificate and an unknown CA fail every
#     request as a tls handshake error with the reason in errorDetails and
#     the alert nginx logs; -k beside --cacert trusts every certificate;
#     RSA (RSA-PSS CertificateVerify) and P-384 keys verify; an IP-literal
#     URL passes with an iPAddress entry and fails without;
#   Caddy (Go crypto/tls, quic-go; test/servers/Caddyfile-cacert.in):
#     HTTP/3, the good chain and an unknown CA;
# and every bad file or misuse refused with one line, exit 2, before any
# traffic. (A CertificateVerify that does not verify cannot be made by
# these servers: test/unit/unit_tls13_hs.c has it.)
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_cacert.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_cacert.sh
#
# Same conventions as test/e2e/e2e.sh: one "PASS name" / "FAIL name: why"
# line per check.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-cacert

e2e_preconditions nginx openssl jq
lib_init

# --- the certificates ----------------------------------------------------------------
CD=$LIB_TMP/cacert-certs
mkdir -p "$CD/newcerts"
# leaf NAME ISSUER EXT KEYOPTS...: $CD/NAME.crt and NAME.key, signed by ISSUER.
leaf() {
    local name=$1 issuer=$2 ext=$3
    shift 3
    openssl req -new "$@" -nodes -keyout "$CD/$name.key" -out "$CD/$name.csr" -subj "/CN=$name" &&
        openssl x509 -req -in "$CD/$name.csr" -CA "$CD/$issuer.crt" -CAkey "$CD/$issuer.key" -CAcreateserial \
            -days 2 -extfile "$CD/ext.cnf" -extensions "$ext" -out "$CD/$name.crt"
}
if ! (
    set -e
    cd "$CD"
    cat >ext.cnf <<'CNF'
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
[good]
basicConstraints = critical,CA:FALSE
subjectAltName = DNS:good.test,DNS:*.wild.test,IP:127.0.0.1,IP:::1
[other]
basicConstraints = critical,CA:FALSE
subjectAltName = DNS:other.test
CNF
    # openssl ca, for a validity period in the past (openssl 3.0's x509
    # has no option for the start date).
    cat >ca.cnf <<'CNF'
[ca]
default_ca = d
[d]
database = ./index.txt
new_certs_dir = ./newcerts
serial = ./serial
default_md = sha256
policy = p
[p]
commonName = supplied
[good]
basicConstraints = critical,CA:FALSE
subjectAltName = DNS:good.test,IP:127.0.0.1
CNF
    : >index.txt
    echo 01 >serial
    # shellcheck disable=SC2054  # the commas are openssl's
    ca_opts=(-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign)
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout root.key -out root.crt \
        -days 2 -subj "/CN=shb cacert root" "${ca_opts[@]}"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout unrelated.key \
        -out unrelated.crt -days 2 -subj "/CN=shb cacert unrelated CA" "${ca_opts[@]}"
    leaf inter root ca -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
    leaf good inter good -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
    cat good.crt inter.crt >good-chain.crt
    leaf rsa root good -newkey rsa:2048
    leaf p384 root good -newkey ec -pkeyopt ec_paramgen_curve:secp384r1
    leaf other root other -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
    leaf stranger unrelated good -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout expired.key \
        -out expired.csr -subj /CN=expired
    openssl ca -batch -config ca.cnf -cert root.crt -keyfile root.key -startdate 20200101000000Z \
        -enddate 20200201000000Z -extensions good -in expired.csr -out expired.crt -notext
    # --cacert files: the root with the unrelated CA (several anchors),
    # and bad ones.
    cat unrelated.crt root.crt >bundle.crt
    printf 'not a certificate\n' >garbage.pem
    : >empty.pem
    printf -- '-----BEGIN CERTIFICATE-----\nAAECAwQFBgcICQ==\n-----END CERTIFICATE-----\n' >junk.pem
    chmod 644 ./*.key
) >"$CD/openssl.log" 2>&1; then
    echo "FAIL $P setup: openssl could not make the certificates:"
    tail -n 5 "$CD/openssl.log" | sed 's/^/  /'
    exit 1
fi

# --- nginx -----------------------------------------------------------------------------
mkdir -p "$LIB_TMP/nginx-cacert"
cp "$CD"/*.crt "$CD"/*.key "$LIB_TMP/nginx-cacert/"
start_or_die "nginx (test/servers/nginx-cacert.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-cacert.conf.in" nginx-cacert
ND=$NGINX_DIR
e2e_diag_extra() { [ -s "$ND/error.log" ] && grep -i alert "$ND/error.log" | tail -n 2 | sed 's/^/  error.log: /'; return 0; }

# all_ok N: exactly N requests, all 200, no errors.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0" '{requests, errorDetails}'
    jx ".statusCodes == {\"200\": $1}" '.statusCodes'
}
# all_refused N REASON: N requests, every one a tls handshake error, none
# answered, REASON (a jq regex) in errorDetails.
all_refused() {
    jx ".requests.total == $1 and .requests.errors == $1 and .requests.ok == 0 and .errorKinds == {\"tls handshake\": $1}" '{requests, errorKinds}'
    jx '.errorDetails["tls handshake"].first | test("'"$2"'")' '.errorDetails'
}
# nginx_got_alert NAME: nginx's error log names the alert we sent.
nginx_got_alert() {
    lines_settled "$ND/error.log" >/dev/null
    grep -q "alert $1:SSL alert number" "$ND/error.log" || want "nginx's error log has no 'alert $1' from us"
}
# via PORT: reach good.test:PORT at 127.0.0.1 (--connect-to).
via() { echo "--connect-to good.test:$1:127.0.0.1:$1 https://good.test:$1/"; }

for v in 3 2; do
    port=$NGINX_PORT fallback=false
    [ "$v" = 2 ] && port=$NGINX_PORT2 fallback=true
    for proto in h1 h2; do
        args=()
        [ "$proto" = h2 ] && args=(--http2 -p 4)
        begin "nginx TLS 1.$v $proto: good.test's leaf + intermediate, the root in --cacert: 40 requests 200"
        # shellcheck disable=SC2046  # via's words are meant to split
        shb "${args[@]}" -n 40 -c 4 --cacert "$CD/root.crt" -j $(via "$port")
        if json_run_ok; then
            all_ok 40
            jx ".tls.version == \"TLSv1.$v\" and .tls.fallback == $fallback" '.tls'
        fi
        finish
    done
done

begin "nginx TLS 1.3: --resolve instead of --connect-to, a bundle of two CAs in --cacert: 20 requests 200"
shb -n 20 -c 2 --cacert "$CD/bundle.crt" --resolve "good.test:$NGINX_PORT:127.0.0.1" -j "https://good.test:$NGINX_PORT/"
json_run_ok && all_ok 20
finish

begin "nginx TLS 1.3: a wildcard name (x.wild.test for *.wild.test): 20 requests 200"
shb -n 20 -c 2 --cacert "$CD/root.crt" --resolve "x.wild.test:$NGINX_PORT:127.0.0.1" -j "https://x.wild.test:$NGINX_PORT/"
json_run_ok && all_ok 20
finish

for key in RSA P384; do
    v=NGINX_PORT_$key
    begin "nginx TLS 1.3: a $key server key (CertificateVerify $([ $key = RSA ] && echo rsa_pss_rsae || echo ecdsa_secp384r1)) verified: 20 requests 200"
    # shellcheck disable=SC2046
    shb -n 20 -c 2 --cacert "$CD/root.crt" -j $(via "${!v}")
    json_run_ok && all_ok 20
    finish
done

# refused_case NAME PORT REASON ALERT: every request of 10 a tls handshake
# error, "certificate verify failed: REASON (sent alert ALERT)", counted
# among the alerts sent, and nginx's error log has it.
refused_case() {
    local name=$1 port=$2 reason=$3 alert=$4 re
    # shellcheck disable=SC2001  # one sed for four characters
    re=$(sed 's/[().*]/\\\\&/g' <<<"certificate verify failed: $reason (sent alert $alert)")
    : >"$ND/error.log"
    begin "$name: every request a tls handshake error, \"$reason\", nginx got $alert"
    # shellcheck disable=SC2046
    shb -n 10 -c 2 --cacert "$CD/root.crt" -j $(via "$port")
    if json_run_ok; then
        all_refused 10 "^$re\$"
        jx ".tlsAlerts == {\"sent $alert\": 10}" '.tlsAlerts'
    fi
    nginx_got_alert "${alert//_/ }"
    finish
}
for v in 13 12; do
    sfx=
    [ "$v" = 12 ] && sfx=12
    p=NGINX_PORT_OTHER$sfx
    refused_case "nginx TLS 1.${v#1}: a certificate for other.test, asked for good.test" "${!p}" \
        'name mismatch (certificate is for other.test, asked for good.test)' bad_certificate
    p=NGINX_PORT_EXPIRED$sfx
    refused_case "nginx TLS 1.${v#1}: a certificate expired in 2020" "${!p}" 'expired (or not yet valid)' \
        certificate_expired
    p=NGINX_PORT_STRANGER$sfx
    refused_case "nginx TLS 1.${v#1}: a certificate from a CA not in --cacert" "${!p}" 'unknown CA' unknown_ca
done

for p in NGINX_PORT_OTHER NGINX_PORT_EXPIRED NGINX_PORT_STRANGER; do
    begin "nginx TLS 1.3 HTTP/2: -k beside --cacert wins (as curl): ${p#NGINX_PORT_} all 20 requests 200"
    # shellcheck disable=SC2046
    shb --http2 -p 2 -n 20 -c 2 -k --cacert "$CD/root.crt" -j $(via "${!p}")
    json_run_ok && all_ok 20
    finish
done

begin "nginx: without --cacert nothing is verified (the default): the expired certificate, 20 requests 200"
# shellcheck disable=SC2046
shb -n 20 -c 2 -j $(via "$NGINX_PORT_EXPIRED")
json_run_ok && all_ok 20
finish

for v in 3 2; do
    good=$NGINX_PORT other=$NGINX_PORT_OTHER
    [ "$v" = 2 ] && good=$NGINX_PORT2 other=$NGINX_PORT_OTHER12
    begin "nginx TLS 1.$v: an IP-literal URL (no SNI), the certificate lists IP:127.0.0.1: 20 requests 200"
    shb -n 20 -c 2 --cacert "$CD/root.crt" -j "https://127.0.0.1:$good/"
    json_run_ok && all_ok 20
    finish
    begin "nginx TLS 1.$v: an IP-literal URL, the certificate lists no IP address: every request a name mismatch"
    shb -n 10 -c 2 --cacert "$CD/root.crt" -j "https://127.0.0.1:$other/"
    json_run_ok && all_refused 10 '^certificate verify failed: name mismatch \\(certificate is for other.test, asked for 127.0.0.1\\)'
    finish
done

begin "nginx: the text report names the reason under its error kind"
# shellcheck disable=SC2046
shb -n 4 -c 1 --cacert "$CD/root.crt" $(via "$NGINX_PORT_STRANGER")
[ "$SHB_RC" -le 1 ] || want "exit $SHB_RC"
grep -q 'certificate verify failed: unknown CA' "$OUT" || want "no reason in the text report: $(tr '\n' '|' <"$OUT" | cut -c1-300)"
finish

# --- HTTP/3: Caddy ----------------------------------------------------------------------
if command -v caddy >/dev/null 2>&1; then
    mkdir -p "$LIB_TMP/caddy-cacert"
    cp "$CD"/*.crt "$CD"/*.key "$LIB_TMP/caddy-cacert/"
    CADDY_H3_BIG=1000 start_or_die "caddy (test/servers/Caddyfile-cacert.in)" start_caddy_h3 caddy-cacert \
        "$LIB_ROOT/test/servers/Caddyfile-cacert.in"
    begin "Caddy HTTP/3: good.test's chain, the root in --cacert: 30 requests 200"
    shb --http3 -n 30 -c 3 --cacert "$CD/root.crt" --connect-to "good.test:$CADDY_PORT:127.0.0.1:$CADDY_PORT" \
        -j "https://good.test:$CADDY_PORT/"
    json_run_ok HTTP/3 && all_ok 30
    finish
    begin "Caddy HTTP/3: an IP-literal URL with an IP SAN: 30 requests 200"
    shb --http3 -n 30 -c 3 --cacert "$CD/root.crt" -j "https://127.0.0.1:$CADDY_PORT/"
    json_run_ok HTTP/3 && all_ok 30
    finish
    begin "Caddy HTTP/3: a CA not in --cacert: every request a tls handshake error, unknown CA"
    shb --http3 -n 10 -c 2 --cacert "$CD/root.crt" --connect-to "good.test:$CADDY_PORT2:127.0.0.1:$CADDY_PORT2" \
        -j "https://good.test:$CADDY_PORT2/"
    json_run_ok HTTP/3 && all_refused 10 '^certificate verify failed: unknown CA \\(sent alert unknown_ca\\)$'
    finish
    stop_server "$CADDY_PID"
else
    skip "HTTP/3 with --cacert: caddy is not installed (bash scripts/deps.sh)"
fi

# --- refusals: one line, exit 2, nothing sent ---------------------------------------------
# refused WHAT LINE ARGS...: shb ARGS exits 2 with exactly LINE on stderr,
# and nginx saw no connection.
refused() { refused_before_traffic "$ND/access.log" "$@"; }
URL13="https://127.0.0.1:$NGINX_PORT/"
refused "a missing file" "shb: --cacert $CD/none.crt: cannot read it: No such file or directory" \
    --cacert "$CD/none.crt" "$URL13"
refused "a directory" "shb: --cacert $CD: cannot read it: Is a directory" --cacert "$CD" "$URL13"
refused "an empty file" "shb: --cacert $CD/empty.pem: no certificate in it (a \"BEGIN CERTIFICATE\" block)" \
    --cacert "$CD/empty.pem" "$URL13"
refused "not PEM" "shb: --cacert $CD/garbage.pem: no certificate in it (a \"BEGIN CERTIFICATE\" block)" \
    --cacert "$CD/garbage.pem" "$URL13"
refused "a key, no certificate" "shb: --cacert $CD/root.key: no certificate in it (a \"BEGIN CERTIFICATE\" block)" \
    --cacert "$CD/root.key" "$URL13"
refused "a block that does not parse" \
    "shb: --cacert $CD/junk.pem: certificate 1 of the file is not a readable X.509 certificate" \
    --cacert "$CD/junk.pem" "$URL13"
refused "--cacert with no https:// target" \
    "shb: --cacert needs an https:// URL (it verifies the server's certificate)" \
    --cacert "$CD/root.crt" "http://127.0.0.1:$NGINX_PORT/"

stop_server "$NGINX_PID"

exit $((FAILS > 0))
