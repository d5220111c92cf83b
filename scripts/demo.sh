#!/usr/bin/env bash
# scripts/demo.sh — `make demo`: start a local nginx (the bench's config in a
# temp directory, on free ports, returning "hello, world!" over HTTP/1.1, h2c
# and TLS 1.3 with a self-signed certificate it makes), load it with ./shb
# over each protocol, print the text reports (no JSON: -j is for scripts),
# then a -q ramp after a warm-up drawn as an HTML page (--html demo.html),
# stop nginx. Shows each command before running it.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=test/e2e/lib.sh
. test/e2e/lib.sh
trap lib_cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x ./shb ]; then
    echo "./shb is not built: run make" >&2
    exit 1
fi
start_nginx test/servers/nginx-bench.conf.in demo || { echo "nginx did not start" >&2; exit 1; }
URL="http://127.0.0.1:$NGINX_PORT/"
URL_H2C="http://127.0.0.1:$NGINX_PORT2/"
URL_TLS="https://127.0.0.1:$NGINX_PORT_TLS/"

run() {
    echo
    echo "\$ $*"
    "$@"
}

echo "nginx is serving \"hello, world!\": HTTP/1.1 on $URL, h2c on $URL_H2C, TLS 1.3 on $URL_TLS"
run ./shb -z 3s -c 50 "$URL"
run ./shb --http2 -z 3s -c 8 -p 32 "$URL_H2C"
run ./shb --http2 -n 20000 -c 8 -p 32 "$URL_TLS"
run ./shb -q 2000..20000 -z 8s --warmup 2s -c 50 --html demo.html "$URL"
echo
echo "The last run as a page of charts: file://$PWD/demo.html (open it in a browser)"
