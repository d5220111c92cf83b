/* report/thresholds.c — judging a report against the --fail-if
 * expressions (report/thresholds.h), and the text report's block. */
#include "report/thresholds.h"

#include <inttypes.h>
#include <string.h>

#include "report/report.h"
#include "stats/hist.h"
#include "stats/stats.h"

#define NS_PER_MS 1e6

/* A latency figure, in ns; false when nothing was answered. */
static bool latency_ns(const struct threshold *t, const struct hist *h, uint64_t *ns)
{
    if (h->count == 0)
        return false;
    switch (t->metric) {
    case TH_PERCENTILE: *ns = hist_percentile(h, t->percentile); break;
    case TH_MIN: *ns = h->min; break;
    case TH_MAX: *ns = h->max; break;
    case TH_MEAN: *ns = (uint64_t)(h->sum / (double)h->count); break;
    case TH_RPS:
    case TH_ERRORS:
    case TH_NON2XX:
    case TH_OK:
    case TH_KIND: return false;
    }
    return true;
}

static uint64_t count_of(const struct threshold *t, const struct stats *s)
{
    switch (t->metric) {
    case TH_ERRORS: return stats_errors(s);
    case TH_NON2XX: return stats_non2xx(s);
    case TH_OK: return s->ok;
    case TH_KIND: return s->errors[t->kind];
    case TH_PERCENTILE:
    case TH_MIN:
    case TH_MEAN:
    case TH_MAX:
    case TH_RPS: break;
    }
    return 0;
}

static bool holds(enum threshold_op op, double value, double limit)
{
    switch (op) {
    case TH_GT: return value > limit;
    case TH_GE: return value >= limit;
    case TH_LT: return value < limit;
    case TH_LE: return value <= limit;
    }
    return false;
}

void threshold_judge(const struct threshold *t, const struct report_info *ri, const struct stats *s,
                     struct threshold_verdict *out)
{
    uint64_t total = s->ok + stats_errors(s);
    *out = (struct threshold_verdict){0};
    if (t->latency) {
        uint64_t ns = 0;
        /* A latency nobody measured cannot be said to be under a limit: the
         * gate fails rather than pass a run that got no response at all. */
        if (!latency_ns(t, &s->latency, &ns)) {
            out->no_data = out->failed = true;
            return;
        }
        out->value = (double)ns;
        out->failed = holds(t->op, (double)ns, (double)t->limit_ns);
        return;
    }
    if (t->metric == TH_RPS)
        out->value = ri->duration_ns ? (double)total * 1e9 / (double)ri->duration_ns : 0;
    else if (t->percent)
        out->value = total ? 100.0 * (double)count_of(t, s) / (double)total : 0;
    else
        out->value = (double)count_of(t, s);
    out->failed = holds(t->op, out->value, t->limit);
}

static size_t failed_count(const struct report_info *ri, const struct stats *s)
{
    size_t failed = 0;
    for (size_t i = 0; i < ri->nthresholds; i++) {
        struct threshold_verdict v;
        threshold_judge(&ri->thresholds[i], ri, s, &v);
        failed += v.failed;
    }
    return failed;
}

bool thresholds_failed(const struct report_info *ri, const struct stats *s)
{
    return failed_count(ri, s) > 0;
}

/* "Thresholds:   1 of 3 failed (exit status 3)", then one line each:
 *   p99>250ms       held    p99 12.345 ms
 *   errors>1%       FAILED  errors 3.2% (32 of 1000 requests) */
void thresholds_text(FILE *f, const struct report_info *ri, const struct stats *s)
{
    if (!ri->nthresholds)
        return;
    size_t failed = failed_count(ri, s), width = 0;
    for (size_t i = 0; i < ri->nthresholds; i++) {
        size_t n = strlen(ri->thresholds[i].text);
        width = n > width ? n : width;
    }
    if (failed)
        fprintf(f, "Thresholds:   %zu of %zu failed (exit status 3)\n", failed, ri->nthresholds);
    else
        fprintf(f, "Thresholds:   all %zu held\n", ri->nthresholds);
    uint64_t total = s->ok + stats_errors(s);
    for (size_t i = 0; i < ri->nthresholds; i++) {
        const struct threshold *t = &ri->thresholds[i];
        struct threshold_verdict v;
        threshold_judge(t, ri, s, &v);
        const char *op = strpbrk(t->text, "<>");
        fprintf(f, "  %-*s  %-6s  %.*s ", (int)width, t->text, v.failed ? "FAILED" : "held", (int)(op - t->text),
                t->text);
        if (v.no_data)
            fputs("not measured: no responses\n", f);
        else if (t->latency)
            fprintf(f, "%.3f ms\n", v.value / NS_PER_MS);
        else if (t->metric == TH_RPS)
            fprintf(f, "%.1f requests/s\n", v.value);
        else if (t->percent)
            fprintf(f, "%.2f%% (%" PRIu64 " of %" PRIu64 " requests)\n", v.value, count_of(t, s), total);
        else
            fprintf(f, "%" PRIu64 "\n", count_of(t, s));
    }
}
