#!/usr/bin/env bash
# test/e2e/e2e_auth.sh — credentials (HTTP Basic, RFC 7617) against nginx's
# auth_basic (test/servers/nginx-auth.conf.in: HTTP/1.1, h2c, and TLS with
# h2 and http/1.1), what HTTP/3 sends as Bun's server logs it
# (test/servers/bun_h3_server.js), and that the password appears in no
# output of any run.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_auth.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_auth.sh
#
# Where credentials come from: the URL's user:password@ (%-encoded), -u
# USER:PASSWORD (which wins over the URL's), -u USER with $SHB_PASSWORD or
# --netrc-file, and --netrc-file alone. Same conventions as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-auth

e2e_preconditions nginx jq openssl base64

# The password has a ':' and an '@' (%3A and %40 in a URL) and a word no
# other output would hold by chance.
USER_NAME=ada
PASS='Zq7:s3cr3t@wyvern'
PASS_URL='Zq7%3As3cr3t%40wyvern'
PASS_B64=$(printf '%s' "$USER_NAME:$PASS" | base64 -w0)

start_or_die "nginx (test/servers/nginx-auth.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-auth.conf.in" nginx-auth
printf '%s:%s\n' "$USER_NAME" "$(openssl passwd -apr1 "$PASS")" >"$NGINX_DIR/htpasswd"
H1="127.0.0.1:$NGINX_PORT"
H2C="127.0.0.1:$NGINX_PORT_H2C"
TLS="127.0.0.1:$NGINX_PORT_TLS"
e2e_diag_extra() { diag_logs "$NGINX_DIR" h1 h2c tls; }

# logged LOG N: nginx let N requests in as $USER_NAME with 200, and
# nothing else (the log was emptied before the run).
logged() {
    local got
    got=$(log_tally "$1")
    [ "$got" = "$2 x $USER_NAME 200" ] || want "nginx log $(basename "$1"): expected $2 x $USER_NAME 200 (got ${got:-nothing})"
}

# clean_logs: empties every server log.
clean_logs() { : >"$NGINX_DIR/h1.log"; : >"$NGINX_DIR/h2c.log"; : >"$NGINX_DIR/tls.log"; }

# no_secret (e2e_lib.sh) looks for the password in clear, %-encoded, or
# as the Authorization header's base64.
SECRETS=("$PASS" "$PASS_URL" "$PASS_B64" 's3cr3t')

# --- where the credentials come from -----------------------------------------------
begin "HTTP/1.1, user:password@ in the URL (%-encoded): 200 ok, each let in as the user"
clean_logs
shb -n 200 -c 4 -j "http://$USER_NAME:$PASS_URL@$H1/"
json_run_ok HTTP/1.1
jx '.statusCodes == {"200": 200}' '{statusCodes, errorKinds}'
jx ".url == \"http://$USER_NAME:***@$H1/\"" '.url'
logged "$NGINX_DIR/h1.log" 200
no_secret "$OUT" "$ERR"
finish

begin "HTTP/1.1, a wrong password in the URL: every answer 401"
clean_logs
shb -n 50 -c 2 -j "http://$USER_NAME:nope@$H1/"
json_run_ok HTTP/1.1
jx '.statusCodes == {"401": 50}' '{statusCodes, errorKinds}'
finish

begin "-u USER:PASSWORD, HTTP/2 (h2c): 200 ok; -u wins over the URL's credentials"
clean_logs
shb -n 200 -c 2 -p 8 --http2 -j -u "$USER_NAME:$PASS" "http://$USER_NAME:wrong@$H2C/"
json_run_ok HTTP/2
jx '.statusCodes == {"200": 200}' '{statusCodes, errorKinds}'
logged "$NGINX_DIR/h2c.log" 200
no_secret "$OUT" "$ERR"
finish

begin "-u USER with \$SHB_PASSWORD, TLS (ALPN h2 and http/1.1): 200 ok"
clean_logs
SHB_PASSWORD=$PASS shb -n 100 -c 2 -j -u "$USER_NAME" "https://$TLS/"
json_run_ok HTTP/1.1
jx '.statusCodes == {"200": 100}' '{statusCodes, errorKinds}'
SHB_PASSWORD=$PASS shb -n 100 -c 2 -j --http2 -u "$USER_NAME" "https://$TLS/"
json_run_ok HTTP/2
jx '.statusCodes == {"200": 100}' '{statusCodes, errorKinds}'
logged "$NGINX_DIR/tls.log" 200
finish

