/* test/unit/unit_stats.c — histogram accuracy against an exact sorted reference,
 * merging, and the counter helpers. No libm: the unit tests link without it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quic/counters.h"
#include "stats/stats.h"
#include "t.h"

#define N_SAMPLES 200000

/* The spec's percentiles in thousandths of a percent, so the reference rank
 * can be computed with integers only. */
static const uint64_t spec_permille[] = {10000, 25000, 50000, 75000, 90000,
                                         95000, 99000, 99900, 99990};
#define N_SPEC (sizeof spec_permille / sizeof spec_permille[0])


static uint64_t rng_range(uint64_t lo, uint64_t hi) /* inclusive */
{
    return lo + t_rng() % (hi - lo + 1);
}

/* A random value whose magnitude is 2^exp: uniform inside that octave. */
static uint64_t in_octave(unsigned exp)
{
    uint64_t base = 1ull << exp;
    return base + (t_rng() & (base - 1));
}

static uint64_t gen_uniform(void)
{
    return rng_range(1000, 10000000); /* 1 µs .. 10 ms */
}

/* Log-normal-ish: the octave is a sum of uniforms (roughly normal), centred
 * on 2^17 ns ~ 130 µs, with a long tail either side. */
static uint64_t gen_lognormal(void)
{
    unsigned exp = 5;
    for (int i = 0; i < 4; i++)
        exp += (unsigned)rng_range(0, 6);
    return in_octave(exp);
}

static uint64_t gen_constant(void)
{
    return 123456;
}

/* Every octave from 1 ns to an hour (~2^42 ns), plus a sprinkle of 0 and
 * of values past the histogram's range (it saturates at ~2^55 ns, so those
 * can only be reported as max). ~2 huge ones in 200k stay above p99.99. */
