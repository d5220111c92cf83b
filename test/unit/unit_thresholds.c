/* test/unit/unit_thresholds.c — --fail-if: what each expression parses
 * into (cli/fail_if.c), every refusal's words, and how a report is judged
 * (report/thresholds.c): percentiles against a known histogram, counts and
 * percentages, the rate, the edges of each comparison, and a latency with
 * no response to measure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "report/thresholds.h"
#include "stats/hist.h"
#include "stats/stats.h"
#include "t.h"

static struct threshold parsed(const char *expr, int *rc, char *err, size_t errlen)
{
    struct threshold t;
    memset(&t, 0xa5, sizeof t);
    err[0] = '\0';
    *rc = threshold_parse(expr, &t, err, errlen);
    return t;
}

static void test_parse_good(void)
{
    static const struct {
        const char *expr, *text;
        enum threshold_metric metric;
        enum threshold_op op;
        bool latency, percent;
        double percentile;
        uint64_t limit_ns;
        double limit;
        int kind;
    } ok[] = {
        {"p99>250ms", "p99>250ms", TH_PERCENTILE, TH_GT, true, false, 99, 250000000ull, 0, 0},
        {"p99.9 >= 1.5s", "p99.9>=1.5s", TH_PERCENTILE, TH_GE, true, false, 99.9, 1500000000ull, 0, 0},
        {"p100<1s", "p100<1s", TH_PERCENTILE, TH_LT, true, false, 100, 1000000000ull, 0, 0},
        {"mean<=20ms", "mean<=20ms", TH_MEAN, TH_LE, true, false, 0, 20000000ull, 0, 0},
        {"min>1us", "min>1us", TH_MIN, TH_GT, true, false, 0, 1000ull, 0, 0},
        {"max>1m30s", "max>1m30s", TH_MAX, TH_GT, true, false, 0, 90000000000ull, 0, 0},
        {"errors>1%", "errors>1%", TH_ERRORS, TH_GT, false, true, 0, 0, 1, 0},
        {"errors>0", "errors>0", TH_ERRORS, TH_GT, false, false, 0, 0, 0, 0},
        {"errors > 0.5%", "errors>0.5%", TH_ERRORS, TH_GT, false, true, 0, 0, 0.5, 0},
        {"non2xx>0", "non2xx>0", TH_NON2XX, TH_GT, false, false, 0, 0, 0, 0},
        {"rps<5000", "rps<5000", TH_RPS, TH_LT, false, false, 0, 0, 5000, 0},
        {"rps<2.5k", "rps<2.5k", TH_RPS, TH_LT, false, false, 0, 0, 2500, 0},
        {"ok<99.9%", "ok<99.9%", TH_OK, TH_LT, false, true, 0, 0, 99.9, 0},
        {"timeout>0", "timeout>0", TH_KIND, TH_GT, false, false, 0, 0, 0, ERR_TIMEOUT},
        {"tls-handshake>=1", "tls-handshake>=1", TH_KIND, TH_GE, false, false, 0, 0, 1, ERR_TLS_HANDSHAKE},
        {"connect_timeout>10", "connect_timeout>10", TH_KIND, TH_GT, false, false, 0, 0, 10, ERR_CONNECT_TIMEOUT},
        {" stream reset > 2% ", "stream reset>2%", TH_KIND, TH_GT, false, true, 0, 0, 2, ERR_STREAM_RESET},
        {"no-local-port>0", "no-local-port>0", TH_KIND, TH_GT, false, false, 0, 0, 0, ERR_NO_PORT},
        {"tls>0", "tls>0", TH_KIND, TH_GT, false, false, 0, 0, 0, ERR_TLS},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char err[256], name[96];
        int rc;
        struct threshold t = parsed(ok[i].expr, &rc, err, sizeof err);
        snprintf(name, sizeof name, "parse: '%s'", ok[i].expr);
        bool same = rc == 0 && strcmp(t.text, ok[i].text) == 0 && t.metric == ok[i].metric && t.op == ok[i].op &&
                    t.latency == ok[i].latency && (t.latency || t.percent == ok[i].percent);
        if (same && t.metric == TH_PERCENTILE)
            same = t.percentile == ok[i].percentile;
        if (same && t.latency)
            same = t.limit_ns == ok[i].limit_ns;
        else if (same)
            same = t.limit == ok[i].limit;
        if (same && t.metric == TH_KIND)
            same = t.kind == ok[i].kind;
        T_CHECK(name, same, "rc=%d err='%s' text='%.63s' metric=%d op=%d limit=%g limit_ns=%llu", rc, err, t.text,
                (int)t.metric, (int)t.op, t.limit, (unsigned long long)t.limit_ns);
    }
}

static void test_parse_bad(void)
{
    static const struct {
        const char *expr, *why;
    } bad[] = {
        {"", "expected METRIC>LIMIT or METRIC<LIMIT"},
        {"p99", "expected METRIC>LIMIT or METRIC<LIMIT, e.g. p99>250ms, errors>1%, rps<5000"},
        {"p99=1ms", "expected METRIC>LIMIT"},
        {">1", "no metric before the comparison"},
        {"p99>", "no limit after the comparison"},
        {"p99>250", "p99 is a latency: its limit is a duration with a unit, e.g. 250ms or 1.5s (got '250')"},
        {"p99>1%", "p99 is a latency"},
        {"mean>fast", "mean is a latency"},
        {"p99>250 ms", "p99 is a latency"},
        {"p0>1ms", "'p0' is no percentile"},
        {"p101>1ms", "'p101' is no percentile"},
        {"p9k>1ms", "'p9k' is no percentile"},
        {"p.5>1ms", "unknown metric 'p.5'"},
        {"latency>1ms", "unknown metric 'latency'"},
        {"error>1", "unknown metric 'error'"},
        {"rps<1%", "rps is a rate: its limit is requests per second"},
        {"errors>101%", "'101%' is more than 100%"},
        {"errors>-1", "'-1' is no limit for errors"},
        {"errors>1e3", "'1e3' is no limit for errors"},
        {"errors>%", "'%' is no limit for errors"},
        {"rps<fast", "'fast' is no limit for rps: a number (e.g. 0, 10, 2.5k)"},
        {"errors>>1", "one comparison only"},
        {"p99>1ms<2ms", "one comparison only"},
        {"p99>=<1ms", "one comparison only"},
        {"timeout>0xyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyz", "longer than 63 characters"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256], name[96];
        int rc;
        parsed(bad[i].expr, &rc, err, sizeof err);
        snprintf(name, sizeof name, "refused: '%.40s'", bad[i].expr);
        T_CHECK(name, rc == -1 && strstr(err, bad[i].why) && !strchr(err, '\n'), "rc=%d err='%s' want '%s'", rc,
                err, bad[i].why);
    }
}

/* A report of 1000 requests in 2 s: 990 answered (10 of them 503), latencies
 * 1..990 ms; 6 timeouts and 4 resets. */
