#!/usr/bin/env bash
# scripts/fresh-debian.sh — proves that the README's two commands work on a
# freshly installed Debian 12: builds a minimal bookworm root with debootstrap,
# installs only git, make, ca-certificates and sudo in it, clones this
# repository's committed HEAD (or REF) into /root/shb there, and runs
# `make demo`, then `make test`, inside it (chroot, as root). Not part of
# `make test`: it takes a while (packages to download, then the whole suite).
#
#   sudo bash scripts/fresh-debian.sh [--dir DIR] [--reuse] [--ref REF]
#                                     [--mirror URL] [--keep]
#
#   --dir DIR     work directory: DIR/root is the chroot, DIR/logs the logs
#                 (default: a new /var/tmp/shb-fresh-debian.XXXXXX)
#   --reuse       use DIR/root as an earlier run of this script left it
#                 (packages already installed: a quicker, weaker check)
#                 instead of building a fresh one
#   --ref REF     the commit to test (default HEAD); never the working tree
#   --mirror URL  the Debian mirror (default: the one apt's sources name
#                 here, else http://deb.debian.org/debian)
#   --keep        keep DIR/root afterwards (default: removed when both
#                 commands passed, kept when one failed)
#
# Needs root and the Debian apt registry (and npm's, for Bun); installs
# debootstrap on this machine when it is missing. Prints each phase's result
# and time, and `make test`'s final "N passed, N failed" line; the full output
# of every phase is in DIR/logs. Exit status 0 only when both commands passed.
#
# Safety: /proc, /sys, /dev, /dev/pts and /dev/shm are mounted inside DIR/root
# only, in a private mount (and PID) namespace of their own where the kernel
# allows one, and unmounted on exit whatever happens (trap); only those mounts
# are ever unmounted, and nothing outside DIR is written or removed. DIR/root
# is removed only when this run made it, with nothing mounted under it, and
# without crossing into another file system.
set -euo pipefail

SUITE=bookworm
BASE_PKGS=(git make ca-certificates sudo)
CHROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
MARKER=.shb-fresh-debian

SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

