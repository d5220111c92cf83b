# test/e2e/tls_lib.sh — what the TLS suites (e2e_tls.sh, e2e_tls_choice.sh)
# share: openssl s_client as the judge of what a server really does, and
# nginx's log of each handshake against shb's report. Sourced after lib.sh
# and e2e_begin.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016

# all_ok N: exactly N requests, all of them 200 responses, no errors.
all_ok() {
    jx ".requests.total == $1 and .requests.ok == $1 and .requests.errors == 0 and .requests.connectErrors == 0" '{requests, errorKinds}'
    jx ".statusCodes == {\"200\": $1}" '.statusCodes'
}

# --- openssl s_client: what a server really does ------------------------------------
# sclient PORT ARG...: one `openssl s_client` handshake with 127.0.0.1:PORT
# (then EOF); its output is in $T/sclient. Fails when no handshake completed.
sclient() {
    local port=$1
    shift
    timeout -k 2 10 openssl s_client -connect "127.0.0.1:$port" "$@" </dev/null >"$T/sclient" 2>&1 || true
    grep -qE '^New, TLSv1\.[23], Cipher is [A-Z]' "$T/sclient"
}
# server_has LABEL PORT REGEX ARG...: s_client with ARGs completes a
# handshake and its output matches REGEX; a want() otherwise.
server_has() {
    local label=$1 port=$2 re=$3
    shift 3
    if ! sclient "$port" "$@"; then
        want "server precondition ($label): openssl s_client $* did not complete a handshake: $(grep -m1 -iE 'error|alert' "$T/sclient")"
    elif ! grep -qE "$re" "$T/sclient"; then
        want "server precondition ($label): openssl s_client $* output lacks /$re/"
    fi
}
# The report's "tls" is what nginx saw: tls_log_reset KEY before a run, then
# tls_as_logged KEY checks the run's report against $NGINX_DIR/tls-KEY.log
# (test/servers/nginx-tls.conf.in: "$ssl_protocol $ssl_cipher $ssl_curve
# $ssl_alpn_protocol" a request), every request's line the same, OpenSSL's
# names turned into IANA's.
tls_log_reset() { : >"$NGINX_DIR/tls-$1.log"; }
tls_as_logged() {
    local log="$NGINX_DIR/tls-$1.log" lines version cipher curve alpn group fallback
    lines=$(sort -u "$log")
    if [ -z "$lines" ] || [ "$(wc -l <<<"$lines")" != 1 ]; then
        want "nginx logged no single TLS answer in $log: $(head -c 300 <<<"$lines")"
        return
    fi
    read -r version cipher curve alpn <<<"$lines"
    case $cipher in # TLS 1.2 suites, OpenSSL's name to IANA's (TLS 1.3's are the same)
    ECDHE-ECDSA-AES128-GCM-SHA256) cipher=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 ;;
    ECDHE-RSA-AES128-GCM-SHA256) cipher=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 ;;
    ECDHE-ECDSA-AES256-GCM-SHA384) cipher=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 ;;
    ECDHE-RSA-AES256-GCM-SHA384) cipher=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 ;;
    ECDHE-ECDSA-CHACHA20-POLY1305) cipher=TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 ;;
    ECDHE-RSA-CHACHA20-POLY1305) cipher=TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 ;;
    esac
    case $curve in X25519) group=x25519 ;; prime256v1) group=secp256r1 ;; *) group=$curve ;; esac
    [ "$alpn" = - ] && alpn=null || alpn="\"$alpn\""
    [ "$version" = TLSv1.2 ] && fallback=true || fallback=false
    # (the handshake counts, there after a HelloRetryRequest, are not nginx's to say)
    jx "(.tls | del(.handshakes)) == {version: \"$version\", cipher: \"$cipher\", group: \"$group\", alpn: $alpn, fallback: $fallback}" \
        "{tls, nginx: \"$lines\"}"
}
# server_refuses LABEL PORT ARG...: s_client with ARGs completes no handshake.
server_refuses() {
    local label=$1 port=$2
    shift 2
    if sclient "$port" "$@"; then
        want "server precondition ($label): openssl s_client $* completed a handshake ($(grep -m1 '^New, ' "$T/sclient"))"
    fi
}
