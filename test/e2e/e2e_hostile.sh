#!/usr/bin/env bash
# test/e2e/e2e_hostile.sh — end-to-end checks against servers that misbehave:
# test/servers/hostile_server.js (started here on 127.0.0.1, one scenario at a time)
# stalls, closes, resets, answers with broken framing, refuses every HTTP/2
# stream, breaks TLS records; plus a -c beyond the descriptor limit and a
# network namespace with ten local ports (EADDRNOTAVAIL).
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_hostile.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_hostile.sh
#   HOSTILE_CHECKS="silent h2-stall" bash test/e2e/e2e_hostile.sh   # only those groups
#
# Same conventions as test/e2e/e2e.sh: one "PASS name" / "FAIL name: why" line
# per check ("SKIP name: why" where a check cannot run here), diagnostics
# indented after a FAIL, exit status 1 if anything failed. Every shb run is
# under `timeout $SHB_TIMEOUT` (40 s; HOSTILE_SHB_TIMEOUT overrides), so a
# hang is a FAIL that costs at most that. Every check also reads the
# server's log: what it saw (connections, requests, the frames shb sent), so
# that no check can pass against a server that never got the traffic.
# Check groups (HOSTILE_CHECKS, space-separated; default all): baseline
# silent silent-z ctrl-c bare-cr close-after-response close-mid-body
# reset-mid-body stall-every h2-silent h2-stall-every h2-mcs0-refuse
# h2-mcs0-answer h2-mcs0-ignore h2-malformed tls fd-limit no-local-port.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-hostile
SHB_TIMEOUT=${HOSTILE_SHB_TIMEOUT:-40}

# --- preconditions ------------------------------------------------------------
e2e_preconditions jq node timeout openssl
REAL_SHB=$SHB

# The network namespace of check 16, if one exists: deleted on exit, also
# when the suite fails or is interrupted.
NETNS=""
hostile_netns_cleanup() {
    if [ -n "$NETNS" ]; then
        ip netns del "$NETNS" 2>/dev/null || true
        NETNS=""
    fi
}
E2E_CLEANUP_EXTRA=hostile_netns_cleanup

# e2e_diag_extra: what the server logged, after e2e_lib's diag lines.
e2e_diag_extra() {
    if [ -n "$U" ] && [ -s "${HOSTILE_LOG:-}" ]; then
        jq -c -s "$HQ"' {conns: conns, reqs: reqs, answered: answered,
            actions: ([.[] | select(.event == "request") | .action] | group_by(.) | map({(.[0]): length}) | add),
            frames: ([.[] | select(.event == "frame") | .frame + (if .code != null then ":" + (.code | tostring) else "" end)]
                     | group_by(.) | map({(.[0]): length}) | add),
            errors: ([.[] | select(.event == "error") | .message] | unique | .[:3])}' "$HOSTILE_LOG" 2>/dev/null |
            head -c 800 | sed 's/^/  server: /'
        echo
    fi
    return 0
}

# group NAME: true when the group is to run (HOSTILE_CHECKS unset or names it).
group() {
    [ -z "${HOSTILE_CHECKS:-}" ] && return 0
    case " $HOSTILE_CHECKS " in *" $1 "*) return 0 ;; esac
    return 1
}

# --- the hostile server ---------------------------------------------------------
# serve SCENARIO [N] [--tls CERT KEY]: stops the previous hostile server and
# starts one for SCENARIO; sets U (its URL: https:// with --tls). On failure
# the current check gets the reason and serve returns 1.
HS_PID=""
HS_N=0
U=""
serve() {
    local scheme=http a
    if [ -n "$HS_PID" ]; then
        stop_server "$HS_PID"
        HS_PID=""
    fi
    for a in "$@"; do
        [ "$a" = --tls ] && scheme=https
    done
    HS_N=$((HS_N + 1))
    if ! start_hostile "hostile$HS_N" "$@" 2>>"$T/serve.err"; then
        want "test/servers/hostile_server.js $* did not start ($(tail -n 3 "$T/serve.err" | tr '\n' ' '))"
        U=""
        return 1
    fi
    HS_PID=$HOSTILE_PID
    U="$scheme://127.0.0.1:$HOSTILE_PORT/"
    return 0
}

