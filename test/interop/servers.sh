# shellcheck shell=bash
# test/interop/servers.sh — the servers of the interop matrix (sourced by
# test/interop/interop.sh, which documents the contract): one SERVERS row and one
# srv_ID function each. A row: "ID|label|stack|TLS library|stack ids", where
# "stack ids" names the HTTP implementations the server runs (space
# separated, one per protocol it speaks: the matrix counts each id once, so
# servers that share nghttp2 or llhttp are one stack).
# shellcheck disable=SC2034,SC2154  # variables of test/interop/interop.sh and test/e2e/lib.sh

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

# h48_lines FORMAT: the 48 headers x-h01..x-h48 of 1000 bytes, one printf
# FORMAT (%s the name, %s the value) each.
h48_lines() {
    local i v
    v=$(printf 'a%.0s' $(seq 1000))
    for i in $(seq -w 1 48); do
        # shellcheck disable=SC2059  # the format is the caller's
        printf "$1" "x-h$i" "$v"
    done
}

# --- Caddy ----------------------------------------------------------------------
SERVERS+=("caddy|Caddy $(caddy version 2>/dev/null | cut -d' ' -f1)|Go net/http h1, x/net/http2 h2, quic-go h3|Go crypto/tls|go-h1 go-h2 quic:quic-go")
SERVERS+=("caddy12|Caddy, TLS 1.2 only|Go net/http h1, x/net/http2 h2|Go crypto/tls|go-h1 go-h2")
srv_caddy() {
    local v=${1:-13} d h1 tls tls12
    need caddy || return
    d=$LIB_TMP/caddy$v
    mkdir -p "$d/home" "$d/data" "$d/config"
    h48_lines $'header /h48 %s %s\n' >"$d/h48.caddy"
    pick_port h1 && pick_port tls && pick_port tls12 || return
    render "$I/Caddyfile.in" "$d/Caddyfile" "H1=$h1" "TLS=$tls" "TLS12=$tls12"
    interop_start "caddy$v" "tcp:$h1 tcp:$tls tcp:$tls12 udp:$tls" \
        env HOME="$d/home" XDG_DATA_HOME="$d/data" XDG_CONFIG_HOME="$d/config" \
        caddy run --config "$d/Caddyfile" --adapter caddyfile || { start_fail caddy; return; }
    local why="Caddy and Go's net/http have no per-connection request limit"
    if [ "$v" = 13 ]; then
        cells_but_c5 h1 "http://127.0.0.1:$h1" "$why"
        cells_but_c5 h2c "http://127.0.0.1:$h1" "$why"
        cells_but_c5 h1s "https://127.0.0.1:$tls" "$why"
        cells_but_c5 h2s "https://127.0.0.1:$tls" "$why"
        cells_but_c5 h3 "https://127.0.0.1:$tls" "$why (quic-go's http3 server neither)"
    else
        cells_but_c5 h1s "https://127.0.0.1:$tls12" "$why"
        cells_but_c5 h2s "https://127.0.0.1:$tls12" "$why"
    fi
}
srv_caddy12() { srv_caddy 12; }

