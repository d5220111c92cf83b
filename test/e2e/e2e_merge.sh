#!/usr/bin/env bash
# test/e2e/e2e_merge.sh — end-to-end checks of `shb merge`: real runs' JSON
# reports (shards run at once as plain background processes, separate runs,
# HTTP/1.1, h2c, -q, HTTP/3) merged by the built binary $SHB, and the result
# checked against the reports themselves and against test/vectors/hdr_ref.py, which
# decodes the histograms with Python's own base64 and zlib and works out
# the percentiles of all the samples by shb's rule, sharing no code with
# hdr.c or merge.c.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_merge.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_merge.sh
#
# What is checked: 4 shards of -n 4000 merge into exactly 4000 requests
# (nginx saw 4000), the whole run (shards 0-3 of 4), with latency and phase
# percentiles equal to those of the four histograms added; the rate is over
# the union of the windows, a gap included; the per-second timelines laid
# on one (entry for entry what test/vectors/hdr_ref.py works out from the
# reports'); a report merged with itself
# doubles every count and keeps every percentile; merges of merges equal
# the merge of all; -q shards add their rates; arrays of reports merge;
# reports of other URLs, of -q with closed runs, without histograms (run
# without --histograms), or not JSON are one-line errors. Same conventions as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-merge

e2e_preconditions nginx jq python3

start_or_die "nginx (test/servers/nginx-rate.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-rate.conf.in" nginx-merge
H1="http://127.0.0.1:$NGINX_PORT/"
H2="http://127.0.0.1:$NGINX_PORT2/"
H1_LOG="$NGINX_DIR/h1.log"
VERSION=$("$SHB" -V | sed -n '1s/^shb //p') # what every report's shbVersion says

# run NAME ARGS...: one `shb ARGS` into $T/NAME.json.
run() {
    local name=$1
    shift
    shb "$@"
    [ "$SHB_RC" -eq 0 ] || want "$name: exit status $SHB_RC: $(head -c 300 "$ERR")"
    cp "$OUT" "$T/$name.json"
}

# ref KEY FILE...: $OUT's KEY is what test/vectors/hdr_ref.py works out from FILEs.
ref() {
    local key=$1 got
    shift
    got=$(python3 test/vectors/hdr_ref.py "$key" "$OUT" "$@" 2>&1) || want "$key against hdr_ref.py: $got"
}

# --- shards of one run --------------------------------------------------------
begin "h1: 4 shards of -n 4000 -c 8, --start-at, merged: exactly 4000 (nginx too), shards 0-3 of 4, percentiles those of all four histograms"
: >"$H1_LOG"
at=$(awk -v t="$(date +%s.%N)" 'BEGIN { printf "%.3f", t + 1.5 }')
run_shards h1 4 -n 4000 -c 8 -t 1 --start-at "$at" -j "$H1"
got=$(lines_settled "$H1_LOG")
[ "$got" = 4000 ] || want "nginx got $got requests, expected exactly 4000"
shb merge -j --histograms "$T"/h1-{0,1,2,3}.json
json_run_ok HTTP/1.1
jx '.requests == {total: 4000, ok: 4000, errors: 0, connectErrors: 0, non2xx: 0} and .statusCodes == {"200": 4000}' '{requests, statusCodes}'
jx '.merged == {reports: 4, shardCount: 4, shards: [0, 1, 2, 3], complete: true, shardTwice: false} and .shard == {index: 0, count: 1}' '{merged, shard}'
jx '.threads == 4 and .connections == 8 and .connectionsOpened == 8' '{threads, connections, connectionsOpened}'
jx '([.timeline[].ok] | add) == 4000' '[.timeline[] | del(.histogram)]'
jx '.phases.firstByte.count == 4000 and .phases.connect.count == 8' '.phases | map_values(.count)'
e2e_flush_report
cp "$OUT" "$T/h1-merged.json"
# The window: the earliest start to the latest end, and the rate over it.
python3 - "$T/h1-merged.json" "$T"/h1-{0,1,2,3}.json <<'EOF' || want "window: see above"
import json, sys
def ns(t):
    w, _, f = t.partition("."); return int(w) * 10**9 + int((f + "000000000")[:9])
