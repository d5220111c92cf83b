/* manpage.c — shb(1) in man(7) markup, from cli.c's tables.
 *
 * OPTIONS and the subcommands come from cli_option() and cli_subcommand(),
 * the same entries -h prints, so the page cannot miss a flag. The prose
 * around them (description, output, exit status, errors, examples) is
 * written here, as h2load's page has it. Only scripts/mkman.c links this
 * file: the shb binary carries no man page. */
#include "cli/manpage.h"

#include <stdbool.h>
#include <string.h>

#include "cli/cli.h"
#include "stats/stats.h"

/* Text for a man(7) line: a backslash is \e, every '-' is \- (a minus:
 * options stay copy-pastable, not typeset as hyphens), and a leading '.'
 * or '\'' is guarded by \& so it is not read as a request. */
static void put_roff(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

/* The tag line of one option: \fB\-c\fR, \fB\-\-connections\fR \fICONNECTIONS\fR. */
static void put_option_tag(FILE *f, const struct cli_option *op)
{
    if (op->short_name)
        fprintf(f, "\\fB\\-%c\\fR, ", op->short_name);
    fputs("\\fB\\-\\-", f);
    put_roff(f, op->long_name);
    fputs("\\fR", f);
    if (op->value_name) {
        fputs(" \\fI", f);
        put_roff(f, op->value_name);
        fputs("\\fR", f);
    }
    fputc('\n', f);
}

static void put_option(FILE *f, const struct cli_option *op)
{
    fputs(".TP\n", f);
    put_option_tag(f, op);
    put_roff(f, op->help);
    size_t n = strlen(op->help);
    if (n && !strchr(".!?", op->help[n - 1]))
        fputc('.', f);
    fputc('\n', f);
    if (op->default_cores)
        fputs("Default: the number of physical cores.\n", f);
    else if (op->default_text) {
        fputs("Default: ", f);
        put_roff(f, op->default_text);
        fputs(".\n", f);
    }
}

/* A .TP item: a bold tag line, then its paragraph (both plain text). */
static void put_item(FILE *f, const char *tag, const char *text)
{
    fputs(".TP\n.B ", f);
    put_roff(f, tag);
    fputc('\n', f);
    put_roff(f, text);
    fputc('\n', f);
}

/* OUTPUT: the text report's lines in the order they come, then JSON. */
static const char *const output_lines[][2] = {
    {"URL:, Protocol:", "The target, and HTTP/1.1, HTTP/2 or HTTP/3."},
    {"TLS:",
     "For https:// and HTTP/3: the version, cipher suite, key-exchange group and ALPN protocol the first completed "
     "handshake settled on, and (TLS 1.2 fallback) when BearSSL's TLS 1.2 engine ran it."},
    {"Threads:, Connections:",
     "Worker threads, and the connections allowed (-c, or fewer when -n needs fewer); with --shard a Shard: line "
     "follows, and in a report from shb merge a Merged: line saying which reports went in."},
    {"Requests:",
     "Requests that ended in the measured window: ok (a complete response of any status) and errors, of which "
     "connect errors (the request never went out), and the window's length (after --warmup)."},
    {"Requests/sec:", "Requests (ok and errors) per second of the window."},
    {"In flight:", "Requests neither answered nor failed when a -z run or Ctrl-C ended the run; counted apart."},
    {"Interrupted:", "When SIGINT or SIGTERM stopped the run before its end: the figures cover the run until then."},
    {"Warm-up:", "With --warmup: its length and what it left out of every other figure."},
    {"Rate:, Schedule lag:, Client:",
     "With -q: the rate asked and achieved; how late requests left their schedule (p50, p99, max) and how many "
     "due requests were never sent; a Client: line when shb's own busiest thread was the bottleneck."},
    {"Transfer:", "Bytes received and sent on the wire (TLS records, QUIC packets), in MiB per second and in all."},
    {"Status codes:, Non-2xx responses:",
     "Responses by status code, and how many had a status outside 200-299 (only when some had)."},
    {"Errors:, Hint:",
     "Errors by kind (see ERRORS), each with the first message seen for it; only when there were errors. A Hint: "
     "line follows when that message names a likely mistake (a TLS URL for a plain-HTTP port, --http2 for an "
     "HTTP/1.1-only port, HTTP/1.1 for an h2c-only port)."},
    {"TLS alerts:", "The TLS alerts that ended connections, sent or received, by name."},
    {"Latency (ms):, Latency distribution:",
     "Min, mean and max, and the 10th to 99.99th percentiles, of each response's latency: from the request's first "
     "byte handed to the kernel (with -q, from when it was due) to the response's last byte. Values are within "
     "0.1 %. \"Latency: no responses\" when nothing answered."},
    {"Service time",
     "With -q: the same, from when each request actually left (what a closed-model tool reports)."},
    {"Phases (ms):",
     "Count, p50, p90, p99 and max of each phase that occurred: TCP connect, TLS handshake, QUIC handshake, and "
     "each response's first byte."},
    {"QUIC:", "HTTP/3: packets sent, received and lost, probe timeouts, handshake round trips, key updates, "
              "GOAWAYs and connection closes."},
    {"Timeline:",
     "Requests per second over the window: one mark a second up to 60 s, beyond that 60 marks of neighbouring "
     "seconds (\"1-2 s a mark\"), with the lowest and highest second; runs under two seconds have none."},
};

/* ERRORS: every error kind, in the report's order, worded for users. */
static const char *const error_kinds[ERR_KINDS][2] = {
    [ERR_CONNECT] = {"connect", "connect() failed (refused, unreachable) or no socket could be made."},
    [ERR_CONNECT_TIMEOUT] = {"connect timeout",
                             "--connect-timeout passed before the TCP connect and the TLS (or QUIC) handshake "
                             "finished."},
    [ERR_TLS_HANDSHAKE] = {"tls handshake",
                           "The TLS handshake failed: an alert (named under TLS alerts:), a bad Finished, plain text "
                           "or garbage instead of TLS, the server closing mid-handshake."},
    [ERR_NO_PORT] = {"no local port",
                     "No free local port for the destination (EADDRNOTAVAIL): widen "
                     "net.ipv4.ip_local_port_range or add source addresses with --bind."},
    [ERR_PROXY] = {"proxy",
                   "The proxy (-x) refused the CONNECT tunnel (its status and reason are named, e.g. 407 Proxy "
                   "Authentication Required), closed before answering, or did not answer in HTTP/1.x."},
    [ERR_RESET] = {"reset", "The connection failed under the request: a TCP reset, a failed send, a QUIC stateless "
                            "reset."},
    [ERR_CLOSED] = {"closed",
                    "The server closed the connection cleanly with the response cut short, or before any of it on "
                    "a fresh connection. (A close before the next response on a reused connection is the "
                    "keep-alive race: the request is sent again, not counted.)"},
    [ERR_PROTOCOL] = {"protocol",
                      "A response that breaks its protocol: a bad status line, length or chunk, an HTTP/1.1 head "
                      "over 1 MiB, a malformed HTTP/2 or HTTP/3 response, a connection-level protocol or "
                      "compression error."},
    [ERR_TLS] = {"tls", "TLS failed after the handshake: a record that does not decrypt or is too large, an "
                        "unexpected message, a fatal alert from the server."},
    [ERR_TIMEOUT] = {"timeout", "--timeout passed without a complete response (HTTP/3: also the idle timeout)."},
    [ERR_STREAM_RESET] = {"stream reset", "HTTP/2 and HTTP/3: the server reset the request's stream."},
    [ERR_REFUSED] = {"refused",
                     "HTTP/2 and HTTP/3: the server refused the request (GOAWAY, REFUSED_STREAM, "
                     "H3_REQUEST_REJECTED, no stream allowed) more often than shb sends it again."},
};

static void put_synopsis(FILE *f, const char *name, const char *args)
{
    fputs(".SY shb\n", f);
    if (name) {
        fputs(".B ", f);
        put_roff(f, name);
        fputc('\n', f);
    }
    put_roff(f, args);
    fputs("\n.YS\n", f);
}

void manpage_write(FILE *f, const char *version, const char *date)
{
    const struct cli_option *op;
    const struct cli_subcommand *sc;

    fputs(".\\\" shb(1): written by scripts/mkman.c from cli.c's option table; do not edit.\n"
          ".TH SHB 1 \"",
          f);
    put_roff(f, date);
    fputs("\" \"shb ", f);
    put_roff(f, version);
    fputs("\" \"User Commands\"\n"
          ".nh\n" /* no hyphens inside flags and URLs */
          ".SH NAME\n"
          "shb \\- ",
          f);
    put_roff(f, CLI_SUMMARY);
    fputs("\n.SH SYNOPSIS\n", f);
    put_synopsis(f, NULL, "[OPTIONS] URL...");
    for (size_t i = 0; (sc = cli_subcommand(i)); i++)
        put_synopsis(f, sc->name, sc->synopsis);

    fputs(".SH DESCRIPTION\n"
          ".B shb\n"
          "loads an HTTP server and reports how it answered: requests and errors by kind,\n"
          "status codes, transfer, requests per second and the latency distribution.\n"
          "It speaks HTTP/1.1 and HTTP/2 in cleartext or over its own TLS client, and\n"
          "HTTP/3 over its own QUIC, on io_uring; it is one static binary that needs\n"
          "nothing at run time but Linux 6.0 or newer.\n"
          ".PP\n"
          "By default it sends 200 requests over 50 connections and prints a text report\n"
          "on standard output; \\fB\\-j\\fR prints the same report as JSON.\n"
          "\\fB\\-z\\fR runs for a duration instead of a count; \\fB\\-q\\fR sends requests\n"
          "on a fixed schedule (the open model), so that latency counts from when each\n"
          "request was due.\n"
          "\\fB\\-\\-shard\\fR and \\fB\\-\\-start\\-at\\fR split one run over many\n"
          "processes or machines, and \\fBshb merge\\fR adds their reports up.\n"
          "While a run goes, a live view is drawn on standard error when it is a terminal.\n"
          "The first Ctrl\\-C stops the run and prints the report of what was done;\n"
          "a second exits at once.\n"
          ".TP\n"
          ".I URL\n",
          f);
    put_roff(f, CLI_URL_HELP);
    fputs(".\n"
          ".SH OPTIONS\n"
          "Options take their value as the next argument, or after \\fB=\\fR for the long\n"
          "form (\\fB\\-\\-rate=2000\\fR), or attached to the short form (\\fB\\-c10\\fR).\n"
          "Durations are written like \\fB10s\\fR, \\fB1m30s\\fR, \\fB500ms\\fR or \\fB2h\\fR.\n",
          f);
    for (size_t i = 0; (op = cli_option(i)); i++)
        put_option(f, op);

    fputs(".SH COMMANDS\n", f);
    for (size_t i = 0; (sc = cli_subcommand(i)); i++) {
        fputs(".TP\n\\fBshb ", f);
        put_roff(f, sc->name);
        fputs("\\fR ", f);
        put_roff(f, sc->synopsis);
        fputc('\n', f);
        put_roff(f, sc->help);
        fputc('\n', f);
        if (sc->noptions) {
            fputs(".RS\n", f);
            for (size_t k = 0; k < sc->noptions; k++)
                put_option(f, &sc->options[k]);
            fputs(".RE\n", f);
        }
    }

    fputs(".SH OUTPUT\n"
          "The report goes to standard output when the run ends; standard error holds only the live view "
          "(on a terminal) and error lines. The text report has these lines, each only when it applies:\n",
          f);
    for (size_t i = 0; i < sizeof output_lines / sizeof output_lines[0]; i++)
        put_item(f, output_lines[i][0], output_lines[i][1]);
    fputs(".PP\n"
          "With \\fB\\-j\\fR the same report is one JSON object (with several targets, one array of them): "
          "latencies in seconds, every histogram also whole in HdrHistogram's base64 encoding (the "
          "\\fBhistogram\\fR keys, which \\fBshb merge\\fR adds up), \\fBstartTime\\fR and "
          "\\fBendTime\\fR in Unix seconds, and a \\fBtimeline\\fR array of one entry a second.\n"
          ".SH ERRORS\n"
          "Every request ends as exactly one of: a response (any status code), an error of one of these kinds, "
          "or in flight when the run ended. The first four are connect errors. No server can make a run hang: "
          "every wait is bounded by \\fB\\-\\-connect\\-timeout\\fR or \\fB\\-\\-timeout\\fR.\n",
          f);
    for (size_t k = 0; k < ERR_KINDS; k++)
        put_item(f, error_kinds[k][0], error_kinds[k][1]);

    fputs(".SH EXIT STATUS\n"
          ".TP\n"
          ".B 0\n"
          "A report was printed and some request got a response (the report counts the errors), or SIGINT (Ctrl\\-C) "
          "or SIGTERM stopped the run early (the report says \\(lqInterrupted\\(rq); with \\fB\\-\\-fail\\-if\\fR, "
          "every threshold held.\n"
          ".TP\n"
          ".B 1\n"
          "No request got a response (a line on standard error says why; the report is printed), or shb itself could "
          "not run: io_uring unavailable, a kernel older than 6.0, out of memory.\n"
          ".TP\n"
          ".B 2\n"
          "Bad input: one line on standard error, and no request was sent.\n"
          ".TP\n"
          ".B 3\n"
          "A \\fB\\-\\-fail\\-if\\fR threshold failed: the report's \\(lqThresholds:\\(rq block says which. "
          "With \\fB\\-\\-fail\\-if\\fR given, the thresholds alone decide between 0 and 3.\n"
          ".TP\n"
          ".B 130, 143\n"
          "SIGINT (130) or SIGTERM (143) ended shb without a report: a further signal a second or more after the "
          "first (signals within a second of it are the same request to stop), or one during the wait for "
          "\\fB\\-\\-start\\-at\\fR.\n"
          ".SH EXAMPLES\n"
          "200 requests over 50 connections:\n"
          ".PP\n"
          ".RS\n"
          ".EX\n"
          "shb http://127.0.0.1:8080/\n"
          ".EE\n"
          ".RE\n"
          ".PP\n"
          "30 seconds over 100 connections, the first 5 seconds left out of the report:\n"
          ".PP\n"
          ".RS\n"
          ".EX\n"
          "shb \\-z 30s \\-\\-warmup 5s \\-c 100 http://127.0.0.1:8080/\n"
          ".EE\n"
          ".RE\n"
          ".PP\n"
          "HTTP/2 over TLS, 32 streams on each of 16 connections, a JSON body from a file:\n"
          ".PP\n"
          ".RS\n"
          ".EX\n"
          "shb \\-\\-http2 \\-p 32 \\-c 16 \\-H \\(aqContent\\-Type: application/json\\(aq \\e\n"
          "    \\-d @body.json https://example.test/api\n"
          ".EE\n"
          ".RE\n"
          ".PP\n"
          "20,000 requests a second in total, latency from when each was due:\n"
          ".PP\n"
          ".RS\n"
          ".EX\n"
          "shb \\-q 20000 \\-z 30s \\-c 200 http://127.0.0.1:8080/\n"
          ".EE\n"
          ".RE\n"
          ".PP\n"
          "Four shards started together, then one report from their four:\n"
          ".PP\n"
          ".RS\n"
          ".EX\n"
          "at=$(( $(date +%s) + 5 ))\n"
          "for i in 0 1 2 3; do\n"
          "    shb \\-\\-shard $i/4 \\-\\-start\\-at $at \\-z 30s \\-c 200 \\-j \\e\n"
          "        http://10.0.0.5/ > shard\\-$i.json &\n"
          "done; wait\n"
          "shb merge shard\\-*.json\n"
          ".EE\n"
          ".RE\n"
          ".PP\n"
          "Completion for the running bash:\n"
          ".PP\n"
          ".RS\n"
          ".EX\n"
          "source <(shb completions bash)\n"
          ".EE\n"
          ".RE\n"
          ".SH SEE ALSO\n"
          ".BR wrk (1),\n"
          ".BR h2load (1),\n"
          ".BR curl (1).\n"
          ".PP\n"
          "The docs directory of shb's source has the details: docs/usage.md (every flag),\n"
          "docs/output.md (every line and JSON key), docs/errors.md (error kinds, limits),\n"
          "docs/latency.md (how latency is measured) and docs/shards.md (Kubernetes, Slurm\n"
          "and parallel\\-ssh).\n",
          f);
}