# --- Bun --------------------------------------------------------------------------
SERVERS+=("bun|Bun $($BUN --version 2>/dev/null): Bun.serve, node:http2|uWebSockets h1, Bun's own h2 (node:http2), lsquic h3|BoringSSL|uws-h1 bun-h2 quic:lsquic")
SERVERS+=("bun12|Bun, TLS 1.2 only|uWebSockets h1, Bun's own h2|BoringSSL|uws-h1 bun-h2")
srv_bun() {
    local v=${1:-13} n=bun max=1.3
    [ -n "$BUN" ] || { SKIPWHY="no runnable bun (bash scripts/deps.sh)"; return; }
    [ "$v" = 12 ] && n=bun12 max=1.2
    if [ "$v" = 13 ]; then
        LIB_JS_RUNTIME=$BUN start_node_server "$I/bun_server.js" "$n-h1" h1 || { start_fail "Bun.serve"; return; }
        cells h1 "http://127.0.0.1:$NODE_PORT"
        LIB_JS_RUNTIME=$BUN node_kind "$n-h2c" h2c || { start_fail "Bun node:http2"; return; }
        cells h2c "http://127.0.0.1:$NODE_PORT"
        LIB_JS_RUNTIME=$BUN start_node_server "$I/bun_server.js" "$n-h3" h3 "$C/ec.crt" "$C/ec.key" || { start_fail "Bun.serve (http3)"; return; }
        wait_udp "$NODE_PORT" "$NODE_PID" 5 || { start_fail "Bun.serve (http3, UDP)"; return; }
        cells_but_c5 h3 "https://127.0.0.1:$NODE_PORT" "Bun.serve has no per-connection request limit; its only GOAWAY is server.stop()"
    fi
    LIB_JS_RUNTIME=$BUN start_node_server "$I/bun_server.js" "$n-h1s" h1s "$C/ec.crt" "$C/ec.key" "$max" || { start_fail "Bun.serve (TLS)"; return; }
    cells h1s "https://127.0.0.1:$NODE_PORT"
    LIB_JS_RUNTIME=$BUN node_kind "$n-h2s" h2s "$C/ec.crt" "$C/ec.key" "$max" || { start_fail "Bun node:http2 (TLS)"; return; }
    cells h2s "https://127.0.0.1:$NODE_PORT"
}
srv_bun12() { srv_bun 12; }

# --- Deno (quinn) ---------------------------------------------------------------------
# Deno's own QUIC (Deno.QuicEndpoint: quinn over rustls), with the thin
# HTTP/3 layer of test/interop/deno_h3_server.ts (its "interop" case: /,
# /h48 and /c5 by :path). Its stderr has a line per connection that ended
# ("conn N: R requests answered, closed by ..."): the c5 reference reads it.
SERVERS+=("deno|Deno $(deno_bin >/dev/null 2>&1 && "$(deno_bin)" --version 2>/dev/null | sed -n 's/^deno \([0-9.]*\).*/\1/p') Deno.QuicEndpoint|quinn QUIC (h3: test/interop/deno_h3_server.ts)|rustls|quic:quinn")
srv_deno() {
    deno_bin >/dev/null 2>&1 || { SKIPWHY="no runnable deno (bash scripts/deps.sh: npm ci --prefix test)"; return; }
    start_deno_h3 interop-deno "$C/ec.crt" "$C/ec.key" interop || { start_fail "deno_h3_server.ts"; return; }
    C5_H3_LOG=$DENO_H3_DIR/stderr.log C5_H3_PID=$DENO_H3_PID
    cells h3 "https://127.0.0.1:$DENO_H3_PORT"
}

# --- ngtcp2 (gtlsserver) ---------------------------------------------------------------
# Debian's ngtcp2-server: ngtcp2's example server over GnuTLS, with nghttp3.
# It serves files, with no way to add response headers or a request limit.
SERVERS+=("ngtcp2|ngtcp2 $(dpkg-query -W -f '${Version}' ngtcp2-server 2>/dev/null | sed 's/-.*//') gtlsserver|ngtcp2 QUIC, nghttp3 h3|GnuTLS|quic:ngtcp2 nghttp3-h3")
srv_ngtcp2() {
    need gtlsserver || return
    start_ngtcp2_h3 interop-ngtcp2 "$C/ec.crt" "$C/ec.key" || { start_fail gtlsserver; return; }
    cells h3 "https://127.0.0.1:$NGTCP2_H3_PORT" ok
    na h3 h48 "gtlsserver serves files and cannot add response headers"
    na h3 c5 "gtlsserver has no per-connection request limit"
}

