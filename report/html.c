/* html.c — the HTML report's page (html.h): a header with each run's
 * settings and figures, then the charts, drawn here as SVG from the JSON
 * reports. Styles and the script are inline; the page asks for nothing over
 * any network. The SVG is complete without the script, which only adds
 * hover values, the latency chart's log scale and toggling series. */
#include "report/html.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/version.h"
#include "report/hdr.h"
#include "report/svg.h"
#include "stats/hist.h"
#include "stats/timeline.h"

/* A timeline chart has at most this many points: a 10-minute run gets one
 * every 2 s, which keeps the page far under 200 KB. */
#define TL_POINTS 300
/* The percentile spectrum: x from 0 to 5 nines (99.999 %) in 0.05 steps. */
#define SPEC_NINES 5.0
#define SPEC_POINTS 101
/* The latency-over-time lines, in this order. */
#define LAT_LINES 4
static const char *const lat_names[LAT_LINES] = { "p50", "p90", "p99", "max" };

/* Chart geometry (SVG user units; the SVG scales to the page's width). */
#define W 760.0
#define H 260.0
#define ML 64.0 /* room for the y labels */
#define MR 16.0
#define MT 12.0
#define MB 34.0 /* room for the x labels and the axis name */

/* One report as the page draws it. Latencies in ms, rates per second. */
struct run {
    const struct json *r;
    char name[200];
    double warmup_s, duration_s;
    size_t n;                         /* timeline points (coarsened) */
    double t[TL_POINTS];              /* each point's middle, seconds */
    double rps[TL_POINTS], eps[TL_POINTS], asked[TL_POINTS];
    bool paced;                       /* -q: asked is the requested rate */
    double lat[LAT_LINES][TL_POINTS]; /* NaN where a point had no response */
    bool lat_have[LAT_LINES];         /* p90 and max need the timeline's histograms */
    double spec_x[2][SPEC_POINTS], spec_y[2][SPEC_POINTS]; /* latency, service time */
    size_t nspec[2];
    bool exact_spec[2];               /* from the whole histogram */
};

/* ---- reading the report ------------------------------------------------ */

static double num(const struct json *obj, const char *key)
{
    double v;
    return json_to_double(json_get(obj, key), &v) == 0 ? v : NAN;
}

static const char *str(const struct json *obj, const char *key)
{
    const struct json *v = json_get(obj, key);
    return v && v->type == JSON_STRING ? v->text : NULL;
}

const char *html_not_a_report(const struct json *r)
{
    if (!r || r->type != JSON_OBJECT)
        return "not a JSON object";
    if (!str(r, "url"))
        return "no \"url\"";
    const struct json *q = json_get(r, "requests");
    if (!q || q->type != JSON_OBJECT || isnan(num(q, "total")))
        return "no \"requests\"";
    if (isnan(num(r, "durationSeconds")))
        return "no \"durationSeconds\"";
    return NULL;
}

/* Percentile p of a whole histogram (seconds -> ms); min at p = 0. */
static double hist_ms(const struct hist *h, double p)
{
    return (double)(p <= 0 ? h->min : hist_percentile(h, p)) / 1e6;
}

/* The spectrum of lat (a latencySeconds-shaped object) into run slot k:
 * from its histogram when it has one, else from its percentiles. */
static void read_spectrum(struct run *u, size_t k, const struct json *lat)
{
    u->nspec[k] = 0;
    if (!lat || lat->type != JSON_OBJECT)
        return;
    const struct json *b64 = json_get(lat, "histogram");
    struct hist h;
    uint64_t min, max;
    char why[160];
    if (b64 && b64->type == JSON_STRING && json_to_ns(json_get(lat, "min"), &min) == 0 &&
        json_to_ns(json_get(lat, "max"), &max) == 0 && hist_init(&h) == 0) {
        if (hdr_decode_base64_add(b64->text, b64->len, &h, why, sizeof why) == 0 && h.count) {
            h.min = min;
            h.max = max;
            for (size_t i = 0; i < SPEC_POINTS; i++) {
                double nines = SPEC_NINES * (double)i / (SPEC_POINTS - 1);
                u->spec_x[k][i] = nines;
                u->spec_y[k][i] = hist_ms(&h, 100 * (1 - pow(10, -nines)));
            }
            u->nspec[k] = SPEC_POINTS;
            u->exact_spec[k] = true;
        }
        hist_free(&h);
        if (u->nspec[k])
            return;
    }
    /* The report's own percentiles: p10 to p99.99, and min at 0. */
    double v = num(lat, "min");
    if (!isnan(v)) {
        u->spec_x[k][0] = 0;
        u->spec_y[k][0] = v * 1e3;
        u->nspec[k] = 1;
    }
    const struct json *ps = json_get(lat, "percentiles");
    for (const struct json *p = ps && ps->type == JSON_OBJECT ? ps->child : NULL; p && u->nspec[k] < SPEC_POINTS;
         p = p->next) {
        double pct = p->key[0] == 'p' ? atof(p->key + 1) : NAN;
        if (!(pct > 0 && pct < 100) || json_to_double(p, &v) < 0)
            continue;
        u->spec_x[k][u->nspec[k]] = -log10(1 - pct / 100);
        u->spec_y[k][u->nspec[k]++] = v * 1e3;
    }
}

/* The asked-for rate t seconds into the measured window: -q's, or a
 * ramp's from..to over -z (warm-up and measured window together). */
