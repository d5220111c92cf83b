#!/usr/bin/env bash
# test/e2e/e2e_toolbox.sh — shb as a tool among others: -V/--version, the
# completion scripts in their real shells, the man page, make install.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_toolbox.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_toolbox.sh
#
# What is checked: -V prints "shb " and what `git describe --tags --always
# --dirty` says of this checkout, and a new commit recompiles the version
# object (in a committed copy of the tree); `shb completions bash|zsh|fish` loads in bash with
# Debian's bash-completion (and without it), in zsh through compinit on a
# pseudo-terminal (test/e2e/complete_zsh.zsh) and in fish, and each completes
# flags, methods, -d @file and the subcommands; ./shb.1 renders with man and
# names every flag -h lists; make install puts the binary, the page and the
# three scripts under DESTDIR, where bash-completion and fish find them, the
# installed binary runs, and make uninstall removes exactly those files.
# Same conventions as test/e2e/e2e.sh. No server is needed.
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-toolbox

e2e_preconditions git bash zsh fish man groff make
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
if [ ! -f "$BASH_COMPLETION" ]; then
    echo "FAIL $P setup: bash-completion is not installed (run: bash scripts/deps.sh)"
    exit 1
fi
ROOT=$LIB_ROOT

# A directory to complete file names in: body.json and a sub directory.
FILES=$T/files
mkdir -p "$FILES/bodies"
echo '{}' >"$FILES/body.json"

# has WORD FILE: FILE has WORD as a whole line (a completion's match).
has() { grep -qxF -- "$1" "$2"; }

