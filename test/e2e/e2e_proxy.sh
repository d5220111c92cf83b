#!/usr/bin/env bash
# test/e2e/e2e_proxy.sh — through a real HTTP proxy (Debian's tinyproxy,
# test/e2e/lib.sh start_tinyproxy) to nginx (test/servers/nginx-proxy.conf.in:
# HTTP/1.1, h2c, and TLS with h2 and http/1.1, each logging the protocol and
# status of every request): http:// HTTP/1.1 as absolute-form requests,
# https:// (h1 and h2) and h2c through CONNECT tunnels, a proxy that wants
# credentials, the environment's proxies and the no-proxy list (names, IP
# addresses and CIDR blocks, as curl 7.86+), refusals,
# and the proxy's password in no output.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_proxy.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_proxy.sh
#
# Same conventions as test/e2e/e2e.sh. jq programs are single-quoted on
# purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-proxy

e2e_preconditions nginx tinyproxy jq base64

start_or_die "nginx (test/servers/nginx-proxy.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-proxy.conf.in" nginx-proxy
H1="127.0.0.1:$NGINX_PORT"
H2C="127.0.0.1:$NGINX_PORT_H2C"
TLS="127.0.0.1:$NGINX_PORT_TLS"
PORTS="$NGINX_PORT $NGINX_PORT_H2C $NGINX_PORT_TLS"
start_or_die "tinyproxy" start_tinyproxy tinyproxy "$PORTS"
PROXY="127.0.0.1:$TINYPROXY_PORT"
OPEN_LOG="$TINYPROXY_DIR/tinyproxy.log"
# The same, wanting Basic credentials. The password has a ':'-free word no
# other output would hold by chance (tinyproxy's BasicAuth takes no ':').
PUSER=pxuser
PPASS='Qv9s3cr3tgriffin'
PPASS_B64=$(printf '%s' "$PUSER:$PPASS" | base64 -w0)
start_or_die "tinyproxy with BasicAuth" start_tinyproxy tinyproxy-auth "$PORTS" "$PUSER $PPASS"
APROXY="127.0.0.1:$TINYPROXY_PORT"
e2e_diag_extra() {
    diag_logs "$NGINX_DIR" h1 h2c tls
    diag_logs "$(dirname "$OPEN_LOG")" tinyproxy
    diag_logs "$TINYPROXY_DIR" tinyproxy
}

# logged LOG WANT: nginx's LOG (emptied before the run) holds exactly WANT
# ("N x PROTOCOL STATUS").
logged() {
    local got
    got=$(log_tally "$1")
    [ "$got" = "$2" ] || want "nginx log $(basename "$1"): expected $2 (got ${got:-nothing})"
}

clean_logs() { : >"$NGINX_DIR/h1.log"; : >"$NGINX_DIR/h2c.log"; : >"$NGINX_DIR/tls.log"; : >"$OPEN_LOG"; }

# no_secret (e2e_lib.sh) looks for the proxy's password in clear or as
# the Proxy-Authorization header's base64.
SECRETS=("$PPASS" "$PPASS_B64" 's3cr3tgriffin')

# tunnels_ok N: the report shows the proxy and N tunnels, one per connection.
# tunnels_ok N: N connections to the proxy, each asked for a tunnel (the
# proxy's log says so); shb counts a tunnel when the proxy's 200 arrives,
# and on a loaded machine the other connections may finish the -n run while
# one still waits for it: at least one, at most N.
tunnels_ok() {
    jx ".proxy.url == \"http://$PROXY\" and .proxy.tunnels >= 1 and .proxy.tunnels <= $1 and .connectionsOpened == $1" '{proxy, connectionsOpened}'
}

# --- through the proxy ----------------------------------------------------------------
begin "http:// HTTP/1.1 through -x: absolute-form requests (the proxy's log), exactly 200 at nginx, no tunnel"
clean_logs
shb -n 200 -c 4 -j -x "http://$PROXY" "http://$H1/"
json_run_ok HTTP/1.1 '.statusCodes == {"200": 200}' '{statusCodes, errorKinds}' \
    ".proxy == {url: \"http://$PROXY\", tunnels: 0}" '.proxy'
logged "$NGINX_DIR/h1.log" "200 x HTTP/1.1 200"
n=$(grep -c "Request (file descriptor [0-9]*): GET http://$H1/ HTTP/1.1" "$OPEN_LOG" || true)
[ "$n" = 200 ] || want "tinyproxy's log: expected 200 request lines 'GET http://$H1/ HTTP/1.1' (got $n)"
finish