# jq definitions over the slurped server log.
HQ='def opens: [.[] | select(.event == "open")];
    def closes: [.[] | select(.event == "close")];
    def conns: opens | length;
    def reqs: [closes[].requests] | add // 0;
    def answered: [closes[].answered] | add // 0;
    def frames($f): [.[] | select(.event == "frame" and .frame == $f)];
    def rsts: frames("RST_STREAM");
    def acts($a): [.[] | select(.event == "request" and .action == $a)];
    def cs(f): [f[] | [.connId, .stream]] | sort;
    def per_conn(f): [f | group_by(.connId)[] | length];'

# settle: waits (at most 3 s) until every connection the server
# accepted has been logged as closed: shb has exited, so its sockets are
# gone, and once the server has seen that, every frame shb sent is logged.
settle() {
    local i=0 o c
    [ -n "${HOSTILE_LOG:-}" ] && [ -f "$HOSTILE_LOG" ] || return 0
    while [ "$i" -lt 60 ]; do
        o=$(grep -c '"event":"open"' "$HOSTILE_LOG" 2>/dev/null)
        c=$(grep -c '"event":"close"' "$HOSTILE_LOG" 2>/dev/null)
        [ "${o:-0}" = "${c:-0}" ] && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 0
}

# hx EXPR [SHOW]: the server log (slurped) satisfies EXPR.
hx() {
    local got
    if [ -z "$U" ]; then
        return 0 # the server did not start: serve said so already
    fi
    if ! jq -e -s "$HQ $1" "$HOSTILE_LOG" >/dev/null 2>&1; then
        got=$(jq -c -s "$HQ ${2:-length}" "$HOSTILE_LOG" 2>/dev/null | head -c 600 || true)
        want "server log: expected $1 (got ${got:-nothing})"
    fi
}

# took MIN_MS MAX_MS: shb's wall time is within bounds.
took() {
    [ "$SHB_MS" -ge "$1" ] || want "took ${SHB_MS} ms, expected at least $1 ms"
    [ "$SHB_MS" -le "$2" ] || want "took ${SHB_MS} ms, expected at most $2 ms"
}

# exact N KINDS_JSON: a -n N run: total N, errorKinds exactly KINDS_JSON, the
# rest ok (ok + errors == total is json_run_ok's).
exact() {
    jx ".requests.total == $1" '.requests'
    jx ".errorKinds == $2" '.errorKinds'
    jx "(.errorKinds | [.[]] | add // 0) as \$e | .requests.ok == $1 - \$e" '{requests, errorKinds}'
}



# --- 0. baselines: the server works (these pass against any sane shb) ----------
if group baseline; then
    begin "baseline ok: -n 100 -c 4 (100 ok, the server answered 100)"
    if serve ok; then
        shb -n 100 -c 4 -j "$U"
        json_run_ok && exact 100 '{}' && jx '.statusCodes == {"200": 100}' '.statusCodes'
        settle
        hx 'conns == 4 and reqs == 100 and answered == 100' '{conns: conns, reqs: reqs, answered: answered}'
    fi
    finish

    begin "ok: inFlight is 0 after a completed -n run, and the text report has no In flight: line"
    if serve ok; then
        shb -n 50 -c 2 -j "$U"
        json_run_ok && exact 50 '{}' && jx '.inFlight == 0' '.inFlight'
        shb -n 50 -c 2 "$U"
        [ "$SHB_RC" -eq 0 ] || want "text run: exit status $SHB_RC"
        no_sanitizer_report
        grep -q '^Requests: *50 (50 ok, 0 errors' "$OUT" || want "text run: no 'Requests: 50 (50 ok, 0 errors' line"
        grep -q '^In flight:' "$OUT" && want "text run: an In flight: line for 0 requests in flight"
        settle
        hx 'reqs == 100 and answered == 100' '{reqs: reqs, answered: answered}'
    fi
    finish

    begin "ok: --timeout 5s and --timeout 0 change nothing on a healthy server (-n 100 -c 4)"
    if serve ok; then
        shb -n 100 -c 4 --timeout 5s -j "$U"
        json_run_ok && exact 100 '{}'
        shb -n 100 -c 4 --timeout 0 -j "$U"
        json_run_ok && exact 100 '{}'
        settle
        hx 'reqs == 200 and answered == 200' '{reqs: reqs, answered: answered}'
    fi
    finish

    begin "baseline h2-ok: --http2 -n 100 -c 2 -p 4 (100 ok over 2 connections)"
    if serve h2-ok; then
        shb --http2 -n 100 -c 2 -p 4 -j "$U"
        json_run_ok HTTP/2 && exact 100 '{}' && jx '.statusCodes == {"200": 100}' '.statusCodes'
        settle
        hx 'conns == 2 and answered == 100 and (frames("HEADERS") | length) == 100' '{conns: conns, answered: answered}'
        hx 'frames("SETTINGS") | map(select(.ack == false)) | length == 2' 'frames("SETTINGS")'
    fi
    finish
