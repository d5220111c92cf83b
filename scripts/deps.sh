#!/usr/bin/env bash
# scripts/deps.sh — install what building, testing and benchmarking shb need
# (Debian / Ubuntu, apt-get). Idempotent: installs only what is missing and
# runs `apt-get update` at most once, only when something is missing.
#
#   bash scripts/deps.sh [test]        install what is missing for everything:
#                                      build, make test, make fuzz, make bench
#   bash scripts/deps.sh demo          only what building shb and make demo need
#                                      (gcc, make, musl, BearSSL, nginx, openssl)
#   bash scripts/deps.sh [PROFILE] --check
#                                      exit 0 if PROFILE's needs are all present,
#                                      1 if not; installs nothing
#
# Quiet: when something is missing it prints one line (how many packages, and
# the log, /tmp/shb-deps.log, that gets all apt-get, dpkg and npm output);
# on failure the end of that log. When nothing is missing it prints one line
# (none from the Makefile, which asks --check first).
#
# Runs as root (CI) or through sudo. nginx, h2o, Caddy, the interop
# matrix's servers with a service of their own (apache2, lighttpd, haproxy,
# varnish, mini-httpd, webfs), tinyproxy and Slurm's daemons with munge's (slurmctld,
# slurmd, munged) are only ever started by the tests themselves, so a
# freshly installed one is kept from running as a service (nghttp2-server's
# nghttpd and gnutls-bin's gnutls-serv ship none).
#
# Bun (a TLS test server; test profile only) is not a Debian package: it comes
# from the npm registry, `npm ci --prefix test` into test/node_modules (ignored
# by git), pinned by test/package.json and test/package-lock.json. So does
# Deno (its QUIC serves test/interop/deno_h3_server.ts), which the same npm ci
# installs; a Deno that does not run here only makes its checks SKIP.
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK_ONLY=0
PROFILE="test"
for arg in "$@"; do
    case "$arg" in
        --check) CHECK_ONLY=1 ;;
        test | demo) PROFILE=$arg ;;
        -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
        *) echo "usage: $0 [test|demo] [--check]" >&2; exit 2 ;;
    esac
done
FOR_WHAT="for the tests"
[ "$PROFILE" = demo ] && FOR_WHAT="for the demo"

export DEBIAN_FRONTEND=noninteractive

