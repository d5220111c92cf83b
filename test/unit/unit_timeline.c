/* test/unit/unit_timeline.c — the per-second timeline (timeline.c): bucket
 * accuracy, moving between entries, the memory ceiling over a day-long run
 * (pairs merged, nothing lost), merging threads whose entries differ in
 * length, percentiles, an entry through HdrHistogram's encoding and back
 * (the JSON report's per-entry histogram), and entries laid at an offset
 * (shb merge). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/hdr.h"
#include "stats/stats.h"
#include "t.h"
#include "stats/timeline.h"

#define S 1000000000ull

/* Every value's bucket middle is within 7 % of it (from 1 us up to the top). */
static void check_accuracy(void)
{
    struct tl_entry *e = calloc(1, sizeof *e);
    bool ok = true;
    unsigned prev = 0;
    for (uint64_t v = 1000; v < 60 * S && ok; v += v / 97 + 1) {
        unsigned b = tl_index(v);
        ok = T_QUIET("bucket index is monotonic", b >= prev && b < TL_BUCKETS, "v=%llu b=%u prev=%u",
                     (unsigned long long)v, b, prev);
        prev = b;
        *e = (struct tl_entry){ .ok = 1 };
        e->lat[b] = 1;
        uint64_t mid = tl_percentile(e, 50);
        double err = ((double)mid - (double)v) / (double)v;
        ok = ok && T_QUIET("a value reads back within 7 %", err < 0.07 && err > -0.07, "v=%llu read %llu (%.3f)",
                           (unsigned long long)v, (unsigned long long)mid, err);
    }
    T_CHECK("buckets: monotonic, every value from 1 us to 60 s read back within 7 %", ok, "see above");
    T_CHECK("buckets: beyond the top, the last bucket", tl_index(3600 * S) == TL_BUCKETS - 1, "%u",
            tl_index(3600 * S));
    free(e);
}

/* A day at one response per second: the entries stay under TL_MAX, each
 * second's response is still counted once, and the entries' length is the
 * power of two that fits a day into TL_MAX. */
static void check_day(void)
{
    struct timeline t;
    if (tl_init(&t))
        return;
    for (uint64_t sec = 0; sec < 86400; sec++) {
        tl_move_to(&t, sec * S + S / 2);
        tl_ok(&t, 100000);
        if (sec % 10 == 0)
            tl_error(&t);
    }
    uint64_t ok = 0, errors = 0;
    bool even = true;
    for (uint32_t i = 0; i < t.n; i++) {
        ok += t.e[i].ok;
        errors += t.e[i].errors;
        if (i + 1 < t.n && t.e[i].ok != (1u << t.shift))
            even = false;
    }
    T_CHECK("a day: at most TL_MAX entries of 64 s", t.n <= TL_MAX && t.shift == 6 && t.n == (86400 + 63) / 64,
            "n=%u shift=%u", t.n, t.shift);
    T_CHECK("a day: every response and error counted once", ok == 86400 && errors == 8640, "%llu %llu",
            (unsigned long long)ok, (unsigned long long)errors);
    T_CHECK("a day: each whole entry holds its 64 seconds", even, "shift %u", t.shift);
    tl_free(&t);
}

/* Entries skipped (nothing ended in them) stay zero; moving is forward only. */
static void check_gaps_and_merge(void)
{
    struct timeline a, b;
    if (tl_init(&a) || tl_init(&b))
        return;
    tl_ok(&a, 1000000);
    tl_move_to(&a, 5 * S + 1);
    tl_ok(&a, 2000000);
    T_CHECK("gap: the entry of second 5 is current, 1-4 empty",
            a.n == 6 && a.e[0].ok == 1 && a.e[5].ok == 1 && a.e[1].ok + a.e[2].ok + a.e[3].ok + a.e[4].ok == 0,
            "n=%u", a.n);
    /* b has run past TL_MAX seconds: 2 s entries. Merging brings a to 2 s. */
    tl_move_to(&b, (uint64_t)(TL_MAX + 10) * S);
    tl_ok(&b, 3000000);
    tl_merge(&a, &b);
    T_CHECK("merge: to the coarser length, the counts where their seconds are",
            a.shift == 1 && b.shift == 1 && a.e[0].ok == 1 && a.e[2].ok == 1 && a.e[(TL_MAX + 10) / 2].ok == 1 &&
                a.n == (TL_MAX + 10) / 2 + 1,
            "shift %u/%u n=%u", a.shift, b.shift, a.n);
    tl_free(&a);
    tl_free(&b);
}

