/* test/unit/unit_hdrlog.c — --hdr-log's bookkeeping (hdrlog.c): seconds packed
 * by several threads, with gaps, read back in step and added second by
 * second into exactly the histograms recorded directly; the histogram
 * emptied between seconds; and the whole log written and parsed back,
 * each line's histogram decoded (hdr.c) and compared. HdrHistogram's own
 * reading of the log is test/e2e/e2e_hdrlog.sh's. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/hdr.h"
#include "report/hdrlog.h"
#include "t.h"

#define THREADS 3
#define SECONDS 7
#define S 1000000000ull

/* A latency-like value over the whole range: exact small ones, bucket
 * edges, microseconds to hours, and one past the top bucket. */
static uint64_t some_value(void)
{
    static const uint64_t edges[] = { 0, 1, 2047, 2048, 2049, 4095, 4096, 1ull << 40, 1ull << 60 };
    uint64_t r = t_rng();
    if (r % 16 == 0)
        return edges[(r >> 8) % (sizeof edges / sizeof edges[0])];
    return (t_rng() >> (r % 50 + 14)) + 1;
}

static bool same_hist(const struct hist *a, const struct hist *b, const char **why)
{
    *why = "count";
    if (a->count != b->count)
        return false;
    *why = "min/max";
    if (a->count && (a->min != b->min || a->max != b->max))
        return false;
    *why = "counts";
    return memcmp(a->counts, b->counts, HIST_BUCKETS * sizeof *a->counts) == 0;
}

static bool all_zero(const struct hist *h)
{
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        if (h->counts[i])
            return false;
    return h->count == 0 && h->max == 0 && h->min == UINT64_MAX;
}

/* The reference: what every thread recorded, per second and series. */
static struct hist ref[SECONDS][HDRLOG_SERIES];
static struct hdrlog_thread th[THREADS];
static struct hdrlog_thread *thp[THREADS];

/* Each thread records into some seconds (thread t skips seconds where
 * (second + t) % 3 == 1, and none records into the last two but thread 0
 * into the very last), moving forward as worker/worker.c does, the service
 * series only on even values' seconds. */
static void record_all(void)
{
    for (unsigned t = 0; t < THREADS; t++) {
        hdrlog_thread_init(&th[t], 2);
        thp[t] = &th[t];
    }
    for (unsigned k = 0; k < SECONDS; k++)
        for (unsigned s = 0; s < HDRLOG_SERIES; s++)
            hist_init(&ref[k][s]);
    for (unsigned t = 0; t < THREADS; t++) {
        for (unsigned k = 0; k < SECONDS; k++) {
            bool quiet = (k + t) % 3 == 1 || (k >= SECONDS - 2 && !(t == 0 && k == SECONDS - 1));
            if (quiet)
                continue;
            hdrlog_move_to(&th[t], k);
            hdrlog_move_to(&th[t], k); /* the same second again: nothing packed twice */
            unsigned n = 1 + (unsigned)(t_rng() % 3000);
            for (unsigned i = 0; i < n; i++) {
                uint64_t v = some_value();
                hdrlog_record(&th[t], HDRLOG_LATENCY, v);
                hist_record(&ref[k][HDRLOG_LATENCY], v);
                if (k % 2 == 0) {
                    hdrlog_record(&th[t], HDRLOG_SERVICE, v / 2);
                    hist_record(&ref[k][HDRLOG_SERVICE], v / 2);
                }
            }
        }
        hdrlog_finish(&th[t]);
    }
}

static void check_read_back(void)
{
    struct hdrlog_reader r;
    struct hist h;
    T_CHECK("reader: set up", hdrlog_reader_init(&r, thp, THREADS) == 0 && hist_init(&h) == 0, "out of memory");
    T_CHECK("reader: one past the last second recorded", hdrlog_reader_seconds(&r) == SECONDS, "%" PRIu64,
            hdrlog_reader_seconds(&r));
    bool ok = true;
    for (unsigned k = 0; k < SECONDS && ok; k++) {
        for (unsigned s = 0; s < HDRLOG_SERIES && ok; s++) {
            hdrlog_reader_add(&r, s, k, &h);
            const char *why;
            ok = T_QUIET("reader: second by second, the threads added", same_hist(&h, &ref[k][s], &why),
                         "second %u series %u: %s differ (%" PRIu64 " vs %" PRIu64 ")", k, s, why, h.count,
                         ref[k][s].count);
            hdrlog_hist_clear(&h);
            ok = ok && T_QUIET("reader: cleared between seconds", all_zero(&h), "second %u series %u", k, s);
        }
    }
    T_CHECK("reader: every second of every series is the threads' sum, exactly, and clears", ok, "see above");
    hdrlog_reader_add(&r, HDRLOG_LATENCY, SECONDS, &h);
    T_CHECK("reader: nothing past the end", h.count == 0, "%" PRIu64, h.count);
    hist_free(&h);
    hdrlog_reader_free(&r);

    /* Seconds not asked for are skipped, not added to the next. */
    T_CHECK("reader: set up again", hdrlog_reader_init(&r, thp, THREADS) == 0 && hist_init(&h) == 0, "out of memory");
    hdrlog_reader_add(&r, HDRLOG_LATENCY, 2, &h);
    const char *why = "";
    T_CHECK("reader: a second asked for after a gap is that second alone", same_hist(&h, &ref[2][0], &why), "%s",
            why);
    hist_free(&h);
    hdrlog_reader_free(&r);
}

