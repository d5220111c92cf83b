#!/usr/bin/env bash
# test/e2e/e2e_hostile_cases.sh — the hostile-server case table
# (test/hostile/cases_*.js, played by test/servers/hostile_server.js in its "table"
# scenario for HTTP/1.1, HTTP/2 and TLS, and by test/servers/hostile_quic_server.js
# for QUIC/HTTP/3) against one build of shb.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_hostile_cases.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_hostile_cases.sh
#   HOSTILE_CASES='h1-cl-* h2-goaway-*' bash test/e2e/e2e_hostile_cases.sh   # only these
#   HOSTILE_CASES='h3-*' bash test/e2e/e2e_hostile_cases.sh                  # QUIC only
#   HOSTILE_JOBS=1 bash test/e2e/e2e_hostile_cases.sh      # one case at a time
#
# One TCP server (cleartext, with TLS 1.3 on a second port) and one UDP
# server (QUIC) serve every case of a shard (the table runs in HOSTILE_JOBS
# shards at once, below): the name of the current case is written to the
# shard's control file, which its servers read at each connection (for
# QUIC: each new client address). Every case asserts, besides its own expectation
# (a jq expression over the JSON report, from the table; or, for a case
# whose verdict is a non-zero exit, that status and exactly one stderr line
# matching the case's ERE), and the case's `server` jq over the lines the
# server logged for it, where it has one:
#   - shb exits 0 within the case's deadline (a hang is a FAIL, bounded);
#   - the report is complete and consistent (json_run_ok: total == ok +
#     errors, errorKinds sum to errors), and total == -n;
#   - no sanitizer report on stderr (the ASan build: LeakSanitizer included);
#   - peak RSS (GNU time's %M) under HOSTILE_RSS_KB: 16 MiB for the musl
#     build, 128 MiB for the ASan build (its shadow memory and quarantine;
#     measured: at most 1.1 and 11.6 MiB), whatever the server sends (floods
#     of 100 MB included);
#   - the server saw at least one connection for this case (so no case can
#     pass against a server that never got the traffic).
# Same PASS/FAIL conventions as test/e2e/e2e.sh (test/e2e/e2e_lib.sh).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-hostile-cases

e2e_preconditions jq node timeout openssl
if [ ! -x /usr/bin/time ]; then
    echo "FAIL $P setup: /usr/bin/time is not installed (run: bash scripts/deps.sh)"
    exit 1
fi
case "$SHB_FLAVOUR" in
    asan) RSS_KB=${HOSTILE_RSS_KB:-131072} ;;
    *) RSS_KB=${HOSTILE_RSS_KB:-16384} ;;
esac

# The table runs in JOBS shards at once (HOSTILE_JOBS; default one per CPU,
# at most 4): shard I has its own three servers (each reading the case to
# play from its own control file, $T/shard-I/case) and its own files, and
# plays every JOBS-th case of the table, from the I-th, in table order. Each
# case still has one shb and one server to itself; only the wall time of
# the whole table shrinks. Shard 0's lines come as they are made, every
# other shard's once it and the ones before it are done.
JOBS=$(shard_jobs "${HOSTILE_JOBS:-}")

gen_certs || { echo "FAIL $P setup: could not make certificates"; exit 1; }

# start_shard_servers I: shard I's cleartext, TLS and QUIC servers; their
# ports and logs go to PLAIN_PORTS[I], PLAIN_LOGS[I] and so on. Started one
# after another by this shell, so that pick_port never hands a port out twice.
PLAIN_PORTS=() PLAIN_LOGS=() TLS_PORTS=() TLS_LOGS=() UDP_PORTS=() UDP_LOGS=()
start_shard_servers() {
    local i=$1 control=$T/shard-$1/case
    mkdir -p "$T/shard-$i"
    : >"$control"
    start_hostile "hostile-table-$i" table "$control" 2>"$T/serve.err" ||
        { echo "FAIL $P setup: the cleartext table server did not start ($(tail -n 3 "$T/serve.err" | tr '\n' ' '))"; return 1; }
    PLAIN_PORTS[i]=$HOSTILE_PORT PLAIN_LOGS[i]=$HOSTILE_LOG
    start_hostile "hostile-table-tls-$i" table "$control" --tls "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" 2>"$T/serve.err" ||
        { echo "FAIL $P setup: the TLS table server did not start ($(tail -n 3 "$T/serve.err" | tr '\n' ' '))"; return 1; }
    TLS_PORTS[i]=$HOSTILE_PORT TLS_LOGS[i]=$HOSTILE_LOG
    start_hostile_quic "hostile-table-quic-$i" "$control" "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key" 2>"$T/serve.err" ||
        { echo "FAIL $P setup: the QUIC table server did not start ($(tail -n 3 "$T/serve.err" | tr '\n' ' '))"; return 1; }
    UDP_PORTS[i]=$HQUIC_PORT UDP_LOGS[i]=$HQUIC_LOG
}
for ((i = 0; i < JOBS; i++)); do
    start_shard_servers "$i" || exit 1