static double asked_at(const struct json *rate, double warmup_s, double duration_s, double t)
{
    double from = num(rate, "from"), to = num(rate, "to");
    if (isnan(from) || isnan(to))
        return num(rate, "requested");
    double span = warmup_s + duration_s;
    return span > 0 ? from + (to - from) * (warmup_s + t) / span : to;
}

/* The timeline, coarsened to TL_POINTS. 0, or -1 when out of memory. */
static int read_timeline(struct run *u)
{
    const struct json *tl = json_get(u->r, "timeline");
    size_t n = 0;
    for (const struct json *e = tl && tl->type == JSON_ARRAY ? tl->child : NULL; e; e = e->next)
        n++;
    /* The last entry is what was left of the window after the last whole
     * second: under half a second, its rate is noise, so it is left out. */
    const struct json *last = n ? tl->child : NULL;
    while (last && last->next)
        last = last->next;
    if (n > 1 && num(last, "seconds") < 0.5)
        n--;
    if (n == 0)
        return 0;
    enum { START, SECS, OK, ERR, ALL, L0 };
    double *col[L0 + LAT_LINES];
    for (size_t c = 0; c < L0 + LAT_LINES; c++)
        col[c] = malloc(n * sizeof(double));
    struct tl_entry *te = malloc(sizeof *te);
    struct hist h;
    bool hist_ok = hist_init(&h) == 0;
    int rc = 0;
    for (size_t c = 0; c < L0 + LAT_LINES; c++)
        if (!col[c])
            rc = -1;
    if (!te || !hist_ok)
        rc = -1;
    u->lat_have[0] = u->lat_have[2] = true;
    u->lat_have[1] = u->lat_have[3] = rc == 0;
    size_t i = 0;
    for (const struct json *e = tl->child; e && i < n && rc == 0; e = e->next, i++) {
        col[START][i] = num(e, "start");
        col[SECS][i] = num(e, "seconds");
        col[OK][i] = num(e, "ok");
        col[ERR][i] = num(e, "errors");
        col[ALL][i] = col[OK][i] + col[ERR][i];
        bool answered = col[OK][i] > 0;
        col[L0 + 0][i] = answered ? num(e, "p50") * 1e3 : NAN;
        col[L0 + 2][i] = answered ? num(e, "p99") * 1e3 : NAN;
        col[L0 + 1][i] = col[L0 + 3][i] = NAN;
        const struct json *b64 = json_get(e, "histogram");
        char why[160];
        uint64_t ok;
        memset(te, 0, sizeof *te);
        if (b64 && b64->type == JSON_STRING && json_to_u64(json_get(e, "ok"), &ok) == 0 &&
            hdr_decode_base64_add(b64->text, b64->len, &h, why, sizeof why) == 0) {
            te->ok = ok;
            tl_entry_add_hist(te, &h); /* empties h */
            if (answered) {
                col[L0 + 1][i] = (double)tl_percentile(te, 90) / 1e6;
                col[L0 + 3][i] = (double)tl_percentile(te, 100) / 1e6;
            }
        } else {
            u->lat_have[1] = u->lat_have[3] = false;
        }
    }
    if (rc == 0) {
        size_t m = svg_runs(n, TL_POINTS);
        for (size_t k = 0; k < m; k++) {
            size_t a = svg_run_start(n, m, k), b = svg_run_start(n, m, k + 1) - 1;
            u->t[k] = (col[START][a] + col[START][b] + col[SECS][b]) / 2;
        }
        svg_coarsen_rate(col[ALL], col[SECS], n, TL_POINTS, u->rps);
        svg_coarsen_rate(col[ERR], col[SECS], n, TL_POINTS, u->eps);
        for (size_t l = 0; l < LAT_LINES; l++)
            svg_coarsen_max(col[L0 + l], n, TL_POINTS, u->lat[l]);
        const struct json *rate = json_get(u->r, "rate");
        u->paced = rate && rate->type == JSON_OBJECT;
        for (size_t k = 0; k < m && u->paced; k++)
            u->asked[k] = asked_at(rate, u->warmup_s, u->duration_s, u->t[k]);
        u->n = m;
    }
    for (size_t c = 0; c < L0 + LAT_LINES; c++)
        free(col[c]);
    free(te);
    if (hist_ok)
        hist_free(&h);
    return rc;
}

static int read_run(struct run *u, const struct json *r)
{
    memset(u, 0, sizeof *u);
    u->r = r;
    const char *label = str(r, "label");
    snprintf(u->name, sizeof u->name, "%s", label ? label : str(r, "url"));
    u->duration_s = num(r, "durationSeconds");
    u->warmup_s = num(json_get(r, "warmup"), "durationSeconds");
    if (isnan(u->warmup_s))
        u->warmup_s = 0;
    read_spectrum(u, 0, json_get(r, "latencySeconds"));
    read_spectrum(u, 1, json_get(r, "serviceTimeSeconds"));
    return read_timeline(u);
}

/* ---- drawing ------------------------------------------------------------ */

/* A line on a chart: its points, colour (palette index), dash style and
 * legend text; lines of one legend entry share a toggle (s). */
struct line {
    const double *x, *y;
    size_t n;
    unsigned colour, style, s;
    char name[240];
};

/* Numbers for the hover readout: "v,v,v" (NaN as empty). */
static void put_list(FILE *f, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        if (!isnan(v[i]))
            fprintf(f, "%.6g", v[i]);
    }
}

/* Gridlines and labels of the y axis y (left) over the plot's width. */
static void y_grid(FILE *f, const struct svg_axis *y)
{
    double ticks[16];
    size_t nt = svg_ticks(y, ticks, y->log ? 16 : 6);
    for (size_t i = 0; i < nt; i++) {
        char lab[32];
        double py = svg_at(y, ticks[i]);
        svg_num(lab, sizeof lab, ticks[i]);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, W - MR, py, py);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", ML - 6, py + 4, lab);
    }
}

