/* hdrlog.c — --hdr-log: per-second interval histograms, packed by each
 * worker as it goes, merged and written as HdrHistogram's interval log at
 * the end (hdrlog.h says why at the end).
 *
 * A packed second, per thread and series, is unsigned LEB128 varints:
 *   second, min, max, n, then n pairs (index gap, count)
 * where the first gap is the bucket's index itself and each next one the
 * distance from the previous non-zero bucket. hist_index's buckets are
 * below 2^16 (three bytes at most) and counts 32-bit (five). */
#define _GNU_SOURCE
#include "report/hdrlog.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/hdr.h"

#define NS_PER_SEC 1000000000ull
#define NS_PER_MS 1000000ull

/* A packed second's largest size: four header varints (three of up to 10
 * bytes, n up to 3), then up to 3 + 5 bytes a bucket. */
#define PACK_HEAD_MAX 33
#define PACK_PAIR_MAX 8
#define PACK_FIRST_CAP (64u << 10)

static const char *const series_tag[HDRLOG_SERIES] = { "latency", "service" };

int hdrlog_thread_init(struct hdrlog_thread *t, unsigned nseries)
{
    memset(t, 0, sizeof *t);
    t->nseries = nseries;
    for (unsigned s = 0; s < nseries; s++)
        if (hist_init(&t->cur[s]) < 0)
            return -1;
    return 0;
}

void hdrlog_thread_free(struct hdrlog_thread *t)
{
    for (unsigned s = 0; s < HDRLOG_SERIES; s++) {
        hist_free(&t->cur[s]);
        free(t->packed[s].p);
        t->packed[s] = (struct hdrlog_packed){ 0 };
    }
    t->nseries = 0;
}