/* Parses "Tag=NAME,START,LENGTH,MAX,BASE64". */
static bool parse_line(char *line, char **tag, char **start, char **len, char **max, char **b64)
{
    if (strncmp(line, "Tag=", 4) != 0)
        return false;
    char *save;
    *tag = strtok_r(line + 4, ",", &save);
    *start = strtok_r(NULL, ",", &save);
    *len = strtok_r(NULL, ",", &save);
    *max = strtok_r(NULL, ",", &save);
    *b64 = strtok_r(NULL, ",\n", &save);
    return *b64 != NULL;
}

static void check_write(void)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    char err[200] = "";
    /* 2.5 s measured on the wall clock at 1,700,000,000.1234567 s; the
     * threads recorded SECONDS (7) seconds: the log has all 7. */
    uint64_t start = 1700000000123456789ull;
    int rc = hdrlog_write(f, thp, THREADS, start, 2500000000ull, err, sizeof err);
    T_CHECK("write: succeeds", rc == 0, "%s", err);
    if (rc != 0 || !buf)
        return;

    char *line, *save;
    unsigned n = 0, intervals = 0;
    bool ok = true;
    struct hist h;
    hist_init(&h);
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
        static const char *const head[] = {
            "#[Logged with shb --hdr-log: one interval a second, values in nanoseconds; Tag=latency, Tag=service "
            "(service time, -q)]",
            "#[Histogram log format version 1.3]",
            "#[StartTime: 1700000000.123 (seconds since epoch), ",
            "#[BaseTime: 1700000000.123 (seconds since epoch)]",
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"",
        };
        if (n < 5) {
            ok = T_QUIET("write: the header, as HistogramLogWriter's", strncmp(line, head[n], strlen(head[n])) == 0,
                         "line %u: %s", n, line);
            continue;
        }
        char *tag, *st, *len, *max, *b64;
        if (!T_QUIET("write: an interval line", parse_line(line, &tag, &st, &len, &max, &b64), "%s", line)) {
            ok = false;
            break;
        }
        unsigned k = intervals / 2, s = intervals % 2;
        intervals++;
        char want_start[32], want_len[32], want_max[32];
        snprintf(want_start, sizeof want_start, "%u.000", k);
        snprintf(want_len, sizeof want_len, "%s", k < 2 ? "1.000" : k == 2 ? "0.500" : "0.000");
        snprintf(want_max, sizeof want_max, "%.3f",
                 ref[k][s].count ? (double)hist_highest_equivalent(ref[k][s].max) / 1e6 : 0.0);
        ok = T_QUIET("write: tag, start, length, max", strcmp(tag, s ? "service" : "latency") == 0 &&
                     strcmp(st, want_start) == 0 && strcmp(len, want_len) == 0 && strcmp(max, want_max) == 0,
                     "second %u series %u: %s,%s,%s,%s; wanted %s,%s,%s", k, s, tag, st, len, max, want_start,
                     want_len, want_max) && ok;
        h.min = ref[k][s].min; /* the decoder leaves min and max to the caller */
        h.max = ref[k][s].max;
        const char *why = "decode";
        ok = T_QUIET("write: each line's histogram decodes to the second's",
                     hdr_decode_base64_add(b64, strlen(b64), &h, err, sizeof err) == 0 &&
                         same_hist(&h, &ref[k][s], &why),
                     "second %u series %u: %s (%s)", k, s, why, err) && ok;
        h.min = UINT64_MAX;
        h.max = 0;
        memset(h.counts, 0, HIST_BUCKETS * sizeof *h.counts);
        h.count = 0;
    }
    T_CHECK("write: the header, then every second's two series in order, each exact", ok && intervals == 2 * SECONDS,
            "%u interval lines", intervals);
    hist_free(&h);
    free(buf);
}

int main(void)
{
    record_all();
    check_read_back();
    check_write();
    for (unsigned t = 0; t < THREADS; t++)
        hdrlog_thread_free(&th[t]);
    for (unsigned k = 0; k < SECONDS; k++)
        for (unsigned s = 0; s < HDRLOG_SERIES; s++)
            hist_free(&ref[k][s]);
    T_DONE();
}