m, *shards = [json.load(open(f), parse_float=str) for f in sys.argv[1:]]
start = min(ns(s["startTime"]) for s in shards); end = max(ns(s["endTime"]) for s in shards)
ok = ns(m["startTime"]) == start and ns(m["endTime"]) == end and ns(m["durationSeconds"]) == end - start
ok = ok and abs(float(m["requestsPerSec"]) - 4000 / ((end - start) / 1e9)) <= 0.05 + 1e-9  # printed to 0.1
sys.exit(0 if ok else print("merged window", m["startTime"], m["endTime"], m["durationSeconds"], "shards", start, end) or 1)
EOF
ref latencySeconds "$T"/h1-{0,1,2,3}.json
ref phases.connect "$T"/h1-{0,1,2,3}.json
ref phases.firstByte "$T"/h1-{0,1,2,3}.json
ref timeline "$T"/h1-{0,1,2,3}.json
finish

begin "timeline: 2 shards of -z 3s at one --start-at: one timeline, second by second the sum of both; the text report's sparkline"
at=$(awk -v t="$(date +%s.%N)" 'BEGIN { printf "%.3f", t + 1.5 }')
run_shards tl 2 -z 3s -c 4 -t 1 --start-at "$at" -j "$H1"
shb merge -j --histograms "$T"/tl-{0,1}.json
json_run_ok HTTP/1.1
jx '(.timeline | length) >= 3 and ([.timeline[].ok] | add) == .requests.ok and ([.timeline[].errors] | add) == .requests.errors and ([.timeline[].bytesReceived] | add) == .bytesReceived' '[.timeline[] | del(.histogram)]'
jx '.timeline[:3] | all(.seconds == 1 and .ok > 0)' '[.timeline[] | del(.histogram)]'
e2e_flush_report
ref timeline "$T"/tl-{0,1}.json
shb merge "$T"/tl-{0,1}.json
grep -q '^Timeline:     .* requests/s, 1 s a mark, min ' "$OUT" || want "no sparkline in the merged text report: $(tail -n 2 "$OUT")"
finish

begin "text: the merged report says what went in (Merged: 4 reports: shards 0-3 of 4, the whole run)"
shb merge "$T"/h1-{0,1,2,3}.json
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -qx 'Merged:       4 reports: shards 0-3 of 4, the whole run' "$OUT" || want "no Merged line: $(grep Merged "$OUT")"
grep -q '^Requests:     4000 (4000 ok, 0 errors, of which 0 connect) in ' "$OUT" || want "Requests line: $(grep Requests: "$OUT")"
grep -q '^Latency distribution:' "$OUT" || want "no latency distribution"
shb merge "$T"/h1-0.json "$T"/h1-2.json
grep -qx 'Merged:       2 reports: shards 0, 2 of 4 (2 missing)' "$OUT" || want "missing shards not named: $(grep Merged "$OUT")"
finish

begin "merges of merges: (0+1) + (2+3) equals 0+1+2+3, shards and all"
shb merge -j --histograms "$T"/h1-0.json "$T"/h1-1.json
cp "$OUT" "$T/h1-01.json"
shb merge -j --histograms "$T"/h1-2.json "$T"/h1-3.json
cp "$OUT" "$T/h1-23.json"
shb merge -j --histograms "$T/h1-01.json" "$T/h1-23.json"
json_run_ok HTTP/1.1
jx '.requests.total == 4000 and .merged == {reports: 4, shardCount: 4, shards: [0, 1, 2, 3], complete: true, shardTwice: false}' '{requests, merged}'
e2e_flush_report
# A mean is printed to the nanosecond, and merge reads the sum behind it
# back from it: merged twice, it may move by that last nanosecond.
jq -S 'del(.merged, .latencySeconds.mean, .phases[].mean)' "$OUT" >"$T/a" &&
    jq -S 'del(.merged, .latencySeconds.mean, .phases[].mean)' "$T/h1-merged.json" >"$T/b"
