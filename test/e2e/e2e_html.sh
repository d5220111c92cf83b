#!/usr/bin/env bash
# test/e2e/e2e_html.sh — end-to-end checks of the HTML report: pages written
# by --html after real runs against nginx (one target; a -q ramp after a
# warm-up; several labelled targets) and by `shb report --html` from their
# JSON reports (one, shards merged, several side by side, a plain -j without
# histograms), each checked for its size bound (200 KB; a 10-minute
# timeline too), for no http:// or https:// reference but the runs' own
# URLs, and for each chart's number of series (test/e2e/html_check.py);
# report strings escaped; bad input one line, exit 2. Then Debian's
# Chromium, headless, with no network, opens the pages from file://: no
# console error, the charts' series in the DOM it built, and a screenshot
# whose charts are drawn (their colours counted in the PNG's pixels). No
# Chromium: those checks are skipped with one line.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_html.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_html.sh
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016,SC2119  # json_run_ok takes an optional protocol, not $1
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-html

e2e_preconditions nginx jq python3

start_or_die "nginx (test/servers/nginx.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx.conf.in" nginx-html
H1="http://127.0.0.1:$NGINX_PORT/"
MISSING="http://127.0.0.1:$NGINX_PORT/status/404"
CHECK="$LIB_ROOT/test/e2e/html_check.py"
MAX_PAGE=$((200 * 1024))
VERSION=$("$SHB" -V | sed -n '1s/^shb //p') # what the runs' reports say made them

# page_ok PAGE "chart-rate N ..." URL...: PAGE exists, is under 200 KB, has
# only the URLs' addresses, and its charts have these series counts.
page_ok() {
    local page=$1 want_series=$2 size got
    shift 2
    [ -s "$page" ] || { want "no page $page"; return; }
    size=$(stat -c %s "$page")
    [ "$size" -le "$MAX_PAGE" ] || want "$page is $size bytes, over 200 KB"
    got=$(python3 "$CHECK" addresses "$page" "$@" 2>&1) || want "$got"
    got=$(python3 "$CHECK" series "$page")
    [ "$got" = "$want_series" ] || want "series: got '$got', expected '$want_series'"
    grep -q '<script src\|<link \|@import\|url(' "$page" && want "the page loads something: $(grep -o '<script src[^>]*>\|<link [^>]*>\|@import[^;]*\|url([^)]*)' "$page" | head -n 3)"
    return 0
}

# one_line_exit2: shb failed as bad input should: exit 2, one stderr line.
one_line_exit2() {
    [ "$SHB_RC" -eq 2 ] || want "exit status $SHB_RC, expected 2"
    [ "$(wc -l <"$ERR")" -eq 1 ] || want "stderr is not one line: $(head -c 300 "$ERR")"
    grep -q '^shb: ' "$ERR" || want "stderr: $(head -c 200 "$ERR")"
}

begin "--html on a run (h1, --warmup): page and report both; rate 2 series, latency p50/p90/p99/max, spectrum 1, first byte (the warm-up connected), status"
shb -z 3s --warmup 1s -c 4 -t 1 -j --html "$T/one.html" "$H1"
json_run_ok HTTP/1.1
e2e_flush_report
cp "$OUT" "$T/one.json"
page_ok "$T/one.html" "chart-rate 2 chart-latency 4 chart-spectrum 1 chart-phases 1 chart-status 1 chart-errors 0" "$H1"
grep -q 'warm-up (left out)' "$T/one.html" || want "no warm-up band"
grep -q 'No errors.' "$T/one.html" || want "no 'No errors.'"
# The header's -p (1 over HTTP/1.1) and the shb that made the run.
grep -q '<th>Streams per connection (-p)</th><td>1</td>' "$T/one.html" || want "no -p 1 row"
grep -qF "<th>shb version</th><td>$VERSION</td>" "$T/one.html" || want "no shb version $VERSION row: $(grep -o 'shb version</th><td>[^<]*' "$T/one.html")"
finish

