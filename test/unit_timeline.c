/* test/unit_timeline.c — the per-second timeline (timeline.c): bucket
 * accuracy, moving between entries, the memory ceiling over a day-long run
 * (pairs merged, nothing lost), merging threads whose entries differ in
 * length, and percentiles. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "t.h"
#include "timeline.h"

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

int main(void)
{
    check_accuracy();
    check_day();
    check_gaps_and_merge();
    check_percentiles();
    T_DONE();
}