cmp -s "$T/a" "$T/b" || want "differs from the merge of all four: $(diff "$T/a" "$T/b" | head -c 300)"
jq -e -n --slurpfile a "$OUT" --slurpfile b "$T/h1-merged.json" '
    [$a[0].latencySeconds.mean, $a[0].phases[].mean] as $x | [$b[0].latencySeconds.mean, $b[0].phases[].mean] as $y |
    ($x | length) == ($y | length) and all(range($x | length); ($x[.] - $y[.] | fabs) <= 1.000001e-9)' >/dev/null ||
    want "a mean moved by more than its last nanosecond: $(jq -c '[.latencySeconds.mean, .phases[].mean]' "$OUT" "$T/h1-merged.json")"
finish

begin "a report merged with itself: every count doubled, every percentile, min, max and mean kept"
run once -n 1000 -c 4 -t 1 -j --histograms "$H1"
shb merge -j --histograms "$T/once.json" "$T/once.json"
json_run_ok HTTP/1.1
e2e_flush_report
jq -n --slurpfile o "$T/once.json" --slurpfile m "$OUT" '
    $o[0] as $o | $m[0] as $m |
    $m.requests.total == 2 * $o.requests.total and $m.requests.ok == 2 * $o.requests.ok and
    $m.bytesReceived == 2 * $o.bytesReceived and $m.bytesSent == 2 * $o.bytesSent and
    $m.statusCodes["200"] == 2 * $o.statusCodes["200"] and $m.connections == 2 * $o.connections and
    ($m.latencySeconds | del(.histogram)) == ($o.latencySeconds | del(.histogram)) and
    $m.durationSeconds == $o.durationSeconds and $m.merged.reports == 2' >/dev/null ||
    want "not doubled: $(jq -c '{requests, latencySeconds: (.latencySeconds | del(.histogram))}' "$OUT" | head -c 400)"
ref timeline "$T/once.json" "$T/once.json"
finish

begin "a gap between runs: the rate is over the union of the windows (first start to last end)"
run gap-a -n 300 -c 2 -t 1 -j --histograms "$H1"
sleep 1.2
run gap-b -n 300 -c 2 -t 1 -j --histograms "$H1"
shb merge -j --histograms "$T/gap-a.json" "$T/gap-b.json"
json_run_ok HTTP/1.1
e2e_flush_report
python3 - "$OUT" "$T/gap-a.json" "$T/gap-b.json" <<'EOF' || want "see above"
import json, sys
def ns(t):
    w, _, f = t.partition("."); return int(w) * 10**9 + int((f + "000000000")[:9])
m, a, b = [json.load(open(f), parse_float=str) for f in sys.argv[1:]]
window = ns(b["endTime"]) - ns(a["startTime"])
ok = ns(m["durationSeconds"]) == window and window > 1.2e9
ok = ok and abs(float(m["requestsPerSec"]) - 600 / (window / 1e9)) <= 0.05 + 1e-9  # printed to 0.1
sys.exit(0 if ok else print("duration", m["durationSeconds"], "rate", m["requestsPerSec"], "window", window) or 1)
EOF
# Each run's one entry where it began: the second run's 1.2 s or more on.
ref timeline "$T/gap-a.json" "$T/gap-b.json"
jx '(.timeline | length) >= 2 and .timeline[0].ok == 300 and .timeline[-1].ok == 300' '[.timeline[] | del(.histogram)]'
finish

begin "h2c: 2 shards of -n 1000 --http2 -p 4 merge into 1000, HTTP/2, percentiles those of both, -p and the version kept"
run_shards h2 2 -n 1000 -c 4 -t 1 --http2 -p 4 -j "$H2"
shb merge -j --histograms "$T"/h2-{0,1}.json
json_run_ok HTTP/2
jx '.requests.ok == 1000 and .merged.complete' '{requests, merged}'
# -p is per connection, so shards share it; the version is `shb -V`'s.
jx ".parallel == 4 and .shbVersion == \"$VERSION\" and .shbVersion != \"\"" '{parallel, shbVersion}'
e2e_flush_report
ref latencySeconds "$T"/h2-{0,1}.json
finish