fi

# --- 1. silent: every request times out -------------------------------------------
if group silent; then
    # Three rounds of two 1 s timeouts: each connection replaced twice.
    begin "silent: -n 6 -c 2 --timeout 1s: 6 timeouts in ~3 s over 6 connections"
    if serve silent; then
        shb -n 6 -c 2 --timeout 1s -j "$U"
        json_run_ok && exact 6 '{"timeout": 6}'
        took 2700 15000
        settle
        # Each timed-out connection is closed and replaced: one request each.
        hx 'conns == 6 and reqs == 6 and answered == 0' '{conns: conns, reqs: reqs, answered: answered}'
    fi
    finish
fi

if group h2-silent; then
    begin "h2-silent: --http2 -n 8 -c 2 -p 4 --timeout 1s: 8 timeouts, 8 RST_STREAM CANCEL, 2 connections"
    if serve h2-silent; then
        shb --http2 -n 8 -c 2 -p 4 --timeout 1s -j "$U"
        json_run_ok HTTP/2 && exact 8 '{"timeout": 8}'
        took 900 15000
        settle
        hx 'conns == 2 and (frames("HEADERS") | length) == 8' '{conns: conns, headers: cs(frames("HEADERS"))}'
        hx 'rsts | length == 8 and all(.code == 8)' 'rsts'
        hx 'cs(rsts) == cs(frames("HEADERS"))' '{rst: cs(rsts), headers: cs(frames("HEADERS"))}'
    fi
    finish
fi

# --- 2. -z with requests that never end: inFlight --------------------------------
if group silent-z; then
    begin "silent: --timeout 0 -z 2s -c 3: ends at 2 s, ok 0, errors 0, inFlight 3"
    if serve silent; then
        shb --timeout 0 -z 2s -c 3 -j "$U"
        if json_run_ok; then
            jx '.requests.total == 0 and .requests.ok == 0 and .requests.errors == 0' '.requests'
            jx '.inFlight == 3' '.inFlight'
            jx '.durationSeconds >= 1.8 and .durationSeconds <= 3.5' '.durationSeconds'
        fi
        took 1500 6000
        settle
        hx 'conns == 3 and reqs == 3' '{conns: conns, reqs: reqs}'
    fi
    finish

    begin "silent: text report of --timeout 0 -z 2s -c 3 says 'In flight: 3'"
    if serve silent; then
        shb --timeout 0 -z 2s -c 3 "$U"
        no_response_exit
        no_sanitizer_report
        grep -qE '^In flight: +3( |$)' "$OUT" || want "no line matching /^In flight: +3( |\$)/"
        grep -qE '^Requests: +0 \(0 ok, 0 errors' "$OUT" || want "no line 'Requests: 0 (0 ok, 0 errors'"
        took 1500 6000
        settle
        hx 'conns == 3' 'conns'
    fi
    finish
fi

# --- 3. Ctrl-C with requests in flight ---------------------------------------------
if group ctrl-c; then
    begin "silent: Ctrl-C during --timeout 0 -z 30s -c 2: exit 0 at once, inFlight 2"
    if serve silent; then
        shb_interrupted 1 2000 --timeout 0 -z 30s -c 2 -j "$U"
        if [ "$SHB_RC" -ne 137 ] && json_run_ok; then
            jx '.requests.total == 0 and .requests.errors == 0' '.requests'
            jx '.inFlight == 2' '.inFlight'
            jx '.durationSeconds >= 0.8 and .durationSeconds < 5' '.durationSeconds'
        fi
        settle
        hx 'conns == 2 and reqs == 2' '{conns: conns, reqs: reqs}'
    fi
    finish
fi

