#!/usr/bin/env bash
# test/e2e_hostile_udp.sh — --http3 against UDP "servers" that misbehave
# before any handshake: test/hostile_udp_server.js (started here on
# 127.0.0.1, one mode at a time) never answers, answers with random bytes,
# with Version Negotiation (without version 1, with it, with the connection
# IDs wrong), with a Retry whose integrity tag is wrong, with what looks like
# a stateless reset, with an Initial for another connection ID. Nothing here
# needs a QUIC server.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e_hostile_udp.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e_hostile_udp.sh
#   HOSTILE_UDP_CHECKS="vn badretry" bash test/e2e_hostile_udp.sh   # only those modes
#
# Same conventions as test/e2e_hostile.sh: one "PASS name" / "FAIL name: why"
# line per check, diagnostics indented after a FAIL, exit status 1 if
# anything failed. Every shb run is under `timeout $SHB_TIMEOUT` (30 s;
# HOSTILE_SHB_TIMEOUT overrides) and its wall time is bounded by each check,
# so a hang is a FAIL. Each check also reads the server's log: the Initials
# it got (one source connection ID per connection shb opened) and the
# replies it sent, so that no check passes against a server that never saw
# the traffic. Modes (HOSTILE_UDP_CHECKS, space-separated; default all):
# silent silent-z garbage vn vn-with-v1 vn-wrong-cid badretry reset other-cid.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
set -u
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=test/lib.sh
. test/lib.sh

E2E_NAME=e2e-hostile-udp
EXPECT_PROTOCOL=HTTP/3
# shellcheck source=test/e2e_lib.sh
. test/e2e_lib.sh
SHB_TIMEOUT=${HOSTILE_SHB_TIMEOUT:-30}

e2e_preconditions jq node timeout

# e2e_diag_extra: what the server logged, after e2e_lib's diag lines.
e2e_diag_extra() {
    if [ -n "$U" ] && [ -s "${HU_LOG:-}" ]; then
        jq -c -s "$HQ"' {conns: conns, initials: (initials | length), datagrams: (datagrams | length),
            replies: (replies | length), errors: [.[] | select(.event == "error") | .message]}' "$HU_LOG" 2>/dev/null |
            head -c 800 | sed 's/^/  server: /'
        echo
    fi
    return 0
}

# group NAME: true when the group is to run (HOSTILE_UDP_CHECKS unset or names it).
group() {
    [ -z "${HOSTILE_UDP_CHECKS:-}" ] && return 0
    case " $HOSTILE_UDP_CHECKS " in *" $1 "*) return 0 ;; esac
    return 1
}

# serve MODE: stops the previous server and starts test/hostile_udp_server.js
# in MODE on a fresh port; sets U (the https:// URL) and HU_LOG. On failure
# the current check gets the reason and serve returns 1.
HU_PID=""
HU_N=0
HU_LOG=""
U=""
serve() {
    if [ -n "$HU_PID" ]; then
        stop_server "$HU_PID"
        HU_PID=""
    fi
    HU_N=$((HU_N + 1))
    if ! start_node_server "$LIB_ROOT/test/hostile_udp_server.js" "hostile-udp$HU_N" "$1" 2>>"$T/serve.err" ||
        ! wait_udp "$NODE_PORT" "$NODE_PID" 5; then
        want "test/hostile_udp_server.js $1 did not start ($(tail -n 3 "$T/serve.err" | tr '\n' ' '))"
        U=""
        return 1
    fi
    HU_PID=$NODE_PID
    HU_LOG=$NODE_LOG
    U="https://127.0.0.1:$NODE_PORT/"
    return 0
}

# jq definitions over the slurped server log. A connection is one source
# connection ID of the client's Initials (every connection of shb has its
# own socket and its own SCID).
HQ='def datagrams: [.[] | select(.event == "datagram")];
    def initials: [datagrams[] | select(.long and .type == 0 and .version == "00000001")];
    def conns: [initials[].scid] | unique | length;
    def replies: [.[] | select(.event == "reply")];'

# hx EXPR [SHOW]: the server log (slurped) satisfies EXPR.
hx() {
    local got
    [ -n "$U" ] || return 0 # the server did not start: serve said so already
    if ! jq -e -s "$HQ $1" "$HU_LOG" >/dev/null 2>&1; then
        got=$(jq -c -s "$HQ ${2:-length}" "$HU_LOG" 2>/dev/null | head -c 600 || true)
        want "server log: expected $1 (got ${got:-nothing})"
    fi
}

# took MIN_MS MAX_MS: shb's wall time is within bounds.
took() {
    [ "$SHB_MS" -ge "$1" ] || want "took ${SHB_MS} ms, expected at least $1 ms"
    [ "$SHB_MS" -le "$2" ] || want "took ${SHB_MS} ms, expected at most $2 ms"
}

