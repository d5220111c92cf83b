#!/usr/bin/env bash
# test/e2e/e2e_log.sh — end-to-end checks of --log (a line per request): the
# built binary $SHB against nginx (HTTP/1.1, h2c; test/servers/nginx-rate.conf.in)
# and Caddy (HTTP/3), each log read back by test/e2e/reqlog_check.py beside the
# run's JSON report.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_log.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_log.sh
#
# What is checked: a line per request, exactly (measured lines ==
# requests.total, warm-up lines marked and == warmup.requests); status and
# error-kind counts and p50/p90/p99/max as the report's (within the
# histogram's 1/1000 and the µs rounding); TSV, CSV (Python's csv) and JSON
# Lines (Python's json); errors of a refused port, each a `connect` line; -q
# (start times on the schedule); Ctrl-C mid-run (the log complete when the
# report is out); a run of many buffers; a file that stops taking writes
# (the run goes on, one stderr line, exit 1); misuse (one line, exit 2).
# Same conventions as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-log

e2e_preconditions nginx jq python3

start_or_die "nginx (test/servers/nginx-rate.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-rate.conf.in" nginx-log
H1="http://127.0.0.1:$NGINX_PORT/"
H2C="http://127.0.0.1:$NGINX_PORT2/"

# log_ok FORMAT LOG [ARGS...]: the log agrees with the report ($OUT); the
# summary (reqlog_check.py --summary) is left in $T/sum.json.
log_ok() {
    local fmt=$1 log=$2 out
    shift 2
    if ! out=$(python3 test/e2e/reqlog_check.py "$fmt" "$log" "$OUT" --summary "$@" 2>&1); then
        want "the log against the report: $(echo "$out" | head -n 5 | tr '\n' ';')"
        echo '{}' >"$T/sum.json"
        return 1
    fi
    echo "$out" >"$T/sum.json"
}

