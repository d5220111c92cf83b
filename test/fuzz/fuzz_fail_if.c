/* test/fuzz/fuzz_fail_if.c — the --fail-if expression parser
 * (cli/fail_if.c) on any text a user may type, and the judge
 * (report/thresholds.c) on what it accepts.
 *
 * Input: the expression (cut at its first NUL). What must hold:
 *   - nothing crashes, reads out of bounds or leaks (ASan, UBSan);
 *   - a refusal says why in one line (not empty; a newline only when the
 *     expression held one);
 *   - an accepted expression is well formed: its text is short, holds one
 *     comparison, and parses again into the same threshold; a latency has
 *     a limit of at least 1 ns, a percentage at most 100, a percentile is in
 *     (0, 100], an error kind is one that exists;
 *   - judged against a fixed report, > and <= (and < and >=) of the same
 *     figure and limit give opposite verdicts, and a latency is measured. */
#include "cli/cli.h"
#include "fuzz.h"
#include "report/report.h"
#include "report/thresholds.h"
#include "stats/hist.h"
#include "stats/stats.h"

#define TEXT_MAX 256

static char text[TEXT_MAX + 1];
static struct stats report_stats;
static struct report_info report;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (stats_init(&report_stats) < 0)
        abort();
    for (uint64_t us = 1; us <= 1000; us++)
        hist_record(&report_stats.latency, us * 1000);
    report_stats.ok = 1000;
    report_stats.status[200] = 990;
    report_stats.status[404] = 10;
    report_stats.errors[ERR_TIMEOUT] = 3;
    report.duration_ns = 1000000000ull;
    return 0;
}

static bool same(const struct threshold *a, const struct threshold *b)
{
    return strcmp(a->text, b->text) == 0 && a->metric == b->metric && a->op == b->op &&
           a->latency == b->latency && a->percent == b->percent && a->limit_ns == b->limit_ns &&
           (a->limit == b->limit || (a->limit != a->limit && b->limit != b->limit)) &&
           (a->metric != TH_PERCENTILE || a->percentile == b->percentile) &&
           (a->metric != TH_KIND || a->kind == b->kind);
}

static enum threshold_op opposite(enum threshold_op op)
{
    switch (op) {
    case TH_GT: return TH_LE;
    case TH_GE: return TH_LT;
    case TH_LT: return TH_GE;
    case TH_LE: return TH_GT;
    }
    return op;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > TEXT_MAX)
        return 0;
    size_t len = strnlen((const char *)data, size);
    memcpy(text, data, len);
    text[len] = '\0';
    struct threshold t, again;
    char why[256];
    why[0] = '\0';
    if (threshold_parse(text, &t, why, sizeof why) < 0) {
        FZ_CHECK(why[0] != '\0', "a refusal without a reason");
        FZ_CHECK(!strchr(why, '\n') || strchr(text, '\n'), "a reason of several lines: %s", why);
        return 0;
    }
    FZ_CHECK(strlen(t.text) < THRESHOLD_TEXT_MAX && strlen(t.text) >= 3, "text '%s'", t.text);
    size_t ops = 0, equals = 0;
    for (const char *c = t.text; *c; c++) {
        ops += *c == '<' || *c == '>';
        equals += *c == '=';
    }
    const char *op = strpbrk(t.text, "<>");
    FZ_CHECK(ops == 1 && op > t.text && (equals == 0 || (equals == 1 && op[1] == '=')),
             "not one comparison in '%s'", t.text);
    FZ_CHECK(threshold_parse(t.text, &again, why, sizeof why) == 0 && same(&t, &again),
             "'%s' (from '%s') does not parse again into the same threshold", t.text, text);
    if (t.latency)
        FZ_CHECK(t.limit_ns >= 1, "a latency limit of 0 ns");
    else
        FZ_CHECK(t.limit >= 0 && (!t.percent || t.limit <= 100), "limit %g%s", t.limit, t.percent ? "%" : "");
    if (t.metric == TH_PERCENTILE)
        FZ_CHECK(t.percentile > 0 && t.percentile <= 100, "percentile %g", t.percentile);
    if (t.metric == TH_KIND)
        FZ_CHECK(t.kind >= 0 && t.kind < ERR_KINDS, "kind %d", t.kind);
    struct threshold_verdict v, w;
    threshold_judge(&t, &report, &report_stats, &v);
    again = t;
    again.op = opposite(t.op);
    threshold_judge(&again, &report, &report_stats, &w);
    FZ_CHECK(!v.no_data && !w.no_data, "'%s': a latency not measured in a report of 1000 responses", t.text);
    FZ_CHECK(v.failed != w.failed, "'%s' and its opposite both %s", t.text, v.failed ? "fail" : "hold");
    FZ_CHECK(v.value == w.value, "'%s': the same figure judged twice differs", t.text);
    return 0;
}