begin "-q: 2 shards of -q 400 -z 1s merge into asked 400/s, sent and lag summed, service time from both"
run_shards q 2 -q 400 -z 1s -c 4 -t 1 -j "$H1"
shb merge -j --histograms "$T"/q-{0,1}.json
json_run_ok HTTP/1.1
jx '.rate.requested == 400 and .merged.complete' '{rate, merged}'
e2e_flush_report
jq -e -n --slurpfile a "$T/q-0.json" --slurpfile b "$T/q-1.json" --slurpfile m "$OUT" '
    $m[0].rate.requested == 400 and $m[0].rate.sent == $a[0].rate.sent + $b[0].rate.sent and
    $m[0].scheduleLag.responses == $a[0].scheduleLag.responses + $b[0].scheduleLag.responses and
    $m[0].scheduleLag.unsent == $a[0].scheduleLag.unsent + $b[0].scheduleLag.unsent' >/dev/null ||
    want "rate or lag not summed: $(jq -c '{rate, scheduleLag: (.scheduleLag | del(.histogram))}' "$OUT")"
ref serviceTimeSeconds "$T"/q-{0,1}.json
ref latencySeconds "$T"/q-{0,1}.json
finish

begin "an array of reports (one file) merges like the files it holds"
{ echo '['; cat "$T/h1-0.json"; for i in 1 2 3; do echo ','; cat "$T/h1-$i.json"; done; echo ']'; } >"$T/array.json"
shb merge -j --histograms "$T/array.json"
json_run_ok HTTP/1.1
e2e_flush_report
jq -S . "$OUT" >"$T/a" && jq -S . "$T/h1-merged.json" >"$T/b"
cmp -s "$T/a" "$T/b" || want "differs from the merge of the four files: $(diff "$T/a" "$T/b" | head -c 300)"
finish

# --- refusals: one line, exit 2, nothing on stdout -------------------------------
begin "reports rewritten by jq (numbers such as 2.3595e-05) still merge, to within jq's rounding"
for i in 0 1 2 3; do jq . "$T/h1-$i.json" >"$T/jq-$i.json"; done
shb merge -j --histograms "$T"/jq-{0,1,2,3}.json
json_run_ok HTTP/1.1
e2e_flush_report
jq -e -n --slurpfile a "$OUT" --slurpfile b "$T/h1-merged.json" '
    ($a[0] | del(.startTime, .endTime, .durationSeconds, .requestsPerSec, .bytesReceivedPerSec, .bytesSentPerSec, .latencySeconds.mean, .phases[].mean, .timeline[].seconds)) ==
    ($b[0] | del(.startTime, .endTime, .durationSeconds, .requestsPerSec, .bytesReceivedPerSec, .bytesSentPerSec, .latencySeconds.mean, .phases[].mean, .timeline[].seconds)) and
    ($a[0].durationSeconds - $b[0].durationSeconds | fabs) < 1e-5' >/dev/null ||
    want "differs from the merge of the originals beyond the window's rounding"
finish

begin "another URL is refused (naming both and --force); with --force both are named"
shb merge "$T/h1-0.json" "$T/h2-0.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/h2-0.json: a run of $H2 over HTTP/2, but $T/h1-0.json is of $H1 over HTTP/1.1 (--force merges them anyway)") ;; *) want "unexpected error: $ERR_LINE" ;; esac
shb merge -j --histograms --force "$T/h1-0.json" "$T/h2-0.json"
json_run_ok
jx ".url == \"$H1 + $H2\" and .protocol == \"HTTP/1.1 + HTTP/2\" and .requests.total == 1500" '{url, protocol, requests}'
# -p 1 and -p 4 do not agree: left out; one shb made both: kept.
jx "(has(\"parallel\") | not) and .shbVersion == \"$VERSION\"" '{parallel, shbVersion}'
e2e_flush_report
# Reports of two shb versions: the merged one claims neither.
jq '.shbVersion = "other-version"' "$T/h1-1.json" >"$T/other-version.json"
shb merge -j --histograms "$T/h1-0.json" "$T/other-version.json"
json_run_ok HTTP/1.1
jx '(has("shbVersion") | not) and .parallel == 1' '{parallel, shbVersion}'
finish

