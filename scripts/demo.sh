#!/usr/bin/env bash
# scripts/demo.sh — `make demo`: start a local nginx (a temp config on a free
# port, returning "hello, world!"), load it with ./shb, print the reports,
# stop nginx. Shows each command before running it.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=test/lib.sh
. test/lib.sh
trap lib_cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x ./shb ]; then
    echo "./shb is not built: run make" >&2
    exit 1
fi
start_nginx test/nginx.conf.in demo || { echo "nginx did not start" >&2; exit 1; }
URL="http://127.0.0.1:$NGINX_PORT/"

run() {
    echo
    echo "\$ $*"
    "$@"
}

echo "nginx (1 worker) is serving \"hello, world!\" on $URL"
run ./shb -z 3s -c 50 "$URL"
run ./shb -n 2000 -c 50 -j "$URL"