static void check_percentiles(void)
{
    struct tl_entry *e = calloc(1, sizeof *e);
    for (int i = 0; i < 98; i++) {
        e->lat[tl_index(100000)]++;
        e->ok++;
    }
    e->lat[tl_index(400000000)] += 2; /* two 400 ms responses in 100 */
    e->ok += 2;
    uint64_t p50 = tl_percentile(e, 50), p99 = tl_percentile(e, 99);
    T_CHECK("percentiles: p50 ~100 us, p99 ~400 ms", p50 > 93000 && p50 < 107000 && p99 > 372000000 && p99 < 428000000,
            "p50=%llu p99=%llu", (unsigned long long)p50, (unsigned long long)p99);
    *e = (struct tl_entry){ .errors = 3 };
    T_CHECK("percentiles: 0 with no response", tl_percentile(e, 99) == 0, "%llu",
            (unsigned long long)tl_percentile(e, 99));
    free(e);
}

/* Every bucket, each with its own count, to an HdrHistogram and back:
 * each middle in an HdrHistogram bucket of its own, the counts back
 * exactly (also through the base64 encoding the report writes), and the
 * scratch histogram empty again. Values that are not middles land in
 * the timeline bucket they belong to. */
static void check_hist_round_trip(void)
{
    struct tl_entry *e = calloc(1, sizeof *e), *back = calloc(1, sizeof *back);
    struct hist h;
    if (!e || !back || hist_init(&h) < 0)
        return;
    for (unsigned b = 0; b < TL_BUCKETS; b++) {
        e->lat[b] = b * 7 + 1;
        e->ok += e->lat[b];
    }
    tl_entry_to_hist(e, &h);
    size_t used = 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        used += h.counts[i] != 0;
    T_CHECK("to HdrHistogram: every bucket's count, each middle in a bucket of its own",
            h.count == e->ok && used == TL_BUCKETS, "count %llu of %llu, %zu buckets used",
            (unsigned long long)h.count, (unsigned long long)e->ok, used);
    struct hdr_buf enc = { 0 };
    const char *b64 = hdr_encode_base64(&enc, &h, NULL);
    tl_hist_clear(e, &h);
    size_t left = 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        left += h.counts[i] != 0;
    T_CHECK("tl_hist_clear: the scratch histogram empty again", left == 0 && h.count == 0, "%zu buckets left", left);
    char err[160] = "";
    int rc = b64 ? hdr_decode_base64_add(b64, strlen(b64), &h, err, sizeof err) : -1;
    tl_entry_add_hist(back, &h);
    bool same = rc == 0 && memcmp(back->lat, e->lat, sizeof e->lat) == 0;
    left = 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        left += h.counts[i] != 0;
    T_CHECK("through base64 and back: every bucket's count exactly, the histogram emptied", same && left == 0 && h.count == 0,
            "rc %d (%s), %zu buckets left", rc, err, left);
    hdr_buf_free(&enc);

    /* Values anywhere in a bucket (another writer's): each to its own. */
    memset(back, 0, sizeof *back);
    uint64_t vs[] = { 0, 127, 128, 1000, 1023, 1024, 99999, 100000, 123456789, 68 * S, 3600 * S };
    for (size_t k = 0; k < sizeof vs / sizeof *vs; k++)
        hist_record(&h, vs[k]);
    tl_entry_add_hist(back, &h);
    bool each = h.count == 0;
    for (size_t k = 0; k < sizeof vs / sizeof *vs; k++)
        each = each && back->lat[tl_index(vs[k])] > 0;
    uint64_t total = 0;
    for (unsigned b = 0; b < TL_BUCKETS; b++)
        total += back->lat[b];
    T_CHECK("any HdrHistogram value lands in its own timeline bucket", each && total == sizeof vs / sizeof *vs,
            "total %llu", (unsigned long long)total);
    hist_free(&h);
    free(e);
    free(back);
}

