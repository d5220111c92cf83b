# test/e2e/complete_zsh.zsh FPATH_DIR LINE... — what zsh's completion system
# offers for each LINE (as if Tab were pressed after it) with the
# completion functions in FPATH_DIR: one "N<TAB>MATCH" line per match of
# the Nth LINE (from 1), then "N<TAB>DONE". test/e2e/e2e_toolbox.sh runs it
# with zsh -f, under a timeout.
#
# Completion widgets only run inside zle, so a real interactive zsh is
# started on a pseudo-terminal (zsh/zpty), compinit'd in a private
# directory, and typed into. Its compadd is wrapped to append every match
# it adds (compadd -O matches the word typed as usual, but only stores the
# words) to a file, and a comppostfuncs function writes DONE there once the
# completion has run; the pty's screen output is read only to keep it flowing (a full
# pty blocks the shell), never parsed. Between lines, ^U clears the line.
zmodload zsh/zpty || exit 2
dir=$1
shift
tmp=$(mktemp -d /tmp/shb-zsh.XXXXXX) || exit 2
trap 'zpty -d z 2>/dev/null; rm -rf $tmp' EXIT
zpty z zsh -f -i || exit 2
drain() { local chunk; while zpty -rt z chunk 2>/dev/null; do :; done; }
zpty -w z "PS1=''; PS2=''; ZDOTDIR=$tmp; HISTFILE=; bindkey -e; fpath=($dir \$fpath)"
zpty -w z "autoload -Uz compinit && compinit -u -d $tmp/zcompdump"
zpty -w z "compadd() { local -a __m; if [[ \${@[(I)-[OAD]]} -eq 0 ]]; then builtin compadd -O __m \"\$@\"; (( \$#__m )) && print -rl -- \$__m >> \$__out; fi; builtin compadd \"\$@\"; }"
zpty -w z "_shb_t_done() { print -r -- DONE >> \$__out; }"
zpty -w z "zstyle ':completion:*' menu no; print READY > $tmp/ready"
for i in {1..300}; do drain; [[ -e $tmp/ready ]] && break; sleep 0.1; done
[[ -e $tmp/ready ]] || { print -u2 "complete_zsh: zsh on the pty did not start"; exit 2; }
integer n=0
for line in "$@"; do
    (( n++ ))
    out=$tmp/matches.$n
    zpty -w z "__out=$out; comppostfuncs=(_shb_t_done)" # _main_complete empties it after each use
    zpty -w -n z "$line"$'\t'
    for i in {1..400}; do drain; [[ -e $out ]] && grep -q '^DONE$' $out && break; sleep 0.05; done
    [[ -e $out ]] && grep -q '^DONE$' $out || { print -u2 "complete_zsh: no completion ran for '$line'"; exit 2; }
    zpty -w -n z $'\C-u'
    while IFS= read -r m; do print -r -- "$n"$'\t'"$m"; done < $out
done