begin "--netrc-file: the machine's login and password; a URL's user@ takes its password from there"
clean_logs
{
    echo "# shb's test netrc"
    echo "machine other.example login bob password bobs"
    echo "machine 127.0.0.1"
    echo "  login $USER_NAME"
    printf '  password "%s"\n' "$PASS"
    echo "default login nobody password none"
} >"$T/netrc"
shb -n 60 -c 2 -j --netrc-file "$T/netrc" "http://$H1/"
json_run_ok HTTP/1.1
jx '.statusCodes == {"200": 60}' '{statusCodes, errorKinds}'
shb -n 40 -c 2 -j --netrc-file "$T/netrc" "http://$USER_NAME@$H1/"
json_run_ok HTTP/1.1
jx '.statusCodes == {"200": 40}' '{statusCodes, errorKinds}'
jx ".url == \"http://$USER_NAME@$H1/\"" '.url'
logged "$NGINX_DIR/h1.log" 100
finish

begin "--netrc-file's default entry when no machine matches: that login is sent (nginx: 401)"
printf 'machine elsewhere login x password y\ndefault login nobody password none\n' >"$T/netrc2"
shb -n 20 -c 1 -j --netrc-file "$T/netrc2" "http://$H1/"
json_run_ok HTTP/1.1
jx '.statusCodes == {"401": 20}' '{statusCodes, errorKinds}'
finish

begin "-H 'Authorization: ...' wins over credentials (nginx: 401 for a Bearer token)"
shb -n 20 -c 1 -j -H "Authorization: Bearer abc" -u "$USER_NAME:$PASS" "http://$H1/"
json_run_ok HTTP/1.1
jx '.statusCodes == {"401": 20}' '{statusCodes, errorKinds}'
finish

# --- HTTP/3: the header as the server receives it -----------------------------------
if ! gen_certs || ! bun_bin >/dev/null; then
    skip "HTTP/3 Authorization: no test certificates or no runnable bun (bash scripts/deps.sh installs it)"
else
    start_or_die "bun_h3_server.js" start_bun_h3 bun "$LIB_CERTS/ec.crt" "$LIB_CERTS/ec.key"
    begin "HTTP/3: every request carries authorization: Basic base64(user:password) once (Bun's log)"
    : >"$BUN_H3_LOG"
    shb -n 30 -c 2 --http3 -j "https://$USER_NAME:$PASS_URL@127.0.0.1:$BUN_H3_PORT/"
    json_run_ok HTTP/3
    jx '.requests.ok == 30' '{requests, errorKinds}'
    lines_settled "$BUN_H3_LOG" >/dev/null
    got=$(jq -s --arg v "Basic $PASS_B64" '[.[] | [.headers as $h | range(0; $h | length; 2) | select(($h[.] | ascii_downcase) == "authorization") | $h[. + 1]] | select(. == [$v])] | length' "$BUN_H3_LOG" 2>/dev/null)
    [ "$got" = 30 ] || want "server log: expected 30 requests each with one authorization: Basic $PASS_B64 (got ${got:-nothing})"
    no_secret "$OUT" "$ERR"
    finish
fi

