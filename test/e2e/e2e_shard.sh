#!/usr/bin/env bash
# test/e2e/e2e_shard.sh — end-to-end checks of --shard I/N and --start-at: the
# built binary $SHB run as several processes at once, as an orchestrator
# would start them, against nginx (test/servers/nginx-rate.conf.in, which logs each
# request's arrival), test/servers/pace_server.js (arrivals to the microsecond) and
# Caddy over HTTP/3.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_shard.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_shard.sh
#
# What is checked: N shards of -n add up to exactly -n at the server, each
# with its share (differing by at most one) of the requests and the
# connections; shards of -q together keep the one schedule, interleaved
# (the arrivals' median gap is the whole rate's, not bunched); --start-at
# lines the shards' windows up on the wall clock, and startTime, endTime and
# shard are in every report; bad shard counts and start times are one-line
# errors, and Ctrl-C ends the wait. Same conventions as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-shard

e2e_preconditions nginx node jq

start_or_die "nginx (test/servers/nginx-rate.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-rate.conf.in" nginx-shard
H1="http://127.0.0.1:$NGINX_PORT/"
H2="http://127.0.0.1:$NGINX_PORT2/"
H1_LOG="$NGINX_DIR/h1.log"
H2_LOG="$NGINX_DIR/h2.log"

# shards N ARGS...: run_shards (e2e_lib.sh) into $T/shard-i.json; then
# $OUT is {"shards": [the reports]}.
shards() {
    local n=$1 i
    shift
    local -a files=()
    run_shards shard "$n" "$@"
    for ((i = 0; i < n; i++)); do
        files+=("$T/shard-$i.json")
    done
    jq -s '{shards: .}' "${files[@]}" >"$T/shards.json" 2>/dev/null || want "a shard's report is not JSON"
    cp "$T/shards.json" "$OUT"
    SHB_RC=0
}

# --- -n: exactly the whole count, shared out ------------------------------------
begin "h1: 4 shards of -n 4000 -c 8: 1000 requests and 2 connections each, exactly 4000 at nginx"
: >"$H1_LOG"
shards 4 -n 4000 -c 8 -t 1 -j "$H1"
jx '.shards | [.[].requests.total] == [1000, 1000, 1000, 1000] and all(.requests.ok == 1000 and .requests.errors == 0)' '.shards | [.[].requests]'
jx '.shards | [.[].shard] == [range(4) | {index: ., count: 4}] and all(.connections == 2 and .connectionsOpened == 2)' '.shards | [.[] | {shard, connections}]'
jx '.shards | all(.startTime < .endTime and (.endTime - .startTime - .durationSeconds | fabs) < 0.001)' '.shards | [.[] | {startTime, endTime, durationSeconds}]'
# A shard's report is there to be merged: --shard brings the encoded
# histograms without --histograms.
jx '.shards | all(.latencySeconds.histogram | type == "string" and startswith("HISTF"))' '.shards | [.[].latencySeconds | keys]'
got=$(lines_settled "$H1_LOG")
[ "$got" = 4000 ] || want "nginx got $got requests, expected exactly 4000"
finish

begin "h2: 3 shards of -n 1000 -c 5 -t 2 --http2 -p 4: 334, 333, 333 requests and 2, 2, 1 connections"
: >"$H2_LOG"
shards 3 -n 1000 -c 5 -t 2 --http2 -p 4 -j "$H2"
jx '.shards | [.[].requests.ok] == [334, 333, 333] and [.[].connections] == [2, 2, 1] and all(.protocol == "HTTP/2")' '.shards | [.[] | {requests, connections}]'
got=$(lines_settled "$H2_LOG")
[ "$got" = 1000 ] || want "nginx got $got requests, expected exactly 1000"
finish

begin "text report: a Shard line after Connections"
shb --shard 1/2 -n 10 -c 2 "$H1"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -A1 '^Connections:  1$' "$OUT" | grep -qx 'Shard:        1 of 2 (its share of -c, -n and -q)' || want "no Shard line after Connections"
finish

begin "no --shard: the report says shard 0 of 1, and no Shard line"
shb -n 10 -c 2 -j "$H1"
json_run_ok HTTP/1.1
jx '.shard == {index: 0, count: 1} and (.startTime | type == "number") and .endTime >= .startTime' '{shard, startTime, endTime}'
shb -n 10 -c 2 "$H1"
grep -q '^Shard:' "$OUT" && want "a Shard line without --shard"
finish