/* shb merge's placement: an entry starting at_ns into the merged timeline
 * joins the entry holding that instant; a coarser report's entries
 * coarsen the timeline first; one past TL_MAX coarsens it too. */
static void check_add_at(void)
{
    struct timeline t;
    struct tl_entry *one = calloc(1, sizeof *one);
    if (!one || tl_init(&t))
        return;
    one->ok = 1;
    one->lat[tl_index(1000000)] = 1;
    tl_add_at(&t, 0, 0, one);
    tl_add_at(&t, 2 * S + 3000000, 0, one); /* a shard 3 ms late: still second 2 */
    tl_add_at(&t, 2 * S + 999999999, 0, one);
    T_CHECK("add_at: each entry in the second holding its start", t.n == 3 && t.e[0].ok == 1 && t.e[1].ok == 0 &&
            t.e[2].ok == 2 && t.e[2].lat[tl_index(1000000)] == 2, "n=%u e0=%llu e2=%llu", t.n,
            (unsigned long long)t.e[0].ok, (unsigned long long)t.e[2].ok);
    tl_add_at(&t, 6 * S, 1, one); /* a report of 2 s entries */
    T_CHECK("add_at: a report of 2 s entries makes the timeline's 2 s long", t.shift == 1 && t.n == 4 && t.e[0].ok == 1 &&
            t.e[1].ok == 2 && t.e[3].ok == 1, "shift %u n=%u", t.shift, t.n);
    tl_add_at(&t, (uint64_t)TL_MAX * 2 * S + 5 * S, 0, one); /* past TL_MAX entries of 2 s */
    T_CHECK("add_at: past TL_MAX entries the timeline coarsens, nothing lost", t.shift == 2 && t.n <= TL_MAX &&
            t.e[0].ok == 3 && t.e[1].ok == 1 && t.e[(TL_MAX * 2 + 5) / 4].ok == 1, "shift %u n=%u", t.shift, t.n);
    tl_free(&t);
    free(one);
}

/* The sparkline's marks: a 65 s run gets 60 marks of 1 or 2 s (it got
 * 33 of 2 s), each the rate over its own seconds; 120 s gets 60 of 2 s;
 * 3 s gets 3 of 1 s. Second i holds i + 1 requests, so a mark of seconds
 * [a, b) reads the mean of a + 1 .. b. */
static void check_marks(void)
{
    struct timeline t;
    if (tl_init(&t))
        return;
    static const struct {
        uint32_t whole, marks, shortest, longest;
    } cases[] = { { 65, 60, 1, 2 }, { 120, 60, 2, 2 }, { 3, 3, 1, 1 }, { 60, 60, 1, 1 }, { 1799, 60, 29, 30 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint32_t whole = cases[c].whole;
        for (uint32_t i = 0; i < whole; i++) {
            tl_move_to(&t, (uint64_t)i * S);
            t.e[i].ok = i + 1;
        }
        double rate[60];
        struct tl_marks k;
        tl_marks(&t, whole, 60, rate, &k);
        bool rates_ok = k.marks == cases[c].marks;
        uint32_t covered = 0;
        for (uint32_t m = 0; rates_ok && m < k.marks; m++) {
            uint32_t from = m * whole / k.marks, to = (m + 1) * whole / k.marks;
            double want = (from + 1 + to) / 2.0; /* mean of from+1 .. to */
            rates_ok = rate[m] > want - 1e-9 && rate[m] < want + 1e-9;
            covered += to - from;
        }
        char name[96];
        snprintf(name, sizeof name, "marks: %u s in %u marks of %u-%u s, each its seconds' rate", whole, cases[c].marks,
                 cases[c].shortest, cases[c].longest);
        T_CHECK(name, rates_ok && covered == whole && k.shortest == cases[c].shortest && k.longest == cases[c].longest,
                "%u marks of %u-%u", k.marks, k.shortest, k.longest);
    }
    tl_free(&t);
}

int main(void)
{
    check_accuracy();
    check_day();
    check_gaps_and_merge();
    check_percentiles();
    check_hist_round_trip();
    check_add_at();
    check_marks();
    T_DONE();
}
