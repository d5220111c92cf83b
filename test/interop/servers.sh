# shellcheck shell=bash
# test/interop/servers.sh — the servers of the interop matrix (sourced by
# test/interop.sh, which documents the contract): one SERVERS row and one
# srv_ID function each. A row: "ID|label|stack|TLS library|stack ids", where
# "stack ids" names the HTTP implementations the server runs (space
# separated, one per protocol it speaks: the matrix counts each id once, so
# servers that share nghttp2 or llhttp are one stack).
# shellcheck disable=SC2034,SC2154  # variables of test/interop.sh and test/lib.sh

# node_kind NAME KIND [CERT KEY [TLSMAX]]: one test/interop/node_server.js
# (under $LIB_JS_RUNTIME when set); sets NODE_PORT.
node_kind() {
    local name=$1
    shift
    start_node_server "$I/node_server.js" "$name" "$@"
}

# --- nginx ----------------------------------------------------------------------
SERVERS+=("nginx|nginx 1.22|nginx h1 + h2|OpenSSL|nginx-h1 nginx-h2")
SERVERS+=("nginx12|nginx 1.22, TLS 1.2 only|nginx h1 + h2|OpenSSL|nginx-h1 nginx-h2")
srv_nginx() {
    local v=${1:-13} n=nginx
    need nginx || return
    [ "$v" = 12 ] && n=nginx12
    mkdir -p "$LIB_TMP/$n"
    cp "$I/nginx-routes.inc" "$I/nginx-h48.inc" "$LIB_TMP/$n/"
    start_nginx "$I/nginx.conf.in" "$n" || { start_fail nginx; return; }
    if [ "$v" = 13 ]; then
        cells h1 "http://127.0.0.1:$NGINX_PORT" ok h48
        cell h1 c5 "http://127.0.0.1:$NGINX_PORT_H1_C5/"
        cells h2c "http://127.0.0.1:$NGINX_PORT_H2C" ok h48
        cell h2c c5 "http://127.0.0.1:$NGINX_PORT_H2C_C5/"
        cells h1s "https://127.0.0.1:$NGINX_PORT_TLS" ok h48
        cell h1s c5 "https://127.0.0.1:$NGINX_PORT_TLS_C5/"
        cells h2s "https://127.0.0.1:$NGINX_PORT_TLS" ok h48
        cell h2s c5 "https://127.0.0.1:$NGINX_PORT_TLS_C5/"
    else
        cells h1s "https://127.0.0.1:$NGINX_PORT_TLS12" ok h48
        cell h1s c5 "https://127.0.0.1:$NGINX_PORT_TLS12_C5/"
        cells h2s "https://127.0.0.1:$NGINX_PORT_TLS12" ok h48
        cell h2s c5 "https://127.0.0.1:$NGINX_PORT_TLS12_C5/"
    fi
}
srv_nginx12() { srv_nginx 12; }

# --- node -----------------------------------------------------------------------
SERVERS+=("node|node $(node --version 2>/dev/null) http, https, http2|llhttp h1, nghttp2 h2|OpenSSL|llhttp nghttp2")
SERVERS+=("node12|node http, https, http2, TLS 1.2 only|llhttp h1, nghttp2 h2|OpenSSL|llhttp nghttp2")
srv_node() {
    local v=${1:-13} n=node
    need node || return
    [ "$v" = 12 ] && n=node12
    if [ "$v" = 13 ]; then
        node_kind "$n-h1" h1 || { start_fail "node http"; return; }
        cells h1 "http://127.0.0.1:$NODE_PORT"
        node_kind "$n-h2c" h2c || { start_fail "node http2"; return; }
        cells h2c "http://127.0.0.1:$NODE_PORT"
    fi
    node_kind "$n-h1s" h1s "$C/ec.crt" "$C/ec.key" "$( [ "$v" = 12 ] && echo 1.2 || echo 1.3 )" || { start_fail "node https"; return; }
    cells h1s "https://127.0.0.1:$NODE_PORT"
    node_kind "$n-h2s" h2s "$C/ec.crt" "$C/ec.key" "$( [ "$v" = 12 ] && echo 1.2 || echo 1.3 )" || { start_fail "node http2 (TLS)"; return; }
    cells h2s "https://127.0.0.1:$NODE_PORT"
}
srv_node12() { srv_node 12; }
