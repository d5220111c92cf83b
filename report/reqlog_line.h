/* report/reqlog_line.h — one line of --log (a request's record), in each
 * of the log's formats: TSV and CSV (each with a header line) and JSON
 * Lines. Pure: the worker formats into its own buffer (worker/reqlog.c),
 * main writes the header; nothing here allocates or does I/O.
 *
 * Columns, in order (docs/request-log.md says what each means):
 *   start_us latency_us ttfb_us status error bytes conn stream target thread warmup */
#ifndef SHB_REPORT_REQLOG_LINE_H
#define SHB_REPORT_REQLOG_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum reqlog_format { REQLOG_TSV, REQLOG_CSV, REQLOG_JSONL };

/* The longest line any format writes (eleven numbers of at most 20 digits,
 * the longest error kind name, JSON's keys): a buffer with this much room
 * left always takes the next line. */
#define REQLOG_LINE_MAX 512

struct reqlog_line {
    uint64_t start_ns;   /* Unix time, ns (written in µs, truncated) */
    uint64_t latency_ns; /* written in µs, rounded to the nearest */
    uint64_t ttfb_ns;    /* 0: no byte of a response came */
    uint64_t bytes;      /* the response's bytes received for this request */
    uint64_t stream;     /* HTTP/2 and HTTP/3 stream id; HTTP/1.1 the request's number on its connection */
    uint32_t conn;       /* the run's connection index */
    uint32_t target;     /* the request's target (0 with one request) */
    uint32_t thread;     /* the worker thread */
    uint16_t status;     /* 0 for an error */
    const char *error;   /* the error kind's name (err_kind_name), NULL for a response */
    bool warmup;         /* ended during --warmup: not in the report */
};

/* The header line (TSV, CSV) into dst (REQLOG_LINE_MAX bytes): its length,
 * 0 for JSON Lines, which has none. */
size_t reqlog_header(char *dst, enum reqlog_format f);

/* The start time's seconds as last written (a line's costliest digits,
 * the same for a second): kept by the caller, zeroed before the first
 * line. */
struct reqlog_cache {
    uint64_t sec;
    char text[24]; /* copied whole: 20 digits at most, and padding */
    uint8_t len;   /* 0: empty */
};

/* The line, '\n' included, into dst (at least REQLOG_LINE_MAX bytes): its
 * length. cache: the caller's (one per thread), or NULL. */
size_t reqlog_format_line(char *dst, const struct reqlog_line *ln, enum reqlog_format f, struct reqlog_cache *cache);

#endif
