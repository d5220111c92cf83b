/* report.h — the text and JSON reports (spec: Output). */
#ifndef SHB_REPORT_H
#define SHB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "worker/pace.h"
#include "stats/stats.h"

/* A request list's target as the reports name it. */
struct report_target_name {
    const char *method;
    const char *url;      /* its password as "***" */
};

/* The text report lists this many targets; the JSON has them all. */
#define REPORT_TARGETS_SHOWN 20

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
    const struct report_merged *merged; /* shb merge's report, or NULL */
    const char *label;    /* label=URL's label, or NULL: the JSON's "label" */
    bool interrupted;     /* a signal stopped the run before its end (merged: one of the reports' runs) */
    const char *interrupted_by; /* "SIGINT", "SIGTERM": the text report names it; NULL: none (or merged) */
    bool histograms;      /* --histograms (or --shard): the JSON carries each histogram, encoded */
    const char *connected_to; /* the address --connect-to or --resolve chose ("127.0.0.1:8443"), the
                               * --unix-socket path (absolute), or NULL */
    const char *connected_via; /* then which: "--connect-to", "--resolve" or "--unix-socket" */
    const char *proxy;    /* the proxy's URL (-x, the environment), its password masked; NULL: direct */
    const struct threshold *thresholds; /* --fail-if (report/thresholds.h), judged in the report */
    size_t nthresholds;
    const struct report_target_name *target_names; /* --targets: stats.targets.n of them; else NULL */
    unsigned parallel;    /* -p: streams per connection (1 over HTTP/1.1); 0: not known (merged reports differ) */
    const char *version;  /* the shb that made the run (shb_version), or NULL: not known */
};

/* shb merge of reports whose handshakes settled differently: each
 * field's values, each once, in the order first seen, joined by " + "
 * (as url and protocol under --force); "none" stands for a report's null
 * group or ALPN. */
struct report_tls_joined {
    const char *version, *cipher, *group, *alpn;
    bool fallback_any, fallback_all; /* some, every report's handshake ran on the TLS 1.2 engine */
};

/* What went into a report that `shb merge` made (merge.c). */
struct report_merged {
    unsigned reports;       /* how many reports */
    unsigned shard_count;   /* their --shard N when all have the same N > 1, else 0 */
    const uint32_t *shards; /* the shard indexes that came in, ascending, each once */
    unsigned n_shards;
    bool shard_twice;       /* some shard came in more than once */
    double rate_requested;  /* -q: the rates the reports asked for, summed */
    const struct report_tls_joined *tls; /* when the reports' TLS differ (stats.tls_mixed), else NULL */
};

/* The phases table: phase i's JSON key ("connect", "tlsHandshake",
 * "quicHandshake", "firstByte") and its histogram in s. */
#define REPORT_PHASES 4
const char *report_phase_key(size_t i);
struct hist *report_phase_hist(struct stats *s, size_t i);

/* A CONNECTION_CLOSE's name as the reports print it: "H3_NO_ERROR",
 * "CRYPTO_ERROR handshake_failure", "application 0x1f", "0x53". */
void report_close_name(char *out, size_t cap, const struct quic_close_count *k);

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
    bool no_responses; /* only errors: no latency, so no percentile (the table shows "-") */
};
void report_summary(const struct report_info *ri, const struct stats *s, struct report_summary *out);

#endif