# What is needed, as "test|package": the test is a command name, or a path
# (starting with /) that must exist. The demo profile: building ./shb (the
# Makefile's musl link against libbearssl.a) and scripts/demo.sh, which runs
# nginx on test/servers/nginx-bench.conf.in with certificates from openssl (test/e2e/lib.sh
# start_nginx, gen_certs; pick_port asks ss which ports are taken).
NEEDS_DEMO=(
    "gcc|gcc"
    "make|make"
    "musl-gcc|musl-tools"
    "/usr/include/bearssl.h|libbearssl-dev"
    "libbearssl.a|libbearssl-dev"
    "nginx|nginx-light"
    "openssl|openssl"
    "ss|iproute2"
    "timeout|coreutils"
)
# The test profile (the default): everything, for make test, fuzz and bench.
NEEDS_TEST=(
    "${NEEDS_DEMO[@]}"
    "clang|clang"
    "libfuzzer|libclang-rt-dev"
    "wrk|wrk"
    "h2load|nghttp2-client"
    "nghttpd|nghttp2-server"
    "h2o|h2o"
    "node|nodejs"
    "npm|npm"
    "caddy|caddy"
    "gnutls-serv|gnutls-bin"
    "gtlsserver|ngtcp2-server"
    "gtlsclient|ngtcp2-client"
    "jq|jq"
    "tmux|tmux"
    "curl|curl"
    # test/e2e/e2e_proxy.sh: a real HTTP proxy (CONNECT tunnels, absolute-form).
    "tinyproxy|tinyproxy"
    "valgrind|valgrind"
    "/usr/bin/time|time"
    "file|file"
    # --hdr-log's test (test/e2e/e2e_hdrlog.sh): HdrHistogram's own Java library
    # reads shb's log; javac compiles test/vectors/HdrLogCheck.java against it.
    "javac|default-jdk-headless"
    "/usr/share/java/hdrhistogram.jar|libhdrhistogram-java"
    # test/e2e/e2e_toolbox.sh: the completion scripts in their shells, the man page.
    "/usr/share/bash-completion/bash_completion|bash-completion"
    "zsh|zsh"
    "fish|fish"
    "man|man-db"
    "groff|groff-base"
    # The interop matrix (test/interop/interop.sh): one server per HTTP stack.
    "apache2|apache2"
    "lighttpd|lighttpd"
    "/usr/lib/lighttpd/mod_openssl.so|lighttpd-mod-openssl"
    "/usr/lib/lighttpd/mod_gnutls.so|lighttpd-mod-gnutls"
    "/usr/lib/lighttpd/mod_mbedtls.so|lighttpd-mod-mbedtls"
    "/usr/lib/lighttpd/mod_wolfssl.so|lighttpd-mod-wolfssl"
    # test/e2e/e2e_tls_choice.sh: the TLS choices against lighttpd's NSS module too.
    "/usr/lib/lighttpd/mod_nss.so|lighttpd-mod-nss"
    "haproxy|haproxy"
    "varnishd|varnish"
    "/usr/bin/python3|python3"
    "/usr/lib/python3/dist-packages/h2/__init__.py|python3-h2"
    "/usr/lib/python3/dist-packages/twisted/__init__.py|python3-twisted"
    "/usr/lib/python3/dist-packages/tornado/__init__.py|python3-tornado"
    # Every -j report of the e2e suites is checked against
    # docs/report.schema.json (test/e2e/schema_check.py, Draft 2020-12).
    "/usr/lib/python3/dist-packages/jsonschema/__init__.py|python3-jsonschema"
    "hypercorn|python3-hypercorn"
    "ruby|ruby"
    "/usr/share/rubygems-integration/all/gems/webrick-*/lib/webrick.rb|ruby-webrick"
    "puma|puma"
    "/usr/share/perl5/HTTP/Daemon.pm|libhttp-daemon-perl"
    "busybox|busybox"
    "mini_httpd|mini-httpd"
    "webfsd|webfs"
    # test/e2e/e2e_slurm.sh: a single-node Slurm cluster (slurm-wlm brings
    # slurmctld, slurmd and the client commands) with munge authentication.
    "slurmctld|slurm-wlm"
    "slurmd|slurm-wlm"
    "sbatch|slurm-wlm"
    "sinfo|slurm-wlm"
    "munged|munge"
    "mungekey|munge"
    # test/e2e/e2e_html.sh: the HTML report opened in a real browser, headless.
    "chromium|chromium"
)
if [ "$PROFILE" = demo ]; then
    NEEDS=("${NEEDS_DEMO[@]}")
    NGINX_TEMPLATES=(test/servers/nginx-bench.conf.in)
else
    NEEDS=("${NEEDS_TEST[@]}")
    NGINX_TEMPLATES=(test/servers/nginx.conf.in test/servers/nginx-h2.conf.in test/servers/nginx-tls.conf.in test/servers/nginx-bench.conf.in test/servers/nginx-conns.conf.in test/servers/nginx-longrun.conf.in test/servers/nginx-rate.conf.in test/servers/nginx-conn.conf.in)
fi

