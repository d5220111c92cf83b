/* html_data.c — a JSON report read for the HTML page (html_data.h). */
#include "report/html_data.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/hdr.h"
#include "report/html.h"
#include "report/svg.h"
#include "stats/hist.h"
#include "stats/timeline.h"

const char *const html_lat_names[HTML_LAT_LINES] = { "p50", "p90", "p99", "max" };

double html_num(const struct json *obj, const char *key)
{
    double v;
    return json_to_double(json_get(obj, key), &v) == 0 ? v : NAN;
}

const char *html_str(const struct json *obj, const char *key)
{
    const struct json *v = json_get(obj, key);
    return v && v->type == JSON_STRING ? v->text : NULL;
}

const char *html_not_a_report(const struct json *r)
{
    if (!r || r->type != JSON_OBJECT)
        return "not a JSON object";
    if (!html_str(r, "url"))
        return "no \"url\"";
    const struct json *q = json_get(r, "requests");
    if (!q || q->type != JSON_OBJECT || isnan(html_num(q, "total")))
        return "no \"requests\"";
    if (isnan(html_num(r, "durationSeconds")))
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
static void read_spectrum(struct html_report *u, size_t k, const struct json *lat)
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
            for (size_t i = 0; i < HTML_SPEC_POINTS; i++) {
                double nines = HTML_SPEC_NINES * (double)i / (HTML_SPEC_POINTS - 1);
                u->spec_x[k][i] = nines;
                u->spec_y[k][i] = hist_ms(&h, 100 * (1 - pow(10, -nines)));
            }
            u->nspec[k] = HTML_SPEC_POINTS;
            u->exact_spec[k] = true;
        }
        hist_free(&h);
        if (u->nspec[k])
            return;
    }
    /* The report's own percentiles: p10 to p99.99, and min at 0. */
    double v = html_num(lat, "min");
    if (!isnan(v)) {
        u->spec_x[k][0] = 0;
        u->spec_y[k][0] = v * 1e3;
        u->nspec[k] = 1;
    }
    const struct json *ps = json_get(lat, "percentiles");
    for (const struct json *p = ps && ps->type == JSON_OBJECT ? ps->child : NULL; p && u->nspec[k] < HTML_SPEC_POINTS;
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
    double from = html_num(rate, "from"), to = html_num(rate, "to");
    if (isnan(from) || isnan(to))
        return html_num(rate, "requested");
    double span = warmup_s + duration_s;
    return span > 0 ? from + (to - from) * (warmup_s + t) / span : to;
}

/* The timeline, coarsened to HTML_TL_POINTS. 0, or -1 when out of memory. */
static int read_timeline(struct html_report *u)
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
    if (n > 1 && html_num(last, "seconds") < 0.5)
        n--;
    if (n == 0)
        return 0;
    enum { START, SECS, OK, ERR, ALL, L0 };
    double *col[L0 + HTML_LAT_LINES];
    for (size_t c = 0; c < L0 + HTML_LAT_LINES; c++)
        col[c] = malloc(n * sizeof(double));
    struct tl_entry *te = malloc(sizeof *te);
    struct hist h;
    bool hist_ok = hist_init(&h) == 0;
    int rc = 0;
    for (size_t c = 0; c < L0 + HTML_LAT_LINES; c++)
        if (!col[c])
            rc = -1;
    if (!te || !hist_ok)
        rc = -1;
    u->lat_have[0] = u->lat_have[2] = true;
    u->lat_have[1] = u->lat_have[3] = rc == 0;
    size_t i = 0;
    for (const struct json *e = tl->child; e && i < n && rc == 0; e = e->next, i++) {
        col[START][i] = html_num(e, "start");
        col[SECS][i] = html_num(e, "seconds");
        col[OK][i] = html_num(e, "ok");
        col[ERR][i] = html_num(e, "errors");
        col[ALL][i] = col[OK][i] + col[ERR][i];
        bool answered = col[OK][i] > 0;
        col[L0 + 0][i] = answered ? html_num(e, "p50") * 1e3 : NAN;
        col[L0 + 2][i] = answered ? html_num(e, "p99") * 1e3 : NAN;
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
        size_t m = svg_runs(n, HTML_TL_POINTS);
        for (size_t k = 0; k < m; k++) {
            size_t a = svg_run_start(n, m, k), b = svg_run_start(n, m, k + 1) - 1;
            u->t[k] = (col[START][a] + col[START][b] + col[SECS][b]) / 2;
        }
        svg_coarsen_rate(col[ALL], col[SECS], n, HTML_TL_POINTS, u->rps);
        svg_coarsen_rate(col[ERR], col[SECS], n, HTML_TL_POINTS, u->eps);
        for (size_t l = 0; l < HTML_LAT_LINES; l++)
            svg_coarsen_max(col[L0 + l], n, HTML_TL_POINTS, u->lat[l]);
        const struct json *rate = json_get(u->r, "rate");
        u->paced = rate && rate->type == JSON_OBJECT;
        for (size_t k = 0; k < m && u->paced; k++)
            u->asked[k] = asked_at(rate, u->warmup_s, u->duration_s, u->t[k]);
        u->n = m;
    }
    for (size_t c = 0; c < L0 + HTML_LAT_LINES; c++)
        free(col[c]);
    free(te);
    if (hist_ok)
        hist_free(&h);
    return rc;
}

int html_report_read(struct html_report *u, const struct json *r)
{
    memset(u, 0, sizeof *u);
    u->r = r;
    const char *label = html_str(r, "label");
    snprintf(u->name, sizeof u->name, "%s", label ? label : html_str(r, "url"));
    u->duration_s = html_num(r, "durationSeconds");
    u->warmup_s = html_num(json_get(r, "warmup"), "durationSeconds");
    if (isnan(u->warmup_s))
        u->warmup_s = 0;
    read_spectrum(u, 0, json_get(r, "latencySeconds"));
    read_spectrum(u, 1, json_get(r, "serviceTimeSeconds"));
    return read_timeline(u);
}