die() { echo "fresh-debian: $*" >&2; exit 1; }
now() { date +%s; }
# dur SECONDS: "4m05s".
dur() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# mounted_under DIR: something is mounted at DIR or below it (in this mount
# namespace).
mounted_under() {
    local d=$1
    awk -v d="$d" '$5 == d || index($5, d "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# --- inside the namespace: mounts, then the chroot's phases ----------------------
# fresh-debian.sh --inner ROOT LOGS FRESH: runs in the private namespace (or
# right here where there is none). Mounts what a chroot needs under ROOT and
# unmounts exactly that on exit; runs the phases; writes "NAME RC SECONDS"
# lines to LOGS/phases.
# MOUNTS: what inner mounted, unmounted (last first) by unmount_all on exit.
MOUNTS=()
# shellcheck disable=SC2317  # run by the EXIT trap
unmount_all() {
    local i m
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        m=${MOUNTS[$i]}
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
            echo "fresh-debian: could not unmount $m" >&2
    done
    MOUNTS=()
}
inner() {
    local root=$1 logs=$2 fresh=$3
    trap unmount_all EXIT
    trap 'exit 130' INT TERM

    # mnt TARGET MOUNT-ARGS...: mounts on ROOT/TARGET, a real directory
    # inside ROOT (not a link that could lead out of it).
    mnt() {
        local t=$root/$1
        shift
        if [ ! -d "$t" ] || [ -L "$t" ]; then
            echo "fresh-debian: $t is not a directory" >&2
            return 1
        fi
        mount "$@" "$t" || return 1
        MOUNTS+=("$t")
        # No mount or unmount under it reaches the outer namespace.
        mount --make-private "$t" 2>/dev/null || true
    }
    mnt proc -t proc proc
    mnt sys -t sysfs sysfs
    # A booted machine has its cgroup file systems under /sys/fs/cgroup
    # (v2, or v1's hierarchies, as here); the fresh sysfs above has none, and
    # Slurm's slurmd will not start without them (test/e2e/e2e_slurm.sh): the
    # host's, as they are.
    mnt sys/fs/cgroup --rbind /sys/fs/cgroup ||
        echo "fresh-debian: could not bind /sys/fs/cgroup into the root: the Slurm suite will fail there" >&2
    mnt dev --bind /dev
    mnt dev/pts --bind /dev/pts
    mnt dev/shm -t tmpfs -o mode=1777,nosuid,nodev tmpfs

    # in_chroot LOG CMD: CMD (a bash command line) in the chroot, as root,
    # with the environment of a fresh root login (and this one's proxy, if
    # any), stdin closed, all output to LOG; 90 minutes at most.
    local envs=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb PATH="$CHROOT_PATH") v
    for v in http_proxy https_proxy no_proxy; do
        [ -z "${!v:-}" ] || envs+=("$v=${!v}")
    done
    in_chroot() {
        local log=$1 cmd=$2
        timeout --foreground -k 30 5400 chroot "$root" /usr/bin/env -i "${envs[@]}" \
            /bin/bash -c "$cmd" </dev/null >"$log" 2>&1
    }
    # phase NAME LOG CMD: in_chroot, timed; prints the result line.
    phase() {
        local name=$1 log=$2 cmd=$3 t0 rc=0 secs
        echo "== $name (log: $log)"
        t0=$(now)
        in_chroot "$log" "$cmd" || rc=$?
        secs=$(($(now) - t0))
        printf '%s\t%s\t%s\n' "$name" "$rc" "$secs" >>"$logs/phases"
        if [ "$rc" = 0 ]; then
            echo "   $name: ok ($(dur "$secs"))"
        else
            echo "   $name: FAILED, exit $rc ($(dur "$secs"))"
        fi
        return "$rc"
    }

    if [ "$fresh" = 1 ]; then
        phase "apt-get install ${BASE_PKGS[*]}" "$logs/base-packages.log" \
            "export DEBIAN_FRONTEND=noninteractive; apt-get update && apt-get install -y --no-install-recommends ${BASE_PKGS[*]}" ||
            return 1
        touch "$root/$MARKER"
    fi

    local demo_rc=0 test_rc=0
    phase "make demo" "$logs/make-demo.log" "cd /root/shb && make demo" || demo_rc=$?
    # The one line deps.sh printed, and the demo's request rates.
    grep -E '^installing |^Requests/sec:|"requestsPerSec"' "$logs/make-demo.log" | sed 's/^/   | /' || true
    [ "$demo_rc" = 0 ] || tail -n 30 "$logs/make-demo.log" | sed 's/^/   | /'

    phase "make test" "$logs/make-test.log" "cd /root/shb && make test" || test_rc=$?
    grep -E '^installing |^FAIL |^[0-9]+ passed, [0-9]+ failed$' "$logs/make-test.log" | sed 's/^/   | /' || true
    if [ "$test_rc" != 0 ] && ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$logs/make-test.log"; then
        tail -n 30 "$logs/make-test.log" | sed 's/^/   | /'
    fi
    [ "$demo_rc" = 0 ] && [ "$test_rc" = 0 ]
}

if [ "${1:-}" = --inner ]; then
    shift
    inner "$@"
    exit $?
fi

# --- outside: arguments, debootstrap, the clone -----------------------------------
WORK="" REUSE=0 REF=HEAD MIRROR="" KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) [ $# -ge 2 ] || die "--dir needs a directory"; WORK=$2; shift 2 ;;
        --reuse) REUSE=1; shift ;;
        --ref) [ $# -ge 2 ] || die "--ref needs a commit"; REF=$2; shift 2 ;;
        --mirror) [ $# -ge 2 ] || die "--mirror needs a URL"; MIRROR=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        -h | --help) sed -n '2,34p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: $0 [--dir DIR] [--reuse] [--ref REF] [--mirror URL] [--keep]" >&2; exit 2 ;;
    esac
done

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, mount, chroot): sudo bash $0"
[ "$(uname -s)" = Linux ] || die "Linux only"
command -v apt-get >/dev/null 2>&1 || die "needs apt-get (a Debian or Ubuntu host)"

REPO=$(git -C "$(dirname "$SELF")" rev-parse --show-toplevel 2>/dev/null) || die "$SELF is not in a git repository"
COMMIT=$(git -C "$REPO" rev-parse --verify --quiet "$REF^{commit}") || die "no commit $REF in $REPO"