/* The x axis: ticks (named[i] when given, else svg_num) and its name. */
static void x_axis(FILE *f, const struct svg_axis *x, const double *ticks, const char *const *named, size_t nt,
                   const char *xname)
{
    double own[16];
    if (!ticks) {
        nt = svg_ticks(x, own, 9);
        ticks = own;
    }
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, W - MR, H - MB, H - MB);
    for (size_t i = 0; i < nt; i++) {
        char lab[32];
        double px = svg_at(x, ticks[i]);
        if (named)
            snprintf(lab, sizeof lab, "%s", named[i]);
        else
            svg_num(lab, sizeof lab, ticks[i]);
        fprintf(f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", px, px, H - MB, H - MB + 4);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", px, H - MB + 16, lab);
    }
    fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (ML + W - MR) / 2, H - 4);
    svg_escape(f, xname);
    fputs("</text>", f);
}

/* The lines on axes x, y; with data for the readout when hover. */
static void plot_lines(FILE *f, const struct svg_axis *x, const struct svg_axis *y, const struct line *l, size_t n,
                       bool hover)
{
    y_grid(f, y);
    for (size_t i = 0; i < n; i++) {
        if (l[i].n == 0)
            continue;
        fprintf(f, "<path class=\"%s c%u st%u\" data-s=\"%u\"", hover ? "series" : "series-log", l[i].colour,
                l[i].style, l[i].s);
        if (hover) {
            fputs(" data-name=\"", f);
            svg_escape(f, l[i].name);
            fputs("\" data-x=\"", f);
            put_list(f, l[i].x, l[i].n);
            fputs("\" data-y=\"", f);
            put_list(f, l[i].y, l[i].n);
            fputc('"', f);
        }
        fputs(" d=\"", f);
        svg_path(f, x, y, l[i].x, l[i].y, l[i].n);
        fputs("\"/>", f);
    }
}

struct chart {
    const char *id, *title, *xname, *yname, *unit;
    struct svg_axis x, y;
    bool log_too;                   /* the y axis can be switched to log */
    const double *xticks;           /* fixed x ticks (with their names), or NULL */
    const char *const *xtick_names;
    size_t nxticks;
    double shade_lo, shade_hi;      /* a shaded x band (the warm-up), when lo < hi */
    const char *shade_name;
};

static void legend(FILE *f, const struct line *l, size_t n)
{
    fputs("<div class=\"legend\">", f);
    for (size_t i = 0; i < n; i++) {
        if (l[i].n == 0 || (i && l[i - 1].s == l[i].s))
            continue;
        fprintf(f, "<button type=\"button\" class=\"key\" data-s=\"%u\"><i class=\"c%u st%u\"></i>", l[i].s,
                l[i].colour, l[i].style);
        svg_escape(f, l[i].name);
        fputs("</button>", f);
    }
    fputs("</div>", f);
}

static void line_chart(FILE *f, const struct chart *c, const struct line *l, size_t n)
{
    fprintf(f, "<figure class=\"chart\" id=\"%s\"><figcaption>", c->id);
    svg_escape(f, c->title);
    if (c->log_too)
        fputs(" <button type=\"button\" class=\"logbtn\">log scale</button>", f);
    fprintf(f, "</figcaption>\n<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" data-unit=\"%s\" data-x0=\"%g\" "
               "data-x1=\"%g\" data-px0=\"%g\" data-px1=\"%g\"><title>",
            W, H, c->unit, c->x.lo, c->x.hi, c->x.px0, c->x.px1);
    svg_escape(f, c->title);
    fputs("</title>", f);
    if (c->shade_lo < c->shade_hi) {
        double a = svg_at(&c->x, c->shade_lo), b = svg_at(&c->x, c->shade_hi);
        fprintf(f, "<rect class=\"shade\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", a, MT, b - a,
                H - MB - MT);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (a + b) / 2, MT + 12);
        svg_escape(f, c->shade_name);
        fputs("</text>", f);
    }
    fputs("<g class=\"lin-only\">", f);
    plot_lines(f, &c->x, &c->y, l, n, true);
    fputs("</g>", f);
    if (c->log_too) {
        struct svg_axis y = c->y;
        y.log = true;
        y.lo = INFINITY;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < l[i].n; k++)
                if (l[i].y[k] > 0 && l[i].y[k] < y.lo)
                    y.lo = l[i].y[k];
        if (isinf(y.lo))
            y.lo = y.hi / 10;
        svg_nice(&y);
        fputs("<g class=\"log-only\">", f);
        plot_lines(f, &c->x, &y, l, n, false);
        fputs("</g>", f);
    }
    x_axis(f, &c->x, c->xticks, c->xtick_names, c->nxticks, c->xname);
    fprintf(f, "<text class=\"name\" transform=\"rotate(-90)\" x=\"%.1f\" y=\"12\" text-anchor=\"middle\">",
            -(MT + H - MB) / 2);
    svg_escape(f, c->yname);
    fprintf(f, "</text><line class=\"cursor\" x1=\"0\" x2=\"0\" y1=\"%.1f\" y2=\"%.1f\"/></svg>\n", MT, H - MB);
    legend(f, l, n);
    fputs("<div class=\"readout\" aria-live=\"polite\"></div></figure>\n", f);
}

