#!/usr/bin/env bash
# test/e2e/e2e_hdrlog.sh — end-to-end checks of --hdr-log: the built binary $SHB
# against nginx (test/servers/nginx-rate.conf.in, which logs each request), its log
# read back by HdrHistogram's own Java library (Debian's
# libhdrhistogram-java): test/vectors/HdrLogCheck.java through HistogramLogReader,
# and HistogramLogProcessor as a user would run it.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_hdrlog.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_hdrlog.sh
#
# What is checked, for -z over two threads, -q with --warmup (latency and
# service time, two tags) and a run ended by Ctrl-C: the intervals' counts
# add up to the report's requests.ok; there is one interval per second of
# the measured window, each starting on its second and a second long but
# the last; the percentiles HdrHistogram computes from the log are the ones
# shb printed, exactly, under the one rule where the two differ (below);
# each line's Interval_Max column is what HdrHistogram's own writer would
# print. And a FILE that cannot be created is a one-line error before any
# traffic. Same conventions as test/e2e/e2e.sh.
#
# The percentile rule. Both pick the bucket holding the sample of rank
# ceil(p% of count) (HdrHistogram first takes one ulp off p, which changes
# no rank for the whole percentiles checked here: p·count/100 is then
# either an integer or at least 0.01 from one) and both report that
# bucket's highest equivalent value; shb then clamps it to the exact
# [min, max] it measured. The bucket's highest value is never below min
# (the bucket holds a sample >= min), so the exact relation is
#   shb pX == min(HdrHistogram getValueAtPercentile(X), shb max),
# and HdrHistogram's getMaxValue() / getMinValue() are the highest /
# lowest equivalent values of shb's exact max / min.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-hdrlog

e2e_preconditions nginx jq java javac
HDR_JAR=/usr/share/java/hdrhistogram.jar
if [ ! -r "$HDR_JAR" ]; then
    echo "FAIL $P setup: $HDR_JAR is missing (run: bash scripts/deps.sh)"
    exit 1
fi
# -encoding: a fresh root has no locale, and javac would read US-ASCII.
if ! javac -nowarn -encoding UTF-8 -cp "$HDR_JAR" -d "$T" test/vectors/HdrLogCheck.java >"$T/javac.out" 2>&1; then
    echo "FAIL $P setup: test/vectors/HdrLogCheck.java does not compile: $(head -c 300 "$T/javac.out")"
    exit 1
fi

start_or_die "nginx (test/servers/nginx-rate.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-rate.conf.in" nginx-hdrlog
H1="http://127.0.0.1:$NGINX_PORT/"
H1_LOG="$NGINX_DIR/h1.log"

# hdr_read LOG TAG KEY: HdrLogCheck's reading of LOG's TAG intervals, beside
# the report's KEY (latencySeconds, serviceTimeSeconds), into $T/both.json
# as {r: report, j: HdrLogCheck's}. 1 (with a want) when it cannot.
hdr_read() {
    local log=$1 tag=$2 key=$3 min max
    min=$(jq ".$key.min * 1e9 + 0.5 | floor" "$OUT" 2>/dev/null)
    max=$(jq ".$key.max * 1e9 + 0.5 | floor" "$OUT" 2>/dev/null)
    if [ -z "$min" ] || [ -z "$max" ]; then
        want "no $key in the report"
        return 1
    fi
    if ! java -cp "$T:$HDR_JAR" HdrLogCheck "$log" "$tag" "$min" "$max" >"$T/java.json" 2>"$T/java.err"; then
        want "HdrLogCheck failed on $log: $(head -c 400 "$T/java.err")"
        return 1
    fi
    jq -n --slurpfile r "$OUT" --slurpfile j "$T/java.json" '{r: $r[0], j: $j[0]}' >"$T/both.json" 2>/dev/null ||
        { want "HdrLogCheck's output is not JSON: $(head -c 300 "$T/java.json")"; return 1; }
}

# hdr_ok LOG TAG KEY TAGS: LOG, read by HistogramLogReader, holds TAGS (a
# jq array) and TAG's intervals agree with the report's KEY (see the top).
hdr_ok() {
    local key=$3 tags=$4
    hdr_read "$1" "$2" "$key" || return 0
    local defs="def ns: . * 1e9 + 0.5 | floor; def shb: .r[\"$key\"];"
    local -a e=(
        ".j.tags == $tags"
        '.j.count == .r.requests.ok'
        '(.r.durationSeconds | ceil) as $n | .j.intervals == $n or .j.intervals == $n + 1'
        '[.j.startsMs | to_entries[] | .value - .key * 1000 | fabs <= 1] | all'
        '.j.lengthsMs | (.[:-1] | all(. >= 999 and . <= 1001)) and (.[-1] >= 0 and .[-1] <= 1001)'
        '((.j.lengthsMs | add) - .r.durationSeconds * 1000 | fabs) <= 1 + (.j.intervals | . / 2)'
        ".j.lines == .j.intervals * ($tags | length) and .j.maxColumnMismatches == 0"
        '.j as $j | shb as $s | [50, 90, 99] | all(. as $p | ($s.percentiles["p\($p)"] | ns) == ([$j["p\($p)"], ($s.max | ns)] | min))'
        '.j.max == .j.highestEquivalentOfMax and .j.min == .j.lowestEquivalentOfMin'
    )
    local -a s=('.j.tags' '{log: .j.count, ok: .r.requests.ok}' '{intervals: .j.intervals, durationSeconds: .r.durationSeconds}'
        '.j.startsMs' '.j.lengthsMs' '{lengthsMs: .j.lengthsMs, durationSeconds: .r.durationSeconds}'
        '{lines: .j.lines, maxColumnMismatches: .j.maxColumnMismatches}'
        '{shb: shb, hdrhistogram: (.j | {p50, p90, p99, max})}' '.j')
    jq_batch "$T/both.json" "" "$defs" e s "$2: "
}

