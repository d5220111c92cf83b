#!/usr/bin/env bash
# test/e2e/e2e_live.sh — the live view, in a real terminal: $SHB runs in a tmux
# pane (its own tmux server, a fixed size) against nginx, and the pane is
# captured while the run goes and after it ends; and the same runs piped.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_live.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_live.sh
#
# What is checked: the two lines (progress bar and the last second's
# figures) appear on a terminal, fit its width, and are gone when the report
# is printed (the report starts at the top of the pane); nothing of them
# with --no-progress or when stderr is not a terminal; with -j and stdout
# redirected, the file holds only the JSON report while the pane shows the
# view; Ctrl-C in the pane ends the run with a clean report.
# Same conventions as test/e2e/e2e.sh.
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-live

e2e_preconditions nginx tmux jq
start_or_die "nginx (test/servers/nginx.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx.conf.in" nginx-live
URL="http://127.0.0.1:$NGINX_PORT/"

# A tmux server of our own, stopped on exit.
TMUX_SOCK="shb-live-$$"
tm() { TERM=xterm tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
tmux_stop() { tm kill-server 2>/dev/null || true; }
E2E_CLEANUP_EXTRA=tmux_stop

# pane_run WIDTH CMD: starts CMD in a fresh detached pane WIDTH columns wide
# (40 rows), in the repository; the pane stays after CMD ends (remain-on-exit).
pane_run() {
    tm kill-session -t live 2>/dev/null || true
    tm new-session -d -s live -x "$1" -y 40 -c "$PWD" "$2" || want "tmux could not start a session"
    tm set-option -t live remain-on-exit on >/dev/null 2>&1 || true
    LAST_CMD="tmux pane ($1 columns): $2"
}
# capture: the pane's text now (trailing blank lines dropped); whole: its
# history too, from the first line the pane ever showed.
capture() { tm capture-pane -p -t live 2>/dev/null | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
whole() { tm capture-pane -p -S - -t live 2>/dev/null; }
# pane_done SECONDS: waits until the pane's command has ended.
pane_done() {
    local i
    for i in $(seq $(($1 * 10))); do
        [ "$(tm display-message -p -t live '#{pane_dead}' 2>/dev/null)" = 1 ] && return 0
        sleep 0.1
    done
    want "the run in the pane did not end within $1 s"
    return 1
}
# Diagnostics: what the pane showed last.
e2e_diag_extra() { capture | head -n 12 | sed 's/^/  pane: /'; }

LINE1='^\[[#.]{20}\] [0-9]+\.[0-9] s of 3\.0 s$'
LINE2='^[0-9]+ req/s  ok [0-9]+  errors [0-9]+  p50 ([0-9.]+ ms|-)  p99 ([0-9.]+ ms|-)  [0-9]+ connections$'

begin "tmux: -z 3s shows the bar and the last second's figures while it runs, and they are erased before the report"
pane_run 120 "$SHB -z 3s -c 10 $URL"
sleep 1.7
mid=$(capture)
printf '%s\n' "$mid" | head -n 1 | grep -qE "$LINE1" || want "mid-run first line is not the bar: $(printf '%s' "$mid" | head -n 1)"
printf '%s\n' "$mid" | sed -n 2p | grep -qE "$LINE2" || want "mid-run second line is not the figures: $(printf '%s' "$mid" | sed -n 2p)"
printf '%s\n' "$mid" | sed -n 2p | grep -qE 'p50 [0-9.]+ ms  p99' || want "no p50/p99 after a whole second"
[ "$(printf '%s\n' "$mid" | grep -c .)" = 2 ] || want "mid-run the pane holds $(printf '%s\n' "$mid" | grep -c .) lines, expected 2"
pane_done 20
# The frame is erased in place; tmux may still have scrolled it into the
# pane's history when the report came. After the report's first line,
# nothing of it, on the screen or in the history.
end=$(whole | sed -n '/^URL:          http:\/\//,$p')
[ -n "$end" ] || want "no URL line in the pane or its history"
printf '%s\n' "$end" | grep -qE 'req/s  ok|\[[#.]{20}\]' && want "the live view was left on the screen"
printf '%s\n' "$end" | grep -q '^Latency distribution:$' || want "no full report in the pane"
finish

begin "tmux: -n shows how many of n; a 40-column pane cuts both lines to 39 columns"
pane_run 40 "$SHB -n 400000 -c 10 $URL"
sleep 1.5
mid=$(capture)
printf '%s\n' "$mid" | head -n 1 | grep -qE '^\[[#.]{20}\] [0-9]+ of 400' || want "first line: $(printf '%s' "$mid" | head -n 1)"
long=$(printf '%s\n' "$mid" | awk 'length > 39' | head -n 1)
[ -z "$long" ] || want "a line longer than 39 columns: $long"
[ "$(printf '%s\n' "$mid" | grep -c .)" = 2 ] || want "the pane holds $(printf '%s\n' "$mid" | grep -c .) lines, expected 2 (no wrapping)"
pane_done 30
whole | sed -n '/^URL:/,$p' | grep -qE 'req/s  ok|\[[#.]{20}\]' && want "the live view was left after the report's start"
finish

# warmup_frame WIDTH LINE1 LINE2: 1.5 s into a --warmup 3s -z 4s run in a pane
# WIDTH columns wide, the two lines match the regexes LINE1 and LINE2 and
# fit in WIDTH - 1 columns.
warmup_frame() {
    local mid long
    pane_run "$1" "$SHB --warmup 3s -z 4s -c 10 $URL"
    sleep 1.5
    mid=$(capture)
    printf '%s\n' "$mid" | head -n 1 | grep -qE "$2" || want "$1 columns, first line: $(printf '%s' "$mid" | head -n 1)"
    printf '%s\n' "$mid" | sed -n 2p | grep -qE "$3" || want "$1 columns, second line: $(printf '%s' "$mid" | sed -n 2p)"
    long=$(printf '%s\n' "$mid" | awk -v w="$1" 'length >= w' | head -n 1)
    [ -z "$long" ] || want "a line longer than $(($1 - 1)) columns: $long"
    pane_done 20
}

begin "tmux: --warmup: '(warm-up)' whole at 120 columns, left out whole at 40 (never cut); ok and errors '-' during it"
warmup_frame 120 '^\[[#.]{20}\] [0-9]+\.[0-9] s of [0-9]+\.[0-9] s \(warm-up\)$' \
    '^[0-9]+ req/s  ok -  errors -  p50 ([0-9.]+ ms|-)  p99 ([0-9.]+ ms|-)  [0-9]+ connections$'
# 40 columns: no '(warm-up)', nor a piece of it
warmup_frame 40 '^\[[#.]{20}\] [0-9]+\.[0-9] s of [0-9]+\.[0-9] s$' \
    '^[0-9]+ req/s  ok -  errors -(  p50 ([0-9.]+ ms|-))?(  p99 ([0-9.]+ ms|-))?$'
finish

begin "tmux: -j with stdout to a file: the view on the terminal, only the JSON report in the file"
rm -f "$T/live.json"
pane_run 120 "$SHB -j -z 3s -c 10 $URL >$T/live.json"
sleep 1.5
capture | head -n 1 | grep -qE "$LINE1" || want "no live view on the terminal: $(capture | head -n 1)"
pane_done 20
schema_collect "$T/live.json" "$SHB -j -z 3s -c 10 $URL (in tmux)"
jq -e '.requests.total > 0' "$T/live.json" >/dev/null 2>&1 || want "the file is not one JSON report"
[ "$(head -c 1 "$T/live.json")" = "{" ] || want "the file does not start with the report"
grep -q $'\033' "$T/live.json" && want "escape sequences in the JSON file"
left=$(capture | grep -v '^Pane is dead' | grep -c .)
[ "$left" = 0 ] || want "the pane is not clear after the run: $(capture | head -n 2)"
finish

begin "tmux: --no-progress: nothing on the terminal while it runs"
pane_run 120 "$SHB --no-progress -z 2s -c 10 $URL"
sleep 1.2
[ -z "$(capture)" ] || want "the pane shows: $(capture | head -n 2)"
pane_done 20
whole | grep -q '^URL:' || want "no report"
finish

begin "tmux: Ctrl-C in the pane: the view cleared, the report of what was done"
pane_run 120 "$SHB -z 30s -c 10 $URL"
sleep 1.5
tm send-keys -t live C-c
pane_done 10
end=$(capture)
# The terminal echoes ^C where the cursor was (tmux may then scroll the
# report's first line off the screen): the whole report is in the pane's
# history, and the view on neither.
all=$(whole)
printf '%s\n' "$all" | grep -q 'URL:          http://' || want "no URL line in the pane or its history"
printf '%s\n' "$end" | grep -qE 'req/s  ok|\[[#.]{20}\]' && want "the live view was left on the screen"
printf '%s\n' "$end" | grep -qE '^Requests:     [0-9]+ ' || want "no Requests line"
finish

begin "piped: stderr not a terminal: nothing on it"
shb -z 1s -c 10 "$URL"
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
[ -s "$ERR" ] && want "stderr holds $(wc -c <"$ERR") bytes"
grep -q '^URL:' "$OUT" || want "no report"
finish

[ "$FAILS" -eq 0 ]
