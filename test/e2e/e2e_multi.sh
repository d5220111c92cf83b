#!/usr/bin/env bash
# test/e2e/e2e_multi.sh — end-to-end checks of several targets side by side
# (shb [OPTIONS] <URL>..., each URL or label=URL): the built binary $SHB
# against nginx (test/servers/nginx-multi.conf.in: two HTTP/1.1 servers and an h2c
# one, each logging every request's arrival) and test/servers/pace_server.js.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_multi.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_multi.sh
#
# What is checked: each target gets exactly its -n, one after another; the
# text output is a header line and a report per target, then a table whose
# figures are the reports' own and whose ratios follow from them; -j is one
# JSON array of the reports, each with its label; one URL prints what it
# always did (no header, no table, a JSON object); --http2 applies to every
# target, and so does --http3 (Caddy, when installed); bad input anywhere (a
# duplicate label, a bad second URL, --shard or --start-at with two URLs, a
# target that is down) is one line and exit 2 before any request; Ctrl-C
# during a target reports what ran, marks it, and runs no further target.
# Same conventions as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-multi

e2e_preconditions nginx node jq awk

start_or_die "nginx (test/servers/nginx-multi.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-multi.conf.in" nginx-multi
A="http://127.0.0.1:$NGINX_PORT/"
B="http://127.0.0.1:$NGINX_PORT2/"
H2="http://127.0.0.1:$NGINX_PORT_H2/"
A_LOG="$NGINX_DIR/a.log"
B_LOG="$NGINX_DIR/b.log"
H2_LOG="$NGINX_DIR/h2.log"
# (start_silent is a start_node_server too: before pace_server.js, whose NODE_* stay)
start_or_die silent_server.js start_silent silent-multi
SILENT="http://127.0.0.1:$SILENT_PORT/"
start_or_die pace_server.js start_node_server "$LIB_ROOT/test/servers/pace_server.js" pace-multi
NODE="http://127.0.0.1:$NODE_PORT/"
pick_port DEAD_PORT
DEAD="http://127.0.0.1:$DEAD_PORT/"

# ax EXPR [SHOW]: stdout is a JSON array (as a whole: `.`) satisfying EXPR;
# queued like jx and run in one jq before the next shb run and the verdict.
AX_E=()
AX_S=()
ax() { AX_E+=(".[0] | $1"); AX_S+=(".[0] | ${2:-.}"); }
ax_flush() {
    local -a e=() s=()
    [ "${#AX_E[@]}" -gt 0 ] || return 0
    e=('.[0] | type == "array"' "${AX_E[@]}")
    s=('.[0] | type' "${AX_S[@]}")
    AX_E=()
    AX_S=()
    jq_batch "$OUT" -s "" e s ""
}
e2e_flush_report() { jx_flush; ax_flush; }
e2e_flush_all() { jx_flush; ax_flush; }

# each_report_ok N PROTOCOL: stdout's array holds N reports, each of which
# passes the single report's checks (json_run_ok: every key of the spec,
# consistent counts) with PROTOCOL.
each_report_ok() {
    local n=$1 proto=$2 i out=$OUT
    for ((i = 0; i < n; i++)); do
        jq ".[$i]" "$out" >"$T/report-$i.json" 2>/dev/null || { want "stdout has no report $i"; continue; }
        OUT=$T/report-$i.json
        json_run_ok "$proto" || want "report $i is not a valid report"
        OUT=$out
    done
}