begin "https:// HTTP/1.1 through a CONNECT tunnel: exactly 200 at nginx over TLS, a tunnel per connection"
clean_logs
shb -n 200 -c 4 -j -x "http://$PROXY" "https://$TLS/"
json_run_ok HTTP/1.1 '.statusCodes == {"200": 200}' '{statusCodes, errorKinds}' '.tls.alpn == "http/1.1"' '.tls'
tunnels_ok 4
logged "$NGINX_DIR/tls.log" "200 x HTTP/1.1 200"
n=$(grep -c "Request (file descriptor [0-9]*): CONNECT $TLS HTTP/1.1" "$OPEN_LOG" || true)
[ "$n" = 4 ] || want "tinyproxy's log: expected 4 'CONNECT $TLS HTTP/1.1' (got $n)"
finish

begin "--shard 0/2 and 1/2 through the proxy: shb merge keeps proxy.url and adds the tunnels; a direct report leaves proxy out"
run_shards prx 2 -x "http://$PROXY" --http2 -n 40 -c 4 -j "https://$TLS/"
# Each shard's 2 connections asked for a tunnel; one may still have been
# waiting for it when the other finished the shard's 20 (tunnels_ok).
for i in 0 1; do
    jq -e ".requests.ok == 20 and .proxy.url == \"http://$PROXY\" and .proxy.tunnels >= 1 and .proxy.tunnels <= 2" "$T/prx-$i.json" >/dev/null 2>&1 ||
        want "shard $i: $(jq -c '{requests, proxy}' "$T/prx-$i.json" 2>/dev/null | head -c 300)"
done
tunnels=$(jq -s 'map(.proxy.tunnels) | add' "$T/prx-0.json" "$T/prx-1.json")
"$SHB" merge -j "$T/prx-0.json" "$T/prx-1.json" >"$T/prx-merged.json" 2>"$T/prx-merged.err" ||
    want "shb merge failed: $(head -c 300 "$T/prx-merged.err")"
jq -e ".requests.ok == 40 and .proxy == {\"url\": \"http://$PROXY\", \"tunnels\": $tunnels}" "$T/prx-merged.json" >/dev/null 2>&1 ||
    want "merged: $(jq -c '{requests, proxy}' "$T/prx-merged.json" 2>/dev/null), expected $tunnels tunnels"
"$SHB" merge "$T/prx-0.json" "$T/prx-1.json" >"$T/prx-merged.txt" 2>"$T/prx-merged.err"
grep -qx "Proxy:        http://$PROXY ($tunnels tunnels)" "$T/prx-merged.txt" || want "merged text report: no 'Proxy:        http://$PROXY ($tunnels tunnels)' line"
jq 'del(.proxy)' "$T/prx-1.json" >"$T/prx-1-direct.json"
"$SHB" merge -j "$T/prx-0.json" "$T/prx-1-direct.json" >"$T/prx-merged2.json" 2>"$T/prx-merged.err" ||
    want "shb merge (one direct) failed: $(head -c 300 "$T/prx-merged.err")"
jq -e '.requests.ok == 40 and (has("proxy") | not)' "$T/prx-merged2.json" >/dev/null 2>&1 ||
    want "merged with a direct report: $(jq -c '{requests, proxy}' "$T/prx-merged2.json" 2>/dev/null)"
schema_collect "$T/prx-merged.json" "shb merge -j (two shards through a proxy)"
finish

begin "https:// HTTP/2 through a CONNECT tunnel: exactly 300 at nginx as HTTP/2.0, a tunnel per connection"
clean_logs
shb -n 300 -c 3 -p 4 --http2 -j -x "http://$PROXY" "https://$TLS/"
json_run_ok HTTP/2 '.statusCodes == {"200": 300}' '{statusCodes, errorKinds}' '.tls.alpn == "h2"' '.tls'
tunnels_ok 3
logged "$NGINX_DIR/tls.log" "300 x HTTP/2.0 200"
finish

begin "h2c (HTTP/2 in clear) through a CONNECT tunnel: exactly 300 at nginx as HTTP/2.0"
clean_logs
shb -n 300 -c 3 -p 4 --http2 -j -x "$PROXY" "http://$H2C/"
json_run_ok HTTP/2 '.statusCodes == {"200": 300}' '{statusCodes, errorKinds}'
jx ".proxy.url == \"$PROXY\" and .proxy.tunnels >= 1 and .proxy.tunnels <= 3 and .connectionsOpened == 3" '{proxy, connectionsOpened}'
logged "$NGINX_DIR/h2c.log" "300 x HTTP/2.0 200"
finish