# connect_timeouts N: a -n N run whose every request failed with
# `connect timeout`, none of them sent over a connection, no Retry followed.
connect_timeouts() {
    jx ".requests.total == $1 and .requests.ok == 0 and .requests.errors == $1 and .requests.connectErrors == $1" '.requests'
    jx ".errorKinds == {\"connect timeout\": $1}" '.errorKinds'
    jx '.statusCodes == {}' '.statusCodes'
    jx '.quic.retries == 0 and .quic.packetsReceived == 0' '.quic'
}

# One -n 4 -c 2 --connect-timeout 1s run against a server that makes no
# handshake possible: two rounds of two connections, each given up after
# 1 s and charged one request; ~2 s in all.
N=4
C=2
RUN=(--http3 -n "$N" -c "$C" --connect-timeout 1s -j)

# timeout_check MODE WHAT [HX_REPLIES]: the check for every mode whose
# replies shb must ignore.
timeout_check() {
    local mode=$1 what=$2 replies=${3:-'(replies | length) >= 4'}
    begin "$mode ($what): -n $N -c $C --connect-timeout 1s: $N connect timeouts in ~2 s, 4 connections"
    if serve "$mode"; then
        shb "${RUN[@]}" "$U"
        json_run_ok && connect_timeouts "$N"
        took 1800 8000
        hx 'conns == 4' '{conns: conns, scids: [initials[].scid] | unique}'
        hx "$replies" '{replies: (replies | length), datagrams: (datagrams | length)}'
    fi
    finish
}

# --- the modes --------------------------------------------------------------------

if group silent; then
    timeout_check silent "never answers" '(replies | length) == 0'
fi

if group silent-z; then
    begin "silent: --http3 -z 2s -c 2 --connect-timeout 5s: ends at ~2 s, nothing counted, no hang"
    if serve silent; then
        shb --http3 -z 2s -c 2 --connect-timeout 5s -j "$U"
        if json_run_ok; then
            jx '.requests.total == 0 and .requests.errors == 0' '{requests, errorKinds}'
            jx '.durationSeconds >= 1.8 and .durationSeconds <= 4' '.durationSeconds'
        fi
        took 1500 8000
        hx 'conns == 2' '{conns: conns}'
    fi
    finish
fi

if group garbage; then
    timeout_check garbage "random bytes in answer to every datagram"
fi

if group vn; then
    begin "vn (Version Negotiation offering 0xff00001d and 0x709a50c4): exit 1 at once, one line naming both versions"
    if serve vn; then
        shb "${RUN[@]}" "$U"
        one_line_exit 1
        grep -q 'QUIC version 1' <<<"$ERR_LINE" || want "stderr does not say 'QUIC version 1': $ERR_LINE"
        if ! grep -q '0xff00001d' <<<"$ERR_LINE" || ! grep -q '0x709a50c4' <<<"$ERR_LINE"; then
            want "stderr does not name 0xff00001d and 0x709a50c4: $ERR_LINE"
        fi
        took 0 3000
        hx 'conns >= 1 and (replies | length) >= 1' '{conns: conns, replies: (replies | length)}'
        # The harness's own check: the reply swapped the connection IDs.
        hx '[initials[] | {scid, dcid}] as $i | all(replies[]; . as $r | any($i[]; .scid == $r.dcid and .dcid == $r.scid))' \
            '{initials: [initials[] | {scid, dcid}], replies: [replies[] | {dcid, scid}]}'
    fi
    finish
fi

if group vn-with-v1; then
    timeout_check vn-with-v1 "a Version Negotiation that lists version 1: ignored, RFC 9000 §6.2"
fi

if group vn-wrong-cid; then
    # The VN of mode vn, but sent to the client's DCID (the IDs not
    # swapped): not for this connection (§17.2.1), so not a reason to stop.
    begin "vn-wrong-cid (a Version Negotiation whose connection IDs are not ours): ignored, $N connect timeouts"
    if serve vn-wrong-cid; then
        shb "${RUN[@]}" "$U"
        json_run_ok && connect_timeouts "$N"
        took 1800 8000
        hx 'conns == 4 and (replies | length) >= 4' '{conns: conns, replies: (replies | length)}'
    fi
    finish
fi

if group badretry; then
    timeout_check badretry "a Retry whose integrity tag does not verify: ignored, quic.retries 0"
fi

if group reset; then
    timeout_check reset "short-header datagrams shaped like a stateless reset, before any token: ignored"
fi

if group other-cid; then
    timeout_check other-cid "an Initial for another connection ID: dropped"
fi

[ "$FAILS" -eq 0 ]
