/* hist.h — the latency histogram every part of shb records into: HDR-style
 * (log buckets, linear sub-buckets) over nanoseconds, with enough
 * sub-buckets that every recorded value is reproduced to better than 3
 * significant digits (relative error < 1/1000). Recording is a couple of
 * shifts and an increment: it sits on the hot path. Its users: the run's
 * counters (stats.h), the timeline's per-second buckets (timeline.c), the
 * HdrHistogram encoding (hdr.h) and interval log (hdrlog.h). */
#ifndef SHB_HIST_H
#define SHB_HIST_H

#include <stddef.h>
#include <stdint.h>

/* Sub-bucket resolution: 2^HIST_SUB_BITS linear steps per power of two. */
#define HIST_SUB_BITS 11
#define HIST_SUB_COUNT (1u << HIST_SUB_BITS)        /* 2048 */
#define HIST_SUB_HALF (HIST_SUB_COUNT / 2)          /* 1024 */
#define HIST_MAX_EXP 44                             /* values up to ~2^(44+11) ns: hours */
#define HIST_BUCKETS ((HIST_MAX_EXP + 1) * HIST_SUB_HALF + HIST_SUB_HALF)

struct hist {
    uint64_t count;
    uint64_t min, max;   /* exact, ns */
    double sum;          /* exact enough for the mean */
    uint32_t *counts;    /* HIST_BUCKETS, allocated once by hist_init */
};

int hist_init(struct hist *h);          /* 0, or -1 on allocation failure */
void hist_free(struct hist *h);
void hist_merge(struct hist *dst, const struct hist *src);
/* Value at percentile p (0 < p <= 100): the smallest recorded-bucket value v
 * such that at least p% of samples are <= v (reported as the bucket's highest
 * equivalent value, clamped to [min, max]). 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
/* The largest value in v's bucket (HdrHistogram's highestEquivalentValue:
 * what its getMaxValue() says of a recorded maximum v). */
uint64_t hist_highest_equivalent(uint64_t v);
/* The smallest value hist_index maps to idx (HdrHistogram's
 * lowestEquivalentValue of the bucket's values). */
uint64_t hist_bucket_lowest(size_t idx);
/* The rank of percentile p (0 < p <= 100) among count samples: ceil(p% of
 * count), at least 1, at most count (hist_percentile, tl_percentile). */
uint64_t percentile_rank(uint64_t count, double p);

static inline size_t hist_index(uint64_t v)
{
    /* Values below HIST_SUB_COUNT map 1:1. Above, the power of two picks a
     * bucket and the top HIST_SUB_BITS bits the linear step inside it. */
    if (v < HIST_SUB_COUNT)
        return (size_t)v;
    unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - (HIST_SUB_BITS - 1);
    if (shift > HIST_MAX_EXP) {
        shift = HIST_MAX_EXP;
        v = (uint64_t)(HIST_SUB_COUNT - 1) << shift;
    }
    return (size_t)shift * HIST_SUB_HALF + (size_t)(v >> shift);
}

static inline void hist_record(struct hist *h, uint64_t v)
{
    h->counts[hist_index(v)]++;
    h->count++;
    h->sum += (double)(int64_t)v; /* durations stay below 2^63 ns; signed converts in one instruction */
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}

#endif
