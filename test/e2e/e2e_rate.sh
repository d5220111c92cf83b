#!/usr/bin/env bash
# test/e2e/e2e_rate.sh — end-to-end checks of the open model (-q/--rate): the
# built binary $SHB against nginx (test/servers/nginx-rate.conf.in, which logs each
# request's arrival), test/servers/pace_server.js (which records arrivals to the
# microsecond, and stalls or delays on demand) and Caddy over HTTP/3.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_rate.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_rate.sh
#
# What is checked: the count the schedule asks for (± 1 %), on HTTP/1.1
# (keep-alive and not), HTTP/2 and HTTP/3, with -z, -n and --warmup, and a
# ramp; the spacing of the requests as the server saw them; latency measured
# from the intended send time against a server that stalls (the percentiles
# the stall pattern predicts, while the service time stays small); and too
# few connections for the rate, which must show as lag and unsent requests,
# not as a silently slower rate. Same conventions as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-rate

e2e_preconditions nginx node jq

start_or_die "nginx (test/servers/nginx-rate.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-rate.conf.in" nginx-rate
H1="http://127.0.0.1:$NGINX_PORT/"
H2="http://127.0.0.1:$NGINX_PORT2/"
H1_LOG="$NGINX_DIR/h1.log"
H2_LOG="$NGINX_DIR/h2.log"

# rate_ok REQUESTED: (REQUESTED: a number, or a jq test of .rate.requested) the rate, scheduleLag and serviceTimeSeconds keys are
# there and consistent with the rest of the report.
rate_ok() {
    local req=".rate.requested == $1"
    case $1 in *[!0-9]*) req=$1 ;; esac
    jx "($req) and (.rate.achieved | type == \"number\") and (.rate.clientBusy | type == \"number\")" '.rate'
    jx '.scheduleLag.responses == .requests.ok and .scheduleLag.late <= .scheduleLag.responses' '{scheduleLag, requests}'
    jx '[.scheduleLag.p50, .scheduleLag.p99, .scheduleLag.max] | . == sort' '.scheduleLag'
    jx '.serviceTimeSeconds.percentiles | keys_unsorted == ["p10","p25","p50","p75","p90","p95","p99","p99.9","p99.99"]' '.serviceTimeSeconds'
    # Latency counts from when a request was due, service time from when it
    # left: never less.
    jx '.latencySeconds.max >= .serviceTimeSeconds.max and .latencySeconds.percentiles.p50 >= .serviceTimeSeconds.percentiles.p50' '{latencySeconds, serviceTimeSeconds}'
}

# timeline_ok: the timeline's entries add up to the report's totals, and
# every entry but the last is a whole second.
timeline_ok() {
    jx '([.timeline[].ok] | add) == .requests.ok and ([.timeline[].errors] | add) == .requests.errors' '{requests, timeline}'
    jx '([.timeline[].bytesReceived] | add) == .bytesReceived' '{bytesReceived, timeline}'
    jx '.timeline | (.[:-1] | all(.seconds == 1)) and ([.[].start] == [range(length)]) and (.[-1].seconds <= 1)' '.timeline'
}

