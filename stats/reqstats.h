/* stats/reqstats.h — a request list's figures, per target (--targets):
 * requests, ok, errors, status codes and a latency histogram each, small
 * enough for 100,000 targets per thread.
 *
 * The histogram is the timeline's (timeline.h: 217 buckets of 32 bits, 8
 * per power of two of 128 ns units), so a target's p50 and p99 are within
 * 1/16 (6.25 %) of the exact ones and the whole costs 0.9 KB per target;
 * the run's own histogram (hist.h, exact to 0.1 %) is 190 KB. Status
 * codes: the first REQSTATS_CODES distinct ones a target sees, the rest
 * summed as "other" (a target answering with more codes than that is rare,
 * and the run's table still has each). */
#ifndef SHB_STATS_REQSTATS_H
#define SHB_STATS_REQSTATS_H

#include <stdint.h>

#include "stats/timeline.h"

#define REQSTATS_CODES 6

struct reqstats_target {
    struct tl_entry e;                 /* ok (responses), errors, latency buckets */
    uint16_t code[REQSTATS_CODES];     /* 0: unused */
    uint64_t code_count[REQSTATS_CODES];
    uint64_t code_other;               /* responses whose code found no place */
};

struct reqstats {
    struct reqstats_target *t; /* n of them, or NULL: no request list */
    uint32_t n;
};

/* n targets, zeroed: 0, or -1 when out of memory. */
int reqstats_init(struct reqstats *r, uint32_t n);
void reqstats_free(struct reqstats *r);

/* Counts status code with count responses under target t (not the latency). */
void reqstats_code(struct reqstats_target *t, uint16_t code, uint64_t count);

static inline void reqstats_ok(struct reqstats *r, uint32_t target, uint16_t status, uint64_t latency_ns)
{
    struct reqstats_target *t = &r->t[target];
    t->e.ok++;
    t->e.lat[tl_index(latency_ns)]++;
    /* Most targets answer with one code: the first slot, no call. */
    if (t->code[0] == status)
        t->code_count[0]++;
    else
        reqstats_code(t, status, 1);
}

static inline void reqstats_error(struct reqstats *r, uint32_t target) { r->t[target].e.errors++; }

/* Adds src to dst (same n; a dst without targets takes src's size). 0, or -1
 * when out of memory. */
int reqstats_merge(struct reqstats *dst, const struct reqstats *src);

#endif
