/* report.h — the text and JSON reports (spec: Output). */
#ifndef SHB_REPORT_H
#define SHB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pace.h"
#include "stats.h"

struct report_info {
    const char *url;      /* as the user typed it */
    const char *protocol; /* "HTTP/1.1", "HTTP/2", "HTTP/3" */
    unsigned threads;
    unsigned connections;
    uint64_t duration_ns; /* wall time of the run (after the warm-up) */
    uint64_t warmup_ns;   /* --warmup, 0 = none: s->warmup is shown only then */
    const struct pace_rate *rate; /* -q, or NULL: the rate, schedule-lag and service-time figures */
    double client_busy;   /* the busiest worker thread's CPU time / the run's wall time */
    uint64_t start_wall_ns; /* the measured window's start, Unix ns (it ends duration_ns later) */
    unsigned shard_index, shard_count; /* --shard I/N (0/1: the whole run) */
    const char *label;    /* label=URL's label, or NULL: the JSON's "label" */
    bool interrupted;     /* one of several targets, ended by Ctrl-C: the JSON says so */
};

void report_text(FILE *f, const struct report_info *ri, const struct stats *s);
/* The JSON report: one object and a newline. */
void report_json(FILE *f, const struct report_info *ri, const struct stats *s);
/* The same object without the newline after it, for an array of them. */
void report_json_object(FILE *f, const struct report_info *ri, const struct stats *s);

/* The figures a comparison of several targets puts side by side, the
 * same as their reports show. */
struct report_summary {
    double requests_per_sec;
    uint64_t p50_ns, p99_ns; /* latency percentiles */
    uint64_t errors;
};
void report_summary(const struct report_info *ri, const struct stats *s, struct report_summary *out);

#endif
