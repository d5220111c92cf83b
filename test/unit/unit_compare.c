/* test/unit/unit_compare.c — several targets side by side: the comparison table
 * (compare.c) and what report.c adds for it (the summary, the JSON object
 * with its label and interrupted mark, for an array of reports). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/report.h"
#include "stats/stats.h"
#include "t.h"

/* Output captured in memory: mem_begin gives the stream to write to (NULL
 * if none could be made), mem_end the NUL-terminated text (caller frees). */
struct mem {
    char *buf;
    size_t len;
    FILE *f;
};

static FILE *mem_begin(struct mem *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f;
}

static char *mem_end(struct mem *m)
{
    if (!m->f)
        return NULL;
    fclose(m->f);
    return m->buf;
}

static char *render_table(const struct compare_row *rows, size_t n)
{
    struct mem m;
    FILE *f = mem_begin(&m);
    if (f)
        compare_text(f, rows, n);
    return mem_end(&m);
}

/* report_json, report_json_object or report_text's output. */
static char *render_json(void (*fn)(FILE *, const struct report_info *, const struct stats *),
                         const struct report_info *ri, const struct stats *s)
{
    struct mem m;
    FILE *f = mem_begin(&m);
    if (f)
        fn(f, ri, s);
    return mem_end(&m);
}

static void check_table(void)
{
    const struct compare_row rows[] = {
        {"nginx", false, {40000.0, 100000, 250000, 0, false}},
        {"a-much-longer-label", false, {10000.04, 250000, 1000000, 3, false}},
        {"http://127.0.0.1:9/", true, {80000.0, 50000, 125000, 12345678901ull, false}},
    };
    char *out = render_table(rows, 3);
    static const char want[] =
        "Comparison (ratios to nginx, the first target):\n"
        "  Target                       Req/s   p50 (ms)   p99 (ms)     Errors   Req/s ratio   p50 ratio   p99 ratio\n"
        "  nginx                      40000.0      0.100      0.250          0         1.000       1.000       1.000\n"
        "  a-much-longer-label        10000.0      0.250      1.000          3         0.250       2.500       4.000\n"
        "  http://127.0.0.1:9/ *      80000.0      0.050      0.125 12345678901         2.000       0.500       0.500\n"
        "  * interrupted by a signal (Ctrl-C, SIGTERM): its figures cover the run until then\n";
    T_CHECK("table: rows, widths, ratios to the first and the interrupted mark", out && strcmp(out, want) == 0,
            "got:\n%s", out ? out : "(null)");
    free(out);

    /* The first target had no responses: no ratio to it can be made, and
     * it has no latency to show. */
    const struct compare_row zero[] = {
        {"down", false, {0, 0, 0, 10, true}},
        {"up", false, {5.0, 1000000, 2000000, 0, false}},
    };
    out = render_table(zero, 2);
    T_CHECK("table: a ratio to zero is '-', a target without responses has '-' for its latencies",
            out &&
                strstr(out, "\n  down            0.0          -          -         10             -           -           -\n") &&
                strstr(out, "\n  up              5.0      1.000      2.000          0             -           -           -\n") &&
                !strstr(out, "interrupted"),
            "got:\n%s", out ? out : "(null)");
    free(out);

    /* A later target with only errors: its requests/s ratio, but '-' for
     * its latencies and their ratios (not 0.000). */
    const struct compare_row errors_only[] = {
        {"up", false, {5.0, 1000000, 2000000, 0, false}},
        {"refused", false, {2.5, 0, 0, 10, true}},
    };
    out = render_table(errors_only, 2);
    T_CHECK("table: a target with only errors: '-' for p50, p99 and their ratios",
            out &&
                strstr(out, "\n  refused          2.5          -          -         10         0.500           -           -\n"),
            "got:\n%s", out ? out : "(null)");
    free(out);

    out = render_table(rows, 0);
    T_CHECK("table: nothing for no rows", out && out[0] == '\0', "got: %s", out ? out : "(null)");
    free(out);
}

