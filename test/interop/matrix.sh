# shellcheck shell=bash
# test/interop/matrix.sh — prints the interop matrix from test/interop/interop.sh's
# results (RES, SEEN, CELL_NA, NOTE, LABEL, STACK, TLSLIB, STACKIDS) as
# Markdown, and writes it into docs/interop.md (--readme).
# shellcheck disable=SC2154  # arrays of test/interop/interop.sh

# mark RESULT: one case's sign in a cell.
mark() {
    case "$1" in
        pass) printf '✓' ;;
        FAIL) printf '✗' ;;
        n/a) printf '–' ;;
        bug) printf 'B' ;;
        *) printf '?' ;;
    esac
}

# print_matrix FLAVOUR: the matrix of that build's results.
print_matrix() {
    local fl=$1 row id proto cs line cell any k stacks="" tlss="" quic="" projects="" nstack ntls nquic nproj s t servers=0 notes=""
    echo "| server | stack | TLS | HTTP/1.1 | h2c | HTTP/1.1 TLS | HTTP/2 TLS | HTTP/3 |"
    echo "|---|---|---|---|---|---|---|---|"
    for row in "${SERVERS[@]}"; do
        id=${row%%|*}
        [ -n "${LABEL[$id]:-}" ] || continue
        line="| ${LABEL[$id]} | ${STACK[$id]} | ${TLSLIB[$id]:-—} |"
        if [ -n "${RES[skip,$id]:-}" ]; then
            echo "$line skipped: ${RES[skip,$id]} | | | | |"
            continue
        fi
        any=0
        for proto in "${PROTOS[@]}"; do
            cell=""
            if [ -n "${SEEN[$id,$proto]:-}" ]; then
                for cs in "${CASES[@]}"; do
                    k="$id,$proto,$cs"
                    cell="$cell$(mark "${RES[$fl,$k]:-}") "
                    [ "${RES[$fl,$k]:-}" = pass ] && any=1
                    if [ "${RES[$fl,$k]:-}" = n/a ]; then
                        notes="$notes$id|$proto $cs|${CELL_NA[$k]}"$'\n'
                    fi
                done
            fi
            line="$line ${cell% } |"
        done
        echo "$line"
        if [ "$any" = 1 ]; then
            servers=$((servers + 1))
            for s in ${STACKIDS[$id]}; do
                case " $stacks " in *" $s "*) ;; *) stacks="$stacks $s" ;; esac
                # The project: the id without quic: and its -h1/-h2/-h3.
                t=${s#quic:}
                t=${t%-h[123]}
                case " $projects " in *" $t "*) ;; *) projects="$projects $t" ;; esac
                case "$s" in quic:*) case " $quic " in *" $s "*) ;; *) quic="$quic $s" ;; esac ;; esac
            done
            IFS=',' read -ra t <<<"${TLSLIB[$id]:-}"
            for s in "${t[@]}"; do
                s=${s# }
                s=${s// /_}
                [ -n "$s" ] && [ "$s" != — ] || continue
                case " $tlss " in *" $s "*) ;; *) tlss="$tlss $s" ;; esac
            done
        fi
        [ -z "${NOTE[$fl,$id]:-}" ] || notes="$notes$id|${NOTE[$fl,$id]}"$'\n'
    done
    nstack=$(wc -w <<<"$stacks")
    nquic=$(wc -w <<<"$quic")
    nproj=$(wc -w <<<"$projects")
    ntls=$(wc -w <<<"$tlss")
    echo
    echo "Each protocol cell shows the three cases in order: ok (a plain 200), h48 (48 KB of response headers), c5 (the server ends the connection on the 5th request). ✓ pass, ✗ FAIL (shb failed where the reference client passed, or the other client did not see the server do the case), B known server bug (the reference client fails too), – n/a (the server cannot be set up for the case; why below), empty: the server does not speak that protocol."
    echo
    echo "$servers server configurations; $nproj independent HTTP stacks (${projects# }), $nstack HTTP implementations when each protocol's counts apart (${stacks# }); $nquic QUIC stacks (${quic# }); $ntls TLS libraries (${tlss# }; the \"TLS 1.2 only\" rows run the server capped at TLS 1.2, the others at TLS 1.3)."
    if [ -n "$notes" ]; then
        echo
        # One line per server: its cells grouped by reason ("h1 c5, h2c c5:
        # why"), then its server bugs (id|text, no second |).
        printf '%s' "$notes" | awk -F'|' '
            { id = $1 }
            !(id in seen) { seen[id] = 1; order[++n] = id }
            NF == 3 { k = id SUBSEP $3; if (!(k in cellsof)) { reasons[id, ++nr[id]] = $3; c = $2 } else c = cellsof[k] ", " $2; cellsof[k] = c }
            NF == 2 { bugs[id] = $2 }
            END {
                for (i = 1; i <= n; i++) {
                    id = order[i]; line = ""
                    for (j = 1; j <= nr[id]; j++) { r = reasons[id, j]; line = line (line == "" ? "" : "; ") "n/a " cellsof[id SUBSEP r] ": " r }
                    if (id in bugs) line = line (line == "" ? "" : "; ") bugs[id]
                    printf "- %s: %s\n", id, line
                }
            }' labels_file=/dev/null | while IFS= read -r l; do
            # The label instead of the id.
            lid=${l#- }
            lid=${lid%%:*}
            printf -- '- **%s**%s\n' "${LABEL[$lid]:-$lid}" "${l#- "$lid"}"
        done
    fi
}

# write_readme FILE FLAVOUR: docs/interop.md's text between the
# interop-matrix markers (INTEROP_DOC: another page) becomes FILE
# (FLAVOUR's matrix), with a line saying which builds ran and whether the
# others' matrices were the same.
write_readme() {
    local m=$1 fl=$2 readme=${INTEROP_DOC:-$LIB_ROOT/docs/interop.md} f other="" same=1
    for f in "${FLAVOURS[@]}"; do
        [ "$f" = "$fl" ] && continue
        other="$other, $f (${SHB_OF[$f]#"$LIB_ROOT"/})"
        cmp -s "$m" "$T/matrix-$f.md" || same=0
    done
    {
        cat "$m"
        echo
        if [ -z "$other" ]; then
            echo "Run with ${SHB_OF[$fl]#"$LIB_ROOT"/} ($fl) on $(date -u +%Y-%m-%d)."
        elif [ "$same" = 1 ]; then
            echo "Run with ${SHB_OF[$fl]#"$LIB_ROOT"/} ($fl) and${other#,} on $(date -u +%Y-%m-%d): the same matrix for each."
        else
            echo "Run with ${SHB_OF[$fl]#"$LIB_ROOT"/} ($fl) on $(date -u +%Y-%m-%d); the matrices of${other#,} differ: see \`make interop\`."
        fi
    } >"$T/readme-matrix.md"
    m=$T/readme-matrix.md
    grep -q '^<!-- interop-matrix:begin -->$' "$readme" && grep -q '^<!-- interop-matrix:end -->$' "$readme" || {
        echo "$readme has no <!-- interop-matrix:begin --> / end markers" >&2
        return 1
    }
    awk -v f="$m" '
        /^<!-- interop-matrix:begin -->$/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
        /^<!-- interop-matrix:end -->$/ { skip = 0 }
        !skip { print }' "$readme" >"$readme.tmp" && mv "$readme.tmp" "$readme"
}