# --- the log, as HdrHistogram reads it ------------------------------------------
begin "-z 3s -c 4 -t 2: one interval a second, counts and percentiles as the report's"
shb -z 3s -c 4 -t 2 --hdr-log "$T/z.log" -j "$H1"
if json_run_ok "" '.requests.ok > 0 and .requests.errors == 0 and .threads == 2' '{requests, threads}'; then
    jx_flush
    hdr_ok "$T/z.log" latency latencySeconds '["latency"]'
    # The header lines, as HistogramLogWriter writes them.
    # StartTime and BaseTime: the report's startTime, to the millisecond.
    grep -qx '#\[Histogram log format version 1.3\]' "$T/z.log" || want "no format version line"
    start=$(sed -n 's/^#\[StartTime: \([0-9]*\.[0-9]\{3\}\) (seconds since epoch), [A-Z][a-z]\{2\} [A-Z][a-z]\{2\} [0-9]\{2\} [0-9:]\{8\} [A-Z]* [0-9]\{4\}\]$/\1/p' "$T/z.log")
    if [ -z "$start" ]; then
        want "no StartTime line in HistogramLogWriter's form: $(grep StartTime "$T/z.log")"
    else
        jx "(.startTime - $start | fabs) <= 0.0006" '.startTime'
        grep -qx "#\[BaseTime: $start (seconds since epoch)\]" "$T/z.log" || want "no BaseTime line for $start"
    fi
    grep -qx '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"' "$T/z.log" ||
        want "no legend line"
    # HistogramLogProcessor, as docs/latency.md shows it: its total is the report's.
    ok=$(jq .requests.ok "$OUT")
    java -cp "$HDR_JAR" org.HdrHistogram.HistogramLogProcessor -i "$T/z.log" -tag latency >"$T/proc.out" 2>&1
    grep -qE "^#\[Max += +[0-9.]+, Total count += +$ok\]$" "$T/proc.out" ||
        want "HistogramLogProcessor -tag latency does not total $ok: $(tail -n 3 "$T/proc.out")"
fi
finish

begin "-q 400 -z 3s --warmup 1s: latency and service time, tagged, over the measured window only"
shb -q 400 -z 3s --warmup 1s -c 4 -t 2 --hdr-log "$T/q.log" -j "$H1"
if json_run_ok "" '.requests.ok > 0 and .requests.errors == 0 and .warmup.ok > 0' '{requests, warmup}'; then
    jx_flush
    hdr_ok "$T/q.log" latency latencySeconds '["latency", "service"]'
    hdr_ok "$T/q.log" service serviceTimeSeconds '["latency", "service"]'
fi
finish

begin "Ctrl-C during -z 30s: the report, and a log of the seconds run"
shb_interrupted 1.5 3000 -z 30s -c 4 -t 2 --hdr-log "$T/int.log" -j "$H1"
if [ "$SHB_RC" -ne 137 ] && json_run_ok "" '.requests.ok > 0 and .durationSeconds < 10' '{requests, durationSeconds}'; then
    jx_flush
    hdr_ok "$T/int.log" latency latencySeconds '["latency"]'
fi
finish

# --- a FILE that cannot be created ---------------------------------------------
# bad_path LABEL PATTERN ARGS...: exit 2, one line matching PATTERN, no
# request reached nginx.
bad_path() {
    local label=$1 pattern=$2
    shift 2
    begin "--hdr-log $label: one line, exit 2, no traffic"
    : >"$H1_LOG"
    shb "$@" -z 1s -c 2 "$H1"
    one_line_exit 2
    # shellcheck disable=SC2254  # PATTERN is a glob on purpose
    case $ERR_LINE in $pattern) ;; *) want "unexpected error: $ERR_LINE" ;; esac
    [ "$(lines_settled "$H1_LOG")" = 0 ] || want "nginx got $(wc -l <"$H1_LOG") request(s)"
    finish
}
bad_path "in a directory that does not exist" "shb: --hdr-log $T/none/x.log: cannot create it: No such file or directory" \
    --hdr-log "$T/none/x.log"
bad_path "a directory" "shb: --hdr-log $T: cannot create it: Is a directory" --hdr-log "$T"
bad_path "empty" "shb: invalid value '' for --hdr-log: expected a file name" --hdr-log ""

exit $((FAILS > 0))
