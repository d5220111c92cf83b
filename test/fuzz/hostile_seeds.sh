#!/usr/bin/env bash
# test/fuzz/hostile_seeds.sh — grows the checked-in fuzz corpora from the
# hostile-server case table (a developer's tool, `make fuzz-seeds`; nothing
# in make test runs it): plays every case of test/hostile/cases_*.js to
# ./shb with HOSTILE_SEEDS set, so that test/servers/hostile_server.js saves the
# bytes each case sent on its first connection, and copies them to
# test/fuzz/corpus/<target>/hostile-<case>: HTTP/1.1 cases (also over TLS:
# the plaintext) to fuzz_h1, HTTP/2 cases to fuzz_h2, cases that are not
# TLS at all (raw handshake bytes) to fuzz_tls13_client; and the QUIC/HTTP/3
# cases (test/servers/hostile_quic_server.js), their 1-RTT frames before packet
# protection, to fuzz_quic_conn. Seeds are overwritten by name; the run's
# PASS/FAIL lines go to build/fuzz/hostile_seeds.log.
set -euo pipefail
cd "$(dirname "$0")/../.."

dir=$(mktemp -d /tmp/shb-seeds.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p build/fuzz
HOSTILE_SEEDS=$dir SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_hostile_cases.sh >build/fuzz/hostile_seeds.log 2>&1 || true
n=0
for f in "$dir"/fuzz_*/hostile-*; do
    [ -f "$f" ] || continue
    target=$(basename "$(dirname "$f")")
    mkdir -p "test/fuzz/corpus/$target"
    cp "$f" "test/fuzz/corpus/$target/"
    n=$((n + 1))
done
echo "$n hostile seeds written under test/fuzz/corpus/ ($(grep -c '^FAIL' build/fuzz/hostile_seeds.log || true) cases failed; see build/fuzz/hostile_seeds.log)"