have() {
    local t=$1
    case "$t" in
        libbearssl.a)
            # The Makefile's BEARSSL_A; the multiarch directory varies.
            compgen -G "/usr/lib/*/libbearssl.a" >/dev/null || [ -e /usr/lib/libbearssl.a ] ;;
        libfuzzer)
            # clang's libFuzzer runtime (make fuzz, and make test builds the
            # targets): Debian 12 ships it apart from clang, in
            # libclang-rt-14-dev, which clang only recommends.
            local rt
            command -v clang >/dev/null 2>&1 || return 1
            rt=$(clang -print-file-name="libclang_rt.fuzzer-$(uname -m).a" 2>/dev/null) || return 1
            [ "${rt#/}" != "$rt" ] && [ -e "$rt" ] ;;
        /*) compgen -G "$t" >/dev/null ;; # a path, or a glob pattern
        *) command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || [ -x "/sbin/$t" ] ;;
    esac
}

# nginx must accept what the profile's configs use (return,
# keepalive_requests, the *_temp_path directives, listen ... http2, ssl,
# ssl_conf_command): render the real templates (NGINX_TEMPLATES; test/e2e/lib.sh
# render_nginx, with certificates from gen_certs) and let `nginx -t` judge them.
nginx_ok() {
    local nginx dir t rc=0
    nginx=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
    [ -x "$nginx" ] || return 1
    command -v openssl >/dev/null 2>&1 || return 1
    # shellcheck source=test/e2e/lib.sh
    . test/e2e/lib.sh
    lib_init
    dir=$LIB_TMP/nginx-t
    mkdir -p "$dir"
    for t in "${NGINX_TEMPLATES[@]}"; do
        [ -f "$t" ] || continue
        # nginx -t binds the listen addresses: render_nginx picks free ports.
        if ! render_nginx "$t" "$dir"; then
            echo "could not render $t" >&2
            rc=1
            continue
        fi
        if ! "$nginx" -t -q -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/out" 2>&1; then
            echo "nginx rejects $t:" >&2
            cat "$dir/out" "$dir/error.log" >&2 2>/dev/null || true
            rc=1
        fi
    done
    lib_cleanup
    return "$rc"
}

# Caddy must accept the TLS tests' Caddyfile (test/servers/Caddyfile.in) and the
# HTTP/3 tests' (test/servers/Caddyfile-h3.in): `caddy validate`, which also loads
# the certificates.
caddy_ok() {
    local dir rc=0 f
    command -v caddy >/dev/null 2>&1 || return 1
    [ -f test/servers/Caddyfile.in ] || return 0
    command -v openssl >/dev/null 2>&1 || return 1
    # shellcheck source=test/e2e/lib.sh
    . test/e2e/lib.sh
    lib_init
    for f in test/servers/Caddyfile.in test/servers/Caddyfile-h3.in; do
        [ -f "$f" ] || continue
        dir=$LIB_TMP/caddy-t-$(basename "$f" .in)
        if ! render_caddy "$f" "$dir"; then
            echo "could not render $f" >&2
            rc=1
        elif ! caddy_env "$dir" caddy validate --config "$dir/Caddyfile" --adapter caddyfile >"$dir/out" 2>&1; then
            echo "caddy rejects $f:" >&2
            grep -v '"level":"info"' "$dir/out" >&2 || true
            rc=1
        fi
    done
    lib_cleanup
    return "$rc"
}

# h2o must accept the HTTP/2 tests' config (test/servers/h2o.conf.in): `h2o -t`.
h2o_ok() {
    local h2o dir rc=0 user_line="" p1
    h2o=$(command -v h2o 2>/dev/null || echo /usr/bin/h2o)
    [ -x "$h2o" ] || return 1
    [ -f test/servers/h2o.conf.in ] || return 0
    dir=$(mktemp -d /tmp/shb-deps.XXXXXX)
    [ "$(id -u)" = 0 ] && user_line="user: root"
    # shellcheck source=test/e2e/lib.sh
    . test/e2e/lib.sh
    pick_port p1
    mkdir -p "$dir/docs"
    sed -e "s|@PREFIX@|$dir|g" -e "s|@PORT@|$p1|g" -e "s|@DOCROOT@|$dir/docs|g" \
        -e "s|@USER_LINE@|$user_line|g" test/servers/h2o.conf.in >"$dir/h2o.conf"
    if ! "$h2o" -t -c "$dir/h2o.conf" >"$dir/out" 2>&1; then
        echo "h2o rejects test/servers/h2o.conf.in:" >&2
        cat "$dir/out" >&2 2>/dev/null || true
        rc=1
    fi
    rm -rf "$dir"
    return "$rc"
}

# servers_ok: the profile's servers run its configs (the demo: nginx only).
servers_ok() {
    local rc=0
    nginx_ok || rc=1
    if [ "$PROFILE" = test ]; then
        h2o_ok || rc=1
        caddy_ok || rc=1
    fi
    return "$rc"
}
SERVERS_WHAT="nginx, h2o or caddy"
[ "$PROFILE" = demo ] && SERVERS_WHAT="nginx"

# Bun from npm: a bun binary that runs (test/e2e/lib.sh bun_bin).
bun_ok() {
    # shellcheck source=test/e2e/lib.sh
    . test/e2e/lib.sh
    bun_bin >/dev/null
}
# bun_missing: the profile needs Bun and there is none that runs, or
# test/node_modules predates a package of test/package.json (deno: npm ci has
# not been run since it was added).
bun_missing() {
    [ "$PROFILE" = test ] && { ! bun_ok || [ ! -f test/node_modules/deno/package.json ]; }
}

# --- the install log ------------------------------------------------------------
# Everything apt-get, dpkg and npm print goes to LOG, nothing to the terminal;
# a failure shows its end. A log path that is a link or someone else's file
# (a shared /tmp) is not written through: a private one is made instead.
LOG=/tmp/shb-deps.log
log_start() {
    if [ -L "$LOG" ] || { [ -e "$LOG" ] && [ ! -O "$LOG" ]; } || ! : 2>/dev/null >"$LOG"; then
        LOG=$(mktemp /tmp/shb-deps.XXXXXX.log)
    fi
}
# die_log MESSAGE: MESSAGE, the end of the log, exit 1.
die_log() {
    echo "$1" >&2
    echo "--- last 30 lines of $LOG ---" >&2
    tail -n 30 "$LOG" >&2 2>/dev/null || true
    exit 1
}
# logged CMD...: runs CMD with its output appended to the log (and a header
# line naming it there); its exit status.
logged() {
    echo "+ $*" >>"$LOG"
    "$@" >>"$LOG" 2>&1 </dev/null
}

# install_bun: npm ci --prefix test (exactly test/package-lock.json). If the
# bun package's postinstall did not leave a binary that runs (scripts not
# run, or a CPU without AVX2 that needs the "baseline" build), the matching
# @oven/bun-linux-x64-baseline package is tried next. Output to the log.
install_bun() {
    local ver
    logged npm ci --prefix test --no-audit --no-fund || return 1
    bun_ok && return 0
    ver=$(node -p 'require("./test/package-lock.json").packages["node_modules/bun"].version' 2>/dev/null || true)
    if [ -n "$ver" ] && [ "$(uname -m)" = x86_64 ]; then
        logged npm install --prefix test --no-save --no-audit --no-fund "@oven/bun-linux-x64-baseline@$ver" || true
    fi
    bun_ok
}

missing_pkgs() {
    local entry t pkg out=""
    for entry in "${NEEDS[@]}"; do
        t=${entry%%|*}
        pkg=${entry#*|}
        if ! have "$t"; then
            case " $out " in *" $pkg "*) ;; *) out="$out $pkg" ;; esac
        fi
    done
    printf '%s\n' "${out# }"
}

MISSING=$(missing_pkgs)

if [ "$CHECK_ONLY" = 1 ]; then
    if [ -n "$MISSING" ]; then
        echo "missing packages: $MISSING" >&2
        exit 1
    fi
    if ! servers_ok; then
        echo "$SERVERS_WHAT is installed but cannot run the $PROFILE configs" >&2
        exit 1
    fi
    if bun_missing; then
        echo "missing: bun or deno (npm ci --prefix test)" >&2
        exit 1
    fi
    echo "all dependencies present ($PROFILE)"
    exit 0
fi

if [ -z "$MISSING" ]; then
    if ! servers_ok; then
        echo "$SERVERS_WHAT cannot run the $PROFILE configs; an nginx with the rewrite (return), SSL and HTTP/2 modules is needed" >&2
        exit 1
    fi
    if bun_missing; then
        log_start
        echo "installing test/package.json from npm $FOR_WHAT (bun, deno: npm ci --prefix test); log: $LOG"
        install_bun || die_log "bun could not be installed from npm (test/package.json)"
        exit 0
    fi
    echo "all dependencies present ($PROFILE)"
    exit 0
fi

# --- install ------------------------------------------------------------------
if ! command -v apt-get >/dev/null 2>&1; then
    echo "missing packages: $MISSING — and no apt-get here; install them by hand" >&2
    exit 1
fi
SUDO=()
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo env DEBIAN_FRONTEND=noninteractive)
    else
        echo "missing packages: $MISSING — not root and no sudo; run as root" >&2
        exit 1
    fi
fi

# The packages that come with a service, as "command|service|pidfile"; a
# service installed by this run is kept from running.
SERVICES=(
    "nginx|nginx|/run/nginx.pid"
    "h2o|h2o|/run/h2o.pid"
    "caddy|caddy|/run/caddy.pid"
    "apache2|apache2|/run/apache2/apache2.pid"
    "lighttpd|lighttpd|/run/lighttpd.pid"
    "haproxy|haproxy|/run/haproxy.pid"
    "varnishd|varnish|/run/varnishd.pid"
    "mini_httpd|mini-httpd|/run/mini-httpd.pid"
    "webfsd|webfs|/run/webfs/webfsd.pid"
    "slurmctld|slurmctld|/run/slurmctld.pid"
    "slurmd|slurmd|/run/slurmd.pid"
    "munged|munge|/run/munge/munged.pid"
    "tinyproxy|tinyproxy|/run/tinyproxy/tinyproxy.pid"
)
declare -A was_there=()
any_new_service=0
for svc in "${SERVICES[@]}"; do
    cmd=${svc%%|*}
    if have "$cmd"; then was_there[$cmd]=1; else was_there[$cmd]=0; any_new_service=1; fi
done

log_start

# Debian/Ubuntu without nginx-light (it is a transitional package on newer
# releases) get plain nginx. Where libclang-rt-dev does not exist (releases
# before LLVM's runtimes were split out of libclang-common-*-dev), clang
# brings libFuzzer itself. Both are decided once the package lists are fresh,
# but the count in the one line is the packages asked for.
npkg=$(wc -w <<<"$MISSING")
bun_missing && npkg=$((npkg + 1))
if [ "$npkg" = 1 ]; then
    echo "installing 1 package $FOR_WHAT (first run, a few minutes); log: $LOG"
else
    echo "installing $npkg packages $FOR_WHAT (first run, a few minutes); log: $LOG"
fi

logged "${SUDO[@]}" apt-get update || die_log "apt-get update failed"

PKGS=()
for pkg in $MISSING; do
    if [ "$pkg" = nginx-light ] && ! apt-cache show nginx-light >/dev/null 2>&1; then
        pkg=nginx
    fi
    if [ "$pkg" = libclang-rt-dev ] && ! apt-cache show libclang-rt-dev >/dev/null 2>&1; then
        continue
    fi
    PKGS+=("$pkg")
done

# Keep the package scripts from starting nginx, h2o, Caddy, the interop
# servers, Slurm's daemons or munged as a service: a
# policy-rc.d that refuses every start, in place only while apt-get runs
# (unless one already exists, which is then left alone).
POLICY=/usr/sbin/policy-rc.d
policy_added=0
cleanup_policy() {
    if [ "$policy_added" = 1 ]; then
        "${SUDO[@]}" rm -f "$POLICY"
        policy_added=0
    fi
}
trap cleanup_policy EXIT
if [ "$any_new_service" = 1 ] && [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\n# added by shb scripts/deps.sh while installing\nexit 101\n' |
        "${SUDO[@]}" tee "$POLICY" >/dev/null
    "${SUDO[@]}" chmod 755 "$POLICY"
    policy_added=1
fi

# In CI (CI=true: a machine thrown away after the run) dpkg unpacks without
# an fsync() per file (--force-unsafe-io): a crash mid-install there loses
# nothing anyone keeps. Anywhere else dpkg's default, safe writes.
APT_INSTALL=(apt-get install -y --no-install-recommends)
[ "${CI:-}" = true ] && APT_INSTALL+=(-o Dpkg::Options::=--force-unsafe-io)
if [ "${#PKGS[@]}" -gt 0 ]; then
    logged "${SUDO[@]}" "${APT_INSTALL[@]}" "${PKGS[@]}" ||
        die_log "apt-get install ${PKGS[*]} failed"
fi
cleanup_policy

# If one of SERVICES was installed just now and started anyway, stop it
# and keep it from starting at boot; one that was there before is not touched.
# keep_stopped SERVICE PIDFILE
keep_stopped() {
    local svc=$1 pidfile=$2
    if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
        "${SUDO[@]}" systemctl disable --now "$svc" >/dev/null 2>&1 || true
    else
        if [ -x "/etc/init.d/$svc" ]; then
            "${SUDO[@]}" "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
        fi
        if [ -s "$pidfile" ]; then
            "${SUDO[@]}" kill "$(cat "$pidfile")" 2>/dev/null || true
        fi
        command -v update-rc.d >/dev/null 2>&1 &&
            { "${SUDO[@]}" update-rc.d "$svc" disable >/dev/null 2>&1 || true; }
    fi
}
for svc in "${SERVICES[@]}"; do
    cmd=${svc%%|*}
    rest=${svc#*|}
    if [ "${was_there[$cmd]}" = 0 ] && have "$cmd"; then
        keep_stopped "${rest%%|*}" "${rest#*|}"
    fi
done

MISSING=$(missing_pkgs)
if [ -n "$MISSING" ]; then
    die_log "still missing after install: $MISSING"
fi
if ! servers_ok 2>>"$LOG"; then
    die_log "$SERVERS_WHAT is installed but cannot run the $PROFILE configs"
fi
if bun_missing && ! install_bun; then
    die_log "bun could not be installed from npm (test/package.json)"
fi