# --- h2o --------------------------------------------------------------------------
SERVERS+=("h2o|h2o $(h2o --version 2>/dev/null | sed -n 's/^h2o version //p')|picohttpparser h1, h2o's own h2|OpenSSL|h2o-h1 h2o-h2")
srv_h2o() {
    local d h1 tls user_line=""
    need h2o || return
    d=$LIB_TMP/h2o
    mkdir -p "$d/www"
    printf 'ok\n' >"$d/www/ok.txt"
    [ "$(id -u)" = 0 ] && user_line="user: root"
    pick_port h1 && pick_port tls || return
    render "$I/h2o.conf.in" "$d/h2o.conf" "H1=$h1" "TLS=$tls" "USER_LINE=$user_line"
    interop_start h2o "tcp:$h1 tcp:$tls" h2o -m worker -c "$d/h2o.conf" || { start_fail h2o; return; }
    local why="h2o 2.2 has no per-connection request limit, and drops a Connection: close its mruby handler sets"
    cells_but_c5 h1 "http://127.0.0.1:$h1" "$why"
    cells_but_c5 h2c "http://127.0.0.1:$h1" "$why"
    cells_but_c5 h1s "https://127.0.0.1:$tls" "$why"
    cells_but_c5 h2s "https://127.0.0.1:$tls" "$why"
}

# --- nghttpd ----------------------------------------------------------------------
SERVERS+=("nghttpd|nghttpd $(nghttpd --version 2>/dev/null | sed -n 's/.*nghttp2\/\([0-9.]*\).*/\1/p')|nghttp2 h2|OpenSSL|nghttp2")
srv_nghttpd() {
    local d p1 p2
    need nghttpd || return
    d=$LIB_TMP/nghttpd
    mkdir -p "$d/www"
    printf 'ok\n' >"$d/www/index.html"
    pick_port p1 && pick_port p2 || return
    interop_start nghttpd-h2c "tcp:$p1" nghttpd --no-tls -a 127.0.0.1 -d "$d/www" "$p1" || { start_fail nghttpd; return; }
    interop_start nghttpd-tls "tcp:$p2" nghttpd -a 127.0.0.1 -d "$d/www" "$p2" "$C/ec.key" "$C/ec.crt" || { start_fail "nghttpd (TLS)"; return; }
    local w1="nghttpd cannot add response headers (only --trailer)" w2="nghttpd has no per-connection request limit"
    cell h2c ok "http://127.0.0.1:$p1/"
    na h2c h48 "$w1"
    na h2c c5 "$w2"
    cell h2s ok "https://127.0.0.1:$p2/"
    na h2s h48 "$w1"
    na h2s c5 "$w2"
}

# www_dir DIR: DIR/www with the files the static servers answer: index.html,
# h48 and c5, each "ok\n".
www_dir() {
    mkdir -p "$1/www"
    printf 'ok\n' >"$1/www/index.html"
    printf 'ok\n' >"$1/www/h48"
    printf 'ok\n' >"$1/www/c5"
}

# --- Apache httpd -------------------------------------------------------------------
SERVERS+=("apache|Apache httpd $(apache2 -v 2>/dev/null | sed -n 's/^Server version: Apache\/\([0-9.]*\).*/\1/p')|Apache h1, mod_http2 (nghttp2) h2|OpenSSL|apache-h1 nghttp2")
SERVERS+=("apache12|Apache httpd, TLS 1.2 only|Apache h1, mod_http2 (nghttp2) h2|OpenSSL|apache-h1 nghttp2")
srv_apache() {
    local v=${1:-13} d plain plainc5 tls tlsc5 users=""
    need apache2 || return
    d=$LIB_TMP/apache$v
    www_dir "$d"
    h48_lines $'Header set %s %s\n' >"$d/h48.conf"
    # As root the children run as www-data (they only read www/).
    [ "$(id -u)" = 0 ] && users=$'User www-data\nGroup www-data'
    pick_port plain && pick_port plainc5 && pick_port tls && pick_port tlsc5 || return
    render "$I/apache2.conf.in" "$d/httpd.conf.tmp" "PLAIN=$plain" "PLAINC5=$plainc5" "TLS=$tls" "TLSC5=$tlsc5" \
        "SSLPROTO=TLSv1.${v#1}"
    awk -v u="$users" '$0 == "@USER_LINES@" { print u; next } { print }' "$d/httpd.conf.tmp" >"$d/httpd.conf"
    interop_start "apache$v" "tcp:$plain tcp:$plainc5 tcp:$tls tcp:$tlsc5" \
        apache2 -d "$d" -f "$d/httpd.conf" -DFOREGROUND || { start_fail apache2; return; }
    local why="mod_http2 has no per-connection request limit (MaxKeepAliveRequests is HTTP/1.1's)"
    if [ "$v" = 13 ]; then
        cells h1 "http://127.0.0.1:$plain" ok h48
        cell h1 c5 "http://127.0.0.1:$plainc5/c5"
        cells_but_c5 h2c "http://127.0.0.1:$plain" "$why"
    fi
    cells h1s "https://127.0.0.1:$tls" ok h48
    cell h1s c5 "https://127.0.0.1:$tlsc5/c5"
    cells_but_c5 h2s "https://127.0.0.1:$tls" "$why"
}
srv_apache12() { srv_apache 12; }