static struct svg_axis x_axis_of(double lo, double hi, bool nice)
{
    struct svg_axis a = { .lo = lo, .hi = hi, .px0 = ML, .px1 = W - MR };
    if (nice)
        svg_nice(&a);
    return a;
}

/* A y axis from 0 to the highest of the lines (linear). */
static struct svg_axis y_axis_of(const struct line *l, size_t n)
{
    struct svg_axis a = { .lo = 0, .hi = 0, .px0 = H - MB, .px1 = MT };
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < l[i].n; k++)
            if (l[i].y[k] > a.hi)
                a.hi = l[i].y[k];
    svg_nice(&a);
    return a;
}

/* The lines' colour: the run's when there are several, else the i-th
 * of this chart's own. */
static unsigned colour_of(size_t run, size_t nruns, size_t own)
{
    return (unsigned)(nruns > 1 ? run : own) % 8;
}

static void name_line(struct line *l, const struct run *u, size_t nruns, const char *what)
{
    if (nruns > 1)
        snprintf(l->name, sizeof l->name, "%s: %s", u->name, what);
    else
        snprintf(l->name, sizeof l->name, "%s", what);
}

static void rate_chart(FILE *f, const struct run *u, size_t nruns, struct line *l)
{
    size_t n = 0;
    double lo = 0, hi = 0, warm = 0;
    for (size_t i = 0; i < nruns; i++) {
        hi = fmax(hi, u[i].duration_s);
        warm = fmax(warm, u[i].warmup_s);
        struct line rps = { u[i].t, u[i].rps, u[i].n, colour_of(i, nruns, 0), 0, (unsigned)n, "" };
        name_line(&rps, &u[i], nruns, "requests/s");
        l[n++] = rps;
        struct line eps = { u[i].t, u[i].eps, u[i].n, colour_of(i, nruns, 3), 1, (unsigned)n, "" };
        name_line(&eps, &u[i], nruns, "errors/s");
        l[n++] = eps;
        if (u[i].paced) {
            struct line asked = { u[i].t, u[i].asked, u[i].n, colour_of(i, nruns, 1), 2, (unsigned)n, "" };
            name_line(&asked, &u[i], nruns, "asked for (-q)");
            l[n++] = asked;
        }
    }
    lo = -warm;
    struct chart c = {
        .id = "chart-rate", .title = "Requests and errors per second", .xname = "seconds into the measured window",
        .yname = "per second", .unit = "/s", .x = x_axis_of(lo, hi, true), .y = y_axis_of(l, n),
        .shade_lo = lo, .shade_hi = 0, .shade_name = "warm-up (left out)",
    };
    line_chart(f, &c, l, n);
}

static void latency_chart(FILE *f, const struct run *u, size_t nruns, struct line *l)
{
    size_t n = 0;
    double hi = 0;
    for (size_t i = 0; i < nruns; i++) {
        hi = fmax(hi, u[i].duration_s);
        for (size_t k = 0; k < LAT_LINES; k++) {
            if (!u[i].lat_have[k])
                continue;
            struct line x = { u[i].t, u[i].lat[k], u[i].n, colour_of(i, nruns, k), nruns > 1 ? (unsigned)k : 0,
                              (unsigned)n, "" };
            name_line(&x, &u[i], nruns, lat_names[k]);
            l[n++] = x;
        }
    }
    struct chart c = {
        .id = "chart-latency", .title = "Latency over time (each point: the slowest second it covers)",
        .xname = "seconds into the measured window", .yname = "ms", .unit = "ms", .x = x_axis_of(0, hi, true),
        .y = y_axis_of(l, n), .log_too = true,
    };
    line_chart(f, &c, l, n);
}

static void spectrum_chart(FILE *f, const struct run *u, size_t nruns, struct line *l)
{
    static const double ticks[] = { 0, 1, 2, 3, 4, 5 };
    static const char *const names[] = { "0%", "90%", "99%", "99.9%", "99.99%", "99.999%" };
    static const char *const what[] = { "latency", "service time" };
    size_t n = 0;
    for (size_t i = 0; i < nruns; i++)
        for (size_t k = 0; k < 2; k++) {
            if (!u[i].nspec[k])
                continue;
            struct line x = { u[i].spec_x[k], u[i].spec_y[k], u[i].nspec[k], colour_of(i, nruns, k), (unsigned)k,
                              (unsigned)n, "" };
            name_line(&x, &u[i], nruns, what[k]);
            l[n++] = x;
        }
    struct svg_axis y = y_axis_of(l, n);
    y.log = true;
    y.lo = INFINITY;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < l[i].n; k++)
            if (l[i].y[k] > 0 && l[i].y[k] < y.lo)
                y.lo = l[i].y[k];
    svg_nice(&y);
    struct chart c = {
        .id = "chart-spectrum", .title = "Latency by percentile", .xname = "percentile", .yname = "ms (log)",
        .unit = "ms", .x = x_axis_of(0, SPEC_NINES, false), .y = y, .xticks = ticks, .xtick_names = names,
        .nxticks = 6,
    };
    line_chart(f, &c, l, n);
}

/* ---- bar charts: phases, status codes, error kinds ---------------------- */

struct bar {
    char label[160];
    unsigned colour, s;
    double v[4]; /* nested bars, longest first; NaN: none */
    char text[64];
};