# parse_text FILE: the text output's reports and table, one line each:
#   report NAME RPS P50 P99 OK ERRORS TOTAL   (as the report prints them)
#   row NAME MARK RPS P50 P99 ERRORS RPS_RATIO P50_RATIO P99_RATIO
# NAME is the header's label (or URL); MARK is * for an interrupted row.
parse_text() {
    awk '
        /^== / { name = $2; next }
        /^Requests: / { total = $2; ok = substr($3, 2); errors = $5 }
        /^Requests\/sec: / { rps = $2 }
        /^  50% in / { p50 = $3 }
        /^  99% in / { p99 = $3 }
        /^Latency distribution:/ { inlat = 1 }
        /^  99\.99% in / && inlat { print "report", name, rps, p50, p99, ok, errors, total; inlat = 0 }
        /^Comparison / { table = 1; getline; next }
        table && /^  \* interrupted/ { next }
        table && /^  / {
            mark = "-"
            if ($2 == "*") { mark = "*"; $2 = "" ; $0 = $0; }
            print "row", $1, mark, $2, $3, $4, $5, $6, $7, $8
        }' "$1"
}

# table_ok FILE: every row of the table shows its report's req/s, p50, p99
# and errors exactly as the report prints them, and its ratios to the first
# row are those numbers' ratios, give or take their printed rounding (req/s
# to 0.05, ms to 0.0005, a ratio to 0.0005).
table_ok() {
    local bad
    bad=$(parse_text "$1" | awk '
        $1 == "report" { n++; name[n] = $2; rps[n] = $3; p50[n] = $4; p99[n] = $5; err[n] = $7; next }
        $1 == "row" {
            r++
            if ($2 != name[r]) { print "row " r " is " $2 ", its report " name[r]; next }
            if ($4 != rps[r] || $5 != p50[r] || $6 != p99[r] || $7 != err[r])
                print "row " $2 " shows " $4 " " $5 " " $6 " " $7 ", its report " rps[r] " " p50[r] " " p99[r] " " err[r]
            check($2, "req/s", $8, rps[r], rps[1], 0.05)
            check($2, "p50", $9, p50[r], p50[1], 0.0005)
            check($2, "p99", $10, p99[r], p99[1], 0.0005)
        }
        function check(who, what, got, v, v0, d,   c, tol) {
            c = v / v0
            tol = c * (d / v + d / v0) + 0.0006
            if (got - c > tol || c - got > tol)
                print who ": " what " ratio " got ", expected " c " (within " tol ")"
        }
        END {
            if (n < 2) print "only " n + 0 " reports"
            if (r != n) print r + 0 " table rows for " n + 0 " reports"
        }')
    [ -z "$bad" ] || want "$(tr '\n' ';' <<<"$bad")"
}

# --- two targets: one after another, each its -n, then the table --------------
begin "text: -n 2000 a=nginx:A b=nginx:B: a header and 2000 ok each, in turn; the table is the reports' own"
: >"$A_LOG"
: >"$B_LOG"
shb -n 2000 -c 4 -t 2 "a=$A" "b=$B"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
[ -s "$ERR" ] && want "stderr: $(head -c 300 "$ERR")"
[ "$(head -n 1 "$OUT")" = "== a ($A)" ] || want "first line is not the header '== a ($A)': $(head -n 1 "$OUT")"
[ "$(grep '^== ' "$OUT" | tr '\n' ';')" = "== a ($A);== b ($B);" ] || want "not the two header lines: $(grep '^== ' "$OUT" | tr '\n' ';')"
[ "$(grep -c '^Requests:     2000 (2000 ok, 0 errors, of which 0 connect)' "$OUT")" = 2 ] || want "not 2000 ok in each report"
grep -qx "URL:          $B" "$OUT" || want "no report for $B"
table_ok "$OUT"
# The first row's ratios are 1 by definition.
parse_text "$OUT" | awk '$1 == "row" && $2 == "a" && !($8 == "1.000" && $9 == "1.000" && $10 == "1.000") { exit 1 }' ||
    want "the first row's ratios are not 1.000"
got_a=$(lines_settled "$A_LOG")
got_b=$(lines_settled "$B_LOG")
[ "$got_a $got_b" = "2000 2000" ] || want "the servers got $got_a and $got_b requests, expected 2000 each"
# One after another: a's last request arrived no later than b's first.
last_a=$(sort -n "$A_LOG" | tail -n 1)
first_b=$(sort -n "$B_LOG" | head -n 1)
awk -v a="$last_a" -v b="$first_b" 'BEGIN { exit !(a != "" && b != "" && a + 0 <= b + 0) }' ||
    want "a's last request ($last_a) came after b's first ($first_b): not one after another"
finish

begin "-j: one JSON array of the 2 reports, each with its label; the jq comparison of docs/usage.md works"
: >"$A_LOG"
: >"$B_LOG"
shb -n 2000 -c 4 -t 2 -j "a=$A" "b=$B"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
[ "$(jq -s 'length' "$OUT" 2>/dev/null)" = 1 ] || want "stdout is not exactly one JSON document"
ax 'length == 2 and [.[].label] == ["a", "b"]' '[.[].label]'
ax "[.[].url] == [\"$A\", \"$B\"]" '[.[].url]'
ax 'all(.requests.ok == 2000 and .requests.errors == 0 and .protocol == "HTTP/1.1")' '[.[].requests]'
ax 'all(.interrupted == false)' '[.[] | {interrupted}]'
ax '.[0] | keys_unsorted[0:2] == ["label", "url"]' '.[0] | keys_unsorted'
each_report_ok 2 HTTP/1.1
# The comparison, computed from the array as docs/usage.md's "Several targets side by side" shows.
cmp_tsv=$(jq -r '.[0] as $f | .[] | [.label // .url, .requestsPerSec / $f.requestsPerSec,
    .latencySeconds.percentiles.p50 / $f.latencySeconds.percentiles.p50,
    .latencySeconds.percentiles.p99 / $f.latencySeconds.percentiles.p99] | @tsv' "$OUT" 2>/dev/null)
awk -F'\t' 'NR == 1 && !($1 == "a" && $2 == 1 && $3 == 1 && $4 == 1) { exit 1 } NR == 2 && !($1 == "b" && $2 > 0 && $3 > 0 && $4 > 0) { exit 1 } END { exit NR != 2 }' <<<"$cmp_tsv" ||
    want "the jq comparison of docs/usage.md gave: $(tr '\t\n' ' ;' <<<"$cmp_tsv")"
[ "$(lines_settled "$A_LOG") $(lines_settled "$B_LOG")" = "2000 2000" ] || want "the servers did not get 2000 each"
finish

begin "--http2 applies to every target: h2=URL and the bare URL, both HTTP/2, 300 each; an unlabelled row is its URL"
: >"$H2_LOG"
shb --http2 -p 4 -n 300 -c 2 -t 1 -j "h2=$H2" "$H2"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
ax 'length == 2 and all(.protocol == "HTTP/2" and .requests.ok == 300)' '[.[] | {protocol, requests}]'
ax '.[0].label == "h2" and (.[1] | has("label") | not)' '[.[] | keys_unsorted[0:2]]'
each_report_ok 2 HTTP/2
[ "$(lines_settled "$H2_LOG")" = 600 ] || want "nginx h2 got $(wc -l <"$H2_LOG") requests, expected 600"
shb --http2 -p 4 -n 300 -c 2 -t 1 "h2=$H2" "$H2"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -qx "== $H2" "$OUT" || want "no header line '== $H2' for the unlabelled target"
[ "$(grep -c '^Protocol:     HTTP/2$' "$OUT")" = 2 ] || want "not two HTTP/2 reports"
parse_text "$OUT" | grep -q "^row $H2 - " || want "no table row named $H2"
table_ok "$OUT"
finish

if command -v caddy >/dev/null 2>&1; then
    start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy-multi
    begin "--http3 applies to every target: two labelled Caddy targets, HTTP/3 over QUIC, 200 each"
    shb --http3 -p 4 -n 200 -c 2 -t 1 -j "x=https://127.0.0.1:$CADDY_PORT/" "y=https://127.0.0.1:$CADDY_PORT/"
    [ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
    ax 'length == 2 and [.[].label] == ["x", "y"]' '[.[].label]'
    ax 'all(.protocol == "HTTP/3" and .requests.ok == 200 and .quic.packetsSent > 0)' '[.[] | {protocol, requests}]'
    each_report_ok 2 HTTP/3
    finish
else
    skip "--http3 with several targets: caddy is not installed (bash scripts/deps.sh)"
fi

# --- one URL: exactly as before ---------------------------------------------------
begin "one URL: no header line, no table; -j is one object without a label"
shb -n 100 -c 2 "$A"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
[ "$(head -n 1 "$OUT")" = "URL:          $A" ] || want "first line: $(head -n 1 "$OUT")"
grep -qE '^(== |Comparison|Interrupted)' "$OUT" && want "a header, table or mark with one URL"
[ "$(grep -c '^URL:' "$OUT")" = 1 ] || want "not one report"
shb -n 100 -c 2 -j "$A"
json_run_ok HTTP/1.1
jx '(has("label") | not) and .interrupted == false' '{label, interrupted}'
jx '.requests.ok == 100' '.requests'
finish

begin "one labelled URL: its header line in text, and its label in the JSON object"
shb -n 100 -c 2 "solo=$A"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
[ "$(head -n 1 "$OUT")" = "== solo ($A)" ] || want "first line: $(head -n 1 "$OUT")"
grep -q '^Comparison' "$OUT" && want "a table for one target"
shb -n 100 -c 2 -j "solo=$A"
json_run_ok HTTP/1.1
jx ".label == \"solo\" and .url == \"$A\"" '[.label, .url]'
finish

# --- bad input anywhere: one line, exit 2, no request -----------------------------
# refused WHAT ARGS...: shb ARGS is one line on stderr naming WHAT, exit 2,
# nothing on stdout, and neither nginx server saw a request.
refused() {
    local what=$1
    shift
    : >"$A_LOG"
    : >"$B_LOG"
    shb "$@"
    one_line_exit 2
    case $ERR_LINE in *"$what"*) ;; *) want "the error does not name '$what': $ERR_LINE" ;; esac
    [ "$(lines_settled "$A_LOG") $(lines_settled "$B_LOG")" = "0 0" ] || want "a server got requests"
}