# --- 4. a bare CR in the status line -----------------------------------------------
if group bare-cr; then
    begin "bare-cr: -n 10 -c 2: 10 protocol errors, at once (default --timeout)"
    if serve bare-cr; then
        shb -n 10 -c 2 -j "$U"
        json_run_ok && exact 10 '{"protocol": 10}'
        took 0 10000
        settle
        # An unframeable response leaves the connection unusable: one request each.
        hx 'conns == 10 and reqs == 10' '{conns: conns, reqs: reqs}'
    fi
    finish
fi

# --- 5. the server closes after every response (the keep-alive race) ---------------
if group close-after-response; then
    for c in 1 4 10; do
        begin "close-after-response: -n 200 -c $c: 200 ok, no errors, the server answered each request once"
        if serve close-after-response; then
            shb -n 200 -c "$c" -j "$U"
            json_run_ok && exact 200 '{}' && jx '.statusCodes == {"200": 200}' '.statusCodes'
            settle
            # The server counts only requests it read before closing its side,
            # and answers every one of them: a request sent again after the
            # race was never read the first time.
            hx 'reqs == 200 and answered == 200' '{conns: conns, reqs: reqs, answered: answered}'
            hx 'all(closes[]; .requests <= 1)' '[closes[] | select(.requests > 1)]'
        fi
        finish
    done
fi

# --- 6, 7. a response cut short: FIN, then RST ----------------------------------------
if group close-mid-body; then
    begin "close-mid-body: -n 10 -c 2: 10 errors, all closed"
    if serve close-mid-body; then
        shb -n 10 -c 2 -j "$U"
        json_run_ok && exact 10 '{"closed": 10}'
        took 0 10000
        settle
        hx 'conns == 10 and reqs == 10' '{conns: conns, reqs: reqs}'
    fi
    finish
fi

if group reset-mid-body; then
    begin "reset-mid-body: -n 10 -c 2: 10 errors, all reset"
    if serve reset-mid-body; then
        shb -n 10 -c 2 -j "$U"
        json_run_ok && exact 10 '{"reset": 10}'
        took 0 10000
        settle
        hx 'conns == 10 and reqs == 10 and all(closes[]; .how == "reset")' '{conns: conns, reqs: reqs, how: [closes[].how]}'
    fi
    finish
fi

# --- 8. every third request on a connection is never answered -------------------------
# Per connection: requests 1 and 2 are answered, 3 times out and the
# connection is replaced, so the count starts again. Both connections run in
# step (each consumes exactly 3 requests per 1 s round: 12 = 2 rounds x 2 x
# 3), so the split is exact: 8 ok, 4 timeouts, 4 connections of 3
# requests each, ~2 s.
if group stall-every; then
    begin "stall-every 3: -n 12 -c 2 --timeout 1s: 8 ok, 4 timeouts, 4 connections"
    if serve stall-every 3; then
        shb -n 12 -c 2 --timeout 1s -j "$U"
        json_run_ok && exact 12 '{"timeout": 4}' && jx '.requests.ok == 8 and .statusCodes == {"200": 8}' '{requests, statusCodes}'
        took 1800 15000
        settle
        hx 'conns == 4 and all(closes[]; .requests == 3 and .answered == 2)' '[closes[] | {connId, requests, answered}]'
    fi
    finish
fi

# --- 9. HTTP/2: every second stream on the connection is ignored ------------------------
# -p 4 on one connection: streams 1 5 9 ... answered, 3 7 11 ... (every
# second HEADERS) ignored until --timeout resets them with RST_STREAM CANCEL
# and the connection carries on: 10 ok, 10 timeouts in three 1 s rounds.
if group h2-stall-every; then
    begin "h2-stall-every 2: --http2 -n 20 -c 1 -p 4 --timeout 1s: 10 ok, 10 timeouts, RST_STREAM CANCEL on exactly the ignored streams, 1 connection"
    if serve h2-stall-every 2; then
        shb --http2 -n 20 -c 1 -p 4 --timeout 1s -j "$U"
        json_run_ok HTTP/2 && exact 20 '{"timeout": 10}' && jx '.statusCodes == {"200": 10}' '.statusCodes'
        took 1900 20000
        settle
        hx 'conns == 1 and (frames("HEADERS") | length) == 20 and answered == 10' '{conns: conns, headers: (frames("HEADERS") | length), answered: answered}'
        hx 'acts("ignore") | length == 10' 'acts("ignore")'
        hx 'rsts | length == 10 and all(.code == 8)' 'rsts'
        hx 'cs(rsts) == cs(acts("ignore"))' '{rst: cs(rsts), ignored: cs(acts("ignore"))}'
    fi
    finish