/* Horizontal bars, a row each, against a linear x from 0. */
static void bar_chart(FILE *f, const char *id, const char *title, const char *xname, const struct bar *b, size_t n,
                      const char *note)
{
    fprintf(f, "<figure class=\"chart\" id=\"%s\"><figcaption>", id);
    svg_escape(f, title);
    fputs("</figcaption>\n", f);
    if (n == 0) {
        fputs("<p class=\"none\">", f);
        svg_escape(f, note);
        fputs("</p></figure>\n", f);
        return;
    }
    const double row = 20, left = 220;
    double h = MT + row * (double)n + MB;
    struct svg_axis x = { .lo = 0, .hi = 0, .px0 = left, .px1 = W - MR - 90 };
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < 4; k++)
            if (b[i].v[k] > x.hi)
                x.hi = b[i].v[k];
    svg_nice(&x);
    fprintf(f, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>", W, h);
    svg_escape(f, title);
    fputs("</title>", f);
    for (size_t i = 0; i < n; i++) {
        double y = MT + row * (double)i;
        fprintf(f, "<g class=\"bar c%u\" data-s=\"%u\"><title>", b[i].colour, b[i].s);
        svg_escape(f, b[i].label);
        fputs(": ", f);
        svg_escape(f, b[i].text);
        fprintf(f, "</title><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 6, y + 14);
        svg_escape(f, b[i].label);
        fputs("</text>", f);
        for (size_t k = 0; k < 4; k++)
            if (!isnan(b[i].v[k]))
                fprintf(f, "<rect class=\"b%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", k, left,
                        y + 3, fmax(svg_at(&x, b[i].v[k]) - left, 1), row - 6);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">", svg_at(&x, b[i].v[0]) + 6, y + 14);
        svg_escape(f, b[i].text);
        fputs("</text></g>", f);
    }
    struct svg_axis xa = x;
    double ticks[8];
    size_t nt = svg_ticks(&xa, ticks, 6);
    double base = h - MB;
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", left, x.px1, base, base);
    for (size_t i = 0; i < nt; i++) {
        char lab[32];
        svg_num(lab, sizeof lab, ticks[i]);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", svg_at(&x, ticks[i]),
                base + 16, lab);
    }
    fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (left + x.px1) / 2, h - 4);
    svg_escape(f, xname);
    fputs("</text></svg></figure>\n", f);
}

static void bar_name(struct bar *b, const struct run *u, size_t nruns, const char *what)
{
    if (nruns > 1)
        snprintf(b->label, sizeof b->label, "%s (%s)", what, u->name);
    else
        snprintf(b->label, sizeof b->label, "%s", what);
}

static const char *const phase_keys[] = { "connect", "tlsHandshake", "quicHandshake", "firstByte" };
static const char *const phase_names[] = { "connect", "TLS handshake", "QUIC handshake", "first byte" };

static size_t phase_bars(const struct run *u, size_t nruns, struct bar *b, size_t cap)
{
    static const char *const pk[] = { "p99.9", "p99", "p90", "p50" };
    size_t n = 0;
    for (size_t p = 0; p < 4; p++)
        for (size_t i = 0; i < nruns && n < cap; i++) {
            const struct json *ph = json_path(u[i].r, "phases", phase_keys[p], NULL);
            const struct json *ps = json_get(ph, "percentiles");
            if (!ps)
                continue;
            struct bar *x = &b[n++];
            memset(x, 0, sizeof *x);
            bar_name(x, &u[i], nruns, phase_names[p]);
            x->colour = colour_of(i, nruns, p);
            x->s = (unsigned)i;
            for (size_t k = 0; k < 4; k++)
                x->v[k] = num(ps, pk[k]) * 1e3;
            snprintf(x->text, sizeof x->text, "p50 %.3g, p99 %.3g, p99.9 %.3g ms", x->v[3], x->v[1], x->v[0]);
        }
    return n;
}

/* The members of each run's obj (statusCodes, errorKinds) as bars. */
static size_t count_bars(const struct run *u, size_t nruns, const char *obj, unsigned own, struct bar *b,
                         size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < nruns; i++) {
        const struct json *o = json_get(u[i].r, obj);
        for (const struct json *c = o && o->type == JSON_OBJECT ? o->child : NULL; c && n < cap; c = c->next) {
            double v;
            if (json_to_double(c, &v) < 0)
                continue;
            struct bar *x = &b[n++];
            memset(x, 0, sizeof *x);
            bar_name(x, &u[i], nruns, c->key);
            x->colour = colour_of(i, nruns, own);
            x->s = (unsigned)i;
            x->v[0] = v;
            x->v[1] = x->v[2] = x->v[3] = NAN;
            snprintf(x->text, sizeof x->text, "%.0f", v);
        }
    }
    return n;
}

/* ---- the header: settings and figures ------------------------------------ */

static void cell_text(FILE *f, const char *s)
{
    fputs("<td>", f);
    svg_escape(f, s ? s : "-");
    fputs("</td>", f);
}

/* v with that many decimals, "-" when unknown. */
static void cell_num(FILE *f, double v, int places)
{
    char b[64];
    if (isnan(v))
        snprintf(b, sizeof b, "-");
    else
        snprintf(b, sizeof b, "%.*f", places, v);
    cell_text(f, b);
}

static void row_head(FILE *f, const char *name)
{
    fputs("<tr><th>", f);
    svg_escape(f, name);
    fputs("</th>", f);
}

static void tls_text(char *out, size_t cap, const struct json *tls)
{
    if (!tls || tls->type != JSON_OBJECT) {
        snprintf(out, cap, "none");
        return;
    }
    const char *alpn = str(tls, "alpn"), *group = str(tls, "group");
    snprintf(out, cap, "%s, %s, %s, ALPN %s", str(tls, "version") ? str(tls, "version") : "?",
             str(tls, "cipher") ? str(tls, "cipher") : "?", group ? group : "RSA key exchange", alpn ? alpn : "none");
}

