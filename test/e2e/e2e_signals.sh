#!/usr/bin/env bash
# test/e2e/e2e_signals.sh — end-to-end checks that a signal never loses the
# report: the built binary $SHB stopped by SIGINT and SIGTERM as timeout(1),
# an orchestrator or a terminal stops it, against nginx (test/servers/nginx.conf.in).
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_signals.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_signals.sh
#
# What is checked: 20 runs of -z 10s cut by `timeout -s INT` and 20 by plain
# `timeout` (SIGTERM) each print a whole JSON report, "interrupted": true,
# with requests, and exit 0 (timeout sends its signal to shb and then to
# its process group: two signals microseconds apart, one request to stop);
# the text report's Interrupted line names the signal; a run that ends on
# its own says "interrupted": false; a second signal 2 s after the first
# ends shb at once (130 or 143) even when the report cannot be written;
# SIGTERM during the first of several targets; shb merge keeps the mark
# (SIGTERM during --start-at's wait: test/e2e/e2e_shard.sh).
# Same conventions as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-signals

e2e_preconditions nginx jq timeout perl

start_or_die "nginx (test/servers/nginx.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx.conf.in" nginx-signals
NG="http://127.0.0.1:$NGINX_PORT/"
NG2="http://127.0.0.1:$NGINX_PORT2/"

RUNS=${RUNS:-20}
CUT=1.2 # seconds into a -z 10s run

# timeout_runs SIGNAL: $RUNS runs of `timeout -s SIGNAL $CUT shb -z 10s -c 10
# -j` (--preserve-status: shb's own exit status, not timeout's 124), each
# of which must exit 0 with one whole JSON report, interrupted, with
# requests, and nothing on stderr. AT_ONCE (4) runs go at a time: each
# timeout(1) is its own process group, so each shb gets its own pair of
# signals, and the load of the others only widens the window between them.
AT_ONCE=${AT_ONCE:-4}
timeout_runs() {
    local sig=$1 i j rc bad=0 codes="" first="" pids=()
    e2e_flush_report
    LAST_CMD="timeout --preserve-status -s $sig $CUT $SHB -z 10s -c 10 -j $NG, $RUNS times, $AT_ONCE at a time"
    for ((i = 1; i <= RUNS; i += AT_ONCE)); do
        pids=()
        for ((j = i; j < i + AT_ONCE && j <= RUNS; j++)); do
            timeout -k 5 --preserve-status -s "$sig" "$CUT" "$SHB" -z 10s -c 10 -j "$NG" </dev/null >"$T/cut-$j.out" 2>"$T/cut-$j.err" &
            pids+=($!)
        done
        for ((j = i; j < i + AT_ONCE && j <= RUNS; j++)); do
            wait "${pids[j - i]}"
            rc=$?
            codes+=" $rc"
            cp "$T/cut-$j.err" "$ERR"
            no_sanitizer_report
            if [ "$rc" -ne 0 ] || [ -s "$T/cut-$j.err" ] ||
                ! jq -e -s 'length == 1 and .[0].interrupted == true and .[0].requests.total > 0 and
                    .[0].requests.ok > 0 and .[0].durationSeconds > 0.5 and .[0].durationSeconds < 5' "$T/cut-$j.out" >/dev/null 2>&1; then
                bad=$((bad + 1))
                [ "$bad" -gt 1 ] || first="run $j: exit $rc, stdout $(head -c 200 "$T/cut-$j.out" | tr '\n' ' '), stderr $(head -c 200 "$T/cut-$j.err")"
            fi
            rm -f "$T/cut-$j.out" "$T/cut-$j.err"
        done
    done
    [ "$bad" -eq 0 ] || want "$bad of $RUNS runs without a whole interrupted report (exit statuses:$codes; first: $first)"
    SHB_RC=0
    : >"$OUT"
    : >"$ERR"
}

begin "timeout -s INT $CUT: $RUNS runs of -z 10s -c 10, each a whole JSON report, interrupted, exit 0"
timeout_runs INT
finish

begin "timeout $CUT (SIGTERM): $RUNS runs of -z 10s -c 10, each a whole JSON report, interrupted, exit 0"
timeout_runs TERM
finish

