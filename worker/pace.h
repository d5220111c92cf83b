/* pace.h — the open model's schedule (-q/--rate): when each request is due.
 *
 * The run's requests are numbered 0, 1, 2, ... in the order they are due,
 * across every worker: request i is due when the asked-for rate, integrated
 * from the start, reaches i. A constant rate R puts it at i / R; a ramp from
 * R0 to R1 over D (-q R0..R1 with -z D) rises linearly, so the count due by
 * t is R0 t + (R1 - R0) t^2 / 2D. Worker k of T takes requests k, k + T,
 * k + 2T, ...: the workers' sends interleave evenly, and together they follow
 * the one schedule the user asked for.
 *
 * Pure arithmetic, no clock: the worker asks when a number is due and
 * compares that with its own clock. */
#ifndef SHB_PACE_H
#define SHB_PACE_H

#include <stdbool.h>
#include <stdint.h>

struct pace_rate {
    double from, to;  /* requests per second at the start and (for a ramp) at ramp_ns */
    uint64_t ramp_ns; /* the ramp's length (-z); 0 for a constant rate */
};

/* When request i is due, in nanoseconds from the run's start. Past the
 * ramp, the rate stays at `to`. */
uint64_t pace_due_ns(const struct pace_rate *r, uint64_t i);

/* How many requests are due before t (ns from the start): the number of
 * the first one due at t or later. */
uint64_t pace_count_before(const struct pace_rate *r, uint64_t t_ns);

/* The mean asked-for rate between a and b (ns from the start, a < b). */
double pace_mean_rate(const struct pace_rate *r, uint64_t a_ns, uint64_t b_ns);

#endif
