# test/e2e/e2e_lib.sh — what the end-to-end suites share: which binary, the
# PASS/FAIL reporting, running shb under a timeout, and the checks every JSON
# report must pass. Sourced by e2e_begin (test/e2e/lib.sh), with E2E_NAME set
# (the prefix of every check's name) and optionally EXPECT_PROTOCOL (e.g.
# "HTTP/2").
# jx checks are queued and run in one jq (jq_batch) by two hooks:
# e2e_flush_report (before the next shb run replaces the report) and
# e2e_flush_all (before a check's verdict); a suite that queues checks of its
# own (test/e2e/e2e_tls.sh: the server log) redefines e2e_flush_all.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck shell=bash disable=SC2016

SHB=${SHB:-./shb}
case "$SHB" in
    */*) ;;
    *) SHB=./$SHB ;;
esac
if [ -z "${SHB_FLAVOUR:-}" ]; then
    case "$SHB" in
        *asan*) SHB_FLAVOUR=asan ;;
        *glibc*) SHB_FLAVOUR=glibc ;;
        *) SHB_FLAVOUR=musl ;;
    esac
fi
P="${E2E_NAME:?}[$SHB_FLAVOUR]"
# shb goes through the proxies the environment names, as curl does: the
# suites talk to their own servers on loopback, directly (e2e_proxy.sh sets
# these for its own runs).
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
SHB_TIMEOUT=60
FAILS=0

# e2e_cleanup: on exit, a shb still running (the suite was interrupted) is
# stopped first, then every server, then what a suite adds
# (E2E_CLEANUP_EXTRA: a function name).
SHB_CHILD=""
E2E_CLEANUP_EXTRA=""
SHARD_PIDS=() # in_shards' subshells still running
e2e_cleanup() {
    local rc=$? schema_ok=0
    if [ "${#SHARD_PIDS[@]}" -gt 0 ]; then
        kill -TERM "${SHARD_PIDS[@]}" 2>/dev/null || true
        wait "${SHARD_PIDS[@]}" 2>/dev/null || true
        SHARD_PIDS=()
    fi
    if [ -n "$SHB_CHILD" ]; then
        kill -TERM "$SHB_CHILD" 2>/dev/null || true # timeout(1) passes it on to shb
        wait "$SHB_CHILD" 2>/dev/null || true
        SHB_CHILD=""
    fi
    schema_check_all || schema_ok=1
    lib_cleanup
    [ -z "$E2E_CLEANUP_EXTRA" ] || "$E2E_CLEANUP_EXTRA"
    # A report that breaks the schema fails the suite, whatever came before.
    [ "$schema_ok" -eq 0 ] || [ "$rc" -ne 0 ] || exit 1
}
trap e2e_cleanup EXIT
trap 'exit 130' INT TERM

# --- reporting --------------------------------------------------------------
NAME=""
WHY=""
LAST_CMD=""
begin() { NAME="$P $*"; WHY=""; }
want() { WHY="${WHY:+$WHY; }$*"; }
e2e_flush_report() { jx_flush; }
e2e_flush_all() { jx_flush; }
finish() {
    e2e_flush_all
    if [ -z "$WHY" ]; then
        echo "PASS $NAME"
    else
        echo "FAIL $NAME: $WHY"
        FAILS=$((FAILS + 1))
        diag
    fi
}
skip() { echo "SKIP $P $*"; }
# diag: what a failed check prints; a suite adds its own lines (a server's
# log) by defining e2e_diag_extra.
e2e_diag_extra() { :; }
diag() {
    echo "  command: $LAST_CMD (exit $SHB_RC, ${SHB_MS} ms)"
    if jq -e . "$OUT" >/dev/null 2>&1; then
        jq -c '{protocol, requests, statusCodes, errorKinds, inFlight, connectionsOpened, tlsAlerts, durationSeconds, threads, connections, bytesSent, bytesReceived}' "$OUT" 2>/dev/null | sed 's/^/  json: /'
    elif [ -s "$OUT" ]; then
        head -n 20 "$OUT" | sed 's/^/  stdout: /'
    fi
    [ -s "$ERR" ] && head -n 15 "$ERR" | sed 's/^/  stderr: /'
    e2e_diag_extra
    return 0
}

now_ms() { date +%s%3N; }

# lines_settled FILE: waits (up to 2 s) until FILE stops growing, then
# prints its line count: the servers log a request as they answer it.
lines_settled() {
    local n=-1 m
    for _ in $(seq 40); do
        m=$(wc -l <"$1")
        [ "$m" = "$n" ] && break
        n=$m
        sleep 0.05
    done
    echo "$n"
}

# diag_logs DIR NAME...: the last two lines of each DIR/NAME.log that has
# any, for a failed check's diagnosis (a suite's e2e_diag_extra).
diag_logs() {
    local dir=$1 f
    shift
    for f in "$@"; do
        [ -s "$dir/$f.log" ] && tail -n 2 "$dir/$f.log" | sed "s/^/  $f.log: /"
    done
    return 0
}

# log_tally FILE: FILE's lines once it stops growing (lines_settled),
# counted: "N x LINE" for each distinct line in sorted order, joined by
# ", " (e.g. "200 x HTTP/1.1 200"); nothing for an empty file.
log_tally() {
    lines_settled "$1" >/dev/null
    sort "$1" | uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); printf "%s%s x %s", sep, n, $0; sep = ", " }'
}

# no_secret FILE...: none of the files holds any of the suite's SECRETS
# (an array of fixed strings: a password, its %-encoding, its base64...).
SECRETS=()
no_secret() {
    local f s args=()
    for s in "${SECRETS[@]}"; do
        args+=(-e "$s")
    done
    for f in "$@"; do
        if grep -qF "${args[@]}" "$f" 2>/dev/null; then
            want "$(basename "$f") shows a secret: $(grep -F "${args[@]}" "$f" | head -c 200)"
        fi
    done
}

# cmdline_while_running ARGS...: `$SHB ARGS` (a run of a few seconds) in
# the background; a second in, its command line as ps shows it
# (/proc/PID/cmdline, spaces for NULs) goes to $T/cmdline; its stdout and
# stderr to $T/ps.out and $T/ps.err. Waits for it (at most 30 s).
cmdline_while_running() {
    local pid shb_pid
    timeout -k 5 30 "$SHB" "$@" >"$T/ps.out" 2>"$T/ps.err" &
    pid=$!
    sleep 1
    shb_pid=$(pgrep -P "$pid" | head -n 1)
    tr '\0' ' ' <"/proc/${shb_pid:-0}/cmdline" >"$T/cmdline" 2>/dev/null
    wait "$pid" || want "exit status $?"
    [ -s "$T/cmdline" ] || want "could not read shb's /proc/PID/cmdline (timeout's child of $pid)"
}

# run_shards NAME N ARGS...: `$SHB --shard i/N ARGS` for i in 0..N-1 at
# once, as background processes, as an orchestrator would start them;
# report i in $T/NAME-i.json, its stderr in $T/NAME-i.err. A shard that
# fails, times out or writes to stderr is a failure (want).
run_shards() {
    local name=$1 n=$2 i rc
    shift 2
    local -a pids=()
    LAST_CMD="$SHB --shard i/$n $*"
    for ((i = 0; i < n; i++)); do
        timeout -k 5 60 "$SHB" --shard "$i/$n" "$@" >"$T/$name-$i.json" 2>"$T/$name-$i.err" </dev/null &
        pids+=($!)
    done
    for ((i = 0; i < n; i++)); do
        wait "${pids[$i]}"
        rc=$?
        [ "$rc" -eq 0 ] || want "shard $i/$n: exit status $rc: $(head -c 300 "$T/$name-$i.err")"
        [ -s "$T/$name-$i.err" ] && [ "$rc" -eq 0 ] && want "shard $i/$n wrote to stderr: $(head -c 300 "$T/$name-$i.err")"
        schema_collect_if_json "$T/$name-$i.json" "$@"
    done
}

# near ACTUAL EXPECTED PERCENT: a jq test that ACTUAL is within PERCENT %.
near() { echo "(($1) - ($2) | fabs) <= ($2) * $3 / 100"; }

# e2e_preconditions TOOL...: every TOOL is installed (sbin included) and $SHB
# is built; then $SHB becomes an absolute path. A missing piece ends the
# suite with one FAIL line saying what to run.
e2e_preconditions() {
    local tool
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
            echo "FAIL $P setup: $tool is not installed (run: bash scripts/deps.sh)"
            exit 1
        fi
    done
    PATH=$PATH:/usr/sbin
    if [ ! -x "$SHB" ]; then
        echo "FAIL $P setup: $SHB does not exist or is not executable (run: make$([ "$SHB_FLAVOUR" = asan ] && echo ' asan'))"
        exit 1
    fi
    SHB=$(cd "$(dirname "$SHB")" && pwd)/$(basename "$SHB")
}

# wait_gone PID MS: 0 if PID exited within MS milliseconds.
wait_gone() {
    local pid=$1 limit=$2 t0
    t0=$(now_ms)
    while kill -0 "$pid" 2>/dev/null; do
        [ $(($(now_ms) - t0)) -ge "$limit" ] && return 1
        sleep 0.02
    done
    return 0
}

# shb_interrupted DELAYS LIMIT_MS ARGS...: runs $SHB ARGS with SIGINT's
# default disposition (as a terminal gives it; a backgrounded job would
# ignore it) and sends it one SIGINT per entry of DELAYS ("1.5", or "1 0.1"
# for a second Ctrl-C 0.1 s after the first), then waits up to LIMIT_MS
# for it to exit. Sets SHB_RC and SHB_MS (ms from the last signal to the
# exit); a shb still running is killed and is a failure of the check.
# SHB_CHILD holds its pid meanwhile, for a suite's TERM handler.
# shellcheck disable=SC2034
shb_interrupted() {
    local delays=$1 limit=$2 pid d t0 first=1
    shift 2
    e2e_flush_report
    LAST_CMD="$SHB $*, SIGINT after ${delays// / s and } s"
    env --default-signal=INT "$SHB" "$@" <"$IN" >"$OUT" 2>"$ERR" &
    pid=$!
    SHB_CHILD=$pid
    for d in $delays; do
        sleep "$d"
        # Only the first must find it running: it may be done before a second.
        kill -INT "$pid" 2>/dev/null || [ "$first" = 0 ] || want "shb was not running when the SIGINT was due"
        first=0
    done
    t0=$(now_ms)
    if wait_gone "$pid" "$limit"; then
        wait "$pid"
        SHB_RC=$?
        SHB_MS=$(($(now_ms) - t0))
    else
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        SHB_RC=137
        SHB_MS=$limit
        want "still running $limit ms after the last SIGINT"
    fi
    SHB_CHILD=""
    [ "$SHB_RC" -eq 137 ] || schema_collect_if_json "$OUT" "$@" # killed: its output cut short, already a failure
}

# --- every JSON report against docs/report.schema.json -------------------------
# Each report a suite gets from shb with -j (shb() and shb_interrupted()
# when their arguments ask for it, run_shards, and a suite's own runs
# through schema_collect) is copied aside as it comes; when the suite ends
# (e2e_cleanup) test/e2e/schema_check.py validates them all, with Debian's
# python3-jsonschema: one PASS or FAIL line for the suite saying how many,
# and a FAIL naming each report that breaks the schema.
SCHEMA_N=0
# schema_collect FILE [CMD]: FILE (non-empty) is a JSON report of shb's.
# Named by the collecting process and its count: in_shards' groups collect
# at once, each in a subshell with its own copy of SCHEMA_N.
schema_collect() {
    [ -s "$1" ] || return 0
    SCHEMA_N=$((SCHEMA_N + 1))
    mkdir -p "$T/schema"
    cp "$1" "$T/schema/$BASHPID-$SCHEMA_N.json"
    printf '%s\t%s\n' "$BASHPID-$SCHEMA_N" "${2:-$LAST_CMD}" >>"$T/schema/index"
}
# asks_json ARGS...: ARGS (shb's, or shb merge's) ask for JSON: -j, --json,
# or -j in a cluster of short flags (-jc10), before any "--".
asks_json() {
    local a
    for a in "$@"; do
        case $a in
        --) return 1 ;;
        --json) return 0 ;;
        --*) ;;
        -*j*) [[ $a =~ ^-[a-zA-Z]*j ]] && return 0 ;;
        esac
    done
    return 1
}
# schema_collect_if_json FILE ARGS...: FILE, when ARGS asked for JSON.
schema_collect_if_json() {
    local f=$1
    shift
    if asks_json "$@"; then schema_collect "$f" "$SHB $*"; fi
}
schema_check_all() {
    local out line n reports=("$T"/schema/*.json)
    [ -e "${reports[0]}" ] || return 0 # none collected (no nullglob here)
    if ! /usr/bin/python3 -c 'from jsonschema import Draft202012Validator' 2>/dev/null; then
        echo "FAIL $P schema: Debian's python3-jsonschema is not installed (run: bash scripts/deps.sh)"
        return 1
    fi
    if ! out=$(/usr/bin/python3 "$LIB_ROOT/test/e2e/schema_check.py" "$LIB_ROOT/docs/report.schema.json" \
        "${reports[@]}" 2>&1); then
        echo "FAIL $P schema: JSON reports that break docs/report.schema.json: $(tail -n 1 <<<"$out")"
        head -n -1 <<<"$out" | head -n 10 | while IFS= read -r line; do
            echo "  $line"
            n=$(basename "${line%%.json:*}")
            [ -n "$n" ] && grep -m1 "^$n	" "$T/schema/index" | cut -f2- | sed 's/^/    command: /'
        done
        return 1
    fi
    echo "PASS $P schema: every JSON report valid against docs/report.schema.json ($(tail -n 1 <<<"$out" | cut -d' ' -f1) reports)"
}

# --- running shb ------------------------------------------------------------
lib_init
T=$LIB_TMP
OUT=$T/out
ERR=$T/err
IN=/dev/null
SHB_RC=0
SHB_MS=0

# shb ARGS...: runs $SHB under timeout; stdout -> $OUT, stderr -> $ERR,
# exit status -> SHB_RC, wall time -> SHB_MS. stdin is $IN. shb runs in the
# background and the suite waits for it, so that a TERM or Ctrl-C stops the
# suite (e2e_cleanup) at once rather than after shb's own timeout.
shb() {
    local t0
    e2e_flush_report # what is queued is about the previous report
    LAST_CMD="$SHB $*"
    t0=$(now_ms)
    # shellcheck disable=SC2086  # SHB_WRAP is a word list (or nothing)
    timeout -k 5 "$SHB_TIMEOUT" ${SHB_WRAP:-} "$SHB" "$@" <"$IN" >"$OUT" 2>"$ERR" &
    SHB_CHILD=$!
    wait "$SHB_CHILD"
    SHB_RC=$?
    SHB_CHILD=""
    SHB_MS=$(($(now_ms) - t0))
    if [ "$SHB_RC" -eq 124 ] || [ "$SHB_RC" -eq 137 ]; then
        want "timed out after ${SHB_TIMEOUT}s"
    else
        schema_collect_if_json "$OUT" "$@"
    fi
}

# shb_rss ARGS...: shb ARGS under GNU time; its peak RSS (KiB) is the last
# line of $T/rss.
shb_rss() {
    rm -f "$T/rss"
    SHB_WRAP="/usr/bin/time -f %M -o $T/rss" shb "$@"
}

# start_or_die LABEL CMD...: runs a start_* helper of test/e2e/lib.sh (which
# retries on a port clash); a failure ends the suite with one FAIL line.
start_or_die() {
    local label=$1
    shift
    if ! "$@"; then
        echo "FAIL $P setup: $label did not start"
        exit 1
    fi
}

# run_status_ok [FILE]: the exit status a completed run's report (FILE, or
# $OUT: one JSON report) calls for: 3 when one of its --fail-if thresholds
# failed; without thresholds, 1 when no request got a response (and stderr
# says "no request succeeded"), unless a signal ended the run before any
# request did; else 0.
run_status_ok() {
    local f=${1:-$OUT} expect
    expect=$(jq -r 'if has("thresholds") then (if any(.thresholds[]; .failed) then 3 else 0 end)
        elif .requests.ok == 0 and ((.interrupted // false) and .requests.errors == 0 and .inFlight == 0 | not)
        then 1 else 0 end' "$f" 2>/dev/null | tail -n 1)
    [ -n "$expect" ] || expect=0
    [ "$SHB_RC" -eq "$expect" ] || want "exit status $SHB_RC, expected $expect"
    if [ "$expect" = 1 ] && ! grep -q "^shb: .*no request succeeded: " "$ERR"; then
        want "exit status 1 without the 'no request succeeded' line on stderr"
    fi
}

# no_response_exit [WHO]: a run in which no request got a response: exit
# status 1 after its report, and stderr's only line says so ("shb: WHO no
# request succeeded: ..."; WHO is "target b: " with several targets).
no_response_exit() {
    [ "$SHB_RC" -eq 1 ] || want "exit status $SHB_RC, expected 1 (no request got a response)"
    [ "$(wc -l <"$ERR")" -eq 1 ] && grep -q "^shb: ${1:-}no request succeeded: " "$ERR" ||
        want "stderr is not the one 'shb: ${1:-}no request succeeded: ...' line: $(head -c 300 "$ERR")"
}

# The sanitizers report on stderr; any report is a failure of the check.
no_sanitizer_report() {
    if grep -qE 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|Sanitizer has encountered a fatal error|runtime error:|SUMMARY: (Address|Leak|Undefined)' "$ERR"; then
        want "sanitizer report on stderr"
    fi
}

# one_line_exit CODE: exit status CODE (2: bad input, 1: the run could not
# go on), nothing on stdout, exactly one line on stderr, no sanitizer
# report; that line is in $ERR_LINE.
ERR_LINE=""
one_line_exit() {
    local lines
    [ "$SHB_RC" -eq "$1" ] || want "exit status $SHB_RC, expected $1"
    [ -s "$OUT" ] && want "wrote $(wc -l <"$OUT") line(s) to stdout"
    lines=$(wc -l <"$ERR")
    if [ "$lines" -ne 1 ] || [ "$(tail -c 1 "$ERR" | od -An -c | tr -d ' ')" != '\n' ]; then
        want "stderr has $lines lines, expected exactly one"
    fi
    no_sanitizer_report
    # shellcheck disable=SC2034  # for the suites' own checks of the line
    ERR_LINE=$(head -n 1 "$ERR")
}

# refused_before_traffic LOG WHAT LINE ARG...: shb -n 5 -c 1 ARG... is
# refused with exactly LINE on stderr and exit status 2, and the server
# whose access log is LOG saw no request.
refused_before_traffic() {
    local log=$1 what=$2 line=$3
    shift 3
    : >"$log"
    begin "refused before any traffic: $what"
    shb -n 5 -c 1 "$@"
    one_line_exit 2
    [ "$ERR_LINE" = "$line" ] || want "stderr: '$ERR_LINE', expected '$line'"
    lines_settled "$log" >/dev/null
    [ -s "$log" ] && want "the server logged requests"
    finish
}

# merge_adds PATH COND URL ARG...: two runs of shb -n 20 -c 2 and -n 30 -c 3,
# --disable-keepalive and ARGs, then shb merge of their reports: the merged
# report's object at the jq PATH (counts) is the two reports' added key by
# key, and the jq condition COND holds of it.
merge_adds() {
    local path=$1 cond=$2 url=$3 sum
    shift 3
    shb -n 20 -c 2 --disable-keepalive "$@" -j --histograms "$url"
    cp "$OUT" "$T/merge-a.json"
    shb -n 30 -c 3 --disable-keepalive "$@" -j --histograms "$url"
    cp "$OUT" "$T/merge-b.json"
    shb merge -j "$T/merge-a.json" "$T/merge-b.json"
    if [ "$SHB_RC" -ne 0 ]; then
        want "merge exit status $SHB_RC: $(head -c 300 "$ERR")"
        return
    fi
    sum=$(jq -sc "[.[] | $path] | .[0] as \$a | .[1] as \$b | \$a | with_entries(.value += \$b[.key])" \
        "$T/merge-a.json" "$T/merge-b.json")
    jx "$path == $sum and ($cond)" "$path"
}

# err_case ERROR_SUBSTRING ARGS...: shb ARGS gives one line containing it, exit 2.
err_case() {
    local sub=$1
    shift
    shb "$@"
    one_line_exit 2
    case $ERR_LINE in *"$sub"*) ;; *) want "$*: expected '$sub', got: $ERR_LINE" ;; esac
}

# jx EXPR [SHOW]: the JSON report satisfies the jq expression EXPR; SHOW is
# what a failure prints of it. Queued, and evaluated (jx_flush, one jq for
# all) before the next shb run and by finish.
JX_E=()
JX_S=()
jx() { JX_E+=("$1"); JX_S+=("${2:-}"); }
jx_flush() {
    jq_batch "$OUT" "" "" JX_E JX_S ""
    JX_E=()
    JX_S=()
}

# jq_batch FILE SLURP DEFS EXPRS_ARRAY SHOWS_ARRAY PREFIX: evaluates every
# jq expression of EXPRS_ARRAY (names of arrays) in one jq run over FILE
# (slurped when SLURP is -s; otherwise FILE must hold exactly one JSON
# object) and want()s, prefixed by PREFIX, each that does not hold (its last
# output false, null, none, or an error), with what the matching SHOW
# expression gives. One jq per check, not one per expectation: jq costs about
# 40 ms to start here. Returns 1 (one want) when FILE is not one JSON object.
jq_batch() {
    local file=$1 slurp=$2 defs=$3 prog="" sep="" i bad got what
    local -n exprs=$4 shows=$5
    [ "${#exprs[@]}" -gt 0 ] || return 0
    for i in "${!exprs[@]}"; do
        prog+="${sep}([try (${exprs[$i]}) catch false] | length > 0 and (last | . != null and . != false))"
        sep=", "
    done
    prog="[$prog] | to_entries[] | select(.value != true) | .key"
    [ -n "$slurp" ] || prog="if length != 1 or (.[0] | type) != \"object\" then \"notobj\" else .[0] | $prog end"
    bad=$(jq -r -s "$defs $prog" "$file" 2>/dev/null) || bad=notobj
    if [ "$bad" = notobj ]; then
        what="$file is"
        [ "$file" = "$OUT" ] && what="stdout is"
        want "$6$what not a JSON object"
        return 1
    fi
    for i in $bad; do
        got=""
        if [ -n "${shows[$i]}" ]; then
            got=$(jq -c ${slurp:+"$slurp"} "$defs ${shows[$i]}" "$file" 2>/dev/null | head -c 600 || true)
        fi
        want "$6expected ${exprs[$i]}${shows[$i]:+ (got ${got:-nothing})}"
    done
    return 0
}

# json_run_ok [PROTOCOL [EXPR SHOW]...]: exit 0, no sanitizer report, stdout is one JSON report with
# every key of the spec, internally consistent, and the protocol is
# PROTOCOL (or $EXPECT_PROTOCOL) when one is given (PROTOCOL may be ""); then
# jx EXPR SHOW for each pair, in the same run of jq.
json_run_ok() {
    run_status_ok
    no_sanitizer_report
    local proto=${1:-${EXPECT_PROTOCOL:-}} i
    local -a e=('[.url, .protocol] | all(type == "string")'
        '[.threads, .connections, .durationSeconds, .requests.total, .requests.ok,
         .requests.errors, .requests.connectErrors, .requests.non2xx, .requestsPerSec, .bytesReceived,
         .bytesReceivedPerSec, .bytesSent, .bytesSentPerSec] | all(type == "number")'
        '(.statusCodes | type == "object") and (.errorKinds | type == "object")'
        '[.inFlight, .connectionsOpened] | all(type == "number" and . >= 0)'
        'if .requests.ok == 0 then .latencySeconds == null else
         ([.latencySeconds.min, .latencySeconds.mean, .latencySeconds.max] | all(type == "number")) and
         (.latencySeconds.percentiles | keys_unsorted == ["p10","p25","p50","p75","p90","p95","p99","p99.9","p99.99"]) end'
        '.requests.total == .requests.ok + .requests.errors'
        '.requests.connectErrors <= .requests.errors'
        '([.statusCodes[]] | add // 0) == .requests.ok'
        '([.errorKinds[]] | add // 0) == .requests.errors'
        '. as $r | [.statusCodes | to_entries[] | select(.key | test("^2[0-9][0-9]$") | not) | .value] | add // 0 | . == $r.requests.non2xx'
        '. as $r | (.errorDetails | keys) == (.errorKinds | keys) and
         (.errorDetails | to_entries | all(.value.count == $r.errorKinds[.key] and (.value.first | type == "string" and length > 0)))')
    local -a s=('[.url, .protocol]' '.' '{statusCodes, errorKinds}' '[.inFlight, .connectionsOpened]'
        '{ok: .requests.ok, latencySeconds}' '.requests' '.requests'
        '{statusCodes, ok: .requests.ok}' '{errorKinds, errors: .requests.errors}'
        '{statusCodes, requests}' '{errorKinds, errorDetails}')
    [ -z "$proto" ] || { e+=(".protocol == \"$proto\""); s+=('.protocol'); }
    for ((i = 2; i < $#; i += 2)); do
        e+=("${!i}")
        i=$((i + 1))
        s+=("${!i}")
        i=$((i - 1))
    done
    jq_batch "$OUT" "" "" e s "" || return 1
    return 0
}

# phases_cleartext_ok: a run without errors over cleartext TCP timed a
# connect per connection and a first byte per response, no TLS or QUIC
# handshake, and each response's first byte before its end: so every
# percentile, the min, mean and max of the first byte are at most the
# latency's (the same responses, the same buckets).
phases_cleartext_ok() {
    jx '.requests.errors == 0 and .phases.connect.count == .connectionsOpened' '{requests, connectionsOpened, phases}'
    jx '.phases.firstByte.count == .requests.ok' '{requests, phases}'
    jx '.phases | (has("tlsHandshake") or has("quicHandshake")) | not' '.phases | keys'
    jx '.phases.firstByte as $f | .latencySeconds as $l | $f.min <= $l.min and $f.mean <= $l.mean and
        $f.max <= $l.max and ([$l.percentiles | keys[] | $f.percentiles[.] <= $l.percentiles[.]] | all)' \
        '{latencySeconds, firstByte: .phases.firstByte}'
}

# warmup_n_ok N LOG: a `--warmup -n N` run (its warm-up under 1 s of
# measured time after it) measured exactly N requests, all ok, and the
# server, whose LOG has a line per request, got N plus the warm-up's.
warmup_n_ok() {
    local n=$1 got
    got=$(wc -l <"$2")
    jx ".requests.total == $n and .requests.ok == $n and .statusCodes == {\"200\": $n} and .inFlight == 0" \
        '{requests, statusCodes, inFlight}'
    jx ".warmup.requests > 0 and .warmup.requests == .warmup.ok and .warmup.requests + $n == $got" \
        "{warmup, server: $got}"
    jx '.durationSeconds < 1 and .warmup.bytesSent > 0 and .bytesSent > 0' '{durationSeconds, bytesSent, warmup}'
}

# latency_sane: min <= p10 <= ... <= p99.99 <= max, min <= mean <= max (ok > 0).
latency_sane() {
    jx '.latencySeconds as $l | [$l.min, $l.percentiles.p10, $l.percentiles.p25,
        $l.percentiles.p50, $l.percentiles.p75, $l.percentiles.p90, $l.percentiles.p95,
        $l.percentiles.p99, $l.percentiles["p99.9"], $l.percentiles["p99.99"], $l.max] as $v
        | ($l.min > 0) and ([range(1; $v | length) | $v[. - 1] <= $v[.]] | all)' '.latencySeconds'
    jx '.latencySeconds | .min <= .mean and .mean <= .max' '.latencySeconds'
}

# --- shards: a suite's independent parts at once -----------------------------
# shard_jobs VALUE: how many shards a suite runs at once: VALUE (the
# suite's *_JOBS variable) when set, else one per CPU; 1 to 4.
shard_jobs() {
    local n=${1:-$(nproc 2>/dev/null || echo 1)}
    [ "$n" -ge 1 ] 2>/dev/null || n=1
    [ "$n" -le 4 ] || n=4
    echo "$n"
}

# in_shards N FUNC [AFTER]: FUNC 0 .. FUNC N-1 at once, each in a subshell
# (its own variables: FUNC sets its own T, OUT and ERR). Shard 0's lines
# come as they are made, every other shard's once it and the ones before it
# are done, so no two shards' lines interleave; AFTER I, when given, runs in
# this shell once shard I is done. Exit status 1 if any shard's was not 0.
# A shard stopped (TERM: this shell's e2e_cleanup) stops its shb first.
in_shards() {
    local n=$1 func=$2 after=${3:-} i status=0
    SHARD_PIDS=()
    for ((i = 0; i < n; i++)); do
        if [ "$i" -eq 0 ]; then
            (e2e_shard_traps; "$func" 0) &
        else
            (e2e_shard_traps; "$func" "$i") >"$T/shard-$i.out" &
        fi
        SHARD_PIDS+=($!)
    done
    for ((i = 0; i < n; i++)); do
        wait "${SHARD_PIDS[i]}" || status=1
        [ "$i" -eq 0 ] || cat "$T/shard-$i.out"
        [ -z "$after" ] || "$after" "$i"
    done
    SHARD_PIDS=()
    return "$status"
}
# e2e_shard_traps: in a shard, INT and TERM end it, and its exit
# (e2e_shard_exit) stops the shb it is running, if any.
e2e_shard_exit() {
    [ -z "$SHB_CHILD" ] || kill -TERM "$SHB_CHILD" 2>/dev/null || true
}
e2e_shard_traps() {
    trap e2e_shard_exit EXIT
    trap 'exit 130' INT TERM
}
