/* cli/fail_if.c — one --fail-if expression into a struct threshold
 * (report/thresholds.h says what each means; the report judges them). */
#include "report/thresholds.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "stats/stats.h"

#define FORMS "expected METRIC>LIMIT or METRIC<LIMIT, e.g. p99>250ms, errors>1%%, rps<5000"

static int why(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error kind by the name the report gives it, with '-' or '_' for its
 * spaces ("tls-handshake", "connect_timeout"), so that it needs no quotes. */
static int kind_named(const char *name, size_t len)
{
    for (int k = 0; k < ERR_KINDS; k++) {
        const char *n = err_kind_name((enum err_kind)k);
        if (strlen(n) != len)
            continue;
        size_t i = 0;
        while (i < len && (name[i] == n[i] || (n[i] == ' ' && (name[i] == '-' || name[i] == '_'))))
            i++;
        if (i == len)
            return k;
    }
    return -1;
}

/* The metric, the len bytes at m, into t. */
static int parse_metric(const char *m, size_t len, struct threshold *t, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        enum threshold_metric metric;
        bool latency;
    } named[] = {
        {"min", TH_MIN, true},         {"mean", TH_MEAN, true}, {"max", TH_MAX, true},
        {"rps", TH_RPS, false},        {"errors", TH_ERRORS, false},
        {"non2xx", TH_NON2XX, false},  {"ok", TH_OK, false},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strlen(named[i].name) == len && memcmp(named[i].name, m, len) == 0) {
            t->metric = named[i].metric;
            t->latency = named[i].latency;
            return 0;
        }
    if (len > 1 && m[0] == 'p' && m[1] >= '0' && m[1] <= '9') {
        double p = 0;
        size_t digits = 1;
        while (digits < len && ((m[digits] >= '0' && m[digits] <= '9') || m[digits] == '.'))
            digits++;
        if (digits < len || !cli_decimal(m + 1, len - 1, &p) || !(p > 0 && p <= 100))
            return why(err, errlen, "'%.*s' is no percentile: p50, p99, p99.9 (above 0, at most 100)", (int)len, m);
        t->metric = TH_PERCENTILE;
        t->percentile = p;
        t->latency = true;
        return 0;
    }
    int kind = kind_named(m, len);
    if (kind < 0)
        return why(err, errlen,
                   "unknown metric '%.*s' (use pN, min, mean, max, rps, errors, non2xx, ok or an error kind such as "
                   "timeout or tls-handshake)",
                   (int)len, m);
    t->metric = TH_KIND;
    t->kind = kind;
    return 0;
}

/* The limit, the len bytes at v, into t: a duration for a latency, a
 * number or a percentage for a count, a number for a rate. */
static int parse_limit(const char *v, size_t len, const char *metric, struct threshold *t, char *err,
                       size_t errlen)
{
    char buf[THRESHOLD_TEXT_MAX];
    if (len == 0)
        return why(err, errlen, "no limit after the comparison: " FORMS);
    if (len >= sizeof buf)
        return why(err, errlen, "the limit '%.*s' is too long", (int)len, v);
    memcpy(buf, v, len);
    buf[len] = '\0';
    if (t->latency) {
        if (cli_parse_duration(buf, &t->limit_ns) < 0)
            return why(err, errlen, "%s is a latency: its limit is a duration with a unit, e.g. 250ms or 1.5s (got '%s')",
                       metric, buf);
        return 0;
    }
    t->percent = buf[len - 1] == '%';
    if (t->percent && t->metric == TH_RPS)
        return why(err, errlen, "rps is a rate: its limit is requests per second, e.g. 5000 or 2.5k, not a percentage");
    if (!cli_decimal(buf, len - t->percent, &t->limit))
        return why(err, errlen, "'%s' is no limit for %s: a number (e.g. 0, 10, 2.5k)%s", buf, metric,
                   t->metric == TH_RPS ? "" : " or a percentage of the requests (e.g. 1%)");
    if (t->percent && t->limit > 100)
        return why(err, errlen, "'%s' is more than 100%%", buf);
    return 0;
}

int threshold_parse(const char *s, struct threshold *out, char *err, size_t errlen)
{
    struct threshold t;
    memset(&t, 0, sizeof t);
    /* Spaces at the ends and around the comparison are only for reading
     * ('p99 > 250ms'): out they go. Inside a name they stay ('stream
     * reset>0', an error kind as the report spells it). */
    size_t n = 0;
    for (const char *c = s; *c; c++) {
        bool space = *c == ' ' || *c == '\t';
        if (space && (n == 0 || strchr("<>=", t.text[n - 1])))
            continue;
        if (!space && strchr("<>=", *c))
            while (n > 0 && (t.text[n - 1] == ' ' || t.text[n - 1] == '\t'))
                n--;
        if (n + 1 >= sizeof t.text)
            return why(err, errlen, "longer than %d characters", THRESHOLD_TEXT_MAX - 1);
        t.text[n++] = *c;
    }
    while (n > 0 && (t.text[n - 1] == ' ' || t.text[n - 1] == '\t'))
        n--;
    t.text[n] = '\0';
    const char *op = strpbrk(t.text, "<>");
    if (!op || op == t.text)
        return why(err, errlen, op ? "no metric before the comparison: " FORMS : FORMS);
    size_t mlen = (size_t)(op - t.text);
    bool or_equal = op[1] == '=';
    t.op = op[0] == '>' ? (or_equal ? TH_GE : TH_GT) : (or_equal ? TH_LE : TH_LT);
    const char *limit = op + 1 + or_equal;
    if (strpbrk(limit, "<>="))
        return why(err, errlen, "one comparison only: " FORMS);
    char metric[THRESHOLD_TEXT_MAX];
    snprintf(metric, sizeof metric, "%.*s", (int)mlen, t.text);
    if (parse_metric(t.text, mlen, &t, err, errlen) < 0 ||
        parse_limit(limit, strlen(limit), metric, &t, err, errlen) < 0)
        return -1;
    *out = t;
    return 0;
}
