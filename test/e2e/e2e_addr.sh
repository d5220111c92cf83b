#!/usr/bin/env bash
# test/e2e/e2e_addr.sh — end-to-end checks of choosing the address:
# --connect-to, --resolve, -4 and -6. The built binary $SHB against nginx
# with two names on each port (test/servers/nginx-addr.conf.in: cleartext
# HTTP/1.1, TLS with h2 and http/1.1, h2c; on 127.0.0.1 and [::1]), reached
# as alpha.shb.test and beta.shb.test, names no resolver knows, and against
# Caddy over HTTP/3 (test/servers/Caddyfile-addr.in).
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_addr.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_addr.sh
#
# What is checked, from the servers' logs: each name gets its own server
# and body, with the URL's Host and SNI, over HTTP/1.1, HTTP/2 (TLS and
# h2c) and HTTP/3, through --connect-to and through --resolve (* too);
# several targets each go to their own address; shards do; -4 and -6 pick
# the family (IPv6 loopback checked first: SKIP without it); the first
# address that accepts is taken; --bind's family is the one connected to,
# and --bind ::1 to an [::1] URL is ::1 in nginx's log;
# the report names the address connected to; misuse is one line, exit 2.
# Same conventions as test/e2e/e2e.sh. jq programs are single-quoted on
# purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016

# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-addr

e2e_preconditions nginx jq openssl

# IPv6 loopback: nginx's [::1] listens and the -6 checks need it.
HAVE_V6=0
python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null && HAVE_V6=1