static void rate_text(char *out, size_t cap, const struct json *r)
{
    const struct json *q = json_get(r, "rate");
    if (!q) {
        snprintf(out, cap, "closed model (as fast as answers come)");
        return;
    }
    double from = num(q, "from"), to = num(q, "to");
    if (!isnan(from))
        snprintf(out, cap, "ramp %.1f to %.1f/s (mean %.1f/s), achieved %.1f/s", from, to, num(q, "requested"),
                 num(q, "achieved"));
    else
        snprintf(out, cap, "%.1f/s asked, %.1f/s achieved", num(q, "requested"), num(q, "achieved"));
}

static void window_text(char *out, size_t cap, const struct run *u)
{
    double start = num(u->r, "startTime");
    char when[48] = "";
    if (!isnan(start)) {
        time_t t = (time_t)start;
        struct tm tm;
        if (gmtime_r(&t, &tm))
            strftime(when, sizeof when, ", from %Y-%m-%d %H:%M:%S UTC", &tm);
    }
    if (u->warmup_s > 0)
        snprintf(out, cap, "%.3f s after a %.3f s warm-up%s", u->duration_s, u->warmup_s, when);
    else
        snprintf(out, cap, "%.3f s%s", u->duration_s, when);
}

static void shard_text(char *out, size_t cap, const struct json *r)
{
    const struct json *m = json_get(r, "merged");
    double idx = num(json_get(r, "shard"), "index"), cnt = num(json_get(r, "shard"), "count");
    if (m)
        snprintf(out, cap, "%.0f reports merged (shards of %.0f)", num(m, "reports"), num(m, "shardCount"));
    else if (cnt > 1)
        snprintf(out, cap, "%.0f of %.0f", idx, cnt);
    else
        snprintf(out, cap, "whole run");
}

static double lat_ms(const struct json *r, const char *obj, const char *key)
{
    const struct json *o = json_get(r, obj);
    double v = num(o, key);
    if (isnan(v))
        v = num(json_get(o, "percentiles"), key);
    return v * 1e3;
}