begin "a label given twice: one line naming it, exit 2"
refused "label 'x' given twice" -n 10 "x=$A" "y=$B" "x=$B"
finish

begin "a bad second URL: one line naming it, exit 2, the first target not run"
refused "b=htp://127.0.0.1/" -n 10 "a=$A" "b=htp://127.0.0.1/"
refused "'http://:80/'" -n 10 "$A" "http://:80/"
finish

begin "--shard and --start-at with two URLs: refused, one line, exit 2"
refused "--shard" --shard 0/2 -n 10 "$A" "$B"
refused "--start-at" --start-at "$(($(date +%s) + 60))" -n 10 "$A" "$B"
finish

begin "the second target down: one line naming it before any request, exit 2"
refused "target down ($DEAD) does not accept connections" -n 10 "up=$A" "down=$DEAD"
refused "target $DEAD does not accept connections" -n 10 "$A" "$DEAD"
finish

begin "--http3 and a second URL that is not https://: one line naming it, exit 2"
refused "'b=$B'" --http3 -n 10 "a=https://127.0.0.1:$NGINX_PORT/" "b=$B"
finish

begin "a target with only errors (every request timed out): '-' for its p50, p99 and their ratios, not 0.000"
shb -n 4 -c 2 -t 1 --timeout 300ms "up=$A" "silent=$SILENT"
no_response_exit "target silent: "
row=$(grep '^  silent ' "$OUT")
read -r _ _ p50 p99 errors rps_ratio p50_ratio p99_ratio <<<"$row"
[ "$p50 $p99 $errors $p50_ratio $p99_ratio" = "- - 4 - -" ] || want "the silent row: $row"
case $rps_ratio in [0-9]*.[0-9][0-9][0-9]) ;; *) want "no req/s ratio in the silent row: $row" ;; esac
grep -q '^  up .* 1\.000 *1\.000 *1\.000$' "$OUT" || want "the first row's ratios are not 1.000: $(grep '^  up ' "$OUT")"
finish

