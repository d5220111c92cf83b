/* test/unit/unit_report.c — the text and JSON reports, rendered into memory and
 * compared with the spec's "Output" samples, plus a strict JSON syntax check. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/hdr.h"
#include "report/report.h"
#include "stats/stats.h"
#include "t.h"

typedef void report_fn(FILE *, const struct report_info *, const struct stats *);

/* The whole report as a NUL-terminated string (caller frees). */
static char *render(report_fn *fn, const struct report_info *ri, const struct stats *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fn(f, ri, s);
    fclose(f);
    return buf;
}

/* ---- a strict JSON syntax checker (RFC 8259 grammar) ------------------- */

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
        (*p)++;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int parse_string(const char **p)
{
    if (**p != '"')
        return 0;
    (*p)++;
    for (;;) {
        unsigned char c = (unsigned char)**p;
        if (c == '"') {
            (*p)++;
            return 1;
        }
        if (c < 0x20) /* includes the terminating NUL */
            return 0;
        (*p)++;
        if (c != '\\')
            continue;
        c = (unsigned char)**p;
        if (c == 'u') {
            for (int i = 1; i <= 4; i++)
                if (!is_hex((*p)[i]))
                    return 0;
            *p += 5;
        } else if (c && strchr("\"\\/bfnrt", c)) {
            (*p)++;
        } else {
            return 0;
        }
    }
}

static int parse_digits(const char **p)
{
    if (!is_digit(**p))
        return 0;
    while (is_digit(**p))
        (*p)++;
    return 1;
}

static int parse_number(const char **p)
{
    if (**p == '-')
        (*p)++;
    if (**p == '0')
        (*p)++;
    else if (!parse_digits(p))
        return 0;
    if (**p == '.') {
        (*p)++;
        if (!parse_digits(p))
            return 0;
    }
    if (**p == 'e' || **p == 'E') {
        (*p)++;
        if (**p == '+' || **p == '-')
            (*p)++;
        if (!parse_digits(p))
            return 0;
    }
    return 1;
}

static int parse_value(const char **p, int depth);

/* Members of an object or elements of an array, after the opening bracket. */
static int parse_container(const char **p, int depth, char close, int is_object)
{
    skip_ws(p);
    if (**p == close) {
        (*p)++;
        return 1;
    }
    for (;;) {
        skip_ws(p);
        if (is_object) {
            if (!parse_string(p))
                return 0;
            skip_ws(p);
            if (**p != ':')
                return 0;
            (*p)++;
        }
        if (!parse_value(p, depth + 1))
            return 0;
        skip_ws(p);
        if (**p == close) {
            (*p)++;
            return 1;
        }
        if (**p != ',')
            return 0;
        (*p)++;
    }
}

static int parse_literal(const char **p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*p, word, n) != 0)
        return 0;
    *p += n;
    return 1;
}

static int parse_value(const char **p, int depth)
{
    if (depth > 64)
        return 0;
    skip_ws(p);
    switch (**p) {
    case '{': (*p)++; return parse_container(p, depth, '}', 1);
    case '[': (*p)++; return parse_container(p, depth, ']', 0);
    case '"': return parse_string(p);
    case 't': return parse_literal(p, "true");
    case 'f': return parse_literal(p, "false");
    case 'n': return parse_literal(p, "null");
    default: return parse_number(p);
    }
}

static int json_valid(const char *s)
{
    if (!s)
        return 0;
    const char *p = s;
    if (!parse_value(&p, 0))
        return 0;
    skip_ws(&p);
    return *p == '\0';
}