static void sample(struct stats *s, struct report_info *ri)
{
    memset(ri, 0, sizeof *ri);
    ri->duration_ns = 2000000000ull;
    for (uint64_t ms = 1; ms <= 990; ms++)
        hist_record(&s->latency, ms * 1000000ull);
    s->ok = 990;
    s->status[200] = 980;
    s->status[503] = 10;
    s->errors[ERR_TIMEOUT] = 6;
    s->errors[ERR_RESET] = 4;
}

static bool judged(const char *expr, const struct report_info *ri, const struct stats *s,
                   struct threshold_verdict *v)
{
    char err[256];
    int rc;
    struct threshold t = parsed(expr, &rc, err, sizeof err);
    if (rc != 0)
        return false;
    threshold_judge(&t, ri, s, v);
    return true;
}

static void test_judge(void)
{
    struct stats s;
    struct report_info ri;
    if (stats_init(&s) < 0) {
        T_CHECK("judge: stats_init", false, "out of memory");
        return;
    }
    sample(&s, &ri);
    static const struct {
        const char *expr;
        bool failed;
        double value;
    } cases[] = {
        {"errors>0", true, 10},
        {"errors>10", false, 10},
        {"errors>=10", true, 10},
        {"errors>1%", false, 1},
        {"errors>=1%", true, 1},
        {"errors>0.99%", true, 1},
        {"timeout>0", true, 6},
        {"timeout>0.6%", false, 0.6},
        {"reset<5", true, 4},
        {"connect>0", false, 0},
        {"non2xx>0", true, 10},
        {"non2xx>1%", false, 1},
        {"ok<99%", false, 99},
        {"ok<=99%", true, 99},
        {"ok<1k", true, 990},
        {"rps<500", false, 500},
        {"rps<=500", true, 500},
        {"rps>0.4k", true, 500},
        {"max>=990ms", true, 990e6},
        {"max>990ms", false, 990e6},
        {"min<=1ms", true, 1e6},
        {"min<1ms", false, 1e6},
        {"mean>495ms", true, 495.5e6},
        {"mean>496ms", false, 495.5e6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct threshold_verdict v;
        char name[96];
        snprintf(name, sizeof name, "judge: '%s' %s", cases[i].expr, cases[i].failed ? "fails" : "holds");
        bool ok = judged(cases[i].expr, &ri, &s, &v) && v.failed == cases[i].failed && !v.no_data &&
                  v.value > cases[i].value * 0.9999 - 1e-9 && v.value < cases[i].value * 1.0001 + 1e-9;
        T_CHECK(name, ok, "failed=%d value=%.6f want %.6f", v.failed, v.value, cases[i].value);
    }
    /* Percentiles as the report computes them (the histogram's precision:
     * within 1/1000 of the recorded value). */
    struct threshold_verdict v;
    T_CHECK("judge: p50 is the 495th of 990 (495 ms)",
            judged("p50>494ms", &ri, &s, &v) && v.failed && v.value >= 495e6 && v.value < 495.5e6 &&
                judged("p50>496ms", &ri, &s, &v) && !v.failed,
            "value=%.0f", v.value);
    T_CHECK("judge: p99 is 981 ms, p99.9 990 ms",
            judged("p99<=981ms", &ri, &s, &v) && v.value >= 980e6 && v.value <= 981.5e6 &&
                judged("p99.9>989ms", &ri, &s, &v) && v.failed,
            "value=%.0f", v.value);
    /* Several: one failing is enough. */
    struct threshold list[2];
    char err[256];
    int rc1 = threshold_parse("errors>5%", &list[0], err, sizeof err);
    int rc2 = threshold_parse("p99>250ms", &list[1], err, sizeof err);
    ri.thresholds = list;
    ri.nthresholds = 1;
    bool one = thresholds_failed(&ri, &s);
    ri.nthresholds = 2;
    bool two = thresholds_failed(&ri, &s);
    T_CHECK("judge: thresholds_failed is any of them", rc1 == 0 && rc2 == 0 && !one && two, "one=%d two=%d", one, two);
    /* The text block names each, its verdict and the figure. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        thresholds_text(f, &ri, &s);
        fclose(f);
    }
    T_CHECK("text: a summary line, then one line each with the figure",
            text && strstr(text, "Thresholds:   1 of 2 failed (exit status 3)\n") &&
                strstr(text, "  errors>5%  held    errors 1.00% (10 of 1000 requests)\n") &&
                strstr(text, "  p99>250ms  FAILED  p99 9"),
            "%s", text ? text : "(null)");
    free(text);
    stats_free(&s);

    /* Nothing answered: a latency cannot pass; a count is still a count. */
    struct stats none;
    if (stats_init(&none) < 0)
        return;
    none.errors[ERR_CONNECT] = 50;
    T_CHECK("judge: a latency with no response fails, marked no_data",
            judged("p99>10s", &ri, &none, &v) && v.failed && v.no_data, "failed=%d no_data=%d", v.failed, v.no_data);
    T_CHECK("judge: errors>99% of 50 errors fails; ok<1 fails",
            judged("errors>99%", &ri, &none, &v) && v.failed && v.value == 100 && judged("ok<1", &ri, &none, &v) &&
                v.failed,
            "value=%g", v.value);
    none.errors[ERR_CONNECT] = 0;
    T_CHECK("judge: no request at all is 0% errors, 0 requests/s",
            judged("errors>0%", &ri, &none, &v) && !v.failed && v.value == 0 && judged("rps<1", &ri, &none, &v) &&
                v.failed && v.value == 0,
            "value=%g", v.value);
    stats_free(&none);
}

static void test_cli(void)
{
    struct shb_opts o;
    char err[512];
    char *argv[] = {"shb", "--fail-if", "p99>250ms", "--fail-if=errors>1%", "http://127.0.0.1:1/", NULL};
    enum cli_result r = cli_parse(5, argv, &o, 2, NULL, err, sizeof err);
    T_CHECK("cli: --fail-if is repeatable, kept in order",
            r == CLI_OK && o.nthresholds == 2 && strcmp(o.thresholds[0].text, "p99>250ms") == 0 &&
                strcmp(o.thresholds[1].text, "errors>1%") == 0,
            "r=%d err=%s n=%zu", r, err, r == CLI_OK ? o.nthresholds : 0);
    if (r == CLI_OK)
        cli_free(&o);
    char *bad[] = {"shb", "--fail-if", "p99>250", "http://127.0.0.1:1/", NULL};
    r = cli_parse(4, bad, &o, 2, NULL, err, sizeof err);
    T_CHECK("cli: a malformed one is one line naming the option and the value",
            r == CLI_ERROR &&
                strcmp(err, "invalid value 'p99>250' for --fail-if: p99 is a latency: its limit is a duration with a "
                            "unit, e.g. 250ms or 1.5s (got '250')") == 0,
            "r=%d err=%s", r, err);
}

int main(void)
{
    test_parse_good();
    test_parse_bad();
    test_judge();
    test_cli();
    T_DONE();
}