# buckets LOG MS: the arrivals in LOG (nginx $msec lines) counted in MS
# millisecond buckets from the first, the first and last (partial) dropped:
# prints "median low high count" (the median bucket, the smallest, the
# largest, how many buckets).
buckets() {
    awk -v ms="$2" '{ t = int($1 * 1000 + 0.5); if (NR == 1) t0 = t; b = int((t - t0) / ms); c[b]++; if (b > last) last = b }
        END { for (b = 1; b < last; b++) print c[b] + 0 }' "$1" | sort -n |
        awk '{ v[NR] = $1 } END { printf "%d %d %d %d\n", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}

# --- HTTP/1.1: the count and the spacing ---------------------------------------
begin "h1: -q 2000 -z 3s -c 20: 6000 ± 1 % sent and answered; nginx got them 200 per 100 ms"
: >"$H1_LOG"
shb -q 2000 -z 3s -c 20 -j "$H1"
json_run_ok HTTP/1.1 && rate_ok 2000
jx "$(near .requests.total 6000 1) and .requests.errors == 0" '.requests'
jx "$(near .rate.sent 6000 1) and $(near .rate.achieved 2000 1)" '.rate'
jx '.scheduleLag.unsent <= 60' '.scheduleLag'
timeline_ok
jx '.timeline[:3] | all(.ok >= 1960 and .ok <= 2040)' '.timeline'
got=$(lines_settled "$H1_LOG")
jx "$(near "$got" 6000 1)" "{server: $got}"
read -r med lo hi nb <<<"$(buckets "$H1_LOG" 100)"
[ "$nb" -ge 25 ] || want "nginx's log spans $nb whole 100 ms buckets, expected about 29"
[ "$med" -ge 190 ] && [ "$med" -le 210 ] || want "the median 100 ms bucket holds $med requests, expected 200 ± 5 %"
[ "$lo" -ge 100 ] && [ "$hi" -le 300 ] || want "100 ms buckets from $lo to $hi requests, expected within 200 ± 50 %"
finish

begin "h1: the spacing to the microsecond (pace_server.js): -q 2000 -t 2: the median gap between arrivals is 500 us"
start_or_die pace_server.js start_node_server "$LIB_ROOT/test/servers/pace_server.js" pace-even
shb -q 2000 -z 2s -c 20 -t 2 -j "http://127.0.0.1:$NODE_PORT/"
json_run_ok HTTP/1.1 && rate_ok 2000
jx "$(near .requests.total 4000 1)" '.requests'
gap=$(jq -s '[.[].t] | sort | [range(1; length) as $i | .[$i] - .[$i - 1]] | sort | .[length / 2 | floor]' "$NODE_LOG")
[ "${gap:-0}" -ge 425 ] && [ "${gap:-0}" -le 575 ] || want "the median gap between arrivals is ${gap:-?} us, expected 500 ± 15 %"
stop_server "$NODE_PID"
finish

begin "h1: -q 500 -z 2s --disable-keepalive: 1000 ± 1 %, a connection each"
shb -q 500 -z 2s -c 20 --disable-keepalive -j "$H1"
json_run_ok HTTP/1.1 && rate_ok 500
jx "$(near .requests.total 1000 1) and .requests.errors == 0" '.requests'
jx '.connectionsOpened >= .requests.total' '{connectionsOpened, requests}'
finish

begin "h1: -n 1000 -q 2000: exactly 1000, in half a second"
shb -n 1000 -q 2000 -c 20 -j "$H1"
json_run_ok HTTP/1.1 && rate_ok 2000
jx '.requests.total == 1000 and .requests.ok == 1000 and .scheduleLag.unsent == 0 and .rate.sent == 1000' '{requests, rate, scheduleLag}'
jx '.durationSeconds >= 0.499 and .durationSeconds < 0.6' '.durationSeconds'
finish

begin "h1: --warmup 1s -q 1000 -z 3s: 2000 ± 1.5 % measured, 1000 ± 2 % in the warm-up"
shb --warmup 1s -q 1000 -z 3s -c 10 -j "$H1"
json_run_ok HTTP/1.1 && rate_ok 1000
jx "$(near .requests.total 2000 1.5) and $(near .rate.sent 2000 1.5)" '{requests, rate}'
jx "$(near .warmup.requests 1000 2)" '.warmup'
finish

begin "h1: ramp -q 1000..3000 -z 4s: 8000 ± 1 %; nginx got about 1250 in the first second and 2750 in the last"
: >"$H1_LOG"
shb -q 1000..3000 -z 4s -c 20 -j "$H1"
json_run_ok HTTP/1.1 && rate_ok '(.rate.requested | . >= 2000 and . < 2002)'
jx "$(near .requests.total 8000 1) and .rate.from == 1000 and .rate.to == 3000" '{requests, rate}'
timeline_ok
jx '.timeline[0].ok >= 1125 and .timeline[0].ok <= 1375 and .timeline[3].ok >= 2475 and .timeline[3].ok <= 3025' '.timeline'
lines_settled "$H1_LOG" >/dev/null
read -r first last <<<"$(awk '{ t = $1 * 1000; if (NR == 1) t0 = t; s = int((t - t0) / 1000); c[s]++ } END { print c[0] + 0, c[3] + 0 }' "$H1_LOG")"
[ "$first" -ge 1125 ] && [ "$first" -le 1375 ] || want "nginx got $first requests in the first second, expected 1250 ± 10 %"
[ "$last" -ge 2475 ] && [ "$last" -le 3025 ] || want "nginx got $last requests in the fourth second, expected 2750 ± 10 %"
finish

begin "h1: the text report: Rate, Schedule lag and Service time lines, the spec's lines unchanged"
shb -q 200 -z 1s -c 5 "$H1"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -q '^Requests/sec: [0-9.]*$' "$OUT" || want "no spec Requests/sec line"
grep -q '^Rate:         asked 200.0/s, achieved [0-9.]*/s ([0-9]* sent); latency counts from when each request was due$' "$OUT" || want "no Rate line"
grep -q '^Schedule lag: [0-9]* of [0-9]* answered requests were sent more than 1 ms late; p50 [0-9.]* ms, p99 [0-9.]* ms, max [0-9.]* ms' "$OUT" || want "no Schedule lag line"
grep -q '^Latency (ms):$' "$OUT" && grep -q '^Service time (ms):$' "$OUT" && grep -q '^Service time distribution:$' "$OUT" || want "no Service time block"
[ "$(grep -n '^Latency (ms):' "$OUT" | cut -d: -f1)" -lt "$(grep -n '^Service time (ms):' "$OUT" | cut -d: -f1)" ] || want "Service time before Latency"
finish

begin "h1: -q 100 -n 5: achieved 100.0/s, the rate asked, not above it (5 requests take 5 slots of 10 ms)"
shb -q 100 -n 5 -c 5 -j "$H1"
json_run_ok HTTP/1.1 && rate_ok 100
jx '.rate.sent == 5 and .rate.achieved <= 100 and .rate.achieved >= 95' '{rate, durationSeconds}'
shb -q 100 -n 5 -c 5 "$H1"
grep -qE '^Rate:         asked 100\.0/s, achieved (100\.0|9[5-9]\.[0-9])/s \(5 sent\); ' "$OUT" || want "the Rate line: $(grep '^Rate:' "$OUT")"
finish

begin "timeline without -q: -z 3s: whole seconds adding up to the totals; the text report ends with the sparkline"
shb -z 3s -c 10 -j "$H1"
json_run_ok HTTP/1.1 && timeline_ok
jx '.timeline | length >= 3 and length <= 4' '.timeline'
jx '.rate == null and .scheduleLag == null and .serviceTimeSeconds == null' '{rate, scheduleLag}'
shb -z 3s -c 10 "$H1"
# Alternatives, not a bracket: without a UTF-8 locale grep sees bytes.
[ "$(tail -n 1 "$OUT" | grep -cE '^Timeline:     (▁|▂|▃|▄|▅|▆|▇|█){3} requests/s, 1 s a mark, min [0-9.]+, max [0-9.]+$')" = 1 ] ||
    want "the text report's last line is not a 3-mark sparkline: $(tail -n 1 "$OUT")"
finish

# --- HTTP/2 ------------------------------------------------------------------
begin "h2: -q 2000 -z 3s --http2 -c 4 -p 10: 6000 ± 1 %; nginx got them 200 per 100 ms"
: >"$H2_LOG"
shb -q 2000 -z 3s -c 4 -p 10 --http2 -j "$H2"
json_run_ok HTTP/2 && rate_ok 2000
jx "$(near .requests.total 6000 1) and .requests.errors == 0 and $(near .rate.achieved 2000 1)" '{requests, rate}'
got=$(lines_settled "$H2_LOG")
jx "$(near "$got" 6000 1)" "{server: $got}"
read -r med lo hi nb <<<"$(buckets "$H2_LOG" 100)"
[ "$med" -ge 190 ] && [ "$med" -le 210 ] || want "the median 100 ms bucket holds $med requests, expected 200 ± 5 %"
[ "$lo" -ge 100 ] && [ "$hi" -le 300 ] || want "100 ms buckets from $lo to $hi requests, expected within 200 ± 50 %"
finish

# --- TLS: connections that handshake first ------------------------------------
start_or_die "nginx (test/servers/nginx-tls.conf.in)" start_nginx_tls nginx-rate-tls
for proto in h1 h2; do
    flag=""
    [ "$proto" = h2 ] && flag=--http2
    begin "tls $proto: -q 1000 -z 2s over TLS 1.3 (nginx): 2000 ± 1 %"
    # shellcheck disable=SC2086  # $flag is one word or none
    shb -q 1000 -z 2s -c 8 $flag -j "https://127.0.0.1:$NGINX_PORT/"
    json_run_ok "$([ "$proto" = h2 ] && echo HTTP/2 || echo HTTP/1.1)" && rate_ok 1000
    jx "$(near .requests.total 2000 1) and .requests.errors == 0" '.requests'
    finish
done

# --- coordinated omission: a server that stalls -------------------------------
# pace_server.js answers nothing for the last 500 ms of every 2 s (1.5-2 s,
# 3.5-4 s of a 5 s run): 20 % of the requests are due during a stall, and
# one due t into it waits 500 ms - t. So the latency from the intended time
# is spread evenly up to 500 ms over those 20 %: p90 about 250 ms, p99 about
# 475 ms, max about 500 ms. The 50 connections are all held within 50 ms of
# a stall's start; the rest wait for them (schedule lag) and, once sent, are
# answered at once: the service time's p50 stays well under a millisecond or
# so — what a closed-model tool would report as "the latency". Those
# requests are answered only once the backlog drains (about 450 of them, 9
# rounds over the 50 connections), which adds the drain time to the upper
# half of the spread: p90 was 303 ms once in a full CI run, so p90's bound
# is 350 ms; below 200 ms would mean the waits were not counted.
begin "stall: -q 1000 -z 5s -c 50 against 500 ms stalls every 2 s: p90 ~250 ms, p99 ~475 ms from the intended time; service p50 small"
start_or_die pace_server.js start_node_server "$LIB_ROOT/test/servers/pace_server.js" pace-stall stall=500/2000
shb -q 1000 -z 5s -c 50 -j "http://127.0.0.1:$NODE_PORT/"
json_run_ok HTTP/1.1 && rate_ok 1000
jx "$(near .requests.total 5000 2) and .requests.errors == 0" '.requests'
jx '.latencySeconds.percentiles.p90 >= 0.2 and .latencySeconds.percentiles.p90 <= 0.35' '.latencySeconds.percentiles'
jx '.latencySeconds.percentiles.p99 >= 0.43 and .latencySeconds.percentiles.p99 <= 0.52' '.latencySeconds.percentiles'
jx '.latencySeconds.max >= 0.47 and .latencySeconds.max <= 0.56' '.latencySeconds.max'
jx '.serviceTimeSeconds.percentiles.p50 < 0.02' '.serviceTimeSeconds.percentiles'
# About 450 requests of each stall waited for a connection, up to ~450 ms;
# more leave late while that backlog drains over the 50 connections, and a
# few anyway (this VM wakes more than 1 ms late for 16 to 42 of 5,000
# requests against nginx, no stall). Both builds, and the build from before
# this bound was widened, gave 1,025 to 1,257 late on the machine of
# 2026-12-04, and the ASan build 1,301 on 2026-12-05 with a compile and
# callgrind running beside it, so the bound is 1,400: what 3 stalls would
# give, had the window held them; the run's two stay under it.
jx '.scheduleLag.late >= 600 and .scheduleLag.late <= 1400' '.scheduleLag'
jx '.scheduleLag.max >= 0.38 and .scheduleLag.max <= 0.52' '.scheduleLag'
# The timeline counts a response in the second it ended: the stalled ones
# end when a stall does, at 2 s and 4 s, in the entries starting there.
timeline_ok
jx '[.timeline[2, 4].p99] | all(. >= 0.3)' '[.timeline[] | {start, ok, p99}]'
jx '[.timeline[0, 1, 3].p99] | all(. < 0.1)' '[.timeline[] | {start, ok, p99}]'
jx '.timeline[1].ok < 700 and .timeline[2].ok > 1300' '[.timeline[] | {start, ok, p99}]'
stop_server "$NODE_PID"
finish

# --- too few connections for the rate -----------------------------------------
# Every response takes 20 ms and there are 2 connections: at most 100
# requests a second, against 500 asked. shb must say so (lag, unsent, the
# achieved rate) rather than send slower and report 20 ms latencies.
begin "too few connections: -q 500 -c 2 against 20 ms responses: ~100/s achieved, the rest late or unsent, latency far above service time"
start_or_die pace_server.js start_node_server "$LIB_ROOT/test/servers/pace_server.js" pace-delay delay=20
shb -q 500 -z 2s -c 2 -t 1 -j "http://127.0.0.1:$NODE_PORT/"
json_run_ok HTTP/1.1 && rate_ok 500
jx '.rate.achieved >= 60 and .rate.achieved <= 110 and .rate.requested == 500' '.rate'
jx '.scheduleLag.unsent >= 700 and .scheduleLag.late >= .scheduleLag.responses * 0.9' '.scheduleLag'
jx '.scheduleLag.max >= 1 and .latencySeconds.percentiles.p99 >= 1' '{scheduleLag, latency: .latencySeconds.percentiles}'
jx '.serviceTimeSeconds.percentiles.p50 >= 0.019 and .serviceTimeSeconds.percentiles.p50 < 0.05' '.serviceTimeSeconds.percentiles'
shb -q 500 -z 1s -c 2 -t 1 "http://127.0.0.1:$NODE_PORT/"
grep -q '^Schedule lag: .*; [0-9]* due and never sent$' "$OUT" || want "the text report's Schedule lag line does not count the unsent requests"
stop_server "$NODE_PID"
finish

# A rate no client could keep to: shb sends what it can and says how far
# behind it fell.
begin "unreachable rate: -q 100000000 -t 1 -z 1s: sent far fewer, nearly all late, the rest unsent"
shb -q 100000000 -z 1s -c 20 -t 1 -j "$H1"
json_run_ok HTTP/1.1 && rate_ok 100000000
jx '.rate.achieved < .rate.requested / 10 and .scheduleLag.unsent > 10000000' '{rate, scheduleLag}'
jx '.scheduleLag.late >= .scheduleLag.responses * 0.9' '.scheduleLag'
jx '.rate.clientSaturated == (.rate.clientBusy >= 0.9)' '.rate'
finish

begin "every request refused: -q 100 -n 10 to a port nobody listens on: no lag figures (no responses), not zeros"
pick_port DEAD_PORT
shb -q 100 -n 10 -c 2 "http://127.0.0.1:$DEAD_PORT/"
grep -q '^Schedule lag: no responses (it is measured on answered requests)$' "$OUT" ||
    want "text: $(grep '^Schedule lag' "$OUT")"
shb -q 100 -n 10 -c 2 -j "http://127.0.0.1:$DEAD_PORT/"
jx '.requests.errors == 10 and .scheduleLag.responses == 0' '{requests, scheduleLag}'
jx '.scheduleLag.p50 == null and .scheduleLag.p99 == null and .scheduleLag.max == null' '.scheduleLag'
finish

# --- HTTP/3 ------------------------------------------------------------------
if command -v caddy >/dev/null 2>&1; then
    CADDY_H3_BIG=1 start_or_die "caddy (test/servers/Caddyfile-h3.in)" start_caddy_h3 caddy-rate
    begin "h3: -q 1000 -z 3s --http3 -c 4 -p 4 against Caddy: 3000 ± 1 %"
    shb -q 1000 -z 3s -c 4 -p 4 --http3 -j "https://127.0.0.1:$CADDY_PORT/"
    json_run_ok HTTP/3 && rate_ok 1000
    jx "$(near .requests.total 3000 1) and .requests.errors == 0 and $(near .rate.achieved 1000 1)" '{requests, rate}'
    finish
else
    skip "h3: caddy is not installed (bash scripts/deps.sh)"
fi

[ "$FAILS" -eq 0 ]