# --- lighttpd, with each of its TLS modules ----------------------------------------
lighttpd_ver=$(lighttpd -v 2>/dev/null | sed -n 's/^lighttpd\/\([0-9.]*\).*/\1/p')
# mbedTLS is 2.28 in Debian 12: no TLS 1.3 server, so a TLS 1.2 row only.
for lt in "openssl|OpenSSL" "gnutls|GnuTLS" "mbedtls|mbedTLS" "wolfssl|wolfSSL"; do
    if [ "${lt%|*}" != mbedtls ]; then
        SERVERS+=("lighttpd-${lt%|*}|lighttpd $lighttpd_ver, mod_${lt%|*}|lighttpd h1 + h2|${lt#*|}|lighttpd-h1 lighttpd-h2")
        eval "srv_lighttpd-${lt%|*}() { srv_lighttpd ${lt%|*} 13; }"
    fi
    SERVERS+=("lighttpd-${lt%|*}12|lighttpd $lighttpd_ver, mod_${lt%|*}, TLS 1.2 only|lighttpd h1 + h2|${lt#*|}|lighttpd-h1 lighttpd-h2")
    eval "srv_lighttpd-${lt%|*}12() { srv_lighttpd ${lt%|*} 12; }"
done
unset lt
# srv_lighttpd TLSMOD 13|12: lighttpd with mod_TLSMOD (the cleartext cells
# only with mod_openssl at TLS 1.3: they do not depend on the module).
srv_lighttpd() {
    local mod=$1 v=$2 d plain plainc5 tls tlsc5
    need lighttpd "/usr/lib/lighttpd/mod_$mod.so" || return
    d=$LIB_TMP/lighttpd-$mod$v
    www_dir "$d"
    {
        echo 'setenv.add-response-header = ('
        h48_lines $'    "%s" => "%s",\n'
        echo ')'
    } >"$d/h48.conf"
    pick_port plain && pick_port plainc5 && pick_port tls && pick_port tlsc5 || return
    render "$I/lighttpd.conf.in" "$d/lighttpd.conf" "PLAIN=$plain" "PLAINC5=$plainc5" "TLS=$tls" \
        "TLSC5=$tlsc5" "TLSMOD=mod_$mod" "TLSVER=TLSv1.${v#1}"
    interop_start "lighttpd-$mod$v" "tcp:$plain tcp:$plainc5 tcp:$tls tcp:$tlsc5" \
        lighttpd -D -f "$d/lighttpd.conf" || { start_fail "lighttpd (mod_$mod)"; return; }
    local why="lighttpd's HTTP/2 has no per-connection request limit (server.max-keep-alive-requests is HTTP/1.1's)"
    if [ "$mod$v" = openssl13 ]; then
        cells h1 "http://127.0.0.1:$plain" ok h48
        cell h1 c5 "http://127.0.0.1:$plainc5/c5"
        cells_but_c5 h2c "http://127.0.0.1:$plain" "$why"
    fi
    cells h1s "https://127.0.0.1:$tls" ok h48
    cell h1s c5 "https://127.0.0.1:$tlsc5/c5"
    cells_but_c5 h2s "https://127.0.0.1:$tls" "$why"
}