fi

# --- 10-12. HTTP/2 with MAX_CONCURRENT_STREAMS 0 -----------------------------------------
# shb opens up to -p streams before the server's SETTINGS arrive; after them
# it may open none. The streams it opened are refused, answered or ignored.
if group h2-mcs0-refuse; then
    begin "h2-mcs0-refuse: --http2 -n 20 -c 2 -p 4 --connect-timeout 1s: ends, 20 refused"
    if serve h2-mcs0-refuse; then
        shb --http2 -n 20 -c 2 -p 4 --connect-timeout 1s -j "$U"
        json_run_ok HTTP/2 && exact 20 '{"refused": 20}'
        took 0 30000
        settle
        hx 'conns >= 2 and answered == 0 and (acts("refuse") | length) >= 1' '{conns: conns, answered: answered, refused: (acts("refuse") | length)}'
        hx 'per_conn(frames("HEADERS")) | all(. <= 4)' 'per_conn(frames("HEADERS"))'
    fi
    finish
fi

if group h2-mcs0-answer; then
    begin "h2-mcs0-answer: --http2 -n 20 -c 2 -p 4 --connect-timeout 1s: ends, 20 ok"
    if serve h2-mcs0-answer; then
        shb --http2 -n 20 -c 2 -p 4 --connect-timeout 1s -j "$U"
        json_run_ok HTTP/2 && exact 20 '{}' && jx '.statusCodes == {"200": 20}' '.statusCodes'
        took 0 30000
        settle
        hx 'answered == 20 and (frames("HEADERS") | length) == 20' '{answered: answered, headers: (frames("HEADERS") | length)}'
        # No stream opened on a connection once its MAX_CONCURRENT_STREAMS 0 was
        # known: at most the -p 4 sent with the preface.
        hx 'conns >= 5 and (per_conn(frames("HEADERS")) | all(. <= 4))' '{conns: conns, per_conn: per_conn(frames("HEADERS"))}'
    fi
    finish
fi

# Every request got a stream (4 per connection, before the server's SETTINGS)
# and none was left waiting, so the --connect-timeout rule never applies: all
# 8 are timeouts, each reset with RST_STREAM CANCEL.
if group h2-mcs0-ignore; then
    begin "h2-mcs0-ignore: --http2 -n 8 -c 2 -p 4 --timeout 1s --connect-timeout 1s: 8 timeouts"
    if serve h2-mcs0-ignore; then
        shb --http2 -n 8 -c 2 -p 4 --timeout 1s --connect-timeout 1s -j "$U"
        json_run_ok HTTP/2 && exact 8 '{"timeout": 8}'
        took 900 15000
        settle
        hx 'conns == 2 and (frames("HEADERS") | length) == 8' '{conns: conns, headers: cs(frames("HEADERS"))}'
        hx 'rsts | length == 8 and all(.code == 8)' 'rsts'
        hx 'cs(rsts) == cs(frames("HEADERS"))' '{rst: cs(rsts), headers: cs(frames("HEADERS"))}'
    fi
    finish
fi

# --- 13. malformed HTTP/2 responses ---------------------------------------------------------
if group h2-malformed; then
    for sc in h2-no-status h2-two-status h2-bad-status h2-101; do
        begin "$sc: --http2 -n 10 -c 1 -p 2: 10 protocol errors"
        if serve "$sc"; then
            shb --http2 -n 10 -c 1 -p 2 -j "$U"
            json_run_ok HTTP/2 && exact 10 '{"protocol": 10}'
            took 0 10000
            settle
            hx "(acts(\"${sc#h2-}\") | length) == 10" 'acts("'"${sc#h2-}"'") | length'
        fi
        finish
    done
    # A connection error: GOAWAY PROTOCOL_ERROR must reach the server before
    # the connection is replaced (its send names the file slot the new
    # socket takes), and the streams open on it count as protocol errors.
    begin "h2-data-on-0: --http2 -n 10 -c 1 -p 2: 10 protocol errors, a GOAWAY PROTOCOL_ERROR from every connection"
    if serve h2-data-on-0; then
        shb --http2 -n 10 -c 1 -p 2 -j "$U"
        json_run_ok HTTP/2 && exact 10 '{"protocol": 10}'
        took 0 10000
        settle
        hx 'conns == 5 and (frames("GOAWAY") | length) == 5 and all(frames("GOAWAY")[]; .code == 1 and .lastStream == 0)' \
            '{conns: conns, goaways: frames("GOAWAY")}'
    fi
    finish