# --- Ctrl-C during a target ------------------------------------------------------
# ctrl_c_during_b ARGS...: runs shb ARGS a=nginx:A b=node c=nginx:B (each
# -z 3s) with SIGINT's default disposition and sends it one SIGINT as soon
# as the node server (b) has seen a request; then waits up to 5 s for the
# exit. Sets SHB_RC.
ctrl_c_during_b() {
    local pid i
    e2e_flush_report
    : >"$A_LOG"
    : >"$B_LOG"
    : >"$NODE_LOG"
    LAST_CMD="$SHB $* -z 3s a=$A b=$NODE c=$B, SIGINT once b has a request"
    env --default-signal=INT "$SHB" "$@" -z 3s -c 2 -t 1 "a=$A" "b=$NODE" "c=$B" >"$OUT" 2>"$ERR" </dev/null &
    pid=$!
    SHB_CHILD=$pid
    for ((i = 0; i < 600; i++)); do
        [ -s "$NODE_LOG" ] && break
        sleep 0.05
    done
    [ -s "$NODE_LOG" ] || want "b never got a request"
    kill -INT "$pid" 2>/dev/null || want "shb was not running when b had its first request"
    if wait_gone "$pid" 5000; then
        wait "$pid"
        SHB_RC=$?
    else
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        SHB_RC=137
        want "still running 5 s after the SIGINT"
    fi
    SHB_CHILD=""
    [ "$SHB_RC" -eq 137 ] || schema_collect_if_json "$OUT" "$@"
    [ "$(lines_settled "$B_LOG")" = 0 ] || want "c (nginx:B) got requests after the Ctrl-C"
    [ "$(lines_settled "$A_LOG")" -gt 0 ] || want "a (nginx:A) got no request"
    no_sanitizer_report
    [ "$(cat "$ERR")" = 'shb: interrupted: 1 of 3 targets not run (from c on)' ] ||
        want "stderr is not the one line 'shb: interrupted: 1 of 3 targets not run (from c on)': $(head -c 300 "$ERR")"
}

