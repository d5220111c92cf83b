/* html.c — the HTML report's page (html.h): a header with each run's
 * settings and figures, then the charts (html_chart.c draws them as SVG)
 * of the reports as html_data.c reads them. Styles and the script are
 * inline; the page asks for nothing over any network. The SVG is complete
 * without the script, which only adds hover values, the latency chart's
 * log scale and toggling series. */
#include "report/html.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/version.h"
#include "report/html_chart.h"
#include "report/html_data.h"
#include "report/svg.h"

/* ---- the charts ------------------------------------------------------------ */

/* The lines' colour: the run's when there are several, else the i-th
 * of this chart's own. */
static unsigned colour_of(size_t run, size_t nruns, size_t own)
{
    return (unsigned)(nruns > 1 ? run : own) % 8;
}

static void name_line(struct html_line *l, const struct html_report *u, size_t nruns, const char *what)
{
    if (nruns > 1)
        snprintf(l->name, sizeof l->name, "%s: %s", u->name, what);
    else
        snprintf(l->name, sizeof l->name, "%s", what);
}

static void rate_chart(FILE *f, const struct html_report *u, size_t nruns, struct html_line *l)
{
    size_t n = 0;
    double lo = 0, hi = 0, warm = 0;
    for (size_t i = 0; i < nruns; i++) {
        hi = fmax(hi, u[i].duration_s);
        warm = fmax(warm, u[i].warmup_s);
        struct html_line rps = { u[i].t, u[i].rps, u[i].n, colour_of(i, nruns, 0), 0, (unsigned)n, "" };
        name_line(&rps, &u[i], nruns, "requests/s");
        l[n++] = rps;
        struct html_line eps = { u[i].t, u[i].eps, u[i].n, colour_of(i, nruns, 3), 1, (unsigned)n, "" };
        name_line(&eps, &u[i], nruns, "errors/s");
        l[n++] = eps;
        if (u[i].paced) {
            struct html_line asked = { u[i].t, u[i].asked, u[i].n, colour_of(i, nruns, 1), 2, (unsigned)n, "" };
            name_line(&asked, &u[i], nruns, "asked for (-q)");
            l[n++] = asked;
        }
    }
    lo = -warm;
    struct html_chart c = {
        .id = "chart-rate", .title = "Requests and errors per second", .xname = "seconds into the measured window",
        .yname = "per second", .unit = "/s", .x = html_x_axis(lo, hi, true), .y = html_y_axis(l, n),
        .shade_lo = lo, .shade_hi = 0, .shade_name = "warm-up (left out)",
    };
    html_line_chart(f, &c, l, n);
}

static void latency_chart(FILE *f, const struct html_report *u, size_t nruns, struct html_line *l)
{
    size_t n = 0;
    double hi = 0;
    for (size_t i = 0; i < nruns; i++) {
        hi = fmax(hi, u[i].duration_s);
        for (size_t k = 0; k < HTML_LAT_LINES; k++) {
            if (!u[i].lat_have[k])
                continue;
            struct html_line x = { u[i].t, u[i].lat[k], u[i].n, colour_of(i, nruns, k), nruns > 1 ? (unsigned)k : 0,
                              (unsigned)n, "" };
            name_line(&x, &u[i], nruns, html_lat_names[k]);
            l[n++] = x;
        }
    }
    struct html_chart c = {
        .id = "chart-latency", .title = "Latency over time (each point: the slowest second it covers)",
        .xname = "seconds into the measured window", .yname = "ms", .unit = "ms", .x = html_x_axis(0, hi, true),
        .y = html_y_axis(l, n), .log_too = true,
    };
    html_line_chart(f, &c, l, n);
}

static void spectrum_chart(FILE *f, const struct html_report *u, size_t nruns, struct html_line *l)
{
    static const double ticks[] = { 0, 1, 2, 3, 4, 5 };
    static const char *const names[] = { "0%", "90%", "99%", "99.9%", "99.99%", "99.999%" };
    static const char *const what[] = { "latency", "service time" };
    size_t n = 0;
    for (size_t i = 0; i < nruns; i++)
        for (size_t k = 0; k < 2; k++) {
            if (!u[i].nspec[k])
                continue;
            struct html_line x = { u[i].spec_x[k], u[i].spec_y[k], u[i].nspec[k], colour_of(i, nruns, k), (unsigned)k,
                              (unsigned)n, "" };
            name_line(&x, &u[i], nruns, what[k]);
            l[n++] = x;
        }
    struct svg_axis lin = html_y_axis(l, n), y = html_log_axis(&lin, l, n);
    struct html_chart c = {
        .id = "chart-spectrum", .title = "Latency by percentile", .xname = "percentile", .yname = "ms (log)",
        .unit = "ms", .x = html_x_axis(0, HTML_SPEC_NINES, false), .y = y, .xticks = ticks, .xtick_names = names,
        .nxticks = 6,
    };
    html_line_chart(f, &c, l, n);
}