/* A run of 4 requests (3 ok, 1 error) over 2 s: 2 req/s. */
static void small_run(struct report_info *ri, struct stats *s)
{
    *ri = (struct report_info){ .url = "http://h/", .protocol = "HTTP/1.1", .threads = 1, .connections = 1,
                                .duration_ns = 2000000000u, .shard_count = 1 };
    s->status[200] = 3;
    s->ok = 3;
    s->errors[ERR_RESET] = 1;
    for (uint64_t v = 1000000; v <= 3000000; v += 1000000)
        hist_record(&s->latency, v);
}

static void check_summary_and_json(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    small_run(&ri, &s);
    struct report_summary sum;
    report_summary(&ri, &s, &sum);
    T_CHECK("summary: the report's req/s, p50, p99 and errors",
            sum.requests_per_sec == 2.0 && sum.p50_ns == hist_percentile(&s.latency, 50) &&
                sum.p99_ns == hist_percentile(&s.latency, 99) && sum.errors == 1 && sum.p50_ns > 0,
            "rps=%f p50=%llu p99=%llu errors=%llu", sum.requests_per_sec, (unsigned long long)sum.p50_ns,
            (unsigned long long)sum.p99_ns, (unsigned long long)sum.errors);

    char *whole = render_json(report_json, &ri, &s), *obj = render_json(report_json_object, &ri, &s);
    size_t n = obj ? strlen(obj) : 0;
    T_CHECK("json: report_json is the object and a newline; no label when not given, \"interrupted\": false",
            whole && obj && strlen(whole) == n + 1 && strncmp(whole, obj, n) == 0 && whole[n] == '\n' &&
                obj[n - 1] == '}' && strncmp(obj, "{\n  \"url\": ", 11) == 0 && !strstr(obj, "\"label\"") &&
                strstr(obj, "\"durationSeconds\": 2.000000000,\n  \"interrupted\": false,\n"),
            "got:\n%s", obj ? obj : "(null)");
    free(whole);
    free(obj);

    ri.label = "ng\"inx";
    ri.interrupted = true;
    obj = render_json(report_json_object, &ri, &s);
    T_CHECK("json: the label first (escaped), interrupted after durationSeconds",
            obj && strncmp(obj, "{\n  \"label\": \"ng\\\"inx\",\n  \"url\": ", 32) == 0 &&
                strstr(obj, "\"durationSeconds\": 2.000000000,\n  \"interrupted\": true,\n"),
            "got:\n%s", obj ? obj : "(null)");
    free(obj);
    stats_free(&s);
}

/* The text report's Interrupted line: after the request lines, naming the
 * signal; a merged report says one of its runs was; none otherwise. */
static void check_interrupted_text(void)
{
    struct report_info ri;
    struct stats s;
    if (stats_init(&s))
        return;
    small_run(&ri, &s);
    char *text = render_json(report_text, &ri, &s);
    T_CHECK("text: no Interrupted line for a whole run", text && !strstr(text, "Interrupted"), "got:\n%s",
            text ? text : "(null)");
    free(text);

    ri.interrupted = true;
    ri.interrupted_by = "SIGTERM";
    text = render_json(report_text, &ri, &s);
    T_CHECK("text: 'Interrupted:  yes (SIGTERM: ...)' right after Requests/sec",
            text && strstr(text, "\nRequests/sec: 2.0\nInterrupted:  yes (SIGTERM: the figures cover the run until then)\n"),
            "got:\n%s", text ? text : "(null)");
    free(text);

    ri.interrupted_by = NULL; /* shb merge: which signal is not known */
    text = render_json(report_text, &ri, &s);
    T_CHECK("text: a merged report's Interrupted line",
            text && strstr(text, "\nInterrupted:  yes (a run merged here was stopped early by a signal)\n"),
            "got:\n%s", text ? text : "(null)");
    free(text);
    stats_free(&s);
}

int main(void)
{
    check_table();
    check_summary_and_json();
    check_interrupted_text();
    T_DONE();
}
