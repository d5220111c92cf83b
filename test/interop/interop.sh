#!/usr/bin/env bash
# test/interop/interop.sh — the interop matrix (make interop): shb against every HTTP
# server this machine can install (Debian 12 packages, npm), over every
# protocol each one speaks, in three cases each.
#
#   bash test/interop/interop.sh            run the matrix with $SHB (default ./shb)
#   bash test/interop/interop.sh --readme   run it and write the matrix into docs/interop.md
#                                   between <!-- interop-matrix:begin/end -->
#   INTEROP_ONLY="nginx caddy" ...  only those servers (ids, see SERVERS below)
#   INTEROP_JOBS=1 ...              one server at a time (default: one per CPU)
#
# Protocols (columns): h1 (HTTP/1.1 cleartext), h2c (HTTP/2 prior knowledge,
# shb --http2 http://), h1s (HTTP/1.1 over TLS), h2s (HTTP/2 over TLS, ALPN
# h2), h3 (shb --http3). Cases: ok (GET /, a 200), h48 (GET /h48: 48 response
# headers x-h01..x-h48 of 1000 bytes each, 48 KB), c5 (the server ends the
# connection on the 5th request: Connection: close on HTTP/1.1, GOAWAY on
# HTTP/2 and HTTP/3). Every cell runs `shb -n 200 -c 10 -j` under timeout and
# passes when shb exits 0, requests.ok == 200, statusCodes == {"200": 200},
# errors == 0 (and no sanitizer report), plus: h48: bytesReceived shows the
# headers arrived every time, and another client (curl, h2_probe.py, Bun's fetch)
# sees all 48 headers from the server; c5: shb opened >= 40 connections and
# another client (curl: "Connection: close" on the 5th response and only
# there; test/interop/h2_probe.py: a GOAWAY after the 5th) sees it.
# When shb fails a cell, a reference client (h2load; Bun's fetch for h3) runs
# the same load: if it fails too, the cell is a known server bug (a SKIP line
# with what the reference saw), otherwise shb's failure (a FAIL line).
#
# Output: one PASS/FAIL/SKIP line per cell (test/run.sh count_line), then
# the matrix. Servers that are not installed get SKIP lines.
#
# Adding a server (a third QUIC stack, say): write a function srv_ID that
# starts it (bounded: test/e2e/lib.sh's start_* helpers or interop_start) and
# declares its cells with `cell PROTO CASE URL` and `na PROTO CASE WHY`
# (protocols it does not speak are left out), and append one row to SERVERS:
#   "ID|label|stack (h1/h2/h3 implementations)|TLS library|stack ids"
# A file test/interop/servers.d/*.sh is sourced before the run, so a server
# can be added there without editing this file (SERVERS+=(...) and srv_ID).
# shellcheck disable=SC2016,SC2034  # jq programs are single-quoted on purpose; matrix.sh reads the arrays
set -u
cd "$(dirname "$0")/../.." || exit 2
E2E_NAME=interop
# shellcheck source=test/e2e/lib.sh
. test/e2e/lib.sh
# shellcheck source=test/e2e/e2e_lib.sh
. test/e2e/e2e_lib.sh

README_MODE=0
[ "${1:-}" = --readme ] && README_MODE=1