begin "-z with --disable-keepalive over TLS: a tunnel for every request's connection (but the last ones -z cut short), no error"
clean_logs
shb -z 1s -c 2 --disable-keepalive -j -x "http://$PROXY" "https://$TLS/"
json_run_ok HTTP/1.1 '.requests.errors == 0 and .requests.ok > 10' '.requests' \
    '.proxy.tunnels >= .requests.ok and .connectionsOpened - .proxy.tunnels <= 2' '{proxy, connectionsOpened, requests}'
finish

# --- a proxy that wants credentials ------------------------------------------------------
begin "a proxy wanting credentials, none given: every request a 'proxy' error naming 407, nothing at nginx"
clean_logs
shb -n 40 -c 2 -j -x "http://$APROXY" "https://$TLS/"
json_run_ok HTTP/1.1 '.errorKinds == {"proxy": 40} and .requests.connectErrors == 40' '{errorKinds, requests}' \
    '.errorDetails.proxy.first == "proxy refused the tunnel: 407 Proxy Authentication Required"' '.errorDetails' \
    '.proxy.tunnels == 0' '.proxy'
shb -n 40 -c 2 --http2 -j -x "http://$APROXY" "http://$H2C/"
json_run_ok HTTP/2 '.errorKinds == {"proxy": 40}' '{errorKinds, errorDetails}'
shb -n 20 -c 2 -x "http://$APROXY" "https://$TLS/"
grep -q '\[proxy\] 20: proxy refused the tunnel: 407 Proxy Authentication Required' "$OUT" ||
    want "the text report has no '[proxy] 20: proxy refused the tunnel: 407 ...' line"
# http:// HTTP/1.1: the proxy's 407 is the response.
shb -n 20 -c 2 -j -x "http://$APROXY" "http://$H1/"
json_run_ok HTTP/1.1 '.statusCodes == {"407": 20}' '{statusCodes, errorKinds}'
logged "$NGINX_DIR/tls.log" ""
logged "$NGINX_DIR/h1.log" ""
logged "$NGINX_DIR/h2c.log" ""
finish

begin "the proxy's credentials in its URL, with --proxy-user, with \$SHB_PROXY_PASSWORD: every request through"
clean_logs
shb -n 100 -c 2 -j -x "http://$PUSER:$PPASS@$APROXY" "https://$TLS/"
json_run_ok HTTP/1.1 '.statusCodes == {"200": 100}' '{statusCodes, errorKinds}' \
    ".proxy.url == \"http://$PUSER:***@$APROXY\" and .proxy.tunnels == 2" '.proxy'
no_secret "$OUT" "$ERR"
shb -n 100 -c 2 -j --proxy-user "$PUSER:$PPASS" -x "http://$APROXY" "http://$H1/"
json_run_ok HTTP/1.1 '.statusCodes == {"200": 100}' '{statusCodes, errorKinds}'
no_secret "$OUT" "$ERR"
SHB_PROXY_PASSWORD=$PPASS shb -n 100 -c 2 -p 2 --http2 -j --proxy-user "$PUSER" -x "http://$APROXY" "https://$TLS/"
json_run_ok HTTP/2 '.statusCodes == {"200": 100}' '{statusCodes, errorKinds}'
SHB_PROXY_PASSWORD=$PPASS shb -n 100 -c 2 -j -x "http://$PUSER@$APROXY" "http://$H2C/" --http2
json_run_ok HTTP/2 '.statusCodes == {"200": 100}' '{statusCodes, errorKinds}'
no_secret "$OUT" "$ERR"
logged "$NGINX_DIR/tls.log" "100 x HTTP/1.1 200, 100 x HTTP/2.0 200"
logged "$NGINX_DIR/h1.log" "100 x HTTP/1.1 200"
logged "$NGINX_DIR/h2c.log" "100 x HTTP/2.0 200"
shb -n 20 -c 2 -j -x "http://$PUSER:wrong@$APROXY" "https://$TLS/"
json_run_ok HTTP/1.1 '.errorKinds == {"proxy": 20}' '{errorKinds, errorDetails}' \
    '.errorDetails.proxy.first | startswith("proxy refused the tunnel: 40")' '.errorDetails'
finish