static void check_json_checker(void)
{
    static const char *good[] = {"{}", "[]", "0", "-0.5e+3", "{\"a\": [1, \"x\\u00e9\", null]}",
                                 " {\"a\":{\"b\":true}} "};
    static const char *bad[] = {"", "{", "{\"a\":}", "{\"a\":1,}", "[1,]", "nan", "inf", "01",
                                "1.", "\"a\tb\"", "\"\\x\"", "{\"a\" 1}", "{} {}", "-"};
    int ok = 1;
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        ok &= T_QUIET("json checker accepts", json_valid(good[i]), "%s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ok &= T_QUIET("json checker rejects", !json_valid(bad[i]), "%s", bad[i]);
    T_CHECK("the test's JSON checker is strict", ok, "see above");
}

/* ---- fixtures ---------------------------------------------------------- */

/* 10000 latency samples whose spec percentiles (ranks 1000, 2500, ... 9999)
 * land on the given values, with min as the first sample and max the last. */
static void record_percentile_bands(struct hist *h, uint64_t min, const uint64_t at[9], uint64_t max)
{
    static const unsigned band_end[9] = {1000, 2500, 5000, 7500, 9000, 9500, 9900, 9990, 9999};
    unsigned rank = 1;
    hist_record(h, min);
    for (int b = 0; b < 9; b++)
        for (; rank < band_end[b]; rank++)
            hist_record(h, at[b]);
    hist_record(h, max); /* rank 10000 */
}

/* The run in the spec's text sample. The duration is the one its figures
 * imply (1070162 / 351271.9 s and 53.93 MB/s both hold for 3.0465345 s). */
static void spec_text_run(struct report_info *ri, struct stats *s)
{
    static const uint64_t at[9] = {70000, 93000, 123000, 162000, 222000,
                                   278000, 453000, 845000, 1452000};
    *ri = (struct report_info){"http://127.0.0.1:3010/", "HTTP/1.1", 16, 50, 3046534500u, 0, NULL, 0, 0, 0, 1, NULL, NULL, false, NULL, false, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL};
    s->ok = 1070162;
    s->status[200] = 1070162;
    s->bytes_recv = 172296082;
    s->bytes_sent = 42807640;
    record_percentile_bands(&s->latency, 16000, at, 5448000);
    s->latency.sum = 140000.0 * (double)s->latency.count; /* mean 0.140 ms */
}

static const char spec_text[] =
    "URL:          http://127.0.0.1:3010/\n"
    "Protocol:     HTTP/1.1\n"
    "Threads:      16\n"
    "Connections:  50\n"
    "Requests:     1070162 (1070162 ok, 0 errors, of which 0 connect) in 3.047s\n"
    "Requests/sec: 351271.9\n"
    "Transfer:     recv 53.93 MB/s (172296082 bytes), sent 13.40 MB/s (42807640 bytes)\n"
    "Status codes:\n"
    "  [200] 1070162\n"
    "Latency (ms):\n"
    "  min 0.016  mean 0.140  max 5.448\n"
    "Latency distribution:\n"
    "  10% in 0.070 ms\n"
    "  25% in 0.093 ms\n"
    "  50% in 0.123 ms\n"
    "  75% in 0.162 ms\n"
    "  90% in 0.222 ms\n"
    "  95% in 0.278 ms\n"
    "  99% in 0.453 ms\n"
    "  99.9% in 0.845 ms\n"
    "  99.99% in 1.452 ms\n";

/* The run in the spec's JSON sample. */
static const double spec_json_mean = 0.0001767384621343287;
static const uint64_t spec_json_at[9] = {103381, 118051, 152571, 211807, 294087,
                                         340413, 424934, 617066, 876762};
static void spec_json_run(struct report_info *ri, struct stats *s)
{
    *ri = (struct report_info){"http://127.0.0.1:3010/", "HTTP/2", 8, 8, 2002848834u, 0, NULL, 0, 0, 0, 1, NULL, NULL, false, NULL, true, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL};
    s->ok = 722541;
    s->status[200] = 722541;
    s->bytes_recv = 57803854;
    s->bytes_sent = 20233272;
    record_percentile_bands(&s->latency, 30961, spec_json_at, 4210834);
    s->latency.sum = spec_json_mean * 1e9 * (double)s->latency.count;
}

/* A run with errors and several status codes, given out of order. */
static void mixed_run(struct report_info *ri, struct stats *s)
{
    *ri = (struct report_info){"http://example.test/x", "HTTP/1.1", 2, 4, 1500000000u, 0, NULL, 0, 0, 0, 1, NULL, NULL, false, NULL, false, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL};
    s->status[503] = 1;
    s->status[200] = 5;
    s->status[404] = 2;
    s->ok = 8;
    s->errors[ERR_CONNECT] = 4;
    s->errors[ERR_CONNECT_TIMEOUT] = 3;
    s->errors[ERR_RESET] = 2;
    stats_why(s, ERR_CONNECT, "Connection refused", NULL, false);
    stats_why(s, ERR_CONNECT_TIMEOUT, "no connection within ", "5s", false);
    s->bytes_recv = 3 * 1048576;
    s->bytes_sent = 1048576;
    for (uint64_t v = 1000000; v <= 8000000; v += 1000000)
        hist_record(&s->latency, v);
}

/* ---- text -------------------------------------------------------------- */

static void check_text_spec_sample(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    spec_text_run(&ri, &s);
    char *out = render(report_text, &ri, &s);
    T_CHECK("text: the spec's sample, byte for byte", out && strcmp(out, spec_text) == 0,
            "got:\n%s", out ? out : "(null)");
    free(out);
    stats_free(&s);
}

static void check_text_errors_and_codes(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    char *out = render(report_text, &ri, &s);
    if (!out)
        return;
    T_CHECK("text: header lines",
            strstr(out, "URL:          http://example.test/x\nProtocol:     HTTP/1.1\n"
                        "Threads:      2\nConnections:  4\n") == out,
            "got:\n%s", out);
    T_CHECK("text: Requests line counts errors into the total",
            strstr(out, "\nRequests:     17 (8 ok, 9 errors, of which 7 connect) in 1.500s\n"
                        "Requests/sec: 11.3\n") != NULL,
            "got:\n%s", out);
    T_CHECK("text: Transfer line in MiB/s",
            strstr(out, "\nTransfer:     recv 2.00 MB/s (3145728 bytes), sent 0.67 MB/s "
                        "(1048576 bytes)\n") != NULL,
            "got:\n%s", out);
    T_CHECK("text: status codes ascending, then the Errors block, then latency",
            strstr(out, "\nStatus codes:\n  [200] 5\n  [404] 2\n  [503] 1\nNon-2xx responses: 3\n"
                        "Errors:\n  [connect] 4: Connection refused\n  [connect timeout] 3: no connection within 5s\n"
                        "  [reset] 2\nLatency (ms):\n") != NULL,
            "got:\n%s", out);
    /* Percentiles are bucket tops: 4 ms reads 4001791 ns, under 0.1% high. */
    T_CHECK("text: latency of 1..8 ms", strstr(out, "  min 1.000  mean 4.500  max 8.000\n") &&
                                            strstr(out, "  50% in 4.002 ms\n") &&
                                            strstr(out, "  99.99% in 8.000 ms\n"),
            "got:\n%s", out);
    free(out);
    stats_free(&s);
}

static void check_text_no_errors_block(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    spec_text_run(&ri, &s);
    char *out = render(report_text, &ri, &s);
    T_CHECK("text: no Errors block without errors", out && !strstr(out, "Errors:"), "present");
    free(out);
    stats_free(&s);
}

static void check_text_empty_run(void)
{
    struct report_info ri = {"http://h/", "HTTP/3", 1, 1, 0, 0, NULL, 0, 0, 0, 1, NULL, NULL, false, NULL, false, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL};
    struct stats s;
    if (stats_init(&s))
        return;
    char *out = render(report_text, &ri, &s);
    if (!out)
        return;
    T_CHECK("text: empty run has zeros, not NaN, and no latency table",
            strstr(out, "Requests:     0 (0 ok, 0 errors, of which 0 connect) in 0.000s\n"
                        "Requests/sec: 0.0\n"
                        "Transfer:     recv 0.00 MB/s (0 bytes), sent 0.00 MB/s (0 bytes)\n"
                        "Status codes:\nLatency:      no responses\n") &&
                !strstr(out, "Latency (ms)") && !strstr(out, "% in ") && !strstr(out, "Non-2xx") &&
                !strstr(out, "nan") && !strstr(out, "inf"),
            "got:\n%s", out);
    free(out);

    s.errors[ERR_CONNECT_TIMEOUT] = 50; /* nothing connected at all */
    ri.duration_ns = 5000000000u;
    out = render(report_text, &ri, &s);
    T_CHECK("text: all-errors run", out && strstr(out, "(0 ok, 50 errors, of which 50 connect)") &&
                                        strstr(out, "Errors:\n  [connect timeout] 50\n") &&
                                        strstr(out, "Latency:      no responses\n") && !strstr(out, "min 0.000"),
            "got:\n%s", out ? out : "(null)");
    free(out);
    stats_free(&s);
}

/* ---- JSON -------------------------------------------------------------- */

/* Each key appears, after the one before it. */
static int keys_in_order(const char *json, const char *const *keys, size_t n, const char **missing)
{
    const char *at = json;
    for (size_t i = 0; i < n; i++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "\"%s\":", keys[i]);
        at = strstr(at, quoted);
        if (!at) {
            *missing = keys[i];
            return 0;
        }
        at += strlen(quoted);
    }
    return 1;
}

/* The number after "key": in json, or -1 when absent. */
static double json_number(const char *json, const char *key)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\": ", key);
    const char *at = strstr(json, quoted);
    return at ? strtod(at + strlen(quoted), NULL) : -1;
}

static double rel_diff(double a, double b)
{
    double d = a > b ? a - b : b - a;
    return b == 0 ? d : d / (b < 0 ? -b : b);
}

static int ends_with(const char *text, const char *tail)
{
    size_t n = strlen(text), t = strlen(tail);
    return n >= t && strcmp(text + n - t, tail) == 0;
}

static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *at = strstr(text, line); at; at = strstr(at + 1, line))
        if ((at == text || at[-1] == '\n') && at[n] == '\n')
            return 1;
    return 0;
}