fi

# --- 14. TLS records that cannot be opened -----------------------------------------------------
# tls13/conn.c: a record header announcing more than the record buffer holds
# (5 + 2^14 + 256 bytes) is answered with record_overflow before its body
# arrives; a record whose AEAD tag does not verify (tls13/record.c) with
# bad_record_mac. Each connection serves one response, then breaks: 25 of 50.
if group tls; then
    if ! gen_certs; then
        begin "tls: certificates"
        want "gen_certs failed"
        finish
    else
        for spec in "tls-record-overflow record_overflow" "tls-bad-mac bad_record_mac"; do
            read -r sc alert <<<"$spec"
            for proto in h1 h2; do
                if [ "$proto" = h1 ]; then
                    pargs=()
                    plabel="HTTP/1.1"
                    alpn="http/1.1"
                else
                    pargs=(--http2 -p 1)
                    plabel="HTTP/2 -p 1"
                    alpn="h2"
                fi
                begin "$sc ($plabel over TLS): -n 50 -c 1: 25 ok, 25 tls errors, tlsAlerts {sent $alert: 25}"
                if serve "$sc" --tls "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key"; then
                    shb "${pargs[@]}" -n 50 -c 1 -j "$U"
                    if [ "$proto" = h1 ]; then json_run_ok HTTP/1.1; else json_run_ok HTTP/2; fi && {
                        exact 50 '{"tls": 25}'
                        jx '.statusCodes == {"200": 25}' '.statusCodes'
                        jx ".tlsAlerts == {\"sent $alert\": 25}" '.tlsAlerts'
                    }
                    took 0 20000
                    settle
                    hx "conns == 25 and answered == 25 and (acts(\"inject\") | length) == 25" '{conns: conns, answered: answered, injected: (acts("inject") | length)}'
                    hx "[.[] | select(.event == \"alpn\") | .alpn] | length == 25 and all(. == \"$alpn\")" '[.[] | select(.event == "alpn") | .alpn] | unique'
                fi
                finish
            done
        done
    fi
fi

# --- 15. -c beyond the descriptor limit -------------------------------------------------------
if group fd-limit; then
    hard=$(ulimit -Hn)
    if [ "$hard" = unlimited ]; then
        skip "-c beyond RLIMIT_NOFILE: the hard limit is unlimited"
    else
        big=$((hard * 5))
        # -n as large as -c: a -n run opens at most n connections, so a
        # small -n would never need them all (docs/usage.md: -c larger than -n).
        for variant in "-n $big" "-z 1s"; do
            begin "-c $big (5 x the hard RLIMIT_NOFILE $hard) -t 1 $variant: exit 2, one line naming the limit, no traffic"
            if serve ok; then
                # shellcheck disable=SC2086  # $variant is two words on purpose
                shb -c "$big" -t 1 $variant "$U"
                sleep 0.2
                one_line_exit 2
                grep -qiE 'RLIMIT_NOFILE|ulimit|file descriptors' "$ERR" || want "stderr does not name the limit (RLIMIT_NOFILE, ulimit or file descriptors)"
                took 0 10000
                hx 'conns == 0' 'conns'
            fi
            finish
        done
    fi
fi

# --- 16. no local port left (EADDRNOTAVAIL) ----------------------------------------------------
# A network namespace of our own whose ip_local_port_range is ten ports, seven
# of them held by idle connections of another process: of shb's 5
# connections at most 3 get a port, the others fail with EADDRNOTAVAIL, and
# every failure costs one request. (A -c above the range itself is refused
# up front: the second check.) The namespace goes away on exit, whatever
# happens (hostile_cleanup). It must be fresh: the ports of a previous run
# sit in TIME_WAIT for a minute.

