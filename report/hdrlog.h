/* hdrlog.h — --hdr-log FILE: the measured window second by second, as
 * HdrHistogram's interval log (the text format HdrHistogram's
 * HistogramLogWriter writes and HistogramLogReader / HistogramLogProcessor
 * read), every interval's histogram exact: the same per-request values that
 * go into stats.latency (and, with -q, stats.pace.service), in nanoseconds.
 *
 * Recording. Each worker thread keeps, per series, one struct hist for the
 * current second (hist_record: a few instructions, no allocation, on the
 * response path) and moves to the next second at its first loop turn past
 * the boundary, as the timeline does (worker/worker.c). The finished second is
 * then packed: its non-zero buckets as (index gap, count) varints appended
 * to a per-thread buffer, about 2-4 bytes a bucket, and the histogram is
 * cleared over the range it used. Nothing crosses threads during the run.
 *
 * Writing. After the run (also after Ctrl-C: the report is printed then,
 * and the log with it), main reads every thread's packed seconds back in
 * step, adds them second by second into one histogram per series, and
 * writes one line per second and series: HdrHistogram's V2 compressed
 * encoding, base64 (hdr.h).
 *
 * Why at the end and not streamed during the run: streaming would need the
 * threads to hand finished seconds to a writer while they run (a queue per
 * thread, and a policy for a writer that falls behind), where packing in
 * place needs nothing shared. What is held is about what the log itself
 * will hold: a thread that sees 2,000 distinct buckets a second (a wide
 * spread at high rates) packs ~6 KB a second, 22 MB an hour; a typical
 * narrow one a few hundred buckets, a few MB an hour. A run too long for
 * memory says so at the end (the log is then incomplete) rather than
 * failing under load.
 *
 * The file is opened (created or truncated) before any traffic, so a path
 * that cannot be written is a one-line error, exit 2, before the run. */
#ifndef SHB_HDRLOG_H
#define SHB_HDRLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/hist.h"

/* The series, each tagged in the log ("Tag=latency,..."): latency always,
 * service time (sent -> response) only with -q, where it differs. */
enum hdrlog_series { HDRLOG_LATENCY, HDRLOG_SERVICE, HDRLOG_SERIES };

struct hdrlog_packed {
    uint8_t *p;           /* finished seconds, packed (hdrlog.c); grows */
    size_t len, cap;
};

/* One worker thread's recorder. */
struct hdrlog_thread {
    unsigned nseries;     /* 0: off (no --hdr-log); 1: latency; 2: and service time */
    bool lost;            /* packing ran out of memory: later seconds were dropped */
    uint64_t second;      /* the current interval, counted from the measured window's start */
    struct hist cur[HDRLOG_SERIES];
    struct hdrlog_packed packed[HDRLOG_SERIES];
};

/* Allocates the current-second histograms (once, before the run). 0, or
 * -1 when out of memory. */
int hdrlog_thread_init(struct hdrlog_thread *t, unsigned nseries);
void hdrlog_thread_free(struct hdrlog_thread *t);

static inline void hdrlog_record(struct hdrlog_thread *t, enum hdrlog_series s, uint64_t v)
{
    hist_record(&t->cur[s], v);
}

/* The interval `second` becomes the current one; the current one is packed
 * first (when it holds anything). Time only moves forward. */
void hdrlog_move_to(struct hdrlog_thread *t, uint64_t second);

/* The run is over: the current interval is packed. */
void hdrlog_finish(struct hdrlog_thread *t);

/* Reading the threads' packed seconds back, in step (hdrlog_write; the
 * unit test). */
struct hdrlog_reader {
    unsigned nthreads, nseries;
    struct hdrlog_cursor {
        const uint8_t *p, *end;
        uint64_t second;  /* of the record at p; UINT64_MAX when none is left */
    } *cur;               /* nthreads * nseries */
};

/* 0, or -1 when out of memory. nseries: the threads' (all alike). */
int hdrlog_reader_init(struct hdrlog_reader *r, struct hdrlog_thread *const *threads, unsigned nthreads);
void hdrlog_reader_free(struct hdrlog_reader *r);
/* Adds every thread's series s of interval `second` into h (counts, count,
 * min, max; not sum) and moves past it. Seconds are asked for in order. */
void hdrlog_reader_add(struct hdrlog_reader *r, enum hdrlog_series s, uint64_t second, struct hist *h);
/* One past the last second any thread recorded (0 when none did). */
uint64_t hdrlog_reader_seconds(const struct hdrlog_reader *r);

/* Empties h, touching only the buckets between its min and max. */
void hdrlog_hist_clear(struct hist *h);

/* Creates or truncates path for writing. NULL with a one-line reason in
 * err when it cannot. */
FILE *hdrlog_open(const char *path, char *err, size_t errlen);

/* Writes the log into f and closes it: the header (StartTime and BaseTime
 * both the measured window's start, start_wall_ns), then for each second of
 * the window (duration_ns, and every second a thread recorded) one line per
 * series, the last interval as long as what is left of the window. 0, or
 * -1 with a one-line reason in err (a write error, memory; f is closed
 * either way). */
int hdrlog_write(FILE *f, struct hdrlog_thread *const *threads, unsigned nthreads, uint64_t start_wall_ns,
                 uint64_t duration_ns, char *err, size_t errlen);

#endif