begin "shb report --html from a plain -j report (no histograms): p50 and p99 over time, spectrum from its percentiles"
shb report --html "$T/plain.html" "$T/one.json"
[ "$SHB_RC" -eq 0 ] && [ ! -s "$ERR" ] || want "exit $SHB_RC: $(head -c 300 "$ERR")"
page_ok "$T/plain.html" "chart-rate 2 chart-latency 2 chart-spectrum 1 chart-phases 1 chart-status 1 chart-errors 0" "$H1"
# The header reads -p and the version from the report, not from the shb drawing it.
jq '.parallel = 8 | .shbVersion = "an-older-shb"' "$T/one.json" >"$T/p8.json"
shb report --html "$T/p8.html" "$T/p8.json"
grep -q '<th>Streams per connection (-p)</th><td>8</td>' "$T/p8.html" || want "no -p 8 row"
grep -q '<th>shb version</th><td>an-older-shb</td>' "$T/p8.html" || want "no an-older-shb row"
finish

begin "-q ramp, --histograms: asked-for rate beside achieved, service time beside latency; report --html draws the same"
shb -q 500..2000 -z 3s -c 4 -t 1 -j --histograms --html "$T/ramp.html" "$H1"
json_run_ok HTTP/1.1 '.rate.from == 500 and .rate.to == 2000' '.rate'
e2e_flush_report
cp "$OUT" "$T/ramp.json"
page_ok "$T/ramp.html" "chart-rate 3 chart-latency 4 chart-spectrum 2 chart-phases 2 chart-status 1 chart-errors 0" "$H1"
shb report --html "$T/ramp2.html" "$T/ramp.json"
[ "$SHB_RC" -eq 0 ] || want "report: exit $SHB_RC: $(head -c 300 "$ERR")"
page_ok "$T/ramp2.html" "chart-rate 3 chart-latency 4 chart-spectrum 2 chart-phases 2 chart-status 1 chart-errors 0" "$H1"
grep -q 'ramp 500.0 to 2000.0/s' "$T/ramp2.html" || want "no ramp in the header"
finish

begin "several labelled targets: one page, overlaid (2 colours), comparison table, 200 and 404 bars"
shb -n 2000 -c 4 -t 1 -j --html "$T/multi.html" "ok=$H1" "gone=$MISSING"
[ "$SHB_RC" -eq 0 ] || want "exit $SHB_RC: $(head -c 300 "$ERR")"
jq -e 'length == 2' "$OUT" >/dev/null || want "not an array of 2 reports"
cp "$OUT" "$T/multi.json"
page_ok "$T/multi.html" "chart-rate 4 chart-latency 8 chart-spectrum 2 chart-phases 4 chart-status 2 chart-errors 0" "$H1" "$MISSING"
grep -q '<h2>Comparison</h2>' "$T/multi.html" || want "no comparison table"
grep -q '>ok: p99<' "$T/multi.html" && grep -q '>gone: p99<' "$T/multi.html" || want "legend does not name the labels"
grep -q '404 (gone)' "$T/multi.html" || want "no 404 bar for gone"
shb report --html "$T/multi2.html" "$T/multi.json" # plain -j: p50 and p99 over time only
[ "$SHB_RC" -eq 0 ] || want "report: exit $SHB_RC: $(head -c 300 "$ERR")"
page_ok "$T/multi2.html" "chart-rate 4 chart-latency 4 chart-spectrum 2 chart-phases 4 chart-status 2 chart-errors 0" "$H1" "$MISSING"
finish