# --- HAProxy --------------------------------------------------------------------------
SERVERS+=("haproxy|HAProxy $(haproxy -v 2>/dev/null | sed -n 's/^HAProxy version \([0-9.]*\).*/\1/p')|HAProxy h1 + h2|OpenSSL|haproxy-h1 haproxy-h2")
SERVERS+=("haproxy12|HAProxy, TLS 1.2 only|HAProxy h1 + h2|OpenSSL|haproxy-h1 haproxy-h2")
srv_haproxy() {
    local v=${1:-13} d plain tls
    need haproxy || return
    d=$LIB_TMP/haproxy$v
    mkdir -p "$d"
    cat "$C/ec.crt" "$C/ec.key" >"$d/ec.pem"
    h48_lines $'    http-after-response set-header %s %s if { var(txn.h48) -m bool }\n' >"$d/h48.cfg"
    pick_port plain && pick_port tls || return
    render "$I/haproxy.cfg.in" "$d/haproxy.cfg.tmp" "PLAIN=$plain" "TLS=$tls" "TLSVER=TLSv1.${v#1}"
    sed -e "/^@H48@\$/r $d/h48.cfg" -e '/^@H48@$/d' "$d/haproxy.cfg.tmp" >"$d/haproxy.cfg"
    interop_start "haproxy$v" "tcp:$plain tcp:$tls" haproxy -db -f "$d/haproxy.cfg" || { start_fail haproxy; return; }
    local why="HAProxy 2.6 has no HTTP/2 per-connection stream limit (tune.h2.fe.max-total-streams came in 2.7)"
    if [ "$v" = 13 ]; then
        cells h1 "http://127.0.0.1:$plain"
        cells_but_c5 h2c "http://127.0.0.1:$plain" "$why"
    fi
    cells h1s "https://127.0.0.1:$tls"
    cells_but_c5 h2s "https://127.0.0.1:$tls" "$why"
}
srv_haproxy12() { srv_haproxy 12; }

# --- Varnish --------------------------------------------------------------------------
SERVERS+=("varnish|Varnish $(varnishd -V 2>&1 | sed -n 's/.*varnish-\([0-9.]*\).*/\1/p')|Varnish h1 + h2|—|varnish-h1 varnish-h2")
srv_varnish() {
    local d vp
    need varnishd || return
    d=$LIB_TMP/varnish
    mkdir -p "$d/work"
    h48_lines $'        set resp.http.%s = "%s";\n' >"$d/h48.vcl"
    sed -e "/^@H48@\$/r $d/h48.vcl" -e '/^@H48@$/d' "$I/varnish.vcl.in" >"$d/default.vcl"
    pick_port vp || return
    # -j none: no jail (as root it would switch users); -n: its own work dir.
    interop_start varnish "tcp:$vp" varnishd -F -j none -n "$d/work" -a "127.0.0.1:$vp" -f "$d/default.vcl" \
        -s malloc,16m -p feature=+http2 -p workspace_client=512k -p http_resp_size=256k \
        -p http_resp_hdr_len=4k || { start_fail varnishd; return; }
    local why="VCL sees no per-connection request count, and Varnish has no such limit"
    cells_but_c5 h1 "http://127.0.0.1:$vp" "$why"
    cells_but_c5 h2c "http://127.0.0.1:$vp" "$why"
}