# One certificate for both names (shb does not verify it; Caddy picks
# its site's certificate by SNI, so it must name them).
gen_certs || { echo "FAIL $P setup: gen_certs"; exit 1; }
if [ ! -s "$LIB_CERTS/addr.crt" ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$LIB_CERTS/addr.key" \
        -out "$LIB_CERTS/addr.crt" -days 30 -subj /CN=alpha.shb.test \
        -addext "subjectAltName=DNS:alpha.shb.test,DNS:beta.shb.test,DNS:localhost" >/dev/null 2>&1 ||
        { echo "FAIL $P setup: openssl could not make the certificate"; exit 1; }
    chmod 644 "$LIB_CERTS/addr.key"
fi

TEMPLATE=$LIB_ROOT/test/servers/nginx-addr.conf.in
if [ "$HAVE_V6" = 0 ]; then
    grep -v '# v6$' "$TEMPLATE" >"$T/nginx-addr-v4.conf.in"
    TEMPLATE=$T/nginx-addr-v4.conf.in
fi
start_or_die "nginx (test/servers/nginx-addr.conf.in)" start_nginx "$TEMPLATE" nginx-addr
H1=$NGINX_PORT
TLS=$NGINX_PORT2
H2C=$NGINX_PORT_H2C
TLS12=$NGINX_PORT_TLS12
LOG=$NGINX_DIR/addr.log
e2e_diag_extra() { [ -s "$LOG" ] && tail -n 3 "$LOG" | sed 's/^/  addr.log: /'; return 0; }

# log_json: waits until nginx has logged everything (lines_settled), then
# $T/log.json is the log as a JSON array of {port, at, from, server, host,
# sni, proto, bytes}; the log starts empty again.
log_json() {
    lines_settled "$LOG" >/dev/null
    awk '{ printf "{\"port\":%s,\"at\":\"%s\",\"from\":\"%s\",\"server\":\"%s\",\"host\":\"%s\",\"sni\":\"%s\",\"proto\":\"%s\",\"bytes\":%s}\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$LOG" |
        jq -s . >"$T/log.json"
    : >"$LOG"
}
# lx EXPR SHOW: a jq check on the log (log_json first).
lx() {
    local got
    if ! jq -e "$1" "$T/log.json" >/dev/null 2>&1; then
        got=$(jq -c "${2:-.}" "$T/log.json" 2>/dev/null | head -c 400)
        want "nginx log: expected $1 (got $got)"
    fi
}
# all_at N NAME BODY PORT PROTO SNI [AT]: the log holds N requests, every
# one answered by NAME's server with BODY's bytes, on PORT over PROTO with
# Host NAME and SNI (- for none), at address AT (127.0.0.1 unless given).
all_at() {
    local n=$1 name=$2 body=$3 port=$4 proto=$5 sni=$6 at=${7:-127.0.0.1}
    lx "length == $n and all(.server == \"$name\" and .host == \"$name\" and .bytes == ${#body} + 1 and
        .port == $port and .proto == \"$proto\" and .sni == \"$sni\" and .at == \"$at\")" \
        'group_by([.server, .host, .port, .proto, .sni, .at, .bytes]) | map(.[0] + {n: length})'
}

: >"$LOG"

# --- --connect-to ------------------------------------------------------------------------
begin "--connect-to, HTTP/1.1: alpha.shb.test:80 and beta.shb.test:80 go to nginx's port, each to its own server"
shb --connect-to "alpha.shb.test:80:127.0.0.1:$H1" -n 20 -c 2 -j "http://alpha.shb.test/"
json_run_ok HTTP/1.1 '.requests.ok == 20 and .statusCodes == {"200": 20}' '{requests, statusCodes}' \
    ".connectedTo == \"127.0.0.1:$H1\"" '.connectedTo'
log_json
all_at 20 alpha.shb.test alpha "$H1" HTTP/1.1 -
shb --connect-to "beta.shb.test:80:127.0.0.1:$H1" -n 20 -c 2 -j "http://beta.shb.test/"
json_run_ok HTTP/1.1 '.requests.ok == 20' '.requests'
log_json
all_at 20 beta.shb.test beta-beta "$H1" HTTP/1.1 -
finish

begin "--connect-to over TLS: https://alpha.shb.test/ (443) to 127.0.0.1:PORT, HTTP/1.1 and HTTP/2: SNI and Host alpha.shb.test"
shb --connect-to "alpha.shb.test:443:127.0.0.1:$TLS" -n 30 -c 3 -j "https://alpha.shb.test/"
json_run_ok HTTP/1.1 '.requests.ok == 30' '.requests' ".connectedTo == \"127.0.0.1:$TLS\"" '.connectedTo'
log_json
all_at 30 alpha.shb.test alpha "$TLS" HTTP/1.1 alpha.shb.test
shb --connect-to "alpha.shb.test:443:127.0.0.1:$TLS" --http2 -p 4 -n 40 -c 2 -j "https://alpha.shb.test/"
json_run_ok HTTP/2 '.requests.ok == 40' '.requests' ".connectedTo == \"127.0.0.1:$TLS\"" '.connectedTo'
log_json
all_at 40 alpha.shb.test alpha "$TLS" HTTP/2.0 alpha.shb.test
finish

begin "--connect-to: empty HOST1 and PORT2 (any host, the URL's port), and the first entry that matches wins"
shb --connect-to "nomatch.shb.test::192.0.2.1:1" --connect-to ":$TLS:127.0.0.1:" --connect-to ":$TLS:192.0.2.1:1" \
    --http2 -n 20 -c 2 -j "https://beta.shb.test:$TLS/"
json_run_ok HTTP/2 '.requests.ok == 20' '.requests' ".connectedTo == \"127.0.0.1:$TLS\"" '.connectedTo'
log_json
all_at 20 beta.shb.test beta-beta "$TLS" HTTP/2.0 beta.shb.test
finish

begin "--connect-to to a name that needs DNS (localhost): resolved once, --resolve applies to it too (as curl)"
shb --connect-to "alpha.shb.test:$H1:localhost:" -4 -n 10 -c 1 -j "http://alpha.shb.test:$H1/"
json_run_ok HTTP/1.1 '.requests.ok == 10' '.requests' ".connectedTo == \"127.0.0.1:$H1\"" '.connectedTo'
log_json
all_at 10 alpha.shb.test alpha "$H1" HTTP/1.1 -
shb --connect-to "alpha.shb.test:80:backend.shb.test:$H1" --resolve "backend.shb.test:$H1:127.0.0.1" -n 10 -c 1 -j \
    "http://alpha.shb.test/"
json_run_ok HTTP/1.1 '.requests.ok == 10' '.requests' ".connectedTo == \"127.0.0.1:$H1\"" '.connectedTo'
log_json
all_at 10 alpha.shb.test alpha "$H1" HTTP/1.1 -
finish

# --- --resolve ---------------------------------------------------------------------------
begin "--resolve over TLS: beta.shb.test:PORT at 127.0.0.1, HTTP/1.1 and HTTP/2, and * for any host"
shb --resolve "beta.shb.test:$TLS:127.0.0.1" -n 20 -c 2 -j "https://beta.shb.test:$TLS/"
json_run_ok HTTP/1.1 '.requests.ok == 20' '.requests' ".connectedTo == \"127.0.0.1:$TLS\"" '.connectedTo'
log_json
all_at 20 beta.shb.test beta-beta "$TLS" HTTP/1.1 beta.shb.test
shb --resolve "*:$TLS:127.0.0.1" --http2 -p 8 -n 80 -c 2 -j "https://alpha.shb.test:$TLS/"
json_run_ok HTTP/2 '.requests.ok == 80' '.requests' ".connectedTo == \"127.0.0.1:$TLS\"" '.connectedTo'
log_json
all_at 80 alpha.shb.test alpha "$TLS" HTTP/2.0 alpha.shb.test
finish

begin "--resolve to a TLS 1.2-only port: the fallback (BearSSL) sends beta.shb.test's SNI too"
shb --resolve "beta.shb.test:$TLS12:127.0.0.1" -n 20 -c 2 -j "https://beta.shb.test:$TLS12/"
json_run_ok HTTP/1.1 '.requests.ok == 20 and .tls.version == "TLSv1.2" and .tls.fallback' '{requests, tls}' \
    ".connectedTo == \"127.0.0.1:$TLS12\"" '.connectedTo'
log_json
all_at 20 beta.shb.test beta-beta "$TLS12" HTTP/1.1 beta.shb.test
finish

begin "--resolve, h2c: alpha.shb.test:PORT at 127.0.0.1, -p 4"
shb --resolve "alpha.shb.test:$H2C:127.0.0.1" --http2 -p 4 -n 40 -c 2 -j "http://alpha.shb.test:$H2C/"
json_run_ok HTTP/2 '.requests.ok == 40' '.requests' ".connectedTo == \"127.0.0.1:$H2C\"" '.connectedTo'
log_json
all_at 40 alpha.shb.test alpha "$H2C" HTTP/2.0 -
finish

begin "--resolve with two addresses, the first refusing: the one that accepts is taken"
shb --resolve "alpha.shb.test:$H1:127.0.0.3,127.0.0.1" -n 10 -c 2 -j "http://alpha.shb.test:$H1/"
json_run_ok HTTP/1.1 '.requests.ok == 10 and .errorKinds == {}' '{requests, errorKinds}' \
    ".connectedTo == \"127.0.0.1:$H1\"" '.connectedTo'
log_json
all_at 10 alpha.shb.test alpha "$H1" HTTP/1.1 -
finish

begin "the text report names the address connected to and what chose it; no override, no line and no JSON key"
shb --resolve "beta.shb.test:$H1:127.0.0.1" -n 5 -c 1 "http://beta.shb.test:$H1/"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -qx "Connected to: 127.0.0.1:$H1 (--resolve)" "$OUT" || want "no 'Connected to: 127.0.0.1:$H1 (--resolve)' line"
shb --connect-to "beta.shb.test:$H1:127.0.0.1:" -n 5 -c 1 "http://beta.shb.test:$H1/"
grep -qx "Connected to: 127.0.0.1:$H1 (--connect-to)" "$OUT" || want "no 'Connected to: 127.0.0.1:$H1 (--connect-to)' line"
shb -n 5 -c 1 "http://127.0.0.1:$H1/"
grep -q "^Connected to:" "$OUT" && want "a 'Connected to:' line without --connect-to or --resolve"
shb -n 5 -c 1 -j "http://127.0.0.1:$H1/"
json_run_ok HTTP/1.1 'has("connectedTo") | not' '.connectedTo'
log_json
lx 'length == 20 and ([.[] | select(.server == "beta.shb.test")] | length == 10)' 'map(.server)'
finish

begin "a hint after --connect-to names the server connected to, not the URL's host: https:// sent to a plain-HTTP port"
shb --connect-to "alpha.shb.test:443:127.0.0.1:$H1" -n 3 -c 1 "https://alpha.shb.test/"
grep -qx "Hint:         the server at 127.0.0.1:$H1 answered in plain HTTP: is this port TLS? (try http://)" "$OUT" ||
    want "no hint naming 127.0.0.1:$H1: $(grep '^Hint' "$OUT")"
shb --resolve "alpha.shb.test:$H1:127.0.0.1" -n 3 -c 1 "https://alpha.shb.test:$H1/"
grep -qx "Hint:         the server at 127.0.0.1:$H1 answered in plain HTTP: is this port TLS? (try http://)" "$OUT" ||
    want "no hint naming 127.0.0.1:$H1 after --resolve: $(grep '^Hint' "$OUT")"
log_json # nginx logs the 400s it answered the ClientHellos with; they are no later test's
finish

# --- several targets, shards -------------------------------------------------------------
# Each target matched on its own: alpha to 127.0.0.1, beta to [::1] (or,
# without IPv6 loopback, to localhost by name).
BETA_TO="[::1]" BETA_AT="::1" BETA_TEXT="[::1]:$TLS"
if [ "$HAVE_V6" = 0 ]; then
    BETA_TO=localhost BETA_AT=127.0.0.1 BETA_TEXT="127.0.0.1:$TLS"
fi
begin "several targets: alpha.shb.test and beta.shb.test each to its own address ($BETA_TO for beta), each its own body"
shb --connect-to "alpha.shb.test:443:127.0.0.1:$TLS" --connect-to "beta.shb.test:443:$BETA_TO:$TLS" --http2 \
    -n 20 -c 2 -j a=https://alpha.shb.test/ b=https://beta.shb.test/
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
jq -e "length == 2 and .[0].label == \"a\" and .[0].connectedTo == \"127.0.0.1:$TLS\" and .[1].connectedTo == \"$BETA_TEXT\" and
    all(.requests.ok == 20)" "$OUT" >/dev/null 2>&1 ||
    want "reports: $(jq -c 'map({label, connectedTo, requests})' "$OUT" 2>/dev/null | head -c 400)"
log_json
lx "length == 40 and ([.[] | select(.server == \"alpha.shb.test\" and .host == \"alpha.shb.test\" and .sni == \"alpha.shb.test\" and .at == \"127.0.0.1\" and .bytes == 6)] | length == 20) and
    ([.[] | select(.server == \"beta.shb.test\" and .host == \"beta.shb.test\" and .sni == \"beta.shb.test\" and .at == \"$BETA_AT\" and .bytes == 10)] | length == 20)" \
    'group_by([.server, .at]) | map(.[0] + {n: length})'
finish

begin "--shard 0/2 and 1/2 with --resolve: both shards at alpha's server, the counts add up, shb merge keeps connectedTo when both agree"
run_shards addr 2 --resolve "alpha.shb.test:$TLS:127.0.0.1" --http2 -n 40 -c 4 -j "https://alpha.shb.test:$TLS/"
for i in 0 1; do
    jq -e ".requests.ok == 20 and .connectedTo == \"127.0.0.1:$TLS\"" "$T/addr-$i.json" >/dev/null 2>&1 ||
        want "shard $i: $(jq -c '{requests, connectedTo}' "$T/addr-$i.json" 2>/dev/null | head -c 300)"
done
log_json
all_at 40 alpha.shb.test alpha "$TLS" HTTP/2.0 alpha.shb.test
"$SHB" merge -j "$T/addr-0.json" "$T/addr-1.json" >"$T/merged.json" 2>"$T/merged.err" ||
    want "shb merge failed: $(head -c 300 "$T/merged.err")"
jq -e ".requests.ok == 40 and .connectedTo == \"127.0.0.1:$TLS\"" "$T/merged.json" >/dev/null 2>&1 ||
    want "merged: $(jq -c '{requests, connectedTo}' "$T/merged.json" 2>/dev/null)"
# A report without it (or with another) leaves it out of the merged one.
jq 'del(.connectedTo)' "$T/addr-1.json" >"$T/addr-1-none.json"
"$SHB" merge -j "$T/addr-0.json" "$T/addr-1-none.json" >"$T/merged2.json" 2>"$T/merged.err" ||
    want "shb merge (one without connectedTo) failed: $(head -c 300 "$T/merged.err")"
jq -e '.requests.ok == 40 and (has("connectedTo") | not)' "$T/merged2.json" >/dev/null 2>&1 ||
    want "merged with one report lacking connectedTo: $(jq -c '{requests, connectedTo}' "$T/merged2.json" 2>/dev/null)"
"$SHB" merge "$T/addr-0.json" "$T/addr-1.json" >"$T/merged.txt" 2>"$T/merged.err"
grep -qx "Connected to: 127.0.0.1:$TLS" "$T/merged.txt" || want "merged text report: no 'Connected to: 127.0.0.1:$TLS' line"
schema_collect "$T/merged.json" "shb merge -j (the two shards)"
finish

# --- -4, -6, --bind ----------------------------------------------------------------------
if [ "$HAVE_V6" = 1 ]; then
    begin "-4 and -6 with --resolve to both 127.0.0.1 and ::1: each family's address is the one connected to, over TLS"
    shb --resolve "alpha.shb.test:$TLS:127.0.0.1,::1" -6 -n 10 -c 1 -j "https://alpha.shb.test:$TLS/"
    json_run_ok HTTP/1.1 '.requests.ok == 10' '.requests' ".connectedTo == \"[::1]:$TLS\"" '.connectedTo'
    log_json
    all_at 10 alpha.shb.test alpha "$TLS" HTTP/1.1 alpha.shb.test ::1
    shb --resolve "alpha.shb.test:$TLS:[::1],127.0.0.1" -4 --http2 -n 10 -c 1 -j "https://alpha.shb.test:$TLS/"
    json_run_ok HTTP/2 '.requests.ok == 10' '.requests' ".connectedTo == \"127.0.0.1:$TLS\"" '.connectedTo'
    log_json
    all_at 10 alpha.shb.test alpha "$TLS" HTTP/2.0 alpha.shb.test
    finish

    begin "-6 with an IPv6 --connect-to: [::1] reached; --bind ::1 with it too"
    shb --connect-to "beta.shb.test:80:[::1]:$H1" -6 -n 10 -c 1 -j "http://beta.shb.test/"
    json_run_ok HTTP/1.1 '.requests.ok == 10' '.requests' ".connectedTo == \"[::1]:$H1\"" '.connectedTo'
    shb --connect-to "beta.shb.test:80:[::1]:$H1" --bind ::1 -n 10 -c 1 -j "http://beta.shb.test/"
    json_run_ok HTTP/1.1 '.requests.ok == 10' '.requests'
    log_json
    lx 'length == 20 and all(.at == "::1" and .from == "::1" and .server == "beta.shb.test")' 'map({at, from, server}) | unique'
    finish

    begin "--bind ::1 to an IPv6-literal URL, http://[::1]:PORT/ (HTTP/1.1) and https://[::1]:PORT/ (HTTP/2): nginx logs ::1 as the client"
    shb --bind ::1 -n 10 -c 2 -j "http://[::1]:$H1/"
    json_run_ok HTTP/1.1 '.requests.ok == 10 and .connectionsOpened == 2' '{requests, connectionsOpened}'
    log_json
    lx 'length == 10 and all(.port == '"$H1"' and .at == "::1" and .from == "::1" and .host == "[::1]")' 'map({port, at, from, host}) | unique'
    shb --bind ::1 --http2 -n 10 -c 1 -j "https://[::1]:$TLS/"
    json_run_ok HTTP/2 '.requests.ok == 10' '.requests'
    log_json
    lx 'length == 10 and all(.port == '"$TLS"' and .at == "::1" and .from == "::1" and .proto == "HTTP/2.0")' 'map({port, at, from, proto}) | unique'
    finish
else
    skip "-4 and -6 with --resolve to 127.0.0.1 and ::1: no IPv6 loopback on this machine"
    skip "-6 with an IPv6 --connect-to: no IPv6 loopback on this machine"
    skip "--bind ::1 to an IPv6-literal URL: no IPv6 loopback on this machine"
fi

begin "--bind 127.0.0.2 with a URL of [::1] sent by --connect-to to 127.0.0.1: the address connected to decides the family"
shb --connect-to "[::1]:$H1:127.0.0.1:" --bind 127.0.0.2 -n 10 -c 1 -j "http://[::1]:$H1/"
json_run_ok HTTP/1.1 '.requests.ok == 10' '.requests' ".connectedTo == \"127.0.0.1:$H1\"" '.connectedTo'
log_json
lx 'length == 10 and all(.at == "127.0.0.1" and .from == "127.0.0.2" and .host == "[::1]")' 'map({at, from, host}) | unique'
finish

# --- HTTP/3 ------------------------------------------------------------------------------
if command -v caddy >/dev/null 2>&1; then
    start_or_die "caddy (test/servers/Caddyfile-addr.in)" start_caddy_h3 caddy-addr "$LIB_ROOT/test/servers/Caddyfile-addr.in"
    # caddy_log NAME: Caddy's JSON log of NAME's site as {host, proto}.
    # (Caddy 2.6 logs no TLS details, SNI included, for HTTP/3: its log
    # shows them empty; Caddy picks the site by Host.)
    caddy_log() {
        lines_settled "$CADDY_DIR/$1.log" >/dev/null
        jq -s 'map({host: .request.host, proto: .request.proto, status})' "$CADDY_DIR/$1.log" >"$T/log.json" 2>/dev/null
        : >"$CADDY_DIR/$1.log"
    }
    begin "HTTP/3 (Caddy): --connect-to for alpha.shb.test and --resolve for beta.shb.test, each to its own site with its Host"
    : >"$CADDY_DIR/alpha.log"
    : >"$CADDY_DIR/beta.log"
    shb --http3 --connect-to "alpha.shb.test:$CADDY_PORT:127.0.0.1:" -p 2 -n 20 -c 2 -j "https://alpha.shb.test:$CADDY_PORT/"
    json_run_ok HTTP/3 '.requests.ok == 20 and .statusCodes == {"200": 20}' '{requests, statusCodes}' \
        ".connectedTo == \"127.0.0.1:$CADDY_PORT\"" '.connectedTo'
    caddy_log alpha
    lx "length == 20 and all(.host == \"alpha.shb.test:$CADDY_PORT\" and .proto == \"HTTP/3.0\" and .status == 200)" 'unique'
    shb --http3 --resolve "beta.shb.test:$CADDY_PORT:127.0.0.1" -n 20 -c 2 -j "https://beta.shb.test:$CADDY_PORT/"
    json_run_ok HTTP/3 '.requests.ok == 20' '.requests' ".connectedTo == \"127.0.0.1:$CADDY_PORT\"" '.connectedTo'
    caddy_log beta
    lx "length == 20 and all(.host == \"beta.shb.test:$CADDY_PORT\" and .proto == \"HTTP/3.0\" and .status == 200)" 'unique'
    [ -s "$CADDY_DIR/alpha.log" ] && want "alpha's site logged beta's requests"
    finish
else
    skip "HTTP/3 with --connect-to and --resolve: caddy is not installed (bash scripts/deps.sh)"
fi

# --- misuse ------------------------------------------------------------------------------
begin "misuse: malformed entries, ports out of range, a name for an address, -4 with -6, no address of the family, --unix-socket: one line, exit 2"
U="http://alpha.shb.test:$H1/"
err_case "invalid value 'alpha.shb.test' for --connect-to: expected HOST1:PORT1:HOST2:PORT2" --connect-to alpha.shb.test -n 1 "$U"
err_case "invalid value 'a:70000:b:1' for --connect-to: PORT1 '70000' is out of range (1-65535)" --connect-to a:70000:b:1 -n 1 "$U"
err_case "PORT2 '0' is out of range (1-65535)" --connect-to a:1:b:0 -n 1 "$U"
err_case "HOST2 'b/c' has a character a host name cannot have" --connect-to a:1:b/c:2 -n 1 "$U"
err_case "unclosed '[' in HOST2" --connect-to "a:1:[::1:2" -n 1 "$U"
err_case "invalid value 'a:1:localhost' for --resolve: ADDR 'localhost' is not an IPv4 or IPv6 address" --resolve a:1:localhost -n 1 "$U"
err_case "for --resolve: empty PORT" --resolve a::127.0.0.1 -n 1 "$U"
err_case "for --resolve: PORT '65536' is out of range (1-65535)" --resolve a:65536:127.0.0.1 -n 1 "$U"
err_case "for --resolve: empty ADDR" --resolve a:1:127.0.0.1, -n 1 "$U"
err_case "-4/--ipv4 and -6/--ipv6 are mutually exclusive" -4 -6 -n 1 "$U"
err_case "--resolve gives alpha.shb.test:$H1 no IPv6 address (-6)" --resolve "alpha.shb.test:$H1:127.0.0.1" -6 -n 1 "$U"
# An IPv4 literal has no IPv6 address anywhere (localhost may have ::1):
# the line says what the literal is.
err_case "host '127.0.0.1' (--connect-to for alpha.shb.test:$H1) is an IPv4 address, not an IPv6 one (-6)" \
    --connect-to "alpha.shb.test:$H1:127.0.0.1:" -6 -n 1 "$U"
err_case "host '::1' (--connect-to for alpha.shb.test:$H1) is an IPv6 address, not an IPv4 one (--bind's are)" \
    --connect-to "alpha.shb.test:$H1:[::1]:" --bind 127.0.0.2 -n 1 "$U"
err_case "host '127.0.0.1' (--connect-to for alpha.shb.test:$H1) is an IPv4 address, not an IPv6 one (--bind's are)" \
    --connect-to "alpha.shb.test:$H1:127.0.0.1:" --bind ::1 -n 1 "$U"
err_case "--bind gives IPv6 addresses, but the target 127.0.0.1 is an IPv4 address" --bind ::1 -n 1 "http://127.0.0.1:$H1/"
err_case "-6/--ipv6 asks for IPv6 addresses, but --bind gives IPv4 ones" -6 --bind 127.0.0.2 -n 1 "$U"
err_case "cannot resolve host 'alpha.shb.test'" -n 1 "$U"
err_case "--connect-to does not apply to --unix-socket" --unix-socket "$T/none.sock" --connect-to a:1:b:2 -n 1 "$U"
err_case "--resolve does not apply to --unix-socket" --unix-socket "$T/none.sock" --resolve a:1:127.0.0.1 -n 1 "$U"
finish

[ "$FAILS" -eq 0 ]
