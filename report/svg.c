/* svg.c — scales, ticks, paths and coarsening for the HTML report's charts
 * (svg.h). */
#include "report/svg.h"

#include <math.h>

double svg_at(const struct svg_axis *a, double v)
{
    double t;
    if (a->log) {
        double lo = log10(a->lo), hi = log10(a->hi);
        t = v > 0 ? (log10(v) - lo) / (hi - lo) : 0;
    } else {
        t = (v - a->lo) / (a->hi - a->lo);
    }
    if (!(t >= 0)) /* NaN too */
        t = 0;
    if (t > 1)
        t = 1;
    return a->px0 + t * (a->px1 - a->px0);
}

/* The nice step (1, 2 or 5 times a power of ten) that cuts span into about
 * n pieces or fewer. */
static double nice_step(double span, size_t n)
{
    double raw = span / (double)n;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

void svg_nice(struct svg_axis *a)
{
    if (a->log) {
        if (!(a->lo > 0))
            a->lo = a->hi > 0 ? a->hi / 10 : 1;
        if (!(a->hi > a->lo))
            a->hi = a->lo * 10;
        a->lo = pow(10, floor(log10(a->lo) + 1e-9));
        a->hi = pow(10, ceil(log10(a->hi) - 1e-9));
        if (a->hi <= a->lo)
            a->hi = a->lo * 10;
        return;
    }
    if (!(a->hi > a->lo))
        a->hi = a->lo + (a->lo > 0 ? a->lo : 1);
    double step = nice_step(a->hi - a->lo, 5);
    a->lo = floor(a->lo / step + 1e-9) * step;
    a->hi = ceil(a->hi / step - 1e-9) * step;
}

size_t svg_ticks(const struct svg_axis *a, double *out, size_t max)
{
    size_t n = 0;
    if (a->log) {
        if (!(a->lo > 0) || !(a->hi > a->lo))
            return 0;
        double decades = log10(a->hi) - log10(a->lo);
        static const double fine[] = { 1, 2, 5 };
        size_t per = decades <= 2 ? 3 : 1;
        for (double d = pow(10, floor(log10(a->lo))); d <= a->hi * (1 + 1e-9) && n < max; d *= 10)
            for (size_t k = 0; k < per && n < max; k++) {
                double v = d * fine[k];
                if (v >= a->lo * (1 - 1e-9) && v <= a->hi * (1 + 1e-9))
                    out[n++] = v;
            }
        return n;
    }
    if (!(a->hi > a->lo) || max == 0)
        return 0;
    double step = nice_step(a->hi - a->lo, max > 1 ? max - 1 : 1);
    for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi + step * 1e-9 && n < max; v += step)
        out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

void svg_num(char *out, size_t cap, double v)
{
    double m = fabs(v);
    if (m >= 1e6)
        snprintf(out, cap, "%.3gM", v / 1e6);
    else if (m >= 1e4)
        snprintf(out, cap, "%.3gk", v / 1e3);
    else
        snprintf(out, cap, "%.4g", v);
}

void svg_path(FILE *f, const struct svg_axis *x, const struct svg_axis *y, const double *xs, const double *ys,
              size_t n)
{
    bool pen = false;
    for (size_t i = 0; i < n; i++) {
        if (isnan(ys[i])) {
            pen = false;
            continue;
        }
        fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', svg_at(x, xs[i]), svg_at(y, ys[i]));
        pen = true;
    }
}

size_t svg_runs(size_t n, size_t max)
{
    return n < max ? n : max;
}

size_t svg_run_start(size_t n, size_t m, size_t i)
{
    return m ? i * n / m : 0;
}

size_t svg_coarsen_rate(const double *count, const double *seconds, size_t n, size_t max, double *out)
{
    size_t m = svg_runs(n, max);
    for (size_t i = 0; i < m; i++) {
        double c = 0, s = 0;
        for (size_t k = svg_run_start(n, m, i); k < svg_run_start(n, m, i + 1); k++) {
            c += count[k];
            s += seconds[k];
        }
        out[i] = s > 0 ? c / s : 0;
    }
    return m;
}

size_t svg_coarsen_max(const double *v, size_t n, size_t max, double *out)
{
    size_t m = svg_runs(n, max);
    for (size_t i = 0; i < m; i++) {
        double hi = NAN;
        for (size_t k = svg_run_start(n, m, i); k < svg_run_start(n, m, i + 1); k++)
            if (!isnan(v[k]) && (isnan(hi) || v[k] > hi))
                hi = v[k];
        out[i] = hi;
    }
    return m;
}

void svg_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}