# --- Python (Debian's python3 and its packages) -----------------------------------------
# py_kind NAME KIND [CERT KEY]: one test/interop/py_server.py; sets NODE_PORT.
py_kind() {
    local name=$1
    shift
    LIB_JS_RUNTIME=$PY start_node_server "$I/py_server.py" "$name" "$@"
}
pyver=$($PY -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
# pymod MODULE [DIST]: its version ("?" when it has none), empty if absent.
pymod() {
    $PY -c "import $1, importlib.metadata as m
try: print(m.version('${2:-$1}'))
except Exception: print('?')" 2>/dev/null
}

SERVERS+=("python|Python $pyver http.server|http.server h1 (ssl module for TLS)|OpenSSL|python-http.server")
srv_python() {
    need "$PY" || return
    py_kind python-h1 stdlib || { start_fail "http.server"; return; }
    cells h1 "http://127.0.0.1:$NODE_PORT"
    py_kind python-h1s stdlib "$C/ec.crt" "$C/ec.key" || { start_fail "http.server (TLS)"; return; }
    cells h1s "https://127.0.0.1:$NODE_PORT"
}

SERVERS+=("tornado|Tornado $(pymod tornado)|Tornado h1|OpenSSL|tornado-h1")
srv_tornado() {
    [ -n "$(pymod tornado)" ] || { SKIPWHY="python3-tornado is not installed (bash scripts/deps.sh)"; return; }
    py_kind tornado-h1 tornado || { start_fail tornado; return; }
    cells h1 "http://127.0.0.1:$NODE_PORT"
    py_kind tornado-h1s tornado "$C/ec.crt" "$C/ec.key" || { start_fail "tornado (TLS)"; return; }
    cells h1s "https://127.0.0.1:$NODE_PORT"
}

SERVERS+=("twisted|Twisted $(pymod twisted) twisted.web|twisted.web h1, python3-h2 h2 (TLS only)|OpenSSL|twisted-h1 python-hyper-h2")
srv_twisted() {
    [ -n "$(pymod twisted)" ] || { SKIPWHY="python3-twisted is not installed (bash scripts/deps.sh)"; return; }
    py_kind twisted-h1 twisted || { start_fail twisted; return; }
    cells h1 "http://127.0.0.1:$NODE_PORT"
    py_kind twisted-tls twisted "$C/ec.crt" "$C/ec.key" || { start_fail "twisted (TLS)"; return; }
    cells h1s "https://127.0.0.1:$NODE_PORT"
    cells_but_c5 h2s "https://127.0.0.1:$NODE_PORT" "twisted.web's HTTP/2 (H2Connection) has no per-connection request limit nor a GOAWAY a resource can ask for"
}

SERVERS+=("hypercorn|Hypercorn $(pymod hypercorn)|h11 h1, python3-h2 h2|OpenSSL|h11 python-hyper-h2")
srv_hypercorn() {
    [ -n "$(pymod hypercorn)" ] || { SKIPWHY="python3-hypercorn is not installed (bash scripts/deps.sh)"; return; }
    py_kind hypercorn hypercorn || { start_fail hypercorn; return; }
    local why="an ASGI application cannot ask for a GOAWAY, and Hypercorn has no per-connection request limit"
    # Seen with curl and a raw socket: the connection ends after each
    # response, without a Connection: close.
    local why1="Hypercorn 0.13 (with Debian's h11 0.14) ends every HTTP/1.1 connection after one response, so there is no 5th"
    cells_but_c5 h1 "http://127.0.0.1:$NODE_PORT" "$why1"
    cells_but_c5 h2c "http://127.0.0.1:$NODE_PORT" "$why"
    py_kind hypercorn-tls hypercorn "$C/ec.crt" "$C/ec.key" || { start_fail "hypercorn (TLS)"; return; }
    cells_but_c5 h1s "https://127.0.0.1:$NODE_PORT" "$why1"
    cells_but_c5 h2s "https://127.0.0.1:$NODE_PORT" "$why"
}

# --- Ruby -------------------------------------------------------------------------------
rbver() { ruby -e "require '$1'; puts $2" 2>/dev/null; }
SERVERS+=("webrick|WEBrick $(rbver webrick WEBrick::VERSION) (Ruby $(ruby -e 'print RUBY_VERSION' 2>/dev/null))|WEBrick h1|OpenSSL|webrick-h1")
srv_webrick() {
    need ruby || return
    [ -n "$(rbver webrick WEBrick::VERSION)" ] || { SKIPWHY="ruby-webrick is not installed (bash scripts/deps.sh)"; return; }
    LIB_JS_RUNTIME=ruby start_node_server "$I/rb_server.rb" webrick || { start_fail WEBrick; return; }
    cells h1 "http://127.0.0.1:$NODE_PORT"
    LIB_JS_RUNTIME=ruby start_node_server "$I/rb_server.rb" webrick-tls "$C/ec.crt" "$C/ec.key" || { start_fail "WEBrick (TLS)"; return; }
    cells h1s "https://127.0.0.1:$NODE_PORT"
}

SERVERS+=("puma|Puma $(puma --version 2>/dev/null | sed -n 's/^puma version //p')|Puma h1 (puma_http11 parser)|OpenSSL|puma-h1")
srv_puma() {
    local d pp tp
    need puma || return
    d=$LIB_TMP/puma
    mkdir -p "$d"
    pick_port pp && pick_port tp || return
    interop_start puma "tcp:$pp" puma -q -b "tcp://127.0.0.1:$pp" -t 4:16 "$I/puma.ru" || { start_fail puma; return; }
    cells h1 "http://127.0.0.1:$pp"
    interop_start puma-tls "tcp:$tp" puma -q -t 4:16 \
        -b "ssl://127.0.0.1:$tp?cert=$C/ec.crt&key=$C/ec.key&verify_mode=none" "$I/puma.ru" || { start_fail "puma (TLS)"; return; }
    cells h1s "https://127.0.0.1:$tp"
}

# --- Perl -------------------------------------------------------------------------------
SERVERS+=("perl|Perl HTTP::Daemon $(perl -MHTTP::Daemon -e 'print $HTTP::Daemon::VERSION' 2>/dev/null)|HTTP::Daemon h1|—|perl-http-daemon")
srv_perl() {
    perl -MHTTP::Daemon -e 1 2>/dev/null || { SKIPWHY="libhttp-daemon-perl is not installed (bash scripts/deps.sh)"; return; }
    LIB_JS_RUNTIME=perl start_node_server "$I/perl_server.pl" perl || { start_fail "HTTP::Daemon"; return; }
    cells h1 "http://127.0.0.1:$NODE_PORT"
}

# --- small C servers ----------------------------------------------------------------------
# cgi_h48 DIR: DIR/www/cgi-bin/h48, a CGI answering with the 48 headers.
cgi_h48() {
    local d=$1
    mkdir -p "$d/www/cgi-bin"
    {
        printf 'Content-Type: text/plain\r\n'
        h48_lines $'%s: %s\r\n'
        printf '\r\nok\n'
    } >"$d/h48.txt"
    printf '#!/bin/sh\nexec cat %s/h48.txt\n' "$d" >"$d/www/cgi-bin/h48"
    chmod 755 "$d/www/cgi-bin/h48"
}
CLOSES="the server ends every connection after its one response, so there is no 5th"

SERVERS+=("busybox|BusyBox $(busybox 2>/dev/null | sed -n '1s/^BusyBox v\([0-9.]*\).*/\1/p') httpd|BusyBox httpd h1|—|busybox-httpd")
srv_busybox() {
    local d bp
    need busybox || return
    d=$LIB_TMP/busybox
    www_dir "$d"
    cgi_h48 "$d"
    pick_port bp || return
    interop_start busybox "tcp:$bp" busybox httpd -f -p "127.0.0.1:$bp" -h "$d/www" || { start_fail "busybox httpd"; return; }
    cell h1 ok "http://127.0.0.1:$bp/"
    cell h1 h48 "http://127.0.0.1:$bp/cgi-bin/h48"
    na h1 c5 "$CLOSES"
}

SERVERS+=("mini_httpd|mini_httpd $(mini_httpd -V 2>&1 | sed -n 's/^mini_httpd\/\([0-9.]*\).*/\1/p')|mini_httpd h1|OpenSSL|mini_httpd")
srv_mini_httpd() {
    local d mp ms
    need mini_httpd || return
    d=$LIB_TMP/mini_httpd
    www_dir "$d"
    cgi_h48 "$d"
    cat "$C/ec.key" "$C/ec.crt" >"$d/ec.pem"
    pick_port mp && pick_port ms || return
    interop_start mini_httpd "tcp:$mp" mini_httpd -D -p "$mp" -h 127.0.0.1 -d "$d/www" -c 'cgi-bin/*' -l /dev/null || { start_fail mini_httpd; return; }
    interop_start mini_httpd-tls "tcp:$ms" mini_httpd -D -p "$ms" -h 127.0.0.1 -d "$d/www" -c 'cgi-bin/*' -l /dev/null -S -E "$d/ec.pem" || { start_fail "mini_httpd (TLS)"; return; }
    cell h1 ok "http://127.0.0.1:$mp/"
    cell h1 h48 "http://127.0.0.1:$mp/cgi-bin/h48"
    na h1 c5 "$CLOSES"
    cell h1s ok "https://127.0.0.1:$ms/"
    cell h1s h48 "https://127.0.0.1:$ms/cgi-bin/h48"
    na h1s c5 "$CLOSES"
}

SERVERS+=("webfs|webfsd $(dpkg-query -W -f='${Version}' webfs 2>/dev/null | sed 's/+.*//')|webfs h1|OpenSSL|webfs")
srv_webfs() {
    local d wp ws
    need webfsd || return
    d=$LIB_TMP/webfs
    www_dir "$d"
    cat "$C/ec.key" "$C/ec.crt" >"$d/ec.pem"
    pick_port wp && pick_port ws || return
    interop_start webfs "tcp:$wp" webfsd -F -p "$wp" -i 127.0.0.1 -r "$d/www" -f index.html || { start_fail webfsd; return; }
    interop_start webfs-tls "tcp:$ws" webfsd -F -p "$ws" -i 127.0.0.1 -r "$d/www" -f index.html -S -C "$d/ec.pem" || { start_fail "webfsd (TLS)"; return; }
    local w1="webfsd serves static files and adds no headers" w2="webfsd has no per-connection request limit"
    cell h1 ok "http://127.0.0.1:$wp/"
    na h1 h48 "$w1"
    na h1 c5 "$w2"
    cell h1s ok "https://127.0.0.1:$ws/"
    na h1s h48 "$w1"
    na h1s c5 "$w2"
}

# --- the TLS libraries' own test servers -------------------------------------------------
SERVERS+=("gnutls-serv|gnutls-serv $(gnutls-serv --version 2>/dev/null | sed -n '1s/.* \([0-9.]*\)$/\1/p') --http|gnutls-serv h1|GnuTLS|gnutls-serv")
SERVERS+=("gnutls-serv12|gnutls-serv --http, TLS 1.2 only|gnutls-serv h1|GnuTLS|gnutls-serv")
srv_gnutls-serv() {
    local v=${1:-13} pri=()
    need gnutls-serv || return
    [ "$v" = 12 ] && pri=(--priority NORMAL:-VERS-TLS1.3)
    start_gnutls "gnutls-serv$v" "$C/ec.crt" "$C/ec.key" "${pri[@]}" || { start_fail gnutls-serv; return; }
    cell h1s ok "https://127.0.0.1:$GNUTLS_PORT/"
    na h1s h48 "gnutls-serv --http answers with a page of its own and adds no headers"
    na h1s c5 "$CLOSES"
}
srv_gnutls-serv12() { srv_gnutls-serv 12; }

SERVERS+=("s_server|openssl s_server $(openssl version 2>/dev/null | cut -d' ' -f2) -WWW|s_server h1|OpenSSL|openssl-s_server")
SERVERS+=("s_server12|openssl s_server -WWW, TLS 1.2 only|s_server h1|OpenSSL|openssl-s_server")
srv_s_server() {
    local v=${1:-13} d sp
    need openssl || return
    d=$LIB_TMP/s_server$v
    www_dir "$d"
    pick_port sp || return
    # -WWW serves files relative to its working directory.
    interop_start "s_server$v" "tcp:$sp" env -C "$d/www" openssl s_server -quiet -accept "127.0.0.1:$sp" \
        -cert "$C/ec.crt" -key "$C/ec.key" "-tls1_${v#1}" -WWW || { start_fail "openssl s_server"; return; }
    cell h1s ok "https://127.0.0.1:$sp/index.html"
    na h1s h48 "s_server -WWW sends files with fixed headers"
    na h1s c5 "$CLOSES"
}
srv_s_server12() { srv_s_server 12; }