static void settings_table(FILE *f, const struct run *u, size_t nruns)
{
    char b[512];
    fputs("<table class=\"settings\"><thead><tr><th></th>", f);
    for (size_t i = 0; i < nruns; i++) {
        fprintf(f, "<th class=\"c%u\">", colour_of(i, nruns, 0));
        svg_escape(f, u[i].name);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    row_head(f, "URL");
    for (size_t i = 0; i < nruns; i++)
        cell_text(f, str(u[i].r, "url"));
    fputs("</tr>\n", f);
    row_head(f, "Protocol");
    for (size_t i = 0; i < nruns; i++)
        cell_text(f, str(u[i].r, "protocol"));
    fputs("</tr>\n", f);
    row_head(f, "TLS");
    for (size_t i = 0; i < nruns; i++) {
        tls_text(b, sizeof b, json_get(u[i].r, "tls"));
        cell_text(f, b);
    }
    fputs("</tr>\n", f);
    row_head(f, "Threads (-t)");
    for (size_t i = 0; i < nruns; i++)
        cell_num(f, num(u[i].r, "threads"), 0);
    fputs("</tr>\n", f);
    row_head(f, "Connections (-c)");
    for (size_t i = 0; i < nruns; i++)
        cell_num(f, num(u[i].r, "connections"), 0);
    fputs("</tr>\n", f);
    row_head(f, "Rate (-q)");
    for (size_t i = 0; i < nruns; i++) {
        rate_text(b, sizeof b, u[i].r);
        cell_text(f, b);
    }
    fputs("</tr>\n", f);
    row_head(f, "Duration");
    for (size_t i = 0; i < nruns; i++) {
        window_text(b, sizeof b, &u[i]);
        cell_text(f, b);
    }
    fputs("</tr>\n", f);
    row_head(f, "Shard");
    for (size_t i = 0; i < nruns; i++) {
        shard_text(b, sizeof b, u[i].r);
        cell_text(f, b);
    }
    fputs("</tr>\n", f);
    row_head(f, "Requests");
    for (size_t i = 0; i < nruns; i++) {
        const struct json *q = json_get(u[i].r, "requests");
        snprintf(b, sizeof b, "%.0f (%.0f ok, %.0f errors)%s", num(q, "total"), num(q, "ok"), num(q, "errors"),
                 json_get(u[i].r, "interrupted") && json_get(u[i].r, "interrupted")->type == JSON_TRUE
                     ? ", interrupted by a signal"
                     : "");
        cell_text(f, b);
    }
    fputs("</tr>\n", f);
    row_head(f, "Requests/s");
    for (size_t i = 0; i < nruns; i++)
        cell_num(f, num(u[i].r, "requestsPerSec"), 1);
    fputs("</tr>\n", f);
    row_head(f, "Received MB/s");
    for (size_t i = 0; i < nruns; i++)
        cell_num(f, num(u[i].r, "bytesReceivedPerSec") / (1024 * 1024), 2);
    fputs("</tr>\n", f);
    static const char *const keys[] = { "min", "mean", "p50", "p90", "p99", "p99.9", "max" };
    for (size_t k = 0; k < 2; k++) {
        const char *obj = k ? "serviceTimeSeconds" : "latencySeconds";
        if (k && !json_get(u[0].r, obj))
            continue;
        row_head(f, k ? "Service time (ms)" : "Latency (ms)");
        for (size_t i = 0; i < nruns; i++) {
            size_t len = 0;
            b[0] = '\0';
            for (size_t j = 0; j < sizeof keys / sizeof keys[0] && len < sizeof b; j++) {
                double v = lat_ms(u[i].r, obj, keys[j]);
                if (!isnan(v))
                    len += (size_t)snprintf(b + len, sizeof b - len, "%s%s %.3f", len ? "  " : "", keys[j], v);
            }
            cell_text(f, len ? b : "no responses");
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* Several reports: requests/s, p50, p99, errors, and the ratios to the
 * first, as the text report's comparison table has them. */
static void comparison_table(FILE *f, const struct run *u, size_t nruns)
{
    fputs("<h2>Comparison</h2><table class=\"compare\"><thead><tr><th>Target</th><th>Req/s</th><th>p50 (ms)</th>"
          "<th>p99 (ms)</th><th>Errors</th><th>Req/s ratio</th><th>p50 ratio</th><th>p99 ratio</th></tr></thead>"
          "<tbody>\n",
          f);
    double r0 = num(u[0].r, "requestsPerSec"), a0 = lat_ms(u[0].r, "latencySeconds", "p50"),
           b0 = lat_ms(u[0].r, "latencySeconds", "p99");
    for (size_t i = 0; i < nruns; i++) {
        double r = num(u[i].r, "requestsPerSec"), a = lat_ms(u[i].r, "latencySeconds", "p50"),
               b = lat_ms(u[i].r, "latencySeconds", "p99");
        fprintf(f, "<tr><th class=\"c%u\">", colour_of(i, nruns, 0));
        svg_escape(f, u[i].name);
        fputs("</th>", f);
        cell_num(f, r, 1);
        cell_num(f, a, 3);
        cell_num(f, b, 3);
        cell_num(f, num(json_get(u[i].r, "requests"), "errors"), 0);
        cell_num(f, r0 > 0 ? r / r0 : NAN, 2);
        cell_num(f, a0 > 0 ? a / a0 : NAN, 2);
        cell_num(f, b0 > 0 ? b / b0 : NAN, 2);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* ---- the page ------------------------------------------------------------ */

static const char style[] =
    ":root{--bg:#fff;--fg:#1b1b1b;--dim:#666;--grid:#e3e3e3;--shade:rgba(120,120,120,.12);"
    "--c0:#1f6fd1;--c1:#d9480f;--c2:#2b8a3e;--c3:#c2255c;--c4:#7048e8;--c5:#e67700;--c6:#0c8599;--c7:#5c5f66}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e4e4e4;--dim:#9a9a9a;--grid:#30343a;"
    "--shade:rgba(200,200,200,.10);--c0:#74a9f5;--c1:#ff8a50;--c2:#69db7c;--c3:#f783ac;--c4:#b197fc;"
    "--c5:#ffc078;--c6:#66d9e8;--c7:#adb5bd}}\n"
    "body{background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;"
    "max-width:960px;padding:0 1em}\n"
    "h1{font-size:1.4em;margin:0 0 .5em}h2{font-size:1.1em;margin:1.5em 0 .5em}\n"
    "table{border-collapse:collapse;margin:.5em 0;font-variant-numeric:tabular-nums}\n"
    "th,td{text-align:left;padding:.2em .8em .2em 0;vertical-align:top;border-bottom:1px solid var(--grid)}\n"
    "td{overflow-wrap:anywhere}.compare td{text-align:right}\n"
    "figure{margin:1.5em 0;break-inside:avoid}figcaption{font-weight:600;margin-bottom:.3em}\n"
    "svg{width:100%;height:auto;display:block}\n"
    "svg text{fill:var(--fg);font-size:11px}.tick{fill:var(--dim)}.name{font-size:11px}\n"
    ".grid{stroke:var(--grid)}.axis{stroke:var(--dim)}.shade{fill:var(--shade)}\n"
    ".cursor{stroke:var(--dim);stroke-dasharray:2 2;visibility:hidden}\n"
    "path.series,path.series-log{fill:none;stroke-width:1.6;stroke-linejoin:round}\n"
    ".st1{stroke-dasharray:6 3}.st2{stroke-dasharray:2 3}.st3{stroke-dasharray:8 3 2 3}\n"
    ".bar .b0{opacity:.3}.bar .b1{opacity:.5}.bar .b2{opacity:.75}\n"
    ".log-only{display:none}.log .log-only{display:inline}.log .lin-only{display:none}\n"
    ".off{display:none}.legend button.dim{opacity:.4}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:.3em 1em;margin-top:.3em}\n"
    ".legend button,.logbtn{font:inherit;color:inherit;background:none;border:1px solid var(--grid);"
    "border-radius:4px;padding:.1em .5em;cursor:pointer}\n"
    ".legend i{display:inline-block;width:1.6em;height:0;border-top:2px solid currentColor;vertical-align:middle;"
    "margin-right:.4em}\n.legend i.st1{border-top-style:dashed}.legend i.st2,.legend i.st3{border-top-style:dotted}\n"
    ".logbtn{display:none;font-weight:400;margin-left:.5em}.js .logbtn{display:inline}\n"
    ".log .logbtn{background:var(--grid)}\n"
    ".readout{min-height:1.4em;color:var(--dim);font-size:12px}.none{color:var(--dim)}\n"
    "footer{margin-top:2em;color:var(--dim);font-size:12px}\n"
    ".c0{stroke:var(--c0);fill:var(--c0);color:var(--c0)}.c1{stroke:var(--c1);fill:var(--c1);color:var(--c1)}\n"
    ".c2{stroke:var(--c2);fill:var(--c2);color:var(--c2)}.c3{stroke:var(--c3);fill:var(--c3);color:var(--c3)}\n"
    ".c4{stroke:var(--c4);fill:var(--c4);color:var(--c4)}.c5{stroke:var(--c5);fill:var(--c5);color:var(--c5)}\n"
    ".c6{stroke:var(--c6);fill:var(--c6);color:var(--c6)}.c7{stroke:var(--c7);fill:var(--c7);color:var(--c7)}\n"
    "@media print{body{max-width:none;margin:0}.legend,.logbtn,.readout{display:none}"
    ":root{--bg:#fff;--fg:#000}}\n";

/* The script: only adds to a page that is whole without it. */
static const char script[] =
    "document.documentElement.classList.add('js');\n"
    "document.querySelectorAll('figure.chart').forEach(function(fig){\n"
    " var svg=fig.querySelector('svg'),out=fig.querySelector('.readout');\n"
    " fig.querySelectorAll('.legend button').forEach(function(b){b.addEventListener('click',function(){\n"
    "  b.classList.toggle('dim');\n"
    "  fig.querySelectorAll('[data-s=\"'+b.dataset.s+'\"]').forEach(function(e){\n"
    "   if(e!==b&&!e.matches('.legend *'))e.classList.toggle('off');});});});\n"
    " var lb=fig.querySelector('.logbtn');if(lb)lb.addEventListener('click',function(){fig.classList.toggle('log');});\n"
    " if(!svg||!svg.dataset.unit)return;\n"
    " var d=svg.dataset,cur=svg.querySelector('.cursor');\n"
    " svg.addEventListener('mousemove',function(ev){\n"
    "  var r=svg.getBoundingClientRect(),vb=svg.viewBox.baseVal,px=(ev.clientX-r.left)*vb.width/r.width;\n"
    "  var x=+d.x0+(px-d.px0)*(d.x1-d.x0)/(d.px1-d.px0),parts=[];\n"
    "  svg.querySelectorAll('path.series').forEach(function(p){\n"
    "   if(p.classList.contains('off'))return;\n"
    "   var xs=p.dataset.x.split(','),ys=p.dataset.y.split(','),best=-1,bd=Infinity;\n"
    "   for(var i=0;i<xs.length;i++){var dd=Math.abs(xs[i]-x);if(dd<bd){bd=dd;best=i;}}\n"
    "   if(best>=0&&ys[best]!=='')parts.push(p.dataset.name+' '+(+ys[best]).toPrecision(4)+' '+d.unit);});\n"
    "  cur.setAttribute('x1',px);cur.setAttribute('x2',px);cur.style.visibility='visible';\n"
    "  out.textContent=(d.unit==='ms'&&fig.id==='chart-spectrum'?(100*(1-Math.pow(10,-x))).toPrecision(6)+'%: '"
    ":x.toFixed(1)+' s: ')+parts.join(', ');});\n"
    " svg.addEventListener('mouseleave',function(){cur.style.visibility='hidden';out.textContent='';});\n"
    "});\n";

int html_write(FILE *f, const struct json *const *reports, size_t n, char *err, size_t errlen)
{
    if (n == 0 || n > HTML_MAX_REPORTS) {
        snprintf(err, errlen, "%zu reports: a page holds 1 to %d", n, HTML_MAX_REPORTS);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *why = html_not_a_report(reports[i]);
        if (why) {
            snprintf(err, errlen, "report %zu: not an shb report: %s", i + 1, why);
            return -1;
        }
    }
    struct run *u = calloc(n, sizeof *u);
    size_t cap = n * 3 * LAT_LINES + 64;
    struct line *l = calloc(cap, sizeof *l);
    struct bar *b = calloc(cap * 4, sizeof *b);
    int rc = u && l && b ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = read_run(&u[i], reports[i]);
    if (rc < 0) {
        snprintf(err, errlen, "out of memory");
        free(u);
        free(l);
        free(b);
        return -1;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "script-src 'unsafe-inline'\">\n<title>shb: ",
          f);
    svg_escape(f, n > 1 ? "several targets" : u[0].name);
    fprintf(f, "</title>\n<style>\n%s</style></head><body>\n<h1>shb report: ", style);
    svg_escape(f, n > 1 ? "several targets side by side" : u[0].name);
    fputs("</h1>\n", f);
    settings_table(f, u, n);
    if (n > 1)
        comparison_table(f, u, n);
    fputs("<h2>Over time</h2>\n", f);
    rate_chart(f, u, n, l);
    latency_chart(f, u, n, l);
    fputs("<h2>Distribution</h2>\n", f);
    spectrum_chart(f, u, n, l);
    size_t nb = phase_bars(u, n, b, cap * 4);
    bar_chart(f, "chart-phases", "Phases (bars: p50, p90, p99, p99.9)", "ms", b, nb, "No phase was measured.");
    nb = count_bars(u, n, "statusCodes", 2, b, cap * 4);
    bar_chart(f, "chart-status", "Status codes", "responses", b, nb, "No response came.");
    nb = count_bars(u, n, "errorKinds", 3, b, cap * 4);
    bar_chart(f, "chart-errors", "Error kinds", "errors", b, nb, "No errors.");
    fputs("<footer>Drawn by shb ", f);
    svg_escape(f, shb_version);
    fprintf(f, " from %zu report%s. Timeline percentiles are within 7 %%; the tables' figures are exact.</footer>\n"
               "<script>\n%s</script>\n</body></html>\n",
            n, n > 1 ? "s" : "", script);
    free(u);
    free(l);
    free(b);
    if (ferror(f)) {
        snprintf(err, errlen, "cannot write the page");
        return -1;
    }
    return 0;
}
