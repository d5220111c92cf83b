/* svg.h — the pieces the HTML report's charts are drawn with: scales
 * (linear and log), nice ticks, polyline paths, a long series coarsened to
 * a bounded number of points, and HTML escaping. No state, no allocation:
 * the page writer (html.c) owns the data and the layout. */
#ifndef SHB_SVG_H
#define SHB_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One axis: data from lo to hi drawn from pixel px0 to px1 (px1 < px0 for
 * a y axis, whose pixels grow downwards). A log axis needs 0 < lo < hi. */
struct svg_axis {
    double lo, hi;
    double px0, px1;
    bool log;
};

/* v's pixel on a, clamped to the axis (a log axis puts v <= 0 at lo). */
double svg_at(const struct svg_axis *a, double v);

/* Widens a's [lo, hi] to nice round ends (a linear axis starting at 0
 * stays there; a log axis gets whole decades). lo == hi is widened. */
void svg_nice(struct svg_axis *a);

/* Tick values inside [lo, hi], ascending, at most max of them: a linear
 * axis steps by 1, 2 or 5 times a power of ten; a log axis puts a tick on
 * each decade, and on 2 and 5 times it when it spans two decades or fewer.
 * Returns how many were written to out. */
size_t svg_ticks(const struct svg_axis *a, double *out, size_t max);

/* v as a short tick label: "0", "2.5", "1500", "12k", "3.4M", "0.002". */
void svg_num(char *out, size_t cap, double v);

/* A path's d attribute ("M1.0 2.0L3.0 4.0...") through (xs[i], ys[i]);
 * a NaN y breaks the line (the next point starts a new M). */
void svg_path(FILE *f, const struct svg_axis *x, const struct svg_axis *y, const double *xs, const double *ys,
              size_t n);

/* Coarsening a long series to at most max points, as the text report's
 * timeline does: n entries in m = min(n, max) runs of neighbouring
 * entries, run i from svg_run_start(n, m, i) to svg_run_start(n, m, i+1),
 * so the runs differ in length by one at most. */
size_t svg_runs(size_t n, size_t max);
size_t svg_run_start(size_t n, size_t m, size_t i);

/* Each run's rate: the sum of its counts over the sum of its seconds. */
size_t svg_coarsen_rate(const double *count, const double *seconds, size_t n, size_t max, double *out);
/* Each run's highest value (a latency: a coarsened point keeps the worst
 * second of its run, so a stall stays visible). NaNs are skipped; a run
 * of NaNs gives NaN. */
size_t svg_coarsen_max(const double *v, size_t n, size_t max, double *out);

/* s with & < > " ' as HTML character references: safe in text and in
 * quoted attributes. */
void svg_escape(FILE *f, const char *s);

#endif
