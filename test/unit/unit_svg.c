/* test/unit/unit_svg.c — the HTML report's drawing pieces (report/svg.c):
 * scales, nice ends, ticks, tick labels, paths, coarsening, escaping; and
 * the page writer (report/html.c) on a known report: its series counted,
 * its strings escaped, no address but the report's own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/json.h"
#include "report/svg.h"
#include "t.h"

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-6;
}

static char *captured(void (*draw)(FILE *, const void *), const void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    draw(f, arg);
    fclose(f);
    return buf;
}

static void test_scales(void)
{
    struct svg_axis x = { .lo = 0, .hi = 10, .px0 = 0, .px1 = 100 };
    T_CHECK("linear middle", near(svg_at(&x, 5), 50), "%g", svg_at(&x, 5));
    T_CHECK("linear clamped low", near(svg_at(&x, -1), 0), "%g", svg_at(&x, -1));
    T_CHECK("linear clamped high", near(svg_at(&x, 11), 100), "%g", svg_at(&x, 11));
    T_CHECK("linear NaN at the start", near(svg_at(&x, NAN), 0), "%g", svg_at(&x, NAN));
    struct svg_axis y = { .lo = 0, .hi = 10, .px0 = 200, .px1 = 0 };
    T_CHECK("y axis grows upwards", near(svg_at(&y, 2.5), 150), "%g", svg_at(&y, 2.5));
    struct svg_axis lg = { .lo = 1, .hi = 1000, .px0 = 0, .px1 = 300, .log = true };
    T_CHECK("log decade", near(svg_at(&lg, 10), 100), "%g", svg_at(&lg, 10));
    T_CHECK("log 0 at lo", near(svg_at(&lg, 0), 0), "%g", svg_at(&lg, 0));
    T_CHECK("log sqrt", near(svg_at(&lg, sqrt(10)), 50), "%g", svg_at(&lg, sqrt(10)));
}

static void test_nice(void)
{
    struct svg_axis a = { .lo = 0, .hi = 87 };
    svg_nice(&a);
    T_CHECK("nice 0..87 is 0..100", near(a.lo, 0) && near(a.hi, 100), "%g..%g", a.lo, a.hi);
    struct svg_axis b = { .lo = 3, .hi = 3 };
    svg_nice(&b);
    T_CHECK("nice widens an empty span", b.hi > b.lo && b.lo <= 3 && b.hi >= 3, "%g..%g", b.lo, b.hi);
    struct svg_axis c = { .lo = 0, .hi = 0 };
    svg_nice(&c);
    T_CHECK("nice of nothing is 0..1", near(c.lo, 0) && near(c.hi, 1), "%g..%g", c.lo, c.hi);
    struct svg_axis d = { .lo = 0.03, .hi = 420, .log = true };
    svg_nice(&d);
    T_CHECK("nice log to decades", near(d.lo, 0.01) && near(d.hi, 1000), "%g..%g", d.lo, d.hi);
    struct svg_axis e = { .lo = 10, .hi = 10, .log = true };
    svg_nice(&e);
    T_CHECK("nice log widens a point", near(e.lo, 10) && near(e.hi, 100), "%g..%g", e.lo, e.hi);
}

static void test_ticks(void)
{
    double t[16];
    struct svg_axis a = { .lo = 0, .hi = 100 };
    size_t n = svg_ticks(&a, t, 6);
    T_CHECK("linear ticks by 20", n == 6 && near(t[0], 0) && near(t[1], 20) && near(t[5], 100), "%zu: %g %g", n,
            t[0], n > 1 ? t[1] : -1);
    struct svg_axis b = { .lo = -1, .hi = 3 };
    n = svg_ticks(&b, t, 9);
    bool zero = false;
    for (size_t i = 0; i < n; i++)
        zero |= t[i] == 0;
    T_CHECK("linear ticks cross zero exactly", n >= 5 && zero && near(t[0], -1), "%zu ticks from %g", n, t[0]);
    struct svg_axis c = { .lo = 1, .hi = 1000, .log = true };
    n = svg_ticks(&c, t, 16);
    T_CHECK("log ticks: decades", n == 4 && near(t[0], 1) && near(t[1], 10) && near(t[3], 1000), "%zu", n);
    struct svg_axis d = { .lo = 1, .hi = 100, .log = true };
    n = svg_ticks(&d, t, 16);
    T_CHECK("log ticks: 1 2 5 on two decades", n == 7 && near(t[1], 2) && near(t[2], 5) && near(t[6], 100), "%zu",
            n);
    n = svg_ticks(&d, t, 3);
    T_CHECK("ticks bounded by max", n == 3, "%zu", n);
}

static void test_num(void)
{
    static const struct {
        double v;
        const char *s;
    } cases[] = { { 0, "0" }, { 2.5, "2.5" }, { 1500, "1500" }, { 12000, "12k" }, { 3400000, "3.4M" },
                  { 0.002, "0.002" }, { -20000, "-20k" } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char b[32];
        svg_num(b, sizeof b, cases[i].v);
        T_CHECK("tick label", strcmp(b, cases[i].s) == 0, "%g gave %s, not %s", cases[i].v, b, cases[i].s);
    }
}

struct path_arg {
    const double *x, *y;
    size_t n;
};

static void draw_path(FILE *f, const void *arg)
{
    const struct path_arg *p = arg;
    struct svg_axis x = { .lo = 0, .hi = 4, .px0 = 0, .px1 = 100 };
    struct svg_axis y = { .lo = 0, .hi = 10, .px0 = 100, .px1 = 0 };
    svg_path(f, &x, &y, p->x, p->y, p->n);
}

static void test_path(void)
{
    const double xs[] = { 0, 1, 2, 3, 4 }, ys[] = { 0, 5, NAN, 10, 2.5 };
    struct path_arg a = { xs, ys, 5 };
    char *d = captured(draw_path, &a);
    T_CHECK("path breaks at NaN", d && strcmp(d, "M0.0 100.0L25.0 50.0M75.0 0.0L100.0 75.0") == 0, "%s", d);
    free(d);
    struct path_arg none = { xs, ys, 0 };
    d = captured(draw_path, &none);
    T_CHECK("empty path", d && !*d, "%s", d);
    free(d);
}

static void test_coarsen(void)
{
    /* 65 one-second entries into 60 points: 55 of one second, 5 of two, as
     * the text timeline groups them. */
    double count[120], secs[120], out[120];
    for (size_t i = 0; i < 120; i++) {
        count[i] = (double)i;
        secs[i] = 1;
    }
    size_t m = svg_runs(65, 60), ones = 0, twos = 0, covered = 0;
    for (size_t i = 0; i < m; i++) {
        size_t len = svg_run_start(65, m, i + 1) - svg_run_start(65, m, i);
        ones += len == 1;
        twos += len == 2;
        covered += len;
    }
    T_CHECK("65 s in 60 runs of 1-2 s", m == 60 && ones == 55 && twos == 5 && covered == 65, "%zu %zu %zu %zu", m,
            ones, twos, covered);
    m = svg_coarsen_rate(count, secs, 120, 60, out);
    T_CHECK("120 s in 60 points of 2 s", m == 60 && near(out[0], 0.5) && near(out[59], 118.5), "%zu %g %g", m, out[0],
            out[59]);
    m = svg_coarsen_rate(count, secs, 10, 60, out);
    T_CHECK("short series kept whole", m == 10 && near(out[3], 3), "%zu %g", m, out[3]);
    double lat[6] = { 1, 7, NAN, NAN, 3, NAN };
    m = svg_coarsen_max(lat, 6, 3, out);
    T_CHECK("coarsened latency keeps the worst", m == 3 && near(out[0], 7) && isnan(out[1]) && near(out[2], 3),
            "%zu %g %g %g", m, out[0], out[1], out[2]);
    double half[2] = { 10, 30 }, hs[2] = { 1, 0.5 };
    m = svg_coarsen_rate(half, hs, 2, 1, out);
    T_CHECK("rate over the run's seconds", m == 1 && near(out[0], 40 / 1.5), "%g", out[0]);
}