# nginx_agrees NGINX_LOG LOG: nginx logged ($msec, the time it finished
# each response) as many requests as LOG has lines after its header, each
# within the run: between the log's first start and its last start plus
# the largest latency.
nginx_agrees() {
    local ours theirs
    lines_settled "$1" >/dev/null
    theirs=$(wc -l <"$1")
    ours=$(($(wc -l <"$2") - 1))
    [ "$theirs" = "$ours" ] || want "nginx logged $theirs requests, the log has $ours lines"
    python3 - "$1" "$T/sum.json" <<'PY' || want "nginx's times fall outside the log's window"
import json, sys
t = [float(l) * 1e6 for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
lo, hi = s["first_start_us"] - 1000, s["last_start_us"] + 1e6
sys.exit(0 if t and lo <= min(t) and max(t) <= hi else 1)
PY
}

# sum_ok JQ: a check of the summary.
sum_ok() {
    jq -e "$1" "$T/sum.json" >/dev/null 2>&1 || want "log summary: $1 is false: $(cat "$T/sum.json")"
}

# --- every protocol, every format ----------------------------------------------
begin "HTTP/1.1 -n 3000 -c 8 -t 2, tsv: a line per request, statuses and percentiles as the report's, requests numbered from 1"
: >"$NGINX_DIR/h1.log"
shb -n 3000 -c 8 -t 2 --log "$T/h1.tsv" -j "$H1"
if json_run_ok "" '.requests.ok == 3000' '.requests'; then
    log_ok tsv "$T/h1.tsv" && sum_ok '.lines == 3000 and .conns == 8 and .threads == 2 and .min_stream == 1'
    nginx_agrees "$NGINX_DIR/h1.log" "$T/h1.tsv"
fi
finish

begin "h2c -n 3000 -c 4 -p 8, csv (Python's csv): odd stream ids, a line per request"
: >"$NGINX_DIR/h2.log"
shb --http2 -n 3000 -c 4 -p 8 -t 2 --log "$T/h2.csv" --log-format csv -j "$H2C"
if json_run_ok HTTP/2 '.requests.ok == 3000' '.requests'; then
    log_ok csv "$T/h2.csv" && sum_ok '.lines == 3000 and .streams_odd and .conns == 4'
    nginx_agrees "$NGINX_DIR/h2.log" "$T/h2.csv"
fi
finish

if command -v caddy >/dev/null 2>&1; then
    start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy-log
    begin "HTTP/3 (Caddy) -n 600 -c 3 -p 4, jsonl (Python's json): a line per request, client bidirectional stream ids"
    shb --http3 -n 600 -c 3 -p 4 --log "$T/h3.jsonl" --log-format jsonl -j "https://127.0.0.1:$CADDY_PORT/"
    if json_run_ok HTTP/3 '.requests.ok == 600' '.requests'; then
        log_ok jsonl "$T/h3.jsonl" && sum_ok '.lines == 600 and .conns == 3 and .streams_bidi'
    fi
    finish
else
    skip "HTTP/3: caddy is not installed (bash scripts/deps.sh)"
fi

# --- warm-up, errors, the open model ------------------------------------------------
begin "--targets (3 paths) over h2c -n 3000 -c 4 -p 4, tsv: the target column gives each target's row of the report's table, 1000 each"
printf '%sa\n%sb\n%sc\n' "$H2C" "$H2C" "$H2C" >"$T/three.txt"
shb --http2 -n 3000 -c 4 -p 4 -t 2 --targets "$T/three.txt" --log "$T/targets.tsv" -j
if json_run_ok HTTP/2 '.requests.ok == 3000' '.requests'; then
    log_ok tsv "$T/targets.tsv" && sum_ok '.per_target == [1000, 1000, 1000]'
fi
finish

begin "--warmup 1s -z 2s: warm-up lines marked and as many as warmup.requests, the rest as requests.total"
shb --warmup 1s -z 2s -c 4 --log "$T/warm.tsv" -j "$H1"
if json_run_ok "" '.warmup.requests > 0 and .requests.ok > 0' '{requests, warmup}'; then
    log_ok tsv "$T/warm.tsv" && sum_ok '.warmup > 0'
fi
finish

pick_port NO_PORT
begin "a refused port, -n 50 -c 2: 50 lines, each a 'connect' error on connection 0 or 1, stream 0"
shb -n 50 -c 2 --log "$T/refused.csv" --log-format csv -j "http://127.0.0.1:$NO_PORT/"
run_status_ok
jx '.requests.errors == 50 and .errorKinds == {"connect": 50}' '.requests'
log_ok csv "$T/refused.csv" --all-error connect && sum_ok '.lines == 50 and .conns <= 2'
finish

begin "-q 500 -z 2s: start times on the schedule (median gap 2 ms), a line per request"
shb -q 500 -z 2s -c 4 --log "$T/rate.tsv" -j "$H1"
if json_run_ok "" '.requests.ok > 900' '.requests'; then
    log_ok tsv "$T/rate.tsv" && sum_ok '.median_gap_us >= 1900 and .median_gap_us <= 2100'
fi
finish

# --- the run's end ----------------------------------------------------------------
begin "Ctrl-C 1 s into -z 20s: the log complete when the report is out, as many lines as requests.total"
shb_interrupted 1 10000 -z 20s -c 4 --log "$T/int.tsv" -j "$H1"
if json_run_ok "" '.interrupted == true and .requests.ok > 0' '{interrupted, requests}'; then
    log_ok tsv "$T/int.tsv"
fi
finish

begin "-n 200000 -c 16 -t 2: a log of many buffers (tens of writes a worker), every line there"
shb -n 200000 -c 16 -t 2 --log "$T/big.tsv" -j "$H1"
if json_run_ok "" '.requests.ok == 200000' '.requests'; then
    size=$(wc -c <"$T/big.tsv")
    [ "$size" -gt $((4 * 262144)) ] || want "the log is only $size bytes: fewer than four buffers"
    log_ok tsv "$T/big.tsv" && sum_ok '.lines == 200000'
fi
finish

begin "a file that stops taking writes (ulimit -f 64 KiB): the run goes on and reports, one stderr line, exit 1"
(ulimit -f 64; trap '' XFSZ; exec timeout -k 5 "$SHB_TIMEOUT" "$SHB" -n 20000 -c 4 --log "$T/full.tsv" -j "$H1" >"$OUT" 2>"$ERR")
SHB_RC=$?
[ "$SHB_RC" -eq 1 ] || want "exit status $SHB_RC, expected 1"
grep -q '^shb: --log .*writing failed (File too large): the log is incomplete' "$ERR" ||
    want "no 'the log is incomplete' line on stderr: $(head -c 300 "$ERR")"
jq -e '.requests.ok == 20000' "$OUT" >/dev/null 2>&1 || want "no report of 20000 responses: $(head -c 200 "$OUT")"
[ "$(wc -c <"$T/full.tsv")" -le 65536 ] || want "the log grew past the limit"
no_sanitizer_report
finish

# --- misuse ------------------------------------------------------------------------
begin "--log -: one line, exit 2 (the report is on stdout)"
shb -n 1 --log - "$H1"
one_line_exit 2
[[ $ERR_LINE == *"--log -"* ]] || want "the line does not name --log -: $ERR_LINE"
finish

begin "--log-format xml: one line naming the formats, exit 2"
shb -n 1 --log "$T/x" --log-format xml "$H1"
one_line_exit 2
[[ $ERR_LINE == *"tsv, csv or jsonl"* ]] || want "the line does not name the formats: $ERR_LINE"
finish

begin "--log in a directory that does not exist: one line naming the file, exit 2, before any traffic"
: >"$NGINX_DIR/h1.log"
shb -n 5 --log "$T/no/such/dir/x.tsv" "$H1"
one_line_exit 2
[[ $ERR_LINE == *"$T/no/such/dir/x.tsv"* ]] || want "the line does not name the file: $ERR_LINE"
[ -s "$NGINX_DIR/h1.log" ] && want "nginx got requests"
finish

begin "--log with two URLs: one line, exit 2"
shb -n 1 --log "$T/two.tsv" "$H1" "$H2C"
one_line_exit 2
finish
