#!/bin/sh
# scripts/version.sh OUT — writes shb's version into the header OUT
# (build/version.h, which version.c includes), and leaves OUT untouched when
# the version has not changed, so that make rebuilds only when it has.
#
# The version is `git describe --tags --always --dirty` when the source is a
# git checkout of shb itself (not a tarball unpacked inside some other
# repository), else the first line of a VERSION file, else "unknown". When
# git cannot answer in a checkout (not installed, or `sudo make install` in
# another user's checkout, which git refuses as "dubious ownership"), an OUT
# already written from git is kept rather than replaced by a worse guess.
set -u
out=$1
cd "$(dirname "$0")/.." || exit 1
top=$(pwd -P)

version='' date=''
if [ -e .git ]; then
    if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$top" ] &&
        version=$(git describe --tags --always --dirty 2>/dev/null); then
        date=$(git log -1 --format=%cs 2>/dev/null || true)
    elif [ -f "$out" ]; then
        exit 0
    fi
fi
if [ -z "$version" ] && [ -f VERSION ]; then
    version=$(sed -n '1{s/[[:space:]]*$//;p;}' VERSION)
    date=$(date -u -r VERSION +%Y-%m-%d 2>/dev/null || true)
fi
[ -n "$version" ] || version=unknown

# A C string literal: the version is a tag name or a file's line, so keep
# only what is plainly printable and drop quotes and backslashes.
version=$(printf '%s' "$version" | tr -cd 'A-Za-z0-9._+~:@/-' | cut -c1-100)
date=$(printf '%s' "$date" | tr -cd '0-9-' | cut -c1-10)

mkdir -p "$(dirname "$out")"
tmp=$out.tmp.$$
printf '/* Written by scripts/version.sh: do not edit. */\n#define SHB_VERSION "%s"\n#define SHB_VERSION_DATE "%s"\n' \
    "$version" "$date" >"$tmp" || exit 1
if cmp -s "$tmp" "$out"; then
    rm -f "$tmp"
else
    mv -f "$tmp" "$out"
fi