# --- -V ---------------------------------------------------------------------------
begin "-V and --version print 'shb' and the build's git describe, exit 0"
if [ "$(git -C "$ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$ROOT" ]; then
    expect="shb $(git -C "$ROOT" describe --tags --always --dirty)"
elif [ -f "$ROOT/VERSION" ]; then
    expect="shb $(head -n 1 "$ROOT/VERSION")"
else
    expect="shb unknown"
fi
for flag in -V --version; do
    shb "$flag"
    [ "$SHB_RC" -eq 0 ] || want "$flag: exit status $SHB_RC"
    [ "$(cat "$OUT")" = "$expect" ] || want "$flag printed '$(head -c 200 "$OUT")', expected '$expect' (stale build? run make)"
    [ "$(wc -l <"$OUT")" -eq 1 ] || want "$flag: $(wc -l <"$OUT") lines on stdout"
    [ -s "$ERR" ] && want "$flag wrote to stderr"
done
shb -c 10 --bogus -V http://127.0.0.1:1/
if [ "$SHB_RC" -ne 0 ] || [ "$(cat "$OUT")" != "$expect" ]; then
    want "-V after a bad option: exit $SHB_RC, '$(head -c 200 "$OUT")'"
fi
finish

begin "-h lists -V, --version, --shard and --start-at, and names the subcommands merge and completions"
shb -h
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
grep -qxF -- '  -V, --version' "$OUT" || want "no '  -V, --version' line in -h"
grep -qxF -- '          Print version' "$OUT" || want "no 'Print version' line in -h"
grep -qxF -- '      --shard <I/N>' "$OUT" || want "no '      --shard <I/N>' line in -h"
grep -qxF -- '      --start-at <TIME>' "$OUT" || want "no '      --start-at <TIME>' line in -h"
grep -qxF -- '       shb merge [-j [--histograms]] [--force] FILE...' "$OUT" || want "no 'shb merge' usage line in -h"
grep -qxF -- '       shb completions SHELL' "$OUT" || want "no 'shb completions' usage line in -h"
sed -n '/^Commands:$/,/^$/p' "$OUT" >"$T/commands"
grep -qE '^  merge +[A-Z]' "$T/commands" || want "no merge in -h's Commands: $(tr '\n' '|' <"$T/commands")"
grep -qE '^  completions +[A-Z]' "$T/commands" || want "no completions in -h's Commands: $(tr '\n' '|' <"$T/commands")"
cp "$OUT" "$T/help"
finish

# The long flags -h lists: what the completions must know.
mapfile -t LONG_FLAGS < <(grep -oE -- '^  (-[A-Za-z0-9], |    )--[a-z0-9.-]+' "$T/help" | grep -oE -- '--[a-z0-9.-]+')

if [ "$SHB_FLAVOUR" != musl ]; then
    skip "the version object's rebuild: the build's wiring, checked once (musl)"
else
    begin "the version object is rebuilt when the commit changes (a copy of the tree, make build/musl/cli/version.o)"
    # The working tree as it is (tracked and untracked files, not the
    # ignored build outputs), committed in a repository of its own.
    clone=$T/clone
    mkdir -p "$clone"
    (cd "$ROOT" && git ls-files -z -co --exclude-standard | xargs -0 cp -P --parents -t "$clone" 2>/dev/null)
    if ! (cd "$clone" && git init -q && git add -A && git -c user.name=test -c user.email=test@invalid commit -q -m "the tree under test") >"$T/clone.err" 2>&1; then
        want "git init/commit of a copy failed: $(head -c 300 "$T/clone.err")"
    else
        make -s -C "$clone" build/musl/cli/version.o >"$T/make1.log" 2>&1 || want "make build/musl/cli/version.o failed: $(tail -n 5 "$T/make1.log")"
        v1=$(git -C "$clone" describe --tags --always --dirty)
        grep -qaF "$v1" "$clone/build/musl/cli/version.o" || want "version.o lacks '$v1'"
        cp -p "$clone/build/musl/cli/version.o" "$T/version1.o"
        make -s -C "$clone" build/musl/cli/version.o >"$T/make2.log" 2>&1
        [ "$clone/build/musl/cli/version.o" -nt "$T/version1.o" ] && want "version.o was rebuilt though nothing changed"
        grep -q 'CC' "$T/make2.log" && want "make compiled something though nothing changed: $(head -n 3 "$T/make2.log")"
        sleep 1 # a new mtime for the new header, on any filesystem
        git -C "$clone" -c user.name=test -c user.email=test@invalid commit -q --allow-empty -m "a new commit"
        v2=$(git -C "$clone" describe --tags --always --dirty)
        [ "$v1" != "$v2" ] || want "the new commit did not change git describe ($v1)"
        make -s -C "$clone" build/musl/cli/version.o >"$T/make3.log" 2>&1
        grep -qaF "$v2" "$clone/build/musl/cli/version.o" || want "after a commit, version.o still lacks '$v2' (a stale version)"
        grep -c 'CC' "$T/make3.log" | grep -qx 1 || want "a new commit should compile version.c alone: $(cat "$T/make3.log")"
    fi
    finish
fi

begin "scripts/version.sh: git describe, else VERSION, else unknown; rewritten only on a change; kept when git refuses"
V=$T/vsh/src
mkdir -p "$V/scripts"
cp "$ROOT/scripts/version.sh" "$V/scripts/"
echo /build/ >"$V/.gitignore"
H=$V/build/version.h
# version_sh: runs it as make does, with git's user and system settings kept out.
version_sh() { HOME=$T/vsh GIT_CONFIG_NOSYSTEM=1 sh "$V/scripts/version.sh" "$H"; }
hdr() { sed -n 's/^#define SHB_VERSION "\(.*\)"$/\1/p' "$H"; }
g() { HOME=$T/vsh GIT_CONFIG_NOSYSTEM=1 git -C "$V" -c user.name=test -c user.email=test@invalid "$@"; }
version_sh
[ "$(hdr)" = unknown ] || want "no git, no VERSION: '$(hdr)', expected unknown"
printf '1.2.3 \nsecond line\n' >"$V/VERSION"
version_sh
[ "$(hdr)" = 1.2.3 ] || want "a VERSION file: '$(hdr)', expected 1.2.3"
g init -q && g add -A && g commit -q -m one
version_sh
[ "$(hdr)" = "$(g describe --always)" ] || want "a checkout: '$(hdr)', expected $(g describe --always)"
g tag v9.8.7
version_sh
[ "$(hdr)" = v9.8.7 ] || want "a tag: '$(hdr)', expected v9.8.7"
echo change >>"$V/VERSION"
version_sh
[ "$(hdr)" = v9.8.7-dirty ] || want "a change: '$(hdr)', expected v9.8.7-dirty"
g checkout -q VERSION
touch -d 2020-01-01 "$H"
version_sh
[ "$(hdr)" = v9.8.7 ] || want "back to clean: '$(hdr)', expected v9.8.7"
touch -d 2020-01-01 "$H"
version_sh
[ "$(date -r "$H" +%Y)" = 2020 ] || want "rewritten though the version did not change"
if [ "$(id -u)" = 0 ] && chown -R nobody "$V" 2>/dev/null; then
    # root in another user's checkout: git refuses ("dubious ownership"), as in sudo make install.
    g describe --always >/dev/null 2>&1 && want "git did not refuse a checkout owned by nobody (safe.directory set?)"
    version_sh
    [ "$(hdr)" = v9.8.7 ] || want "git refusing: '$(hdr)', expected the recorded v9.8.7"
    rm -f "$H"
    version_sh
    [ "$(hdr)" = 1.2.3 ] || want "git refusing, nothing recorded: '$(hdr)', expected VERSION's 1.2.3"
fi
finish

# Only version.c may see the header: any other object that included it would
# keep a stale version (make rebuilds only version.o on a new commit).
begin "build/version.h is included by version.c alone"
others=$(cd "$ROOT" && grep -l 'build/version\.h' -- *.c */*.c 2>/dev/null | grep -v '^cli/version\.c$' | grep -v '^scripts/')
[ -z "$others" ] || want "also included by: $others"
grep -q '#include "build/version.h"' "$ROOT/cli/version.c" || want "version.c does not include it"
finish

# --- shb completions ----------------------------------------------------------------
begin "completions: an unknown shell, or none, is one line and exit 2"
shb completions tcsh
one_line_exit 2
grep -qF "unknown shell 'tcsh'" "$ERR" || want "the line does not name the shell: $ERR_LINE"
shb completions
one_line_exit 2
shb completions bash zsh
one_line_exit 2
finish

for sh in bash zsh fish; do
    begin "completions $sh: printed, exit 0, every long flag of -h in it"
    shb completions "$sh"
    [ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
    [ -s "$ERR" ] && want "wrote to stderr"
    cp "$OUT" "$T/completions.$sh"
    for f in "${LONG_FLAGS[@]}"; do
        case $sh in
            fish) grep -qF -- "-l ${f#--}" "$OUT" || want "no $f" ;;
            *) grep -qF -- "$f" "$OUT" || want "no $f" ;;
        esac
    done
    no_sanitizer_report
    finish
done

# $T/drive.bash [--plain] SCRIPT WORD...: what the script's _shb offers for
# the last WORD, one match a line, with COMP_WORDS as bash splits a line
# ("=" is a word of its own) and Debian's bash-completion sourced first,
# unless --plain.
cat >"$T/drive.bash" <<EOF
plain=0
[ "\$1" = --plain ] && plain=1 && shift
script=\$1
shift
cd "$FILES" || exit 2
[ "\$plain" = 1 ] || . "$BASH_COMPLETION" || exit 2
. "\$script" || exit 2
[ "\$(complete -p shb 2>/dev/null)" = "complete -F _shb shb" ] || { echo "no 'complete -F _shb shb' after sourcing" >&2; exit 3; }
COMP_WORDS=("\$@")
COMP_CWORD=\$((\$# - 1))
COMP_LINE=\$1 prev=\$1
for w in "\${@:2}"; do
    if [ "\$w" = = ] || [ "\$prev" = = ]; then COMP_LINE+=\$w; else COMP_LINE+=" \$w"; fi
    prev=\$w
done
COMP_POINT=\${#COMP_LINE}
COMPREPLY=()
_shb shb "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
[ "\${#COMPREPLY[@]}" -eq 0 ] || printf '%s\\n' "\${COMPREPLY[@]}"
EOF

# bash_case LABEL WANT NOT [--plain] SCRIPT WORD...: the completion of the
# last WORD offers WANT (if not empty) and not NOT (if not empty).
bash_case() {
    local label=$1 want_m=$2 not_m=$3
    shift 3
    if ! timeout 30 bash --norc --noprofile "$T/drive.bash" "$@" >"$T/matches" 2>"$T/matches.err" </dev/null; then
        want "$label: $(head -c 300 "$T/matches.err")"
        return
    fi
    [ -n "$want_m" ] && ! has "$want_m" "$T/matches" && want "$label: no '$want_m' among: $(tr '\n' ' ' <"$T/matches")"
    [ -n "$not_m" ] && has "$not_m" "$T/matches" && want "$label: '$not_m' offered too"
    return 0
}

for mode in "" --plain; do
    begin "bash ${mode:+(without bash-completion) }: completes flags, values, @file and subcommands"
    S=$T/completions.bash
    bash_case "--conn" --connections --http2 $mode "$S" shb --conn
    bash_case "--h" --http3 --connections $mode "$S" shb -j --h
    bash_case "-m P" POST GET $mode "$S" shb -m P
    bash_case "--method=P" PUT GET $mode "$S" shb --method = P
    bash_case "-d @b" @body.json body.json $mode "$S" shb -d @b
    bash_case "-c (a number)" "" "" $mode "$S" shb -c ""
    [ -s "$T/matches" ] && want "-c offered values: $(tr '\n' ' ' <"$T/matches")"
    bash_case "first word" completions --connections $mode "$S" shb ""
    bash_case "completions SHELL" zsh "" $mode "$S" shb completions ""
    bash_case "merge --f" --force "" $mode "$S" shb merge --f
    bash_case "merge FILE" body.json "" $mode "$S" shb merge b
    finish
done

# zsh_cases DIR LINE WANT NOT [LINE WANT NOT]...: in one zsh on a pty with
# DIR in $fpath, Tab after each LINE offers WANT and not NOT (if not empty).
zsh_cases() {
    local dir=$1 i=0
    shift
    local -a lines=() wants=() nots=()
    while [ $# -ge 3 ]; do
        lines+=("$1") wants+=("$2") nots+=("$3")
        shift 3
    done
    if ! (cd "$FILES" && timeout 90 zsh -f "$ROOT/test/e2e/complete_zsh.zsh" "$dir" "${lines[@]}") >"$T/zmatches" 2>"$T/zmatches.err"; then
        want "zsh: $(head -c 300 "$T/zmatches.err")"
        return
    fi
    for ((i = 0; i < ${#lines[@]}; i++)); do
        grep -F "$((i + 1))"$'\t' "$T/zmatches" | cut -f 2- >"$T/zm"
        has DONE "$T/zm" || want "'${lines[i]}': no completion ran"
        [ -n "${wants[i]}" ] && ! has "${wants[i]}" "$T/zm" && want "'${lines[i]}': no '${wants[i]}' among: $(grep -v '^DONE$' "$T/zm" | tr '\n' ' ')"
        [ -n "${nots[i]}" ] && has "${nots[i]}" "$T/zm" && want "'${lines[i]}': '${nots[i]}' offered too"
    done
    return 0
}

begin "zsh: compinit loads _shb; it completes flags, values, @file and subcommands (on a pty)"
mkdir -p "$T/zfunc"
cp "$T/completions.zsh" "$T/zfunc/_shb"
zsh_cases "$T/zfunc" \
    'shb --conn' --connections --http2 \
    'shb -c 5 --http' --http3 --connections \
    'shb -m P' POST GET \
    'shb --method=P' PATCH GET \
    'shb -d @b' body.json '' \
    'shb ' completions '' \
    'shb completions ' fish --connections \
    'shb merge --f' --force ''
finish

begin "zsh: without _shb in \$fpath nothing completes --conn (the harness can tell)"
zsh_cases "$T/nonexistent" 'shb --conn' '' --connections
finish

begin "fish: complete -C with the script sourced completes flags, values, @file and subcommands"
# fish_case LINE WANT [NOT]: `complete -C LINE` lists WANT (first column).
fish_case() {
    local line=$1 want_m=$2 not_m=${3:-}
    if ! (cd "$FILES" && HOME=$T XDG_CONFIG_HOME=$T/.config XDG_DATA_HOME=$T/.local/share \
        timeout 30 fish --no-config -c "source $T/completions.fish; complete -C '$line'") 2>"$T/fmatches.err" |
        cut -f 1 >"$T/fmatches"; then
        want "'$line': $(head -c 300 "$T/fmatches.err")"
        return
    fi
    [ -s "$T/fmatches.err" ] && want "'$line': fish said: $(head -c 300 "$T/fmatches.err")"
    has "$want_m" "$T/fmatches" || want "'$line': no '$want_m' among: $(tr '\n' ' ' <"$T/fmatches")"
    [ -n "$not_m" ] && has "$not_m" "$T/fmatches" && want "'$line': '$not_m' offered too"
}
fish_case 'shb --conn' --connections --http2
fish_case 'shb -m P' POST GET
fish_case 'shb --method=P' --method=PUT --method=GET
fish_case 'shb -d @b' @body.json body.json
fish_case 'shb ' merge
fish_case 'shb completions ' bash --connections
fish_case 'shb merge --' --force --connections
fish_case 'shb merge b' body.json
finish

# --- the man page -------------------------------------------------------------------
begin "man -l ./shb.1 renders every section and every flag of -h"
PAGE=$ROOT/shb.1
if [ ! -s "$PAGE" ]; then
    want "$PAGE is missing (run: make)"
else
    LC_ALL=C.UTF-8 MANWIDTH=100 MANPAGER=cat PAGER=cat man --warnings -l "$PAGE" >"$T/man.txt" 2>"$T/man.err" </dev/null ||
        want "man -l failed: $(head -c 300 "$T/man.err")"
    [ -s "$T/man.err" ] && want "man warned: $(head -c 300 "$T/man.err")"
    groff -man -ww -z "$PAGE" 2>"$T/groff.err" || want "groff -z failed"
    [ -s "$T/groff.err" ] && want "groff warned: $(head -c 300 "$T/groff.err")"
    for s in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS OUTPUT ERRORS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
        grep -qx "$s" "$T/man.txt" || want "no $s section"
    done
    # Each option line of -h ("  -c, --connections <CONNECTIONS>") is a
    # tag line of OPTIONS ("-c, --connections CONNECTIONS").
    sed -n '/^OPTIONS$/,/^COMMANDS$/s/^ *//p' "$T/man.txt" >"$T/man-options.txt"
    grep -E -- '^  (-[A-Za-z0-9], |    )--' "$T/help" | sed -E 's/^ +//; s/<([^>]*)>/\1/g' >"$T/tags"
    [ "$(wc -l <"$T/tags")" -ge 20 ] || want "only $(wc -l <"$T/tags") options found in -h"
    while IFS= read -r tag; do
        grep -qxF -- "$tag" "$T/man-options.txt" || want "no '$tag' in OPTIONS"
    done <"$T/tags"
    grep -qE '^ +shb merge \[-j \[--histograms\]\] \[--force\] FILE\.\.\.$' "$T/man.txt" || want "no 'shb merge [-j [--histograms]] [--force] FILE...' synopsis"
    grep -qE '^ +shb completions SHELL$' "$T/man.txt" || want "no 'shb completions SHELL' synopsis"
    grep -qF 'Number of worker threads.' "$T/man.txt" || want "-t's help is not in the page"
    grep -qF 'Default: the number of physical cores.' "$T/man.txt" || want "-t's default not described"
    shb -V
    grep -qF "$(cat "$OUT")" "$T/man.txt" || want "the page's footer lacks '$(cat "$OUT")'"
    # OUTPUT describes the text report's lines.
    for line in 'Requests:' 'Requests/sec:' 'Transfer:' 'Status codes:' 'Errors:' 'Latency distribution:' 'Phases (ms):' 'Timeline:'; do
        sed -n '/^OUTPUT$/,/^ERRORS$/p' "$T/man.txt" | grep -qF -- "$line" || want "OUTPUT does not describe '$line'"
    done
fi
finish

# The error kinds the report can print (stats/err_kind.c's err_kind_name) are each
# an item of the page's ERRORS and a row of docs/errors.md's table.
begin "ERRORS in the man page and docs/errors.md name every error kind the report prints"
sed -n '/^const char \*err_kind_name/,/^}/s/^ *return "\(.*\)";$/\1/p' "$ROOT/stats/err_kind.c" | grep -vx unknown >"$T/kinds"
[ "$(wc -l <"$T/kinds")" -ge 11 ] || want "only $(wc -l <"$T/kinds") kinds read from stats/err_kind.c"
awk '/^\.SH /{ on = ($0 == ".SH ERRORS") } on && prev == ".TP" && /^\.B /{ sub(/^\.B /, ""); print } { prev = $0 }' "$ROOT/shb.1" >"$T/man-kinds"
while IFS= read -r k; do
    grep -qxF -- "$k" "$T/man-kinds" || want "no '$k' item in the man page's ERRORS"
    grep -qF -- "| \`$k\` |" "$ROOT/docs/errors.md" || want "no '$k' row in docs/errors.md"
done <"$T/kinds"
finish

# --- make demo -----------------------------------------------------------------------
# scripts/demo.sh is what make demo runs after building: its own nginx, ./shb
# over HTTP/1.1, h2c and HTTPS, then a -q ramp drawn as demo.html, and only
# the text reports (JSON is for scripts, not for a first look).
if [ "$SHB_FLAVOUR" != musl ]; then
    skip "make demo: it runs ./shb, checked once (musl)"
else
    begin "make demo (scripts/demo.sh): four text reports, no JSON, demo.html written and named, exit 0"
    rm -f "$ROOT/demo.html"
    if ! timeout -k 5 120 bash "$ROOT/scripts/demo.sh" >"$T/demo.out" 2>"$T/demo.err" </dev/null; then
        want "scripts/demo.sh failed: $(tail -n 3 "$T/demo.err" "$T/demo.out" | head -c 400)"
    fi
    [ "$(grep -c '^\$ \./shb ' "$T/demo.out")" -eq 4 ] || want "$(grep -c '^\$ \./shb ' "$T/demo.out") commands shown, expected 4"
    for line in 'URL:' 'Requests:' 'Latency distribution:'; do
        [ "$(grep -c "^$line" "$T/demo.out")" -eq 4 ] || want "$(grep -c "^$line" "$T/demo.out") '$line' lines, expected 4"
    done
    grep -q '<svg' "$ROOT/demo.html" 2>/dev/null || want "no demo.html with charts"
    tail -n 1 "$T/demo.out" | grep -qF "file://$ROOT/demo.html" || want "the last line does not say where demo.html is: $(tail -n 1 "$T/demo.out")"
    grep -qE '^\$ .* (-j|--json)( |$)' "$T/demo.out" && want "a command with -j: $(grep -E '^\$ .* (-j|--json)( |$)' "$T/demo.out")"
    grep -qE '^ *[{}]|^\[$|^ *"[a-zA-Z]+": ' "$T/demo.out" && want "JSON in the output: $(grep -m 3 -E '^ *[{}]|^\[$|^ *"[a-zA-Z]+": ' "$T/demo.out" | head -c 200)"
    finish
fi

# --- the documentation ----------------------------------------------------------------
# README.md and docs/*.md are the same for both builds: checked once (musl).
if [ "$SHB_FLAVOUR" != musl ]; then
    skip "the documentation: checked once (musl)"
else
    DOCS=("$ROOT/README.md" "$ROOT"/docs/*.md)

    begin "README.md is at most 400 lines, and links to every docs/ page"
    n=$(wc -l <"$ROOT/README.md")
    [ "$n" -le 400 ] || want "README.md has $n lines"
    for page in usage output html errors latency shards protocols performance interop hostile development internals; do
        [ -s "$ROOT/docs/$page.md" ] || want "no docs/$page.md"
        grep -qF "](docs/$page.md)" "$ROOT/README.md" || want "README.md does not link docs/$page.md"
    done
    finish

    begin "every relative link in README.md and docs/*.md resolves, file and #anchor (test/e2e/doc_links.py)"
    python3 "$ROOT/test/e2e/doc_links.py" "${DOCS[@]}" >"$T/links" 2>&1 || want "$(head -c 600 "$T/links")"
    # The checker itself: a missing file, a missing anchor, a good anchor.
    mkdir -p "$T/linkcheck"
    printf '# Top\n\n## A `code` heading, and more\n\n[ok](#a-code-heading-and-more) [ok](b.md#b) [bad](c.md) [bad](b.md#nope) `[not a link](x.md)`\n' >"$T/linkcheck/a.md"
    printf '# B\n' >"$T/linkcheck/b.md"
    python3 "$ROOT/test/e2e/doc_links.py" "$T/linkcheck/a.md" >"$T/links-selftest" 2>&1 && want "the checker passed broken links"
    [ "$(wc -l <"$T/links-selftest")" -eq 2 ] || want "the checker's self-test: $(tr '\n' '|' <"$T/links-selftest"), expected the 2 bad links"
    finish

    begin "README.md and docs/*.md speak of the product, never of 'the spec'"
    grep -niE "\bthe spec\b|\bspec's\b" "${DOCS[@]}" >"$T/spec" 2>&1
    case $? in
        0) want "$(head -c 400 "$T/spec")" ;;
        1) ;;
        *) want "grep failed: $(head -c 300 "$T/spec")" ;;
    esac
    finish

    begin "docs/usage.md's flag table has every option -h lists"
    for f in "${LONG_FLAGS[@]}"; do
        grep -qE -- "^\| \`(-[A-Za-z0-9], )?$f( [A-Z/]+)?\`" "$ROOT/docs/usage.md" || want "no row for $f"
    done
    finish

    begin "docs/hostile.md's table is what make hostile-readme writes (test/hostile/cases.js)"
    make -n -C "$ROOT" hostile-readme 2>/dev/null | grep -qF -- '--update-readme docs/hostile.md' ||
        want "make hostile-readme does not write docs/hostile.md: $(make -n -C "$ROOT" hostile-readme 2>&1 | head -c 200)"
    cp "$ROOT/docs/hostile.md" "$T/hostile.md"
    if ! node "$ROOT/test/hostile/cases.js" --update-readme "$T/hostile.md" >"$T/hostile.out" 2>&1; then
        want "cases.js --update-readme failed: $(head -c 300 "$T/hostile.out")"
    elif ! cmp -s "$ROOT/docs/hostile.md" "$T/hostile.md"; then
        want "docs/hostile.md is stale (run make hostile-readme): $(diff "$ROOT/docs/hostile.md" "$T/hostile.md" | head -n 4 | tr '\n' '|' | head -c 300)"
    fi
    finish

    begin "docs/interop.md's matrix is where make interop-readme writes (test/interop/matrix.sh write_readme)"
    make -n -C "$ROOT" interop-readme 2>/dev/null | grep -qF -- 'test/interop/interop.sh --readme' || want "make interop-readme does not run test/interop/interop.sh --readme"
    # The matrix now in the page, written again by write_readme into a copy
    # of the tree's docs/ (its default target): only the date may change.
    W=$T/interop-root
    mkdir -p "$W/docs" "$W/t"
    cp "$ROOT/docs/interop.md" "$W/docs/interop.md"
    sed -n '/^<!-- interop-matrix:begin -->$/,/^<!-- interop-matrix:end -->$/p' "$ROOT/docs/interop.md" | sed '1d;$d' |
        sed '$d' | sed '$d' >"$W/t/matrix-musl.md" # less the blank line and the "Run with" line
    cp "$W/t/matrix-musl.md" "$W/t/matrix-asan.md"
    [ -s "$W/t/matrix-musl.md" ] || want "no matrix between the interop-matrix markers of docs/interop.md"
    (
        LIB_ROOT=$W T=$W/t
        FLAVOURS=(musl asan)
        declare -A SHB_OF=([musl]=$W/shb [asan]=$W/build/asan/shb)
        # shellcheck source=test/interop/matrix.sh
        . "$ROOT/test/interop/matrix.sh"
        write_readme "$W/t/matrix-musl.md" musl
    ) >"$T/interop.out" 2>&1 || want "write_readme failed: $(head -c 300 "$T/interop.out")"
    sed -E "s/ on [0-9]{4}-[0-9]{2}-[0-9]{2}: / on $(date -u +%Y-%m-%d): /" "$ROOT/docs/interop.md" >"$T/interop.want"
    cmp -s "$T/interop.want" "$W/docs/interop.md" ||
        want "write_readme's page differs: $(diff "$T/interop.want" "$W/docs/interop.md" | head -n 6 | tr '\n' '|' | head -c 400)"
    finish

    begin "docs/shards.md's Slurm job script is the one test/e2e/e2e_slurm.sh runs (but for its test-only changes)"
    # The #SBATCH lines and the shb invocation of each, spaces removed: the
    # test leaves out --exclusive (one node) and sets its own --time, and
    # runs "$SHB" under timeout with its own counts and target.
    awk '/^```bash$/ { on = 1; next } /^```$/ { on = 0 } on' "$ROOT/docs/shards.md" | grep '^#SBATCH' |
        grep -vE -- '--(exclusive|time)' | sed 's/[[:space:]]#.*$//' | tr -d ' ' >"$T/slurm-doc"
    sed -n "/<<'EOF'$/,/^EOF$/p" "$ROOT/test/e2e/e2e_slurm.sh" | grep '^#SBATCH' | grep -vE -- '--time' |
        sed 's/[[:space:]]#.*$//' | tr -d ' ' >"$T/slurm-test"
    [ -s "$T/slurm-doc" ] || want "no #SBATCH lines in docs/shards.md"
    cmp -s "$T/slurm-doc" "$T/slurm-test" || want "#SBATCH lines differ: $(diff "$T/slurm-doc" "$T/slurm-test" | tr '\n' '|' | head -c 300)"
    for f in "$ROOT/docs/shards.md" "$ROOT/test/e2e/e2e_slurm.sh"; do
        grep -qF -- '--shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" --start-at "$START_AT"' "$f" ||
            want "$f: no --shard \"\$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT\" --start-at \"\$START_AT\""
        tr -d ' ' <"$f" | grep -qF -- '>"shard-$SLURM_ARRAY_TASK_ID.json"' || want "$f: the report is not shard-\$SLURM_ARRAY_TASK_ID.json"
    done
    finish
fi

# --- make install / uninstall -------------------------------------------------------
# install_files PREFIX ZSHDIR: the five paths make install writes (relative).
install_files() {
    printf '%s\n' "${1#/}/bin/shb" "${1#/}/share/man/man1/shb.1" \
        "${1#/}/share/bash-completion/completions/shb" "${1#/}/share/zsh/$2/_shb" \
        "${1#/}/share/fish/vendor_completions.d/shb.fish" | sort
}

if [ "$SHB_FLAVOUR" != musl ]; then
    skip "make install: checked once, with the musl build it installs"
else
    begin "make install PREFIX=/usr/local DESTDIR=...: binary, man page, completions; they run and load"
    D=$T/dest
    if ! make -s -C "$ROOT" install PREFIX=/usr/local DESTDIR="$D" >"$T/install.log" 2>&1; then
        want "make install failed: $(tail -n 5 "$T/install.log")"
    else
        (cd "$D" && find . -type f | sed 's|^\./||' | sort) >"$T/installed"
        install_files /usr/local site-functions >"$T/expected"
        cmp -s "$T/installed" "$T/expected" || want "installed: $(tr '\n' ' ' <"$T/installed"), expected: $(tr '\n' ' ' <"$T/expected")"
        B=$D/usr/local/bin/shb
        [ -x "$B" ] || want "bin/shb is not executable"
        [ "$("$B" -V 2>&1)" = "$expect" ] || want "the installed shb -V says '$("$B" -V 2>&1 | head -c 200)'"
        "$B" -h | cmp -s - "$T/help" || want "the installed shb -h differs"
        cmp -s "$D/usr/local/share/man/man1/shb.1" "$ROOT/shb.1" || want "the installed page differs from ./shb.1"
        LC_ALL=C.UTF-8 MANWIDTH=100 MANPATH="$D/usr/local/share/man" MANPAGER=cat PAGER=cat man shb 2>/dev/null |
            grep -qF -- --connections || want "man -M: the installed page is not found or lacks --connections"
        # bash-completion finds it on its own, through XDG_DATA_DIRS.
        out=$(cd "$FILES" && XDG_DATA_DIRS="$D/usr/local/share" HOME=$T timeout 30 bash --norc --noprofile -c \
            ". $BASH_COMPLETION; __load_completion shb && complete -p shb" 2>&1)
        [ "$out" = "complete -F _shb shb" ] || want "bash-completion did not load the installed script: $out"
        # fish too, through its vendor directory under XDG_DATA_DIRS (for a command on PATH).
        (cd "$FILES" && PATH="$D/usr/local/bin:$PATH" XDG_DATA_DIRS="$D/usr/local/share" HOME=$T \
            XDG_CONFIG_HOME=$T/.config XDG_DATA_HOME=$T/.local/share timeout 30 fish -c "complete -C 'shb --conn'") \
            2>/dev/null | cut -f 1 >"$T/fmatches"
        has --connections "$T/fmatches" || want "fish did not load the installed script: $(tr '\n' ' ' <"$T/fmatches")"
        zsh_cases "$D/usr/local/share/zsh/site-functions" 'shb --conn' --connections ''

    fi
    make -s -C "$ROOT" uninstall PREFIX=/usr/local DESTDIR="$D" >"$T/uninstall.log" 2>&1 || want "make uninstall failed: $(tail -n 5 "$T/uninstall.log")"
    left=$(cd "$D" 2>/dev/null && find . -type f -o -type l)
    [ -z "$left" ] || want "left after uninstall: $left"
    finish

    begin "make install PREFIX=/usr: zsh's vendor-completions; make uninstall leaves other files alone"
    D=$T/dest-usr
    mkdir -p "$D/usr/bin"
    echo keep >"$D/usr/bin/other"
    if ! make -s -C "$ROOT" install PREFIX=/usr DESTDIR="$D" >"$T/install.log" 2>&1; then
        want "make install failed: $(tail -n 5 "$T/install.log")"
    else
        (cd "$D" && find . -type f | sed 's|^\./||' | grep -v '^usr/bin/other$' | sort) >"$T/installed"
        install_files /usr vendor-completions >"$T/expected"
        cmp -s "$T/installed" "$T/expected" || want "installed: $(tr '\n' ' ' <"$T/installed"), expected: $(tr '\n' ' ' <"$T/expected")"
    fi
    make -s -C "$ROOT" uninstall PREFIX=/usr DESTDIR="$D" >"$T/uninstall.log" 2>&1 || want "make uninstall failed"
    left=$(cd "$D" && find . -type f | sed 's|^\./||')
    [ "$left" = usr/bin/other ] || want "after uninstall: '$left', expected only usr/bin/other"
    finish
fi

[ "$FAILS" -eq 0 ]