done

# The definitions the h3 cases' `server` expressions use (test/hostile/cases.js),
# over the slurped lines test/servers/hostile_quic_server.js logged for the case.
HQDEFS='def datagrams: [.[] | select(.event == "datagram")];
    def initials: [datagrams[] | select(.long and .type == 0 and .version == "00000001")];
    def conns: [initials[].scid] | unique | length;
    def replies: [.[] | select(.event == "reply")];
    def hs: [.[] | select(.event == "handshake")];
    def est: [.[] | select(.event == "established")];
    def bad: [.[] | select(.event == "misbehave")];
    def closes: [.[] | select(.event == "close")];
    def resets: [.[] | select(.event == "reset")];
    def stops: [.[] | select(.event == "stop")];
    def errs: [.[] | select(.event == "error")];
    def requests: [.[] | select(.event == "request")];
    def responses: [.[] | select(.event == "response")];
    def appFrames: [.[] | select(.event == "packet" and .space == "app") | .frames[]];'

if ! node test/hostile/cases.js --list "${HOSTILE_CASES:-}" >"$T/cases.tsv" 2>"$T/cases.err"; then
    echo "FAIL $P setup: the case table does not load: $(head -n 3 "$T/cases.err" | tr '\n' ' ')"
    exit 1
fi

# e2e_diag_extra: what the server logged for this case.
e2e_diag_extra() {
    [ -s "${CASE_LOG:-}" ] || return 0
    server_log | jq -c -s '{opens: ([.[] | select(.event == "case")] | length),
           requests: ([.[] | select(.event == "request")] | length),
           closes: ([.[] | select(.event == "close") | .how] | group_by(.) | map({(.[0]): length}) | add),
           errors: ([.[] | select(.event == "error") | .message] | unique | .[:3])}' 2>/dev/null |
        head -c 600 | sed 's/^/  server: /'
    echo
    [ -s "$T/rss" ] && echo "  peak RSS: $(tail -n 1 "$T/rss") KiB"
    return 0
}

# LeakSanitizer really runs at shb's exit in this build: with the roots it
# scans taken away (globals, stacks, registers, TLS), the blocks shb keeps
# until exit must be reported. Without this, "no leak reported" could mean
# no leak check.
if [ "$SHB_FLAVOUR" = asan ]; then
    begin "LeakSanitizer checks shb at exit (roots hidden: its buffers are reported)"
    LSAN_OPTIONS=use_globals=0:use_stacks=0:use_registers=0:use_tls=0:exitcode=86 shb -n 1 --connect-timeout 1s -j "http://127.0.0.1:${PLAIN_PORTS[0]}/"
    grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$ERR" || want "no LeakSanitizer report with its roots hidden (is detect_leaks off?)"
    [ "$SHB_RC" -eq 86 ] || want "exit status $SHB_RC, expected LSAN_OPTIONS' exitcode 86"
    finish
fi

# server_log: the lines the server logged for this case (the QUIC server
# tags each with its case; the TCP servers' lines since the case began).
# Only the lines since the case began are read: the QUIC server's log holds
# every packet of every case so far.
server_log() {
    if [ "$proto" = h3 ]; then
        tail -n +"$((before + 1))" "$CASE_LOG" | jq -c --arg c "$CASE" 'select(.case == $c)' 2>/dev/null
    else
        tail -n +"$((before + 1))" "$CASE_LOG"
    fi
}