# --- the password in no output -----------------------------------------------------
begin "no output of a run with credentials shows the password: text, JSON, tables, --hdr-log, shards, merge"
shb -n 50 -c 2 "http://$USER_NAME:$PASS_URL@$H1/"
[ "$SHB_RC" -eq 0 ] || want "text run: exit status $SHB_RC"
grep -q "URL: *http://$USER_NAME:\*\*\*@$H1/" "$OUT" || want "the text report's URL line is not http://$USER_NAME:***@$H1/"
cp "$OUT" "$T/text.out"
cp "$ERR" "$T/text.err"
shb -n 50 -c 2 -j a="http://$USER_NAME:$PASS_URL@$H1/" b="http://$USER_NAME:$PASS_URL@$H1/x"
[ "$SHB_RC" -eq 0 ] || want "several targets: exit status $SHB_RC"
cp "$OUT" "$T/multi.json"
shb -n 50 -c 2 a="http://$USER_NAME:$PASS_URL@$H1/" b="http://$USER_NAME:$PASS_URL@$H1/x"
cp "$OUT" "$T/multi.out"
shb -n 50 -c 2 -j --hdr-log "$T/run.hlog" "http://$USER_NAME:$PASS_URL@$H1/"
cp "$ERR" "$T/hlog.err"
run_shards auth 2 -n 40 -c 2 -j "http://$USER_NAME:$PASS_URL@$H1/"
"$SHB" merge "$T/auth-0.json" "$T/auth-1.json" >"$T/merged.out" 2>"$T/merged.err" || want "merge: exit status $?"
"$SHB" merge -j "$T/auth-0.json" "$T/auth-1.json" >"$T/merged.json" 2>>"$T/merged.err" || want "merge -j: exit status $?"
no_secret "$T/text.out" "$T/text.err" "$T/multi.json" "$T/multi.out" "$T/run.hlog" "$T/hlog.err" \
    "$T/auth-0.json" "$T/auth-1.json" "$T/auth-0.err" "$T/auth-1.err" "$T/merged.out" "$T/merged.json" "$T/merged.err"
grep -q '\*\*\*' "$T/merged.out" || want "the merged report does not show the URL with ***"
finish

begin "errors that quote the URL mask its password: a bad port, a closed port, several targets"
shb -n 1 "http://$USER_NAME:$PASS_URL@127.0.0.1:99999/"
one_line_exit 2
[[ $ERR_LINE == *"$USER_NAME:***@"* ]] || want "the message does not quote the URL with ***: $ERR_LINE"
no_secret "$ERR"
cp "$ERR" "$T/e1"
pick_port CLOSED_PORT
shb -n 1 a="http://$USER_NAME:$PASS_URL@127.0.0.1:$CLOSED_PORT/" b="http://$USER_NAME:$PASS_URL@$H1/"
one_line_exit 2
no_secret "$ERR"
shb -n 1 "l a=http://$USER_NAME:$PASS_URL@$H1/"
one_line_exit 2
no_secret "$ERR"
finish

begin "while it runs, ps shows neither -u's password nor the URL's (/proc/PID/cmdline)"
cmdline_while_running -z 3s -c 1 -u "$USER_NAME:$PASS" "http://x:$PASS_URL@$H1/"
grep -q -- "-u $USER_NAME:\*" "$T/cmdline" || want "cmdline: -u's value is not blanked: $(cat "$T/cmdline")"
no_secret "$T/cmdline" "$T/ps.out" "$T/ps.err"
finish

# --- refusals ----------------------------------------------------------------------
begin "refused, one line, exit 2, no password in it: -u USER without one, a bad %-escape, a control character, a ':' in the user"
shb -n 1 -u "$USER_NAME" "http://$H1/"
one_line_exit 2
[[ $ERR_LINE == *"has no password"*"SHB_PASSWORD"* ]] || want "-u without a password: $ERR_LINE"
shb -n 1 "http://$USER_NAME:s3cr3t%4@$H1/"
one_line_exit 2
[[ $ERR_LINE == *"%-escape"* ]] || want "bad escape: $ERR_LINE"
no_secret "$ERR"
shb -n 1 "http://$USER_NAME:s3cr3t%0A@$H1/"
one_line_exit 2
[[ $ERR_LINE == *"control character"* ]] || want "control character: $ERR_LINE"
no_secret "$ERR"
shb -n 1 "http://a%3Ab:s3cr3t@$H1/"
one_line_exit 2
[[ $ERR_LINE == *"':' in the user name"* ]] || want "colon in user: $ERR_LINE"
no_secret "$ERR"
shb -n 1 -u "" "http://$H1/"
one_line_exit 2
shb -n 1 --netrc-file "$T/none" "http://$H1/"
one_line_exit 2
[[ $ERR_LINE == *"--netrc-file"*"cannot read"* ]] || want "missing netrc: $ERR_LINE"
printf 'machine 127.0.0.1 login %s password\n' "$USER_NAME" >"$T/netrc-bad"
shb -n 1 --netrc-file "$T/netrc-bad" "http://$H1/"
one_line_exit 2
[[ $ERR_LINE == *"line 1"*"'password' has no value"* ]] || want "broken netrc: $ERR_LINE"
finish

[ "$FAILS" -eq 0 ]