if [ -z "$WORK" ]; then
    [ "$REUSE" = 0 ] || die "--reuse needs --dir DIR (the work directory of an earlier run)"
    WORK=$(mktemp -d /var/tmp/shb-fresh-debian.XXXXXX)
else
    mkdir -p "$WORK"
    WORK=$(cd "$WORK" && pwd -P)
fi
case "$WORK" in
    / | *[[:space:]]*) die "$WORK: not usable as the work directory" ;;
esac
ROOT=$WORK/root
LOGS=$WORK/logs
if [ "$REUSE" = 1 ]; then
    if [ ! -d "$ROOT" ] || [ -L "$ROOT" ] || [ ! -e "$ROOT/$MARKER" ]; then
        die "$ROOT is not a root an earlier run of this script finished making; run without --reuse"
    fi
elif [ -e "$ROOT" ]; then
    die "$ROOT exists: pass --reuse to use it again, or remove it (or use another --dir)"
fi
mounted_under "$ROOT" && die "something is mounted under $ROOT; unmount it first"
mkdir -p "$LOGS"
: >"$LOGS/phases"

# made_root: this run made ROOT (so it may remove it).
made_root=0
status=1
# shellcheck disable=SC2317  # run by the EXIT trap
finish() {
    local rc=$?
    trap - EXIT
    # The namespace is gone; nothing may still be mounted under ROOT here.
    if mounted_under "$ROOT"; then
        echo "fresh-debian: something is still mounted under $ROOT; it is kept" >&2
    elif [ "$made_root" = 1 ] && [ "$KEEP" = 0 ] && [ "$status" = 0 ]; then
        rm -rf --one-file-system -- "$ROOT"
        echo "removed $ROOT (pass --keep to keep it)"
    elif [ -d "$ROOT" ]; then
        echo "kept $ROOT (again: bash $0 --dir $WORK --reuse)"
    fi
    echo "logs: $LOGS"
    exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

# phase_done NAME RC SECONDS: records and prints an outside phase.
phase_done() {
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$LOGS/phases"
    if [ "$2" = 0 ]; then
        echo "   $1: ok ($(dur "$3"))"
    else
        echo "   $1: FAILED, exit $2 ($(dur "$3"))"
    fi
}

# sources_uri SUITE: the first http(s) URI apt's sources give SUITE (deb822
# .sources files, then one-line .list files); empty if none.
sources_uri() {
    local suite=$1 f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk -v s="$suite" '
            function flush() {
                if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " s " ") && enabled != "no" && uri != "")
                    { print uri; exit 0 }
                types = ""; suites = ""; uri = ""; enabled = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { flush(); next }
            /^Types:/ { $1 = ""; types = $0 }
            /^Suites:/ { $1 = ""; suites = $0 }
            /^Enabled:/ { enabled = tolower($2) }
            /^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { uri = $i; break } }
            END { flush() }' "$f"
    done | head -n 1 | grep . && return 0
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        sed -e 's/\[[^]]*\]//' | awk -v s="$suite" '$1 == "deb" && $2 ~ /^https?:\/\// && $3 == s { print $2; exit }'
}

T_ALL=$(now)
echo "fresh-debian: Debian $SUITE root in $ROOT, testing $(git -C "$REPO" log -1 --format='%h %s' "$COMMIT")"

# (a) debootstrap, from Debian's registry when missing.
if ! command -v debootstrap >/dev/null 2>&1; then
    echo "== install debootstrap (log: $LOGS/host-apt.log)"
    t0=$(now)
    rc=0
    {
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap ||
            { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap; }
    } </dev/null >"$LOGS/host-apt.log" 2>&1 || rc=$?
    phase_done "install debootstrap" "$rc" $(($(now) - t0))
    [ "$rc" = 0 ] || { tail -n 30 "$LOGS/host-apt.log" >&2; exit 1; }
fi

# (b) the root: debootstrap --variant=minbase from apt's mirror.
[ -n "$MIRROR" ] || MIRROR=$(sources_uri "$SUITE" || true)
[ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian
SECURITY=$(sources_uri "$SUITE-security" || true)
[ -n "$SECURITY" ] || SECURITY=http://deb.debian.org/debian-security
if [ "$REUSE" = 0 ]; then
    echo "== debootstrap --variant=minbase $SUITE from $MIRROR (log: $LOGS/debootstrap.log)"
    mkdir "$ROOT"
    made_root=1
    t0=$(now)
    rc=0
    debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR" </dev/null >"$LOGS/debootstrap.log" 2>&1 || rc=$?
    phase_done debootstrap "$rc" $(($(now) - t0))
    [ "$rc" = 0 ] || { tail -n 30 "$LOGS/debootstrap.log" >&2; exit 1; }

    # What the Debian installer leaves: the release, its updates and its
    # security archive; a hosts file with localhost.
    cat >"$ROOT/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY $SUITE-security main
EOF
    if [ ! -s "$ROOT/etc/hosts" ]; then
        printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
    fi
    # Reach the mirror the way apt does here (a proxy; a mirror snapshot
    # whose Release files are past Valid-Until), nothing else of the host's.
    conf=""
    for key in Acquire::http::Proxy Acquire::https::Proxy Acquire::Check-Valid-Until Acquire::Check-Date; do
        v=$(apt-config dump "$key" 2>/dev/null | awk -v k="$key" '$1 == k { sub(/^[^ ]+ /, ""); sub(/;$/, ""); print; exit }')
        [ -n "$v" ] && conf+="$key $v;"$'\n'
    done
    [ -z "$conf" ] || printf '// copied from the host by scripts/fresh-debian.sh\n%s' "$conf" >"$ROOT/etc/apt/apt.conf.d/99shb-host"
    # And trust what this machine trusts locally (a TLS-inspecting proxy's
    # CA on the way to npm's registry, say): its local CA certificates go
    # where ca-certificates, installed next, takes them from.
    for f in /usr/local/share/ca-certificates/*.crt; do
        [ -f "$f" ] || continue
        mkdir -p "$ROOT/usr/local/share/ca-certificates"
        cp "$f" "$ROOT/usr/local/share/ca-certificates/"
    done
fi
# DNS as here (debootstrap copies it too, but a reused root may be stale).
if [ -f /etc/resolv.conf ] && [ ! -L "$ROOT/etc/resolv.conf" ]; then
    cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
fi

# (d) the clone: the committed tree, never the working tree.
echo "== git clone $REPO ($COMMIT) into /root/shb (log: $LOGS/clone.log)"
t0=$(now)
rc=0
{
    [ ! -L "$ROOT/root" ] && [ -d "$ROOT/root" ] || { echo "$ROOT/root is not a directory"; false; }
    rm -rf --one-file-system -- "$ROOT/root/shb"
    git clone --no-checkout "$REPO" "$ROOT/root/shb"
    git -C "$ROOT/root/shb" checkout --detach "$COMMIT" 2>/dev/null ||
        { git -C "$ROOT/root/shb" fetch origin "$COMMIT" && git -C "$ROOT/root/shb" checkout --detach "$COMMIT"; }
} </dev/null >"$LOGS/clone.log" 2>&1 || rc=$?
phase_done "git clone" "$rc" $(($(now) - t0))
[ "$rc" = 0 ] || { tail -n 30 "$LOGS/clone.log" >&2; exit 1; }

# (c, e, f) in the chroot, in a namespace of its own where possible: mounts
# there never show here, and whatever the tests leave running dies with it.
fresh=$((1 - REUSE))
NS=()
if unshare --mount --pid --fork --propagation private true 2>/dev/null; then
    NS=(unshare --mount --pid --fork --propagation private --)
elif unshare --mount --propagation private true 2>/dev/null; then
    NS=(unshare --mount --propagation private --)
fi
rc=0
"${NS[@]}" bash "$SELF" --inner "$ROOT" "$LOGS" "$fresh" || rc=$?

total=$(($(now) - T_ALL))
echo
echo "fresh-debian summary ($(git -C "$REPO" rev-parse --short "$COMMIT"), $(dur "$total") in all):"
while IFS=$'\t' read -r name prc secs; do
    printf '  %-50s %-10s %s\n' "$name" "$([ "$prc" = 0 ] && echo ok || echo "exit $prc")" "$(dur "$secs")"
done <"$LOGS/phases"
if last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$LOGS/make-test.log" 2>/dev/null | tail -n 1); then
    echo "  make test: $last"
fi
[ "$rc" = 0 ] && status=0
exit "$rc"
