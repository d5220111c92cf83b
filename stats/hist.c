/* hist.c — the histogram's allocation, merging and queries. Recording
 * lives inline in hist.h (hot path); everything here runs once, after the
 * workers are done, so it favours clarity over speed. */
#include "stats/hist.h"

#include <string.h>

#include "stats/zpages.h"

int hist_init(struct hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX; /* so the first hist_record always lowers it */
    h->counts = zpages_alloc(HIST_BUCKETS * sizeof *h->counts);
    return h->counts ? 0 : -1;
}

void hist_free(struct hist *h)
{
    zpages_free(h->counts, HIST_BUCKETS * sizeof *h->counts);
    h->counts = NULL;
}

/* Adds without wrapping: a wrapped bucket would silently move samples out of
 * the distribution, while a saturated one only makes the walk in
 * hist_percentile fall short, which it handles. */
static uint32_t add_saturating(uint32_t a, uint32_t b)
{
    uint32_t sum = a + b;
    return sum < a ? UINT32_MAX : sum;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->count == 0 || !src->counts || !dst->counts)
        return;
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        dst->counts[i] = add_saturating(dst->counts[i], src->counts[i]);
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

/* The largest value hist_index maps to idx: the inverse of hist_index,
 * rounded up, so a reported percentile is never below the true one. */
static uint64_t bucket_highest_value(size_t idx)
{
    if (idx < HIST_SUB_COUNT)
        return idx; /* exact region: one value per bucket */
    if (idx == HIST_BUCKETS - 1)
        return UINT64_MAX; /* hist_index clamps every larger value here */
    unsigned shift = (unsigned)(idx / HIST_SUB_HALF) - 1;
    uint64_t step = idx - (size_t)shift * HIST_SUB_HALF; /* HIST_SUB_HALF..HIST_SUB_COUNT-1 */
    return ((step + 1) << shift) - 1;
}

uint64_t hist_highest_equivalent(uint64_t v)
{
    return bucket_highest_value(hist_index(v));
}

uint64_t hist_bucket_lowest(size_t idx)
{
    if (idx < HIST_SUB_COUNT)
        return idx;
    unsigned shift = (unsigned)(idx / HIST_SUB_HALF) - 1;
    return (uint64_t)(idx - (size_t)shift * HIST_SUB_HALF) << shift;
}

/* ceil(p% of count) without libm, at least 1 and at most count. p * count is
 * formed before dividing so whole percentiles of round counts stay exact. */
uint64_t percentile_rank(uint64_t count, double p)
{
    double exact = p * (double)count / 100.0;
    if (!(exact > 1.0)) /* also catches NaN */
        return 1;
    if (exact >= (double)count)
        return count;
    uint64_t rank = (uint64_t)exact;
    if ((double)rank < exact)
        rank++;
    return rank;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
    if (h->count == 0 || !h->counts)
        return 0;
    uint64_t rank = percentile_rank(h->count, p);
    uint64_t seen = 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            return clamp_u64(bucket_highest_value(i), h->min, h->max);
    }
    return h->max; /* only reachable if a bucket saturated */
}
