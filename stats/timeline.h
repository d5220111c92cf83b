/* timeline.h — the run second by second: per entry the responses, errors,
 * bytes received and a compact latency histogram, per worker thread, merged
 * at the end (the report's `timeline` and its sparkline).
 *
 * Bounded memory: at most TL_MAX entries of one second each. When a run
 * outlasts them, neighbouring entries are merged in pairs and every entry
 * covers twice as long from then on (2 s after 30 minutes, 4 s after an
 * hour, ... 64 s in a day), so a day-long run holds as much as a 30-minute
 * one: TL_MAX * sizeof(struct tl_entry), about 1.6 MB per thread, allocated
 * once and touched only as the run gets there.
 *
 * The histogram has 8 steps per power of two over 128 ns units (one per
 * unit below 1 us) up to about 68 s: a percentile is read as its bucket's middle,
 * within 7 % of the true value — enough to see a stall or a ramp; the
 * report's latency block has the exact figures. */
#ifndef SHB_TIMELINE_H
#define SHB_TIMELINE_H

#include <stdint.h>

#define TL_MAX 1800
#define TL_UNIT_SHIFT 7   /* ns -> 128 ns units */
#define TL_SUB 8          /* steps per power of two */
#define TL_TOP_EXP 29     /* 2^29 units: ~68 s; longer latencies land in the last bucket */
/* Below TL_SUB units one bucket per unit; then TL_SUB per power of two up
 * to 2^TL_TOP_EXP; then one for everything longer. */
#define TL_BUCKETS (TL_SUB + (TL_TOP_EXP - 3) * TL_SUB + 1)

struct tl_entry {
    uint64_t ok, errors, bytes_recv;
    uint32_t lat[TL_BUCKETS];
};

struct timeline {
    struct tl_entry *e; /* TL_MAX, allocated by tl_init */
    uint32_t n;         /* entries in use; the last is the current one */
    unsigned shift;     /* each entry covers 2^shift seconds */
};

int tl_init(struct timeline *t); /* 0, or -1 when out of memory */
void tl_free(struct timeline *t);

static inline unsigned tl_index(uint64_t ns)
{
    uint64_t u = ns >> TL_UNIT_SHIFT;
    if (u < TL_SUB)
        return (unsigned)u;
    unsigned e = 63u - (unsigned)__builtin_clzll(u); /* >= 3 */
    if (e >= TL_TOP_EXP)
        return TL_BUCKETS - 1;
    return (e - 2) * TL_SUB + (unsigned)((u >> (e - 3)) & (TL_SUB - 1));
}

/* A response (with its latency) or an error, in the current entry. */
static inline void tl_ok(struct timeline *t, uint64_t latency_ns)
{
    struct tl_entry *e = &t->e[t->n - 1];
    e->ok++;
    e->lat[tl_index(latency_ns)]++;
}

static inline void tl_error(struct timeline *t)
{
    t->e[t->n - 1].errors++;
}

/* Makes the entry holding `elapsed` (ns from the timeline's start) the
 * current one, merging pairs while it lies beyond TL_MAX entries. Time only
 * moves forward. */
void tl_move_to(struct timeline *t, uint64_t elapsed_ns);

/* Adds src's entries to dst's, after bringing both to the coarser of their
 * entry lengths (src may be coarsened in place). */
void tl_merge(struct timeline *dst, struct timeline *src);

/* An entry's latency percentile (0 < p <= 100), in ns: the middle of the
 * bucket it falls in; 0 when the entry has no response. */
uint64_t tl_percentile(const struct tl_entry *e, double p);

/* The text report's sparkline: t's first `whole` entries (whole ones,
 * each 2^shift s) as min(whole, max) marks, each the requests per second
 * (responses and errors) over a run of neighbouring entries. The runs
 * differ in length by one entry at most, so every mark stands for about
 * as long as the others and there are max of them whenever there are that
 * many entries (65 s: 60 marks of 1 or 2 s, not 33 of 2 s). Fills
 * rate[0..marks) and the shortest and longest run in entries; returns the
 * number of marks. */
struct tl_marks {
    uint32_t marks, shortest, longest;
};
void tl_marks(const struct timeline *t, uint32_t whole, uint32_t max, double *rate, struct tl_marks *out);

/* Adds entry e, whose report's entries cover 2^shift seconds and which
 * starts at_ns after t's start, into the entry of t holding at_ns (t is
 * first coarsened to entries at least that long): how `shb merge` lays
 * reports that started at different times on one timeline. */
void tl_add_at(struct timeline *t, uint64_t at_ns, unsigned shift, const struct tl_entry *e);

/* An entry's latencies as an HdrHistogram (the JSON report's per-entry
 * "histogram", through hdr.h): each bucket's count recorded at the
 * bucket's middle. Every middle lies in an HdrHistogram bucket of its
 * own, and each of those within the timeline bucket it came from, so
 * tl_entry_add_hist gives the counts back exactly.
 *
 * tl_entry_to_hist records e into h, which must be empty (fresh from
 * hist_init, or after tl_hist_clear); tl_hist_clear empties it again,
 * touching only what e put there. */
struct hist;
void tl_entry_to_hist(const struct tl_entry *e, struct hist *h);
void tl_hist_clear(const struct tl_entry *e, struct hist *h);

/* Adds h's counts (any values, timeline resolution) into e's latency
 * buckets and empties h's counts and count. */
void tl_entry_add_hist(struct tl_entry *e, struct hist *h);

#endif