# text_run SIGNAL: one text run cut by SIGNAL: the Interrupted line names it, once.
text_run() {
    local sig=$1
    e2e_flush_report
    LAST_CMD="timeout -s $sig $CUT $SHB -z 10s -c 4 $NG"
    timeout -k 5 --preserve-status -s "$sig" "$CUT" "$SHB" -z 10s -c 4 "$NG" </dev/null >"$OUT" 2>"$ERR"
    SHB_RC=$?
    [ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
    no_sanitizer_report
    [ "$(grep -c '^Interrupted:' "$OUT")" = 1 ] || want "not one Interrupted line"
    grep -qx "Interrupted:  yes (SIG$sig: the figures cover the run until then)" "$OUT" ||
        want "no 'Interrupted:  yes (SIG$sig: ...)' line: $(grep '^Interrupted' "$OUT")"
    grep -qE '^Requests: +[1-9][0-9]* \([1-9][0-9]* ok' "$OUT" || want "no requests: $(grep '^Requests' "$OUT")"
    grep -q '^Latency distribution:' "$OUT" || want "no latency distribution"
}

begin "text report cut by SIGINT: one 'Interrupted:  yes (SIGINT: ...)' line"
text_run INT
finish

begin "text report cut by SIGTERM: one 'Interrupted:  yes (SIGTERM: ...)' line"
text_run TERM
finish

begin "a run that ends on its own: \"interrupted\": false, no Interrupted line"
shb -n 200 -c 4 -j "$NG"
json_run_ok "" '.interrupted == false' '{interrupted}'
shb -n 200 -c 4 "$NG"
[ "$SHB_RC" -eq 0 ] || want "text run: exit status $SHB_RC"
grep -q '^Interrupted' "$OUT" && want "an Interrupted line in a whole run's text report"
finish

begin "shb merge: a report cut by SIGTERM makes the merged one interrupted; whole ones do not"
# Reports carry their encoded histograms (what merge reads) only with
# --histograms where shb has that flag.
HIST=()
"$SHB" -h | grep -q -- '--histograms' && HIST=(--histograms)
e2e_flush_report
timeout -k 5 --preserve-status -s TERM "$CUT" "$SHB" -z 10s -c 4 -j "${HIST[@]}" "$NG" </dev/null >"$T/cut.json" 2>"$ERR" ||
    want "the cut run exited $?"
shb -n 200 -c 4 -j "${HIST[@]}" "$NG"
cp "$OUT" "$T/whole.json"
shb merge -j "$T/cut.json" "$T/whole.json"
json_run_ok "" '.interrupted == true and .merged.reports == 2' '{interrupted, merged}'
shb merge "$T/cut.json" "$T/whole.json"
grep -qx 'Interrupted:  yes (a run merged here was stopped early by a signal)' "$OUT" ||
    want "no merged Interrupted line: $(grep '^Interrupted' "$OUT")"
shb merge -j "$T/whole.json" "$T/whole.json"
json_run_ok "" '.interrupted == false' '{interrupted}'
finish

# wait_exec PID PATH: waits (up to 10 s) until process PID runs PATH (the
# wrapper that started it has exec'd it).
wait_exec() {
    local i
    for ((i = 0; i < 200; i++)); do
        [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

# second_signal SIG1 SIG2 STATUS: a -z 30s run whose stdout is a pipe that
# is already full and that nobody reads (shb itself holds its read end), so
# the report's write blocks after SIG1 stops the run: 2 s after SIG1, shb
# is still there, and SIG2 must end it at once with STATUS.
second_signal() {
    local s1=$1 s2=$2 status=$3 pid t0
    e2e_flush_report
    LAST_CMD="$SHB -z 30s -c 4 -j $NG >(a full pipe), SIG$s1, SIG$s2 2 s later"
    : >"$OUT"
    # shellcheck disable=SC2016
    env --default-signal=INT perl -MFcntl -MPOSIX -e '
        pipe(my $r, my $w) or die "pipe: $!";
        my $flags = fcntl($w, F_GETFL, 0);
        fcntl($w, F_SETFL, $flags | O_NONBLOCK);
        while (defined syswrite($w, "x" x 4096)) {}
        $! == EAGAIN or die "filling the pipe: $!";
        fcntl($w, F_SETFL, $flags);
        POSIX::dup2(fileno($w), 1) or die "dup2: $!";
        fcntl($r, F_SETFD, 0); # the read end stays open in shb, unread
        exec @ARGV or die "exec: $!";' "$SHB" -z 30s -c 4 -j "$NG" </dev/null 2>"$ERR" &
    pid=$!
    SHB_CHILD=$pid
    wait_exec "$pid" "$SHB" || want "shb did not start within 10 s"
    sleep 1
    kill -"$s1" "$pid" 2>/dev/null || want "shb was not running when the first signal was due"
    sleep 2
    kill -0 "$pid" 2>/dev/null || want "shb was gone 2 s after SIG$s1 (its report's write did not block)"
    t0=$(now_ms)
    kill -"$s2" "$pid" 2>/dev/null
    if wait_gone "$pid" 1000; then
        wait "$pid"
        SHB_RC=$?
    else
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        SHB_RC=137
        want "still running 1 s after SIG$s2"
    fi
    SHB_MS=$(($(now_ms) - t0))
    SHB_CHILD=""
    [ "$SHB_RC" -eq "$status" ] || want "exit status $SHB_RC, expected $status"
    no_sanitizer_report
}

begin "SIGINT, then SIGINT 2 s later while the report cannot be written: exit 130 at once"
second_signal INT INT 130
finish

begin "SIGTERM, then SIGTERM 2 s later while the report cannot be written: exit 143 at once"
second_signal TERM TERM 143
finish

begin "SIGTERM during a of a, b: a's report interrupted, b never run, exit 0"
e2e_flush_report
LAST_CMD="timeout -s TERM $CUT $SHB -z 10s -c 4 -j a=$NG b=$NG2"
timeout -k 5 --preserve-status -s TERM "$CUT" "$SHB" -z 10s -c 4 -j "a=$NG" "b=$NG2" </dev/null >"$OUT" 2>"$ERR"
SHB_RC=$?
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
no_sanitizer_report
jq -e -s 'length == 1 and (.[0] | length == 1 and .[0].label == "a" and .[0].interrupted == true and .[0].requests.ok > 0)' \
    "$OUT" >/dev/null 2>&1 || want "not one array of a's interrupted report: $(head -c 300 "$OUT")"
[ "$(cat "$ERR")" = 'shb: interrupted: 1 of 2 targets not run (from b on)' ] ||
    want "stderr is not 'shb: interrupted: 1 of 2 targets not run (from b on)': $(head -c 300 "$ERR")"
finish

[ "$FAILS" -eq 0 ]
