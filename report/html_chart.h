/* html_chart.h — the HTML page's charts as inline SVG (html.c lays them
 * out): line charts (axes, grid, the lines, their legend, the data the
 * page's script reads for hover values) and horizontal bar charts. */
#ifndef SHB_HTML_CHART_H
#define SHB_HTML_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/svg.h"

/* A line on a chart: its points, colour (palette index), dash style and
 * legend text; lines of one legend entry share a toggle (s). */
struct html_line {
    const double *x, *y;
    size_t n;
    unsigned colour, style, s;
    char name[240];
};

/* A line chart: its element id, caption, axis names, the unit the hover
 * readout shows, its axes. */
struct html_chart {
    const char *id, *title, *xname, *yname, *unit;
    struct svg_axis x, y;
    bool log_too;                   /* the y axis can be switched to log */
    const double *xticks;           /* fixed x ticks (with their names), or NULL */
    const char *const *xtick_names;
    size_t nxticks;
    double shade_lo, shade_hi;      /* a shaded x band (the warm-up), when lo < hi */
    const char *shade_name;
};

/* A bar chart's row (phases, status codes, error kinds): up to four nested
 * bars from 0, the longest first and palest, and the value as text. */
struct html_bar {
    char label[160];
    unsigned colour, s;
    double v[4]; /* nested bars, palest (the longest) first, solid last; NaN: none */
    char text[64];
};

void html_line_chart(FILE *f, const struct html_chart *c, const struct html_line *l, size_t n);
/* Rows of nested bars against a linear x from 0; note says why when n is 0. */
void html_bar_chart(FILE *f, const char *id, const char *title, const char *xname, const struct html_bar *b, size_t n,
                    const char *note);
/* A line chart's x axis from lo to hi (widened to nice ends when nice),
 * and a y axis from 0 to the highest of the lines. */
struct svg_axis html_x_axis(double lo, double hi, bool nice);
struct svg_axis html_y_axis(const struct html_line *l, size_t n);
/* y's log twin: from the lines' lowest positive value to y's top, in
 * whole decades. */
struct svg_axis html_log_axis(const struct svg_axis *y, const struct html_line *l, size_t n);

#endif
