#!/usr/bin/env bash
# test/e2e/e2e_gates.sh — gates for CI: --fail-if thresholds and the exit
# status a run's figures call for, against nginx (test/servers/nginx.conf.in:
# 200 on /, 500 on /status/500), a refused port and a server that never
# answers (test/servers/silent_server.js).
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_gates.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_gates.sh
#
# Every form of expression is run held and failed (latencies against a
# loopback nginx: under 10 s always, over 1 µs always), the exit status is
# 0 or 3 accordingly, and the report's Thresholds: block and thresholds
# array say the same; without --fail-if a run with no response exits 1
# with one line on stderr. Same conventions as test/e2e/e2e.sh.
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-gates

e2e_preconditions nginx jq node

start_or_die "nginx (test/servers/nginx.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx.conf.in" nginx-gates
start_or_die "the silent server (test/servers/silent_server.js)" start_silent silent-gates
H1="127.0.0.1:$NGINX_PORT"
pick_port FREE_PORT
REFUSED="127.0.0.1:$FREE_PORT" # nothing listens there

# verdicts EXPECTED...: the JSON report's thresholds, in order, failed
# (true) or held (false), each with a value.
verdicts() {
    local want
    want=$(printf '%s\n' "$@" | jq -R 'if . == "fail" then true else false end' | jq -s -c .)
    jx "[.thresholds[].failed] == $want and all(.thresholds[]; has(\"value\"))" '.thresholds'
}

# arr EXPR SHOW: stdout, the array of several targets' reports, satisfies EXPR.
arr() {
    jq -e "type == \"array\" and ($1)" "$OUT" >/dev/null 2>&1 || want "expected $1 (got $(jq -c "$2" "$OUT" 2>/dev/null | head -c 300))"
}

begin "every figure held: p50, p99.9, mean, min, max, rps, errors, non2xx, ok, a kind; exit 0, 'all N held'"
shb -n 200 -c 4 -j --fail-if 'p50>10s' --fail-if 'p99.9 >= 10s' --fail-if 'mean>10s' --fail-if 'min>10s' \
    --fail-if 'max>10s' --fail-if 'rps<1' --fail-if 'errors>0' --fail-if 'errors>1%' --fail-if 'non2xx>0' \
    --fail-if 'ok<100%' --fail-if 'timeout>0' --fail-if 'tls-handshake>0' "http://$H1/"
json_run_ok HTTP/1.1 '.statusCodes == {"200": 200}' '.statusCodes'
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC, expected 0"
verdicts held held held held held held held held held held held held
jx '.thresholds[1].expression == "p99.9>=10s" and (.thresholds[1].value | . > 0 and . < 10)
    and .thresholds[5].value > 1 and .thresholds[6].value == 0 and .thresholds[9].value == 100' '.thresholds'
finish

begin "each figure failed in turn: exit 3, the text block names it FAILED with the figure"
for expr in 'p50>1us' 'p99.9>=1ns' 'mean>1us' 'min>=1ns' 'max>1us' 'rps<1G' 'ok>=200' 'ok>99.5%' 'errors<1' \
    'timeout<1'; do
    shb -n 200 -c 4 --fail-if "$expr" "http://$H1/"
    [ "$SHB_RC" -eq 3 ] || want "$expr: exit status $SHB_RC, expected 3"
    grep -qx "Thresholds:   1 of 1 failed (exit status 3)" "$OUT" || want "$expr: no 'Thresholds:   1 of 1 failed' line"
    grep -q "^  $expr  FAILED  " "$OUT" || want "$expr: no '  $expr  FAILED' line: $(grep -A2 '^Thresholds' "$OUT")"
    [ -s "$ERR" ] && want "$expr: wrote to stderr: $(head -c 200 "$ERR")"
done
finish

begin "non2xx against nginx's 500: non2xx>0 and non2xx>50% fail, errors>0 holds: exit 3"
shb -n 100 -c 2 -j --fail-if 'non2xx>0' --fail-if 'non2xx>50%' --fail-if 'errors>0' "http://$H1/status/500"
json_run_ok HTTP/1.1 '.statusCodes == {"500": 100}' '.statusCodes'
[ "$SHB_RC" -eq 3 ] || want "exit status $SHB_RC, expected 3"
verdicts fail fail held
jx '.thresholds[0].value == 100 and .thresholds[1].value == 100 and .thresholds[2].value == 0' '.thresholds'
finish

begin "a refused port: errors>99% and connect>0 fail, p99>10s fails as not measured (null); ok<1 fails"
shb -n 20 -c 2 -j --fail-if 'errors>99%' --fail-if 'connect>0' --fail-if 'p99>10s' --fail-if 'ok<1' "http://$REFUSED/"
json_run_ok HTTP/1.1 '.errorKinds == {"connect": 20}' '.errorKinds'
[ "$SHB_RC" -eq 3 ] || want "exit status $SHB_RC, expected 3"
verdicts fail fail fail fail
jx '.thresholds[2].value == null and .thresholds[0].value == 100' '.thresholds'
[ -s "$ERR" ] && want "--fail-if decides: no 'no request succeeded' line expected, got $(head -c 200 "$ERR")"
shb -n 20 -c 2 --fail-if 'p99>10s' "http://$REFUSED/"
grep -q "^  p99>10s  FAILED  p99 not measured: no responses$" "$OUT" || want "text: no 'not measured' line"
finish