static void bar_name(struct html_bar *b, const struct html_report *u, size_t nruns, const char *what)
{
    if (nruns > 1)
        snprintf(b->label, sizeof b->label, "%s (%s)", what, u->name);
    else
        snprintf(b->label, sizeof b->label, "%s", what);
}

static const char *const phase_keys[] = { "connect", "tlsHandshake", "quicHandshake", "firstByte" };
static const char *const phase_names[] = { "connect", "TLS handshake", "QUIC handshake", "first byte" };

static size_t phase_bars(const struct html_report *u, size_t nruns, struct html_bar *b, size_t cap)
{
    static const char *const pk[] = { "p99.9", "p99", "p90", "p50" };
    size_t n = 0;
    for (size_t p = 0; p < 4; p++)
        for (size_t i = 0; i < nruns && n < cap; i++) {
            const struct json *ph = json_path(u[i].r, "phases", phase_keys[p], NULL);
            const struct json *ps = json_get(ph, "percentiles");
            if (!ps)
                continue;
            struct html_bar *x = &b[n++];
            memset(x, 0, sizeof *x);
            bar_name(x, &u[i], nruns, phase_names[p]);
            x->colour = colour_of(i, nruns, p);
            x->s = (unsigned)i;
            for (size_t k = 0; k < 4; k++)
                x->v[k] = html_num(ps, pk[k]) * 1e3;
            snprintf(x->text, sizeof x->text, "p50 %.3g, p99 %.3g, p99.9 %.3g ms", x->v[3], x->v[1], x->v[0]);
        }
    return n;
}

