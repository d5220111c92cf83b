/* timeline.c — the run second by second (timeline.h). Recording is inline
 * in the header; this moves between entries, merges and reads them. */
#include "stats/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "stats/hist.h"
#include "stats/zpages.h"

#define NS_PER_SEC 1000000000ull

int tl_init(struct timeline *t)
{
    t->e = zpages_alloc(TL_MAX * sizeof *t->e);
    t->n = 1;
    t->shift = 0;
    return t->e ? 0 : -1;
}

void tl_free(struct timeline *t)
{
    zpages_free(t->e, TL_MAX * sizeof *t->e);
    t->e = NULL;
}

static void add_entry(struct tl_entry *dst, const struct tl_entry *src)
{
    dst->ok += src->ok;
    dst->errors += src->errors;
    dst->bytes_recv += src->bytes_recv;
    for (unsigned b = 0; b < TL_BUCKETS; b++)
        dst->lat[b] += src->lat[b];
}

/* Every entry covers twice as long: entry i becomes entries 2i and 2i+1. */
static void coarsen(struct timeline *t)
{
    uint32_t n = (t->n + 1) / 2;
    for (uint32_t i = 0; i < n; i++) {
        struct tl_entry merged = t->e[2 * i];
        if (2 * i + 1 < t->n)
            add_entry(&merged, &t->e[2 * i + 1]);
        t->e[i] = merged;
    }
    memset(&t->e[n], 0, (t->n - n) * sizeof *t->e);
    t->n = n;
    t->shift++;
}

void tl_move_to(struct timeline *t, uint64_t elapsed_ns)
{
    uint64_t idx = (elapsed_ns / NS_PER_SEC) >> t->shift;
    while (idx >= TL_MAX) {
        coarsen(t);
        idx >>= 1;
    }
    if (idx + 1 > t->n)
        t->n = (uint32_t)idx + 1;
}

void tl_merge(struct timeline *dst, struct timeline *src)
{
    while (dst->shift < src->shift)
        coarsen(dst);
    while (src->shift < dst->shift)
        coarsen(src);
    for (uint32_t i = 0; i < src->n; i++)
        add_entry(&dst->e[i], &src->e[i]);
    if (src->n > dst->n)
        dst->n = src->n;
}

/* The middle of bucket b, in ns (the inverse of tl_index). */
static uint64_t bucket_middle(unsigned b)
{
    if (b < TL_SUB)
        return ((uint64_t)b << TL_UNIT_SHIFT) + (1u << (TL_UNIT_SHIFT - 1));
    if (b == TL_BUCKETS - 1)
        return (1ull << TL_TOP_EXP) << TL_UNIT_SHIFT; /* "at least this" */
    unsigned e = b / TL_SUB + 2, sub = b % TL_SUB;
    uint64_t lower = (uint64_t)(TL_SUB + sub) << (e - 3), width = 1ull << (e - 3);
    return (lower << TL_UNIT_SHIFT) + (width << (TL_UNIT_SHIFT - 1));
}

void tl_marks(const struct timeline *t, uint32_t whole, uint32_t max, double *rate, struct tl_marks *out)
{
    uint32_t marks = whole < max ? whole : max;
    double w = (double)(NS_PER_SEC << t->shift);
    *out = (struct tl_marks){ .marks = marks, .shortest = UINT32_MAX };
    for (uint32_t m = 0; m < marks; m++) {
        /* Mark m: entries [m * whole / marks, (m + 1) * whole / marks). */
        uint32_t from = (uint32_t)((uint64_t)m * whole / marks), to = (uint32_t)((uint64_t)(m + 1) * whole / marks);
        uint64_t n = 0;
        for (uint32_t i = from; i < to; i++)
            n += t->e[i].ok + t->e[i].errors;
        rate[m] = (double)n * (double)NS_PER_SEC / ((double)(to - from) * w);
        if (to - from < out->shortest)
            out->shortest = to - from;
        if (to - from > out->longest)
            out->longest = to - from;
    }
}

void tl_add_at(struct timeline *t, uint64_t at_ns, unsigned shift, const struct tl_entry *e)
{
    while (t->shift < shift)
        coarsen(t);
    tl_move_to(t, at_ns); /* coarsens further while at_ns lies past TL_MAX entries */
    add_entry(&t->e[(at_ns / NS_PER_SEC) >> t->shift], e);
}

void tl_entry_to_hist(const struct tl_entry *e, struct hist *h)
{
    for (unsigned b = 0; b < TL_BUCKETS; b++) {
        if (!e->lat[b])
            continue;
        uint64_t v = bucket_middle(b);
        h->counts[hist_index(v)] += e->lat[b];
        h->count += e->lat[b];
        h->sum += (double)v * e->lat[b];
        if (v < h->min)
            h->min = v;
        if (v > h->max)
            h->max = v;
    }
}

void tl_hist_clear(const struct tl_entry *e, struct hist *h)
{
    for (unsigned b = 0; b < TL_BUCKETS; b++)
        if (e->lat[b])
            h->counts[hist_index(bucket_middle(b))] = 0;
    h->count = 0;
    h->sum = 0;
    h->min = UINT64_MAX;
    h->max = 0;
}

void tl_entry_add_hist(struct tl_entry *e, struct hist *h)
{
    /* The buckets' middles first: all that an entry shb wrote holds. */
    uint64_t left = h->count;
    for (unsigned b = 0; b < TL_BUCKETS && left; b++) {
        uint32_t *c = &h->counts[hist_index(bucket_middle(b))];
        e->lat[b] += *c;
        left -= *c < left ? *c : left;
        *c = 0;
    }
    /* Anything else (another writer's values): each HdrHistogram bucket
     * lies within one timeline bucket, which its lowest value names. */
    for (size_t i = 0; i < HIST_BUCKETS && left; i++) {
        if (!h->counts[i])
            continue;
        e->lat[tl_index(hist_bucket_lowest(i))] += h->counts[i];
        left -= h->counts[i] < left ? h->counts[i] : left;
        h->counts[i] = 0;
    }
    h->count = 0;
}

uint64_t tl_percentile(const struct tl_entry *e, double p)
{
    if (e->ok == 0)
        return 0;
    uint64_t rank = percentile_rank(e->ok, p), seen = 0;
    for (unsigned b = 0; b < TL_BUCKETS; b++) {
        seen += e->lat[b];
        if (seen >= rank)
            return bucket_middle(b);
    }
    return bucket_middle(TL_BUCKETS - 1);
}