# --- the environment, and what goes direct ---------------------------------------------
begin "https_proxy, HTTPS_PROXY, http_proxy, all_proxy as curl; HTTP_PROXY is not used (curl's CGI rule)"
clean_logs
https_proxy="http://$PROXY" shb -n 20 -c 2 -j "https://$TLS/"
json_run_ok HTTP/1.1 '.statusCodes == {"200": 20}' '{statusCodes}' ".proxy.url == \"http://$PROXY\" and .proxy.tunnels == 2" '.proxy'
HTTPS_PROXY="http://$PROXY" shb -n 20 -c 2 -j "https://$TLS/"
json_run_ok HTTP/1.1 '.proxy.tunnels == 2' '.proxy'
http_proxy="http://$PROXY" shb -n 20 -c 2 -j "http://$H1/"
json_run_ok HTTP/1.1 '.statusCodes == {"200": 20}' '{statusCodes}' ".proxy.url == \"http://$PROXY\"" '.proxy'
ALL_PROXY="http://$PROXY" shb -n 20 -c 2 -j --http2 "http://$H2C/"
json_run_ok HTTP/2 '.proxy.tunnels == 2' '.proxy'
HTTP_PROXY="http://$PROXY" shb -n 20 -c 2 -j "http://$H1/"
json_run_ok HTTP/1.1 '.proxy == null' '.proxy'
https_proxy="http://$PROXY" shb -n 20 -c 2 -j "http://$H1/"
json_run_ok HTTP/1.1 '.proxy == null' '.proxy'
n=$(grep -c "Request (file descriptor [0-9]*): " "$OPEN_LOG" || true)
[ "$n" = 26 ] || want "tinyproxy's log: expected 2+2+20+2 requests and CONNECTs through it (got $n)"
logged "$NGINX_DIR/h1.log" "60 x HTTP/1.1 200"
finish

begin "NO_PROXY, no_proxy and --noproxy: listed hosts and '*' go direct; --noproxy overrides NO_PROXY"
clean_logs
https_proxy="http://$PROXY" NO_PROXY="example.com,127.0.0.1" shb -n 10 -c 1 -j "https://$TLS/"
json_run_ok HTTP/1.1 '.proxy == null and .statusCodes == {"200": 10}' '{proxy, statusCodes}'
https_proxy="http://$PROXY" no_proxy="*" shb -n 10 -c 1 -j "https://$TLS/"
json_run_ok HTTP/1.1 '.proxy == null' '.proxy'
https_proxy="http://$PROXY" shb -n 10 -c 1 -j --noproxy '*' "https://$TLS/"
json_run_ok HTTP/1.1 '.proxy == null' '.proxy'
shb -n 10 -c 1 -j --noproxy '127.0.0.1' -x "http://$PROXY" "https://$TLS/"
json_run_ok HTTP/1.1 '.proxy == null' '.proxy'
https_proxy="http://$PROXY" NO_PROXY="127.0.0.1" shb -n 10 -c 1 -j --noproxy 'example.com' "https://$TLS/"
json_run_ok HTTP/1.1 '.proxy.tunnels == 1' '.proxy'
n=$(grep -c "CONNECT $TLS" "$OPEN_LOG" || true)
[ "$n" = 1 ] || want "tinyproxy's log: expected 1 CONNECT (got $n)"
logged "$NGINX_DIR/tls.log" "50 x HTTP/1.1 200"
finish

begin "no_proxy CIDR blocks (curl 7.86+): 127.0.0.0/8 sends 127.0.0.1 direct (the proxy sees nothing), 10.0.0.0/8 does not"
clean_logs
https_proxy="http://$PROXY" no_proxy="10.0.0.0/8, 127.0.0.0/8" shb -n 10 -c 1 -j "https://$TLS/"
json_run_ok HTTP/1.1 '.proxy == null and .statusCodes == {"200": 10}' '{proxy, statusCodes}'
http_proxy="http://$PROXY" NO_PROXY="::1,127.0.0.1/32" shb -n 10 -c 1 -j "http://$H1/"
json_run_ok HTTP/1.1 '.proxy == null and .statusCodes == {"200": 10}' '{proxy, statusCodes}'
n=$(grep -c "Request (file descriptor [0-9]*): " "$OPEN_LOG" || true)
[ "$n" = 0 ] || want "tinyproxy's log: expected nothing through it (got $n requests and CONNECTs)"
https_proxy="http://$PROXY" no_proxy="10.0.0.0/8,192.168.0.0/16" shb -n 10 -c 1 -j "https://$TLS/"
json_run_ok HTTP/1.1 '.proxy.tunnels == 1 and .statusCodes == {"200": 10}' '{proxy, statusCodes}'
shb -n 10 -c 1 -j --noproxy '127.0.0.2/32,fd00::/8' -x "http://$PROXY" "http://$H1/"
json_run_ok HTTP/1.1 ".proxy.url == \"http://$PROXY\" and .statusCodes == {\"200\": 10}" '{proxy, statusCodes}'
n=$(grep -c "CONNECT $TLS" "$OPEN_LOG" || true)
[ "$n" = 1 ] || want "tinyproxy's log: expected 1 CONNECT (got $n)"
n=$(grep -c "Request (file descriptor [0-9]*): " "$OPEN_LOG" || true)
[ "$n" = 11 ] || want "tinyproxy's log: expected 1 CONNECT and 10 absolute-form requests (got $n)"
logged "$NGINX_DIR/tls.log" "20 x HTTP/1.1 200"
logged "$NGINX_DIR/h1.log" "20 x HTTP/1.1 200"
finish