# --- -q: one schedule, interleaved, from a common start -------------------------
begin "h1: 4 shards of -q 2000 -z 2s, --start-at 2 s ahead: 4000 ± 1 % arrivals, 500 us apart, windows within 20 ms"
start_or_die pace_server.js start_node_server "$LIB_ROOT/test/servers/pace_server.js" pace-shard
at=$(awk -v t="$(date +%s.%N)" 'BEGIN { printf "%.3f", t + 2 }')
shards 4 -q 2000 -z 2s -c 8 -t 1 --start-at "$at" -j "http://127.0.0.1:$NODE_PORT/"
jx ".shards | all(.rate.requested == 500) and ([.[].requests.total] | add | $(near . 4000 1)) and all(.requests.errors == 0)" '.shards | [.[] | {rate, requests}]'
jx ".shards | all((.startTime - $at | fabs) < 0.02 and (.endTime - .startTime - 2 | fabs) < 0.02)" '.shards | [.[] | {startTime, endTime}]'
got=$(lines_settled "$NODE_LOG")
jx "$(near "$got" 4000 1)" "{server: $got}"
# Interleaved, each shard's requests fall between the others': bunched
# (the shards in step), the median gap would be near 0.
gap=$(jq -s '[.[].t] | sort | [range(1; length) as $i | .[$i] - .[$i - 1]] | sort | .[length / 2 | floor]' "$NODE_LOG")
[ "${gap:-0}" -ge 425 ] && [ "${gap:-0}" -le 575 ] || want "the median gap between arrivals is ${gap:-?} us, expected 500 ± 15 %"
stop_server "$NODE_PID"
finish

# --- bad shard counts and start times --------------------------------------------
begin "-c 3 --shard 3/4: this shard gets no connection: a one-line error"
shb -c 3 --shard 3/4 "$H1"
one_line_exit 2
case $ERR_LINE in *"--shard 3/4"*"-c 3"*"no connection"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "-n 2 --shard 2/3: this shard gets no request: a one-line error"
shb -n 2 --shard 2/3 "$H1"
one_line_exit 2
case $ERR_LINE in *"--shard 2/3"*"-n 2"*"no request"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

begin "--start-at in the past, a day ahead, or sooner than --warmup: one-line errors"
shb --start-at 2020-01-01T00:00:00Z -n 10 "$H1"
one_line_exit 2
case $ERR_LINE in *"--start-at 2020-01-01T00:00:00Z"*"past"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
shb --start-at "$(($(date +%s) + 90000))" -n 10 "$H1"
one_line_exit 2
case $ERR_LINE in *"more than a day ahead"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
shb --start-at "$(($(date +%s) + 3))" --warmup 10s -z 20s "$H1"
one_line_exit 2
case $ERR_LINE in *"less than --warmup"*) ;; *) want "unexpected error: $ERR_LINE" ;; esac
finish

# SIGINT (Ctrl-C) and SIGTERM (an orchestrator) alike: nothing ran, the
# exit status is the signal's.
for sig_status in INT:130 TERM:143; do
    sig=${sig_status%:*} status=${sig_status#*:}
    begin "SIG$sig while waiting for --start-at: exit $status at once, one line naming it, no report"
    timeout -k 5 20 "$SHB" --start-at "$(($(date +%s) + 15))" -n 10 "$H1" >"$OUT" 2>"$ERR" &
    pid=$!
    sleep 0.5
    t0=$(now_ms)
    kill -"$sig" "$pid" # timeout(1) passes it on to shb
    wait "$pid"
    SHB_RC=$?
    took=$(($(now_ms) - t0))
    one_line_exit "$status"
    case $ERR_LINE in *"interrupted before --start-at"*"(SIG$sig)") ;; *) want "unexpected error: $ERR_LINE" ;; esac
    [ "$took" -lt 1000 ] || want "took $took ms to stop"
    finish
done

# --- HTTP/3 ------------------------------------------------------------------
if command -v caddy >/dev/null 2>&1; then
    start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy-shard
    begin "h3: 2 shards of -n 200 --http3 -c 4 -p 4 against Caddy: 100 ok each"
    shards 2 -n 200 -c 4 -p 4 --http3 -j "https://127.0.0.1:$CADDY_PORT/"
    jx '.shards | [.[].requests.ok] == [100, 100] and all(.protocol == "HTTP/3" and .connections == 2)' '.shards | [.[] | {requests, connections}]'
    finish
else
    skip "h3: caddy is not installed (bash scripts/deps.sh)"
fi

[ "$FAILS" -eq 0 ]