begin "Ctrl-C during b of a, b, c: a's and b's reports, b marked interrupted, c never run, exit 0"
ctrl_c_during_b
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
[ "$(grep '^== ' "$OUT" | tr '\n' ';')" = "== a ($A);== b ($NODE);" ] || want "headers: $(grep '^== ' "$OUT" | tr '\n' ';')"
[ "$(grep -c '^Interrupted:  yes (SIGINT: the figures cover the run until then)$' "$OUT")" = 1 ] || want "not one Interrupted line"
# The mark follows b's report, not a's.
awk '/^== b / { b = 1 } /^Interrupted:/ { exit !b }' "$OUT" || want "the Interrupted line is not in b's report"
parse_text "$OUT" | awk '$1 == "row" { rows = rows $2 $3 " " } END { exit rows != "a- b* " }' ||
    want "table rows (name, mark): $(parse_text "$OUT" | awk '$1 == "row" { printf "%s%s ", $2, $3 }')"
grep -qx '  \* interrupted by a signal (Ctrl-C, SIGTERM): its figures cover the run until then' "$OUT" || want "no footnote for the mark"
table_ok "$OUT"
finish

begin "Ctrl-C during b with -j: an array of a's and b's reports, b's \"interrupted\": true, exit 0"
ctrl_c_during_b -j
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
ax 'length == 2 and [.[].label] == ["a", "b"]' '[.[].label]'
ax '.[0].interrupted == false and .[1].interrupted == true' '[.[] | {label, interrupted}]'
ax '.[0].durationSeconds > 2.9 and .[1].durationSeconds < 3 and .[1].requests.ok > 0' '[.[] | {durationSeconds, requests}]'
finish

[ "$FAILS" -eq 0 ]