begin "shards: shb report merges 2 shards of one run into one (2 reports merged), as shb merge does, from files or stdin"
run_shards sh 2 -z 2s -c 2 -t 1 -j "$H1"
shb report --html "$T/shards.html" "$T/sh-0.json" "$T/sh-1.json"
[ "$SHB_RC" -eq 0 ] || want "exit $SHB_RC: $(head -c 300 "$ERR")"
page_ok "$T/shards.html" "chart-rate 2 chart-latency 4 chart-spectrum 1 chart-phases 2 chart-status 1 chart-errors 0" "$H1"
grep -q '2 reports merged (shards of 2)' "$T/shards.html" || want "not merged: $(grep -o 'Shard</th><td>[^<]*' "$T/shards.html")"
total=$(jq -s 'map(.requests.total) | add' "$T/sh-0.json" "$T/sh-1.json")
grep -q ">$total ($total ok, 0 errors)<" "$T/shards.html" || want "the merged page does not count $total requests"
grep -qF "<th>shb version</th><td>$VERSION</td>" "$T/shards.html" || want "the merged page lost the version"
# The same shards on stdin, one after the other: read once, merged all the same.
cat "$T/sh-0.json" "$T/sh-1.json" >"$T/sh-cat.json"
IN=$T/sh-cat.json shb report --html "$T/shards-stdin.html" -
[ "$SHB_RC" -eq 0 ] || want "stdin: exit $SHB_RC: $(head -c 300 "$ERR")"
grep -q '2 reports merged (shards of 2)' "$T/shards-stdin.html" || want "stdin: not merged: $(grep -o 'Shard</th><td>[^<]*' "$T/shards-stdin.html")"
grep -q ">$total ($total ok, 0 errors)<" "$T/shards-stdin.html" || want "stdin: the merged page does not count $total requests"
finish

begin "size: a 10-minute timeline (600 entries with histograms) makes a page under 200 KB"
python3 - "$T/ramp.json" "$T/long.json" <<'EOF' || want "could not make the long report"
import json, sys
r = json.load(open(sys.argv[1]))
tl = [e for e in r["timeline"] if e["seconds"] == 1]
r["timeline"] = [dict(tl[i % len(tl)], start=i) for i in range(600)]
r["durationSeconds"] = 600
json.dump(r, open(sys.argv[2], "w"))
EOF
shb report --html "$T/long.html" "$T/long.json"
[ "$SHB_RC" -eq 0 ] || want "exit $SHB_RC: $(head -c 300 "$ERR")"
page_ok "$T/long.html" "chart-rate 3 chart-latency 4 chart-spectrum 2 chart-phases 2 chart-status 1 chart-errors 0" "$H1"
grep -o 'data-x="[^"]*"' "$T/long.html" | head -n 1 | tr ',' '\n' | wc -l | grep -qx 300 || want "not coarsened to 300 points"
echo "  long page: $(stat -c %s "$T/long.html") bytes"
finish

begin "escaping: a report's label, URL and error kind with markup in them come out as text"
jq '.label = "<script>alert(1)</script>" | .url = "http://127.0.0.1:1/?a=\"><img src=x>" | .errorKinds = {"<b>kind</b>": 1}' \
    "$T/one.json" >"$T/evil.json"
shb report --html "$T/evil.html" "$T/evil.json"
[ "$SHB_RC" -eq 0 ] || want "exit $SHB_RC: $(head -c 300 "$ERR")"
[ "$(grep -o '<script' "$T/evil.html" | wc -l)" -eq 1 ] || want "a second <script> element"
grep -q '<img' "$T/evil.html" && want "an <img> element came through"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/evil.html" || want "label not shown escaped"
grep -q '&lt;b&gt;kind&lt;/b&gt;' "$T/evil.html" || want "error kind not shown escaped"
finish

begin "bad input: no file, not JSON, not a report, no --html, an unknown option, a page that cannot be created: one line, exit 2"
shb report --html "$T/x.html" "$T/does-not-exist.json"
one_line_exit2
echo 'not json' >"$T/notjson"
shb report --html "$T/x.html" "$T/notjson"
one_line_exit2
echo '{"hello": 1}' >"$T/notreport.json"
shb report --html "$T/x.html" "$T/notreport.json"
one_line_exit2
grep -q 'not an shb report' "$ERR" || want "does not say it is not a report: $(cat "$ERR")"
shb report "$T/one.json"
one_line_exit2
shb report --frob --html "$T/x.html" "$T/one.json"
one_line_exit2
shb report --html "$T/no-such-dir/x.html" "$T/one.json"
one_line_exit2
shb -n 10 --html "$T/no-such-dir/x.html" "$H1"
one_line_exit2
[ -e "$T/x.html" ] && want "a page was written for bad input"
finish

