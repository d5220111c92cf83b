#!/usr/bin/env bash
# test/e2e/e2e_targets.sh — end-to-end checks of request lists (--targets
# FILE) with the built binary $SHB against nginx
# (test/servers/nginx-targets.conf.in), which logs each request's method,
# path, status and Content-Length, and Caddy over HTTP/3:
#   a 3-target seq list gives exactly n/3 requests per path at nginx over
#     HTTP/1.1 (several threads and connections, --disable-keepalive),
#     h2c and h2 over TLS with -p streams, and -q; the report's per-target
#     table and JSON (schema-valid) agree with nginx's log;
#   POST targets with @body files: nginx saw each body's size;
#   random --seed 7 twice gives the same per-path counts, --seed 8 others;
#   HTTP/3 against Caddy: its /status/NNN paths answer each target with a
#     code of its own, so the per-target status codes prove the mix;
#   shb merge of two shards' reports adds the per-target counts;
#   refusals: a target on another host (its line number), a malformed
#     line, -m with the HTTP format, a URL argument beside --targets.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_targets.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_targets.sh
#
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-targets

e2e_preconditions nginx jq caddy
gen_certs || { echo "FAIL $P setup: gen_certs failed"; exit 1; }
start_or_die "nginx (test/servers/nginx-targets.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-targets.conf.in" targets
ND=$NGINX_DIR
H1="http://127.0.0.1:$NGINX_PORT"
H2C="http://127.0.0.1:$NGINX_PORT_H2C"
TLS="https://127.0.0.1:$NGINX_PORT_TLS"
e2e_diag_extra() { diag_logs "$ND" access error; }

# list BASE FILE: a 3-target HTTP-format list on BASE: GET /a, GET /missing
# (404), POST /p with a 1000-byte body (body.bin beside the file).
mkdir -p "$T/lists"
head -c 1000 /dev/urandom >"$T/lists/body.bin"
list() {
    printf '# three targets\nGET %s/a\nX-Test: 1\n\nGET %s/missing\n\nPOST %s/p\nContent-Type: application/octet-stream\n@body.bin\n' \
        "$1" "$1" "$1" >"$2"
}
# tally: nginx's log as "N METHOD PATH STATUS LENGTH" lines, sorted.
tally() { lines_settled "$ND/access.log" >/dev/null; sort "$ND/access.log" | uniq -c | awk '{$1=$1; print}'; }
# exact N: nginx saw N of each of the three targets, the POST with its body.
exact() {
    local want got
    want=$(printf '%s GET /a 200 -\n%s GET /missing 404 -\n%s POST /p 200 1000' "$1" "$1" "$1")
    got=$(tally)
    [ "$got" = "$want" ] || want "nginx's log: expected $1 of each, got: $(echo "$got" | tr '\n' ',')"
}
# agrees N: the JSON's targets say N each, all answered, with their codes.
agrees() {
    jx "[.targets[] | .requests] == [$1, $1, $1] and [.targets[] | .errors] == [0, 0, 0]" '.targets'
    jx ".targets[0].status == {\"200\": $1} and .targets[1].status == {\"404\": $1} and .targets[2].status == {\"200\": $1}" '.targets'
    jx '[.targets[] | .method] == ["GET", "GET", "POST"] and (.targets[1].url | endswith("/missing"))' '.targets'
}

for proto in h1 h1-close h2c h2-tls paced; do
    case $proto in
        h1) base=$H1 args=(-n 300 -c 7 -t 2) ;;
        h1-close) base=$H1 args=(-n 90 -c 4 -t 2 --disable-keepalive) ;;
        h2c) base=$H2C args=(-n 300 -c 3 -t 2 --http2 -p 8) ;;
        h2-tls) base=$TLS args=(-n 300 -c 3 -t 2 --http2 -p 8) ;;
        paced) base=$H1 args=(-n 60 -c 4 -t 2 -q 300) ;;
    esac
    n=${args[1]}
    list "$base" "$T/lists/$proto.txt"
    : >"$ND/access.log"
    begin "$proto ${args[*]}: seq gives exactly $((n / 3)) per path at nginx, POST bodies 1000 bytes; the JSON agrees"
    shb --targets "$T/lists/$proto.txt" "${args[@]}" -j
    if json_run_ok; then
        exact $((n / 3))
        agrees $((n / 3))
    fi
    finish
done

