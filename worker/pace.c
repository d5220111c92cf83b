/* pace.c — the open model's schedule (pace.h). */
#include "worker/pace.h"

#include <math.h>

#define NS_PER_SEC 1e9

/* The ramp's slope, in requests per second per second (0: constant). */
static double slope(const struct pace_rate *r)
{
    return r->ramp_ns ? (r->to - r->from) / ((double)r->ramp_ns / NS_PER_SEC) : 0;
}

/* Requests due by t seconds into the ramp (t <= its length). */
static double due_by_in_ramp(const struct pace_rate *r, double t)
{
    return r->from * t + slope(r) * t * t / 2;
}

static uint64_t seconds_to_ns(double t)
{
    double ns = t * NS_PER_SEC;
    return ns >= 9.2e18 ? UINT64_C(9200000000000000000) : (uint64_t)llround(ns);
}

uint64_t pace_due_ns(const struct pace_rate *r, uint64_t i)
{
    double n = (double)i;
    double ramp_s = (double)r->ramp_ns / NS_PER_SEC;
    double in_ramp = r->ramp_ns ? due_by_in_ramp(r, ramp_s) : 0;
    if (n >= in_ramp) /* a constant rate, or past the ramp: `to` from then on */
        return seconds_to_ns(ramp_s + (n - in_ramp) / r->to);
    /* from t + k t^2 / 2 = n, solved for t in the form that loses no digits
     * when k is small (and needs no special case when it is 0 or negative:
     * inside the ramp the root is at least min(from, to) > 0). */
    double k = slope(r);
    return seconds_to_ns(2 * n / (r->from + sqrt(r->from * r->from + 2 * k * n)));
}

/* Requests due by t seconds (a real number: the count is its ceiling). */
static double due_by(const struct pace_rate *r, double t)
{
    double ramp_s = (double)r->ramp_ns / NS_PER_SEC;
    if (t <= ramp_s)
        return due_by_in_ramp(r, t);
    return due_by_in_ramp(r, ramp_s) + r->to * (t - ramp_s);
}

uint64_t pace_count_before(const struct pace_rate *r, uint64_t t_ns)
{
    return (uint64_t)ceil(due_by(r, (double)t_ns / NS_PER_SEC));
}

double pace_mean_rate(const struct pace_rate *r, uint64_t a_ns, uint64_t b_ns)
{
    if (!r->ramp_ns)
        return r->from; /* exactly what was asked, not a difference of sums */
    double a = (double)a_ns / NS_PER_SEC, b = (double)b_ns / NS_PER_SEC;
    return b > a ? (due_by(r, b) - due_by(r, a)) / (b - a) : r->from;
}