static uint64_t gen_wide(void)
{
    uint64_t r = t_rng() % 100000;
    if (r < 10)
        return 0;
    if (r == 10)
        return t_rng() % 2 ? UINT64_MAX : (1ull << 60);
    return in_octave((unsigned)rng_range(0, 41));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ceil(permille/100000 * n), at least 1: the rank hist_percentile promises. */
static uint64_t reference_rank(uint64_t permille, uint64_t n)
{
    uint64_t rank = (permille * n + 99999) / 100000;
    return rank ? rank : 1;
}

static double rel_diff(double a, double b)
{
    double d = a > b ? a - b : b - a;
    double m = a > b ? a : b;
    return m == 0 ? 0 : d / m;
}

/* Records n samples into h (and into the sorted reference), then checks
 * every spec percentile, min, max and mean. */
static void check_distribution(const char *name, uint64_t (*gen)(void))
{
    char label[96];
    uint64_t *ref = malloc(N_SAMPLES * sizeof *ref);
    struct hist h;
    if (!ref || hist_init(&h) != 0) {
        T_CHECK(name, 0, "allocation failed");
        free(ref);
        return;
    }
    double sum = 0;
    for (size_t i = 0; i < N_SAMPLES; i++) {
        ref[i] = gen();
        sum += (double)ref[i];
        hist_record(&h, ref[i]);
    }
    qsort(ref, N_SAMPLES, sizeof *ref, cmp_u64);

    int ok = 1;
    for (size_t i = 0; i < N_SPEC; i++) {
        double p = (double)spec_permille[i] / 1000.0;
        uint64_t exact = ref[reference_rank(spec_permille[i], N_SAMPLES) - 1];
        uint64_t got = hist_percentile(&h, p);
        /* Reported as the bucket's top, so never below the true value, and
         * within the bucket width: under 0.1% of the value (plus 1 ns). */
        snprintf(label, sizeof label, "%s p%g", name, p);
        ok &= T_QUIET(label, got >= exact && (double)(got - exact) <= (double)exact / 1000.0 + 1.0,
                      "got %llu, exact %llu", (unsigned long long)got, (unsigned long long)exact);
    }
    snprintf(label, sizeof label, "%s: spec percentiles within 0.1%%", name);
    T_CHECK(label, ok, "see above");

    snprintf(label, sizeof label, "%s: min/max exact, count", name);
    T_CHECK(label, h.min == ref[0] && h.max == ref[N_SAMPLES - 1] && h.count == N_SAMPLES,
            "min %llu/%llu max %llu/%llu count %llu", (unsigned long long)h.min,
            (unsigned long long)ref[0], (unsigned long long)h.max,
            (unsigned long long)ref[N_SAMPLES - 1], (unsigned long long)h.count);

    snprintf(label, sizeof label, "%s: mean", name);
    T_CHECK(label, rel_diff(h.sum / (double)h.count, sum / N_SAMPLES) < 1e-12, "%.17g vs %.17g",
            h.sum / (double)h.count, sum / N_SAMPLES);

    snprintf(label, sizeof label, "%s: p100 is max, tiny p is in min's bucket", name);
    uint64_t lowest = hist_percentile(&h, 1e-9);
    T_CHECK(label, hist_percentile(&h, 100) == h.max && hist_index(lowest) == hist_index(h.min),
            "p100 %llu max %llu p0 %llu min %llu", (unsigned long long)hist_percentile(&h, 100),
            (unsigned long long)h.max, (unsigned long long)lowest, (unsigned long long)h.min);

    hist_free(&h);
    free(ref);
}

/* Walks values in steps finer than any bucket, so every bucket is visited. */
static void check_index_monotonic(void)
{
    int ok = 1;
    size_t prev = 0, max_seen = 0;
    uint64_t v = 0;
    for (;;) {
        size_t idx = hist_index(v);
        ok &= T_QUIET("hist_index monotonic", idx >= prev && idx <= prev + 1,
                      "v %llu idx %zu after %zu", (unsigned long long)v, idx, prev);
        ok &= T_QUIET("hist_index in range", idx < HIST_BUCKETS, "v %llu idx %zu",
                      (unsigned long long)v, idx);
        if (!ok)
            break;
        prev = idx;
        max_seen = idx > max_seen ? idx : max_seen;
        uint64_t step = 1 + v / 4096;
        if (v > UINT64_MAX - step)
            break;
        v += step;
    }
    size_t top = hist_index(UINT64_MAX);
    T_CHECK("hist_index monotonic, no gaps, < HIST_BUCKETS up to UINT64_MAX",
            ok && top == HIST_BUCKETS - 1 && max_seen == HIST_BUCKETS - 1,
            "top %zu max_seen %zu buckets %u", top, max_seen, (unsigned)HIST_BUCKETS);
}

/* A percentile reports the largest value of its bucket: check that value
 * really is in v's bucket and that one more is in the next. */
static void check_bucket_top(void)
{
    int ok = 1;
    uint64_t v = 1;
    while (ok) {
        struct hist h;
        if (hist_init(&h) != 0)
            break;
        hist_record(&h, 0);
        hist_record(&h, v);
        hist_record(&h, UINT64_MAX); /* widens [min, max] so nothing is clamped */
        uint64_t top = hist_percentile(&h, 50);
        ok &= T_QUIET("bucket top", hist_index(top) == hist_index(v) && top >= v &&
                                        (top == UINT64_MAX || hist_index(top + 1) == hist_index(v) + 1),
                      "v %llu top %llu", (unsigned long long)v, (unsigned long long)top);
        hist_free(&h);
        if (v > UINT64_MAX / 3)
            break;
        v = v * 3 + 1;
    }
    T_CHECK("percentile reports the bucket's highest equivalent value", ok, "see above");
}

static void check_empty_and_single(void)
{
    struct hist h;
    T_CHECK("hist_init", hist_init(&h) == 0 && h.min == UINT64_MAX && h.max == 0 && h.count == 0,
            "init state");
    T_CHECK("empty percentile is 0", hist_percentile(&h, 50) == 0 && hist_percentile(&h, 100) == 0,
            "non-zero");
    hist_record(&h, 987654321);
    T_CHECK("single sample: every percentile is it (clamped)",
            hist_percentile(&h, 10) == 987654321 && hist_percentile(&h, 99.99) == 987654321,
            "got %llu", (unsigned long long)hist_percentile(&h, 10));
    hist_free(&h);
    hist_free(&h); /* idempotent: counts is NULL after the first */
}

static void check_merge_halves(void)
{
    struct hist whole, a, b;
    if (hist_init(&whole) || hist_init(&a) || hist_init(&b)) {
        T_CHECK("merge: alloc", 0, "failed");
        return;
    }
    for (size_t i = 0; i < N_SAMPLES; i++) {
        uint64_t v = i % 2 ? gen_lognormal() : gen_wide();
        hist_record(&whole, v);
        hist_record(i < N_SAMPLES / 3 ? &a : &b, v);
    }
    struct hist empty;
    if (hist_init(&empty) == 0) {
        hist_merge(&a, &empty); /* merging nothing changes nothing */
        hist_free(&empty);
    }
    hist_merge(&a, &b);
    T_CHECK("merge of two parts == whole, bucket by bucket",
            memcmp(a.counts, whole.counts, HIST_BUCKETS * sizeof *a.counts) == 0, "buckets differ");
    T_CHECK("merge: count/min/max/sum", a.count == whole.count && a.min == whole.min &&
                                            a.max == whole.max && rel_diff(a.sum, whole.sum) < 1e-12,
            "count %llu/%llu", (unsigned long long)a.count, (unsigned long long)whole.count);
    int same = 1;
    for (size_t i = 0; i < N_SPEC; i++) {
        double p = (double)spec_permille[i] / 1000.0;
        same &= hist_percentile(&a, p) == hist_percentile(&whole, p);
    }
    T_CHECK("merge: same percentiles as whole", same, "differ");

    /* Into a fresh histogram: min must come from src, not stay UINT64_MAX. */
    struct hist fresh;
    if (hist_init(&fresh) == 0) {
        hist_merge(&fresh, &whole);
        T_CHECK("merge into empty copies min/max", fresh.min == whole.min && fresh.max == whole.max,
                "min %llu", (unsigned long long)fresh.min);
        hist_free(&fresh);
    }
    hist_free(&whole);
    hist_free(&a);
    hist_free(&b);
}

static void fill_stats(struct stats *s, uint64_t seed)
{
    s->ok = seed;
    for (int k = 0; k < ERR_KINDS; k++)
        s->errors[k] = seed * 10 + (uint64_t)k;
    s->status[200] = seed * 2;
    s->status[503] = seed * 3;
    s->status[0] = seed;
    s->status[STATUS_MAX - 1] = seed;
    s->bytes_sent = seed * 100;
    s->bytes_recv = seed * 1000;
    s->connections_opened = seed * 7;
    s->in_flight = seed * 11;
    hist_record(&s->latency, seed * 1000);
}

static void check_stats_merge(void)
{
    struct stats a, b;
    if (stats_init(&a) || stats_init(&b)) {
        T_CHECK("stats_init", 0, "failed");
        return;
    }
    T_CHECK("stats_init zeroes", a.ok == 0 && stats_errors(&a) == 0 && a.status[200] == 0 &&
                                     a.latency.count == 0 && a.latency.min == UINT64_MAX,
            "not zero");
    fill_stats(&a, 3);
    fill_stats(&b, 5);
    stats_merge(&a, &b);
    int ok = a.ok == 8 && a.status[200] == 16 && a.status[503] == 24 && a.status[0] == 8 &&
             a.status[STATUS_MAX - 1] == 8 && a.bytes_sent == 800 && a.bytes_recv == 8000 &&
             a.connections_opened == 56 && a.in_flight == 88;
    for (int k = 0; k < ERR_KINDS; k++)
        ok &= a.errors[k] == 80 + 2 * (uint64_t)k;
    T_CHECK("stats_merge sums every counter", ok, "ok %llu", (unsigned long long)a.ok);
    T_CHECK("stats_merge merges latency", a.latency.count == 2 && a.latency.min == 3000 &&
                                              a.latency.max == 5000 && a.latency.sum == 8000.0,
            "count %llu", (unsigned long long)a.latency.count);
    /* errors: kind k = 80 + 2k */
    uint64_t want = 0;
    for (int k = 0; k < ERR_KINDS; k++)
        want += 80 + 2 * (uint64_t)k;
    T_CHECK("stats_errors sums all kinds", stats_errors(&a) == want, "%llu",
            (unsigned long long)stats_errors(&a));
    T_CHECK("stats_connect_errors = connect + connect timeout + tls handshake + no local port + proxy",
            stats_connect_errors(&a) == 80 + 82 + 84 + 86 + 88,
            "%llu", (unsigned long long)stats_connect_errors(&a));
    stats_free(&a);
    stats_free(&b);
}

static void check_err_names(void)
{
    T_CHECK("err_kind_name",
            strcmp(err_kind_name(ERR_CONNECT), "connect") == 0 &&
                strcmp(err_kind_name(ERR_CONNECT_TIMEOUT), "connect timeout") == 0 &&
                strcmp(err_kind_name(ERR_TLS_HANDSHAKE), "tls handshake") == 0 &&
                strcmp(err_kind_name(ERR_NO_PORT), "no local port") == 0 &&
                strcmp(err_kind_name(ERR_PROXY), "proxy") == 0 &&
                strcmp(err_kind_name(ERR_RESET), "reset") == 0 &&
                strcmp(err_kind_name(ERR_CLOSED), "closed") == 0 &&
                strcmp(err_kind_name(ERR_PROTOCOL), "protocol") == 0 &&
                strcmp(err_kind_name(ERR_TLS), "tls") == 0 &&
                strcmp(err_kind_name(ERR_TIMEOUT), "timeout") == 0 &&
                strcmp(err_kind_name(ERR_STREAM_RESET), "stream reset") == 0 &&
                strcmp(err_kind_name(ERR_REFUSED), "refused") == 0 &&
                err_kind_name(ERR_KINDS) != NULL,
            "wrong name");
}

/* Each kind keeps its first message; a hint replaces a plain one (it says
 * more), never the other way; stats_merge keeps one, preferring a hint and
 * one that came with counted errors. */
static void check_why(void)
{
    struct stats a, b;
    if (stats_init(&a) || stats_init(&b))
        return;
    stats_why(&a, ERR_CONNECT, "Connection refused", NULL, false);
    stats_why(&a, ERR_CONNECT, "Network is unreachable", NULL, false);
    T_CHECK("why: the first message stays", strcmp(a.why[ERR_CONNECT], "Connection refused") == 0, "%s",
            a.why[ERR_CONNECT]);
    stats_why(&a, ERR_PROTOCOL, "bad status line", NULL, false);
    stats_why(&a, ERR_PROTOCOL, "the server at h:1 ", "answered with HTTP/2 frames", true);
    stats_why(&a, ERR_PROTOCOL, "bad chunk", NULL, false);
    T_CHECK("why: a hint replaces a plain message, and stays",
            strcmp(a.why[ERR_PROTOCOL], "the server at h:1 answered with HTTP/2 frames") == 0 &&
                a.why_hint[ERR_PROTOCOL],
            "%s", a.why[ERR_PROTOCOL]);
    a.errors[ERR_CONNECT] = 3;
    a.errors[ERR_PROTOCOL] = 1;
    stats_why(&b, ERR_CONNECT, "No route to host", NULL, false);
    stats_why(&b, ERR_TIMEOUT, "no response within ", "30s", false);
    b.errors[ERR_CONNECT] = 2;
    b.errors[ERR_TIMEOUT] = 1;
    stats_why(&a, ERR_REFUSED, "GOAWAY or REFUSED_STREAM on every try", NULL, false); /* retried, not counted */
    stats_why(&b, ERR_REFUSED, "no stream could start for ", "5s", false);
    b.errors[ERR_REFUSED] = 4;
    stats_merge(&a, &b);
    T_CHECK("why: merge keeps dst's first, takes what dst lacks, and one that came with errors",
            strcmp(a.why[ERR_CONNECT], "Connection refused") == 0 &&
                strcmp(a.why[ERR_TIMEOUT], "no response within 30s") == 0 &&
                strcmp(a.why[ERR_REFUSED], "no stream could start for 5s") == 0 && a.why_hint[ERR_PROTOCOL] &&
                a.errors[ERR_CONNECT] == 5,
            "%s | %s | %s", a.why[ERR_CONNECT], a.why[ERR_TIMEOUT], a.why[ERR_REFUSED]);
    stats_free(&a);
    stats_free(&b);
}

/* The QUIC counter table: what every walker of it relies on. */
static void check_quic_counters(void)
{
    bool ok = quic_ncounters > 0;
    int groups[QC_TEST + 1] = { 0 };
    for (size_t i = 0; i < quic_ncounters; i++) {
        const struct quic_counter *c = &quic_counters[i];
        groups[c->group]++;
        for (size_t j = 0; j < i; j++)
            ok &= T_QUIET("quic counters: keys unique", strcmp(c->key, quic_counters[j].key) != 0, "%s", c->key);
        /* The text report aligns the values after "label:" in 17 columns. */
        ok &= T_QUIET("quic counters: labels fit", !c->label || strlen(c->label) + 1 <= 17, "%s", c->label);
        ok &= T_QUIET("quic counters: test-only rows have no label", c->group != QC_TEST || !c->label, "%s", c->key);
    }
    T_CHECK("quic counters: unique keys, labels that fit the text's column, every group used",
            ok && groups[QC_PACKETS] && groups[QC_DATAGRAMS] && groups[QC_EVENTS] && groups[QC_TEST], "see above");

    /* Two connections summed, then two workers merged: every row moves. */
    struct quic_conn_counters k1, k2;
    memset(&k1, 0, sizeof k1);
    memset(&k2, 0, sizeof k2);
    k1.packets_sent = 10, k2.packets_sent = 5;
    k1.app_pn_len[3] = 2, k2.app_pn_len[3] = 1;
    k1.largest_app_pn_sent = 700, k2.largest_app_pn_sent = UINT64_MAX; /* none sent on the second */
    struct quic_stats a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    stats_quic_add_conn(&a, &k1);
    stats_quic_add_conn(&a, &k2);
    T_CHECK("quic counters: a connection's counters are summed, the largest packet number kept (none ignored)",
            a.packets_sent == 15 && a.app_pn_len[3] == 3 && a.largest_app_pn_sent == 700 && a.sends == 0,
            "sent %llu pnlen4 %llu largest %llu", (unsigned long long)a.packets_sent,
            (unsigned long long)a.app_pn_len[3], (unsigned long long)a.largest_app_pn_sent);

    struct stats dst, src;
    bool init = stats_init(&dst) == 0 && stats_init(&src) == 0;
    for (size_t i = 0; init && i < quic_ncounters; i++) {
        *quic_counter_at(&dst.quic, &quic_counters[i]) = 100;
        *quic_counter_at(&src.quic, &quic_counters[i]) = quic_counters[i].largest ? 1000 : i + 1;
    }
    if (init)
        stats_merge(&dst, &src);
    ok = init;
    for (size_t i = 0; init && i < quic_ncounters; i++) {
        const struct quic_counter *c = &quic_counters[i];
        uint64_t want = c->largest ? 1000 : 100 + i + 1;
        ok &= T_QUIET("quic counters: merged", quic_counter_get(&dst.quic, c) == want, "%s %llu", c->key,
                      (unsigned long long)quic_counter_get(&dst.quic, c));
    }
    T_CHECK("quic counters: stats_merge sums every row (the largest packet number as the larger)", ok, "see above");
    stats_free(&dst);
    stats_free(&src);
}

int main(void)
{
    check_index_monotonic();
    check_bucket_top();
    check_empty_and_single();
    check_distribution("uniform 1us-10ms", gen_uniform);
    check_distribution("log-normal-ish", gen_lognormal);
    check_distribution("constant", gen_constant);
    check_distribution("wide 0..1h + huge", gen_wide);
    check_merge_halves();
    check_stats_merge();
    check_err_names();
    check_why();
    check_quic_counters();
    T_DONE();
}