static void check_json_spec_sample(void)
{
    /* Every line of the spec's sample that this input reproduces exactly;
     * requestsPerSec (the spec's 360757.1 is not 722541 / 2.002848834 s)
     * and the bucketed percentiles are checked numerically below. Rates
     * are to 0.1 and seconds to the nanosecond (issue 22), where the spec's
     * sample printed every digit of a double. */
    static const char *const lines[] = {
        "{",
        "  \"url\": \"http://127.0.0.1:3010/\",",
        "  \"protocol\": \"HTTP/2\",",
        "  \"threads\": 8,",
        "  \"connections\": 8,",
        "  \"durationSeconds\": 2.002848834,",
        "  \"requests\": { \"total\": 722541, \"ok\": 722541, \"errors\": 0, \"connectErrors\": 0, \"non2xx\": 0 },",
        "  \"bytesReceived\": 57803854,",
        "  \"bytesReceivedPerSec\": 28860817.2,",
        "  \"bytesSent\": 20233272,",
        "  \"bytesSentPerSec\": 10102246.2,",
        "  \"statusCodes\": { \"200\": 722541 },",
        "  \"errorKinds\": {},",
        "  \"errorDetails\": {},",
        "  \"latencySeconds\": {",
        "    \"min\": 0.000030961,",
        "    \"mean\": 0.000176738,",
        "    \"max\": 0.004210834,",
        "    \"percentiles\": {",
        "    },",
        "  }",
        "}",
    };
    static const char *const pkeys[9] = {"p10", "p25", "p50", "p75", "p90",
                                         "p95", "p99", "p99.9", "p99.99"};
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    spec_json_run(&ri, &s);
    char *out = render(report_json, &ri, &s);
    if (!out)
        return;
    T_CHECK("json: the spec's sample is valid JSON", json_valid(out), "got:\n%s", out);
    int ok = 1;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        ok &= T_QUIET("json: spec line", has_line(out, lines[i]), "missing %s", lines[i]);
    T_CHECK("json: lines of the spec's sample", ok, "got:\n%s", out);

    double rps = json_number(out, "requestsPerSec");
    T_CHECK("json: requestsPerSec = total / duration, to 0.1", has_line(out, "  \"requestsPerSec\": 360756.6,") &&
            fabs(rps - 722541 / 2.002848834) <= 0.05, "%.17g", rps);
    ok = 1;
    for (int i = 0; i < 9; i++) {
        double got = json_number(out, pkeys[i]), want = (double)spec_json_at[i] / 1e9;
        ok &= T_QUIET("json: percentile", got >= want && rel_diff(got, want) < 1e-3,
                      "%s %.9f vs %.9f", pkeys[i], got, want);
    }
    T_CHECK("json: percentiles in seconds, within 0.1% of the spec's", ok, "got:\n%s", out);
    T_CHECK("json: percentiles three to a line like the spec",
            strstr(out, "\"percentiles\": {\n      \"p10\": 0.000103423, \"p25\": ") != NULL,
            "got:\n%s", out);
    /* The histogram after them is the latency's, every bucket (hdr.h). */
    const char *h = strstr(out, "\"percentiles\": {");
    h = h ? strstr(h, "},\n    \"histogram\": \"") : NULL;
    struct hist back;
    char err[160] = "";
    int same = 0;
    if (h && hist_init(&back) == 0) {
        h += strlen("},\n    \"histogram\": \"");
        const char *end = strchr(h, '"');
        same = end && hdr_decode_base64_add(h, (size_t)(end - h), &back, err, sizeof err) == 0 &&
               back.count == s.latency.count &&
               memcmp(back.counts, s.latency.counts, HIST_BUCKETS * sizeof *back.counts) == 0;
        hist_free(&back);
    }
    T_CHECK("json: latencySeconds.histogram decodes to the latency histogram, bucket for bucket", same,
            "%s\n%s", err, out);
    free(out);
    stats_free(&s);
}