begin "-q runs and closed runs are never merged, even with --force; the line says which file was run how"
shb merge --force "$T/q-0.json" "$T/h1-0.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/q-0.json was run with -q (the open model), $T/h1-0.json without (the closed model): they cannot be merged"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
shb merge "$T/h1-0.json" "$T/q-0.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/q-0.json was run with -q (the open model), $T/h1-0.json without (the closed model): they cannot be merged"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "reports concatenated on stdin (cat a.json b.json | shb merge -) merge like the files"
cat "$T"/h1-{0,1,2}.json >"$T/cat.json"
cat "$T/h1-3.json" >>"$T/cat.json"
IN=$T/cat.json shb merge -j --histograms -
json_run_ok HTTP/1.1
e2e_flush_report
jq -S . "$OUT" >"$T/a" && jq -S . "$T/h1-merged.json" >"$T/b"
cmp -s "$T/a" "$T/b" || want "differs from the merge of the four files: $(diff "$T/a" "$T/b" | head -c 300)"
jx '.merged.reports == 4' '.merged'
# a second report that breaks: named by where it is in the whole input
{ cat "$T/h1-0.json"; printf '{"requests": }\n'; } >"$T/cat-bad.json"
IN=$T/cat-bad.json shb merge -
one_line_exit 2
line=$(($(wc -l <"$T/h1-0.json") + 1))
case $ERR_LINE in "shb: merge: -: not JSON: line $line, column 14: expected a value") ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "a timeline entry without its histogram is refused, naming it; a timeline entry that does not add up too"
jq 'del(.timeline[0].histogram)' "$T/h1-1.json" >"$T/notlhist.json"
shb merge "$T/h1-0.json" "$T/notlhist.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/notlhist.json: timeline[0].histogram is missing: the timeline's latencies cannot be merged") ;; *) want "unexpected error: $ERR_LINE" ;; esac
jq '.timeline[0].ok += 1 | .requests.ok += 1 | .requests.total += 1 | .statusCodes["200"] += 1' "$T/h1-1.json" >"$T/tlcount.json"
shb merge "$T/tlcount.json"
one_line_exit 2
case $ERR_LINE in *"timeline[0].histogram holds "*" latencies, but ok is "*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "a report run without --histograms is refused, naming the flag; a merged one names merge's"
run plain -n 100 -c 2 -t 1 -j "$H1"
jq -e '[.. | objects | select(has("histogram"))] == []' "$T/plain.json" >/dev/null ||
    want "a plain -j report carries histograms: $(head -c 300 "$T/plain.json")"