# play_shard I: plays shard I's cases against its servers, in a subshell
# (its T, OUT and ERR are its own); exit status 1 if any failed.
play_shard() {
    local i=$1
    CONTROL=$T/shard-$i/case
    PLAIN_PORT=${PLAIN_PORTS[i]} PLAIN_LOG=${PLAIN_LOGS[i]}
    TLS_PORT=${TLS_PORTS[i]} TLS_LOG=${TLS_LOGS[i]}
    UDP_PORT=${UDP_PORTS[i]} UDP_LOG=${UDP_LOGS[i]}
    awk -v n="$JOBS" -v i="$i" '(NR - 1) % n == i' "$T/cases.tsv" >"$T/shard-$i/cases.tsv"
    OUT=$T/shard-$i/out ERR=$T/shard-$i/err
    T=$T/shard-$i
    FAILS=0
    CASE="" CASE_LOG="" before=0 MAX_RSS=0 MAX_RSS_CASE="" proto=""
    while IFS=$'\t' read -r CASE tls args deadline expr proto sexpr xexit xerr; do
        [ -n "$CASE" ] || continue
        if [ "$proto" = h3 ]; then
            url=https://127.0.0.1:$UDP_PORT/ CASE_LOG=$UDP_LOG
        elif [ "$tls" = 1 ]; then
            url=https://127.0.0.1:$TLS_PORT/ CASE_LOG=$TLS_LOG
        else
            url=http://127.0.0.1:$PLAIN_PORT/ CASE_LOG=$PLAIN_LOG
        fi
        begin "$CASE"
        printf '%s\n' "$CASE" >"$CONTROL"
        before=$(wc -l <"$CASE_LOG")
        args=${args//@CERTS@/$LIB_CERTS} # a client certificate (--cert): gen_certs' files
        # shellcheck disable=SC2086  # args is a word list from the table
        SHB_TIMEOUT=$((deadline + 5)) shb_rss $args -j "$url"
        if [ "$xexit" != 0 ]; then
            # A verdict that ends the run before any report (RFC 9000 §6.2: no
            # version in common): the status, and one line saying why.
            one_line_exit "$xexit"
            if [ "$xerr" != - ] && ! grep -qE -- "$xerr" <<<"$ERR_LINE"; then
                want "stderr does not match /$xerr/: $ERR_LINE"
            fi
        else
            json_run_ok "" "$expr" '{requests, statusCodes, errorKinds, inFlight, connectionsOpened, quic: .quic.connectionCloses}'
        fi
        [ "$SHB_MS" -le $((deadline * 1000)) ] || want "took ${SHB_MS} ms, over the case's ${deadline} s"
        rss=$(tail -n 1 "$T/rss" 2>/dev/null)
        if ! [ "$rss" -ge 0 ] 2>/dev/null; then
            want "no peak RSS from /usr/bin/time"
        elif [ "$rss" -gt "$RSS_KB" ]; then
            want "peak RSS ${rss} KiB, over the ${RSS_KB} KiB ceiling"
        elif [ "$rss" -gt "$MAX_RSS" ]; then
            MAX_RSS=$rss MAX_RSS_CASE=$CASE
        fi
        if [ "$sexpr" != - ]; then
            # The server logs shb's last datagrams (its CONNECTION_CLOSE) as
            # they arrive, which may be just after shb has exited.
            sleep 0.1
        fi
        server_log >"$T/slog"
        if [ "$sexpr" != - ]; then
            if ! jq -e -s "$HQDEFS $sexpr" "$T/slog" >/dev/null 2>&1; then
                want "server log: expected $sexpr (got $(jq -c -s "$HQDEFS"' {conns: (try conns catch null), hs: (hs | length), est: (est | length), bad: (bad | length), requests: (requests | length), responses: (responses | length), replies: (replies | length), closes: [closes[] | .code], errs: [errs[] | .message] | unique | .[:3]}' "$T/slog" 2>/dev/null | head -c 600))"
            fi
        fi
        jq -e -s --arg c "$CASE" 'any(.[]; .event == "case" and .case == $c and .known)' "$T/slog" >/dev/null 2>&1 ||
            want "the server logged no connection playing $CASE"
        finish
    done <"$T/cases.tsv"
    echo "peak RSS of the passing cases: at most ${MAX_RSS} KiB (${MAX_RSS_CASE:-none}); ceiling ${RSS_KB} KiB"
    [ "$FAILS" -eq 0 ]
}

# The shards run as subshells: the servers are this shell's, stopped by its
# e2e_cleanup once every shard is done.
in_shards "$JOBS" play_shard || exit 1
