/* report.h — the text and JSON reports (spec: Output). */
#ifndef SHB_REPORT_H
#define SHB_REPORT_H

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
};

void report_text(FILE *f, const struct report_info *ri, const struct stats *s);
void report_json(FILE *f, const struct report_info *ri, const struct stats *s);

#endif