# --- refusals ---------------------------------------------------------------------------
begin "refused in one line, exit 2: HTTP/3 with -x or https_proxy, -x with --unix-socket, socks5://, a bad proxy URL"
shb -n 1 --http3 -x "http://$PROXY" "https://$TLS/"
one_line_exit 2
[[ $ERR_LINE == *"HTTP/3 does not go through an HTTP proxy"* ]] || want "--http3 -x: $ERR_LINE"
https_proxy="http://$PROXY" shb -n 1 --http3 "https://$TLS/"
one_line_exit 2
[[ $ERR_LINE == *"https_proxy"*"--noproxy"* ]] || want "--http3 with https_proxy: $ERR_LINE"
shb -n 1 --unix-socket /tmp/none.sock -x "http://$PROXY" "http://$H1/"
one_line_exit 2
[[ $ERR_LINE == *"--unix-socket"* ]] || want "--unix-socket -x: $ERR_LINE"
shb -n 1 -x "socks5://$PUSER:$PPASS@$PROXY" "http://$H1/"
one_line_exit 2
[[ $ERR_LINE == *"only http:// proxies"* ]] || want "socks5: $ERR_LINE"
no_secret "$ERR"
shb -n 1 -x "http://$PUSER:$PPASS@127.0.0.1:99999" "http://$H1/"
one_line_exit 2
[[ $ERR_LINE == *"-x/--proxy"*"$PUSER:***@"* ]] || want "a bad port: $ERR_LINE"
no_secret "$ERR"
shb -n 1 --proxy-user "$PUSER" -x "http://$APROXY" "http://$H1/"
one_line_exit 2
[[ $ERR_LINE == *"SHB_PROXY_PASSWORD"* ]] || want "--proxy-user without a password: $ERR_LINE"
finish

begin "a proxy that is not there: connect errors; a TLS port taken for a proxy: its 400 is a 'proxy' error"
pick_port CLOSED_PORT
shb -n 10 -c 2 -j -x "http://127.0.0.1:$CLOSED_PORT" "https://$TLS/"
json_run_ok HTTP/1.1 '.errorKinds == {"connect": 10}' '{errorKinds, errorDetails}'
shb -n 10 -c 2 -j -x "http://$TLS" "https://$TLS/"
json_run_ok HTTP/1.1 '.errorKinds == {"proxy": 10}' '{errorKinds, errorDetails}' \
    '.errorDetails.proxy.first == "proxy refused the tunnel: 400 Bad Request"' '.errorDetails'
finish

# --- the proxy's password in no output ------------------------------------------------
begin "no output shows the proxy's password: text, JSON, several targets, errors; nor does ps"
shb -n 20 -c 2 -x "http://$PUSER:$PPASS@$APROXY" "https://$TLS/"
[ "$SHB_RC" -eq 0 ] || want "text run: exit status $SHB_RC"
grep -q "Proxy: *http://$PUSER:\*\*\*@$APROXY (2 tunnels)" "$OUT" || want "the text report has no 'Proxy: http://$PUSER:***@$APROXY (2 tunnels)' line"
cp "$OUT" "$T/text.out"
cp "$ERR" "$T/text.err"
shb -n 20 -c 2 -j -x "http://$PUSER:$PPASS@$APROXY" a="https://$TLS/" b="http://$H1/"
[ "$SHB_RC" -eq 0 ] || want "several targets: exit status $SHB_RC"
cp "$OUT" "$T/multi.json"
shb -n 20 -c 2 -x "http://$PUSER:$PPASS@$APROXY" a="https://$TLS/" b="http://$H1/"
cp "$OUT" "$T/multi.out"
shb -n 20 -c 2 -j --proxy-user "$PUSER:wrong$PPASS" -x "http://$APROXY" "https://$TLS/"
cp "$OUT" "$T/refused.json"
no_secret "$T/text.out" "$T/text.err" "$T/multi.json" "$T/multi.out" "$T/refused.json" "$ERR"
cmdline_while_running -z 3s -c 1 -x "http://$PUSER:$PPASS@$APROXY" --proxy-user "$PUSER:$PPASS" "https://$TLS/"
no_secret "$T/cmdline" "$T/ps.out" "$T/ps.err"
finish

[ "$FAILS" -eq 0 ]
