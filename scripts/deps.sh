#!/usr/bin/env bash
# scripts/deps.sh — install what building, testing and benchmarking shb need
# (Debian / Ubuntu, apt-get). Idempotent: installs only what is missing and
# runs `apt-get update` at most once, only when something is missing.
#
#   bash scripts/deps.sh           install what is missing
#   bash scripts/deps.sh --check   exit 0 if everything is present, 1 if not;
#                                  installs nothing
#
# Runs as root (CI) or through sudo. nginx is only ever started by the tests
# themselves, so a freshly installed nginx is kept from running as a service.
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK_ONLY=0
case "${1:-}" in
    --check) CHECK_ONLY=1 ;;
    "") ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

export DEBIAN_FRONTEND=noninteractive

# What is needed, as "test|package": the test is a command name, or a path
# (starting with /) that must exist.
NEEDS=(
    "gcc|gcc"
    "make|make"
    "musl-gcc|musl-tools"
    "/usr/include/bearssl.h|libbearssl-dev"
    "libbearssl.a|libbearssl-dev"
    "nginx|nginx-light"
    "wrk|wrk"
    "h2load|nghttp2-client"
    "node|nodejs"
    "jq|jq"
    "valgrind|valgrind"
    "/usr/bin/time|time"
    "file|file"
    "ss|iproute2"
    "timeout|coreutils"
)

have() {
    local t=$1
    case "$t" in
        libbearssl.a)
            # The Makefile's BEARSSL_A; the multiarch directory varies.
            compgen -G "/usr/lib/*/libbearssl.a" >/dev/null || [ -e /usr/lib/libbearssl.a ] ;;
        /*) [ -e "$t" ] ;;
        *) command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || [ -x "/sbin/$t" ] ;;
    esac
}

# nginx must accept what the test and bench configs use (return,
# keepalive_requests, the *_temp_path directives): render the real templates
# and let `nginx -t` judge them.
nginx_ok() {
    local nginx dir t rc=0 user_line="" p1 p2
    nginx=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
    [ -x "$nginx" ] || return 1
    dir=$(mktemp -d /tmp/shb-deps.XXXXXX)
    [ "$(id -u)" = 0 ] && user_line="user root root;"
    # nginx -t binds the listen addresses: use free unprivileged ports.
    # shellcheck source=test/lib.sh
    . test/lib.sh
    pick_port p1
    pick_port p2
    for t in test/nginx.conf.in test/nginx-bench.conf.in; do
        [ -f "$t" ] || continue
        sed -e "s|@PREFIX@|$dir|g" -e "s|@PORT@|$p1|g" -e "s|@PORT2@|$p2|g" \
            -e "s|@USER_LINE@|$user_line|g" "$t" >"$dir/nginx.conf"
        if ! "$nginx" -t -q -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/out" 2>&1; then
            echo "nginx rejects $t:" >&2
            cat "$dir/out" "$dir/error.log" >&2 2>/dev/null || true
            rc=1
        fi
    done
    rm -rf "$dir"
    return "$rc"
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
    if ! nginx_ok; then
        echo "nginx is installed but cannot run the test configs" >&2
        exit 1
    fi
    echo "all dependencies present"
    exit 0
fi

if [ -z "$MISSING" ]; then
    if nginx_ok; then
        echo "all dependencies present"
        exit 0
    fi
    echo "nginx cannot run the test configs; an nginx built with the rewrite module (return) is needed" >&2
    exit 1
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

nginx_was_there=0
have nginx && nginx_was_there=1

echo "apt-get update"
"${SUDO[@]}" apt-get update -qq

# Debian/Ubuntu without nginx-light (it is a transitional package on newer
# releases) get plain nginx.
PKGS=()
for pkg in $MISSING; do
    if [ "$pkg" = nginx-light ] && ! apt-cache show nginx-light >/dev/null 2>&1; then
        pkg=nginx
    fi
    PKGS+=("$pkg")
done

# Keep the package scripts from starting nginx as a service: a policy-rc.d
# that refuses every start, in place only while apt-get runs (unless one
# already exists, which is then left alone).
POLICY=/usr/sbin/policy-rc.d
policy_added=0
cleanup_policy() {
    if [ "$policy_added" = 1 ]; then
        "${SUDO[@]}" rm -f "$POLICY"
        policy_added=0
    fi
}
trap cleanup_policy EXIT
if [ "$nginx_was_there" = 0 ] && [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\n# added by shb scripts/deps.sh while installing\nexit 101\n' |
        "${SUDO[@]}" tee "$POLICY" >/dev/null
    "${SUDO[@]}" chmod 755 "$POLICY"
    policy_added=1
fi

echo "apt-get install ${PKGS[*]}"
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${PKGS[@]}"
cleanup_policy

# If nginx was installed just now and started anyway, stop it and keep it
# from starting at boot; a system nginx that was there before is not touched.
if [ "$nginx_was_there" = 0 ] && have nginx; then
    if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
        "${SUDO[@]}" systemctl disable --now nginx >/dev/null 2>&1 || true
    else
        if [ -s /run/nginx.pid ]; then
            "${SUDO[@]}" nginx -s stop >/dev/null 2>&1 ||
                "${SUDO[@]}" kill "$(cat /run/nginx.pid)" 2>/dev/null || true
        fi
        command -v update-rc.d >/dev/null 2>&1 &&
            { "${SUDO[@]}" update-rc.d nginx disable >/dev/null 2>&1 || true; }
    fi
fi

MISSING=$(missing_pkgs)
if [ -n "$MISSING" ]; then
    echo "still missing after install: $MISSING" >&2
    exit 1
fi
if ! nginx_ok; then
    echo "nginx is installed but cannot run the test configs" >&2
    exit 1
fi
echo "all dependencies present"