list "$H1" "$T/lists/text.txt"
begin "text report: a Targets table, a row per target with its status codes"
shb --targets "$T/lists/text.txt" -n 30 -c 3
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -q '^Targets:' "$OUT" || want "no Targets: section"
grep -qE "^  GET $H1/missing +10 +10 +0 .*404×10$" "$OUT" || want "no row 'GET .../missing 10 10 0 ... 404×10': $(grep -A4 '^Targets:' "$OUT" | tr '\n' '|')"
grep -qE "^  POST $H1/p +10 +10 +0 .*200×10$" "$OUT" || want "no POST row"
no_sanitizer_report
finish

# random: the same seed, -n, -c and -t give the same counts per path.
printf '%s/r1\n%s/r2\n%s/r3\n%s/r4\n' "$H1" "$H1" "$H1" "$H1" >"$T/lists/bare.txt"
counts() { lines_settled "$ND/access.log" >/dev/null; awk '{print $2}' "$ND/access.log" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}'; }
declare -A seen
for run in 7a 7b 8; do
    : >"$ND/access.log"
    begin "random --seed ${run%[ab]} -n 400 -c 4 -t 2: every request answered (run $run)"
    shb --targets "$T/lists/bare.txt" --targets-order random --seed "${run%[ab]}" -n 400 -c 4 -t 2 -j
    json_run_ok && jx '.requests.ok == 400 and ([.targets[] | .requests] | add) == 400' '.targets'
    seen[$run]=$(counts)
    finish
done
begin "random: --seed 7 twice gives the same per-path counts at nginx, --seed 8 others"
[ "${seen[7a]}" = "${seen[7b]}" ] || want "seed 7: '${seen[7a]}' then '${seen[7b]}'"
[ "${seen[7a]}" != "${seen[8]}" ] || want "seed 8 gave seed 7's counts: ${seen[8]}"
finish

# HTTP/3: Caddy's /status/NNN answers each target with its own code.
start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy-targets
C="https://127.0.0.1:$CADDY_PORT"
printf 'GET %s/status/201\n\nGET %s/status/202\n\nHEAD %s/status/203\n' "$C" "$C" "$C" >"$T/lists/h3.txt"
begin "HTTP/3 (Caddy) -n 300 -c 3 -p 4: exactly 100 per target, each answered with its own code"
shb --targets "$T/lists/h3.txt" --http3 -n 300 -c 3 -t 2 -p 4 -j
if json_run_ok; then
    jx '[.targets[] | .status] == [{"201": 100}, {"202": 100}, {"203": 100}]' '.targets'
    jx '.statusCodes == {"201": 100, "202": 100, "203": 100}' '.statusCodes'
fi
finish

# shb merge: two shards' reports, per-target counts added.
list "$H1" "$T/lists/shards.txt"
: >"$ND/access.log"
begin "two shards of -n 300 merged: 100 per target in the merged report, as nginx saw"
for i in 0 1; do
    shb --targets "$T/lists/shards.txt" -n 300 -c 4 -t 2 --shard "$i/2" -j
    cp "$OUT" "$T/shard$i.json"
done
shb merge "$T/shard0.json" "$T/shard1.json" -j
if [ "$SHB_RC" -eq 0 ]; then
    agrees 100
    exact 100
else
    want "merge: exit status $SHB_RC: $(head -c 300 "$ERR")"
fi
finish

# --- refusals: one line, exit 2 -----------------------------------------------
printf 'GET %s/a\n\nGET http://127.0.0.2:%s/b\n' "$H1" "$NGINX_PORT" >"$T/lists/other.txt"
begin "a target on another host: its line number, exit 2"
err_case "--targets: line 3: http://127.0.0.2:$NGINX_PORT/b is not on http://127.0.0.1:$NGINX_PORT" --targets "$T/lists/other.txt" -n 1
finish
printf 'GET %s/a\nthis is no header\n' "$H1" >"$T/lists/bad.txt"
begin "a malformed line: its number, exit 2"
err_case "--targets: line 2: expected a header line" --targets "$T/lists/bad.txt" -n 1
finish
begin "-m with the HTTP format: refused"
err_case "-m/--method applies to a list of bare URLs" --targets "$T/lists/text.txt" -m PUT -n 1
finish
begin "a URL argument beside --targets: refused"
err_case "--targets gives the URLs" --targets "$T/lists/text.txt" "$H1/" -n 1
finish
begin "--seed without --targets-order random: refused"
err_case "--seed applies to --targets-order random" --targets "$T/lists/text.txt" --seed 3 -n 1
finish
printf 'GET %s/a\n@missing.bin\n' "$H1" >"$T/lists/nobody.txt"
begin "a body file that is not there: named, exit 2"
err_case "cannot read the body file" --targets "$T/lists/nobody.txt" -n 1
finish

schema_check_all
exit $((FAILS > 0))