shb merge "$T/h1-0.json" "$T/plain.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/plain.json: no histograms: run it with --histograms (or --shard)") ;; *) want "unexpected error: $ERR_LINE" ;; esac
shb merge -j "$T/h1-0.json" "$T/h1-1.json"
cp "$OUT" "$T/merged-plain.json"
shb merge "$T/merged-plain.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/merged-plain.json: no histograms: merge it with shb merge -j --histograms") ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "a phase without its histogram is refused, naming it"
jq 'del(.phases.firstByte.histogram)' "$T/h1-1.json" >"$T/nohist.json"
shb merge "$T/h1-0.json" "$T/nohist.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/nohist.json: phases.firstByte has no histogram"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "a histogram that is not one, and numbers that do not add up: refused"
jq '.latencySeconds.histogram = "HISTFAAAAB942pNpmSzMwMDAyAABzFCakaH+PxjYf4CKAACPWgj1"' "$T/h1-1.json" >"$T/badhist.json"
shb merge "$T/badhist.json"
one_line_exit 2
case $ERR_LINE in *"latencySeconds.histogram: HdrHistogram's zlib stream does not inflate"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
jq '.statusCodes["200"] += 1' "$T/h1-1.json" >"$T/badsum.json"
shb merge "$T/badsum.json"
one_line_exit 2
case $ERR_LINE in *"do not add up"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "not JSON, not a report, no such file, no file, an unknown option: one-line errors"
printf '{"requests": {"total": 1,}\n' >"$T/broken.json"
shb merge "$T/broken.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/broken.json: not JSON: line 1, column 26: expected a member name in quotes") ;; *) want "unexpected error: $ERR_LINE" ;; esac
echo '{"hello": 1}' >"$T/other.json"
shb merge "$T/other.json"
one_line_exit 2
case $ERR_LINE in *"not an shb JSON report"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
shb merge "$T/none.json"
one_line_exit 2
case $ERR_LINE in "shb: merge: $T/none.json: No such file or directory") ;; *) want "unexpected error: $ERR_LINE" ;; esac
shb merge
one_line_exit 2
case $ERR_LINE in *"no report to merge"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
shb merge --bogus "$T/h1-0.json"
one_line_exit 2
case $ERR_LINE in *"unknown option '--bogus'"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "https:// to a plain-HTTP port: the runs' Hint: line survives shb merge (errorDetails' \"hint\": true)"
HTTPS_TO_H1="https://127.0.0.1:$NGINX_PORT/"
for i in 0 1; do
    shb -n 4 -c 2 -j --histograms "$HTTPS_TO_H1" # exit 1: no request succeeded
    cp "$OUT" "$T/hint-$i.json"
done
jx '.errorDetails["tls handshake"].hint == true' '.errorDetails'
shb merge "$T"/hint-{0,1}.json
[ "$SHB_RC" -eq 0 ] || want "merge exit status $SHB_RC: $(head -c 300 "$ERR")"
grep -q '^Hint:         the server at 127.0.0.1:[0-9]* answered in plain HTTP: is this port TLS? (try http://)$' "$OUT" ||
    want "no Hint: line in the merged text report: $(grep -A3 '^Errors' "$OUT")"
shb merge -j "$T"/hint-{0,1}.json
jx '.errorDetails["tls handshake"] | .count == 8 and .hint == true' '.errorDetails'
finish

# --- HTTP/3 -------------------------------------------------------------------
if command -v caddy >/dev/null 2>&1; then
    start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy-merge
    begin "h3: 2 shards against Caddy merge: the QUIC block summed, the QUIC handshake phase from both"
    run_shards h3 2 -n 200 -c 4 -p 4 --http3 -j "https://127.0.0.1:$CADDY_PORT/"
    shb merge -j --histograms "$T"/h3-{0,1}.json
    json_run_ok HTTP/3
    e2e_flush_report
    jq -e -n --slurpfile a "$T/h3-0.json" --slurpfile b "$T/h3-1.json" --slurpfile m "$OUT" '
        $m[0].requests.ok == 200 and
        all("packetsSent", "packetsReceived", "datagramsSent", "datagramsReceived", "ptoCount";
            $m[0].quic[.] == $a[0].quic[.] + $b[0].quic[.]) and
        $m[0].quic.connectionCloses["shb H3_NO_ERROR"] == $a[0].quic.connectionCloses["shb H3_NO_ERROR"] + $b[0].quic.connectionCloses["shb H3_NO_ERROR"] and
        $m[0].quic.sends == $a[0].quic.sends + $b[0].quic.sends and
        ($m[0].quic.datagramsPerSend - ($m[0].quic.datagramsSent / $m[0].quic.sends) | fabs) <= 0.005 + 1e-9 and
        $m[0].phases.quicHandshake.count == $a[0].phases.quicHandshake.count + $b[0].phases.quicHandshake.count' >/dev/null ||
        want "QUIC not summed: $(jq -c '.quic' "$OUT")"
    ref phases.quicHandshake "$T"/h3-{0,1}.json
    finish
else
    skip "h3: caddy is not installed (bash scripts/deps.sh)"
fi

[ "$FAILS" -eq 0 ]