static void draw_escaped(FILE *f, const void *arg)
{
    svg_escape(f, arg);
}

static void test_escape(void)
{
    char *e = captured(draw_escaped, "<a href=\"x\">'&'</a>");
    T_CHECK("escaped", e && strcmp(e, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;") == 0, "%s", e);
    free(e);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The part of page from the chart's figure to its end. */
static char *figure(const char *page, const char *id)
{
    char open[64];
    snprintf(open, sizeof open, "<figure class=\"chart\" id=\"%s\">", id);
    const char *a = strstr(page, open), *b = a ? strstr(a, "</figure>") : NULL;
    return b ? strndup(a, (size_t)(b - a)) : NULL;
}

static const char report[] =
    "{\"label\": \"<script>alert(1)</script>\", \"url\": \"http://ada:***@127.0.0.1:1/a?b=\\\"c\\\"&d\","
    " \"protocol\": \"HTTP/1.1\", \"threads\": 1, \"connections\": 2, \"durationSeconds\": 3,"
    " \"interrupted\": false, \"requests\": {\"total\": 30, \"ok\": 28, \"errors\": 2, \"connectErrors\": 0,"
    " \"non2xx\": 1}, \"requestsPerSec\": 10, \"bytesReceivedPerSec\": 100,"
    " \"statusCodes\": {\"200\": 27, \"404\": 1}, \"errorKinds\": {\"timeout <x>\": 2},"
    " \"tls\": null, \"startTime\": 1796456259.297204091, \"shard\": {\"index\": 0, \"count\": 1},"
    " \"latencySeconds\": {\"min\": 0.001, \"mean\": 0.002, \"max\": 0.009, \"percentiles\": {\"p10\": 0.001,"
    " \"p50\": 0.002, \"p90\": 0.003, \"p99\": 0.008, \"p99.9\": 0.009}},"
    " \"phases\": {\"connect\": {\"count\": 2, \"min\": 0.0001, \"mean\": 0.0001, \"max\": 0.0002,"
    " \"percentiles\": {\"p50\": 0.0001, \"p90\": 0.0002, \"p99\": 0.0002, \"p99.9\": 0.0002}}},"
    " \"timeline\": [{\"start\": 0, \"seconds\": 1, \"ok\": 10, \"errors\": 0, \"bytesReceived\": 1, \"p50\": 0.002,"
    " \"p99\": 0.008}, {\"start\": 1, \"seconds\": 1, \"ok\": 8, \"errors\": 2, \"bytesReceived\": 1, \"p50\": 0.002,"
    " \"p99\": 0.009}, {\"start\": 2, \"seconds\": 1, \"ok\": 0, \"errors\": 0, \"bytesReceived\": 0, \"p50\": 0,"
    " \"p99\": 0}]}";

static void test_page(void)
{
    char text[sizeof report];
    memcpy(text, report, sizeof report);
    char err[256];
    struct json *r = json_parse(text, strlen(text), err, sizeof err);
    T_CHECK("the test report parses", r, "%s", err);
    if (!r)
        return;
    T_CHECK("a report", html_not_a_report(r) == NULL, "%s", html_not_a_report(r));
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    const struct json *one[] = { r, r };
    int rc = f ? html_write(f, one, 1, err, sizeof err) : -1;
    if (f)
        fclose(f);
    T_CHECK("page written", rc == 0 && page, "%s", err);
    if (rc == 0 && page) {
        T_CHECK("label escaped", !strstr(page, "<script>alert") && strstr(page, "&lt;script&gt;alert(1)"), "raw");
        T_CHECK("url escaped", strstr(page, "http://ada:***@127.0.0.1:1/a?b=&quot;c&quot;&amp;d") != NULL, "no");
        T_CHECK("error kind escaped", strstr(page, "timeout &lt;x&gt;") && !strstr(page, "timeout <x>"), "raw");
        /* No address but the report's own: the SVG namespace is not needed inline. */
        T_CHECK("no other address", count(page, "http://") == count(page, "http://ada:***@127.0.0.1:1/") &&
                                        !strstr(page, "https://"), "%zu http://", count(page, "http://"));
        static const struct {
            const char *id, *what;
            size_t n;
        } series[] = { { "chart-rate", "class=\"series ", 2 },    /* requests/s, errors/s */
                       { "chart-latency", "class=\"series ", 2 }, /* p50 and p99: no timeline histograms */
                       { "chart-spectrum", "class=\"series ", 1 },
                       { "chart-phases", "class=\"bar ", 1 },
                       { "chart-status", "class=\"bar ", 2 },
                       { "chart-errors", "class=\"bar ", 1 } };
        for (size_t i = 0; i < sizeof series / sizeof series[0]; i++) {
            char *fig = figure(page, series[i].id);
            size_t got = fig ? count(fig, series[i].what) : 0;
            char name[64];
            snprintf(name, sizeof name, "%s series", series[i].id);
            T_CHECK(name, got == series[i].n, "%zu, not %zu", got, series[i].n);
            free(fig);
        }
        /* A point at 2 s had no response: the latency line breaks there. */
        char *fig = figure(page, "chart-latency");
        T_CHECK("latency of an empty second left out", fig && strstr(fig, "data-y=\"2,2,\"") != NULL, "%s",
                fig ? "no" : "no figure");
        free(fig);
    }
    free(page);
    page = NULL;
    f = open_memstream(&page, &len);
    rc = f ? html_write(f, one, 2, err, sizeof err) : -1;
    if (f)
        fclose(f);
    char *fig = rc == 0 && page ? figure(page, "chart-rate") : NULL;
    T_CHECK("two reports overlaid", fig && count(fig, "class=\"series ") == 4 && strstr(page, "Comparison"), "%d",
            rc);
    free(fig);
    free(page);
    json_free(r);
    char bad[] = "{\"url\": 3}";
    r = json_parse(bad, strlen(bad), err, sizeof err);
    T_CHECK("not a report", r && html_not_a_report(r) != NULL, "accepted");
    const struct json *badone[] = { r };
    f = open_memstream(&page, &len);
    rc = f ? html_write(f, badone, 1, err, sizeof err) : 0;
    if (f)
        fclose(f);
    T_CHECK("html_write refuses it", rc < 0 && strstr(err, "not an shb report"), "%s", err);
    free(page);
    json_free(r);
}

int main(void)
{
    test_scales();
    test_nice();
    test_ticks();
    test_num();
    test_path();
    test_coarsen();
    test_escape();
    test_page();
    T_DONE();
}