/* The members of each run's obj (statusCodes, errorKinds) as bars. */
static size_t count_bars(const struct html_report *u, size_t nruns, const char *obj, unsigned own, struct html_bar *b,
                         size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < nruns; i++) {
        const struct json *o = json_get(u[i].r, obj);
        for (const struct json *c = o && o->type == JSON_OBJECT ? o->child : NULL; c && n < cap; c = c->next) {
            double v;
            if (json_to_double(c, &v) < 0)
                continue;
            struct html_bar *x = &b[n++];
            memset(x, 0, sizeof *x);
            bar_name(x, &u[i], nruns, c->key);
            x->colour = colour_of(i, nruns, own);
            x->s = (unsigned)i;
            x->v[0] = x->v[1] = x->v[2] = NAN;
            x->v[3] = v; /* one bar, drawn solid */
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

static double lat_ms(const struct json *r, const char *obj, const char *key)
{
    const struct json *o = json_get(r, obj);
    double v = html_num(o, key);
    if (isnan(v))
        v = html_num(json_get(o, "percentiles"), key);
    return v * 1e3;
}

/* Each header row's cell for one run, as text into out (empty: "-"). */
typedef void cell_fn(char *out, size_t cap, const struct html_report *u);

/* A string member of the report, "" when it has none. */
static void str_cell(char *out, size_t cap, const struct html_report *u, const char *key)
{
    const char *v = html_str(u->r, key);
    snprintf(out, cap, "%s", v ? v : "");
}

static void url_cell(char *out, size_t cap, const struct html_report *u) { str_cell(out, cap, u, "url"); }

/* --connect-to, --resolve, --unix-socket: where the connections went. */
static void connected_cell(char *out, size_t cap, const struct html_report *u)
{
    str_cell(out, cap, u, "connectedTo");
}

static void protocol_cell(char *out, size_t cap, const struct html_report *u)
{
    str_cell(out, cap, u, "protocol");
}

static void tls_cell(char *out, size_t cap, const struct html_report *u)
{
    const struct json *tls = json_get(u->r, "tls");
    if (!tls || tls->type != JSON_OBJECT) {
        snprintf(out, cap, "none");
        return;
    }
    const char *version = html_str(tls, "version"), *cipher = html_str(tls, "cipher"), *alpn = html_str(tls, "alpn"),
               *group = html_str(tls, "group");
    snprintf(out, cap, "%s, %s, %s, ALPN %s", version ? version : "?", cipher ? cipher : "?",
             group ? group : "RSA key exchange", alpn ? alpn : "none");
}

static void count_cell(char *out, size_t cap, double v)
{
    if (isnan(v))
        out[0] = '\0';
    else
        snprintf(out, cap, "%.0f", v);
}

static void threads_cell(char *out, size_t cap, const struct html_report *u)
{
    count_cell(out, cap, html_num(u->r, "threads"));
}

static void connections_cell(char *out, size_t cap, const struct html_report *u)
{
    count_cell(out, cap, html_num(u->r, "connections"));
}

static void rate_cell(char *out, size_t cap, const struct html_report *u)
{
    const struct json *q = json_get(u->r, "rate");
    double from = html_num(q, "from"), to = html_num(q, "to");
    if (!q)
        snprintf(out, cap, "closed model (as fast as answers come)");
    else if (!isnan(from))
        snprintf(out, cap, "ramp %.1f to %.1f/s (mean %.1f/s), achieved %.1f/s", from, to, html_num(q, "requested"),
                 html_num(q, "achieved"));
    else
        snprintf(out, cap, "%.1f/s asked, %.1f/s achieved", html_num(q, "requested"), html_num(q, "achieved"));
}

static void window_cell(char *out, size_t cap, const struct html_report *u)
{
    double start = html_num(u->r, "startTime");
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

static void shard_cell(char *out, size_t cap, const struct html_report *u)
{
    const struct json *m = json_get(u->r, "merged"), *sh = json_get(u->r, "shard");
    if (m)
        snprintf(out, cap, "%.0f reports merged (shards of %.0f)", html_num(m, "reports"), html_num(m, "shardCount"));
    else if (html_num(sh, "count") > 1)
        snprintf(out, cap, "%.0f of %.0f", html_num(sh, "index"), html_num(sh, "count"));
    else
        snprintf(out, cap, "whole run");
}

static void requests_cell(char *out, size_t cap, const struct html_report *u)
{
    const struct json *q = json_get(u->r, "requests"), *stopped = json_get(u->r, "interrupted");
    snprintf(out, cap, "%.0f (%.0f ok, %.0f errors)%s", html_num(q, "total"), html_num(q, "ok"), html_num(q, "errors"),
             stopped && stopped->type == JSON_TRUE ? ", interrupted by a signal" : "");
}

static void rps_cell(char *out, size_t cap, const struct html_report *u)
{
    snprintf(out, cap, "%.1f", html_num(u->r, "requestsPerSec"));
}

static void received_cell(char *out, size_t cap, const struct html_report *u)
{
    snprintf(out, cap, "%.2f", html_num(u->r, "bytesReceivedPerSec") / (1024 * 1024));
}

/* A latency object's figures in ms: "min 0.027  mean 0.149  p50 ..." */
static void latencies(char *out, size_t cap, const struct html_report *u, const char *obj)
{
    static const char *const keys[] = { "min", "mean", "p50", "p90", "p99", "p99.9", "max" };
    size_t len = 0;
    out[0] = '\0';
    if (!json_get(u->r, obj))
        return; /* not measured (service time without -q) */
    for (size_t j = 0; j < sizeof keys / sizeof keys[0] && len < cap; j++) {
        double v = lat_ms(u->r, obj, keys[j]);
        if (!isnan(v))
            len += (size_t)snprintf(out + len, cap - len, "%s%s %.3f", len ? "  " : "", keys[j], v);
    }
    if (!len)
        snprintf(out, cap, "no responses");
}

static void latency_cell(char *out, size_t cap, const struct html_report *u)
{
    latencies(out, cap, u, "latencySeconds");
}

static void service_cell(char *out, size_t cap, const struct html_report *u)
{
    latencies(out, cap, u, "serviceTimeSeconds");
}

static void parallel_cell(char *out, size_t cap, const struct html_report *u)
{
    count_cell(out, cap, html_num(u->r, "parallel"));
}

static void version_cell(char *out, size_t cap, const struct html_report *u)
{
    str_cell(out, cap, u, "shbVersion");
}

static const struct {
    const char *name;
    cell_fn *cell;
    const char *only_with; /* a key some report must have for the row to be shown, or NULL */
} header_rows[] = {
    { "URL", url_cell, NULL },
    { "Connected to", connected_cell, "connectedTo" },
    { "Protocol", protocol_cell, NULL },
    { "TLS", tls_cell, NULL },
    { "Threads (-t)", threads_cell, NULL },
    { "Connections (-c)", connections_cell, NULL },
    { "Streams per connection (-p)", parallel_cell, NULL },
    { "Rate (-q)", rate_cell, NULL },
    { "Duration", window_cell, NULL },
    { "Shard", shard_cell, NULL },
    { "shb version", version_cell, NULL },
    { "Requests", requests_cell, NULL },
    { "Requests/s", rps_cell, NULL },
    { "Received MB/s", received_cell, NULL },
    { "Latency (ms)", latency_cell, NULL },
    { "Service time (ms)", service_cell, "serviceTimeSeconds" },
};

static void settings_table(FILE *f, const struct html_report *u, size_t nruns)
{
    char b[512];
    fputs("<table class=\"settings\"><thead><tr><th></th>", f);
    for (size_t i = 0; i < nruns; i++) {
        fprintf(f, "<th class=\"c%u\">", colour_of(i, nruns, 0));
        svg_escape(f, u[i].name);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (size_t k = 0; k < sizeof header_rows / sizeof header_rows[0]; k++) {
        bool shown = !header_rows[k].only_with;
        for (size_t i = 0; i < nruns && !shown; i++)
            shown = json_get(u[i].r, header_rows[k].only_with) != NULL;
        if (!shown)
            continue;
        fputs("<tr><th>", f);
        svg_escape(f, header_rows[k].name);
        fputs("</th>", f);
        for (size_t i = 0; i < nruns; i++) {
            header_rows[k].cell(b, sizeof b, &u[i]);
            cell_text(f, b[0] ? b : NULL);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* Several reports: requests/s, p50, p99, errors, and the ratios to the
 * first, as the text report's comparison table has them. */
static void comparison_table(FILE *f, const struct html_report *u, size_t nruns)
{
    fputs("<h2>Comparison</h2><table class=\"compare\"><thead><tr><th>Target</th><th>Req/s</th><th>p50 (ms)</th>"
          "<th>p99 (ms)</th><th>Errors</th><th>Req/s ratio</th><th>p50 ratio</th><th>p99 ratio</th></tr></thead>"
          "<tbody>\n",
          f);
    double r0 = html_num(u[0].r, "requestsPerSec"), a0 = lat_ms(u[0].r, "latencySeconds", "p50"),
           b0 = lat_ms(u[0].r, "latencySeconds", "p99");
    for (size_t i = 0; i < nruns; i++) {
        double r = html_num(u[i].r, "requestsPerSec"), a = lat_ms(u[i].r, "latencySeconds", "p50"),
               b = lat_ms(u[i].r, "latencySeconds", "p99");
        fprintf(f, "<tr><th class=\"c%u\">", colour_of(i, nruns, 0));
        svg_escape(f, u[i].name);
        fputs("</th>", f);
        cell_num(f, r, 1);
        cell_num(f, a, 3);
        cell_num(f, b, 3);
        cell_num(f, html_num(json_get(u[i].r, "requests"), "errors"), 0);
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
    struct html_report *u = calloc(n, sizeof *u);
    size_t cap = n * 3 * HTML_LAT_LINES + 64;
    struct html_line *l = calloc(cap, sizeof *l);
    struct html_bar *b = calloc(cap * 4, sizeof *b);
    int rc = u && l && b ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = html_report_read(&u[i], reports[i]);
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
    html_bar_chart(f, "chart-phases", "Phases (bars: p50, p90, p99, p99.9)", "ms", b, nb, "No phase was measured.");
    nb = count_bars(u, n, "statusCodes", 2, b, cap * 4);
    html_bar_chart(f, "chart-status", "Status codes", "responses", b, nb, "No response came.");
    nb = count_bars(u, n, "errorKinds", 3, b, cap * 4);
    html_bar_chart(f, "chart-errors", "Error kinds", "errors", b, nb, "No errors.");
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