static void check_json_key_order(void)
{
    static const char *const keys[] = {
        "url", "protocol", "threads", "connections", "durationSeconds", "requests", "total",
        "ok", "errors", "connectErrors", "requestsPerSec", "bytesReceived", "bytesReceivedPerSec",
        "bytesSent", "bytesSentPerSec", "statusCodes", "200", "404", "503", "errorKinds",
        "connect", "connect timeout", "reset", "latencySeconds", "min", "mean", "max",
        "percentiles", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.9", "p99.99"};
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    char *out = render(report_json, &ri, &s);
    if (!out)
        return;
    const char *missing = "";
    T_CHECK("json: valid with errors", json_valid(out), "got:\n%s", out);
    T_CHECK("json: keys in the spec's order, errorKinds before latencySeconds",
            keys_in_order(out, keys, sizeof keys / sizeof *keys, &missing), "'%s' out of order:\n%s",
            missing, out);
    T_CHECK("json: requests with errors",
            strstr(out, "\"requests\": { \"total\": 17, \"ok\": 8, \"errors\": 9, "
                        "\"connectErrors\": 7, \"non2xx\": 3 },") != NULL,
            "got:\n%s", out);
    T_CHECK("json: statusCodes ascending",
            strstr(out, "\"statusCodes\": { \"200\": 5, \"404\": 2, \"503\": 1 },") != NULL,
            "got:\n%s", out);
    T_CHECK("json: errorKinds non-zero only",
            strstr(out, "\"errorKinds\": { \"connect\": 4, \"connect timeout\": 3, \"reset\": 2 },") !=
                NULL,
            "got:\n%s", out);
    T_CHECK("json: errorDetails right after errorKinds: each kind's count and first message",
            strstr(out, "\"errorKinds\": { \"connect\": 4, \"connect timeout\": 3, \"reset\": 2 },\n"
                        "  \"errorDetails\": { \"connect\": { \"count\": 4, \"first\": \"Connection refused\" }, "
                        "\"connect timeout\": { \"count\": 3, \"first\": \"no connection within 5s\" }, "
                        "\"reset\": { \"count\": 2, \"first\": \"\" } },\n") != NULL,
            "got:\n%s", out);
    T_CHECK("json: latencies in seconds, not ms",
            strstr(out, "\"min\": 0.001000000,") && strstr(out, "\"max\": 0.008000000,") &&
                rel_diff(json_number(out, "mean"), 0.0045) < 1e-12 &&
                strstr(out, "\"p50\": 0.004001791,"),
            "got:\n%s", out);
    free(out);
    stats_free(&s);
}

static void check_json_escaping(void)
{
    /* quote, backslash, tab, another control char, valid UTF-8 (é), a byte
     * that is not UTF-8, and a truncated sequence at the end */
    struct report_info ri = {"http://h/a\"b\\c\td\x01" "e\xc3\xa9" "f\xff" "g\xe2\x82", "HTTP/1.1",
                             1, 1, 1000000000u, 0, NULL, 0, 0, 0, 1, NULL, NULL, false, NULL, false, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL};
    struct stats s;
    if (stats_init(&s))
        return;
    char *out = render(report_json, &ri, &s);
    if (!out)
        return;
    T_CHECK("json: URL with quotes and backslashes is escaped",
            strstr(out, "\"url\": \"http://h/a\\\"b\\\\c\\td\\u0001e\xc3\xa9"
                        "f\\ufffdg\\ufffd\\ufffd\",\n") != NULL,
            "got:\n%s", out);
    T_CHECK("json: escaped document is valid", json_valid(out), "got:\n%s", out);
    free(out);

    char *text = render(report_text, &ri, &s);
    T_CHECK("text: URL printed as typed", text && strstr(text, "URL:          http://h/a\"b\\c\t"),
            "got:\n%s", text ? text : "(null)");
    free(text);
    stats_free(&s);
}

static void check_json_empty_run(void)
{
    struct report_info ri = {"http://h/", "HTTP/1.1", 1, 1, 0, 0, NULL, 0, 0, 0, 1, NULL, NULL, false, NULL, false, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL};
    struct stats s;
    if (stats_init(&s))
        return;
    char *out = render(report_json, &ri, &s);
    if (!out)
        return;
    T_CHECK("json: empty run is valid JSON", json_valid(out), "got:\n%s", out);
    T_CHECK("json: empty run has finite zeros",
            strstr(out, "\"durationSeconds\": 0.000000000,") &&
                strstr(out, "\"requestsPerSec\": 0,") && strstr(out, "\"bytesSentPerSec\": 0,") &&
                strstr(out, "\"statusCodes\": {},") && strstr(out, "\"errorKinds\": {},") &&
                strstr(out, "\"errorDetails\": {},") && strstr(out, "\"latencySeconds\": null\n") &&
                !strstr(out, "\"percentiles\""),
            "got:\n%s", out);
    free(out);

    ri.protocol = NULL; /* defensive: a missing string still makes valid JSON */
    ri.url = NULL;
    out = render(report_json, &ri, &s);
    T_CHECK("json: NULL strings print as \"\"", out && json_valid(out) && strstr(out, "\"url\": \"\","),
            "got:\n%s", out ? out : "(null)");
    free(out);
    stats_free(&s);
}

/* --connect-to / --resolve: both reports name the address connected to,
 * right after the URL; without one, neither does. */
static void check_connected_to(void)
{
    struct report_info ri = {"https://alpha.test/", "HTTP/2", 1, 1, 0, 0, NULL, 0, 0, 0, 1, NULL, NULL, false, NULL, false,
                             "[::1]:8443", "--connect-to", NULL, NULL, 0, NULL, 0, NULL};
    struct stats s;
    if (stats_init(&s))
        return;
    char *text = render(report_text, &ri, &s), *json = render(report_json, &ri, &s);
    T_CHECK("connected to: text line after the URL",
            text && strstr(text, "URL:          https://alpha.test/\nConnected to: [::1]:8443 (--connect-to)\nProtocol:"),
            "got:\n%s", text ? text : "(null)");
    T_CHECK("connected to: JSON key after url",
            json && json_valid(json) &&
                strstr(json, "\"url\": \"https://alpha.test/\",\n  \"connectedTo\": \"[::1]:8443\",\n  \"protocol\""),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);
    ri.connected_to = ri.connected_via = NULL;
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("connected to: nothing without an override", text && json && !strstr(text, "Connected to") &&
                                                              !strstr(json, "connectedTo"),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);
    stats_free(&s);
}

/* -p and the shb that made the run: in the JSON after connections and
 * interrupted, left out when not known (a merged report whose reports
 * differ); the text report has neither. */
static void check_parallel_version(void)
{
    struct report_info ri = {"https://alpha.test/", "HTTP/2", 2, 8, 0, 0, NULL, 0, 0, 0, 1, NULL, NULL, false, NULL, false,
                             NULL, NULL, NULL, NULL, 0, NULL, 32, "v2.0-3-gabc\"x"};
    struct stats s;
    if (stats_init(&s))
        return;
    char *text = render(report_text, &ri, &s), *json = render(report_json, &ri, &s);
    T_CHECK("parallel: after connections", json && json_valid(json) &&
                strstr(json, "\"connections\": 8,\n  \"parallel\": 32,\n  \"durationSeconds\""),
            "got:\n%s", json ? json : "(null)");
    T_CHECK("shbVersion: after interrupted, escaped",
            json && strstr(json, "\"interrupted\": false,\n  \"shbVersion\": \"v2.0-3-gabc\\\"x\",\n  \"requests\""),
            "got:\n%s", json ? json : "(null)");
    T_CHECK("parallel, version: not in the text report", text && !strstr(text, "32") && !strstr(text, "v2.0"),
            "got:\n%s", text ? text : "(null)");
    free(text);
    free(json);
    ri.parallel = 0;
    ri.version = NULL;
    json = render(report_json, &ri, &s);
    T_CHECK("parallel, version: left out when not known",
            json && json_valid(json) && !strstr(json, "parallel") && !strstr(json, "shbVersion"), "got:\n%s",
            json ? json : "(null)");
    free(json);
    stats_free(&s);
}

/* ---- TLS alerts ---------------------------------------------------------- */

static void check_tls_alerts(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    char *text = render(report_text, &ri, &s);
    char *json = render(report_json, &ri, &s);
    T_CHECK("alerts: no TLS alerts block or key without alerts",
            text && json && !strstr(text, "TLS alerts:") && !strstr(json, "tlsAlerts"), "present");
    free(text);
    free(json);

    s.alerts_received[40] = 3; /* handshake_failure */
    s.alerts_sent[51] = 1;     /* decrypt_error */
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    const char *blk = text ? strstr(text, "TLS alerts:\n") : NULL;
    const char *lat = text ? strstr(text, "Latency (ms):") : NULL;
    T_CHECK("alerts: text block after the errors, before latency, named and counted",
            blk && lat && blk < lat && strstr(blk, "  [received handshake_failure] 3\n") &&
                strstr(blk, "  [sent decrypt_error] 1\n") && strstr(text, "Errors:") < blk,
            "got:\n%s", text ? text : "(null)");
    const char *kinds = json ? strstr(json, "\"errorKinds\"") : NULL;
    const char *alerts = json ? strstr(json, "\"tlsAlerts\": { \"received handshake_failure\": 3, \"sent decrypt_error\": 1 },") : NULL;
    const char *latency = json ? strstr(json, "\"latencySeconds\"") : NULL;
    T_CHECK("alerts: json key after errorKinds, before latencySeconds", kinds && alerts && latency &&
                kinds < alerts && alerts < latency && json_valid(json),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);

    struct stats t;
    if (stats_init(&t) == 0) {
        t.alerts_received[40] = 2;
        stats_merge(&t, &s);
        T_CHECK("alerts: stats_merge sums them", t.alerts_received[40] == 5 && t.alerts_sent[51] == 1, "%llu",
                (unsigned long long)t.alerts_received[40]);
        stats_free(&t);
    }
    stats_free(&s);
}


/* ---- requests in flight when the run ended --------------------------------- */

static void check_in_flight(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    char *text = render(report_text, &ri, &s);
    char *json = render(report_json, &ri, &s);
    T_CHECK("in flight: no text line when none, inFlight 0 in JSON",
            text && json && !strstr(text, "In flight:") && strstr(json, "\n  \"inFlight\": 0,\n") && json_valid(json),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);

    s.in_flight = 37;
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    const char *rps = text ? strstr(text, "Requests/sec: ") : NULL;
    const char *line = text ? strstr(text, "\nIn flight:    37 (the run ended before their responses)\n") : NULL;
    const char *transfer = text ? strstr(text, "Transfer:") : NULL;
    T_CHECK("in flight: text line after Requests/sec, before Transfer",
            rps && line && transfer && rps < line && line < transfer, "got:\n%s", text ? text : "(null)");
    const char *kinds = json ? strstr(json, "\"errorKinds\"") : NULL;
    const char *inflight = json ? strstr(json, "\n  \"inFlight\": 37,\n") : NULL;
    const char *latency = json ? strstr(json, "\"latencySeconds\"") : NULL;
    s.connections_opened = 12;
    free(json);
    json = render(report_json, &ri, &s);
    inflight = json ? strstr(json, "\n  \"inFlight\": 37,\n  \"connectionsOpened\": 12,\n") : NULL;
    latency = json ? strstr(json, "\"latencySeconds\"") : NULL;
    kinds = json ? strstr(json, "\"errorKinds\"") : NULL;
    T_CHECK("in flight: json key after errorKinds, then connectionsOpened, before latencySeconds; total excludes it",
            kinds && inflight && latency && kinds < inflight && inflight < latency && json_valid(json) &&
                strstr(json, "\"total\": 17,"),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);
    stats_free(&s);
}


/* ---- --warmup: a line and a key only when it was asked for ---------------- */

static void check_warmup(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    s.warmup = (struct warmup_stats){.ok = 40, .errors = 2, .bytes_sent = 3000, .bytes_recv = 9000};
    char *text = render(report_text, &ri, &s);
    char *json = render(report_json, &ri, &s);
    T_CHECK("warmup: nothing of it without --warmup (the spec's report)",
            text && json && !strstr(text, "Warm-up") && !strstr(json, "warmup") && json_valid(json),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);

    ri.warmup_ns = 2500000000ull;
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    const char *rps = text ? strstr(text, "Requests/sec: ") : NULL;
    const char *line = text ? strstr(text, "\nWarm-up:      2.500s, not counted: 42 requests (40 ok, 2 errors), 9000 "
                                           "bytes received, 3000 sent\n")
                            : NULL;
    const char *transfer = text ? strstr(text, "Transfer:") : NULL;
    T_CHECK("warmup: text line after Requests/sec, before Transfer", rps && line && transfer && rps < line &&
            line < transfer, "got:\n%s", text ? text : "(null)");
    const char *opened = json ? strstr(json, "\"connectionsOpened\"") : NULL;
    const char *key = json ? strstr(json, "\n  \"warmup\": {\"durationSeconds\": 2.500000000, \"requests\": 42, \"ok\": "
                                          "40, \"errors\": 2, \"bytesReceived\": 9000, \"bytesSent\": 3000},\n")
                           : NULL;
    const char *latency = json ? strstr(json, "\"latencySeconds\"") : NULL;
    T_CHECK("warmup: json key after connectionsOpened, before latencySeconds; totals exclude it",
            opened && key && latency && opened < key && key < latency && json_valid(json) &&
                strstr(json, "\"total\": 17,"),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);

    struct stats t;
    if (stats_init(&t) == 0) {
        t.warmup.ok = 1;
        stats_merge(&t, &s);
        T_CHECK("warmup: stats_merge sums it", t.warmup.ok == 41 && t.warmup.errors == 2 && t.warmup.bytes_sent == 3000 &&
                t.warmup.bytes_recv == 9000, "%llu", (unsigned long long)t.warmup.ok);
        stats_free(&t);
    }
    stats_free(&s);
}

/* ---- -q: the rate, the schedule's lag and the service time ---------------- */

static void check_rate(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s); /* 1.5 s */
    ri.histograms = true;
    struct pace_rate rate = { .from = 2000, .to = 2000 };
    ri.rate = &rate;
    ri.client_busy = 0.25;
    if (stats_init_pace(&s))
        return;
    s.pace.sent = 2990;
    s.pace.late = 3;
    s.pace.unsent = 10;
    for (int i = 0; i < 97; i++)
        hist_record(&s.pace.lag, 40000);
    for (int i = 0; i < 3; i++)
        hist_record(&s.pace.lag, 2000000);
    hist_record(&s.pace.service, 100000);
    hist_record(&s.pace.service, 300000);
    char *text = render(report_text, &ri, &s);
    char *json = render(report_json, &ri, &s);
    const char *rps = text ? strstr(text, "Requests/sec: ") : NULL;
    const char *line = text ? strstr(text, "\nRate:         asked 2000.0/s, achieved 1993.3/s (2990 sent); latency "
                                           "counts from when each request was due\nSchedule lag: 3 of 100 answered requests "
                                           "were sent more than 1 ms late; p50 0.040 ms, p99 2.000 ms, max 2.000 ms; "
                                           "10 due and never sent\nTransfer:")
                            : NULL;
    const char *dist = text ? strstr(text, "Latency distribution:") : NULL;
    const char *service = text ? strstr(text, "\nService time (ms):\n  min 0.100  mean 0.200  max 0.300\n"
                                              "Service time distribution:\n  10% in 0.100 ms\n")
                               : NULL;
    T_CHECK("rate: text lines after Requests/sec, before Transfer; service time after the latency",
            rps && line && rps < line && dist && service && dist < service && !strstr(text, "Client:"),
            "got:\n%s", text ? text : "(null)");
    const char *key = json ? strstr(json, "\n  \"rate\": {\"requested\": 2000, \"achieved\": 1993.3, "
                                          "\"sent\": 2990, \"clientBusy\": 0.25, \"clientSaturated\": false},\n"
                                          "  \"scheduleLag\": {\"late\": 3, \"lateAfterSeconds\": 0.001000000, "
                                          "\"responses\": 100, \"unsent\": 10, \"p50\": 0.000040031, \"p99\": "
                                          "0.002000000, \"max\": 0.002000000, \"histogram\": \"HISTF")
                           : NULL;
    const char *latency = json ? strstr(json, "\"latencySeconds\"") : NULL;
    const char *svc = json ? strstr(json, "\"serviceTimeSeconds\": {\n    \"min\": 0.000100000,") : NULL;
    T_CHECK("rate: json keys before latencySeconds, serviceTimeSeconds after it",
            key && latency && svc && key < latency && latency < svc && json_valid(json), "got:\n%s",
            json ? json : "(null)");
    free(text);
    free(json);

    /* No response: no lag figure (zeros would claim a perfect schedule). */
    hist_free(&s.pace.lag);
    if (hist_init(&s.pace.lag))
        return;
    s.pace.late = 0;
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("rate: no responses, no lag figures",
            text && json && strstr(text, "\nSchedule lag: no responses (it is measured on answered requests); 10 due "
                                         "and never sent\n") &&
                strstr(json, "\"responses\": 0, \"unsent\": 10, \"p50\": null, \"p99\": null, \"max\": null, ") &&
                json_valid(json),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);

    /* A ramp says both ends and the mean over the report's window; a
     * saturated client says so. 2,000 sent of the 2,250 due in 1.5 s. */
    struct pace_rate ramp = { .from = 1000, .to = 3000, .ramp_ns = 3000000000ull };
    ri.rate = &ramp;
    s.pace.sent = 2000;
    ri.client_busy = 0.97;
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("rate: a ramp's text line, and the saturated client's",
            text && strstr(text, "Rate:         asked 1000.0..3000.0/s (1500.0/s over the report's window), ") &&
                strstr(text, "\nClient:       saturated: its busiest thread was on a CPU 97% of the run"),
            "got:\n%s", text ? text : "(null)");
    T_CHECK("rate: a ramp's json", json && strstr(json, "\"rate\": {\"requested\": 1500, \"achieved\": "
                                                         "1333.3, \"from\": 1000, \"to\": 3000, ") &&
                                       strstr(json, "\"clientSaturated\": true}") && json_valid(json),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);

    /* -q 100 -n 5: the run ends with the last response, 40.2 ms in, inside
     * the fifth request's 10 ms slot: 5 over the 50 ms the schedule gave
     * them, the rate asked, not 5 / 40.2 ms = 124.4/s. All sent, 2 ms late
     * at most. */
    struct pace_rate hundred = { .from = 100, .to = 100 };
    uint64_t duration = ri.duration_ns, unsent = s.pace.unsent;
    ri.rate = &hundred;
    ri.duration_ns = 40200000;
    s.pace.sent = 5;
    s.pace.unsent = 0;
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("rate: -q 100 -n 5 over 40.2 ms achieved the 100/s asked, not 124.4",
            text && strstr(text, "Rate:         asked 100.0/s, achieved 100.0/s (5 sent)") && json &&
                strstr(json, "\"rate\": {\"requested\": 100, \"achieved\": 100, "),
            "got:\n%s", text ? text : "(null)");
    free(text);
    free(json);
    /* Slow responses (the run ends 200 ms in), the requests sent on time:
     * still the rate asked (the wait for responses is not sending). */
    ri.duration_ns = 200000000;
    text = render(report_text, &ri, &s);
    T_CHECK("rate: 5 sent on time, answered by 200 ms: achieved 100/s", text && strstr(text, "achieved 100.0/s (5 sent)"),
            "got:\n%s", text ? text : "(null)");
    free(text);
    /* Sent late: the last one due at 40 ms left up to 60 ms later (the
     * largest lag): 5 over 100 ms. */
    hist_record(&s.pace.lag, 60000000);
    text = render(report_text, &ri, &s);
    T_CHECK("rate: 5 sent up to 60 ms late: achieved 50/s", text && strstr(text, "achieved 50.0/s (5 sent)"), "got:\n%s",
            text ? text : "(null)");
    free(text);
    /* Requests due and never sent: behind until the end, the window. */
    s.pace.unsent = 3;
    text = render(report_text, &ri, &s);
    T_CHECK("rate: 5 sent, 3 due never sent, over 200 ms: achieved 25/s", text && strstr(text, "achieved 25.0/s (5 sent)"),
            "got:\n%s", text ? text : "(null)");
    free(text);
    ri.duration_ns = duration;
    s.pace.unsent = unsent;

    ri.rate = NULL;
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("rate: nothing of it without -q (the spec's report)",
            text && json && !strstr(text, "Rate:") && !strstr(text, "Service time") && !strstr(json, "\"rate\"") &&
                !strstr(json, "serviceTime") && json_valid(json),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);
    stats_free(&s);
}