if group no-local-port; then
    label="no local port: 10 local ports, 7 taken, -n 40 -c 5 -t 1: some requests fail with 'no local port', 40 in all"
    if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1 || ! ip netns list >/dev/null 2>&1; then
        skip "$label: needs root and ip netns"
    else
        NETNS="shb-hostile-$$-$RANDOM"
        if ! ip netns add "$NETNS" 2>"$T/netns.err"; then
            NETNS=""
            skip "$label: ip netns add failed: $(head -n 1 "$T/netns.err")"
        elif ! ip netns exec "$NETNS" ip link set lo up 2>"$T/netns.err" ||
            ! ip netns exec "$NETNS" sh -c 'echo "40000 40009" >/proc/sys/net/ipv4/ip_local_port_range' 2>"$T/netns.err" ||
            [ "$(ip netns exec "$NETNS" cat /proc/sys/net/ipv4/ip_local_port_range | tr -s ' \t' '  ')" != "40000 40009" ]; then
            skip "$label: setting up the namespace failed: $(head -n 1 "$T/netns.err")"
        else
            begin "$label"
            printf '#!/bin/sh\nexec ip netns exec %s node "$@"\n' "$NETNS" >"$T/node-in-ns"
            printf '#!/bin/sh\nexec ip netns exec %s "%s" "$@"\n' "$NETNS" "$REAL_SHB" >"$T/shb-in-ns"
            chmod +x "$T/node-in-ns" "$T/shb-in-ns"
            if [ -n "$HS_PID" ]; then
                stop_server "$HS_PID"
                HS_PID=""
            fi
            # The server's own port must not be one of the ten.
            ok_start=0
            for attempt in 1 2 3 4 5; do
                if LIB_JS_RUNTIME=$T/node-in-ns start_hostile "hostile-ns$attempt" ok 2>>"$T/serve.err"; then
                    if [ "$HOSTILE_PORT" -ge 40000 ] && [ "$HOSTILE_PORT" -le 40009 ]; then
                        stop_server "$HOSTILE_PID"
                        continue
                    fi
                    ok_start=1
                    break
                fi
            done
            if [ "$ok_start" = 1 ]; then
                HS_PID=$HOSTILE_PID
                U="http://127.0.0.1:$HOSTILE_PORT/"
                # Seven idle connections that hold seven of the ten ports.
                ip netns exec "$NETNS" bash -c 'for i in 1 2 3 4 5 6 7; do exec {fd}<>"/dev/tcp/127.0.0.1/$1"; done; exec sleep 60' \
                    hog "$HOSTILE_PORT" </dev/null >/dev/null 2>&1 &
                HOG_PID=$!
                for i in $(seq 1 100); do
                    [ "$(ip netns exec "$NETNS" ss -Htn state established "( dport = :$HOSTILE_PORT )" | wc -l)" -ge 7 ] && break
                    sleep 0.05
                done
                SHB=$T/shb-in-ns
                shb -n 40 -c 5 -t 1 -j "$U"
                SHB=$REAL_SHB
                if json_run_ok; then
                    jx '.requests.total == 40' '.requests'
                    jx '(.errorKinds["no local port"] // 0) >= 1' '.errorKinds'
                    jx '.requests.connectErrors == .requests.errors' '.requests'
                    jx '.requests.ok >= 1 and .connectionsOpened >= 1 and .connectionsOpened <= 3' '{requests, connectionsOpened}'
                fi
                took 0 20000
                kill "$HOG_PID" 2>/dev/null
                wait "$HOG_PID" 2>/dev/null
                settle
                hx 'conns >= 8 and conns <= 10 and answered == reqs' '{conns: conns, reqs: reqs, answered: answered}'
                finish
                begin "no local port: -c 20 with 10 local ports: refused up front, exit 2, one line naming ip_local_port_range"
                SHB=$T/shb-in-ns
                shb -n 40 -c 20 -t 1 -j "$U"
                SHB=$REAL_SHB
                one_line_exit 2
                grep -q ip_local_port_range "$ERR" || want "stderr does not name ip_local_port_range: $ERR_LINE"
            else
                U=""
                want "test/servers/hostile_server.js ok did not start in the namespace ($(tail -n 3 "$T/serve.err" | tr '\n' ' '))"
            fi
            finish
            if [ -n "$HS_PID" ]; then
                stop_server "$HS_PID"
                HS_PID=""
            fi
            ip netns del "$NETNS" 2>/dev/null || true
            NETNS=""
        fi
    fi
fi

[ "$FAILS" -eq 0 ]