void hdrlog_hist_clear(struct hist *h)
{
    if (h->count) {
        size_t lo = hist_index(h->min), hi = hist_index(h->max);
        memset(&h->counts[lo], 0, (hi - lo + 1) * sizeof *h->counts);
    }
    h->count = 0;
    h->sum = 0;
    h->min = UINT64_MAX;
    h->max = 0;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Room for n more bytes: the buffer doubles (a second at a time, never per
 * request). */
static int reserve(struct hdrlog_packed *b, size_t n)
{
    if (b->cap - b->len >= n)
        return 0;
    size_t cap = b->cap ? b->cap : PACK_FIRST_CAP;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

/* The current second of series s goes into its packed buffer, and its
 * histogram is emptied for the next. */
static void pack(struct hdrlog_thread *t, unsigned s)
{
    struct hist *h = &t->cur[s];
    if (h->count == 0)
        return;
    size_t lo = hist_index(h->min), hi = hist_index(h->max), n = 0;
    for (size_t i = lo; i <= hi; i++)
        n += h->counts[i] != 0;
    struct hdrlog_packed *b = &t->packed[s];
    if (t->lost || reserve(b, PACK_HEAD_MAX + n * PACK_PAIR_MAX) < 0) {
        t->lost = true; /* said at the end (hdrlog_write) */
    } else {
        uint8_t *p = b->p + b->len;
        p = put_varint(p, t->second);
        p = put_varint(p, h->min);
        p = put_varint(p, h->max);
        p = put_varint(p, n);
        size_t prev = 0;
        for (size_t i = lo; i <= hi; i++) {
            if (!h->counts[i])
                continue;
            p = put_varint(p, i - prev);
            p = put_varint(p, h->counts[i]);
            prev = i;
        }
        b->len = (size_t)(p - b->p);
    }
    hdrlog_hist_clear(h);
}

void hdrlog_move_to(struct hdrlog_thread *t, uint64_t second)
{
    if (second == t->second)
        return;
    for (unsigned s = 0; s < t->nseries; s++)
        pack(t, s);
    t->second = second;
}

void hdrlog_finish(struct hdrlog_thread *t)
{
    for (unsigned s = 0; s < t->nseries; s++)
        pack(t, s);
}

/* ---- reading the packed seconds back ------------------------------------ */

/* The buffers are our own, but a read never runs past one: a truncated
 * varint reads as what it has. */
static uint64_t get_varint(const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    *pp = p;
    return v;
}

/* The cursor's next record: its second, or UINT64_MAX at the end. */
static void cursor_peek(struct hdrlog_cursor *c)
{
    if (c->p >= c->end) {
        c->second = UINT64_MAX;
        return;
    }
    const uint8_t *p = c->p;
    c->second = get_varint(&p, c->end);
}

int hdrlog_reader_init(struct hdrlog_reader *r, struct hdrlog_thread *const *threads, unsigned nthreads)
{
    r->nthreads = nthreads;
    r->nseries = nthreads ? threads[0]->nseries : 0;
    r->cur = calloc((size_t)nthreads * r->nseries + 1, sizeof *r->cur);
    if (!r->cur)
        return -1;
    for (unsigned t = 0; t < nthreads; t++) {
        for (unsigned s = 0; s < r->nseries; s++) {
            struct hdrlog_cursor *c = &r->cur[t * r->nseries + s];
            const struct hdrlog_packed *b = &threads[t]->packed[s];
            c->p = b->p;
            c->end = b->p ? b->p + b->len : NULL;
            cursor_peek(c);
        }
    }
    return 0;
}

void hdrlog_reader_free(struct hdrlog_reader *r)
{
    free(r->cur);
    r->cur = NULL;
}

/* Takes the record at c (into h, unless h is NULL) and moves past it. */
static void take_record(struct hdrlog_cursor *c, struct hist *h)
{
    const uint8_t *p = c->p, *end = c->end;
    get_varint(&p, end); /* the second: cursor_peek has it */
    uint64_t min = get_varint(&p, end), max = get_varint(&p, end), n = get_varint(&p, end);
    size_t idx = 0;
    for (uint64_t i = 0; i < n && p < end; i++) {
        idx += (size_t)get_varint(&p, end);
        uint64_t count = get_varint(&p, end);
        if (!h || idx >= HIST_BUCKETS)
            continue;
        /* One second of one bucket over every thread: far below 2^32. */
        h->counts[idx] += (uint32_t)count;
        h->count += count;
    }
    if (h && min < h->min)
        h->min = min;
    if (h && max > h->max)
        h->max = max;
    c->p = p;
    cursor_peek(c);
}

void hdrlog_reader_add(struct hdrlog_reader *r, enum hdrlog_series s, uint64_t second, struct hist *h)
{
    if ((unsigned)s >= r->nseries)
        return;
    for (unsigned t = 0; t < r->nthreads; t++) {
        struct hdrlog_cursor *c = &r->cur[t * r->nseries + s];
        while (c->second < second) /* a second not asked for: skipped */
            take_record(c, NULL);
        if (c->second == second)
            take_record(c, h);
    }
}

uint64_t hdrlog_reader_seconds(const struct hdrlog_reader *r)
{
    uint64_t n = 0;
    size_t ncur = (size_t)r->nthreads * r->nseries;
    for (size_t i = 0; i < ncur; i++) {
        struct hdrlog_cursor c = r->cur[i]; /* a copy: r's stays where it is */
        for (; c.second != UINT64_MAX; take_record(&c, NULL))
            if (c.second + 1 > n)
                n = c.second + 1;
    }
    return n;
}

/* ---- the log file ----------------------------------------------------- */

FILE *hdrlog_open(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errlen, "--hdr-log %s: cannot create it: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

/* Seconds with three decimals, as HistogramLogWriter's "%.3f" writes its
 * timestamps (rounded to the millisecond). */
static void put_seconds(FILE *f, uint64_t ns)
{
    uint64_t ms = (ns + NS_PER_MS / 2) / NS_PER_MS;
    fprintf(f, "%" PRIu64 ".%03" PRIu64, ms / 1000, ms % 1000);
}

/* The header HistogramLogWriter writes (outputComment, outputLogFormatVersion,
 * outputStartTime, outputBaseTime, outputLegend, in that order), as
 * HdrHistogram 2.1.11 spells it. StartTime's second field is
 * java.util.Date.toString()'s form (readers skip it). BaseTime equal to
 * StartTime: the intervals' timestamps count from the window's start. */
static void put_header(FILE *f, uint64_t start_wall_ns, unsigned nseries)
{
    fprintf(f, "#[Logged with shb --hdr-log: one interval a second, values in nanoseconds; Tag=latency%s]\n",
            nseries > 1 ? ", Tag=service (service time, -q)" : "");
    fputs("#[Histogram log format version 1.3]\n", f);
    time_t sec = (time_t)(start_wall_ns / NS_PER_SEC);
    struct tm tm;
    char date[64] = "";
    if (localtime_r(&sec, &tm))
        strftime(date, sizeof date, "%a %b %d %H:%M:%S %Z %Y", &tm);
    fputs("#[StartTime: ", f);
    put_seconds(f, start_wall_ns);
    fprintf(f, " (seconds since epoch), %s]\n", date);
    fputs("#[BaseTime: ", f);
    put_seconds(f, start_wall_ns);
    fputs(" (seconds since epoch)]\n", f);
    fputs("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n", f);
}

/* One interval line: "Tag=NAME,start,length,max,histogram". Interval_Max
 * is what HistogramLogWriter prints by default: the histogram's
 * getMaxValue() (the highest value equivalent to the largest recorded
 * one) over its maxValueUnitRatio, 1e6: milliseconds. */
static int put_interval(FILE *f, struct hdr_buf *enc, enum hdrlog_series s, uint64_t from_ns, uint64_t len_ns,
                        const struct hist *h)
{
    size_t n;
    const char *b64 = hdr_encode_base64(enc, h, &n);
    if (!b64)
        return -1;
    fprintf(f, "Tag=%s,", series_tag[s]);
    put_seconds(f, from_ns);
    fputc(',', f);
    put_seconds(f, len_ns);
    fprintf(f, ",%.3f,", h->count ? (double)hist_highest_equivalent(h->max) / 1e6 : 0.0);
    fwrite(b64, 1, n, f);
    fputc('\n', f);
    return 0;
}

int hdrlog_write(FILE *f, struct hdrlog_thread *const *threads, unsigned nthreads, uint64_t start_wall_ns,
                 uint64_t duration_ns, char *err, size_t errlen)
{
    struct hdrlog_reader r = { 0 };
    struct hist h = { 0 };
    struct hdr_buf enc = { 0 }; /* every interval's encoding, one after another */
    int rc = -1;
    if (hdrlog_reader_init(&r, threads, nthreads) < 0 || hist_init(&h) < 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    put_header(f, start_wall_ns, r.nseries);
    /* Every second of the window, and any a thread recorded past it (the
     * responses read in the turn that saw the -z deadline). */
    uint64_t seconds = (duration_ns + NS_PER_SEC - 1) / NS_PER_SEC, recorded = hdrlog_reader_seconds(&r);
    if (recorded > seconds)
        seconds = recorded;
    for (uint64_t k = 0; k < seconds; k++) {
        uint64_t from = k * NS_PER_SEC, left = duration_ns > from ? duration_ns - from : 0;
        for (unsigned s = 0; s < r.nseries; s++) {
            hdrlog_reader_add(&r, s, k, &h);
            if (put_interval(f, &enc, s, from, left < NS_PER_SEC ? left : NS_PER_SEC, &h) < 0) {
                snprintf(err, errlen, "out of memory");
                goto out;
            }
            hdrlog_hist_clear(&h);
        }
    }
    rc = 0;
    for (unsigned t = 0; t < nthreads; t++) {
        if (threads[t]->lost) {
            snprintf(err, errlen, "ran out of memory during the run: some seconds are missing from the log");
            rc = -1;
            break;
        }
    }
out:
    hdr_buf_free(&enc);
    hist_free(&h);
    hdrlog_reader_free(&r);
    if (fflush(f) != 0 || ferror(f)) {
        if (rc == 0)
            snprintf(err, errlen, "writing failed: %s", strerror(errno));
        rc = -1;
    }
    if (fclose(f) != 0 && rc == 0) {
        snprintf(err, errlen, "writing failed: %s", strerror(errno));
        rc = -1;
    }
    return rc;
}