/* ---- the timeline: a sparkline line and a key, after the spec's ---------- */

static void check_timeline(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    ri.duration_ns = 3500000000ull;
    ri.histograms = true; /* the entries' histograms are there only with --histograms */
    static const uint64_t oks[4] = { 100, 200, 400, 50 };
    for (uint32_t i = 0; i < 4; i++) {
        tl_move_to(&s.timeline, i * 1000000000ull);
        for (uint64_t k = 0; k < oks[i]; k++)
            tl_ok(&s.timeline, 100000);
        s.timeline.e[i].bytes_recv = 1000 * (i + 1);
    }
    tl_error(&s.timeline);
    char *text = render(report_text, &ri, &s);
    char *json = render(report_json, &ri, &s);
    const char *dist = text ? strstr(text, "  99.99% in ") : NULL;
    const char *line = text ? strstr(text, "\nTimeline:     \u2583\u2585\u2588 requests/s, 1 s a mark, min 100.0, "
                                           "max 400.0\n")
                            : NULL;
    T_CHECK("timeline: a sparkline of the whole seconds, the report's last line", dist && line && dist < line &&
            line[strlen(line) - 1] == '\n' && !strchr(line + 1, '\n')[1], "got:\n%s", text ? text : "(null)");
    const char *latency = json ? strstr(json, "\"latencySeconds\"") : NULL;
    const char *key = json ? strstr(json, "\n  },\n  \"timeline\": [\n    {\"start\": 0.000000000, \"seconds\": "
                                          "1.000000000, \"ok\": 100, \"errors\": 0, \"bytesReceived\": 1000, "
                                          "\"p50\": 0.000102400, \"p99\": 0.000102400, \"histogram\": \"HISTF")
                           : NULL;
    const char *last = json ? strstr(json, "\n    {\"start\": 3.000000000, \"seconds\": 0.500000000, \"ok\": 50, "
                                           "\"errors\": 1, \"bytesReceived\": 4000, ")
                            : NULL;
    T_CHECK("timeline: json key after latencySeconds, the last entry as long as the window's rest",
            latency && key && last && latency < key && key < last && json_valid(json) && strstr(json, "}\n  ]\n}\n"),
            "got:\n%s", json ? json : "(null)");
    /* Entry 0's histogram: its 100 latencies, at their step's middle. */
    struct hist h0;
    bool decoded = false;
    if (key && hist_init(&h0) == 0) {
        const char *b64 = strstr(key, "\"histogram\": \"") + 14, *end = strchr(b64, '"');
        char why[160] = "";
        decoded = hdr_decode_base64_add(b64, (size_t)(end - b64), &h0, why, sizeof why) == 0 && h0.count == 100 &&
                  h0.counts[hist_index(102400)] == 100;
        hist_free(&h0);
    }
    T_CHECK("timeline: an entry's histogram holds its responses' latencies, at the step's middle", decoded,
            "entry 0's histogram did not decode to 100 x 102400 ns");
    free(text);
    free(json);

    ri.duration_ns = 1500000000ull; /* one whole second: no sparkline */
    text = render(report_text, &ri, &s);
    T_CHECK("timeline: no sparkline under two whole seconds", text && !strstr(text, "Timeline:"), "got:\n%s",
            text ? text : "(null)");
    free(text);

    /* 65 s: 60 marks, of 1 or 2 s (not 33 of 2 s). */
    ri.duration_ns = 65000000000ull;
    for (uint32_t i = 0; i < 65; i++) {
        tl_move_to(&s.timeline, i * 1000000000ull);
        tl_ok(&s.timeline, 100000);
    }
    text = render(report_text, &ri, &s);
    const char *tl = text ? strstr(text, "\nTimeline:     ") : NULL;
    size_t marks = 0;
    for (const char *c = tl ? tl + 15 : NULL; c && *c != ' '; c++)
        marks += ((unsigned char)*c & 0xc0) != 0x80; /* one per UTF-8 character */
    T_CHECK("timeline: 65 s in 60 marks of 1-2 s", tl && marks == 60 && strstr(tl, " requests/s, 1-2 s a mark, "),
            "%zu marks: %s", marks, tl ? tl : "(null)");
    free(text);
    stats_free(&s);
}

