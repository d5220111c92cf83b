/* test/unit/unit_pace.c — the open model's schedule (pace.c): when request i is
 * due at a constant rate and on a ramp, the count due by a time (its
 * inverse), and the mean asked-for rate over a window. */
#include <stdint.h>

#include "worker/pace.h"
#include "t.h"

#define S 1000000000ull /* ns per second */

static void check_constant(void)
{
    struct pace_rate r = { .from = 2000, .to = 2000 };
    bool exact = true;
    for (uint64_t i = 0; i < 100000 && exact; i++)
        exact = T_QUIET("constant 2000/s: request i due at i * 500 us", pace_due_ns(&r, i) == i * 500000,
                        "i=%llu due=%llu", (unsigned long long)i, (unsigned long long)pace_due_ns(&r, i));
    T_CHECK("constant 2000/s: every due time exact", exact, "see above");
    T_CHECK("constant 2000/s: 6000 due in the first 3 s", pace_count_before(&r, 3 * S) == 6000, "%llu",
            (unsigned long long)pace_count_before(&r, 3 * S));
    T_CHECK("constant 2000/s: a request due at t is not due before t",
            pace_count_before(&r, 500000) == 1 && pace_count_before(&r, 500001) == 2, "%llu %llu",
            (unsigned long long)pace_count_before(&r, 500000), (unsigned long long)pace_count_before(&r, 500001));

    struct pace_rate slow = { .from = 0.5, .to = 0.5 };
    T_CHECK("constant 0.5/s: one every 2 s", pace_due_ns(&slow, 3) == 6 * S, "%llu",
            (unsigned long long)pace_due_ns(&slow, 3));

    /* A day at the largest rate -q takes: 10 ns apart, still distinct. */
    struct pace_rate fast = { .from = 1e8, .to = 1e8 };
    uint64_t day = 86400ull * 100000000ull;
    T_CHECK("constant 1e8/s: a day in, due times still 10 ns apart",
            pace_due_ns(&fast, day) == 86400 * S && pace_due_ns(&fast, day + 1) - pace_due_ns(&fast, day) == 10,
            "%llu %llu", (unsigned long long)pace_due_ns(&fast, day), (unsigned long long)pace_due_ns(&fast, day + 1));
}

/* count_before inverts due_ns: request i is due at or after t exactly
 * when fewer than i + 1 are due before t. */
static void check_inverse(const char *name, const struct pace_rate *r, uint64_t n)
{
    bool ok = true;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n && ok; i++) {
        uint64_t t = pace_due_ns(r, i);
        ok = T_QUIET(name, (i == 0 || t >= prev) && pace_count_before(r, t + 1) >= i + 1 &&
                               (t == 0 || pace_count_before(r, t - 1) <= i),
                     "i=%llu due=%llu before(t+1)=%llu before(t-1)=%llu", (unsigned long long)i,
                     (unsigned long long)t, (unsigned long long)pace_count_before(r, t + 1),
                     (unsigned long long)(t ? pace_count_before(r, t - 1) : 0));
        prev = t;
    }
    T_CHECK(name, ok, "see above");
}

static void check_ramp(void)
{
    /* 1000/s to 3000/s over 4 s: 1250 due in the first second (1000 +
     * 2000/4/2), 8000 in all, then 3000/s. */
    struct pace_rate up = { .from = 1000, .to = 3000, .ramp_ns = 4 * S };
    T_CHECK("ramp up: 1250 due in the first second", pace_count_before(&up, S) == 1250, "%llu",
            (unsigned long long)pace_count_before(&up, S));
    T_CHECK("ramp up: 2750 in the last", pace_count_before(&up, 4 * S) - pace_count_before(&up, 3 * S) == 2750,
            "%llu", (unsigned long long)(pace_count_before(&up, 4 * S) - pace_count_before(&up, 3 * S)));
    T_CHECK("ramp up: 8000 in all", pace_count_before(&up, 4 * S) == 8000, "%llu",
            (unsigned long long)pace_count_before(&up, 4 * S));
    uint64_t t8000 = pace_due_ns(&up, 8000);
    T_CHECK("ramp up: request 8000 due at the ramp's end", t8000 + 1 >= 4 * S && t8000 <= 4 * S + 1, "%llu",
            (unsigned long long)t8000);
    T_CHECK("ramp up: after it, 3000/s", pace_due_ns(&up, 8000 + 3000) - t8000 == S, "%llu",
            (unsigned long long)(pace_due_ns(&up, 11000) - t8000));
    uint64_t first_gap = pace_due_ns(&up, 1) - pace_due_ns(&up, 0);
    uint64_t last_gap = pace_due_ns(&up, 7999) - pace_due_ns(&up, 7998);
    T_CHECK("ramp up: 1 ms apart at the start, 1/3 ms at the end",
            first_gap >= 999000 && first_gap <= 1000000 && last_gap >= 333300 && last_gap <= 333400, "%llu %llu",
            (unsigned long long)first_gap, (unsigned long long)last_gap);
    check_inverse("ramp up: count_before inverts due_ns", &up, 12000);

    struct pace_rate down = { .from = 3000, .to = 1000, .ramp_ns = 4 * S };
    T_CHECK("ramp down: 2750 due in the first second, 8000 in all",
            pace_count_before(&down, S) == 2750 && pace_count_before(&down, 4 * S) == 8000, "%llu %llu",
            (unsigned long long)pace_count_before(&down, S), (unsigned long long)pace_count_before(&down, 4 * S));
    check_inverse("ramp down: count_before inverts due_ns", &down, 12000);

    struct pace_rate flat = { .from = 3, .to = 3 };
    check_inverse("constant 3/s (inexact ns): count_before inverts due_ns", &flat, 1000);
}

static void check_mean(void)
{
    struct pace_rate up = { .from = 1000, .to = 3000, .ramp_ns = 4 * S };
    double all = pace_mean_rate(&up, 0, 4 * S), mid = pace_mean_rate(&up, S, 2 * S);
    T_CHECK("mean rate: the ramp's, 2000/s", all > 1999.999 && all < 2000.001, "%f", all);
    T_CHECK("mean rate: 1 s to 2 s of it, 1750/s", mid > 1749.999 && mid < 1750.001, "%f", mid);
    struct pace_rate flat = { .from = 250, .to = 250 };
    double m = pace_mean_rate(&flat, 3 * S, 7 * S);
    T_CHECK("mean rate: constant", m > 249.999 && m < 250.001, "%f", m);
}

int main(void)
{
    check_constant();
    check_ramp();
    check_mean();
    T_DONE();
}