# The builds to run every cell with: INTEROP_SHBS="PATH:FLAVOUR ..." (both
# builds against the same server instances: test/run.sh), else $SHB alone.
declare -a FLAVOURS=()
declare -A SHB_OF=()
for b in ${INTEROP_SHBS:-$SHB:$SHB_FLAVOUR}; do
    SHB=${b%:*}
    case "$SHB" in */*) ;; *) SHB=./$SHB ;; esac
    SHB_FLAVOUR=${b##*:}
    P="${E2E_NAME}[$SHB_FLAVOUR]"
    e2e_preconditions jq curl h2load openssl
    FLAVOURS+=("$SHB_FLAVOUR")
    SHB_OF[$SHB_FLAVOUR]=$SHB
done
PALL="${E2E_NAME}[$(IFS=+; echo "${FLAVOURS[*]}")]"
P=$PALL
# LeakSanitizer on for the sanitized build (test/run.sh sets the same).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
SHB_TIMEOUT=${INTEROP_SHB_TIMEOUT:-40}
PY=/usr/bin/python3
BUN=$(bun_bin 2>/dev/null || true)
I=$LIB_ROOT/test/interop
gen_certs || { echo "FAIL $P setup: gen_certs failed"; exit 1; }
C=$LIB_CERTS
T0=$(now_ms)

PROTOS=(h1 h2c h1s h2s h3)
CASES=(ok h48 c5)
declare -A CELL_URL CELL_NA RES SEEN
declare -a SERVERS=()

# cell PROTO CASE URL: the current server serves CASE over PROTO at URL.
cell() { CELL_URL["$SID,$1,$2"]=$3; }
# na PROTO CASE WHY: the current server speaks PROTO but cannot do CASE.
na() { CELL_NA["$SID,$1,$2"]=$3; }
# cells PROTO BASEURL [CASE...]: cell PROTO CASE for each CASE (default all
# three) at BASEURL/ (ok), BASEURL/h48, BASEURL/c5.
cells() {
    local proto=$1 base=$2 c
    shift 2
    [ $# -gt 0 ] || set -- ok h48 c5
    for c in "$@"; do
        case "$c" in
            ok) cell "$proto" ok "$base/" ;;
            *) cell "$proto" "$c" "$base/$c" ;;
        esac
    done
}

# cells_but_c5 PROTO BASEURL WHY: ok and h48 at BASEURL, and c5 n/a for WHY
# (a server with no per-connection request limit on PROTO).
cells_but_c5() {
    cells "$1" "$2" ok h48
    na "$1" c5 "$3"
}

# interop_start NAME PORTSPEC CMD...: starts CMD in the background (stdout
# and stderr to $LIB_TMP/NAME/log) and waits up to 10 s for every TCP port
# of PORTSPEC ("tcp:P tcp:Q udp:R") to be bound, with CMD still running.
# Sets SPID. One attempt: ports come from pick_port just before, and a
# failed start (start_fail) makes run_server call the function again.
interop_start() {
    local name=$1 spec=$2 dir p
    shift 2
    dir=$LIB_TMP/$name
    mkdir -p "$dir"
    # Its own session: a server that signals its process group (as some
    # managers do when they stop) must not hit this script.
    setsid "$@" >"$dir/log" 2>&1 &
    SPID=$!
    for p in $spec; do
        case "$p" in
            tcp:*) wait_port "${p#tcp:}" "$SPID" 10 || { start_failed "$name" 1 "$SPID" "$dir/log"; return 1; } ;;
            udp:*) wait_udp "${p#udp:}" "$SPID" 10 || { start_failed "$name" 1 "$SPID" "$dir/log"; return 1; } ;;
        esac
    done
    LIB_PIDS+=("$SPID")
}

# render TEMPLATE OUT [KEY=VALUE...]: OUT is TEMPLATE with @KEY@ replaced by
# VALUE, and @CERTS@, @DIR@ (OUT's directory) and @I@ (test/interop).
render() {
    local tpl=$1 out=$2 kv args=()
    shift 2
    args=(-e "s|@CERTS@|$C|g" -e "s|@DIR@|$(dirname "$out")|g" -e "s|@I@|$I|g")
    for kv in "$@"; do
        args+=(-e "s|@${kv%%=*}@|${kv#*=}|g")
    done
    sed "${args[@]}" "$tpl" >"$out"
}

# --- the reference clients ----------------------------------------------------
REF=""
# ref_headers PROTO URL: another client fetches URL once and finds the 48
# headers of 1000 bytes; REF says what it saw.
ref_headers() {
    local proto=$1 url=$2 n out
    out=$T/ref.out
    case "$proto" in
        h1 | h1s)
            timeout 20 curl -sk --http1.1 -D "$out" -o /dev/null "$url" >/dev/null 2>&1
            n=$(grep -caiE '^x-h[0-9]{2}: a{1000}'$'\r''?$' "$out" || true)
            REF="curl: $n of 48 x-h headers of 1000 bytes, header block $(wc -c <"$out") bytes" ;;
        h2c | h2s)
            timeout 20 "$PY" "$I/h2_probe.py" "$url" 1 >"$out" 2>&1
            n=$(jq -r '.bigHeaders // 0' "$out" 2>/dev/null || echo 0)
            REF="h2_probe.py (python3-h2): $n of 48 x-h headers of 1000 bytes, in $(jq -r '.headerFrames' "$out" 2>/dev/null) frames, $(jq -r '.continuationFrames' "$out" 2>/dev/null) of them CONTINUATION ($(head -c 200 "$out"))" ;;
        h3)
            if [ -z "$BUN" ]; then REF="no bun for the HTTP/3 reference client"; return 1; fi
            timeout 20 "$BUN" "$I/h3_headers.js" "$url" >"$out" 2>&1
            n=$(jq -r '.big // 0' "$out" 2>/dev/null || echo 0)
            REF="Bun fetch (h3): $n of 48 x-h headers of 1000 bytes ($(head -c 200 "$out"))" ;;
    esac
    [ "$n" = 48 ]
}

# ref_close5 PROTO URL: another client sees the server end the connection
# on the 5th request: curl over one connection gets "Connection: close" on
# the 5th response only; test/interop/h2_probe.py (python3-h2), sending
# requests one after another on one connection, gets exactly 5 responses
# and a GOAWAY.
ref_close5() {
    local proto=$1 url=$2 out blocks closes5 closes
    out=$T/ref.out
    case "$proto" in
        h1 | h1s)
            timeout 20 curl -sk --http1.1 -v -o /dev/null -o /dev/null -o /dev/null -o /dev/null \
                -o /dev/null -o /dev/null "$url" "$url" "$url" "$url" "$url" "$url" >"$out" 2>&1
            # Response header blocks start with "< HTTP/".
            blocks=$(grep -caE '^< HTTP/' "$out" || true)
            closes=$(grep -ciaE '^< connection: *close' "$out" || true)
            closes5=$(awk 'tolower($0) ~ /^< http\// {n++} tolower($0) ~ /^< connection: *close/ && n == 5 {c++} END {print c + 0}' "$out")
            REF="curl -v, 6 requests: $blocks responses, Connection: close on the 5th: $closes5, in all: $closes"
            [ "$blocks" = 6 ] && [ "$closes5" = 1 ] && [ "$closes" = 1 ] ;;
        h2c | h2s)
            timeout 20 "$PY" "$I/h2_probe.py" "$url" 8 >"$out" 2>&1
            REF="h2_probe.py (python3-h2), up to 8 requests one after another on one connection: $(head -c 300 "$out")"
            jq -e '.goawayAt != null and .responses == 5' "$out" >/dev/null 2>&1 ;;
        h3)
            # No HTTP/3 client here reports a GOAWAY; a server that logs
            # each connection's answers (C5_H3_LOG, C5_H3_PID: srv_deno)
            # shows it closed one after exactly 5, the 6th and later of
            # Bun's sequential requests going on a new connection.
            [ -n "${C5_H3_LOG:-}" ] && [ -n "$BUN" ] || { REF="no reference for h3 c5"; return 1; }
            : >"$C5_H3_LOG"
            timeout 30 "$BUN" "$LIB_ROOT/test/servers/h3_fetch.js" "$url" 8 1 >"$out" 2>&1
            wait_line '^conn [0-9]*: 5 requests answered, closed by server$' "$C5_H3_LOG" "$C5_H3_PID" 5
            local rc=$?
            REF="Bun fetch (h3), 8 requests one after another: $(head -c 200 "$out"); the server's log: $(head -n 3 "$C5_H3_LOG" | tr '\n' ' ')"
            return "$rc" ;;
        *) REF="no reference client for $proto"; return 1 ;;
    esac
}

# ref_load PROTO URL: the reference load generator runs the cell's load
# (200 requests over 10 connections); REF says how it went.
ref_load() {
    local proto=$1 url=$2 out ok=0
    out=$T/ref.out
    case "$proto" in
        h1 | h1s) timeout 30 h2load --h1 -n 200 -c 10 "$url" >"$out" 2>&1 ;;
        h2c | h2s) timeout 30 h2load -n 200 -c 10 "$url" >"$out" 2>&1 ;;
        h3)
            [ -n "$BUN" ] || { REF="no bun"; return 1; }
            timeout 60 "$BUN" "$LIB_ROOT/test/servers/h3_fetch.js" "$url" 200 10 >"$out" 2>&1
            REF="Bun fetch (h3), 200 requests: $(head -c 300 "$out")"
            jq -e '.ok == 200 and .statusCodes == {"200": 200}' "$out" >/dev/null 2>&1
            return ;;
    esac
    REF="h2load: $(grep -aE '^requests:|^status codes:' "$out" | tr '\n' ' ' | tr -s ' ')"
    ok=$(sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' "$out")
    grep -qaE '^requests: 200 total, 200 started, 200 done, 200 succeeded' "$out" && [ "${ok:-0}" = 200 ]
}

# --- one cell -------------------------------------------------------------------
# judge PROTO CASE: the checks of a cell on shb's run ($OUT, $ERR, SHB_RC),
# in one jq run (a jq per check costs seconds per cell on a busy machine):
# exit 0, no sanitizer report, a JSON report of the protocol whose totals
# add up, 200 ok of 200, {"200": 200}, no error; h48: bytesReceived shows
# 48,000 bytes of header values per response (as text over HTTP/1.1,
# Huffman-coded, 5 bits per "a", over HPACK and QPACK); c5: >= 40
# connections for 200 requests.
judge() {
    local proto=$1 cs=$2 want_proto min=$((200 * 48000)) msgs m
    [ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
    no_sanitizer_report
    case "$proto" in
        h1 | h1s) want_proto=HTTP/1.1 ;;
        h2c | h2s) want_proto=HTTP/2 min=$((200 * 28000)) ;;
        h3) want_proto=HTTP/3 min=$((200 * 28000)) ;;
    esac
    msgs=$(jq -r --arg proto "$want_proto" --arg cs "$cs" --argjson min "$min" '
        def chk(c; msg): if c then empty else msg end;
        if type != "object" then "stdout is not a JSON object" else
            chk(.protocol == $proto; "protocol \(.protocol), expected \($proto)"),
            chk(.requests.ok == 200 and .requests.errors == 0 and .requests.total == 200;
                "requests \(.requests | tojson), expected 200 ok" +
                (if (.errorKinds // {}) != {} then ", errors \(.errorKinds | tojson)" else "" end) +
                (if .tlsAlerts then ", TLS alerts \(.tlsAlerts | tojson)" else "" end)),
            chk(.statusCodes == {"200": 200}; "statusCodes \(.statusCodes | tojson), expected {\"200\":200}"),
            chk(([.statusCodes[]] | add // 0) == .requests.ok; "statusCodes do not add up to requests.ok"),
            chk(([.errorKinds[]] | add // 0) == .requests.errors; "errorKinds do not add up to requests.errors"),
            (if $cs == "h48" then chk(.bytesReceived >= $min; "bytesReceived \(.bytesReceived), expected >= \($min)") else empty end),
            (if $cs == "c5" then chk(.connectionsOpened >= 40; "connectionsOpened \(.connectionsOpened), expected >= 40 (5 requests a connection)") else empty end)
        end' "$OUT" 2>/dev/null) || msgs="stdout is not a JSON report"
    while IFS= read -r m; do
        [ -z "$m" ] || want "$m"
    done <<<"$msgs"
}

# run_cell PROTO CASE URL: runs shb on the cell, judges it and sets RES.
run_cell() {
    local proto=$1 cs=$2 url=$3 args=(-n 200 -c 10 -j) refwhy="" load="" loadref="" fl c0 shb_why
    case "$proto" in
        h2c | h2s) args+=(--http2) ;;
        h3) args+=(--http3) ;;
    esac
    # What the server really does, seen by another client (once per cell).
    case "$cs" in
        h48) ref_headers "$proto" "$url" || refwhy="the server did not send the 48 headers: $REF" ;;
        c5) ref_close5 "$proto" "$url" || refwhy="the server did not end the connection on the 5th request: $REF" ;;
    esac
    for fl in "${FLAVOURS[@]}"; do
        SHB=${SHB_OF[$fl]}
        P="${E2E_NAME}[$fl]"
        begin "$SID $proto $cs"
        c0=$(now_ms)
        shb "${args[@]}" "$url"
        judge "$proto" "$cs"
        shb_why=$WHY
        [ -z "$refwhy" ] || want "$refwhy"
        if [ -n "$shb_why" ] && [ -z "$refwhy" ]; then
            # shb failed where the server did the case. Does the reference
            # load generator manage the same load (asked once per cell)?
            if [ -z "$load" ]; then
                if ref_load "$proto" "$url"; then load=pass; else load=fail; fi
                loadref=$REF
            fi
            if [ "$load" = fail ]; then
                echo "SKIP $NAME: known server bug: the reference client fails too: $loadref (shb: $shb_why)"
                RES["$fl,$SID,$proto,$cs"]="bug"
                NOTE["$fl,$SID"]="${NOTE[$fl,$SID]:+${NOTE[$fl,$SID]}; }$proto $cs: server bug: $loadref"
                continue
            fi
            want "the reference client passes: $loadref"
        fi
        if [ -z "$WHY" ]; then RES["$fl,$SID,$proto,$cs"]="pass"; else RES["$fl,$SID,$proto,$cs"]="FAIL"; fi
        [ -z "${INTEROP_TIMING:-}" ] || echo "  ($fl $SID $proto $cs: shb $SHB_MS ms, cell $(($(now_ms) - c0)) ms)"
        finish
    done
    P=$PALL
}

declare -A NOTE LABEL STACK TLSLIB STACKIDS
# run_server ROW: starts the server of one SERVERS row, runs its cells, stops it.
run_server() {
    local row=$1 id label stack tls ids proto cs key p
    IFS='|' read -r id label stack tls ids <<<"$row"
    SID=$id
    LABEL[$id]=$label STACK[$id]=$stack TLSLIB[$id]=$tls STACKIDS[$id]=$ids
    local before=("${LIB_PIDS[@]}") t0
    t0=$(now_ms)
    SKIPWHY="" C5_H3_LOG="" C5_H3_PID=""
    if ! declare -F "srv_$id" >/dev/null; then
        SKIPWHY="no srv_$id function"
    else
        # A server that does not come up is started again, up to three
        # times, on fresh ports (its function picks them): the likely cause
        # is a port another process took between pick_port and the bind.
        # Cells are only recorded by the function, so nothing runs twice.
        START_ATTEMPT=1
        while :; do
            : >"$T/server-errors.log"
            START_FAILED=""
            "srv_$id" 2>>"$T/server-errors.log" || true
            if [ -z "$START_FAILED" ] || [ "$START_ATTEMPT" -ge 3 ]; then break; fi
            echo "  ($id: $START_FAILED did not start, attempt $START_ATTEMPT of 3; again on fresh ports)"
            tail -n 3 "$T/server-errors.log" | sed 's/^/    /'
            stop_since "${before[@]}"
            forget_cells "$id"
            SKIPWHY="" C5_H3_LOG="" C5_H3_PID=""
            START_ATTEMPT=$((START_ATTEMPT + 1))
        done
        if [ -n "$START_FAILED" ]; then
            echo "FAIL $P $SID: $START_FAILED did not start (3 attempts, fresh ports each)"
            sed 's/^/  /' "$T/server-errors.log" | tail -n 40
            FAILS=$((FAILS + 1))
            forget_cells "$id"
        fi
    fi
    if [ -n "$SKIPWHY" ]; then
        echo "SKIP $P $id: $SKIPWHY"
        RES["skip,$id"]=$SKIPWHY
    else
        for proto in "${PROTOS[@]}"; do
            for cs in "${CASES[@]}"; do
                key="$id,$proto,$cs"
                if [ -n "${CELL_URL[$key]:-}" ]; then
                    SEEN["$id,$proto"]=1
                    run_cell "$proto" "$cs" "${CELL_URL[$key]}"
                elif [ -n "${CELL_NA[$key]:-}" ]; then
                    SEEN["$id,$proto"]=1
                    echo "SKIP $P $id $proto $cs: n/a (${CELL_NA[$key]})"
                    for fl in "${FLAVOURS[@]}"; do RES["$fl,$key"]="n/a"; done
                fi
            done
        done
    fi
    stop_since "${before[@]}"
    echo "  ($id: $(( $(now_ms) - t0 )) ms)"
}

# need CMD...: every CMD exists, else the server is skipped (SKIPWHY).
need() {
    local c
    for c in "$@"; do
        if ! command -v "$c" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$c" ] && [ ! -e "$c" ]; then
            SKIPWHY="$c is not installed (bash scripts/deps.sh)"
            return 1
        fi
    done
}
# start_fail WHAT: the server did not come up. run_server starts the
# server's function again on fresh ports, and after the third attempt the
# row is a FAIL with the servers' whole error output.
start_fail() {
    START_FAILED=${START_FAILED:-$1}
    SKIPWHY="did not start"
}

# stop_since PID...: stops every server this library started that is not
# one of PID... (those running before the current server's function).
stop_since() {
    local p
    for p in "${LIB_PIDS[@]}"; do
        case " $* " in *" $p "*) ;; *) stop_server "$p" ;; esac
    done
}

# forget_cells ID: the cells server ID's function recorded (a failed start).
forget_cells() {
    local k
    for k in "${!CELL_URL[@]}"; do [[ $k == "$1,"* ]] && unset "CELL_URL[$k]"; done
    for k in "${!CELL_NA[@]}"; do [[ $k == "$1,"* ]] && unset "CELL_NA[$k]"; done
}

# shellcheck source=test/interop/servers.sh
. "$I/servers.sh"
for f in "$I"/servers.d/*.sh; do
    [ -e "$f" ] || continue
    # shellcheck disable=SC1090
    . "$f"
done

ROWS=()
for row in "${SERVERS[@]}"; do
    id=${row%%|*}
    if [ -n "${INTEROP_ONLY:-}" ]; then
        case " $INTEROP_ONLY " in *" $id "*) ;; *) continue ;; esac
    fi
    ROWS+=("$row")
done

# The rows run in JOBS shards at once (INTEROP_JOBS; default one per CPU,
# at most 4): shard I runs every JOBS-th row from the I-th, one server at a
# time, as a subshell with its own files ($T/shard-I); every server keeps
# its own directory and fresh ports (a port another shard took in between
# is a failed start, which run_server retries on fresh ports). Each cell
# still has its server to itself, one build after the other. A shard hands
# its results back as assignments ($T/shard-I/results), read here for the
# matrix. Shard 0's lines come as they are made, every other shard's once
# it and the ones before it are done.
JOBS=$(shard_jobs "${INTEROP_JOBS:-}")

# dump_results ARRAY...: each element of each associative ARRAY as an
# assignment the main shell can source.
dump_results() {
    local a k
    for a in "$@"; do
        local -n arr=$a
        for k in "${!arr[@]}"; do
            printf '%s[%q]=%q\n' "$a" "$k" "${arr[$k]}"
        done
        unset -n arr
    done
}

# run_shard I: runs shard I's rows (in a subshell) and writes its results.
run_shard() {
    local i=$1 n
    mkdir -p "$T/shard-$i"
    OUT=$T/shard-$i/out ERR=$T/shard-$i/err
    T=$T/shard-$i
    # Stopped mid-server, its shb and servers go too (the temp dir is the
    # main shell's).
    trap 'e2e_shard_exit; lib_stop_servers' EXIT
    for ((n = i; n < ${#ROWS[@]}; n += JOBS)); do
        run_server "${ROWS[n]}"
    done
    {
        dump_results RES NOTE LABEL STACK TLSLIB STACKIDS SEEN CELL_NA
        echo "FAILS=\$((FAILS + $FAILS))"
    } >"$T/results"
}

# read_shard_results I: shard I's results, into this shell's arrays.
read_shard_results() {
    if [ -f "$T/shard-$1/results" ]; then
        # shellcheck disable=SC1090
        . "$T/shard-$1/results"
    else
        echo "FAIL $P shard $1 of $JOBS: it ended without its results"
        FAILS=$((FAILS + 1))
    fi
}

if [ "$JOBS" -le 1 ] || [ "${#ROWS[@]}" -le 1 ]; then
    for row in "${ROWS[@]}"; do
        run_server "$row"
    done
else
    in_shards "$JOBS" run_shard read_shard_results
fi

# shellcheck source=test/interop/matrix.sh
. "$I/matrix.sh"
for fl in "${FLAVOURS[@]}"; do
    print_matrix "$fl" >"$T/matrix-$fl.md"
    echo
    echo "interop matrix [$fl] (all builds: $(( ($(now_ms) - T0) / 1000 )) s):"
    sed 's/^/  /' "$T/matrix-$fl.md"
done
if [ "$README_MODE" = 1 ]; then
    write_readme "$T/matrix-${FLAVOURS[0]}.md" "${FLAVOURS[0]}" ||
        { echo "FAIL $P readme: could not update docs/interop.md"; FAILS=$((FAILS + 1)); }
fi
[ "$FAILS" -eq 0 ]