/* ---- phases: where the time goes ------------------------------------------ */

static void check_phases(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    ri.histograms = true;
    char *text = render(report_text, &ri, &s);
    char *json = render(report_json, &ri, &s);
    T_CHECK("phases: nothing of them when none occurred (the spec's report)",
            text && json && !strstr(text, "Phases") && !strstr(json, "phases") &&
                strstr(json, "\n    },\n    \"histogram\": \"HISTF") && ends_with(json, "\"\n  }\n}\n") &&
                json_valid(json),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);

    hist_record(&s.phases.connect, 40000);
    hist_record(&s.phases.connect, 60000);
    hist_record(&s.quic.handshake, 1500000);
    for (uint64_t v = 1000000; v <= 3000000; v += 1000000)
        hist_record(&s.phases.first_byte, v);
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("phases: text table after the latency distribution, rows of the phases that occurred, aligned",
            text && strstr(text, "  99.99% in 8.000 ms\n"
                                 "Phases (ms):          count       p50       p90       p99       max\n"
                                 "  connect                 2     0.040     0.060     0.060     0.060\n"
                                 "  quic handshake          1     1.500     1.500     1.500     1.500\n"
                                 "  first byte              3     2.001     3.000     3.000     3.000\n") &&
                !strstr(text, "tls handshake"),
            "got:\n%s", text ? text : "(null)");
    const char *latency = json ? strstr(json, "\"latencySeconds\"") : NULL;
    const char *phases = json ? strstr(json, "\n  },\n  \"phases\": {\n    \"connect\": {\n      \"count\": 2,\n"
                                             "      \"min\": 0.000040000,\n      \"mean\": 0.000050000,\n"
                                             "      \"max\": 0.000060000,\n      \"percentiles\": {\n"
                                             "        \"p10\": 0.000040031, \"p25\": 0.000040031, ")
                              : NULL;
    const char *quic = json ? strstr(json, "\n    },\n    \"quicHandshake\": {\n      \"count\": 1,\n") : NULL;
    const char *first = json ? strstr(json, "\n    },\n    \"firstByte\": {\n      \"count\": 3,\n"
                                            "      \"min\": 0.001000000,\n      \"mean\": 0.002000000,\n")
                             : NULL;
    T_CHECK("phases: json the last key, connect, quicHandshake, firstByte in order, no tlsHandshake",
            latency && phases && quic && first && latency < phases && phases < quic && quic < first &&
                strstr(first, ", \"p99.99\": 0.003000000\n      },\n      \"histogram\": \"HISTF") &&
                ends_with(json, "\"\n    }\n  }\n}\n") &&
                !strstr(json, "tlsHandshake") && json_valid(json),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);

    struct pace_rate rate = { .from = 100, .to = 100 };
    ri.rate = &rate;
    if (stats_init_pace(&s))
        return;
    hist_record(&s.pace.service, 100000);
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    const char *dist = text ? strstr(text, "Service time distribution:") : NULL;
    const char *table = text ? strstr(text, "\nPhases (ms):") : NULL;
    const char *svc = json ? strstr(json, "\"serviceTimeSeconds\"") : NULL;
    phases = json ? strstr(json, "\n  },\n  \"phases\": {\n") : NULL;
    T_CHECK("phases: with -q after the service time, in both reports",
            dist && table && dist < table && svc && phases && svc < phases && json_valid(json), "got:\n%s\n%s",
            text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);

    struct stats t;
    if (stats_init(&t) == 0) {
        hist_record(&t.phases.tls_handshake, 700000);
        hist_record(&t.phases.first_byte, 500000);
        stats_merge(&t, &s);
        T_CHECK("phases: stats_merge merges each histogram",
                t.phases.connect.count == 2 && t.phases.connect.max == 60000 && t.phases.tls_handshake.count == 1 &&
                    t.phases.first_byte.count == 4 && t.phases.first_byte.min == 500000 && t.quic.handshake.count == 1,
                "connect %llu, first byte %llu", (unsigned long long)t.phases.connect.count,
                (unsigned long long)t.phases.first_byte.count);
        stats_free(&t);
    }
    stats_free(&s);
}

