#!/usr/bin/env bash
# test/fuzz/mkcorpus.sh — regenerates the checked-in seed corpora under
# test/fuzz/corpus/ (a developer's tool: nothing in the build runs it).
#
# Builds test/fuzz/mkcorpus.c into build/fuzz/mkcorpus, writes the hand-made
# seeds, then captures real TLS servers (openssl s_server on loopback, a
# fresh P-256 certificate, -WWW serving one small file) answering
# fuzz_tls13_client's fixed ClientHello: TLS 1.3 with each cipher suite,
# HelloRetryRequests (the server wants P-256 or P-384, we offer an X25519
# share first), a CertificateRequest (short, and one listing 100 CAs), and TLS 1.2 with AES-GCM and
# ChaCha20; and one HelloRetryRequest with a cookie added by hand. OpenSSL's own randomness
# makes every capture differ, each as valid as the last. Seeds are
# overwritten by name and nothing is deleted: the regress_* files (inputs a
# fuzzer once failed on) stay as they are.
set -euo pipefail
cd "$(dirname "$0")/../.."

CC=${CC:-cc}
OUT=test/fuzz/corpus
BIN=build/fuzz/mkcorpus
WARN="-Wall -Wextra -Werror -Wshadow -Wvla -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wundef"

make -s build/inc/.stamp
mkdir -p build/fuzz
"$CC" -std=gnu11 -O1 -g $WARN -isystem build/inc -I. -o "$BIN" test/fuzz/mkcorpus.c \
    tls13/keysched.c tls13/aead.c tls13/record.c tls13/handshake.c tls13/cert_request.c tls13/conn.c tls13/tls12.c tls13/credentials.c tls13/verify.c \
    tls13/choice.c tls13/names.c request.c qpack.c h3.c hpack.c cli/cli.c cli/auth.c cli/override.c cli/proxy.c \
    cli/fail_if.c cli/reqlist.c cli/reqlist_file.c stats/err_kind.c \
    "${BEARSSL_A:-/usr/lib/x86_64-linux-gnu/libbearssl.a}"
"$BIN" "$OUT"

# shellcheck source=test/e2e/lib.sh
. test/e2e/lib.sh
dir=$(mktemp -d /tmp/shb-corpus.XXXXXX)
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -subj /CN=localhost \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" >/dev/null 2>&1
mkdir "$dir/www"
echo hello >"$dir/www/hello.txt"

# capture NAME 13|12 [s_server options...]
capture() {
    local name=$1 version=$2 port hs=()
    shift 2
    pick_port port
    (cd "$dir/www" && exec openssl s_server -quiet -WWW -accept "127.0.0.1:$port" -key "$dir/key.pem" \
        -cert "$dir/cert.pem" -alpn http/1.1 "$@" >"$dir/$name.log" 2>&1 </dev/null) &
    server_pid=$!
    if ! wait_port "$port" "$server_pid" 10; then
        echo "openssl s_server did not start:" >&2
        cat "$dir/$name.log" >&2
        exit 1
    fi
    [ "$version" = 13 ] && hs=("$OUT/fuzz_tls13_client/hs_$name")
    "$BIN" --capture "$port" "$version" "$OUT/fuzz_tls13_client/conn_$name" "${hs[@]}"
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null || true
    server_pid=
}

mkdir -p "$OUT/fuzz_tls13_client"
capture tls13_aes128 13 -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256 -num_tickets 1
capture tls13_aes256 13 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -num_tickets 2
capture tls13_chacha 13 -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256 -num_tickets 0
capture tls13_hrr_p256 13 -tls1_3 -groups P-256 -num_tickets 1
capture tls13_certreq_p384 13 -tls1_3 -groups P-384 -verify 1 -num_tickets 1
# A CertificateRequest of about 26 KB: 100 CAs with long subjects in its
# certificate_authorities.
openssl ecparam -name prime256v1 -genkey -noout -out "$dir/many.key"
for i in $(seq 1 100); do
    openssl req -x509 -new -key "$dir/many.key" -days 3650 -out "$dir/many-$i.crt" \
        -subj "/C=NL/ST=Noord-Holland/L=Amsterdam/O=shb test organisation number $i, trusted for nothing/OU=client certificates of a department with a long name/OU=another department, number $i/CN=shb extra client CA $i"
    cat "$dir/many-$i.crt" >>"$dir/many.pem"
done
capture tls13_certreq_many_cas 13 -tls1_3 -verify 1 -CAfile "$dir/many.pem" -num_tickets 1
capture tls12_aesgcm 12 -tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256
capture tls12_chacha 12 -tls1_2 -cipher ECDHE-ECDSA-CHACHA20-POLY1305
# OpenSSL's HRR carries no cookie: the HRR seed again with one added (it
# stops at the server's Finished, the transcript having changed).
"$BIN" --cookie "$OUT/fuzz_tls13_client/hs_tls13_hrr_p256" "$OUT/fuzz_tls13_client/hs_tls13_hrr_cookie"
# --tls-resume: the flights with tickets read (their NewSessionTickets reach
# the ticket parser), and one with a ticket offered (ServerHello then
# answers a ClientHello it never saw: it stops at the server's Finished).
for name in tls13_aes128 tls13_aes256 tls13_hrr_p256; do
    "$BIN" --resume "$OUT/fuzz_tls13_client/hs_$name" "$OUT/fuzz_tls13_client/hs_resume_$name" 0
done
"$BIN" --resume "$OUT/fuzz_tls13_client/hs_tls13_aes128" "$OUT/fuzz_tls13_client/hs_resume_offer_tls13_aes128" 1
ls -l "$OUT"/*