# --- in a real browser -----------------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    skip "browser checks: chromium is not installed (bash scripts/deps.sh installs it)"
    [ "$FAILS" -eq 0 ]
    exit
fi

# browse PAGE NAME: Chromium headless opens file://PAGE with every host
# unresolvable; its DOM after the script ran into $T/NAME.dom, a screenshot
# into $T/NAME.png, its log into $T/NAME.log.
browse() {
    local page=$1 name=$2 sandbox=()
    [ "$(id -u)" = 0 ] && sandbox=(--no-sandbox)
    rm -rf "$T/chromium-$name"
    timeout -k 5 90 "$CHROMIUM" --headless --disable-gpu "${sandbox[@]}" --user-data-dir="$T/chromium-$name" \
        --host-resolver-rules="MAP * ~NOTFOUND" --no-first-run --disable-extensions --disable-sync \
        --disable-background-networking --disable-component-update --enable-logging=stderr --v=0 \
        --virtual-time-budget=2000 --dump-dom "file://$page" >"$T/$name.dom" 2>"$T/$name.log" ||
        want "chromium --dump-dom exit $?: $(tail -n 3 "$T/$name.log")"
    timeout -k 5 90 "$CHROMIUM" --headless --disable-gpu "${sandbox[@]}" --user-data-dir="$T/chromium-$name" \
        --host-resolver-rules="MAP * ~NOTFOUND" --no-first-run --disable-extensions --disable-sync \
        --disable-background-networking --disable-component-update --enable-logging=stderr --v=0 \
        --hide-scrollbars --window-size=1000,3000 --screenshot="$T/$name.png" "file://$page" \
        >>"$T/$name.log" 2>&1 || want "chromium --screenshot exit $?: $(tail -n 3 "$T/$name.log")"
}

# browser_ok NAME "chart-rate N ...": no console error, the DOM's series, the pixels.
browser_ok() {
    local name=$1 want_series=$2 got
    grep -E 'Uncaught|CONSOLE\(|:CONSOLE|Refused to' "$T/$name.log" | grep -v 'Fontconfig' | head -n 3 >"$T/$name.errors"
    [ -s "$T/$name.errors" ] && want "console: $(cat "$T/$name.errors")"
    grep -q '<html[^>]* class="js"' "$T/$name.dom" || want "the page's script did not run (no class js on <html>)"
    got=$(python3 "$CHECK" series "$T/$name.dom")
    [ "$got" = "$want_series" ] || want "DOM series: got '$got', expected '$want_series'"
    [ "$(grep -o '<svg' "$T/$name.dom" | wc -l)" -ge 5 ] || want "fewer than 5 charts' SVG in the DOM"
    got=$(python3 "$CHECK" png "$T/$name.png" 2>&1) || want "screenshot: $got"
    return 0
}

begin "chromium: the one-target page (file://, no network): no console error, series in the DOM, charts drawn"
browse "$T/one.html" one
browser_ok one "chart-rate 2 chart-latency 4 chart-spectrum 1 chart-phases 1 chart-status 1 chart-errors 0"
finish

begin "chromium: the ramp page: asked-for rate and service time drawn"
browse "$T/ramp.html" ramp
browser_ok ramp "chart-rate 3 chart-latency 4 chart-spectrum 2 chart-phases 2 chart-status 1 chart-errors 0"
finish

begin "chromium: several targets on one page, and the merged shards"
browse "$T/multi.html" multi
browser_ok multi "chart-rate 4 chart-latency 8 chart-spectrum 2 chart-phases 4 chart-status 2 chart-errors 0"
browse "$T/shards.html" shards
browser_ok shards "chart-rate 2 chart-latency 4 chart-spectrum 1 chart-phases 2 chart-status 1 chart-errors 0"
finish

[ "$FAILS" -eq 0 ]