/* ---- numbers a reader can read ------------------------------------------- */

/* A mean is seconds to the nanosecond like every other time (rounded, not
 * 0.0000544485 nor 5.44485e-05), and rates are to 0.1 with no trailing
 * zeros, point or "-0". */
static void check_number_places(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    hist_free(&s.latency);
    if (hist_init(&s.latency))
        return;
    hist_record(&s.latency, 54448);
    hist_record(&s.latency, 54451); /* mean 54449.5 ns */
    ri.duration_ns = 3000000000u;   /* 17 requests: 5.666... a second */
    s.bytes_recv = 3000;            /* 1000 a second exactly */
    s.bytes_sent = 1;               /* 0.333...: 0.3 */
    char *json = render(report_json, &ri, &s);
    T_CHECK("json: the mean in seconds to the nanosecond, rounded",
            json && strstr(json, "\"mean\": 0.000054450,") && json_valid(json), "got:\n%s", json ? json : "(null)");
    T_CHECK("json: rates to 0.1, no trailing zeros or point",
            json && strstr(json, "\"requestsPerSec\": 5.7,\n") && strstr(json, "\"bytesReceivedPerSec\": 1000,\n") &&
                strstr(json, "\"bytesSentPerSec\": 0.3,\n"),
            "got:\n%s", json ? json : "(null)");
    free(json);
    s.bytes_sent = 0;
    ri.duration_ns = 0; /* a zero-length run: 0, not inf, NaN or -0 */
    json = render(report_json, &ri, &s);
    T_CHECK("json: a zero-length run's rates are 0", json && strstr(json, "\"requestsPerSec\": 0,\n") &&
            json_valid(json), "got:\n%s", json ? json : "(null)");
    free(json);
    stats_free(&s);
}

/* A likely mistake said in its kind's first message is said once more as a
 * Hint: line after the Errors block; a plain message is not. */
static void check_hint(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    mixed_run(&ri, &s);
    s.errors[ERR_TLS_HANDSHAKE] = 6;
    stats_why(&s, ERR_TLS_HANDSHAKE, "the server at h:80 ", "answered in plain HTTP: is this port TLS? (try http://)",
              true);
    char *out = render(report_text, &ri, &s);
    T_CHECK("text: a hint in the error line and as one Hint: line after the Errors block",
            out && strstr(out, "  [tls handshake] 6: the server at h:80 answered in plain HTTP: is this port TLS? "
                               "(try http://)\n  [reset] 2\nHint:         the server at h:80 answered in plain HTTP: "
                               "is this port TLS? (try http://)\nLatency (ms):\n") &&
                !strstr(strstr(out, "Hint:") + 1, "Hint:"),
            "got:\n%s", out ? out : "(null)");
    free(out);
    /* The JSON marks it, for shb merge's Hint: line; a plain message not. */
    out = render(report_json, &ri, &s);
    T_CHECK("json: a hint's errorDetails member says \"hint\": true, a plain one nothing",
            out && strstr(out, "(try http://)\", \"hint\": true }") && !strstr(out, "\"reset\": { \"count\": 2, \"first\": "
                                                                                 "\"Connection reset by peer\", \"hint\"") &&
                json_valid(out),
            "got:\n%s", out ? out : "(null)");
    free(out);
    stats_free(&s);
}

/* ---- --histograms ------------------------------------------------------------ */

/* The encoded histograms are most of a report's bytes: only with
 * --histograms (or --shard), in every histogram object then. */
static void check_histograms_flag(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s) || stats_init_pace(&s))
        return;
    mixed_run(&ri, &s);
    struct pace_rate rate = { .from = 100, .to = 100 };
    ri.rate = &rate;
    hist_record(&s.pace.service, 100000);
    hist_record(&s.pace.lag, 1000);
    hist_record(&s.phases.connect, 40000);
    hist_record(&s.phases.first_byte, 40000);
    char *plain = render(report_json, &ri, &s);
    ri.histograms = true;
    char *full = render(report_json, &ri, &s);
    size_t n = 0;
    for (const char *at = full ? strstr(full, "\"histogram\": \"HISTF") : NULL; at; at = strstr(at + 1, "\"histogram\": \"HISTF"))
        n++;
    T_CHECK("histograms: none without --histograms", plain && !strstr(plain, "histogram") && json_valid(plain),
            "got:\n%s", plain ? plain : "(null)");
    T_CHECK("histograms: with it, one per histogram (latency, service time, lag, 2 phases)",
            full && n == 5 && json_valid(full), "%zu in:\n%s", n, full ? full : "(null)");
    free(plain);
    free(full);
    stats_free(&s);
}

/* ---- TLS: what the handshake settled on ----------------------------------- */