begin "a refused port without --fail-if: the report, then exit 1 and one line: no request succeeded, the kind and why"
shb -n 20 -c 2 "http://$REFUSED/"
[ "$SHB_RC" -eq 1 ] || want "exit status $SHB_RC, expected 1"
grep -q "^Errors:" "$OUT" || want "no report on stdout"
[ "$(wc -l <"$ERR")" -eq 1 ] || want "stderr: $(wc -l <"$ERR") lines, expected 1"
grep -qx "shb: no request succeeded: all 20 ended in errors (20 connect: Connection refused)" "$ERR" ||
    want "stderr: $(head -c 300 "$ERR")"
finish

begin "a server that never answers, -z 1s: nothing answered, exit 1: 'still in flight when the run ended'"
shb -z 1s -c 3 -t 1 --timeout 0 -j "http://127.0.0.1:$SILENT_PORT/"
json_run_ok HTTP/1.1 '.requests.total == 0 and .inFlight == 3' '{requests, inFlight}'
grep -qx "shb: no request succeeded: 3 still in flight when the run ended" "$ERR" || want "stderr: $(head -c 300 "$ERR")"
finish

begin "several targets: each judged alone (a's held, b's failed), exit 3; without --fail-if, b all errors: exit 1 naming b"
shb -n 50 -c 2 -j --fail-if 'non2xx>0' "a=http://$H1/" "b=http://$H1/status/500"
[ "$SHB_RC" -eq 3 ] || want "exit status $SHB_RC, expected 3"
arr 'length == 2 and ([.[] | .thresholds[0].failed] == [false, true])' '[.[] | .thresholds]'
# b: https:// to nginx's plain-HTTP port, every handshake fails.
shb -n 20 -c 2 -j "a=http://$H1/" "b=https://$H1/"
[ "$SHB_RC" -eq 1 ] || want "exit status $SHB_RC, expected 1"
grep -qx "shb: target b: no request succeeded: all 20 ended in errors (20 tls handshake: the server at $H1 answered in plain HTTP: is this port TLS? (try http://))" "$ERR" ||
    want "stderr: $(head -c 300 "$ERR")"
arr '.[0].requests.ok == 20 and .[1].requests.ok == 0' '[.[] | .requests]' 
finish

begin "shb merge --fail-if judges the merged report: two shards' 200 requests, held exit 0, failed exit 3, malformed exit 2"
run_shards gate 2 -n 200 -c 4 -j "http://$H1/"
"$SHB" merge -j --fail-if 'p99>10s' --fail-if=ok\<200 "$T/gate-0.json" "$T/gate-1.json" >"$T/m.json" 2>"$T/m.err"
rc=$?
[ "$rc" -eq 0 ] || want "held: exit status $rc: $(head -c 200 "$T/m.err")"
jq -e '.requests.ok == 200 and ([.thresholds[].failed] == [false, false]) and .thresholds[1].value == 200' "$T/m.json" >/dev/null 2>&1 ||
    want "held: $(jq -c '{requests, thresholds}' "$T/m.json" 2>/dev/null | head -c 300)"
"$SHB" merge --fail-if 'ok>=200' "$T/gate-0.json" "$T/gate-1.json" >"$T/m.txt" 2>"$T/m.err"
rc=$?
[ "$rc" -eq 3 ] || want "failed: exit status $rc, expected 3"
grep -q "^  ok>=200  FAILED  ok 200$" "$T/m.txt" || want "failed: no '  ok>=200  FAILED  ok 200' line: $(grep -A2 '^Thresholds' "$T/m.txt")"
"$SHB" merge --fail-if 'p99>250' "$T/gate-0.json" >"$T/m.txt" 2>"$T/m.err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$T/m.txt" ] && grep -qx "shb: merge: invalid value 'p99>250' for --fail-if: p99 is a latency: its limit is a duration with a unit, e.g. 250ms or 1.5s (got '250')" "$T/m.err" ||
    want "malformed: exit $rc, stderr $(head -c 300 "$T/m.err")"
finish

begin "malformed expressions: one line each, exit 2, nothing sent"
for case in 'p99>250|p99 is a latency: its limit is a duration with a unit' 'p99|expected METRIC>LIMIT' \
    'latency>1ms|unknown metric' 'rps<5%|rps is a rate' 'errors>101%|more than 100%' 'p0>1ms|is no percentile'; do
    expr=${case%%|*} why=${case#*|}
    shb --fail-if "$expr" -n 5 "http://$H1/"
    one_line_exit 2
    case "$ERR_LINE" in
        "shb: invalid value '$expr' for --fail-if: "*"$why"*) ;;
        *) want "'$expr': $ERR_LINE" ;;
    esac
done
finish


