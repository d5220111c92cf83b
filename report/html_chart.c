/* html_chart.c — the HTML page's SVG charts (html_chart.h). */
#include "report/html_chart.h"

#include <math.h>
#include <string.h>

/* Chart geometry (SVG user units; the SVG scales to the page's width). */
#define W 760.0
#define H 260.0
#define ML 64.0 /* room for the y labels */
#define MR 30.0 /* room for the last x label, centred on the axis end */
#define MT 12.0
#define MB 34.0 /* room for the x labels and the axis name */

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
static void plot_lines(FILE *f, const struct svg_axis *x, const struct svg_axis *y, const struct html_line *l, size_t n,
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


static void legend(FILE *f, const struct html_line *l, size_t n)
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

void html_line_chart(FILE *f, const struct html_chart *c, const struct html_line *l, size_t n)
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
        struct svg_axis y = html_log_axis(&c->y, l, n);
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

struct svg_axis html_x_axis(double lo, double hi, bool nice)
{
    struct svg_axis a = { .lo = lo, .hi = hi, .px0 = ML, .px1 = W - MR };
    if (nice)
        svg_nice(&a);
    return a;
}

/* A y axis from 0 to the highest of the lines (linear). */
struct svg_axis html_log_axis(const struct svg_axis *y, const struct html_line *l, size_t n)
{
    struct svg_axis a = *y;
    a.log = true;
    a.lo = INFINITY;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < l[i].n; k++)
            if (l[i].y[k] > 0 && l[i].y[k] < a.lo)
                a.lo = l[i].y[k];
    if (isinf(a.lo))
        a.lo = a.hi / 10;
    svg_nice(&a);
    return a;
}

struct svg_axis html_y_axis(const struct html_line *l, size_t n)
{
    struct svg_axis a = { .lo = 0, .hi = 0, .px0 = H - MB, .px1 = MT };
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < l[i].n; k++)
            if (l[i].y[k] > a.hi)
                a.hi = l[i].y[k];
    svg_nice(&a);
    return a;
}


/* Horizontal bars, a row each, against a linear x from 0. */
void html_bar_chart(FILE *f, const char *id, const char *title, const char *xname, const struct html_bar *b, size_t n,
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
    /* Room after the longest bar for its value (about 6 units a character
     * at the 11-unit font). */
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        longest = strlen(b[i].text) > longest ? strlen(b[i].text) : longest;
    struct svg_axis x = { .lo = 0, .hi = 0, .px0 = left, .px1 = W - MR - 12 - 6.0 * (double)longest };
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
        double end = 0;
        for (size_t k = 0; k < 4; k++)
            end = b[i].v[k] > end ? b[i].v[k] : end;
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">", svg_at(&x, end) + 6, y + 14);
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