static void check_tls(void)
{
    struct report_info ri;
    struct stats s, t;
    if (stats_init(&s) || stats_init(&t))
        return;
    mixed_run(&ri, &s);
    char *text = render(report_text, &ri, &s);
    char *json = render(report_json, &ri, &s);
    T_CHECK("tls: none negotiated (http://): no TLS line, \"tls\": null",
            text && json && !strstr(text, "TLS:") && strstr(json, "\n  \"connectionsOpened\": 0,\n  \"tls\": null,\n") &&
                json_valid(json),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);

    s.tls = (struct tls_negotiated){ .version = TLS_VERSION_13, .cipher = 0x1301, .group = 29, .alpn = "h2" };
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("tls: TLS 1.3 as a TLS line after Protocol",
            text && strstr(text, "Protocol:     HTTP/1.1\nTLS:          TLSv1.3, TLS_AES_128_GCM_SHA256, x25519, ALPN h2\n"),
            "got:\n%s", text ? text : "(null)");
    T_CHECK("tls: TLS 1.3 as a tls object",
            json && strstr(json, "\"tls\": {\"version\": \"TLSv1.3\", \"cipher\": \"TLS_AES_128_GCM_SHA256\", \"group\": "
                                 "\"x25519\", \"alpn\": \"h2\", \"fallback\": false},\n") && json_valid(json),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);

    /* The fallback engine, RSA key transport (no group), no ALPN. */
    s.tls = (struct tls_negotiated){ .version = TLS_VERSION_12, .cipher = 0x009c, .fallback = true };
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("tls: the fallback's text line",
            text && strstr(text, "\nTLS:          TLSv1.2, TLS_RSA_WITH_AES_128_GCM_SHA256, RSA key exchange, no ALPN "
                                 "(TLS 1.2 fallback)\n"),
            "got:\n%s", text ? text : "(null)");
    T_CHECK("tls: the fallback's object, group and alpn null",
            json && strstr(json, "\"tls\": {\"version\": \"TLSv1.2\", \"cipher\": \"TLS_RSA_WITH_AES_128_GCM_SHA256\", "
                                 "\"group\": null, \"alpn\": null, \"fallback\": true},\n"),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);

    /* --tls-resume: the counts, a line under TLS: and an object in tls;
     * workers' counts add up. */
    s.handshakes = (struct tls_handshakes){ .on = true, .full = 8, .resumed = 9416 };
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("tls: --tls-resume's Handshakes line under TLS:",
            text && strstr(text, "(TLS 1.2 fallback)\nHandshakes:   8 full, 9416 resumed\n"), "got:\n%s",
            text ? text : "(null)");
    T_CHECK("tls: --tls-resume's handshakes in the tls object",
            json && strstr(json, "\"fallback\": true, \"handshakes\": {\"full\": 8, \"resumed\": 9416, \"helloRetries\": 0}},\n") &&
                json_valid(json),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);
    t.handshakes = (struct tls_handshakes){ .on = true, .full = 2, .resumed = 5, .hello_retries = 2 };
    struct stats v;
    if (stats_init(&v) == 0) {
        stats_merge(&v, &t);
        stats_merge(&v, &s);
        T_CHECK("tls: stats_merge adds the handshake counts",
                v.handshakes.on && v.handshakes.full == 10 && v.handshakes.resumed == 9421 && v.handshakes.hello_retries == 2,
                "full %llu resumed %llu retries %llu", (unsigned long long)v.handshakes.full,
                (unsigned long long)v.handshakes.resumed, (unsigned long long)v.handshakes.hello_retries);
        stats_free(&v);
    }
    s.handshakes = (struct tls_handshakes){ 0 };
    t.handshakes = (struct tls_handshakes){ 0 };
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("tls: without --tls-resume nor a HelloRetryRequest no Handshakes line, no handshakes object",
            text && !strstr(text, "Handshakes:") && json && !strstr(json, "\"handshakes\""), "got:\n%s",
            text ? text : "(null)");
    free(text);
    free(json);
    /* A HelloRetryRequest, with or without --tls-resume: the line and the
     * object, with the count. */
    s.handshakes = (struct tls_handshakes){ .full = 300, .hello_retries = 4 };
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("tls: handshakes after a HelloRetryRequest (no --tls-resume): counted in the Handshakes line",
            text && strstr(text, "\nHandshakes:   300 full, 0 resumed, 4 after a HelloRetryRequest\n"), "got:\n%s",
            text ? text : "(null)");
    T_CHECK("tls: handshakes after a HelloRetryRequest: helloRetries in the handshakes object",
            json && strstr(json, "\"handshakes\": {\"full\": 300, \"resumed\": 0, \"helloRetries\": 4}") &&
                json_valid(json),
            "got:\n%s", json ? json : "(null)");
    free(text);
    free(json);
    s.handshakes = (struct tls_handshakes){ 0 };

    /* Workers' stats: the first handshake's answer stands. */
    t.tls = (struct tls_negotiated){ .version = TLS_VERSION_13, .cipher = 0x1302, .group = 23, .alpn = "h2" };
    struct stats u;
    if (stats_init(&u) == 0) {
        stats_merge(&u, &t);
        stats_merge(&u, &s);
        T_CHECK("tls: stats_merge keeps the first answer", u.tls.version == TLS_VERSION_13 && u.tls.cipher == 0x1302 &&
                                                                u.tls.group == 23 && strcmp(u.tls.alpn, "h2") == 0,
                "version %x cipher %x", u.tls.version, u.tls.cipher);
        stats_free(&u);
    }

    /* shb merge of reports that disagree: each field's values joined,
     * the counts kept. */
    s.tls_mixed = true;
    s.handshakes = (struct tls_handshakes){ .on = true, .full = 3, .resumed = 7 };
    struct report_tls_joined joined = { "TLSv1.3 + TLSv1.2", "TLS_AES_128_GCM_SHA256 + TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                                        "x25519", "h2 + none", true, false };
    struct report_merged merged = { .reports = 2, .tls = &joined };
    ri.merged = &merged;
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("tls: merged reports that differ: joined, the counts kept",
            text && json &&
                strstr(text, "\nTLS:          TLSv1.3 + TLSv1.2, TLS_AES_128_GCM_SHA256 + "
                             "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, x25519, ALPN h2 + none (TLS 1.2 fallback in "
                             "some)\nHandshakes:   3 full, 7 resumed\n") &&
                strstr(json, "\"tls\": {\"version\": \"TLSv1.3 + TLSv1.2\", \"cipher\": \"TLS_AES_128_GCM_SHA256 + "
                             "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\", \"group\": \"x25519\", \"alpn\": \"h2 + none\", "
                             "\"fallback\": true, \"handshakes\": {\"full\": 3, \"resumed\": 7, \"helloRetries\": 0}},\n") &&
                json_valid(json),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);
    ri.merged = NULL;

    /* Without the joined values (not shb merge's): no one answer. */
    text = render(report_text, &ri, &s);
    json = render(report_json, &ri, &s);
    T_CHECK("tls: merged reports that differ: said so, and null",
            text && json && strstr(text, "\nTLS:          differs between the merged reports\n") &&
                strstr(json, "\"tls\": null,\n"),
            "got:\n%s\n%s", text ? text : "(null)", json ? json : "(null)");
    free(text);
    free(json);
    stats_free(&s);
    stats_free(&t);
}

int main(void)
{
    check_json_checker();
    check_text_spec_sample();
    check_text_errors_and_codes();
    check_in_flight();
    check_warmup();
    check_rate();
    check_timeline();
    check_phases();
    check_number_places();
    check_histograms_flag();
    check_tls();
    check_text_no_errors_block();
    check_text_empty_run();
    check_json_spec_sample();
    check_json_key_order();
    check_json_escaping();
    check_json_empty_run();
    check_connected_to();
    check_parallel_version();
    check_tls_alerts();
    check_hint();
    T_DONE();
}
